"""Which photos and clips fill the middle of a film, in what order, and how long each lasts
(pure: :class:`media.plan.inputs.PhotoSource` and :class:`~media.plan.inputs.ClipSource` are
read as data, lengths are seconds). :func:`media.plan.timeline.plan_timeline` then puts the cuts on
beats.

The arc: the subject photo opens, the warmest and brightest photo closes, and in between close
and wide, portrait and landscape alternate; clips are spread evenly between the photos.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from media.plan.inputs import PhotoSource


@dataclass(frozen=True)
class Slot:
    """One middle shot to be: a photo or clip, its nominal and longest length (seconds) and
    which showing of its source it is (``occurrence``, 0 first)."""

    kind: str
    source_id: str
    nominal_s: float
    max_s: float | None = None
    occurrence: int = 0


def even_pick(count: int, total: int) -> list[int]:
    """``count`` indices spread evenly over ``range(total)``, always including 0."""
    if count >= total:
        return list(range(total))
    return sorted({math.floor(i * total / count) for i in range(count)})


def subject_first(photos: Sequence[PhotoSource], subject_id: str | None) -> list[PhotoSource]:
    """The subject photo first, then the others in their given order."""
    first = [p for p in photos if p.id == subject_id]
    return first + [p for p in photos if p.id != subject_id]


def _step_cost(prev: PhotoSource, candidate: PhotoSource) -> float:
    """How poorly ``candidate`` follows ``prev``: the same framing (close after close, wide after
    wide) and the same orientation (portrait after portrait) read as a slideshow."""
    cost = 1.0 if prev.close == candidate.close else 0.0
    if prev.orientation == candidate.orientation and prev.orientation != "square":
        cost += 0.6
    return cost


def arc_order(photos: list[PhotoSource]) -> list[PhotoSource]:
    """The film's arc: the first photo (the subject) opens, the warmest and brightest of the
    others closes, and in between each next photo is the earliest given one that changes the
    framing and orientation most (close/wide and portrait/landscape alternate)."""
    if len(photos) <= 2:
        return list(photos)
    first, rest = photos[0], list(photos[1:])
    best_glow = max(p.glow for p in rest)
    closer = [p for p in rest if p.glow >= best_glow - 1e-9][-1]
    middle = [p for p in rest if p is not closer]
    order = [first]
    while middle:
        nxt = min(middle, key=lambda p: (_step_cost(order[-1], p), middle.index(p)))
        middle.remove(nxt)
        order.append(nxt)
    return [*order, closer]


def item_counts(n_photos: int, n_clips: int, middle_s: float, min_s: float) -> tuple[int, int]:
    """How many photos and clips fit when each must last at least ``min_s`` seconds."""
    fit = max(1, math.floor(middle_s / min_s))
    if n_photos + n_clips <= fit:
        return n_photos, n_clips
    clips = min(n_clips, max(1 if n_clips else 0, round(fit * n_clips / (n_photos + n_clips))))
    if n_photos == 0:
        clips = min(n_clips, fit)
    elif clips >= fit:  # room for one shot only: the (subject) photo wins
        clips = fit - 1
    return min(n_photos, fit - clips), clips


def photo_slots(photos: list[PhotoSource], count: int, shot_s: float) -> list[Slot]:
    """``count`` photo slots cycling through ``photos`` in arc order (repeats get a new
    occurrence); when photos repeat, the last slot is the closing photo (else, right after it,
    the subject again): the closing card then shows the subject."""
    ids = [photos[i % len(photos)].id for i in range(count)]
    if count > len(photos) >= 2 and ids[-1] != photos[-1].id:
        ids = _end_on(ids, photos[-1].id, photos[0].id)
    seen: dict[str, int] = {}
    slots = []
    for photo_id in ids:
        slots.append(Slot("photo", photo_id, shot_s, None, seen.get(photo_id, 0)))
        seen[photo_id] = seen.get(photo_id, 0) + 1
    return slots


def _end_on(ids: list[str], closer: str, subject: str) -> list[str]:
    """``ids`` ending on ``closer``: its last showing swapped to the end when that puts no photo
    twice in a row, else the last slot replaced by the closer (or, right after it, the
    subject)."""
    j = len(ids) - 1 - ids[::-1].index(closer)
    swapped = [*ids]
    swapped[j], swapped[-1] = swapped[-1], swapped[j]
    if all(a != b for a, b in itertools.pairwise(swapped)):
        return swapped
    return [*ids[:-1], closer if ids[-2] != closer else subject]


def interleave(photo_shots: list[Slot], clip_shots: list[Slot]) -> list[Slot]:
    """Photos in order with the clips spread evenly between them (never first)."""
    n, c = len(photo_shots) + len(clip_shots), len(clip_shots)
    first = 1 if photo_shots else 0
    positions = {min(n - 1, max(first, round((j + 1) * n / (c + 1)))) for j in range(c)}
    while len(positions) < len(clip_shots):  # collisions on tiny films: take free slots
        positions.add(next(i for i in range(n - 1, -1, -1) if i not in positions))
    photos, clips = iter(photo_shots), iter(clip_shots)
    return [next(clips) if i in positions else next(photos) for i in range(n)]


def fit_lengths(slots: list[Slot], middle_s: float, min_s: float) -> list[float]:
    """Slot lengths (seconds) summing to ``middle_s``: nominal lengths scaled by one factor,
    each at least ``min_s`` and clips at most their own length where possible."""

    def lengths(scale: float, capped: bool) -> list[float]:
        out = []
        for s in slots:
            d = max(min_s, s.nominal_s * scale)
            if capped and s.max_s is not None:
                d = min(d, max(min_s, s.max_s))
            out.append(d)
        return out

    capped = sum(lengths(1e6, True)) >= middle_s
    lo, hi = 0.0, 1e6
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if sum(lengths(mid, capped)) < middle_s else (lo, mid)
    result = lengths(hi, capped)
    factor = middle_s / sum(result)
    return [d * factor for d in result]


def _fine_at(slots: list[Slot], i: int, twins: set[frozenset[str]]) -> bool:
    """True when slot ``i`` shows neither the same source nor a twin of its neighbours'."""
    for j in (i - 1, i + 1):
        if 0 <= j < len(slots):
            a, b = slots[i].source_id, slots[j].source_id
            if a == b or frozenset((a, b)) in twins:
                return False
    return True


