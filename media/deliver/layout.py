"""A poster's layout as data, and where the gift page's play button and controls go over it.

The poster reports where its words (the name) and its subject (faces, a pet, where the eye
goes) sit, as normalized boxes of the poster (:class:`PosterLayout`). The page places its play
button in the largest clear rectangle of the poster that overlaps neither
(:func:`place_button`; a smaller, round button where the labelled one fits nowhere) and its
control bar along the top or bottom edge, whichever leaves the words clear
(:func:`controls_edge`). Pure: boxes in, boxes out.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from media.analysis.subjects import Box
from media.analysis.words import reach  # the subject's reach, shared with the cards over photos

CENTRE_SUBJECT = Box(0.3, 0.3, 0.7, 0.7)
"""Where the subject is assumed to be when nothing in the picture stands out (as
:func:`media.analysis.subjects.find_subject` assumes)."""
DEFAULT_LAYOUTS_TEXT = Box(0.08, 0.58, 0.92, 0.84)
"""The words' box of a poster that reported no layout: the lower third, wide."""
CLEARANCE = 0.025  # the button keeps this far (share of the poster's side) from a kept box
EDGE_INSET = 0.03  # a button pushed to the poster's edge keeps this far inside it


@dataclass(frozen=True)
class PosterLayout:
    """Where a poster's words and its subject sit: normalized boxes (0..1 of the poster's width
    and height). ``text`` is None on a poster without words."""

    text: Box | None
    subject: Box | None

    def kept(self) -> tuple[Box, ...]:
        """The boxes nothing may cover: the words and the subject."""
        return tuple(box for box in (self.text, self.subject) if box is not None)

    def to_dict(self) -> dict[str, list[float] | None]:
        """JSON-ready: each box as ``[x0, y0, x1, y1]`` or None."""
        return {"text": _box_list(self.text), "subject": _box_list(self.subject)}


def _box_list(box: Box | None) -> list[float] | None:
    return None if box is None else [round(v, 4) for v in (box.x0, box.y0, box.x1, box.y1)]


def layout_from_dict(data: dict[str, Any]) -> PosterLayout:
    """Rebuild a :class:`PosterLayout` from :meth:`PosterLayout.to_dict` output."""
    def box(value: list[float] | None) -> Box | None:
        return None if value is None else Box(*map(float, value))
    return PosterLayout(text=box(data.get("text")), subject=box(data.get("subject")))


DEFAULT_LAYOUT = PosterLayout(text=DEFAULT_LAYOUTS_TEXT, subject=CENTRE_SUBJECT)
"""Assumed for a poster that reported no layout (a plain frame grab, an older render)."""


def _grown(box: Box, by: float) -> Box:
    return Box(max(0.0, box.x0 - by), max(0.0, box.y0 - by), min(1.0, box.x1 + by),
               min(1.0, box.y1 + by))


def _overlaps(a: Box, b: Box) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _area(box: Box) -> float:
    return (box.x1 - box.x0) * (box.y1 - box.y0)


def clear_rectangles(kept: tuple[Box, ...]) -> list[Box]:
    """Every rectangle of the poster whose sides lie on the poster's edges or the kept boxes'
    edges and which overlaps no kept box: the candidate places for the button."""
    xs = sorted({0.0, 1.0, *(v for b in kept for v in (b.x0, b.x1))})
    ys = sorted({0.0, 1.0, *(v for b in kept for v in (b.y0, b.y1))})
    found = []
    for x0, x1 in combinations(xs, 2):
        for y0, y1 in combinations(ys, 2):
            rect = Box(x0, y0, x1, y1)
            if not any(_overlaps(rect, box) for box in kept):
                found.append(rect)
    return found


@dataclass(frozen=True)
class Spot:
    """Where the play button goes: centred in ``box`` (normalized), at ``sizes[size]`` of the
    sizes offered to :func:`place_button`; ``clear`` is False when no spot clear of the subject
    fitted even the smallest size, and the button only keeps off the words."""

    box: Box
    size: int
    clear: bool


