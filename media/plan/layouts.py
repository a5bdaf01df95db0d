"""Layouts that show two or three photos at once, as plan rules (pure: photos are read as data).

A photo shot with a ``partner_id`` (and a ``second_id``) shows its photo and its partners in
one frame, each in its own cell with its own gentle move (drawn by :mod:`media.frames.split`).
The layouts are registered in :mod:`media.plan.layout_kinds` (split, triptych and inset, which a
repeat may become; the portrait pair, a tall photo beside another in 16:9): what the rules below
ask of a kind is what it was registered with.

When a film is long for its photos (photos must repeat), a repeat of a photo alone must show a
new picture: closer by 1.5x or more than every earlier showing alone
(:func:`media.analysis.scales.fresh_showings`, as many as the photo's resolution and faces allow).
A repeat past that budget is shown as a layout with other photos (the look's ``kinds``, the
least used first), and other repeats as well while at most ``split_share`` of them have; one
that finds no partners is an orphan (:func:`orphans`): the planner leaves it out and holds the
other shots longer (:mod:`media.plan.slots`).

Rules: the first and last photo shots (the subject opens, the warmest photo closes) and the
subject's mid-film return are never layouts; two layouts in a row are never of the same kind,
and few follow each other (:data:`MOST_IN_A_ROW`); every photo fills its cell with a crop
that holds its faces (:func:`media.plan.layout_kinds.fills`); a
partner is never the photo itself, its twin, or the photo of a neighbouring shot; the same set
of photos never shows together twice; and a partner keeps the repeat spacing of
:func:`media.plan.shot_order.showing_order` to every other showing of it
(:data:`media.plan.shot_order.REPEAT_SPACING_S`, plus :data:`SNAP_SLACK_S`), or the shot stays
single. The look's ``[layouts]`` say how many optional repeats share the frame, which kinds
it uses (:class:`media.design.looks.Layouts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, combinations

from media.analysis.scales import fresh_showings
from media.base.spec import ASPECTS
from media.design import looks
from media.plan.inputs import PhotoSource
from media.plan.layout_kinds import PORTRAIT_PAIR, cell_ratio_of, is_tall, layout_kind
from media.plan.shot_order import REPEAT_SPACING_S, Slot

SINGLE = ""  # a shot that shows its photo alone: no layout
SNAP_SLACK_S = 1.0  # cuts move onto beats after layouts are planned: a partner keeps this more
# Layouts in a row at most (each of another kind than the one before): a long film from few
# photos spends its second half mostly on them, between the photos that still look new alone.
MOST_IN_A_ROW = 6


@dataclass(frozen=True)
class Layout:
    """How one middle shot shows its photo: ``kind`` (:data:`SINGLE` or a layout registered in
    :mod:`media.plan.layout_kinds`), its partner
    (``partner_id``: the second photo of a split or pair, the backdrop of an inset; None when
    single) and a triptych's third photo (``second_id``)."""

    kind: str = SINGLE
    partner_id: str | None = None
    second_id: str | None = None

    @property
    def partners(self) -> tuple[str, ...]:
        """The photos shown beside the shot's own."""
        return tuple(p for p in (self.partner_id, self.second_id) if p)


def splits_in(layout: str, portrait_aspect: bool) -> bool:
    """True when a shot of ``layout`` shows several photos in an aspect (``portrait_aspect``:
    the 9:16 film): every layout in both, but one registered for 16:9 only (the portrait
    pair)."""
    return bool(layout) and layout_kind(layout).splits(portrait_aspect)


def cells_of(layout: str) -> int:
    """How many photos a shot of ``layout`` shows at once (1 when single)."""
    return 1 + (layout_kind(layout).partners if layout else 0)


def cell_ratio(layout: str, portrait_aspect: bool) -> float:
    """Width over height of a cell of ``layout`` (its photos' cells; an inset's backdrop fills
    the frame) in the 16:9 or the 9:16 film, gutters left out."""
    return cell_ratio_of(layout_kind(layout).across if layout else 1, portrait_aspect)


def crops_whole(photo: PhotoSource, layout: str) -> bool:
    """True when every cell ``layout`` puts ``photo`` in as its own photo (see
    :func:`splits_in`; an inset's print) can be filled by a crop of it that holds its faces."""
    return layout_kind(layout).holds(photo)


def fits_as_partner(photo: PhotoSource, layout: str) -> bool:
    """True when ``photo`` can be a partner in ``layout``: a cell of a split, pair or
    triptych (:func:`crops_whole`), or the backdrop of an inset."""
    return layout_kind(layout).takes(photo)


