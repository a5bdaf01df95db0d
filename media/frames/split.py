"""Two or three photos in one frame: how a layout shot (:mod:`media.plan.layouts`) is drawn.

The frame is cut into cells with a thin gutter between them in the look's colour: two halves
(side by side in 16:9, stacked in 9:16) for a split, three columns (16:9) or rows (9:16) for a
triptych, the shot's own photo in the middle; an inset is a framed print of the shot's photo
(its own ratio, a share of the frame's area, a border in the gutter's colour) over a second
photo filling the frame, on the side away from that photo's subject. Each cell is an ordinary
photo layer (:class:`media.frames.compose.PhotoLayer`) planned for the cell's size, so faces stay
whole and the camera moves as on a full frame, drawn straight into the frame's planes: a frame
costs about one full photo frame (an inset's backdrop is a full frame plus the print). Each next
cell's move is :data:`STAGGER_S` out of phase with the one before at both ends, so the cells
never start or settle in lockstep; a photo shown in a cell again pans (:func:`half_move`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

from media.base import spec, yuv
from media.cards.spec import RGB
from media.look.framing import Motion, Rect, face_guard, largest_crop
from media.look.subjects import Box as FocusBox
from media.look.subjects import Subject

STAGGER_S = 0.4  # each cell's move runs this far ahead of the one before
INSET_MARGIN = 0.06  # an inset print keeps this share of the frame's short side from its edges


class Box(NamedTuple):
    """A region of the frame in pixels (even numbers, so the chroma planes split exactly)."""

    x: int
    y: int
    w: int
    h: int


class HalfLayer(Protocol):
    """A photo layer drawn at a half's size (:class:`media.frames.compose.PhotoLayer`)."""

    motion: Motion

    def draw(self, index: int, planes: Sequence[np.ndarray]) -> None:
        """Frame ``index`` of the half written into ``planes`` (Y, U, V views)."""
        ...


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


