"""The film's camera moves and transitions, chosen per shot from the photo and the song (pure).

Moves (the vocabulary of :class:`media.plan.timeline.Shot.move`): ``push_in`` toward the subject,
``pull_out`` from it, ``pan`` across the photo ending on the subject, ``tilt`` down (or up) to
it; signature films add parallax on top of one of them (``Shot.motion``). Each photo shot gets
the move that suits it best (:func:`move_scores`: a wide photo pans, a tall one tilts, a subject
off centre invites a pan or tilt toward it, a close face a pull-out, a low-resolution photo
mostly pushes; a chorus pushes in, a verse drifts, a gentle film pulls out slowly), never the
move of the shot before.

Transitions follow the song's sections (:func:`transition_kinds`): hard cuts on downbeats in a
chorus, dissolves in a verse (longer in a bridge), and for gentle films slow dissolves inside a
section and slower ones where a section changes or a card comes or goes (a dip through black
looked heavy there: a memorial never drops to a near-black frame between two photos). Sections are
plain data: ``(name, start_s, end_s)`` as the song's metadata lists them; nothing here reads
audio or pixels. Frames are film frame indices, lengths seconds.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

PUSH_IN, PULL_OUT, PAN, TILT = "push_in", "pull_out", "pan", "tilt"
MOVE_VOCABULARY = (PUSH_IN, PULL_OUT, PAN, TILT)
GENTLE_MOVES = (PUSH_IN, PULL_OUT)  # a low-resolution photo or a plain push only zooms
CHORUS, VERSE, BRIDGE, INTRO, ENDING = "chorus", "verse", "bridge", "intro", "ending"
FRAMING_MOVE = {PUSH_IN: "zoom_in", PULL_OUT: "zoom_out", PAN: "pan", TILT: "tilt"}
"""The :func:`media.analysis.framing.plan_ken_burns` move that draws each planned move."""
GENTLE_PAN_COST = 0.3  # a gentle shot prefers pushes; a long photo still pans
RECENT_MOVES = 3  # moves of the shots before that make a move less likely (variety)
RECENT_PENALTY = 0.5
OFF_CENTRE = 0.12  # a subject this far from the centre (fraction of the photo) invites a pan


@dataclass(frozen=True)
class Section:
    """A part of the song in film frames: ``name`` (intro, verse, chorus, bridge, ending)
    over ``[start, end)``."""

    name: str
    start: int
    end: int


def section_frames(sections: Sequence[Sequence[object]], fps: int,
                   total: int) -> tuple[Section, ...]:
    """The song's ``(name, start_s, end_s)`` sections as :class:`Section` frames, in order,
    clipped to the film's ``total`` frames (malformed or empty ones left out)."""
    out = []
    for item in sections:
        name, start_s, end_s = str(item[0]), float(item[1]), float(item[2])  # type: ignore[arg-type]
        start, end = max(0, round(start_s * fps)), min(total, round(end_s * fps))
        if end > start:
            out.append(Section(name, start, end))
    return tuple(sorted(out, key=lambda s: s.start))


def section_at(sections: Sequence[Section], frame: int) -> str:
    """Name of the section playing at ``frame`` ("" when none does)."""
    starts = [s.start for s in sections]
    i = bisect.bisect_right(starts, frame) - 1
    return sections[i].name if i >= 0 and frame < sections[i].end else ""


def downbeat_grid(beats: Sequence[int], bars: Sequence[int],
                  sections: Sequence[Section]) -> tuple[int, ...]:
    """The frames cuts may land on: every beat, except inside a chorus where only downbeats
    (``bars``) count, so chorus cuts fall on the bar."""
    if not sections or not bars:
        return tuple(beats)
    keep = [b for b in beats if section_at(sections, b) != CHORUS]
    keep += [b for b in bars if section_at(sections, b) == CHORUS]
    return tuple(sorted(set(keep)))


@dataclass(frozen=True)
class PhotoLook:
    """What the move chooser reads of a photo: size (pixels), where its subject's centre is
    (0..1 of width and height), how close its largest face is, and whether it is low-res."""

    width: int
    height: int
    focus_x: float = 0.5
    focus_y: float = 0.5
    close: bool = False
    low_res: bool = False