def separate(slots: list[Slot], twins: Sequence[tuple[str, str]]) -> list[Slot]:
    """``slots`` with near-duplicate ``twins`` (pairs of source ids) never side by side: a
    photo slot next to its twin swaps with the farthest photo slot where both end up apart, or
    failing that a clip slot (the first slot, the subject, stays; the last, the closing photo,
    moves only when no other swap helps); unchanged when none does."""
    pairs = {frozenset(t) for t in twins}
    out = list(slots)
    for i in range(1, len(out) - 1):
        if out[i].kind != "photo" or _fine_at(out, i, pairs):
            continue
        last = len(out) - 1  # the closing photo moves only when nothing else helps
        # another photo's place first; a clip's only when no photo swap helps (the clips'
        # even spread matters less than a picture shown twice in a row)
        order = sorted(range(1, len(out)), key=lambda j: (out[j].kind != "photo", j == last,
                                                           -abs(j - i)))
        for j in order:
            if j == i:
                continue
            trial = list(out)
            trial[i], trial[j] = trial[j], trial[i]
            if all(_fine_at(trial, k, pairs) for k in (i, j)):
                out = trial
                break
    return out


MIN_PHOTOS_AFTER_DROP = 3  # a photo that a clip repeats is dropped only if this many remain


def drop_twins(photos: list[PhotoSource], clip_ids: Sequence[str],
               twins: Sequence[tuple[str, str]], subject_id: str | None
               ) -> tuple[list[PhotoSource], list[str]]:
    """Photos left after dropping near-duplicates (``twins``: pairs of ids, see
    :mod:`media.look.dedupe`), and the ids dropped: of two twin photos the later goes (never the
    subject); a photo a clip was made from goes while :data:`MIN_PHOTOS_AFTER_DROP` photos
    remain (the clip moves; otherwise the two are only kept apart, see :func:`separate`)."""
    kept = list(photos)
    ids = {p.id for p in photos}
    dropped: list[str] = []

    def drop(photo_id: str) -> None:
        nonlocal kept
        kept = [p for p in kept if p.id != photo_id]
        dropped.append(photo_id)

    for a, b in twins:
        if a in ids and b in ids and a not in dropped and b not in dropped and len(kept) > 1:
            drop(a if b == subject_id else b)
    clips = set(clip_ids)
    for a, b in twins:
        photo = a if b in clips else b if a in clips else None
        if (photo in ids and photo != subject_id and photo not in dropped
                and len(kept) > MIN_PHOTOS_AFTER_DROP):  # the clip shows it, and moves
            drop(photo)
    return kept, dropped
