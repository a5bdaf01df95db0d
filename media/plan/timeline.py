"""The film as plain data: which source is on screen at which frame, and how shots change.

A :class:`Timeline` lays out an opening card, the photo and clip shots and a closing card over
exactly ``round(length_sec * fps)`` frames (planned by :func:`media.plan.planner.plan`). It is
frozen dataclasses only: ``dataclasses.asdict`` and :meth:`Timeline.to_json` serialize it,
:meth:`Timeline.describe` prints it, and :func:`timeline_from_dict` reads it back. Nothing here
touches pixels.

Timing model (all in frames): shot ``i`` owns ``[cut_in, cut_out)``; the next shot's
``transition_in`` straddles the cut. A ``crossfade`` of ``d`` frames runs over
``[cut - d/2, cut + d/2)`` (both shots visible); a ``fade_black`` fades the outgoing shot to black
over the first half and the incoming one in from black over the second half; a ``cut`` is
instantaneous. ``visible_in``/``visible_out`` are the frames over which a shot must be rendered.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from media.cards.spec import CardSpec
from media.plan.montage import LightLeak
from media.plan.transitions import CUT, transition_kind

KEN_BURNS, PUSH, STILL = "ken_burns", "push", "none"
PARALLAX = "parallax"  # premium: a Ken Burns move with the subject on its own layer (2.5D)
ROLL = "roll"  # premium: a Ken Burns move with a turn and a push (media.frames.parallax's roll
# push), for a subject's shot whose photo does not separate cleanly enough for parallax
FULL_MOTIONS = (KEN_BURNS, PARALLAX, ROLL)  # the motions that make a full camera move
PROVIDER = "provider"  # the photo brought to motion by the motion provider: its clip plays
# (media.plan.motion_clips), framed like a customer's clip


@dataclass(frozen=True)
class Transition:
    """How a shot comes in: ``kind`` (cut, crossfade, fade_black, dip; see
    :mod:`media.plan.transitions`) lasting ``frames`` frames."""

    kind: str = CUT
    frames: int = 0

    def start(self, cut: int) -> int:
        """First frame of the transition around the cut at frame ``cut``."""
        return cut - self.frames // 2


@dataclass(frozen=True)
class Shot:
    """One shot. ``kind`` is card, photo or clip; frames are film frame indices.

    ``motion`` is ken_burns, parallax, roll, push, provider (the motion provider's clip of the
    photo plays) or none (how much the camera moves); ``move`` is
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

    @property
    def plays_clip(self) -> bool:
        """True when the shot's frames are a clip's, decoded in order from its first visible
        frame: a customer's clip, or a photo's clip from the motion provider."""
        return self.kind == "clip" or self.motion == PROVIDER


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


def transition_frames(timeline: Timeline, index: int) -> tuple[int, int]:
    """How many of shot ``index``'s first and last visible frames play under a transition
    (a crossfade's whole length, a fade from or to black's half; a cut's none)."""
    shots = timeline.shots

    def under(transition: Transition) -> int:
        return transition_kind(transition.kind).under(transition.frames)

    lead = under(shots[index].transition_in)
    tail = under(shots[index + 1].transition_in) if index + 1 < len(shots) else 0
    return lead, tail


def segment_cut_frames(timeline: Timeline) -> list[int]:
    """Frames where the film may be split into separately rendered segments, ascending.

    A candidate is a shot boundary (some shot's ``visible_in`` or ``visible_out``) strictly
    inside the film where no shot that plays a clip is on screen on both sides of it (no
    :attr:`Shot.plays_clip` shot with ``visible_in < f < visible_out``). Every other frame is a
    pure function of its index (photo moves, cards, logo, transitions, film fades), but a clip
    is decoded sequentially from its shot's first visible frame, so a segment must never start
    in the middle of one. Cutting on shot boundaries also keeps the closed-GOP restart (an IDR
    frame) at a change of picture, where it costs least.
    """
    bounds = {f for shot in timeline.shots for f in (shot.visible_in, shot.visible_out)}
    clips = [(s.visible_in, s.visible_out) for s in timeline.shots if s.plays_clip]
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
