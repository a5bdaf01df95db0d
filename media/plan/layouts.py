"""Layouts that show two photos at once, as plan rules (pure: photos are read as data).

A photo shot with a ``partner_id`` shows its photo and the partner in one frame, each in its
own half with its own gentle move (drawn by :mod:`media.frames.split`). Two layouts:

* ``split``: when a film is long for its photos (photos must repeat), some repeat showings
  share the frame with a second photo instead of showing the same picture again alone: the
  halves side by side in 16:9, stacked top and bottom in 9:16 (both films show the same photos
  at the same time).
* ``portrait_pair``: a tall photo (:data:`TALL_RATIO`) in 16:9 sits beside a second photo and
  fills the frame, instead of a full-width strip of it or a small print over its blurred copy;
  9:16 shows the tall photo alone and full frame, as it fits there.

Rules: a split shot is never followed by another one (a single photo always comes between);
the first and last photo shots (the subject opens, the warmest photo closes) and the subject's
mid-film return never become a ``split``; both photos fill their halves with crops that hold
their faces (:func:`crops_whole`); a partner is never the photo itself, its twin, or
the photo of a neighbouring shot; the same two photos never pair twice; and a partner keeps the
repeat spacing of :func:`media.plan.shot_order.showing_order` to every other showing of it
(:data:`media.plan.shot_order.REPEAT_SPACING_S`, plus :data:`SNAP_SLACK_S`), or the shot stays
single. How many repeats split is the look's ``layouts.split_share``
(:class:`media.cards.design.Layouts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate

from media.base.spec import LANDSCAPE, PORTRAIT
from media.plan.inputs import PhotoSource
from media.plan.shot_order import REPEAT_SPACING_S, Slot

SINGLE, SPLIT, PORTRAIT_PAIR = "", "split", "portrait_pair"
LAYOUTS = (SINGLE, SPLIT, PORTRAIT_PAIR)
# A photo at least this much taller than wide keeps under 45 % of itself in a full-width 16:9
# crop (4:5, 3:4, 2:3 and phone portraits): it pairs instead.
TALL_RATIO = 1.25
SNAP_SLACK_S = 1.0  # cuts move onto beats after layouts are planned: a partner keeps this more
HALF_RATIO = {False: LANDSCAPE.width / 2 / LANDSCAPE.height,  # 16:9 halves, side by side
              True: PORTRAIT.width / (PORTRAIT.height / 2)}  # 9:16 halves, stacked


@dataclass(frozen=True)
class Layout:
    """How one middle shot shows its photo: ``kind`` (one of :data:`LAYOUTS`) and the second
    photo of a split (``partner_id``, None when single)."""

    kind: str = SINGLE
    partner_id: str | None = None


def splits_in(layout: str, portrait_aspect: bool) -> bool:
    """True when a shot of ``layout`` shows two photos in an aspect (``portrait_aspect``: the
    9:16 film): a ``split`` in both, a ``portrait_pair`` in 16:9 only."""
    return layout == SPLIT or (layout == PORTRAIT_PAIR and not portrait_aspect)


def is_tall(photo: PhotoSource) -> bool:
    """A photo at least :data:`TALL_RATIO` times taller than wide."""
    return photo.height >= TALL_RATIO * photo.width


def crops_whole(photo: PhotoSource, layout: str) -> bool:
    """True when every half ``layout`` puts ``photo`` in (see :func:`splits_in`) can be filled
    by a crop of it that holds its faces (``hold_w``, ``hold_h``): never a small print over a
    blurred copy inside a half."""
    for portrait in (False, True):
        if splits_in(layout, portrait):
            ratio = HALF_RATIO[portrait]
            if photo.width / photo.height > ratio:
                crop_w, crop_h = photo.height * ratio, float(photo.height)
            else:
                crop_w, crop_h = float(photo.width), photo.width / ratio
            if photo.hold_w * photo.width > crop_w or photo.hold_h * photo.height > crop_h:
                return False
    return True


def plan_layouts(slots: Sequence[Slot], photos: Mapping[str, PhotoSource],
                 lengths_s: Sequence[float], *, split_share: float, portrait_pairs: bool,
                 subject_id: str | None,
                 twins: Sequence[tuple[str, str]] = ()) -> list[Layout]:
    """One :class:`Layout` per slot (the module's rules): repeat showings split while at most
    ``split_share`` of the eligible repeats have; with ``portrait_pairs`` every tall photo's
    showing pairs in 16:9. ``lengths_s`` are the slots' lengths (seconds), ``twins`` pairs of
    ids showing the same picture."""
    starts = [0.0, *accumulate(lengths_s)][:len(slots)]
    layouts = [Layout()] * len(slots)
    pairs: set[frozenset[str]] = set()
    twin_pairs = {frozenset(t) for t in twins}
    repeats = made = 0
    for i, slot in enumerate(slots):
        kind = _wanted(i, slots, photos, subject_id, portrait_pairs)
        if kind == SPLIT:
            repeats += 1
            if made >= split_share * repeats - 1e-9:
                continue
        if not kind or (i > 0 and layouts[i - 1].kind):
            continue
        if not crops_whole(photos[slot.source_id], kind):
            continue
        partner = _partner(i, slots, layouts, photos, starts, pairs, twin_pairs, kind)
        if partner is not None:
            layouts[i] = Layout(kind, partner)
            pairs.add(frozenset((slot.source_id, partner)))
            made += kind == SPLIT
    return layouts


def _wanted(i: int, slots: Sequence[Slot], photos: Mapping[str, PhotoSource],
            subject_id: str | None, portrait_pairs: bool) -> str:
    """The layout slot ``i`` asks for before a partner is found (:data:`SINGLE` for none)."""
    slot = slots[i]
    photo = photos.get(slot.source_id) if slot.kind == "photo" else None
    if photo is None or i == len(slots) - 1:
        return SINGLE
    if portrait_pairs and is_tall(photo):
        return PORTRAIT_PAIR
    if i > 0 and slot.occurrence > 0 and slot.source_id != subject_id:
        return SPLIT
    return SINGLE


def _shown_at(slots: Sequence[Slot], layouts: Sequence[Layout], j: int) -> set[str]:
    """The photos slot ``j`` shows (its own, and its partner's)."""
    partner = layouts[j].partner_id
    return {slots[j].source_id, *([partner] if partner else [])}


def _partner(i: int, slots: Sequence[Slot], layouts: Sequence[Layout],
             photos: Mapping[str, PhotoSource], starts: Sequence[float],
             pairs: set[frozenset[str]], twins: set[frozenset[str]], kind: str) -> str | None:
    """The second photo for slot ``i``, or None when none keeps the rules: among those that
    do, a tall one beside a tall photo, then the least shown, then the longest unseen."""
    primary = slots[i].source_id
    near = {p for j in (i - 1, i + 1) if 0 <= j < len(slots) for p in _shown_at(slots, layouts, j)}
    showings: dict[str, list[float]] = {}
    for j in range(len(slots)):
        for photo_id in _shown_at(slots, layouts, j):
            showings.setdefault(photo_id, []).append(starts[j])
    spacing = REPEAT_SPACING_S + SNAP_SLACK_S

    def allowed(photo_id: str) -> bool:
        return (photo_id != primary and photo_id not in near and crops_whole(photos[photo_id], kind)
                and frozenset((primary, photo_id)) not in pairs
                and not any(frozenset((photo_id, other)) in twins for other in {primary, *near})
                and all(abs(starts[i] - t) >= spacing for t in showings.get(photo_id, [])))

    def cost(photo_id: str) -> tuple[bool, int, float]:
        untall = kind == PORTRAIT_PAIR and not is_tall(photos[photo_id])
        seen = showings.get(photo_id, [])
        unseen_s = min((abs(starts[i] - t) for t in seen), default=float("inf"))
        return untall, len(seen), -unseen_s

    candidates = sorted((p for p in photos if allowed(p)), key=lambda p: (cost(p), p))
    return candidates[0] if candidates else None
