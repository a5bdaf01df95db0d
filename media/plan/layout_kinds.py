"""The layouts a photo shot may share the frame in, each one registered function beside its peers.

A layout kind says what the planner asks of it (:mod:`media.plan.layouts`: how many photos it
shows beside the shot's own, whether the 9:16 film shares its frame too, which photos fill its
cells with their faces whole) and where its cells sit in a frame of either aspect, the thin
gutter between them in the look's colour (what the renderer draws, :mod:`media.frames.split`).
Its function places the cells (:class:`CellPlan`); the facts are the keywords it is registered
with (:func:`layout`).

A new layout: one function here under ``@layout("name", ...)``, and its name in a look's
``[layouts] kinds``. A shot carries at most two photos beside its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from media.base import spec
from media.base.spec import LANDSCAPE, PORTRAIT
from media.design.looks import Layouts
from media.plan.inputs import PhotoSource

SPLIT, PORTRAIT_PAIR, TRIPTYCH, INSET = "split", "portrait_pair", "triptych", "inset"
# A photo at least this much taller than wide keeps under 45 % of itself in a full-width 16:9
# crop (4:5, 3:4, 2:3 and phone portraits): it pairs instead.
TALL_RATIO = 1.25
INSET_RATIOS = (0.75, 1.5)  # an inset print keeps its photo's own ratio within these
INSET_MARGIN = 0.06  # an inset print keeps this share of the frame's short side from its edges


class Box(NamedTuple):
    """A region of the frame in pixels (even numbers, so the chroma planes split exactly)."""

    x: int
    y: int
    w: int
    h: int


@dataclass(frozen=True)
class Cell:
    """One photo of a layout shot in its box of the frame: ``photo`` 0 is the shot's own, 1 and
    2 its partners."""

    photo: int
    box: Box


@dataclass(frozen=True)
class CellPlan:
    """A layout in one frame: its ``cells`` in drawing order (each later one drawn over the
    ones before, and its move staggered after theirs) and the ``gutters`` painted over them."""

    cells: tuple[Cell, ...]
    gutters: tuple[Box, ...]


class CellFrame(Protocol):
    """What a layout may ask of the shot it lays out while it places the cells."""

    def size(self, photo: int) -> tuple[int, int]:
        """Width and height (pixels) of the shot's photo ``photo``."""
        ...

    def focus(self, cell: Cell, order: int) -> tuple[float, float, float, float]:
        """Where the subject of ``cell``'s photo lies on the frame (x0, y0, x1, y1 output
        pixels) halfway through its move, the cell drawn ``order``-th."""
        ...


PlaceCells = Callable[[spec.Aspect, Layouts, CellFrame], CellPlan]


@dataclass(frozen=True)
class LayoutKind:
    """A registered layout (see :func:`layout`): ``place`` puts its cells in a frame of an
    aspect, by the look's ``[layouts]``; ``partners`` photos beside the shot's own; ``across``
    cells along the frame's long side (for the cells' ratio); ``portrait``: the 9:16 film shares
    its frame too (else it shows the shot's photo alone, full frame); ``repeat``: a repeat
    showing may become one (a look's ``kinds`` choose among these); ``fits`` and
    ``fits_partner``, when given, replace the test that a photo fills its cells with its faces
    whole (:meth:`holds`, :meth:`takes`)."""

    name: str
    place: PlaceCells
    partners: int
    across: int
    portrait: bool = True
    repeat: bool = True
    fits: Callable[[PhotoSource], bool] | None = None
    fits_partner: Callable[[PhotoSource], bool] | None = None

    def splits(self, portrait_aspect: bool) -> bool:
        """True when a shot of this layout shows several photos in the 16:9 film, or with
        ``portrait_aspect`` the 9:16 one."""
        return self.portrait or not portrait_aspect

    def cell_ratio(self, portrait_aspect: bool) -> float:
        """Width over height of a cell in the 16:9 or the 9:16 film, gutters left out."""
        return cell_ratio_of(self.across, portrait_aspect)

    def holds(self, photo: PhotoSource) -> bool:
        """True when every cell this layout puts ``photo`` in as the shot's own photo can be
        filled by a crop of it that holds its faces."""
        if self.fits is not None:
            return self.fits(photo)
        return all(fills(photo, self.cell_ratio(portrait))
                   for portrait in (False, True) if self.splits(portrait))

    def takes(self, photo: PhotoSource) -> bool:
        """True when ``photo`` can be a partner in this layout."""
        return self.fits_partner(photo) if self.fits_partner is not None else self.holds(photo)


LAYOUT_KINDS: dict[str, LayoutKind] = {}
"""Every layout by name (:func:`layout` registers one)."""


def layout(name: str, *, partners: int, across: int, portrait: bool = True, repeat: bool = True,
           fits: Callable[[PhotoSource], bool] | None = None,
           fits_partner: Callable[[PhotoSource], bool] | None = None,
           ) -> Callable[[PlaceCells], PlaceCells]:
    """Register the decorated function, which places the cells, as the layout ``name`` with
    the facts the planner reads of it (see :class:`LayoutKind`)."""
    if not 1 <= partners <= 2:
        raise ValueError(f"layout {name!r}: a shot carries one or two partners, not {partners}")

    def register(place: PlaceCells) -> PlaceCells:
        LAYOUT_KINDS[name] = LayoutKind(name, place, partners, across, portrait, repeat, fits,
                                        fits_partner)
        return place
    return register


