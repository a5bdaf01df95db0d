"""The middle of a film: which photos and clips fill it, where it cuts, and which shots show
several photos at once (pure).

Between the opening's end and the closing's start (frames), :func:`plan_middle` picks the
photos and clips and their order (:mod:`media.plan.shot_order`), puts the interludes' cards
between runs of pictures (:mod:`media.plan.interludes`), cuts on the song's grid
(:mod:`media.plan.beat_snap`) and lays repeats out with other photos (:mod:`media.plan.layouts`),
again on the new shot lengths until the plan settles. Lengths are seconds, cuts frames.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from media.analysis.scales import repeat_framings
from media.base.spec import ASPECTS
from media.cards.spec import CardSpec
from media.plan.beat_snap import snap_cuts
from media.plan.film import Film
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.interludes import (
    InterludeSpan,
    group_by_runs,
    interlude_photos,
    rules_for,
)
from media.plan.layouts import Layout, arrange, orphans, renumbered
from media.plan.montage import Middle
from media.plan.pacing import FEW_PHOTOS, SHOT_MAX_S, Pacing
from media.plan.shot_order import (
    REPEAT_SPACING_S,
    Slot,
    arc_order,
    closing_photo,
    even_pick,
    fit_lengths,
    interleave,
    item_counts,
    photo_order,
    photo_slots,
    pictures_of,
    separate,
)

LAYOUT_PASSES = 8  # plans of a long film's layouts, each on the last one's shot lengths
FEW_PHOTOS_HOLD = 1.6  # a film of FEW_PHOTOS photos or fewer holds each shot this much longer
ODD_STEP_SLACK = 1.1  # two photos' shots may hold this much over SHOT_MAX_S, not halve
CARDS_OVER_PHOTOS = 2  # the title's and the closing's: each shows a photo (a framing of it)


def plan_middle(film: Film, bounds: tuple[int, int], spans: list[InterludeSpan],
                leads: int = 0) -> tuple[Middle, list[str]]:
    """The middle of ``film`` between ``bounds`` (the opening's end and the closing's start,
    frames) around the interludes' ``spans``, with the photos of the title's ``leads`` lead
    shots (:attr:`Middle.leads`), and the ids of the photos left out for lack of room.
    Without photos or clips the opening card holds until the close."""
    open_end, close_start = bounds
    middle_s = (close_start - open_end - sum(span.frames for span in spans)) / film.fps
    min_s = min(film.pacing.min_shot_s, max(1.0, middle_s / 6))
    edges = [open_end, *(f for span in spans for f in (span.start, span.end)), close_start]
    runs_s = [(b - a) / film.fps for a, b in zip(edges[::2], edges[1::2], strict=True)]
    slots, dropped, lead_ids = _plan_slots(film, middle_s, min_s, (leads, runs_s))
    title = [film.photos[0].id] if film.photos else []
    closing = closing_photo([film.photo_by_id[p] for p in dropped if p in film.photo_by_id],
                            None)  # the closing's photo, unless an interlude takes it
    slots = separate(slots, film.spec.apart, (title, [*title, *([closing] if closing else [])]),
                     (*lead_ids, *title))
    if not slots:
        return Middle([], [0, close_start, film.frames], [], {}), dropped
    fewest = math.ceil(middle_s / film.look.layouts.hold_max_s - 1e-9)
    before = (*lead_ids, film.photos[0].id) if film.photos else lead_ids
    middle = _laid_out(film, slots, (spans, before, dropped), bounds, min_s, fewest)
    behind = {s.source_id for s in middle.slots if s.kind == "card"}  # the interludes'
    return replace(middle, leads=lead_ids), [p for p in dropped if p not in behind]


def _laid_out(film: Film, slots: list[Slot],
              around: tuple[list[InterludeSpan], Sequence[str], Sequence[str]],
              bounds: tuple[int, int], min_s: float, fewest: int) -> Middle:
    """``slots`` cut around the interludes' spans and laid out after the title's photos, the
    photos left out for room spare for the interludes (``around``): repeats that would show
    the same picture again alone are left out (while ``fewest`` slots remain) and shots of
    several photos hold longer, plan after plan until it settles (at most
    :data:`LAYOUT_PASSES`)."""
    spans, before, spare = around
    fps, rules, twins = film.fps, film.look.layouts, film.spec.apart
    weights = [1.0] * len(slots)
    for _ in range(LAYOUT_PASSES):
        weighted = [replace(s, nominal_s=s.nominal_s * w) for s, w in zip(slots, weights,
                                                                          strict=True)]
        middle_cuts, placed, cards = _cuts_around(weighted, spans, bounds, min_s, fps,
                                                  film.song.cut_grid)
        cuts = [0, bounds[0], *middle_cuts, bounds[1], film.frames]
        placed = _interlude_backdrops(film, placed, (cuts, cards), (before, spare))
        where = {id(slot): k for k, slot in enumerate(weighted)}  # shots an interlude moved:
        moved = [where[id(slot)] for slot in placed if slot.kind != "card"]  # each one's slot
        arranged, layouts = _layouts(film, placed,
                                     [(b - a) / fps for a, b in pairwise(cuts[1:-1])], before)
        at = [k for k, slot in enumerate(placed) if slot.kind != "card"]
        held = [1.0] * len(slots)
        for k, slot in zip(at, moved, strict=True):
            held[slot] = 1.0 + rules.hold_per_photo * len(layouts[k].partners)
        gone = {moved[k] for k in _orphans_to_drop(
            [slots[k] for k in moved], [at.index(k) for k in orphans(
                arranged, layouts, film.photo_by_id, film.subject_id)],
            (twins, before[-1:]), fewest)}
        if not gone and held == weights:
            break
        slots = renumbered([s for k, s in enumerate(slots) if k not in gone])
        weights = [w for k, w in enumerate(held) if k not in gone]
    return Middle(arranged, cuts, layouts, cards)


def _clip_slots(clips: Sequence[ClipSource], count: int, pacing: Pacing) -> list[Slot]:
    """``count`` clip slots cycling through ``clips``; lengths capped by the clip's length (less
    the transition overlap, which also shows the clip)."""
    slots = []
    for i in range(count):
        clip = clips[i % len(clips)]
        usable = max(0.5, clip.duration_s - pacing.transition_s)
        slots.append(Slot("clip", clip.id, min(pacing.clip_s, usable), usable, i // len(clips)))
    return slots


def _plan_slots(film: Film, middle_s: float, min_s: float,
                around: tuple[int, list[float]]) -> tuple[list[Slot], list[str], tuple[str, ...]]:
    """The middle shots of ``middle_s`` seconds in order, each at least ``min_s``, with
    nominal lengths; the ids of photos left out; and the photos of the title's lead shots
    (``around``: how many leads, and the seconds of each run of pictures between the
    interludes; :func:`_lead_photos`). The title stands over the first photo (the subject)
    after its leads: those are their photos' first showings, so the middle shows every other
    photo first (see :func:`media.plan.shot_order.photo_slots`)."""
    photos, clips, pacing = film.photos, film.spec.clips, film.pacing
    leads, runs_s = around
    n_p, n_c = item_counts(len(photos), len(clips), middle_s, min_s)
    kept = arc_order([photos[i] for i in even_pick(n_p, len(photos))]) if n_p else []
    left_out = [p for p in photos if p not in kept]
    lead_ids = _lead_photos(kept, left_out, leads, film.spec.apart)
    kept = _spares_for_leads(kept, left_out, lead_ids)
    dropped = [p.id for p in photos if p not in kept and p.id not in lead_ids]
    chosen_clips = [clips[i] for i in even_pick(n_c, len(clips))] if n_c else []
    clip_total = sum(min(pacing.clip_s, c.duration_s) for c in chosen_clips)
    photo_slot_list: list[Slot] = []
    if kept:
        photo_s = max(0.0, middle_s - clip_total)
        most = math.floor(max(0.0, middle_s - len(chosen_clips) * min_s) / min_s)
        hold_s = _hold_s(pacing, kept, max(photo_s, min_s), CARDS_OVER_PHOTOS + len(runs_s) - 1)
        count = _photo_count(len(kept) - 1 - sum(p.id in lead_ids for p in kept),
                             max(photo_s, min_s), hold_s, most)
        step = _count_step(kept, film.spec.apart)
        if step == 2:  # the other picture between the title's and the closing's: an odd
            count = _odd_count(max(photo_s, min_s) / hold_s, most)  # count
        run_s = [r * photo_s / middle_s for r in runs_s]
        count = _within_longest(count, run_s, most, step)
        closer = None if dropped else _closing_spare(
            kept, lead_ids, count, (max(photo_s, min_s) / hold_s, run_s))
        if closer is not None:  # the closing stands over it: no photo shown twice
            kept, count = [p for p in kept if p is not closer], count - 1
            dropped.append(closer.id)
        around = ((*lead_ids, kept[0].id), closer.id if closer else kept[0].id)
        count = _showing_every(kept, (count, most, step), max(photo_s, min_s), around,
                               film.spec.apart)
        spacing = _spacing(max(photo_s, min_s), count)
        photo_slot_list = photo_slots(kept, count, pacing.shot_s, spacing=spacing,
                                      subject_id=film.subject_id, max_s=SHOT_MAX_S,
                                      around=around, twins=film.spec.apart)
        clip_count = len(chosen_clips)
    else:
        clip_count = min(max(len(chosen_clips), round(middle_s / pacing.clip_s)),
                         max(1, math.floor(middle_s / min_s))) if chosen_clips else 0
    slots = interleave(photo_slot_list,
                       _clip_slots(chosen_clips, clip_count, pacing) if chosen_clips else [])
    return (_stand_ins_first(slots, _stand_in_clips(film), (*lead_ids, *kept[:1])), dropped,
            lead_ids)


def _count_step(kept: Sequence[PhotoSource], twins: Sequence[tuple[str, str]]) -> int:
    """2 when ``kept`` shows two pictures (two photos, or a photo and the two of another
    picture: ``twins``, see :func:`media.plan.shot_order.pictures_of`): they alternate
    between the title's and the closing's, so the middle's count is odd; else 1."""
    pictures = pictures_of([p.id for p in kept], twins)
    return 2 if len(kept) == 2 or len(set(pictures.values())) == 2 else 1