def fresh_alone(photo: PhotoSource, only: bool = False) -> int:
    """How many showings of ``photo`` alone can each show a new picture in both films
    (:func:`media.analysis.scales.fresh_showings`, its faces held; ``only``: the film's one photo,
    also shown whole)."""
    hold = ((photo.hold_w * photo.width, photo.hold_h * photo.height)
            if photo.hold_w > 0 and photo.hold_h > 0 else None)
    return fresh_showings((photo.width, photo.height), ASPECTS, hold, whole=only)


def _kept_single(i: int, slots: Sequence[Slot], photos: Mapping[str, PhotoSource],
                 subject_id: str | None) -> bool:
    """True for the slots never shown as a layout: the first photo shot, the last one when
    it is its photo's first showing, and the subject's return (its second showing) when its
    photo has a new picture for it (else the subject comes back beside other photos, the
    first of them)."""
    photo_slots = [k for k, s in enumerate(slots) if s.kind == "photo"]
    slot = slots[i]
    return (not photo_slots or i == photo_slots[0]
            or (i == photo_slots[-1] and slot.occurrence == 0)
            or (slot.source_id == subject_id and slot.occurrence == 1
                and fresh_alone(photos[slot.source_id], len(photos) == 1) >= 2))


def _reserved(slots: Sequence[Slot], photos: Mapping[str, PhotoSource],
              subject_id: str | None) -> dict[str, int]:
    """How many showings alone each photo's kept single slots (:func:`_kept_single`) take."""
    out: dict[str, int] = {}
    for i, slot in enumerate(slots):
        if slot.kind == "photo" and slot.source_id in photos and _kept_single(i, slots, photos,
                                                                              subject_id):
            out[slot.source_id] = out.get(slot.source_id, 0) + 1
    return out


def plan_layouts(slots: Sequence[Slot], photos: Mapping[str, PhotoSource],
                 lengths_s: Sequence[float], rules: looks.Layouts, *, subject_id: str | None,
                 twins: Sequence[tuple[str, str]] = (), before: Sequence[str] = ()
                 ) -> list[Layout]:
    """One :class:`Layout` per slot of ``slots`` (see :func:`arrange`; no slot gives its place
    to another photo)."""
    return arrange(slots, photos, lengths_s, rules, subject_id=subject_id, twins=twins,
                   substitute=False, before=before)[1]


