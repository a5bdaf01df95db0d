"""The film as plain data: which source is on screen at which frame, and how shots change.

:func:`plan_timeline` lays out an opening card, the photo and clip shots and a closing card over
exactly ``round(length_sec * fps)`` frames, putting every cut on a beat of the song where the beat
grid allows. The result is frozen dataclasses only: ``dataclasses.asdict`` and
:meth:`Timeline.to_json` serialize it, :meth:`Timeline.describe` prints it, and
:func:`timeline_from_dict` reads it back. Nothing here touches pixels.

Timing model (all in frames): shot ``i`` owns ``[cut_in, cut_out)``; the next shot's
``transition_in`` straddles the cut. A ``crossfade`` of ``d`` frames runs over
``[cut - d/2, cut + d/2)`` (both shots visible); a ``fade_black`` fades the outgoing shot to black
over the first half and the incoming one in from black over the second half; a ``cut`` is
instantaneous. ``visible_in``/``visible_out`` are the frames over which a shot must be rendered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import pairwise
from typing import Any

from media.cards import design
from media.cards.reading import MESSAGE_MIN_HOLD_S, TITLE_HOLD_S, message_hold_s
from media.cards.spec import CardSpec, parse_hex
from media.look.clip_window import best_window
from media.plan.beat_snap import (
    card_bounds,
    card_lengths,
    closing_hold_budget_s,
    frame_grid,
    snap_cuts,
)
from media.plan.inputs import PARALLAX_MATTE_MIN, ClipSource, PhotoSource
from media.plan.interludes import (
    InterludeSpan,
    group_by_runs,
    interlude_photos,
    place_interludes,
    rules_for,
)
from media.plan.layouts import Layout, arrange, orphans, renumbered
from media.plan.montage import LightLeak, chorus_montage, light_leak
from media.plan.moves import (
    PULL_OUT,
    PUSH_IN,
    PhotoLook,
    Section,
    TransitionStyle,
    choose_moves,
    downbeat_grid,
    section_at,
    section_frames,
    transition_kinds,
)
from media.plan.shot_order import (
    REPEAT_SPACING_S,
    Slot,
    arc_order,
    drop_twins,
    even_pick,
    fit_lengths,
    interleave,
    item_counts,
    photo_slots,
    pick_subject,
    separate,
    shows_subject,
    subject_first,
)
from media.plan.transitions import CROSSFADE, CUT, transition_kind

KEN_BURNS, PUSH, STILL = "ken_burns", "push", "none"
PARALLAX = "parallax"  # premium: a Ken Burns move with the subject on its own layer (2.5D)
ROLL = "roll"  # premium: a Ken Burns move with a turn and a push (media.frames.parallax's roll
# push), for a subject's shot whose photo does not separate cleanly enough for parallax
FULL_MOTIONS = (KEN_BURNS, PARALLAX, ROLL)  # the motions that make a full camera move
PARALLAX_MIN_S = 2.0  # a parallax shot lasts at least this long: its layers' slide must read
# A parallax frame costs about 2.5x a Ken Burns frame to compose: parallax shots take at most
# this share of the film (render time within about 20%); the other motion shots keep Ken Burns.
PARALLAX_MAX_SHARE = 0.3
MIN_FILM_S = 3.0
SUBJECT_RETURN_MIN_S = 3.0  # the subject returns mid-film when shots can still last this long
READING_RULES_FROM_S = 30.0  # the shortest film sold (the contract's LENGTH_MIN_SEC)
RECIPE_FILM_S = 30.0  # a tier recipe's motion_shots count full moves per this much film
LAYOUT_PASSES = 8  # plans of a long film's layouts, each on the last one's shot lengths


@dataclass(frozen=True)
class Transition:
    """How a shot comes in: ``kind`` (cut, crossfade, fade_black) lasting ``frames`` frames."""

    kind: str = CUT
    frames: int = 0

    def start(self, cut: int) -> int:
        """First frame of the transition around the cut at frame ``cut``."""
        return cut - self.frames // 2


@dataclass(frozen=True)
class Shot:
    """One shot. ``kind`` is card, photo or clip; frames are film frame indices.

    ``motion`` is ken_burns, parallax, push or none (how much the camera moves); ``move`` is
    the camera move of a photo shot (:data:`media.plan.moves.MOVE_VOCABULARY`: push_in, pull_out,
    pan, tilt; "" before moves were planned, then ``motion_choice`` picks one); clips start at
    ``clip_start_s`` seconds into the clip at ``visible_in``; cards carry their ``card``. A photo
    shot with a ``layout`` (:mod:`media.plan.layouts`) shows ``partner_id``'s photo beside its own
    (and a triptych ``second_partner_id``'s).
    """

    kind: str
    source_id: str | None
    cut_in: int
    cut_out: int
    visible_in: int
    visible_out: int
    transition_in: Transition
    motion: str = STILL
    motion_choice: int = 0
    clip_start_s: float = 0.0
    card: CardSpec | None = None
    move: str = ""
    layout: str = ""
    partner_id: str | None = None
    second_partner_id: str | None = None

    @property
    def frames(self) -> int:
        """Frames during which the shot is (at least partly) on screen."""
        return self.visible_out - self.visible_in


@dataclass(frozen=True)
class Timeline:
    """A whole film: ``total_frames`` frames at ``fps``, shots in order, film fade in/out.

    ``subject_photo_id`` is the photo the closing card sits over (the recipient or the pet);
    ``grade`` names the colour grade of every shot (see :mod:`media.frames.grade`)."""

    fps: int
    total_frames: int
    length_sec: float
    style: str
    gentle: bool
    shots: tuple[Shot, ...]
    fade_in_frames: int
    fade_out_frames: int
    beat_frames: tuple[int, ...] = ()
    dropped_photo_ids: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    subject_photo_id: str | None = None
    grade: str = "natural"
    light_leaks: tuple[LightLeak, ...] = ()
    """Warm lights over the picture around cuts (signature: into each chorus montage, see
    :mod:`media.plan.montage`), drawn by :mod:`media.frames.leak`."""
    with_subject: tuple[str, ...] = ()
    """Photos besides the subject photo that show the subject (the same animal, see
    :attr:`media.plan.inputs.PhotoSource.with_subject`): their moves are the strongest too."""
    subject_boxes: tuple[tuple[str, float, float, float, float], ...] = ()
    """Where the subject is in those photos, as (photo id, x0, y0, x1, y1), normalized (see
    :attr:`media.plan.inputs.PhotoSource.subject_box`): their closer showings look there."""

    def subject_box(self, photo_id: str) -> tuple[float, float, float, float] | None:
        """Where the subject is in photo ``photo_id`` (:attr:`subject_boxes`), None unknown."""
        for photo, x0, y0, x1, y1 in self.subject_boxes:
            if photo == photo_id:
                return x0, y0, x1, y1
        return None

    def to_json(self, indent: int | None = 2) -> str:
        """The timeline as JSON (paths are not part of it: sources are referenced by id)."""
        return json.dumps(asdict(self), indent=indent, ensure_ascii=False)

    def describe(self) -> str:
        """One human-readable line per shot (frames and seconds)."""
        lines = [f"{self.length_sec:.2f}s = {self.total_frames} frames @ {self.fps} fps, "
                 f"style={self.style} gentle={self.gentle}"]
        for i, s in enumerate(self.shots):
            beat = "beat" if s.cut_in in self.beat_frames else "    "
            what = s.source_id or (" / ".join(s.card.lines) if s.card else "")
            what += "".join(f" + {p}" for p in (s.partner_id, s.second_partner_id) if p)
            lines.append(f"#{i:02d} {s.kind:5s} {what[:28]:28s} cut {s.cut_in:5d}-{s.cut_out:5d} "
                         f"({s.cut_in / self.fps:6.2f}s) {beat} in={s.transition_in.kind}"
                         f"/{s.transition_in.frames} {s.motion}#{s.motion_choice} {s.move}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Pacing:
    """Pacing of a look in a style: shot lengths and transitions in seconds, and the look's
    transition set by section of the song."""

    shot_s: float
    min_shot_s: float
    clip_s: float
    transition: str
    transition_s: float
    fade_s: float
    hold_s: float
    """The longest a photo holds before any photo is shown a second time."""
    transitions: TransitionStyle = field(default_factory=TransitionStyle)


def film_look(style: str, gentle: bool, look: str = "") -> design.Look:
    """The look a film is made in (:mod:`media.cards.design`): the one named ``look``, else
    the memorial look when ``gentle``, else the celebration look, in ``style``."""
    return design.look(look or (design.GENTLE_LOOK if gentle else design.DEFAULT_LOOK), style)


def pacing_for(style: str, gentle: bool, look: str = "") -> Pacing:
    """The pacing of the film's look (see :func:`film_look`) in ``style`` (gift, brand,
    social): its shot lengths, transitions and transition set."""
    chosen = film_look(style, gentle, look)
    return Pacing(**chosen.pacing.model_dump(),
                  transitions=TransitionStyle(**chosen.transitions.model_dump()))


def closing_budget_s(length_sec: float, style: str, gentle: bool, look: str = "") -> float:
    """The longest the closing's words may hold in this film (seconds): what the wording of
    the closing must fit (:func:`media.cards.wording.closing`)."""
    return _closing_budget(length_sec, pacing_for(style, gentle, look))


def card_seconds(length_sec: float, closing: CardSpec, style: str,
                 gentle: bool) -> tuple[float, float]:
    """How long the opening and closing cards of this film need (seconds, before their
    boundaries are snapped onto the song's bars): what the song's form is built around
    (:class:`media.song.plan.SongBrief`), composed before the timeline is planned."""
    return _card_seconds(length_sec, closing, pacing_for(style, gentle, closing.look))


def _closing_budget(length_sec: float, pacing: Pacing) -> float:
    return closing_hold_budget_s(length_sec, TITLE_HOLD_S, pacing.transition_s, pacing.fade_s)


def _card_seconds(length_sec: float, closing: CardSpec, pacing: Pacing) -> tuple[float, float]:
    """The cards' lengths reading needs: the title's hold, and the closing text's reading time
    within the film's budget."""
    budget = _closing_budget(length_sec, pacing)
    text = " ".join(line for line in closing.lines if line.strip())
    hold = min(message_hold_s(text), max(MESSAGE_MIN_HOLD_S, budget))
    opening_s, closing_s = card_lengths(TITLE_HOLD_S, hold, pacing.transition_s, pacing.fade_s)
    # A film shorter than any sold (a few seconds: previews, tests) keeps its pictures: its
    # cards shrink with it. Every length sold gives them all that reading needs.
    shrink = min(1.0, length_sec / READING_RULES_FROM_S)
    return opening_s * shrink, closing_s * shrink


def _clip_slots(clips: list[ClipSource], count: int, pacing: Pacing) -> list[Slot]:
    """``count`` clip slots cycling through ``clips``; lengths capped by the clip's length (less
    the transition overlap, which also shows the clip)."""
    slots = []
    for i in range(count):
        clip = clips[i % len(clips)]
        usable = max(0.5, clip.duration_s - pacing.transition_s)
        slots.append(Slot("clip", clip.id, min(pacing.clip_s, usable), usable, i // len(clips)))
    return slots


def _photo_count(photos: int, photo_s: float, hold_s: float, most: int,
                 subject_returns: bool) -> int:
    """How many photo shots fill ``photo_s`` seconds: every photo once, held up to ``hold_s``
    before any is shown again, plus the subject's return in the middle when each shot can
    still last :data:`SUBJECT_RETURN_MIN_S`; never more than ``most``."""
    count = max(photos, math.ceil(photo_s / hold_s - 1e-9))
    if subject_returns and count == photos and photo_s / (count + 1) >= SUBJECT_RETURN_MIN_S:
        count += 1
    return max(1, min(count, most))


def _plan_slots(photos: list[PhotoSource], clips: list[ClipSource], middle_s: float,
                pacing: Pacing, min_s: float, subject_id: str | None,
                opened: bool = False) -> tuple[list[Slot], list[str]]:
    """The middle shots in order, with nominal lengths; and the ids of photos left out.
    ``opened``: the title stands over the first photo (the subject), its first showing (see
    :func:`media.plan.shot_order.photo_slots`)."""
    n_p, n_c = item_counts(len(photos), len(clips), middle_s, min_s)
    kept = arc_order([photos[i] for i in even_pick(n_p, len(photos))]) if n_p else []
    dropped = [p.id for p in photos if p not in kept]
    chosen_clips = [clips[i] for i in even_pick(n_c, len(clips))] if n_c else []
    clip_total = sum(min(pacing.clip_s, c.duration_s) for c in chosen_clips)
    photo_slot_list: list[Slot] = []
    if kept:
        photo_s = max(0.0, middle_s - clip_total)
        most = math.floor(max(0.0, middle_s - len(chosen_clips) * min_s) / min_s)
        count = _photo_count(len(kept), max(photo_s, min_s), pacing.hold_s, most,
                             not opened and subject_id in {p.id for p in kept})
        spacing = math.ceil(REPEAT_SPACING_S / (max(photo_s, min_s) / count))
        photo_slot_list = photo_slots(kept, count, pacing.shot_s, spacing=spacing,
                                      subject_id=subject_id, opened=opened)
        clip_count = len(chosen_clips)
    else:
        clip_count = min(max(len(chosen_clips), round(middle_s / pacing.clip_s)),
                         max(1, math.floor(middle_s / min_s))) if chosen_clips else 0
    slots = interleave(photo_slot_list,
                       _clip_slots(chosen_clips, clip_count, pacing) if chosen_clips else [])
    return slots, dropped


def _even(frames: float) -> int:
    """Frames rounded to an even count (transitions straddle the cut symmetrically)."""
    return 2 * round(frames / 2)


def _parallax_slots(slots: list[Slot], eligible: list[int], photos: dict[str, PhotoSource],
                    budget_s: float, lengths_s: list[float], paired: set[int]) -> set[int]:
    """The photo slots that get parallax: only photos whose subject separates cleanly (a
    matte scoring at least :data:`PARALLAX_MATTE_MIN`), in shots at least
    :data:`PARALLAX_MIN_S` long; a photo's first showing before its repeats, a shot showing it
    alone in both films before one that shares a frame with a second photo in one (``paired``,
    where parallax shows in the other film only), then the best matte first and film order;
    while their seconds on screen (``lengths_s``) fit in ``budget_s``."""
    ranked = sorted((i for i in eligible
                     if photos[slots[i].source_id].matte >= PARALLAX_MATTE_MIN
                     and lengths_s[i] >= PARALLAX_MIN_S),
                    key=lambda i: (slots[i].occurrence, i in paired,
                                   -photos[slots[i].source_id].matte, i))
    return _within(ranked, budget_s, lengths_s)


def _within(ranked: list[int], budget_s: float, lengths_s: list[float]) -> set[int]:
    """The slots of ``ranked`` taken in order while their seconds fit in ``budget_s``."""
    picked, used = set(), 0.0
    for i in ranked:
        if used + lengths_s[i] <= budget_s:
            picked.add(i)
            used += lengths_s[i]
    return picked


def _motions(slots: list[Slot], photos: dict[str, PhotoSource], motion_shots: int,
             order: dict[str, int], subject_id: str | None, parallax_s: float,
             lengths_s: list[float], paired: set[int] | None = None) -> list[tuple[str, int]]:
    """(motion, choice) per slot: ``motion_shots`` photo shots get full moves: the parallax
    shots (up to ``parallax_s`` seconds on the best mattes, see :func:`_parallax_slots`), then
    the subject's and faces' shots, then the others spread evenly (a low-res photo only
    pushes). With ``parallax_s`` (premium), the subject's full-move shots that got no parallax
    get the roll push within what the parallax left of it; the other photo shots push (still a
    move that reads, see :data:`media.look.framing.PUSH_ZOOM`); repeats of a photo get a
    different move."""
    eligible = [i for i, s in enumerate(slots)
                if s.kind == "photo" and not photos[s.source_id].low_res]
    parallax = _parallax_slots(slots, eligible, photos, parallax_s, lengths_s, paired or set())
    heroes = [i for i in eligible if i not in parallax
              and shows_subject(photos[slots[i].source_id], subject_id)]
    others = [i for i in eligible if i not in parallax and i not in heroes]
    room = max(0, motion_shots - len(parallax))
    rest = max(0, room - len(heroes))
    chosen = parallax | set(heroes[:room]) | {others[j] for j in
                                              even_pick(min(rest, len(others)), len(others))}
    left_s = parallax_s - sum(lengths_s[i] for i in parallax)
    roll = _within([i for i in heroes if i in chosen], left_s, lengths_s) if parallax_s else set()
    result = []
    for i, s in enumerate(slots):
        if s.kind != "photo":
            result.append((STILL, 0))
            continue
        choice = (order[s.source_id] + 2 * s.occurrence + s.occurrence // 2) % 4
        motion = (PARALLAX if i in parallax else ROLL if i in roll
                  else KEN_BURNS if i in chosen else PUSH)
        result.append((motion, choice))
    return result


def _scaled_motion_shots(motion_shots: int, length_sec: float) -> int:
    """The tier's ``motion_shots`` are per :data:`RECIPE_FILM_S` of film: a 180 s film gets six
    times as many full moves as a 30 s one."""
    return round(motion_shots * max(1.0, length_sec / RECIPE_FILM_S))


def _transition(kind: str, seconds: float, fps: int, room: int) -> Transition:
    """A transition of ``kind`` (registered, :mod:`media.plan.transitions`) lasting about
    ``seconds``, at most ``room`` frames (even)."""
    transition_kind(kind)  # a name no transition is registered under fails the plan here
    if kind == CUT or seconds <= 0:
        return Transition(CUT, 0)
    frames = min(_even(seconds * fps), 2 * (room // 4))
    return Transition(kind, frames) if frames >= 2 else Transition(CUT, 0)


def plan_timeline(photos: Sequence[PhotoSource], clips: Sequence[ClipSource],
                  beat_times: Sequence[float], length_sec: float, opening: CardSpec,
                  closing: CardSpec, *, fps: int = 30, motion_shots: int, gentle: bool,
                  style: str, subject_photo_id: str | None,
                  bar_times: Sequence[float] = (), premium: bool = False,
                  sections: Sequence[Sequence[Any]] = (),
                  near_duplicates: Sequence[tuple[str, str]] = (),
                  interludes: Sequence[CardSpec] = ()) -> Timeline:
    """Lay out a film of ``length_sec`` seconds (``round(length_sec * fps)`` frames exactly).

    Opening card, photo and clip shots, closing card (over the subject photo), each card as long
    as reading its words needs (:mod:`media.cards.reading`). Cuts land on ``beat_times``
    (seconds; card boundaries prefer ``bar_times``, and inside a chorus of ``sections`` only
    bars count) where the grid allows; the subject photo comes first (see
    :func:`media.plan.shot_order.showing_order`); clips are spread through the film; photos hold
    up to the pacing's ``hold_s`` and then repeat (framed anew by the render, see
    :mod:`media.look.detail`) when there are too few, and when there are too many each still
    lasts at least the style's minimum (about 2 s) and the rest are listed in
    ``dropped_photo_ids``. ``motion_shots`` photo shots per :data:`RECIPE_FILM_S` of film (the
    subject's first) get full Ken Burns moves, the others a push that still reads; with
    ``premium`` some of them (faces first, at most :data:`PARALLAX_MAX_SHARE` of the film) get
    parallax instead, the subject moving on its own layer. Each photo shot's ``move`` and each
    transition follow the photo and the song's ``sections`` (``(name, start_s, end_s)``; see
    :mod:`media.plan.moves`); without sections every transition is the style's.
    ``near_duplicates`` (pairs of photo and clip ids showing the same picture, see
    :mod:`media.look.dedupe`) are dropped or kept apart (see
    :func:`media.plan.shot_order.drop_twins`, :func:`media.plan.shot_order.separate`).
    ``interludes`` (interlude cards, best first) carry the customer's words through a long
    film, between runs of pictures (see :mod:`media.plan.interludes`).
    """
    if length_sec < MIN_FILM_S:
        raise ValueError(f"film too short: {length_sec}s")
    total = round(length_sec * fps)
    pacing = pacing_for(style, gentle, opening.look)
    beats, bars = frame_grid(beat_times, fps, total), frame_grid(bar_times, fps, total)
    parts = section_frames(sections, fps, total)
    look = film_look(style, gentle, opening.look)
    subject_photo_id = pick_subject(photos, subject_photo_id)
    ordered, twins_dropped = drop_twins(subject_first(photos, subject_photo_id),
                                        [c.id for c in clips], near_duplicates,
                                        subject_photo_id)
    title_photo = ordered[0].id if ordered else None  # the subject, else the arc's opener
    leads = _lead_count(ordered, opening) if premium else 0
    opening_s, closing_s = _card_seconds(length_sec, closing, pacing)
    lead_frames = _lead_frames(look.title_sequence, beats, fps) if leads else 0
    # a lead shot's cut lands on a beat: a beat's slack keeps every lead its length
    lead_s = (leads * lead_frames + _beat_length(beats)) / fps if leads else 0.0
    open_end, close_start = card_bounds(opening_s + lead_s, closing_s, fps, total, beats, bars)
    spans = place_interludes(interludes, length_sec, open_end, close_start, fps,
                             _card_dissolve_s(pacing, gentle), beats, bars, parts)
    middle_s = (close_start - open_end - sum(span.frames for span in spans)) / fps
    min_s = min(pacing.min_shot_s, max(1.0, middle_s / 6))
    slots, dropped = _plan_slots(ordered, list(clips), middle_s, pacing, min_s, subject_photo_id,
                                 opened=True)
    slots, dropped = separate(slots, near_duplicates), [*twins_dropped, *dropped]
    cuts = [0, close_start, total]  # no photos or clips: the opening card holds until the close
    middle_cards: dict[int, CardSpec] = {}
    layouts: list[Layout] = []
    if slots:
        grid = downbeat_grid(beats, bars, parts)
        fewest = math.ceil(middle_s / look.layouts.hold_max_s - 1e-9)
        weights = [1.0] * len(slots)
        for _ in range(LAYOUT_PASSES):  # repeats that would show the same picture again alone
            # are left out, and shots of several photos hold longer, until the plan settles
            weighted = [replace(s, nominal_s=s.nominal_s * w) for s, w in zip(slots, weights,
                                                                              strict=True)]
            middle_cuts, placed, middle_cards = _cuts_around(weighted, spans, open_end,
                                                             close_start, min_s, fps, grid)
            cuts = [0, open_end, *middle_cuts, close_start, total]
            placed = _interlude_backdrops(placed, cuts, middle_cards, ordered,
                                          subject_photo_id, fps)
            arranged, layouts = _layouts(placed, ordered,
                                         [(b - a) / fps for a, b in pairwise(cuts[1:-1])],
                                         look, subject_photo_id, near_duplicates)
            at = [k for k, slot in enumerate(placed) if slot.kind != "card"]
            held = [1.0 + look.layouts.hold_per_photo * len(layouts[k].partners) for k in at]
            gone = _orphans_to_drop(slots, [at.index(k) for k in orphans(
                arranged, layouts, {p.id: p for p in ordered}, subject_photo_id)],
                near_duplicates, fewest)
            if not gone and held == weights:
                break
            slots = renumbered([s for k, s in enumerate(slots) if k not in gone])
            weights = [w for k, w in enumerate(held) if k not in gone]
        slots = arranged
    downbeats: tuple[int, ...] = ()
    if premium and slots:  # the signature chorus: a montage on the beat (media.plan.montage)
        montage = chorus_montage(slots, cuts, layouts, middle_cards, parts, beats,
                                 {p.id: p for p in ordered}, subject_photo_id,
                                 look.montage.beats, fps)
        slots, cuts, layouts = montage.slots, montage.cuts, montage.layouts
        middle_cards, downbeats = montage.cards, montage.downbeats
    light = look.montage if look.montage.light_s > 0 and look.montage.light_strength > 0 \
        else None
    shots = _build_shots(slots, cuts, ordered, list(clips), opening, closing, pacing, fps,
                         _scaled_motion_shots(motion_shots, length_sec),
                         PARALLAX_MAX_SHARE * length_sec if premium else 0.0,
                         parts, gentle, subject_photo_id, middle_cards, layouts,
                         downbeats if light else (), light.light_s if light else 0.0)
    leaks = tuple(light_leak(frame, _lit_frames(shots, frame, light.light_s, fps),
                             parse_hex(light.light_colour), light.light_strength, k)
                  for k, frame in enumerate(downbeats)) if light else ()
    shots = _over_photos(shots, title_photo if slots else None)
    if leads and slots:
        shots = _title_sequence(shots, leads, lead_frames, look.title_sequence, beats, fps,
                                math.ceil(opening_s * fps))
    notes = ("clip sound is mixed under the song by the render stage (media.song.soundtrack)",)
    subject = subject_photo_id if any(p.id == subject_photo_id for p in photos) else None
    # No fade in from black: the opening card's first frame is already its title, so a
    # messenger's thumbnail of frame 0 is never black.
    return Timeline(fps, total, float(length_sec), style, gentle, tuple(shots),
                    0, _even(pacing.fade_s * fps), beats,
                    tuple(dropped), notes, subject, look.grade, leaks,
                    tuple(p.id for p in ordered if p.with_subject and p.id != subject),
                    tuple((p.id, *p.subject_box) for p in ordered
                          if p.with_subject and p.subject_box and p.id != subject))


def _lit_frames(shots: Sequence[Shot], frame: int, light_s: float, fps: int) -> int:
    """How long the light over the montage's downbeat ``frame`` lasts: the dissolve under it
    where a shot cuts in there, else the light's own ``light_s`` (a flare over the shot)."""
    dissolve = next((s.transition_in.frames for s in shots if s.cut_in == frame), 0)
    return dissolve or _even(light_s * fps)


def _over_photos(shots: list[Shot], title_photo: str | None) -> list[Shot]:
    """``shots`` with every card over its photo given a camera move: the title over
    ``title_photo`` (the subject: the title is its first showing), pushing in; the closing,
    pulling out; an interlude, pushing in. The render shows the photo sharp and moving under
    the words (:mod:`media.frames.sources`)."""
    out = []
    for i, shot in enumerate(shots):
        if shot.kind == "card":
            closing = i == len(shots) - 1
            photo = title_photo if i == 0 else shot.source_id
            shot = _replace(shot, source_id=photo, motion=KEN_BURNS,
                            move=PULL_OUT if closing else PUSH_IN)
        out.append(shot)
    return out


def _lead_count(photos: Sequence[PhotoSource], opening: CardSpec) -> int:
    """How many lead shots the signature title sequence has before its lockup: the occasion
    alone, then the name alone, each over a photo of its own other than the title's (fewer
    when the film has fewer photos; none without an occasion line or a name)."""
    occasion, name = (*opening.lines, "", "")[:2]
    if not occasion.strip() or not name.strip():
        return 0
    return min(2, max(0, len({p.id for p in photos}) - 1))


def _lead_frames(rules: design.TitleSequence, beats: Sequence[int], fps: int) -> int:
    """Frames each lead shot of the title sequence holds: ``lead_beats`` of the song's beats
    (their median length), at least ``lead_min_s``."""
    return max(math.ceil(rules.lead_min_s * fps), rules.lead_beats * _beat_length(beats))


def _beat_length(beats: Sequence[int]) -> int:
    """The song's typical beat in frames (the median gap of the grid; 0 without one)."""
    gaps = sorted(b - a for a, b in pairwise(beats))
    return gaps[len(gaps) // 2] if gaps else 0


def _title_sequence(shots: list[Shot], leads: int, lead_frames: int,
                    rules: design.TitleSequence, beats: Sequence[int], fps: int,
                    lockup_frames: int) -> list[Shot]:
    """``shots`` with the title (shot 0) cut into the signature's sequence: ``leads`` lead
    shots (the occasion alone, then the name alone, set larger: ``part`` cards over photos of
    their own) cut on the beats, then the whole title (the lockup) over the title's photo, at
    least ``lockup_frames`` long (what reading it needs). Hard cuts inside the sequence; the
    lead photos are the film's photos shown last in the middle (farthest from the title)."""
    title = shots[0]
    assert title.card is not None
    middle = [s for s in shots[1:-1] if s.kind == "photo"]
    first_seen: dict[str, int] = {}
    for k, s in enumerate(middle):
        for photo in (s.source_id, s.partner_id, s.second_partner_id):
            if photo:
                first_seen.setdefault(photo, k)
    latest = sorted((pid for pid in first_seen if pid != title.source_id),
                    key=lambda pid: -first_seen[pid])[:leads]
    if len(latest) < leads:
        return shots
    room = title.cut_out - lockup_frames  # the lockup holds at least what reading needs
    targets = [room * (k + 1) / leads for k in range(leads)]
    mins = [max(4, round(rules.lead_min_s * fps * 0.75))] * leads + [lockup_frames]
    cuts = [0, *snap_cuts(targets, 0, title.cut_out, mins, beats), title.cut_out]
    if any(b - a < m for a, b, m in zip(cuts[:-1], cuts[1:], [4] * leads + [lockup_frames],
                                        strict=True)):
        return shots
    occasion, name = title.card.lines[:2]
    parts = [_part_card(title.card, "occasion", (occasion, "")),
             _part_card(title.card, "name", ("", name))][:leads]
    sequence = [Shot("card", photo, a, b, a, b, Transition(CUT, 0), KEN_BURNS, k, 0.0, card,
                     PUSH_IN) for k, (photo, card, a, b) in
                enumerate(zip(latest, parts, cuts, cuts[1:], strict=False))]
    lockup = _replace(title, cut_in=cuts[-2], visible_in=cuts[-2])
    return [*sequence, lockup, *shots[1:]]


def _part_card(card: CardSpec, part: str, lines: tuple[str, ...]) -> CardSpec:
    """``card`` as the title sequence's lead ``part`` saying ``lines``."""
    return CardSpec(card.kind, lines, card.accent_hex, card.gentle, card.style, card.lang,
                    card.look, part)


def _card_dissolve_s(pacing: Pacing, gentle: bool) -> float:
    """The longest dissolve into or out of a card (see :func:`_transitions`): what an
    interlude's length allows for either side of its words."""
    style = pacing.transitions
    return max(pacing.transition_s, style.dissolve_s, style.gentle_change_s if gentle else 0.0)


def _run_cuts(slots: list[Slot], start: int, end: int, min_s: float, fps: int,
              grid: tuple[int, ...]) -> list[int]:
    """The cuts between ``slots`` filling the frames ``start..end``, on the beat grid where it
    allows (see :func:`media.plan.beat_snap.snap_cuts`)."""
    lengths = fit_lengths(slots, (end - start) / fps, min_s)
    targets = [start + fps * sum(lengths[:k + 1]) for k in range(len(slots) - 1)]
    mins = [max(round(min_s * fps * 0.8), 4)] * len(slots)
    return snap_cuts(targets, start, end, mins, grid)


def _cuts_around(slots: list[Slot], spans: list[InterludeSpan], open_end: int,
                 close_start: int, min_s: float, fps: int, grid: tuple[int, ...]
                 ) -> tuple[list[int], list[Slot], dict[int, CardSpec]]:
    """The middle's cuts, its shots in order (``slots`` in runs of pictures with an
    interlude's slot between two runs) and the interludes' cards by index into them. The
    interludes keep the frames they were placed on; an interlude whose runs would have no
    shot is left out (the last first)."""
    while spans:
        bounds = [open_end, *(f for span in spans for f in (span.start, span.end)), close_start]
        runs = list(zip(bounds[::2], bounds[1::2], strict=True))
        counts = group_by_runs(fit_lengths(slots, sum(b - a for a, b in runs) / fps, min_s),
                               [(b - a) / fps for a, b in runs])
        if counts is not None:
            break
        spans = spans[:-1]
    else:
        return _run_cuts(slots, open_end, close_start, min_s, fps, grid), slots, {}
    cuts: list[int] = []
    items: list[Slot] = []
    cards: dict[int, CardSpec] = {}
    taken = 0
    for k, (start, end) in enumerate(runs):
        run = slots[taken:taken + counts[k]]
        taken += counts[k]
        cuts += _run_cuts(run, start, end, min_s, fps, grid)
        items += run
        if k < len(spans):
            cards[len(items)] = spans[k].card
            items.append(Slot("card", "", spans[k].frames / fps))
            cuts += [spans[k].start, spans[k].end]
    return cuts, items, cards


def _interlude_backdrops(slots: list[Slot], cuts: list[int], cards: dict[int, CardSpec],
                         photos: list[PhotoSource], subject_id: str | None,
                         fps: int) -> list[Slot]:
    """``slots`` with each interlude's slot naming the photo behind it (see
    :func:`media.plan.interludes.interlude_photos`)."""
    if not cards:
        return slots
    apart = round(rules_for(next(iter(cards.values()))).photo_apart_s * fps)
    chosen = interlude_photos([(s.kind, s.source_id) for s in slots], cuts, sorted(cards),
                              photos, subject_id, apart, photos[0].id if photos else None)
    return [Slot(s.kind, chosen.get(i, ""), s.nominal_s) if i in cards else s
            for i, s in enumerate(slots)]


def _layouts(slots: list[Slot], photos: list[PhotoSource], lengths: list[float],
             look: design.Look, subject_id: str | None,
             twins: Sequence[tuple[str, str]]) -> tuple[list[Slot], list[Layout]]:
    """The slots and their layouts (:func:`media.plan.layouts.arrange`) in the film's look,
    partners drawn from the photos the film shows."""
    shown = {s.source_id for s in slots if s.kind == "photo"}
    return arrange(slots, {p.id: p for p in photos if p.id in shown}, lengths,
                   split_share=look.layouts.split_share,
                   portrait_pairs=look.layouts.portrait_pairs, subject_id=subject_id,
                   twins=twins, kinds=look.layouts.kinds)


def _orphans_to_drop(slots: list[Slot], found: list[int], twins: Sequence[tuple[str, str]],
                     fewest: int) -> set[int]:
    """Which of the ``found`` slots (indices into ``slots``: repeats that would show their
    photo alone again, see :func:`media.plan.layouts.orphans`) to leave out: each while at
    least ``fewest`` slots remain and its neighbours then differ (nor are ``twins``)."""
    pairs = {frozenset(t) for t in twins}
    gone: set[int] = set()
    for k in found:
        kept = [j for j in range(len(slots)) if j not in gone and j != k]
        if len(kept) < fewest or k in (0, len(slots) - 1):
            continue
        before = max(j for j in kept if j < k)
        after = min(j for j in kept if j > k)
        a, b = slots[before].source_id, slots[after].source_id
        if a != b and frozenset((a, b)) not in pairs:
            gone.add(k)
    return gone


def _transitions(kinds: list[str], cuts: list[int], pacing: Pacing, fps: int,
                 sections: tuple[Section, ...], gentle: bool, style: str) -> list[Transition]:
    """The transition into every shot (the first: none): from the song's sections (see
    :func:`media.plan.moves.transition_kinds`), else the style's, each fitted to the shots'
    lengths; social films cut hard everywhere."""
    lengths = [b - a for a, b in pairwise(cuts)]
    if sections and style != "social":
        planned = transition_kinds(cuts[:-1], kinds, sections, gentle, pacing.transitions)
    else:
        planned = [(pacing.transition, pacing.transition_s)] * (len(kinds) - 1)
    out = [Transition(CUT, 0)]
    for i, (kind, seconds) in enumerate(planned, start=1):
        out.append(_transition(kind, seconds, fps, min(lengths[i - 1], lengths[i])))
    return out


def _looks(slots: list[Slot], photos: dict[str, PhotoSource]) -> list[PhotoLook | None]:
    """What the move chooser reads of each slot's photo (None for clips)."""
    looks: list[PhotoLook | None] = []
    for slot in slots:
        p = photos.get(slot.source_id) if slot.kind == "photo" else None
        looks.append(PhotoLook(p.width, p.height, p.focus_x, p.focus_y, p.close, p.low_res)
                     if p is not None else None)
    return looks


def _build_shots(slots: list[Slot], cuts: list[int], photos: list[PhotoSource],
                 clips: list[ClipSource], opening: CardSpec, closing: CardSpec, pacing: Pacing,
                 fps: int, motion_shots: int, parallax_s: float = 0.0,
                 sections: tuple[Section, ...] = (), gentle: bool = False,
                 subject_id: str | None = None,
                 middle_cards: dict[int, CardSpec] | None = None,
                 layouts: Sequence[Layout] = (), lit_cuts: Sequence[int] = (),
                 light_s: float = 0.0) -> list[Shot]:
    """Shots from the cut frames: cards around the slots (and the interludes' cards,
    ``middle_cards`` by slot index, over their photos), transitions, moves, visible ranges and
    the slots' ``layouts`` (none: all single); the shots cut in at ``lit_cuts`` dissolve in
    over ``light_s`` seconds (under a light, see :mod:`media.plan.montage`)."""
    inside = middle_cards or {}
    kinds: list[tuple[str, str | None, CardSpec | None]] = [("card", None, opening)]
    kinds += [(s.kind, s.source_id or None, inside.get(i)) for i, s in enumerate(slots)]
    kinds.append(("card", None, closing))
    transitions = _transitions([k[0] for k in kinds], cuts, pacing, fps, sections, gentle,
                               pacing_style(pacing))
    for i in range(1, len(kinds)):
        if cuts[i] in lit_cuts:
            transitions[i] = _transition(CROSSFADE, light_s, fps,
                                         min(cuts[i] - cuts[i - 1], cuts[i + 1] - cuts[i]))
    by_id = {p.id: p for p in photos}
    order = {p.id: i for i, p in enumerate(photos)}
    motions = [(STILL, 0),
               *_motions(slots, by_id, motion_shots, order, subject_id, parallax_s,
                         [(cuts[k + 2] - cuts[k + 1]) / fps for k in range(len(slots))],
                         {k for k, layout in enumerate(layouts) if layout.kind}),
               (STILL, 0)]
    middle = [section_at(sections, (cuts[k + 1] + cuts[k + 2]) // 2) for k in range(len(slots))]
    shown = [Layout(), *(layouts or [Layout()] * len(slots)), Layout()]
    moves = ["", *choose_moves(_looks(slots, by_id), middle, gentle,
                               [m in FULL_MOTIONS for m, _ in motions[1:-1]]), ""]
    shots = []
    for i, (kind, source, card) in enumerate(kinds):
        vis_in = _visible_in(transitions[i], cuts[i])
        vis_out = _visible_out(transitions[i + 1], cuts[i + 1]) if i + 1 < len(kinds) else cuts[-1]
        shots.append(Shot(kind, source, cuts[i], cuts[i + 1], vis_in, vis_out, transitions[i],
                          motions[i][0], motions[i][1], 0.0, card, moves[i],
                          shown[i].kind, shown[i].partner_id, shown[i].second_id))
    return _place_clip_segments(shots, clips, fps)


def pacing_style(pacing: Pacing) -> str:
    """``social`` for a pacing that cuts hard (a look's social variant: hard cuts
    everywhere), else ``""``."""
    return "social" if pacing.transition == CUT else ""


def transition_frames(timeline: Timeline, index: int) -> tuple[int, int]:
    """How many of shot ``index``'s first and last visible frames play under a transition
    (a crossfade's whole length, a fade from or to black's half; a cut's none)."""
    shots = timeline.shots

    def under(transition: Transition) -> int:
        return transition_kind(transition.kind).under(transition.frames)

    lead = under(shots[index].transition_in)
    tail = under(shots[index + 1].transition_in) if index + 1 < len(shots) else 0
    return lead, tail


def _visible_in(transition: Transition, cut: int) -> int:
    return transition.start(cut) if transition_kind(transition.kind).overlaps else cut


def _visible_out(next_transition: Transition, next_cut: int) -> int:
    if transition_kind(next_transition.kind).overlaps:
        return next_transition.start(next_cut) + next_transition.frames
    return next_cut


def _place_clip_segments(shots: list[Shot], clips: list[ClipSource], fps: int) -> list[Shot]:
    """Choose each clip shot's in-point: the best-scoring stretch of the clip (see
    :func:`media.look.clip_window.best_window`; the middle without scores), later uses of a clip
    avoiding the stretches already shown."""
    by_id = {c.id: c for c in clips}
    used: dict[str, list[tuple[float, float]]] = {}
    out = []
    for shot in shots:
        if shot.kind != "clip":
            out.append(shot)
            continue
        clip = by_id[shot.source_id or ""]
        seg = shot.frames / fps
        shown = used.setdefault(clip.id, [])
        start = best_window(clip.scores, clip.score_step_s, clip.duration_s, seg, shown)
        shown.append((start, start + seg))
        out.append(_replace(shot, clip_start_s=round(start, 3)))
    return out


def _replace(shot: Shot, **changes: Any) -> Shot:
    data = {f: getattr(shot, f) for f in Shot.__dataclass_fields__}
    data.update(changes)
    return Shot(**data)


def segment_cut_frames(timeline: Timeline) -> list[int]:
    """Frames where the film may be split into separately rendered segments, ascending.

    A candidate is a shot boundary (some shot's ``visible_in`` or ``visible_out``) strictly
    inside the film where no clip shot is on screen on both sides of it (no clip shot with
    ``visible_in < f < visible_out``). Every other frame is a pure function of its index
    (photo moves, cards, logo, transitions, film fades), but a clip is decoded sequentially from
    its shot's first visible frame, so a segment must never start in the middle of one. Cutting
    on shot boundaries also keeps the closed-GOP restart (an IDR frame) at a change of picture,
    where it costs least.
    """
    bounds = {f for shot in timeline.shots for f in (shot.visible_in, shot.visible_out)}
    clips = [(s.visible_in, s.visible_out) for s in timeline.shots if s.kind == "clip"]
    return sorted(f for f in bounds if 0 < f < timeline.total_frames
                  and not any(a < f < b for a, b in clips))


def timeline_from_dict(data: dict[str, Any]) -> Timeline:
    """Rebuild a :class:`Timeline` from ``dataclasses.asdict`` output (or its JSON)."""
    shots = []
    for s in data["shots"]:
        card = s.get("card")
        shots.append(Shot(**{**s, "transition_in": Transition(**s["transition_in"]),
                             "card": CardSpec(**{**card, "lines": tuple(card["lines"])})
                             if card else None}))
    return Timeline(**{**data, "shots": tuple(shots),
                       "beat_frames": tuple(data.get("beat_frames", ())),
                       "dropped_photo_ids": tuple(data.get("dropped_photo_ids", ())),
                       "notes": tuple(data.get("notes", ())),
                       "light_leaks": tuple(LightLeak(**{**leak, "colour": tuple(leak["colour"])})
                                            for leak in data.get("light_leaks", ())),
                       "with_subject": tuple(data.get("with_subject", ())),
                       "subject_boxes": tuple(tuple(b) for b in data.get("subject_boxes", ()))})