def _showing_every(kept: Sequence[PhotoSource], counts: tuple[int, int, int], photo_s: float,
                   around: tuple[Sequence[str], str], twins: Sequence[tuple[str, str]]) -> int:
    """The photo shots' count (``counts``: the count, the most, the step), raised a step at a
    time (at most to the most) until the showings of ``photo_s`` seconds
    (:func:`media.plan.shot_order.photo_order`) show every photo of ``kept`` the title and the
    closing (``around``) do not: spread by picture, a crop of the title's photo waits for its
    picture's turn, which may come only after the others'."""
    count, most, step = counts
    ids = [p.id for p in kept]
    unseen = set(ids) - {*around[0], around[1]}
    while count + step <= most and not unseen <= set(
            photo_order(ids, count, _spacing(photo_s, count), around, twins)):
        count += step
    return count


def _spacing(photo_s: float, count: int) -> int:
    """How many showings apart a photo's repeats come: :data:`REPEAT_SPACING_S` over the
    length of each of ``count`` shots in ``photo_s`` seconds."""
    return math.ceil(REPEAT_SPACING_S / (photo_s / count))


def _closing_spare(kept: Sequence[PhotoSource], lead_ids: tuple[str, ...], count: int,
                   room: tuple[float, Sequence[float]]) -> PhotoSource | None:
    """The photo the middle leaves to the closing when it would show every other photo once
    in its ``count`` shots (none twice) and the closing would then show the title's photo
    again: the arc's closer (the last of ``kept`` neither the title's nor a lead's). None
    when the middle repeats photos anyway or would keep fewer than two shots (a film is not
    its title, one photo and its closing), and when one shot fewer
    would hold longer than the film holds a photo before it repeats one (``room``: the
    photos' time over that hold, see :func:`_hold_s`) or could not cut its runs (``room``'s
    seconds of each) into shots of at most :data:`media.plan.pacing.SHOT_MAX_S`."""
    holds, runs_s = room
    fresh = [p for p in kept[1:] if p.id not in lead_ids]
    if count != len(fresh) or count < 3 or math.ceil(holds - 1e-9) > count - 1:
        return None
    if sum(math.ceil(r / SHOT_MAX_S - 1e-9) for r in runs_s) > count - 1:
        return None
    return fresh[-1]