def layout_kind(name: str) -> LayoutKind:
    """The layout registered as ``name`` (ValueError naming the registered ones if none is)."""
    found = LAYOUT_KINDS.get(name)
    if found is None:
        raise ValueError(f"unknown layout {name!r}; registered: {sorted(LAYOUT_KINDS)}")
    return found


# --- what the planner reads of a photo -------------------------------------------------------


def is_tall(photo: PhotoSource) -> bool:
    """A photo at least :data:`TALL_RATIO` times taller than wide."""
    return photo.height >= TALL_RATIO * photo.width


def cell_ratio_of(across: int, portrait_aspect: bool) -> float:
    """Width over height of one of ``across`` cells along the long side of the 16:9 or the
    9:16 frame, gutters left out."""
    aspect = PORTRAIT if portrait_aspect else LANDSCAPE
    if portrait_aspect:
        return aspect.width / (aspect.height / across)
    return aspect.width / across / aspect.height


def inset_ratio(width: int, height: int) -> float:
    """Width over height of the print an inset shows a ``width`` x ``height`` photo in: its
    own, within :data:`INSET_RATIOS`."""
    return min(max(width / height, INSET_RATIOS[0]), INSET_RATIOS[1])


def fills(photo: PhotoSource, ratio: float) -> bool:
    """True when a crop of ``photo`` of ``ratio`` (width over height) holds its faces
    (``hold_w``, ``hold_h``): never a small print over a blurred copy inside a cell. A photo
    with a possible face fills none: the plan does not know where that face is, and a cell's
    narrow crop is where a profile or an old scan's edge face was cut."""
    if photo.possible_face:
        return False
    if photo.width / photo.height > ratio:
        crop_w, crop_h = photo.height * ratio, float(photo.height)
    else:
        crop_w, crop_h = float(photo.width), photo.width / ratio
    return photo.hold_w * photo.width <= crop_w and photo.hold_h * photo.height <= crop_h


def fills_a_print(photo: PhotoSource) -> bool:
    """True when ``photo`` fills an inset's print (its own ratio, :func:`inset_ratio`) with its
    faces whole."""
    return fills(photo, inset_ratio(photo.width, photo.height))


def backs_an_inset(photo: PhotoSource) -> bool:
    """True when ``photo`` can fill the frame behind an inset print in both films: no faces or
    pet's head for the print to cover, and not tall (a tall photo would be fitted over its own
    blur in 16:9)."""
    return photo.hold_w <= 0 and photo.hold_h <= 0 and not is_tall(photo)


# --- where the cells sit ---------------------------------------------------------------------


def gutter_width(aspect: spec.Aspect, share: float) -> int:
    """The gutter's width in pixels: ``share`` of the frame's short side, rounded so that both
    halves are the same even size (0 stays 0)."""
    long_side = aspect.height if aspect.is_portrait else aspect.width
    wanted = round(share * min(aspect.width, aspect.height))
    half = (long_side - wanted) // 2 // 2 * 2
    return long_side - 2 * half


def split_boxes(aspect: spec.Aspect, gutter: int) -> tuple[Box, Box]:
    """The two halves of a frame of ``aspect`` around a ``gutter`` pixels wide (see
    :func:`gutter_width`): left and right in 16:9, top and bottom in 9:16."""
    if aspect.is_portrait:
        h = (aspect.height - gutter) // 2
        return Box(0, 0, aspect.width, h), Box(0, aspect.height - h, aspect.width, h)
    w = (aspect.width - gutter) // 2
    return Box(0, 0, w, aspect.height), Box(aspect.width - w, 0, w, aspect.height)


def triptych_boxes(aspect: spec.Aspect, gutter: int) -> tuple[Box, ...]:
    """The three cells of a frame of ``aspect`` with ``gutter`` pixels between them: columns
    in 16:9, rows in 9:16, every cell an even size (the middle one takes what is left)."""
    long_side = aspect.height if aspect.is_portrait else aspect.width
    side = (long_side - 2 * gutter) // 3 // 2 * 2
    middle = long_side - 2 * gutter - 2 * side
    cells = ((0, side), (side + gutter, middle), (long_side - side, side))
    if aspect.is_portrait:
        return tuple(Box(0, start, aspect.width, size) for start, size in cells)
    return tuple(Box(start, 0, size, aspect.height) for start, size in cells)