def arrange(slots: Sequence[Slot], photos: Mapping[str, PhotoSource],
            lengths_s: Sequence[float], rules: looks.Layouts, *, subject_id: str | None,
            twins: Sequence[tuple[str, str]] = (), substitute: bool = True,
            before: Sequence[str] = ()) -> tuple[list[Slot], list[Layout]]:
    """The slots and one :class:`Layout` per slot (the module's rules): a showing past its
    photo's fresh showings alone (:func:`fresh_alone`, the kept single slots' counted first) is
    a layout of one of the look's ``rules.kinds`` where partners allow, else a layout around
    another photo there (the least shown that makes one: the slot then shows that photo);
    other repeats are layouts while at most ``rules.split_share`` of them are (none when
    ``kinds`` is empty); with ``rules.portrait_pairs`` a tall photo's showing pairs in 16:9.
    ``lengths_s`` are the slots' lengths (seconds), ``twins`` pairs of ids showing the same
    picture; without ``substitute`` no slot gives its place to another photo. No shot shares
    the frame before every photo was shown once (``before``: the photos the title showed, its
    own last; a partner would be a repeat, or a first showing its own slot then repeats), and
    the last shot's partners are never the title's photo (the closing's too)."""
    kinds, split_share, portrait_pairs = rules.kinds, rules.split_share, rules.portrait_pairs
    closing = [Slot("card", before[-1], 0.0)] if before else []  # the last slot's neighbour
    starts = [0.0, *accumulate(lengths_s)][:len(slots) + len(closing)]
    slots = [*slots, *closing]
    layouts = [Layout()] * len(slots)
    sets: set[frozenset[str]] = set()
    twin_pairs = {frozenset(t) for t in twins}
    alone: dict[str, int] = {}
    used: dict[str, int] = {}
    reserved = _reserved(slots, photos, subject_id)
    repeats = made = 0

    def must_share(photo: PhotoSource) -> bool:
        return (alone.get(photo.id, 0) + reserved.get(photo.id, 0)
                >= fresh_alone(photo, len(photos) == 1))

    def place(i: int, photo_id: str, layout: Layout) -> None:
        layouts[i] = layout
        sets.add(frozenset((photo_id, *layout.partners)))
        used[layout.kind] = used.get(layout.kind, 0) + 1

    unseen = {s.source_id for s in slots if s.kind == "photo" and s.source_id in photos}
    unseen -= set(before)
    for i, slot in enumerate(slots):
        photo = photos.get(slot.source_id) if slot.kind == "photo" else None
        if photo is None:
            continue
        first_round = bool(unseen)
        unseen.discard(photo.id)
        if first_round:
            if not _kept_single(i, slots, photos, subject_id):  # (counted in ``reserved``)
                alone[photo.id] = alone.get(photo.id, 0) + 1
            continue
        if _kept_single(i, slots, photos, subject_id):
            # alone in 9:16; a tall photo still pairs in 16:9 rather than sit small over its
            # own blur (the pet sample's window of the two dogs opened the middle so)
            layout = _first_layout(i, slots, layouts, photos, starts, sets, twin_pairs,
                                   [PORTRAIT_PAIR]) if portrait_pairs and is_tall(photo) else None
            if layout is not None and subject_id not in layout.partners:  # the subject: the
                place(i, photo.id, layout)  # title's photo, and its own return kept for later
            continue
        must = must_share(photo)
        # a repeat that could show something new alone shares the frame only when the next
        # two shots need no layout (layouts in a row are few): those that must come first
        optional = not must and slot.occurrence > 0 and not any(
            slots[j].kind == "photo" and slots[j].source_id in photos
            and not _kept_single(j, slots, photos, subject_id)
            and must_share(photos[slots[j].source_id]) for j in (i + 1, i + 2)
            if j < len(slots))
        repeats += optional
        heroes = [photo]
        if must and kinds and substitute:  # another photo may take the slot (see above)
            heroes += sorted((p for p in photos.values() if p.id != photo.id),
                             key=lambda p: (sum(p.id in _shown_at(slots, layouts, j)
                                                for j in range(len(slots))), p.id))
        for hero in heroes:
            if hero is not photo and not _hero_fits(i, hero.id, slots, layouts, starts,
                                                    twin_pairs):
                continue
            wanted = [k for k in kinds if layout_kind(k).repeat] if (
                must or (optional and made < split_share * repeats - 1e-9)) else []
            wanted.sort(key=lambda k: (used.get(k, 0), list(kinds).index(k)))
            if portrait_pairs and is_tall(hero) and not must:  # alone in 9:16
                wanted.append(PORTRAIT_PAIR)
            if hero is not photo:
                slots[i] = Slot(slot.kind, hero.id, slot.nominal_s, slot.max_s, 1)
            layout = _first_layout(i, slots, layouts, photos, starts, sets, twin_pairs, wanted)
            if layout is not None:
                place(i, hero.id, layout)
                made += optional and layout.kind != PORTRAIT_PAIR
                break
            slots[i] = slot
        if layouts[i].kind in (SINGLE, PORTRAIT_PAIR):  # 9:16 shows a pair's photo alone
            alone[photo.id] = alone.get(photo.id, 0) + 1
    return renumbered(slots[:len(slots) - len(closing)]), layouts[:len(slots) - len(closing)]


def _first_layout(i: int, slots: Sequence[Slot], layouts: Sequence[Layout],
                  photos: Mapping[str, PhotoSource], starts: Sequence[float],
                  sets: set[frozenset[str]], twins: set[frozenset[str]],
                  wanted: Sequence[str]) -> Layout | None:
    """The first of the ``wanted`` layouts slot ``i``'s photo can take with partners."""
    photo = photos[slots[i].source_id]
    for kind in wanted:
        if not _may_follow(layouts, i, kind) or not crops_whole(photo, kind):
            continue
        partners = _partners(i, slots, layouts, photos, starts, sets, twins, kind)
        if partners is not None:
            return Layout(kind, *partners)
    return None


def _hero_fits(i: int, photo_id: str, slots: Sequence[Slot], layouts: Sequence[Layout],
               starts: Sequence[float], twins: set[frozenset[str]]) -> bool:
    """True when ``photo_id`` may take slot ``i``'s place: not shown by a neighbouring slot
    (nor its twin), and kept the repeat spacing from its other showings."""
    near = {p for j in (i - 1, i + 1) if 0 <= j < len(slots) for p in _shown_at(slots, layouts, j)}
    if photo_id in near or any(frozenset((photo_id, p)) in twins for p in near):
        return False
    spacing = REPEAT_SPACING_S + SNAP_SLACK_S
    return all(abs(starts[i] - starts[j]) >= spacing for j in range(len(slots))
               if j != i and photo_id in _shown_at(slots, layouts, j))