def _stand_in_clips(film: Film) -> set[str]:
    """The clips that alone show a picture the film left out: made from a photo dropped as
    their twin, which no photo the film keeps shows too."""
    kept = set(film.photo_by_id)
    clips = {c.id for c in film.spec.clips}
    twins: dict[str, set[str]] = {}
    for a, b in film.spec.near_duplicates:
        twins.setdefault(a, set()).add(b)
        twins.setdefault(b, set()).add(a)
    return {c for p in film.twins_dropped if not twins.get(p, set()) & kept
            for c in twins.get(p, set()) & clips}


def _stand_ins_first(slots: list[Slot], clip_ids: set[str], before: Sequence[str]
                     ) -> list[Slot]:
    """``slots`` with the first showing of each clip in ``clip_ids`` (clips that stand in for
    a photo they were made from, dropped as its twin) moved before the last photo shown for
    the first time (``before``: the photos the title showed) when it came after a repeat, so
    the first round shows that picture too, and a chorus montage's flashes (which wait for
    every photo's first showing) come after it."""
    seen = set(before)
    repeat = last_new = None
    for k, slot in enumerate(slots):
        if slot.kind == "photo":
            if slot.source_id in seen:
                repeat = k
                break
            seen.add(slot.source_id)
            last_new = k
    if repeat is None or last_new is None:
        return slots
    late = [k for k, slot in enumerate(slots) if slot.kind == "clip" and k > repeat
            and slot.occurrence == 0 and slot.source_id in clip_ids]
    if not late:
        return slots
    moved = [slots[k] for k in late]
    rest = [slot for k, slot in enumerate(slots) if k not in late]
    return [*rest[:last_new], *moved, *rest[last_new:]]