def focus_on_frame(motion: Motion, focus: FocusBox, photo_size: tuple[int, int],
                   out_width: int) -> tuple[float, float, float, float]:
    """Where a ``photo_size`` photo's ``focus`` (a normalized box of it) lies on the frame
    (output pixels x0, y0, x1, y1) halfway through ``motion``."""
    rect = motion.rect_at(motion.frames // 2)
    k = out_width / rect.w
    width, height = photo_size
    return ((focus.x0 * width - rect.x) * k, (focus.y0 * height - rect.y) * k,
            (focus.x1 * width - rect.x) * k, (focus.y1 * height - rect.y) * k)


def ring(box: Box, border: int, aspect: spec.Aspect) -> tuple[Box, ...]:
    """The frame around ``box``: four strips ``border`` pixels wide (even), inside the frame."""
    b = _even(border)
    x0, y0 = max(0, box.x - b), max(0, box.y - b)
    x1, y1 = min(aspect.width, box.x + box.w + b), min(aspect.height, box.y + box.h + b)
    return (Box(x0, y0, x1 - x0, box.y - y0), Box(x0, box.y + box.h, x1 - x0, y1 - box.y - box.h),
            Box(x0, box.y, box.x - x0, box.h), Box(box.x + box.w, box.y, x1 - box.x - box.w, box.h))


def _even(value: float) -> int:
    """``value`` rounded down to an even number of pixels (chroma planes split exactly)."""
    return int(value) // 2 * 2


def half_aspect(aspect: spec.Aspect, box: Box) -> spec.Aspect:
    """The aspect a half is planned in (its own size; named after the film's)."""
    return spec.Aspect(f"{aspect.name}-half", box.w, box.h)


def stagger_frames(fps: int = spec.FPS) -> int:
    """:data:`STAGGER_S` in frames."""
    return round(STAGGER_S * fps)


def colour_yuv(colour: RGB) -> tuple[int, int, int]:
    """An RGB colour as the film's Y, U and V values (:mod:`media.base.yuv`)."""
    frame = yuv.rgb_to_i420(np.full((2, 2, 3), colour, np.uint8))
    y, u, v = yuv.planes(frame)
    return int(y[0, 0]), int(u[0, 0]), int(v[0, 0])


class SplitLayer:
    """A layout shot in one aspect: its cell layers in their boxes (drawn in order: an inset's
    backdrop first) over the gutters ``gutters`` (boxes, default the strips between
    consecutive cells) painted ``gutter`` (Y, U, V). Cell ``k`` is sampled ``k * lead`` frames
    ahead (its layer is planned that much longer at both ends, see :data:`STAGGER_S`). A frame
    whose cells all hold is the last frame again."""

    def __init__(self, halves: Sequence[HalfLayer], boxes: Sequence[Box],
                 aspect: spec.Aspect, gutter: tuple[int, int, int], lead: int,
                 gutters: Sequence[Box] | None = None) -> None:
        self.halves = tuple(halves)
        self.boxes = tuple(boxes)
        self.aspect = aspect
        self.lead = lead
        self.gutter = gutter
        self._gutters = tuple(gutters) if gutters is not None else tuple(
            between(a, b) for a, b in zip(self.boxes, self.boxes[1:], strict=False))
        self._last: tuple[tuple[Rect, ...], np.ndarray] | None = None

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) as a full I420 frame; callers must not
        write to it."""
        indices = [index + k * self.lead for k in range(len(self.halves))]
        rects = tuple(h.motion.rect_at(i) for h, i in zip(self.halves, indices, strict=True))
        if self._last is not None and self._last[0] == rects:
            return self._last[1]
        out = np.empty(yuv.frame_shape(self.aspect.width, self.aspect.height), np.uint8)
        for half, i, box in zip(self.halves, indices, self.boxes, strict=True):
            half.draw(i, _views(out, box))
        for box in self._gutters:
            if box.w > 0 and box.h > 0:
                _fill(out, box, self.gutter)
        self._last = (rects, out)
        return out


def between(first: Box, second: Box) -> Box:
    """The gutter: the strip between two neighbouring cells (side by side, or stacked)."""
    if first.y == second.y:
        return Box(first.x + first.w, 0, second.x - first.x - first.w, first.h)
    return Box(0, first.y + first.h, first.w, second.y - first.y - first.h)


def _fill(out: np.ndarray, box: Box, colour: tuple[int, int, int]) -> None:
    """Paint ``box`` of the I420 frame ``out`` in one colour (Y, U, V)."""
    for dst, value in zip(_views(out, box), colour, strict=True):
        dst[:] = value


def _views(frame: np.ndarray, box: Box) -> tuple[np.ndarray, ...]:
    """The Y, U and V views of ``box`` in the I420 ``frame`` (chroma at half the offsets)."""
    return tuple(plane[box.y // k:(box.y + box.h) // k, box.x // k:(box.x + box.w) // k]
                 for plane, k in zip(yuv.planes(frame), (1, 2, 2), strict=True))


def still_crop(photo_size: tuple[int, int], subject: Subject, cell: spec.Aspect,
               frames: int) -> Motion:
    """The largest crop of ``cell``'s ratio of a ``photo_size`` photo, centred on its faces
    (else its focus) as near as the photo's edges allow, held still for ``frames``: a cell whose
    faces leave no room for a move (a group photo's print) still fills its cell, never over
    its own blur."""
    width, height = photo_size
    w, h = largest_crop(width, height, cell)
    guard = face_guard(subject, width, height)
    if guard is not None:
        cx, cy = (guard[0] + guard[2]) / 2, (guard[1] + guard[3]) / 2
    else:
        cx, cy = subject.focus.center[0] * width, subject.focus.center[1] * height
    rect = Rect(min(max(cx - w / 2, 0.0), width - w), min(max(cy - h / 2, 0.0), height - h),
                w, h)
    return Motion("crop", rect, rect, max(1, frames), "still")


def partner_move(move: str | None) -> str:
    """The second half's move (a :func:`media.look.framing.plan_ken_burns` move): the opposite
    push of the first half's, so one comes closer while the other opens up."""
    return "zoom_out" if move == "zoom_in" else "zoom_in"


def half_move(move: str | None, earlier: int) -> str | None:
    """The move of a photo in a half after ``earlier`` halves showed it: every other time a
    pan (across its longer side), so a photo paired again shows another part of itself, not
    the same half frame."""
    return "pan" if earlier % 2 else move