def move_scores(look: PhotoLook, section: str, gentle: bool) -> dict[str, float]:
    """How well each move of :data:`MOVE_VOCABULARY` suits a photo in a section (higher is
    better; a move a photo cannot carry is left out)."""
    ratio = look.width / max(1, look.height)
    scores = {PUSH_IN: 1.0, PULL_OUT: 0.8, PAN: 0.6, TILT: 0.4}
    if look.low_res:  # no closer than the crop: a pan or tilt only where the photo is long
        scores = {PUSH_IN: 1.0, PULL_OUT: 0.9, PAN: 0.2, TILT: 0.0}
    if ratio > 1.2:
        scores[PAN] += 1.0  # a landscape photo pans (and fills 9:16 by panning across it)
    elif ratio < 0.85:
        scores[TILT] += 1.0
    if abs(look.focus_x - 0.5) > OFF_CENTRE:
        scores[PAN] += 0.6
    if abs(look.focus_y - 0.5) > OFF_CENTRE:
        scores[TILT] += 0.6
    if look.close:
        scores[PULL_OUT] += 0.7
    if gentle:
        scores[PULL_OUT] += 0.8
        scores[PAN] -= 0.2
    elif section == CHORUS:
        scores[PUSH_IN] += 0.8
    elif section in (VERSE, BRIDGE):
        scores[PAN] += 0.3
        scores[TILT] += 0.3
    return scores


def choose_moves(looks: Sequence[PhotoLook | None], sections: Sequence[str], gentle: bool,
                 full: Sequence[bool]) -> list[str]:
    """One move per shot (``""`` for a shot without a photo, ``looks[i] is None``): the best
    scored (see :func:`move_scores`; a shot without a ``full`` move pans or tilts less often,
    :data:`GENTLE_PAN_COST`; each use among the last :data:`RECENT_MOVES` costs
    :data:`RECENT_PENALTY`) that differs from the previous photo shot's move (clips between
    do not reset it)."""
    moves: list[str] = []
    previous = ""
    for look, section, is_full in zip(looks, sections, full, strict=True):
        if look is None:
            moves.append("")
            continue
        scores = move_scores(look, section, gentle)
        if not is_full:  # a gentle move: the pushes, and a pan or tilt where the photo is long
            scores = {m: v - (0.0 if m in GENTLE_MOVES else GENTLE_PAN_COST)
                      for m, v in scores.items()}
        recent = [m for m in moves if m][-RECENT_MOVES:]
        scores = {m: v - RECENT_PENALTY * recent.count(m) for m, v in scores.items()}
        ranked = sorted(scores, key=lambda m: (-scores[m], MOVE_VOCABULARY.index(m)))
        move = next(m for m in ranked if m != previous) if len(ranked) > 1 else ranked[0]
        if move == previous:  # a lone choice: the other push
            move = PULL_OUT if move == PUSH_IN else PUSH_IN
        moves.append(move)
        previous = move
    return moves


@dataclass(frozen=True)
class TransitionStyle:
    """Transition kinds and lengths (seconds) of one film."""

    chorus: str = "cut"
    dissolve_s: float = 0.6
    bridge_s: float = 0.9
    gentle_change_s: float = 1.6  # a gentle film where a section changes or a card comes


GENTLE_DISSOLVE_S = 1.0  # a gentle film's dissolve inside a section


def transition_kinds(cuts: Sequence[int], kinds: Sequence[str], sections: Sequence[Section],
                     gentle: bool, style: TransitionStyle = TransitionStyle()
                     ) -> list[tuple[str, float]]:
    """(kind, seconds) of the transition into every shot after the first, from the section at
    its cut. ``cuts[i]`` is where shot ``i`` starts (``len(kinds)`` shots); ``kinds[i]`` is
    card, photo or clip. Kinds: ``cut`` and ``crossfade`` (dissolve); a gentle film only
    dissolves, :data:`GENTLE_DISSOLVE_S` inside a section and ``style.gentle_change_s`` where
    the section changes or a card comes or goes (where it used to dip through black)."""
    out = []
    for i in range(1, len(kinds)):
        here = section_at(sections, cuts[i])
        before = section_at(sections, (cuts[i - 1] + cuts[i]) // 2)
        card = kinds[i] == "card" or kinds[i - 1] == "card"
        if gentle:
            if card or here != before:
                out.append(("crossfade", style.gentle_change_s))
            else:
                out.append(("crossfade", GENTLE_DISSOLVE_S))
        elif card:
            out.append(("crossfade", style.dissolve_s))
        elif here == CHORUS:  # on the downbeat (see downbeat_grid), into or within a chorus
            out.append((style.chorus, 0.0))
        elif here == BRIDGE:
            out.append(("crossfade", style.bridge_s))
        elif here != before:  # into a new section: a quick dissolve marks it
            out.append(("crossfade", style.dissolve_s / 2))
        else:
            out.append(("crossfade", style.dissolve_s))
    return out