def _largest_fitting(kept: tuple[Box, ...], button: tuple[float, float]) -> Box | None:
    fitting = [r for r in clear_rectangles(kept)
               if r.x1 - r.x0 >= button[0] and r.y1 - r.y0 >= button[1]]
    return max(fitting, key=_area) if fitting else None


def place_button(layout: PosterLayout, sizes: tuple[tuple[float, float], ...]) -> Spot:
    """The largest rectangle of the poster clear of its words and subject (the subject with its
    :func:`reach`; each kept :data:`CLEARANCE` away) that fits the button at the first of
    ``sizes`` (width, height, shares of the poster; largest first) that fits anywhere. When
    none does, the button keeps off the words and covers as little of the subject as it can
    (:func:`_least_covering`); the poster's top band is the last resort."""
    text = () if layout.text is None else (_grown(layout.text, CLEARANCE),)
    both = text + (() if layout.subject is None else (_grown(reach(layout.subject), CLEARANCE),))
    for index, size in enumerate(sizes):
        box = _largest_fitting(both, size)
        if box is not None:
            return Spot(box, index, True)
    for index, size in enumerate(sizes):
        box = _least_covering(text, layout.subject, size)
        if box is not None:
            return Spot(box, index, False)
    return Spot(Box(0.0, 0.0, 1.0, sizes[-1][1]), len(sizes) - 1, False)


def _least_covering(text: tuple[Box, ...], subject: Box | None,
                    button: tuple[float, float]) -> Box | None:
    """The button's own box (``button`` in size) in a rectangle clear of ``text`` (kept
    :data:`EDGE_INSET` inside the poster), at one of the rectangle's corners, edge middles or
    centre, where it covers the least of ``subject``
    and of its reach (the larger rectangle when equal); None when it fits nowhere."""
    width, height = button
    best: tuple[float, float, float, Box] | None = None
    for clear in clear_rectangles(text):
        rect = Box(max(clear.x0, EDGE_INSET), max(clear.y0, EDGE_INSET),
                   min(clear.x1, 1 - EDGE_INSET), min(clear.y1, 1 - EDGE_INSET))
        if rect.x1 - rect.x0 < width or rect.y1 - rect.y0 < height:
            continue
        for fx in (0.5, 0.0, 1.0):  # the middle first: it wins a tie
            for fy in (0.5, 0.0, 1.0):
                x0 = rect.x0 + fx * (rect.x1 - rect.x0 - width)
                y0 = rect.y0 + fy * (rect.y1 - rect.y0 - height)
                spot = Box(x0, y0, x0 + width, y0 + height)
                score = (round(_covered(spot, subject), 6),  # rounded: a float tie is a tie
                         round(_covered(spot, subject and reach(subject)), 6),
                         -round(_area(rect), 6), spot)
                if best is None or score[:3] < best[:3]:
                    best = score
    return None if best is None else best[3]


def _covered(spot: Box, box: Box | None) -> float:
    """The area of ``box`` that ``spot`` covers (0 without a box)."""
    if box is None:
        return 0.0
    return (max(0.0, min(spot.x1, box.x1) - max(spot.x0, box.x0))
            * max(0.0, min(spot.y1, box.y1) - max(spot.y0, box.y0)))


def controls_edge(layout: PosterLayout, bar_share: float) -> str:
    """``"bottom"`` or ``"top"``: the edge of the film along which a control bar
    ``bar_share`` of its height tall covers neither the words nor, where it can, the subject
    (the bottom when both are equally clear)."""
    bottom, top = Box(0.0, 1.0 - bar_share, 1.0, 1.0), Box(0.0, 0.0, 1.0, bar_share)

    def cost(bar: Box) -> tuple[bool, bool]:
        return (layout.text is not None and _overlaps(bar, layout.text),
                layout.subject is not None and _overlaps(bar, layout.subject))
    return "top" if cost(top) < cost(bottom) else "bottom"