def renumbered(slots: Sequence[Slot]) -> list[Slot]:
    """``slots`` with each photo's ``occurrence`` counted again in order."""
    seen: dict[str, int] = {}
    out = []
    for slot in slots:
        if slot.kind == "photo" and slot.occurrence != seen.get(slot.source_id, 0):
            slot = Slot(slot.kind, slot.source_id, slot.nominal_s, slot.max_s,
                        seen.get(slot.source_id, 0))
        out.append(slot)
        if slot.kind == "photo":
            seen[slot.source_id] = seen.get(slot.source_id, 0) + 1
    return out


def orphans(slots: Sequence[Slot], layouts: Sequence[Layout],
            photos: Mapping[str, PhotoSource], subject_id: str | None) -> list[int]:
    """The slots that show their photo alone once more than it has new pictures for
    (:func:`fresh_alone`, the first and last shots' and the subject's return's counted first)
    though they could have been layouts: the planner leaves them out where it can (never a
    photo's first showing in the middle)."""
    alone = _reserved(slots, photos, subject_id)
    out = []
    seen: set[str] = set()
    for i, (slot, layout) in enumerate(zip(slots, layouts, strict=True)):
        photo = photos.get(slot.source_id) if slot.kind == "photo" else None
        first = photo is not None and photo.id not in seen
        seen.update(_shown_at(slots, layouts, i))
        if (photo is None or layout.kind not in (SINGLE, PORTRAIT_PAIR)
                or _kept_single(i, slots, photos, subject_id)):
            continue
        if not first and alone.get(photo.id, 0) >= fresh_alone(photo, len(photos) == 1):
            out.append(i)
        alone[photo.id] = alone.get(photo.id, 0) + 1
    return out


def _may_follow(layouts: Sequence[Layout], i: int, kind: str) -> bool:
    """True when slot ``i`` may be a ``kind``: never right after a layout of the same kind,
    never more than :data:`MOST_IN_A_ROW` layouts in a row."""
    before = [layouts[j].kind for j in range(max(0, i - MOST_IN_A_ROW), i)]
    if before and before[-1] == kind:
        return False
    return len(before) < MOST_IN_A_ROW or not all(before)


def _shown_at(slots: Sequence[Slot], layouts: Sequence[Layout], j: int) -> set[str]:
    """The photos slot ``j`` shows (its own, and its partners)."""
    return {slots[j].source_id, *layouts[j].partners}


def _partners(i: int, slots: Sequence[Slot], layouts: Sequence[Layout],
              photos: Mapping[str, PhotoSource], starts: Sequence[float],
              sets: set[frozenset[str]], twins: set[frozenset[str]],
              kind: str) -> tuple[str, ...] | None:
    """The partners for slot ``i`` as ``kind``, or None when none keep the rules: among those
    that do, a tall one beside a tall photo, then the least shown, then the longest unseen."""
    primary = slots[i].source_id
    near = {p for j in (i - 1, i + 1) if 0 <= j < len(slots) for p in _shown_at(slots, layouts, j)}
    showings: dict[str, list[float]] = {}
    for j in range(len(slots)):
        for photo_id in _shown_at(slots, layouts, j):
            showings.setdefault(photo_id, []).append(starts[j])
    spacing = REPEAT_SPACING_S + SNAP_SLACK_S

    def twinned(a: str, b: str) -> bool:
        return frozenset((a, b)) in twins

    def allowed(photo_id: str) -> bool:
        return (photo_id != primary and photo_id not in near
                and fits_as_partner(photos[photo_id], kind)
                and not any(twinned(photo_id, other) for other in {primary, *near})
                and all(abs(starts[i] - t) >= spacing for t in showings.get(photo_id, [])))

    def cost(photo_id: str) -> tuple[bool, int, float]:
        untall = kind == PORTRAIT_PAIR and not is_tall(photos[photo_id])
        seen = showings.get(photo_id, [])
        unseen_s = min((abs(starts[i] - t) for t in seen), default=float("inf"))
        return untall, len(seen), -unseen_s

    candidates = sorted((p for p in photos if allowed(p)), key=lambda p: (cost(p), p))
    for group in combinations(candidates, layout_kind(kind).partners):
        if frozenset((primary, *group)) in sets or any(twinned(a, b) for a, b in
                                                       combinations(group, 2)):
            continue
        return group
    return None