def _lead_photos(kept: list[PhotoSource], left_out: list[PhotoSource],
                 leads: int, apart: Sequence[tuple[str, str]] = ()) -> tuple[str, ...]:
    """The photos of the title's ``leads`` lead shots, each that photo's first showing
    (never the subject, the first of ``kept``: the title stands over it). Photos that show who
    the film is for come first (:func:`_shows_who`): the occasion's words over a rabbit or an
    empty beach before the first face is a template's, not this person's film. Among equals,
    photos the middle has no room for first (``left_out``), then the ``kept`` ones (arc order)
    from the last before the closer back; photos ``apart`` from the subject's or from a lead
    already chosen (pairs of ids: a crop of it) only when no other is left, and then in the
    order (of two) that keeps them from following each other or preceding the subject's."""
    if not kept:
        return ()
    pool = [p for p in (*left_out, *reversed(kept[1:-1]), *kept[-1:]) if p.id != kept[0].id]
    ranked = [p.id for p in sorted(pool, key=lambda p: not _shows_who(p))]
    pairs = {frozenset(p) for p in apart}
    chosen: list[str] = []
    for photo_id in ranked:
        if len(chosen) < leads and not any(frozenset((photo_id, other)) in pairs
                                           for other in (kept[0].id, *chosen)):
            chosen.append(photo_id)
    chosen += [p for p in ranked if p not in chosen][:leads - len(chosen)]
    ordered = tuple(p for p in ranked if p in chosen)
    return min((ordered, ordered[::-1]), key=lambda leads_order: sum(
        frozenset(step) in pairs for step in pairwise((*leads_order, kept[0].id))))


