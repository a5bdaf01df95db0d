"""Two or three photos in one frame: how a layout shot (:mod:`media.plan.layouts`) is drawn.

Where the cells sit is the layout's own (:mod:`media.plan.layout_kinds`: two halves, three
columns or rows, a print over a backdrop), with a thin gutter between them in the look's colour.
Each cell is an ordinary photo layer (:class:`media.frames.compose.PhotoLayer`) planned for the
cell's size, so faces stay whole and the camera moves as on a full frame, drawn straight into
the frame's planes: a frame costs about one full photo frame (an inset's backdrop is a full
frame plus the print). Each next cell's move is :data:`STAGGER_S` out of phase with the one
before at both ends, so the cells never start or settle in lockstep; a photo shown in a cell
again moves otherwise, never as before (:func:`half_move`,
:func:`media.frames.photo_shots.cell_layer`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from media.analysis.camera import Motion, Rect
from media.analysis.framing import held_still, largest_crop, whole_faces_rect
from media.analysis.subjects import Box as FocusBox
from media.analysis.subjects import Subject
from media.base import spec, yuv
from media.design.values import RGB
from media.plan.layout_kinds import Box, between

STAGGER_S = 0.4  # each cell's move runs this far ahead of the one before


class HalfLayer(Protocol):
    """A photo layer drawn at a half's size (:class:`media.frames.compose.PhotoLayer`)."""

    motion: Motion

    def draw(self, index: int, planes: Sequence[np.ndarray]) -> None:
        """Frame ``index`` of the half written into ``planes`` (Y, U, V views)."""
        ...


def focus_on_frame(motion: Motion, focus: FocusBox, photo_size: tuple[int, int],
                   out_width: int) -> tuple[float, float, float, float]:
    """Where a ``photo_size`` photo's ``focus`` (a normalized box of it) lies on the frame
    (output pixels x0, y0, x1, y1) halfway through ``motion``."""
    rect = motion.rect_at(motion.frames // 2)
    k = out_width / rect.w
    width, height = photo_size
    return ((focus.x0 * width - rect.x) * k, (focus.y0 * height - rect.y) * k,
            (focus.x1 * width - rect.x) * k, (focus.y1 * height - rect.y) * k)


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
    """The largest crop of ``cell``'s ratio of a ``photo_size`` photo where it cuts no face
    (:func:`media.analysis.framing.whole_faces_rect`: all of them whole if they fit, else the
    biggest whole and the others out), held for ``frames`` pushing slowly in where that keeps
    them (:func:`media.analysis.framing.held_still`): a cell whose faces leave no room for a
    move (a group photo's print) still fills its cell, never over its own blur."""
    rect = whole_faces_rect(photo_size, subject, largest_crop(*photo_size, cell))
    return held_still(photo_size, subject, rect, max(1, frames), cell.width)


def partner_move(move: str | None) -> str:
    """The second half's move (a :func:`media.analysis.framing.plan_ken_burns` move): the opposite
    push of the first half's, so one comes closer while the other opens up."""
    return "zoom_out" if move == "zoom_in" else "zoom_in"


def half_move(move: str | None, earlier: int) -> str | None:
    """The move of a photo in a half after ``earlier`` halves showed it: every other time a
    pan (across its longer side), so a photo paired again shows another part of itself, not
    the same half frame."""
    return "pan" if earlier % 2 else move
