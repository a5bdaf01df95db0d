"""Two photos in one frame: how a split shot (:mod:`media.plan.layouts`) is drawn.

The frame is cut into two halves with a thin gutter between them (side by side in 16:9,
stacked in 9:16); each half is an ordinary photo layer (:class:`media.frames.compose.PhotoLayer`)
planned for the half's size, so faces stay whole and the camera moves as on a full frame. A
frame costs about one full photo frame: two half-size crops and one copy of each into place.
The second half's move is :data:`STAGGER_S` out of phase with the first at both ends, so the
halves never start or settle in lockstep; a photo shown in a half again pans (:func:`half_move`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

from media.base import spec, yuv
from media.cards.spec import RGB
from media.look.framing import Motion, Rect

STAGGER_S = 0.4  # the second half's move runs this far ahead of the first


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
    """A split shot in one aspect: two half layers in their boxes over a gutter of ``gutter``
    (Y, U, V). The second half is sampled ``lead`` frames ahead (its layer is planned that
    much longer at both ends, see :data:`STAGGER_S`). A frame whose halves both hold is the
    last frame again."""

    def __init__(self, halves: tuple[HalfLayer, HalfLayer], boxes: tuple[Box, Box],
                 aspect: spec.Aspect, gutter: tuple[int, int, int], lead: int) -> None:
        self.halves = halves
        self.boxes = boxes
        self.aspect = aspect
        self.lead = lead
        self.gutter = gutter
        self._gutter_box = _between(*boxes)
        self._last: tuple[Rect, Rect, np.ndarray] | None = None

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) as a full I420 frame; callers must not
        write to it."""
        indices = (index, index + self.lead)
        rects = [h.motion.rect_at(i) for h, i in zip(self.halves, indices, strict=True)]
        if self._last is not None and (self._last[0], self._last[1]) == tuple(rects):
            return self._last[2]
        out = np.empty(yuv.frame_shape(self.aspect.width, self.aspect.height), np.uint8)
        for half, i, box in zip(self.halves, indices, self.boxes, strict=True):
            half.draw(i, _views(out, box))
        _fill(out, self._gutter_box, self.gutter)
        self._last = (rects[0], rects[1], out)
        return out


def _between(first: Box, second: Box) -> Box:
    """The gutter: the strip between two halves (side by side, or stacked)."""
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


def partner_move(move: str | None) -> str:
    """The second half's move (a :func:`media.look.framing.plan_ken_burns` move): the opposite
    push of the first half's, so one comes closer while the other opens up."""
    return "zoom_out" if move == "zoom_in" else "zoom_in"


def half_move(move: str | None, earlier: int) -> str | None:
    """The move of a photo in a half after ``earlier`` halves showed it: every other time a
    pan (across its longer side), so a photo paired again shows another part of itself, not
    the same half frame."""
    return "pan" if earlier % 2 else move
