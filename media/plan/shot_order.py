"""Which photos and clips fill the middle of a film, in what order, and how long each lasts
(pure: :class:`media.plan.inputs.PhotoSource` and :class:`~media.plan.inputs.ClipSource` are
read as data, lengths are seconds). :func:`media.plan.slots.plan_middle` then puts the cuts on
beats.

The arc: the subject photo opens, the warmest and brightest photo closes, and in between close
and wide, portrait and landscape alternate; clips are spread evenly between the photos.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from media.plan.inputs import PhotoSource
from media.plan.pacing import FEW_PHOTOS


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


REPEAT_SPACING_S = 10.0  # a photo shown again waits at least this long after its last showing
SUBJECT_HOLD = 1.3  # a shot of the subject (or of a face) is this much longer than scenery


def shows_subject(photo: PhotoSource, subject_id: str | None) -> bool:
    """True for the subject photo, for any photo with a face in it, and for a photo that shows
    the same animal as the subject photo (:attr:`PhotoSource.with_subject`)."""
    return photo.id == subject_id or photo.face_fraction > 0 or photo.with_subject


def pick_subject(photos: Sequence[PhotoSource], subject_id: str | None) -> str | None:
    """The film's subject photo: the order's, else the photo whose largest face is largest
    (None when no photo has a face: a film of scenery has no subject)."""
    if any(p.id == subject_id for p in photos):
        return subject_id
    faces = [p for p in photos if p.face_fraction > 0]
    return max(faces, key=lambda p: p.face_fraction).id if faces else None


def showing_order(ids: Sequence[str], count: int, spacing: int,
                  before: Sequence[str] = (), after: str | None = None,
                  pictures: Mapping[str, str] | None = None) -> list[str]:
    """``count`` showings of the photos ``ids`` (arc order: the opener first, the closer last).

    ``before``: the photos shown ahead of these showings, in order (the title's); ``after``:
    the photo shown right after them (the closing's). Every photo is shown once before any is
    shown again: first those not shown ``before``, in arc order (the closer ends that round),
    then the repeats. A repeat is never next to a showing of its own photo (nor to
    ``after``) where another photo avoids it, comes at least ``spacing`` showings after the
    start of its last one where the photos allow, in no run of three already seen where
    another photo avoids it (no replayed order), the least shown photo first.

    ``pictures``: each photo's picture (:func:`pictures_of`: a photo and a crop of it are one
    picture); when photos share one (and there are others), the showings are spread by
    picture (:func:`_by_picture`)."""
    if pictures and 1 < len({pictures.get(i, i) for i in ids}) < len(ids):
        return _by_picture(ids, count, spacing, (before, after), pictures)
    n = len(ids)
    if n <= 1:
        return [ids[0]] * count if n else []
    fresh = [i for i in ids if i not in before]
    if count <= len(fresh):
        return [*fresh[:count - 1], fresh[-1]] if count else []
    order = [*before, *fresh]
    total = len(before) + count
    fixed = {total: after} if after else {}
    shown = {i: order.count(i) + (i == after) for i in ids}  # the closing's counts too
    runs = {tuple(order[j:j + 3]) for j in range(len(order) - 2)}
    gap = max(2, min(spacing, n - 1))
    for k in range(len(order), total):
        pick = fixed.get(k) or _next_showing(ids, order, fixed, k, gap, shown, runs)
        if k not in fixed:
            shown[pick] += 1
        if len(order) >= 2:
            runs.add((order[-2], order[-1], pick))
        order.append(pick)
    return order[len(before):]


def _by_picture(ids: Sequence[str], count: int, spacing: int,
                around: tuple[Sequence[str], str | None], pictures: Mapping[str, str]
                ) -> list[str]:
    """``count`` showings of ``ids`` ordered as :func:`showing_order` orders pictures (each
    picture's showings balanced with the others', never two of one picture in a row where
    another picture avoids it), each picture's photos taking turns: its least shown photo
    (``around``: the title's photos before and the closing's after count), the first in arc
    order on a tie. A picture of two photos is shown as often as a picture of one; one with
    a photo not yet shown is new to the middle's first round."""
    before, after = around

    def picture(photo_id: str) -> str:
        return pictures.get(photo_id, photo_id)

    members: dict[str, list[str]] = {}
    for photo_id in ids:
        members.setdefault(picture(photo_id), []).append(photo_id)
    shown_before = [picture(b) for b in before]
    unseen = {picture(i) for i in ids if i not in before and i != after}
    first_round: list[str] = []  # the pictures new to the middle, none twice in a row
    pending = [k for k in members if k not in shown_before or k in unseen]
    while pending and len(first_round) < count:
        last = (first_round or shown_before or [""])[-1]
        pick = next((k for k in pending if k != last), None)
        if pick is None:  # only the picture just shown is left: it comes at its turn
            break
        pending.remove(pick)
        first_round.append(pick)
    order = [*first_round, *showing_order(list(members), count - len(first_round), spacing,
                                          [*shown_before, *first_round],
                                          picture(after) if after else None)]
    shown = Counter([*before, *([after] if after else [])])
    out = []
    for key in order:
        photo_id = min(members[key], key=lambda i: (shown[i], members[key].index(i)))
        shown[photo_id] += 1
        out.append(photo_id)
    return out


def pictures_of(ids: Sequence[str], pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Each of ``ids``' picture: the first of ``ids`` linked to it through ``pairs`` (a photo
    and a crop of it, near-duplicates: :attr:`media.plan.spec.FilmSpec.apart`), else itself."""
    picture = {i: i for i in ids}
    for a, b in pairs:
        if a in picture and b in picture:
            old, new = sorted((picture[a], picture[b]), key=ids.index, reverse=True)
            picture = {i: new if p == old else p for i, p in picture.items()}
    return picture


def _next_showing(ids: Sequence[str], order: list[str], fixed: dict[int, str], k: int, gap: int,
                  shown: dict[str, int], runs: set[tuple[str, ...]]) -> str:
    """The photo for free slot ``k`` (see :func:`showing_order`)."""
    upcoming = {fixed[j] for j in range(k + 1, k + gap) if j in fixed}

    def cost(photo_id: str) -> tuple[int, int, int, int, int]:  # lowest wins
        last = max((j for j, o in enumerate(order) if o == photo_id), default=-len(ids))
        adjacent = int((bool(order) and order[-1] == photo_id) or fixed.get(k + 1) == photo_id)
        too_close = int(k - last < gap or photo_id in upcoming)
        replayed = int(len(order) >= 2 and (order[-2], order[-1], photo_id) in runs)
        return adjacent, too_close, replayed, shown[photo_id], last

    return min(ids, key=cost)


def closing_photo(left_out: Sequence[PhotoSource], title_photo: str | None) -> str | None:
    """The photo the closing stands over: the title's (the subject, shown again at the end),
    unless photos were ``left_out`` for lack of room; then one of those (the one with the
    subject, else the largest face, else the warmest), so that no photo is shown twice while
    another is never shown."""
    if not left_out:
        return title_photo
    return max(left_out, key=lambda p: (p.with_subject, p.face_fraction, p.glow)).id


def photo_order(ids: Sequence[str], count: int, spacing: int,
                around: tuple[Sequence[str], str | None], twins: Sequence[tuple[str, str]]
                ) -> list[str]:
    """``count`` showings of the photos ``ids`` (:func:`showing_order`; ``around``: the
    title's photos and the closing's), spread by picture in a film of
    :data:`media.plan.pacing.FEW_PHOTOS` pictures or fewer where ``twins`` (a photo and a crop
    of it) make two photos one."""
    pictures = pictures_of(ids, twins)
    few = len(set(pictures.values())) <= FEW_PHOTOS
    return showing_order(ids, count, spacing, *around, pictures=pictures if few else None)


def photo_slots(photos: list[PhotoSource], count: int, shot_s: float, *, spacing: int = 1,
                subject_id: str | None = None, max_s: float | None = None,
                around: tuple[Sequence[str], str | None] = ((), None),
                twins: Sequence[tuple[str, str]] = ()) -> list[Slot]:
    """``count`` photo slots over ``photos`` in arc order (see :func:`showing_order`; repeats
    get a new occurrence, framed anew by the render). Shots of the subject or of faces are
    :data:`SUBJECT_HOLD` times longer than scenery (each at most ``max_s`` where the film
    allows). ``around``: the photos the title already showed, in order (the subject last:
    the title stands over it), so the slots show every other photo before those again, and
    the closing's photo, never the last slot's where another can be. ``twins``: pairs of
    photos of one picture (a photo and a crop of it), spread by picture in a film of few
    pictures (:func:`photo_order`), where swapping slots cannot keep them apart."""
    ids = photo_order([p.id for p in photos], count, spacing, around, twins)
    by_id = {p.id: p for p in photos}
    seen: dict[str, int] = {}
    slots = []
    for photo_id in ids:
        weight = SUBJECT_HOLD if shows_subject(by_id[photo_id], subject_id) else 1.0
        slots.append(Slot("photo", photo_id, shot_s * weight, max_s, seen.get(photo_id, 0)))
        seen[photo_id] = seen.get(photo_id, 0) + 1
    return slots


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


def separate(slots: list[Slot], twins: Sequence[tuple[str, str]],
             ends: tuple[Sequence[str], Sequence[str]] = ((), ()),
             shown: Sequence[str] = ()) -> list[Slot]:
    """``slots`` with near-duplicate ``twins`` (pairs of source ids, or of a photo and a crop
    of it) never side by side: a slot next to its twin (or its own source) swaps with the
    farthest slot of its kind where both end up apart, or failing that one of the other kind
    (the last slot, the closing photo, moves only when no other swap helps); unchanged when
    none does. ``ends``: the photos that may be shown right before the first slot (the
    title's) and right after the last (the closing's): the first and last slots keep apart
    from them and their twins too. No swap shows a photo again (a later showing, or one of
    the photos the title ``shown``) before another's first showing that came before it."""
    pairs = {frozenset(t) for t in twins}
    out = [Slot("photo", "", 0.0), *slots, Slot("photo", "", 0.0)]
    last = len(out) - 2

    def fine(trial: list[Slot], k: int) -> bool:
        beside = [*(ends[0] if k == 1 else ()), *(ends[1] if k == last else ())]
        return _fine_at(trial[1:-1], k - 1, pairs) and not any(
            trial[k].source_id == end or frozenset((trial[k].source_id, end)) in pairs
            for end in beside)

    for i in range(1, last + 1):
        if fine(out, i):
            continue
        # a slot of its own kind's place first: the clips' even spread matters less than a
        # picture shown twice in a row, but it still matters
        order = sorted((j for j in range(1, last + 1) if j != i),
                       key=lambda j: (j == last, out[j].kind != out[i].kind, -abs(j - i)))
        for j in order:
            trial = list(out)
            trial[i], trial[j] = trial[j], trial[i]
            if all(fine(trial, k) for k in (i, j)) and _repeats_early(
                    trial, shown) <= _repeats_early(out, shown):
                out = trial
                break
    return out[1:-1]


def _repeats_early(slots: Sequence[Slot], shown: Sequence[str]) -> int:
    """Pairs of photo slots in which a repeat (a later showing of its photo, or a showing of
    a photo ``shown`` before the slots) comes before a photo's first showing: a swap that adds
    one would show a photo again before every photo was shown once."""
    repeats = out = 0
    for slot in slots:
        if slot.kind == "photo" and slot.source_id:
            if slot.occurrence or slot.source_id in shown:
                repeats += 1
            else:
                out += repeats
    return out


MIN_PHOTOS_AFTER_DROP = 3  # a photo that a clip repeats is dropped only if this many remain


def drop_twins(photos: list[PhotoSource], clip_ids: Sequence[str],
               twins: Sequence[tuple[str, str]], subject_id: str | None
               ) -> tuple[list[PhotoSource], list[str]]:
    """Photos left after dropping near-duplicates (``twins``: pairs of ids, see
    :mod:`media.analysis.dedupe`), and the ids dropped: of two twin photos the later goes (never the
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
