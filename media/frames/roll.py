"""The roll push: the premium move where the subject does not come off cleanly for parallax.

The planned camera move, plus an eased roll and a push about the frame's centre, always inside
the planned viewport (:func:`roll_zoom`), so the photo's edges never show.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from media.analysis.camera import Motion, Rect, ease
from media.base import yuv
from media.frames.compose import PrescaledI420, viewport_matrix

ROLL_DEGREES = 1.5  # the fallback move's roll over the shot
ROLL_PUSH = 0.06  # and its push, on top of the planned move
ROLL_SAFETY = 1.01  # extra zoom: bilinear samples at the turned corners stay inside too


def roll_zoom(angle: float, out_w: int, out_h: int) -> float:
    """The zoom (>= 1) at which a frame ``out_w`` x ``out_h`` turned by ``angle`` radians shows
    only what the unturned frame showed: no corner ever leaves the planned viewport."""
    ratio = max(out_w / out_h, out_h / out_w)
    return math.cos(abs(angle)) + ratio * math.sin(abs(angle))


def roll_keeps(motion: Motion, boxes: Sequence[tuple[float, float, float, float]], out_w: int,
               out_h: int) -> bool:
    """True when a roll push over ``motion`` (output ``out_w`` x ``out_h``) cuts none of the
    ``boxes`` (source pixels: faces' cores): its push in about the frame's centre
    (:class:`RollPushLayer`) keeps inside whatever the planned viewport shows of each, checked
    every other frame."""
    base = roll_zoom(math.radians(ROLL_DEGREES), out_w, out_h) * ROLL_SAFETY
    last = max(0, motion.frames - 1)
    for index in sorted({*range(0, last, 2), last}):
        rect = motion.rect_at(index)
        zoom = base * (1.0 + ROLL_PUSH * ease(index / max(1, last)))
        w, h = rect.w / zoom, rect.h / zoom
        inner = Rect(rect.cx - w / 2, rect.cy - h / 2, w, h)
        for x0, y0, x1, y1 in boxes:  # what the planned viewport shows of each box
            shown = (max(x0, rect.x), max(y0, rect.y), min(x1, rect.x + rect.w),
                     min(y1, rect.y + rect.h))
            if shown[0] < shown[2] and shown[1] < shown[3] and not inner.contains(shown):
                return False
    return True


class RollPushLayer:
    """The premium move when the matte is doubtful (see
    :func:`media.frames.matte.matte_quality`): the planned move, plus an eased roll of up to
    :data:`ROLL_DEGREES` and a push of :data:`ROLL_PUSH` more, about the frame's centre; the
    frame always stays inside the planned viewport (see :func:`roll_zoom`), so the photo's
    edges never show. The roll turns the way the move pans. One float affine warp per plane per
    frame."""

    def __init__(self, src: PrescaledI420, motion: Motion, out_w: int, out_h: int) -> None:
        self.src = src
        self.motion = motion
        self.out_w, self.out_h = out_w, out_h
        self.direction = 1.0 if motion.end.cx >= motion.start.cx else -1.0
        self.base_zoom = roll_zoom(math.radians(ROLL_DEGREES), out_w, out_h) * ROLL_SAFETY

    def turn_at(self, index: int) -> tuple[float, float]:
        """(angle in radians, zoom) added to the planned viewport at frame ``index``."""
        u = min(max(index / max(1, self.motion.frames - 1), 0.0), 1.0)
        eased = ease(u)
        angle = self.direction * math.radians(ROLL_DEGREES) * eased
        return angle, self.base_zoom * (1.0 + ROLL_PUSH * eased)

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) as a new I420 frame."""
        rect = self.motion.rect_at(index)
        angle, zoom = self.turn_at(index)
        out = np.empty(yuv.frame_shape(self.out_w, self.out_h), np.uint8)
        for src, dst in zip(self.src.planes, yuv.planes(out), strict=True):
            rows, cols = dst.shape
            view = viewport_matrix(rect, src, cols, rows)
            matrix = _compose_affine(view, _turn_matrix(angle, zoom, cols, rows))
            cv2.warpAffine(src.image, matrix, (cols, rows), dst=dst, flags=cv2.INTER_LINEAR
                           | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        return out


def _turn_matrix(angle: float, zoom: float, width: int, height: int) -> np.ndarray:
    """Inverse affine (output pixel -> unturned output pixel) of a turn by ``angle`` and a zoom
    by ``zoom`` about the centre of a ``width`` x ``height`` plane."""
    cx, cy = width / 2 - 0.5, height / 2 - 0.5
    c, s = math.cos(angle) / zoom, math.sin(angle) / zoom
    return np.array([[c, -s, cx - c * cx + s * cy], [s, c, cy - s * cx - c * cy]], np.float64)


def _compose_affine(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """The 2x3 affine ``outer(inner(p))``."""
    return np.hstack([outer[:, :2] @ inner[:, :2], outer[:, :2] @ inner[:, 2:] + outer[:, 2:]])
