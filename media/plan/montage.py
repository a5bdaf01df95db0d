"""The signature chorus: a montage cut on the beat, entered through a warm light (pure).

In a signature film each chorus of the song (:class:`media.plan.moves.Section`) becomes a
montage: from the chorus's downbeat to the first planned cut at or after its end, a cut every
``beats`` beats of the look (:class:`media.cards.design.Montage`; every 4 where 2 beats would
last under :data:`MONTAGE_MIN_S`). The photos planned there keep their showing, each in one
piece of the montage (its last piece the longest, running to the planned cut), and the pieces
between them are *flashes*: closer showings of photos the film has shown, the subject's first
(its photo, faces, the same animal), the longest ago first. The verses keep their cuts.

A flash is a photo shown again while the film's shots could still be longer, which the edit's
rule forbids elsewhere (:func:`media.plan.shot_order.showing_order`: photos hold before any
repeats). The montage is the one designed exception, kept inside that rule's other limits: it
lives only in a chorus, where the song's rhythm sets the shots' length (two beats, about a
second, is what a montage is; no shot there could be held longer without leaving the beat); a
flash is at least :data:`media.plan.shot_order.REPEAT_SPACING_S` after its photo's last
showing began; it is framed anew (the render looks closer, :mod:`media.look.detail`: 1.6x on
the faces or the animal on a second showing); no photo flashes twice in one montage; and no
planned photo loses its showing. A chorus with no photo shown long enough ago has no montage.

The downbeat where a montage starts is entered through a dissolve under a warm light
(:class:`LightLeak`, drawn by :mod:`media.frames.leak`): the look's ``light_s``,
``light_colour`` and ``light_strength``. Frames are film frame indices throughout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from media.cards.spec import CardSpec
from media.plan.inputs import PhotoSource
from media.plan.layouts import Layout
from media.plan.moves import CHORUS, Section
from media.plan.shot_order import REPEAT_SPACING_S, Slot, shows_subject

MONTAGE_MIN_S = 0.75  # a montage piece lasts at least this long (fast songs cut every 4 beats)
LIGHT_DECAY = 1.5  # the light fades out this many times as long as it took to come up


@dataclass(frozen=True)
class LightLeak:
    """A warm light over the picture around a cut: it comes up from frame ``start``, is
    brightest at ``peak`` (the cut) and is gone at ``end``; ``colour`` is its RGB (0..255),
    ``strength`` how far toward that colour's full brightness its core goes at the peak
    (0..1), ``side`` where it enters from (1: the left, -1: the right)."""

    start: int
    peak: int
    end: int
    colour: tuple[int, int, int]
    strength: float
    side: int = 1

    def level(self, frame: int) -> float:
        """The light's brightness (0..1 of ``strength``) at film frame ``frame``: a smooth
        rise to the peak and a slower fall."""
        if not self.start <= frame < self.end:
            return 0.0
        if frame < self.peak:
            u = (frame - self.start + 0.5) / max(1, self.peak - self.start)
        else:
            u = 1.0 - (frame - self.peak + 0.5) / max(1, self.end - self.peak)
        u = min(max(u, 0.0), 1.0)
        return u * u * (3.0 - 2.0 * u)


@dataclass(frozen=True)
class MontagePlan:
    """The middle of a film after its choruses became montages: ``slots``, the full ``cuts``
    (opening card first, as :func:`media.plan.timeline.plan_timeline` lays them: slot ``k``
    spans ``cuts[k + 1]..cuts[k + 2]``), the slots' ``layouts``, the interludes' ``cards`` by
    slot index, and the frames where a montage starts (``downbeats``)."""

    slots: list[Slot]
    cuts: list[int]
    layouts: list[Layout]
    cards: dict[int, CardSpec]
    downbeats: tuple[int, ...] = ()


def light_leak(cut: int, frames: int, colour: tuple[int, int, int], strength: float,
               index: int) -> LightLeak:
    """The light over a dissolve of ``frames`` frames centred on ``cut``: up over its first
    half, down over :data:`LIGHT_DECAY` times that; the ``index``-th light of the film enters
    from the left, the next from the right."""
    rise = max(1, frames // 2)
    return LightLeak(cut - rise, cut, cut + round(LIGHT_DECAY * rise), colour, strength,
                     1 if index % 2 == 0 else -1)


def piece_beats(beats: int, beat_frames: float, fps: int) -> int:
    """Beats per montage piece: ``beats``, or the first multiple of it lasting at least
    :data:`MONTAGE_MIN_S` at a beat of ``beat_frames`` frames."""
    step = max(1, beats)
    count = step
    while count * beat_frames < MONTAGE_MIN_S * fps:
        count += step
    return count


def chorus_montage(slots: Sequence[Slot], cuts: Sequence[int], layouts: Sequence[Layout],
                   cards: Mapping[int, CardSpec], sections: Sequence[Section],
                   beats: Sequence[int], photos: Mapping[str, PhotoSource],
                   subject_id: str | None, beats_per_piece: int, min_frames: int,
                   fps: int) -> MontagePlan:
    """Every chorus of ``sections`` as a montage (see the module doc), one after another:
    ``min_frames`` is the shortest a shot keeps before the downbeat (else the montage starts at
    that shot), ``beats`` the song's beat frames. Unchanged without choruses, beats or
    ``beats_per_piece``."""
    plan = MontagePlan(list(slots), list(cuts), list(layouts), dict(cards))
    if beats_per_piece <= 0 or len(beats) < 3:
        return plan
    for section in sections:
        if section.name == CHORUS:
            plan = _one_montage(plan, section, beats, photos, subject_id, beats_per_piece,
                                min_frames, fps)
    return plan


def _span(plan: MontagePlan, section: Section, min_frames: int) -> tuple[int, int, int] | None:
    """(first, stop, start): a montage over ``section`` re-cuts ``plan.slots[first:stop]``
    from frame ``start``. It starts on the downbeat, the photo shot holding it keeping its
    frames up to there; or, when that shot started too close before it (under ``min_frames``)
    or on it, with that shot. It runs over the photo shots starting inside the chorus, up to the
    first planned cut at or after its end. None when the chorus lies outside the pictures or a
    clip or a card holds its downbeat."""
    starts = plan.cuts[1:-2]
    first = next((k for k, s in enumerate(starts) if s <= section.start < plan.cuts[k + 2]),
                 None)
    if first is None or plan.slots[first].kind != "photo" or first in plan.cards:
        return None
    start = starts[first]
    if section.start - start >= min_frames:
        first, start = first + 1, section.start  # the shot before keeps its own frames
    stop = first
    while stop < len(plan.slots) and starts[stop] < section.end:
        if plan.slots[stop].kind != "photo" or stop in plan.cards:
            break
        stop += 1
    return (first, stop, start) if stop > first else None


def _one_montage(plan: MontagePlan, section: Section, beats: Sequence[int],
                 photos: Mapping[str, PhotoSource], subject_id: str | None, per_piece: int,
                 min_frames: int, fps: int) -> MontagePlan:
    """``plan`` with the chorus ``section`` as a montage (see :func:`chorus_montage`)."""
    span = _span(plan, section, min_frames)
    if span is None:
        return plan
    first, stop, start = span
    own = list(range(first, stop))
    end = plan.cuts[stop + 1]
    grid = [start, *(b for b in beats if start < b < end)]
    beat_frames = (grid[-1] - grid[0]) / max(1, len(grid) - 1)
    step = piece_beats(per_piece, beat_frames, fps)
    flashes = _flash_photos(plan, first, stop, start, photos, subject_id, fps)
    count = min(len(grid) // step, len(own) + len(flashes))
    if count <= len(own):
        return plan
    step = len(grid) // count
    bounds = [grid[j * step] for j in range(count)] + [end]
    if min(b - a for a, b in pairwise(bounds)) < 0.9 * MONTAGE_MIN_S * fps:
        return plan
    owned = _own_places(count, len(own))
    pieces: list[Slot] = []
    shown: list[Layout] = []
    flash_ids = iter(flashes)
    own_iter = iter(own)
    for j in range(count):
        if j in owned:
            k = next(own_iter)
            pieces.append(plan.slots[k])
            shown.append(plan.layouts[k])
        else:
            photo_id = next(flash_ids)
            pieces.append(Slot("photo", photo_id, (bounds[j + 1] - bounds[j]) / fps))
            shown.append(Layout())
    slots = [*plan.slots[:first], *pieces, *plan.slots[stop:]]
    cuts = [*plan.cuts[:first + 1], *bounds[:-1], *plan.cuts[stop + 1:]]
    layouts = [*plan.layouts[:first], *shown, *plan.layouts[stop:]]
    added = count - len(own)
    cards = {(k + added if k >= stop else k): card for k, card in plan.cards.items()}
    return MontagePlan(_renumbered(slots), cuts, layouts, cards, (*plan.downbeats, start))


def _own_places(count: int, own: int) -> set[int]:
    """Which of ``count`` pieces show the chorus's own ``own`` photos: the last, then every
    other one back from it (evenly when there are fewer flashes than photos)."""
    return {count - 1 - round(j * count / own) for j in range(own)}


def _flash_photos(plan: MontagePlan, first: int, stop: int, start: int,
                  photos: Mapping[str, PhotoSource], subject_id: str | None,
                  fps: int) -> list[str]:
    """The photos a montage from frame ``start`` may flash back to, best first: shown (alone
    or in a split) in a shot that started at least :data:`REPEAT_SPACING_S` before ``start``
    and not since, none of the montage's own photos or their neighbours', the subject's
    photos first, then the one shown longest ago."""
    last: dict[str, int] = {}
    for k, slot in enumerate(plan.slots[:first]):
        if slot.kind == "photo":
            for photo_id in (slot.source_id, plan.layouts[k].partner_id):
                if photo_id:
                    last[photo_id] = plan.cuts[k + 1]
    near = {s for k in (first - 1, *range(first, stop), stop) if 0 <= k < len(plan.slots)
            for s in (plan.slots[k].source_id, plan.layouts[k].partner_id) if s}
    spacing = round(REPEAT_SPACING_S * fps)
    ready = [p for p, at in last.items()
             if start - at >= spacing and p not in near and p in photos]
    return sorted(ready, key=lambda p: (not shows_subject(photos[p], subject_id), last[p], p))


def _renumbered(slots: list[Slot]) -> list[Slot]:
    """``slots`` with every photo slot's ``occurrence`` counted again (its earlier showings)."""
    seen: dict[str, int] = {}
    out = []
    for slot in slots:
        if slot.kind == "photo":
            out.append(replace(slot, occurrence=seen.get(slot.source_id, 0)))
            seen[slot.source_id] = seen.get(slot.source_id, 0) + 1
        else:
            out.append(slot)
    return out