def _shows_who(photo: PhotoSource) -> bool:
    """True when ``photo`` shows a person (a face the detector is sure of) or the film's
    animal subject again (:attr:`PhotoSource.with_subject`)."""
    return photo.face_fraction > 0 or photo.with_subject


def _spares_for_leads(kept: list[PhotoSource], left_out: list[PhotoSource],
                      lead_ids: tuple[str, ...]) -> list[PhotoSource]:
    """``kept`` with each photo shown first as a lead (but the subject and the closer) given
    up to a photo the middle had no room for, in its place: the leads took the place of no
    photo, so the film still shows as many of the customer's photos."""
    spares = [p for p in left_out if p.id not in lead_ids]
    out = list(kept)
    for k in range(1, len(out) - 1):
        if out[k].id in lead_ids and spares:
            out[k] = spares.pop(0)
    return out


def _odd_count(ideal: float, most: int) -> int:
    """The odd number of shots nearest ``ideal`` (the larger on a tie), at most ``most``
    where that is at least 1: two photos alternate between the title's and the closing's."""
    count = 2 * math.floor((ideal - 1) / 2 + 0.5) + 1
    while count > max(1, most):
        count -= 2
    return max(1, count)


def _hold_s(pacing: Pacing, photos: Sequence[PhotoSource], photo_s: float,
            cards: int) -> float:
    """The longest a photo shot holds before photos repeat (seconds): the pacing's ``hold_s``;
    in a film of :data:`FEW_PHOTOS` ``photos`` or fewer :data:`FEW_PHOTOS_HOLD` times that,
    and longer, up to :data:`media.plan.pacing.SHOT_MAX_S`, when ``photo_s`` seconds of them
    would otherwise show a photo more often than it can be framed anew
    (:func:`media.analysis.scales.repeat_framings`, less the ``cards`` shown over them: the
    title, the closing, the interludes)."""
    if len(photos) > FEW_PHOTOS:
        return pacing.hold_s
    hold_s = pacing.hold_s * FEW_PHOTOS_HOLD
    fresh = framed_anew([repeat_framings((p.width, p.height), ASPECTS) for p in photos])
    return max(hold_s, min(SHOT_MAX_S, photo_s / max(1, fresh - cards)))


def framed_anew(framings: Sequence[int]) -> int:
    """How many showings photos of these ``framings`` (new framings each) allow, each one framed
    anew, no photo twice in a row: all their framings, while the others can stand between a
    photo's showings (two photos alternate: at most one more than twice the fewer)."""
    total = sum(framings)
    if len(framings) < 2:
        return total
    return min(total, 2 * (total - max(framings)) + 1)


def _within_longest(count: int, runs_s: Sequence[float], most: int, step: int) -> int:
    """``count`` photo shots, raised by ``step`` at a time (at most to ``most``) until every
    run of them (``runs_s``: each run's seconds of photos, between the interludes) can be cut
    into shots no longer than :data:`media.plan.pacing.SHOT_MAX_S` (two photos alternate, two
    more shots at a time: their runs may hold :data:`ODD_STEP_SLACK` longer)."""
    longest = SHOT_MAX_S * (ODD_STEP_SLACK if step > 1 else 1.0)
    fewest = sum(math.ceil(run_s / longest - 1e-9) for run_s in runs_s)
    while count < fewest and count + step <= most:
        count += step
    return count


def _photo_count(photos: int, photo_s: float, hold_s: float, most: int) -> int:
    """How many photo shots fill ``photo_s`` seconds: every photo once, held up to ``hold_s``
    before any is shown again; never more than ``most``."""
    return max(1, min(max(photos, math.ceil(photo_s / hold_s - 1e-9)), most))


