"""Framing a customer's clip like a photo: a face-aware crop; a wide clip whose faces a crop
would cut (a group in 9:16) fills the frame's width over a blurred copy of itself; a tall clip
that a crop would mostly lose is fitted whole.

The framing is planned once per clip shot and aspect from one sample frame's subject (see
:func:`media.analysis.subjects.find_subject`) and stays fixed for the shot: the clip brings its own
motion.
Crops use :func:`media.analysis.framing.plan_ken_burns` placement (faces kept inside with a margin,
centred on the focus), fits the same margin and backdrop as fitted photos.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from media.analysis.camera import Rect
from media.analysis.framing import FIT_MARGIN, KEEP_MIN, MoveRequest, plan_ken_burns
from media.analysis.subjects import Subject, keep_whole
from media.base import yuv
from media.base.spec import Aspect
from media.frames.compose import (
    Prescaled,
    backdrop_i420,
    cover_box,
    draw_print,
    prescale,
    render_crop,
)

MAX_CLIP_UPSCALE = 4.0  # a crop is magnified at most this (output px per clip px), or ...
# ... at most this much more than the clip would be fitted: a tiny clip (a 160x120 webcam
# clip) is as soft fitted as filled, and fitted it is a print over its blur where a 4:3 clip
# fills a 16:9 frame at 1.5x its fitted magnification (9:16 would need 2.7x: it stays fitted,
# the way phones letterbox a landscape video held upright)
CLIP_FILL_OVER_FIT = 1.6


@dataclass(frozen=True)
class ClipFraming:
    """How one clip shows in one aspect: ``mode`` ``crop`` (``box`` = x, y, w, h in clip pixels,
    the output's ratio) or ``fit`` (``box`` = x, y, w, h in output pixels where the whole clip
    lands over its blurred backdrop); ``out_w`` x ``out_h`` is the frame size (pixels)."""

    mode: str
    box: tuple[int, int, int, int]
    out_w: int
    out_h: int


def fit_box(clip_w: int, clip_h: int, out_w: int, out_h: int) -> tuple[int, int, int, int]:
    """Where a fitted clip lands on the frame (x, y, w, h output pixels): as large as the
    frame allows inside the same margin as fitted photos, centred."""
    margin = FIT_MARGIN * min(out_w, out_h)
    k = min((out_w - 2 * margin) / clip_w, (out_h - 2 * margin) / clip_h)
    w, h = max(2, round(clip_w * k)), max(2, round(clip_h * k))
    return (out_w - w) // 2, (out_h - h) // 2, w, h


def plan_clip_framing(size: tuple[int, int], subject: Subject, aspect: Aspect, *,
                      keep_min: float = KEEP_MIN) -> ClipFraming:
    """The framing of a ``size`` (width, height pixels) clip in ``aspect``: a crop around the
    subject (its faces; without faces the core of its salient region, e.g. a pet, is kept
    whole like a face: :func:`media.analysis.subjects.keep_whole`) when it keeps at least
    ``keep_min`` of the picture with every face inside and
    needs at most :data:`MAX_CLIP_UPSCALE` (or :data:`CLIP_FILL_OVER_FIT` times the fitted
    clip's magnification); a wide clip whose faces a crop would cut fills
    the frame's width around them (see :func:`media.analysis.framing.fill_width`); otherwise the
    fitted treatment."""
    width, height = size
    # a clip's subject moves: no narrower crop on where it was in one frame
    motion = plan_ken_burns(size, keep_whole(subject), aspect, 1,
                            MoveRequest(full=False, keep_min=keep_min, subject_keep_min=keep_min))
    rect = motion.start
    if motion.mode == "fill":
        k = aspect.width / rect.w  # output px per clip px
        w, h = max(2, round(width * k)), max(2, round(height * k))
        return ClipFraming("fit", (round(-rect.x * k), (aspect.height - h) // 2, w, h),
                           aspect.width, aspect.height)
    fitted = fit_box(width, height, aspect.width, aspect.height)[2] / width  # output px/px
    if motion.mode == "crop" and aspect.width / rect.w <= max(MAX_CLIP_UPSCALE,
                                                              CLIP_FILL_OVER_FIT * fitted):
        x0, y0 = max(0, math.floor(rect.x)), max(0, math.floor(rect.y))
        x1 = min(width, max(x0 + 1, round(rect.x + rect.w)))
        y1 = min(height, max(y0 + 1, round(rect.y + rect.h)))
        return ClipFraming("crop", (x0, y0, x1 - x0, y1 - y0), aspect.width, aspect.height)
    return ClipFraming("fit", fit_box(width, height, aspect.width, aspect.height),
                       aspect.width, aspect.height)


def cover_framing(size: tuple[int, int], aspect: Aspect) -> ClipFraming:
    """The framing of a clip (``size`` = width, height pixels) without a subject: the centred
    crop with the output's ratio (cover fit, see :func:`media.frames.compose.cover_box`)."""
    return ClipFraming("crop", cover_box(*size, aspect.width, aspect.height), aspect.width,
                       aspect.height)


def clip_backdrop(frame: np.ndarray, framing: ClipFraming) -> np.ndarray:
    """The blurred, darkened copy of one decoded clip frame (I420) that a fitted ``framing``
    lays it over, with its soft shadow, as a new I420 frame of the output's size."""
    x, y, w, h = framing.box
    return backdrop_i420(yuv.planes(frame), framing.out_w, framing.out_h, (x, y, x + w, y + h))


def frame_clip(frame: np.ndarray, framing: ClipFraming,
               back: np.ndarray | None = None) -> np.ndarray:
    """One decoded clip frame (I420, see :mod:`media.base.yuv`) framed for output as a new I420
    frame, plane by plane: the crop scaled to the frame, or the whole frame fitted over its
    blurred, darkened copy with a soft shadow (:func:`clip_backdrop`; or ``back``, one made
    from a frame of the clip just before, never written to). A chroma plane takes the luma
    box halved; where that is not whole chroma pixels it is placed sub-pixel (bilinear, as
    photos are)."""
    out_w, out_h = framing.out_w, framing.out_h
    x, y, w, h = framing.box
    source = yuv.planes(frame)
    if framing.mode == "crop":
        out = np.empty(yuv.frame_shape(out_w, out_h), np.uint8)
        for k, plane, dst in zip((1.0, 0.5, 0.5), source, yuv.planes(out), strict=True):
            _crop_plane(plane, (x * k, y * k, w * k, h * k), dst)
        return out
    out = clip_backdrop(frame, framing) if back is None else back.copy()
    for k, plane, dst in zip((1.0, 0.5, 0.5), source, yuv.planes(out), strict=True):
        _fit_plane(plane, (x * k, y * k, w * k, h * k), dst)
    return out


def _whole(box: tuple[float, float, float, float]) -> tuple[int, int, int, int] | None:
    """``box`` as integers if it is whole pixels, else None."""
    ints = tuple(round(v) for v in box)
    return ints if all(abs(a - b) < 1e-9 for a, b in zip(ints, box, strict=True)) else None  # type: ignore[return-value]


def _source(plane: np.ndarray, scale: float) -> Prescaled:
    """``plane`` as a source shown at ``scale`` output pixels per pixel: area-averaged down
    first when that shrinks it (bilinear sampling alone would alias)."""
    if scale < 1 / 1.02:
        return prescale(plane, scale, margin=False)
    return Prescaled(plane, 1.0, 1.0)


def _crop_plane(plane: np.ndarray, box: tuple[float, float, float, float],
                dst: np.ndarray) -> None:
    """The ``box`` (x, y, w, h plane pixels) of ``plane`` scaled to fill ``dst``."""
    out_h, out_w = dst.shape
    whole = _whole(box)
    if whole is not None:
        x, y, w, h = whole
        interp = cv2.INTER_AREA if w > out_w * 1.02 else cv2.INTER_LINEAR
        cv2.resize(plane[y:y + h, x:x + w], (out_w, out_h), dst=dst, interpolation=interp)
        return
    dst[:] = render_crop(_source(plane, out_w / box[2]), Rect(*box), out_w, out_h)


def _fit_plane(plane: np.ndarray, box: tuple[float, float, float, float],
               dst: np.ndarray) -> None:
    """The whole ``plane`` scaled into ``box`` (x, y, w, h pixels of ``dst``, which holds the
    backdrop), cut at ``dst``'s edges: a box of whole pixels inside ``dst`` by one resize of
    the plane, else sub-pixel and only the part of the plane that shows is scaled (a wide
    clip filling a 9:16 frame's width shows a third of itself)."""
    out_h, out_w = dst.shape
    whole = _whole(box)
    if whole is not None and whole[0] >= 0 and whole[1] >= 0 and (
            whole[0] + whole[2] <= out_w and whole[1] + whole[3] <= out_h):
        x, y, w, h = whole
        interp = cv2.INTER_AREA if w < plane.shape[1] else cv2.INTER_LINEAR
        cv2.resize(plane, (w, h), dst=dst[y:y + h, x:x + w], interpolation=interp)
        return
    bx, by, bw, bh = box
    k = bw / plane.shape[1]  # output pixels per plane pixel
    rect = Rect(-bx / k, -by / k, out_w / k, out_h / k)
    # drawn over the backdrop where it lies: only the print's window is written (its edges
    # blended with what is under them), the rest of the backdrop stays as it is
    draw_print(_source(plane, k), rect, dst, dst, (bx, by, bx + bw, by + bh))