def inset_box(aspect: spec.Aspect, ratio: float, area: float, border: int,
              at_end: bool, across: float = 0.5) -> Box:
    """Where an inset print of ``ratio`` (width over height) covering about ``area`` of the
    frame sits in a frame of ``aspect``: in 16:9 at the right (``at_end``) or the left, in 9:16
    at the bottom or the top, ``across`` (0..1) the other way (0.5: centred); clear of the
    frame's edges by its ``border`` (pixels) twice and :data:`INSET_MARGIN`."""
    h = math.sqrt(area * aspect.width * aspect.height / ratio)
    w = ratio * h
    margin = 2 * border + round(INSET_MARGIN * min(aspect.width, aspect.height))
    w = min(w, aspect.width - 2 * margin)
    h = min(h, aspect.height - 2 * margin, w / ratio)
    w, h = _even(min(w, ratio * h)), _even(h)
    if aspect.is_portrait:
        x = margin + across * (aspect.width - 2 * margin - w)
        y = aspect.height - margin - h if at_end else margin
    else:
        y = margin + across * (aspect.height - 2 * margin - h)
        x = aspect.width - margin - w if at_end else margin
    return Box(_even(x), _even(y), w, h)


def clear_of(aspect: spec.Aspect, ratio: float, area: float, border: int,
             focus: tuple[float, float, float, float]) -> Box:
    """The :func:`inset_box` (on either side, centred or in a corner) that covers the least of
    ``focus`` (the backdrop's subject on the frame, output pixels x0, y0, x1, y1), the end
    side centred on a tie."""
    def covered(box: Box) -> float:
        w = min(box.x + box.w + border, focus[2]) - max(box.x - border, focus[0])
        h = min(box.y + box.h + border, focus[3]) - max(box.y - border, focus[1])
        return max(0.0, w) * max(0.0, h)

    boxes = [inset_box(aspect, ratio, area, border, at_end, across)
             for across in (0.5, 1.0, 0.0) for at_end in (True, False)]
    return min(boxes, key=covered)


def ring(box: Box, border: int, aspect: spec.Aspect) -> tuple[Box, ...]:
    """The frame around ``box``: four strips ``border`` pixels wide (even), inside the frame."""
    b = _even(border)
    x0, y0 = max(0, box.x - b), max(0, box.y - b)
    x1, y1 = min(aspect.width, box.x + box.w + b), min(aspect.height, box.y + box.h + b)
    return (Box(x0, y0, x1 - x0, box.y - y0), Box(x0, box.y + box.h, x1 - x0, y1 - box.y - box.h),
            Box(x0, box.y, box.x - x0, box.h), Box(box.x + box.w, box.y, x1 - box.x - box.w, box.h))


def between(first: Box, second: Box) -> Box:
    """The gutter: the strip between two neighbouring cells (side by side, or stacked)."""
    if first.y == second.y:
        return Box(first.x + first.w, 0, second.x - first.x - first.w, first.h)
    return Box(0, first.y + first.h, first.w, second.y - first.y - first.h)


def _even(value: float) -> int:
    """``value`` rounded down to an even number of pixels (chroma planes split exactly)."""
    return int(value) // 2 * 2


# --- the layouts -----------------------------------------------------------------------------


@layout(SPLIT, partners=1, across=2)
def split(aspect: spec.Aspect, look: Layouts, frame: CellFrame) -> CellPlan:
    """Two photos side by side in 16:9, stacked top and bottom in 9:16."""
    first, second = split_boxes(aspect, gutter_width(aspect, look.gutter))
    return CellPlan((Cell(0, first), Cell(1, second)), (between(first, second),))


@layout(PORTRAIT_PAIR, partners=1, across=2, portrait=False, repeat=False)
def portrait_pair(aspect: spec.Aspect, look: Layouts, frame: CellFrame) -> CellPlan:
    """A tall photo (:func:`is_tall`) beside a second one in 16:9, filling the frame instead of
    a full-width strip of it or a small print over its blurred copy; 9:16 shows it alone."""
    return split(aspect, look, frame)


@layout(TRIPTYCH, partners=2, across=3)
def triptych(aspect: spec.Aspect, look: Layouts, frame: CellFrame) -> CellPlan:
    """Three photos: three columns in 16:9, three rows in 9:16, the shot's own in the
    middle."""
    first, middle, last = triptych_boxes(aspect, gutter_width(aspect, look.gutter))
    return CellPlan((Cell(0, middle), Cell(1, first), Cell(2, last)),
                    (between(first, middle), between(middle, last)))


@layout(INSET, partners=1, across=1, fits=fills_a_print, fits_partner=backs_an_inset)
def inset(aspect: spec.Aspect, look: Layouts, frame: CellFrame) -> CellPlan:
    """The shot's photo whole, as a framed print (its own ratio, ``look.inset_area`` of the
    frame, a border of ``look.inset_border`` in the gutter's colour) over a partner filling the
    frame (never over its own blur), on the side away from the partner's subject: how a group
    photo too wide for any cell comes back."""
    backdrop = Cell(1, Box(0, 0, aspect.width, aspect.height))
    border = max(2, round(look.inset_border * min(aspect.width, aspect.height)))
    print_box = clear_of(aspect, inset_ratio(*frame.size(0)), look.inset_area, border,
                         frame.focus(backdrop, 0))
    return CellPlan((backdrop, Cell(0, print_box)), ring(print_box, border, aspect))
