"""The signature chorus: a montage cut on the beat, entered through a warm light (pure).

In a signature film each chorus of the song (:class:`media.plan.moves.Section`) becomes a
montage: from the chorus's downbeat to the first planned cut at or after its end, a cut every
``beats`` beats of the look (:class:`media.design.looks.Montage`; every 4 where 2 beats would
last under :data:`MONTAGE_MIN_S`). The photos planned there keep their showing, each in one
piece of the montage (the last piece the longest, running to the planned cut), and the pieces
before them are *flashes*: closer showings of photos the film has shown, the subject's first
(its photo, faces, the same animal), the longest ago first. Where fewer photos are ready to
flash than pieces fit, the planned photo holds on: the montage never cuts a photo to itself.
The verses keep their cuts.

A flash is a photo shown again while the film's shots could still be longer, which the edit's
rule forbids elsewhere (:func:`media.plan.shot_order.showing_order`: photos hold before any
repeats). The montage is the one designed exception, kept inside that rule's other limits: it
lives only in a chorus, where the song's rhythm sets the shots' length (two beats, about a
second, is what a montage is; no shot there could be held longer without leaving the beat); a
flash comes only once every photo of the film was shown (a film of few photos, or of more than
it has room for, may have no flash at all), at least
:data:`media.plan.shot_order.REPEAT_SPACING_S` after its photo's last showing began; it is
framed anew (the render looks closer, :mod:`media.analysis.detail`: 1.6x on the faces or the
animal on a second showing); no photo flashes twice in one montage; and no planned photo
loses its showing.

The downbeat where a montage starts is entered through a dissolve under a warm light
(:class:`LightLeak`, drawn by :mod:`media.frames.leak`): the look's ``light_s``,
``light_colour`` and ``light_strength``. Frames are film frame indices throughout.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from media.cards.spec import CardSpec
from media.plan.inputs import PhotoSource
from media.plan.layouts import Layout, renumbered
from media.plan.moves import CHORUS, Section
from media.plan.pacing import FEW_PHOTOS, SUBJECT_SHARE_FROM, SUBJECT_SHARE_MAX, subject_share
from media.plan.shot_order import REPEAT_SPACING_S, Slot, shows_subject
from media.plan.spec import SongFrames

MONTAGE_MIN_S = 0.75  # a montage piece lasts at least this long (fast songs cut every 4 beats)
LIGHT_DECAY = 1.5  # the light fades out this many times as long as it took to come up
OWN, FLASH = "own", "flash"  # a montage piece: a planned photo, an earlier photo shown again


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
class Middle:
    """The middle of a film between its cards: its ``slots``, the full ``cuts`` (opening card
    first: slot ``k`` spans ``cuts[k + 1]..cuts[k + 2]``), the slots' ``layouts``, the
    interludes' ``cards`` by slot index, the frames where a chorus montage starts
    (``downbeats``, :func:`chorus_montage`) and the photos of the title's lead shots
    (``leads``, shown before the middle: :mod:`media.plan.title_sequence`)."""

    slots: list[Slot]
    cuts: list[int]
    layouts: list[Layout]
    cards: dict[int, CardSpec]
    downbeats: tuple[int, ...] = ()
    leads: tuple[str, ...] = ()


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


def chorus_montage(middle: Middle, song: SongFrames, photos: Mapping[str, PhotoSource],
                   subject_id: str | None, beats_per_piece: int, fps: int,
                   apart: Sequence[tuple[str, str]] = ()) -> Middle:
    """``middle`` with every chorus of the ``song`` as a montage (see the module doc), one
    after another, cut on the song's beats every ``beats_per_piece`` beats; a chorus whose
    montage would lay a photo beside one it must stay ``apart`` from (a near-duplicate, a
    crop of it: pairs of ids) keeps its planned shots. Unchanged without
    choruses, beats or ``beats_per_piece``, in a film whose photos are enough for its length
    (none shown twice: a flash would be a needless repeat), and in one of
    :data:`media.plan.pacing.FEW_PHOTOS` photos or fewer (its shots hold long: a flash
    would only cut back to the photo just seen)."""
    if (beats_per_piece <= 0 or len(song.beats) < 3 or len(photos) <= FEW_PHOTOS
            or not _repeats(middle, photos)):
        return middle
    for section in song.sections:
        if section.name == CHORUS:
            montage = _one_montage(middle, section, song.beats, photos, subject_id,
                                   beats_per_piece, fps)
            if _subject_over(montage, subject_id, len(photos)):  # it flashes other photos
                montage = _one_montage(middle, section, song.beats, photos, subject_id,
                                       beats_per_piece, fps, keep_subject=False)
            if not _side_by_side(montage, apart) or _side_by_side(middle, apart):
                middle = montage
    return middle


def _side_by_side(middle: Middle, apart: Sequence[tuple[str, str]]) -> bool:
    """True when two consecutive shots of ``middle`` show a pair of ``apart``."""
    pairs = {frozenset(p) for p in apart}
    shown = [{slot.source_id, *middle.layouts[k].partners} - {""} if slot.kind == "photo"
             else {slot.source_id} for k, slot in enumerate(middle.slots)]
    return any(frozenset((a, b)) in pairs for one, two in itertools.pairwise(shown)
               for a in one for b in two)


def _subject_over(middle: Middle, subject_id: str | None, photos: int) -> bool:
    """True when the subject photo takes more than
    :data:`media.plan.pacing.SUBJECT_SHARE_MAX` of ``middle``'s photo time in a film of
    :data:`media.plan.pacing.SUBJECT_SHARE_FROM` ``photos`` or more."""
    if subject_id is None or photos < SUBJECT_SHARE_FROM:
        return False
    shots = [((slot.source_id, *middle.layouts[k].partners), middle.cuts[k + 2]
              - middle.cuts[k + 1]) for k, slot in enumerate(middle.slots)
             if slot.kind == "photo" and k not in middle.cards]
    return subject_share(subject_id, shots) > SUBJECT_SHARE_MAX


def _repeats(middle: Middle, photos: Mapping[str, PhotoSource]) -> bool:
    """True when ``middle`` shows a photo twice, counting the title's (its lead shots'
    ``middle.leads`` and the first of ``photos``)."""
    shown = [*middle.leads, *list(photos)[:1]]
    shown += [p for k, slot in enumerate(middle.slots) if slot.kind == "photo"
              for p in (slot.source_id, *middle.layouts[k].partners) if p]
    return len(shown) > len(set(shown))


def _span(middle: Middle, section: Section, fps: int) -> tuple[int, int, int] | None:
    """(first, stop, downbeat): a montage over ``section`` re-cuts the photo shots
    ``middle.slots[first:stop]``: the one holding the chorus's downbeat, then those starting
    inside the chorus (up to the first planned cut at or after its end); it starts at
    ``downbeat``: the chorus's, or the shot's own start when that is under
    :data:`MONTAGE_MIN_S` before it. None when the chorus lies outside the pictures or a clip
    or a card holds its downbeat."""
    starts = middle.cuts[1:-2]
    first = next((k for k, s in enumerate(starts) if s <= section.start < middle.cuts[k + 2]),
                 None)
    if first is None or middle.slots[first].kind != "photo" or first in middle.cards:
        return None
    downbeat = section.start
    if section.start - starts[first] < MONTAGE_MIN_S * fps:
        downbeat = starts[first]
    stop = first + 1
    while (stop < len(middle.slots) and starts[stop] < section.end
           and middle.slots[stop].kind == "photo" and stop not in middle.cards):
        stop += 1
    return first, stop, downbeat


def _one_montage(middle: Middle, section: Section, beats: Sequence[int],
                 photos: Mapping[str, PhotoSource], subject_id: str | None, per_piece: int,
                 fps: int, keep_subject: bool = True) -> Middle:
    """``middle`` with the chorus ``section`` as a montage (see :func:`chorus_montage`): every
    planned shot from the downbeat on is cut every ``per_piece`` beats (or more, see
    :func:`piece_beats`): its own photo on its planned cut, then flashes on its last beats,
    as many as there are photos ready to flash (the subject photo among them only when
    ``keep_subject``): its own photo holds the longest."""
    span = _span(middle, section, fps)
    if span is None:
        return middle
    first, stop, downbeat = span
    grid = sorted(b for b in beats if b < section.end)
    if len(grid) < 2:
        return middle
    step = piece_beats(per_piece, (grid[-1] - grid[0]) / (len(grid) - 1), fps)
    ready = [r for r in _flash_photos(middle, first, stop, photos, subject_id, fps)
             if keep_subject or r[0] != subject_id]
    used: set[str] = set()
    pieces: list[tuple[int, str, int | str]] = []  # (first frame, kind, slot or photo id)
    for k in range(first, stop):
        begin, finish = middle.cuts[k + 1], middle.cuts[k + 2]
        pieces.append((begin, OWN, k))
        after = max(begin, downbeat)
        times = [b for b in grid if after <= b < finish] if after < section.end else []
        if after > begin and (not times or times[0] != after):
            times.insert(0, after)  # the downbeat, inside the shot that holds it
        times = [t for t in times[::step] if t > begin and finish - t >= 0.9 * MONTAGE_MIN_S
                 * fps and t - begin >= 0.9 * MONTAGE_MIN_S * fps]
        trial = set(used)
        fed = sum(_flash(time, ready, trial) is not None for time in times)
        # the shot holding the downbeat cuts on it; the others' own photo holds first
        for time in times[:fed] if begin < downbeat else times[len(times) - fed:]:
            flash = _flash(time, ready, used)
            if flash is not None:
                pieces.append((time, FLASH, flash))
    if len(pieces) == stop - first:
        return middle
    out_slots: list[Slot] = []
    shown: list[Layout] = []
    bounds = [at for at, _, _ in pieces] + [middle.cuts[stop + 1]]
    for j, (_, kind, what) in enumerate(pieces):
        if kind == OWN:
            out_slots.append(middle.slots[int(what)])
            shown.append(middle.layouts[int(what)])
        else:
            out_slots.append(Slot("photo", str(what), (bounds[j + 1] - bounds[j]) / fps))
            shown.append(Layout())
    slots = [*middle.slots[:first], *out_slots, *middle.slots[stop:]]
    cuts = [*middle.cuts[:first + 1], *bounds[:-1], *middle.cuts[stop + 1:]]
    layouts = [*middle.layouts[:first], *shown, *middle.layouts[stop:]]
    added = len(pieces) - (stop - first)
    cards = {(k + added if k >= stop else k): card for k, card in middle.cards.items()}
    return replace(middle, slots=renumbered(slots), cuts=cuts, layouts=layouts, cards=cards,
                   downbeats=(*middle.downbeats, downbeat))


def _flash(time: int, ready: list[tuple[str, int, int]], used: set[str]) -> str | None:
    """The best photo of ``ready`` that may flash at frame ``time`` and is not ``used`` yet
    (then added to it), None when none may."""
    flash = next((p for p, at, until in ready if p not in used and at <= time < until), None)
    if flash is not None:
        used.add(flash)
    return flash


def _flash_photos(middle: Middle, first: int, stop: int,
                  photos: Mapping[str, PhotoSource], subject_id: str | None,
                  fps: int) -> list[tuple[str, int, int]]:
    """The photos a montage over ``middle.slots[first:stop]`` may flash back to, best first,
    each with the frames from and until which it may: once every one of ``photos`` was shown
    (the title's ``middle.leads`` and first photo count, as shown until the title's end),
    :data:`REPEAT_SPACING_S` after its
    last showing (alone or in a split) began, and as long before its next one. None of the
    montage's own photos, nor the one shown next; the subject's photos first, then the one
    shown longest ago."""
    title = {*middle.leads, *list(photos)[:1]}
    last = dict.fromkeys(title, middle.cuts[1])  # (the title ends there: a safe start)
    unseen = set(photos) - title
    complete = 0 if not unseen else None  # the frame from which every photo was shown
    for k, slot in enumerate(middle.slots[:stop]):
        if slot.kind == "photo":
            for photo_id in (slot.source_id, *middle.layouts[k].partners):
                if photo_id and k < first:
                    last[photo_id] = middle.cuts[k + 1]
                unseen.discard(photo_id)
            if not unseen and complete is None:
                complete = middle.cuts[k + 1] + 1
    if complete is None:
        return []
    near = {s for k in (*range(first, stop), stop) if k < len(middle.slots)
            for s in (middle.slots[k].source_id, *middle.layouts[k].partners) if s}
    if stop >= len(middle.slots):  # the closing comes next, over the title's photo
        near |= set(list(photos)[:1])
    spacing = round(REPEAT_SPACING_S * fps)
    upcoming = dict.fromkeys(list(photos)[:1], middle.cuts[-2])  # the closing stands over it
    for k in range(len(middle.slots) - 1, stop - 1, -1):
        for photo_id in (middle.slots[k].source_id, *middle.layouts[k].partners):
            if photo_id and middle.slots[k].kind == "photo":
                upcoming[photo_id] = middle.cuts[k + 1]
    ready = sorted((p for p in last if p not in near and p in photos),
                   key=lambda p: (not shows_subject(photos[p], subject_id), last[p], p))
    return [(p, max(complete, last[p] + spacing),
             upcoming.get(p, middle.cuts[-1] + spacing) - spacing) for p in ready]