def _run_cuts(slots: list[Slot], start: int, end: int, min_s: float, fps: int,
              grid: tuple[int, ...]) -> list[int]:
    """The cuts between ``slots`` filling the frames ``start..end``, on the beat grid where it
    allows (see :func:`media.plan.beat_snap.snap_cuts`)."""
    lengths = fit_lengths(slots, (end - start) / fps, min_s)
    targets = [start + fps * sum(lengths[:k + 1]) for k in range(len(slots) - 1)]
    mins = [max(round(min_s * fps * 0.8), 4)] * len(slots)
    return snap_cuts(targets, start, end, mins, grid)


def _cuts_around(slots: list[Slot], spans: list[InterludeSpan], bounds: tuple[int, int],
                 min_s: float, fps: int, grid: tuple[int, ...]
                 ) -> tuple[list[int], list[Slot], dict[int, CardSpec]]:
    """The middle's cuts between ``bounds``, its shots in order (``slots`` in runs of pictures
    with an interlude's slot between two runs) and the interludes' cards by index into them.
    The interludes keep the frames they were placed on; an interlude whose runs would have no
    shot is left out (the last first)."""
    open_end, close_start = bounds
    while spans:
        edges = [open_end, *(f for span in spans for f in (span.start, span.end)), close_start]
        runs = list(zip(edges[::2], edges[1::2], strict=True))
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


def _interlude_backdrops(film: Film, slots: list[Slot],
                         cut: tuple[list[int], dict[int, CardSpec]],
                         shown: tuple[Sequence[str], Sequence[str]]) -> list[Slot]:
    """``slots`` (cut at ``cut[0]``, the interludes' cards ``cut[1]`` by slot index) with each
    interlude's slot naming the photo behind it (see
    :func:`media.plan.interludes.interlude_photos`) among those that keep the repeat rules
    (:func:`_backdrops_allowed`; ``shown``: the title's photos and those left out for room),
    else none ("": the card alone on its backdrop). An interlude before every photo was shown
    stands over the photo the middle shows last for the first time; when that photo's shot
    comes right after it, that shot trades places with the next (:func:`_made_room`)."""
    cuts, cards = cut
    if not cards:
        return slots
    photos = film.photos
    apart = round(rules_for(next(iter(cards.values()))).photo_apart_s * film.fps)
    out = list(slots)
    for i in sorted(cards):
        everyone = {p.id for p in photos}
        allowed = _backdrops_allowed(out, i, shown, everyone)
        if not allowed:
            out = _made_room(out, i, shown[0], film.spec.apart)
            allowed = _backdrops_allowed(out, i, shown, everyone)
        allowed = _apart_from_beside(allowed, out, i, (shown[0][-1:], film.spec.apart))
        chosen = interlude_photos([(s.kind, s.source_id) for s in out], cuts, [i],
                                  [p for p in photos if p.id in allowed],
                                  film.subject_id, apart, photos[0].id if photos else None)
        out[i] = Slot(out[i].kind, chosen.get(i, ""), out[i].nominal_s)
    return out


def _apart_from_beside(allowed: set[str], slots: list[Slot], i: int,
                       around: tuple[Sequence[str], Sequence[tuple[str, str]]]) -> set[str]:
    """``allowed`` without the photos that must stay apart from a photo the shots beside slot
    ``i`` show (``around``: the title's photo, beside the first and the last slot, and the
    pairs kept apart): none left, the card stands alone on its backdrop."""
    ends, apart = around
    pairs = {frozenset(p) for p in apart}
    beside = {s.source_id for s in (*slots[max(0, i - 1):i], *slots[i + 1:i + 2])}
    if i == 0 or i == len(slots) - 1:
        beside |= set(ends)
    return {p for p in allowed if not any(frozenset((p, b)) in pairs for b in beside)}


def _made_room(slots: list[Slot], i: int, before: Sequence[str],
               twins: Sequence[tuple[str, str]] = ()) -> list[Slot]:
    """``slots`` with the shot right after the interlude at ``i`` traded with the one after
    it when the first is its photo's first showing, the second a repeat, and neither then
    shows the photo of a shot beside it nor one of its ``twins`` (a photo and a crop of it);
    else unchanged."""
    j, k = i + 1, i + 2
    if k >= len(slots) or slots[j].kind != "photo" or slots[k].kind != "photo":
        return slots
    seen = {*before, *(s.source_id for s in slots[:j])}
    first, second = slots[j].source_id, slots[k].source_id
    after = slots[k + 1].source_id if k + 1 < len(slots) else (before[-1:] or [""])[0]
    pairs = {frozenset(t) for t in twins}
    if first in seen or second not in seen or first == after or second == first or any(
            frozenset(step) in pairs for step in ((second, first), (first, after))):
        return slots
    out = list(slots)
    out[j], out[k] = slots[k], slots[j]
    return out


def _backdrops_allowed(slots: list[Slot], i: int, shown: tuple[Sequence[str], Sequence[str]],
                       everyone: set[str]) -> set[str]:
    """The photos the interlude at slot ``i`` may stand over: never one a shot beside it
    shows (the title's before the first slot, the closing's after the last); once every
    photo was shown (``shown[0]``: the title's), any other; before that, a photo left out
    for room (``shown[1]``) not behind another card yet, or the photo the middle shows last
    for the first time (its shot then comes once every other was seen) when no such photo is
    left."""
    before, spare = shown
    ends = list(before[-1:])
    beside = {s.source_id for s in (*slots[max(0, i - 1):i], *slots[i + 1:i + 2])}
    if i == 0 or i == len(slots) - 1:
        beside |= set(ends)
    seen = {*before, *(s.source_id for s in slots[:i])}
    taken = {s.source_id for s in slots if s.kind == "card"}  # behind another interlude
    if everyone <= seen:
        return (everyone - beside - taken) or (everyone - beside)
    firsts: dict[str, int] = {}
    for j, slot in enumerate(slots):
        if slot.kind == "photo":
            firsts.setdefault(slot.source_id, j)
    allowed = set(spare) - taken - beside
    if allowed:  # a photo never shown otherwise: showing the middle's own photo twice while
        return allowed  # one left out for room stays unseen would break the first round
    last_new = max(((j, p) for p, j in firsts.items() if p not in seen), default=None)
    if last_new is not None and last_new[0] > i + 1:
        allowed.add(last_new[1])
    return allowed - beside


def _layouts(film: Film, slots: list[Slot], lengths: list[float],
             before: Sequence[str]) -> tuple[list[Slot], list[Layout]]:
    """The slots and their layouts (:func:`media.plan.layouts.arrange`) in the film's look,
    partners drawn from the photos the film shows (``before``: those the title showed)."""
    shown = {s.source_id for s in slots if s.kind == "photo"}
    return arrange(slots, {p.id: p for p in film.photos if p.id in shown}, lengths,
                   film.look.layouts, subject_id=film.subject_id,
                   twins=film.spec.apart, before=before)


def _orphans_to_drop(slots: list[Slot], found: list[int],
                     apart: tuple[tuple[tuple[str, str], ...], tuple[str, ...]],
                     fewest: int) -> set[int]:
    """Which of the ``found`` slots (indices into ``slots``: repeats that would show their
    photo alone again, see :func:`media.plan.layouts.orphans`) to leave out: each while at
    least ``fewest`` slots remain and its neighbours then differ (nor are twins: ``apart``
    holds the twins and the closing's photo, the last slot's neighbour after it)."""
    twins, closing = apart
    pairs = {frozenset(t) for t in twins}
    gone: set[int] = set()
    for k in found:
        kept = [j for j in range(len(slots)) if j not in gone and j != k]
        if len(kept) < fewest or k == 0:
            continue
        before = max(j for j in kept if j < k)
        after = min((j for j in kept if j > k), default=None)
        a = slots[before].source_id
        b = slots[after].source_id if after is not None else (closing or ("",))[0]
        if a != b and frozenset((a, b)) not in pairs:
            gone.add(k)
    return gone
