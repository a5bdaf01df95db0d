"""The brand logo over the film: small in a corner on shots, larger on the cards.

A logo is an RGBA uint8 image (straight alpha). :func:`film_logo_box` places it inside the safe
area of each aspect: bottom-right of 16:9 inside the title-safe margin, top-centre of 9:16 just
below the band platforms cover with their UI (:data:`media.cards.text.SOCIAL_TOP_CLEAR`).
:class:`LogoOverlay` scales it once (area averaging, premultiplied so edges stay clean),
converts it once to the film's planes (:class:`PlanarLogo`) and blends it onto I420 film frames
with a per-frame opacity; cards blend the RGB logo (:func:`blend_logo`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from media.base import yuv
from media.base.spec import Aspect

TITLE_SAFE = 0.05  # fraction of each frame edge kept clear (16:9 title-safe)
PORTRAIT_TOP_CLEAR = 0.12  # top of 9:16 covered by platform UI
FILM_LOGO_MAX_H = 0.055  # of the frame's short side: the corner logo's largest height
FILM_LOGO_MAX_W = 0.26  # of the frame's short side: the widest a word-mark may get
FILM_LOGO_OPACITY = 0.88
CARD_LOGO_MAX_H = 0.13  # of the short side, on the cards
CARD_LOGO_MAX_W = 0.42

Box = tuple[int, int, int, int]
"""(x, y, width, height) in frame pixels."""


def _fitted_size(logo_w: int, logo_h: int, max_w: float, max_h: float) -> tuple[int, int]:
    """The logo's size (pixels) scaled to fit ``max_w`` x ``max_h``, keeping its ratio."""
    k = min(max_w / max(1, logo_w), max_h / max(1, logo_h))
    return max(1, round(logo_w * k)), max(1, round(logo_h * k))


def film_logo_box(aspect: Aspect, logo_w: int, logo_h: int) -> Box:
    """Where the small logo sits on film frames of ``aspect`` (pixels)."""
    unit = min(aspect.width, aspect.height)
    w, h = _fitted_size(logo_w, logo_h, FILM_LOGO_MAX_W * unit, FILM_LOGO_MAX_H * unit)
    if aspect.is_portrait:
        x = (aspect.width - w) // 2
        y = math.ceil(aspect.height * PORTRAIT_TOP_CLEAR) + round(0.015 * aspect.height)
        return x, y, w, h
    x = aspect.width - math.ceil(aspect.width * TITLE_SAFE) - w
    y = aspect.height - math.ceil(aspect.height * TITLE_SAFE) - h
    return x, y, w, h


def card_logo_size(width: int, height: int, logo_w: int, logo_h: int) -> tuple[int, int]:
    """The logo's size (pixels) on a ``width`` x ``height`` card: larger than on the shots."""
    unit = min(width, height)
    return _fitted_size(logo_w, logo_h, CARD_LOGO_MAX_W * unit, CARD_LOGO_MAX_H * unit)


def check_logo(logo: np.ndarray) -> np.ndarray:
    """``logo`` as a uint8 RGBA array (RGB gets an opaque alpha); ValueError otherwise."""
    data = np.asarray(logo)
    if data.ndim != 3 or data.shape[2] not in (3, 4) or min(data.shape[:2]) < 1:
        raise ValueError(f"logo must be an RGB(A) image, got shape {data.shape}")
    if data.dtype != np.uint8:
        data = np.clip(data, 0, 255).astype(np.uint8)
    if data.shape[2] == 3:
        data = np.dstack([data, np.full(data.shape[:2], 255, np.uint8)])
    return data


@dataclass(frozen=True)
class ScaledLogo:
    """A logo scaled for one placement: premultiplied colour and alpha (float32, 0..1) and its
    top-left corner on the frame (pixels)."""

    colour: np.ndarray
    alpha: np.ndarray
    x: int
    y: int


def scale_logo(logo: np.ndarray, box: Box) -> ScaledLogo:
    """``logo`` (RGBA uint8) scaled into ``box`` (x, y, w, h pixels), premultiplied."""
    x, y, w, h = box
    rgba = check_logo(logo).astype(np.float32) / 255.0
    rgba[..., :3] *= rgba[..., 3:4]  # premultiply before filtering: no dark fringes
    interp = cv2.INTER_AREA if w < rgba.shape[1] else cv2.INTER_CUBIC
    small = np.clip(cv2.resize(rgba, (w, h), interpolation=interp), 0.0, 1.0)
    return ScaledLogo(np.ascontiguousarray(small[..., :3]), np.ascontiguousarray(small[..., 3]),
                      x, y)


def blend_logo(frame: np.ndarray, logo: ScaledLogo, opacity: float = 1.0) -> np.ndarray:
    """A copy of ``frame`` (uint8 RGB) with ``logo`` composited at ``opacity`` (0..1)."""
    out = frame.copy()
    if opacity <= 1e-3:
        return out
    h, w = logo.alpha.shape
    region = out[logo.y:logo.y + h, logo.x:logo.x + w].astype(np.float32)
    alpha = logo.alpha[: region.shape[0], : region.shape[1], None] * opacity
    colour = logo.colour[: region.shape[0], : region.shape[1]] * (255.0 * opacity)
    region = region * (1.0 - alpha) + colour
    out[logo.y:logo.y + h, logo.x:logo.x + w] = np.clip(region + 0.5, 0, 255).astype(np.uint8)
    return out


@dataclass(frozen=True)
class LogoPlane:
    """One plane of a logo ready to blend: premultiplied value (float32, plane levels: the
    logo's Y, U or V times its alpha), alpha (float32, 0..1) and its top-left corner on the
    plane (pixels)."""

    value: np.ndarray
    alpha: np.ndarray
    x: int
    y: int


@dataclass(frozen=True)
class PlanarLogo:
    """A :class:`ScaledLogo` as the film's Y, U and V planes (chroma half size)."""

    planes: tuple[LogoPlane, LogoPlane, LogoPlane]


def planar_logo(logo: ScaledLogo) -> PlanarLogo:
    """``logo`` converted once to premultiplied BT.709 limited-range planes: Y at its own
    placement; U and V over the even-aligned 2x2 blocks it touches, value and alpha averaged
    over each block (what a 2x2 chroma average of the blended frame sees)."""
    h, w = logo.alpha.shape
    x0, y0 = logo.x - logo.x % 2, logo.y - logo.y % 2  # even-aligned box around the logo
    bw, bh = (logo.x + w - x0 + 1) // 2 * 2, (logo.y + h - y0 + 1) // 2 * 2
    alpha = np.zeros((bh, bw), np.float32)
    colour = np.zeros((bh, bw, 3), np.float32)
    sx, sy = logo.x - x0, logo.y - y0
    alpha[sy:sy + h, sx:sx + w] = logo.alpha
    colour[sy:sy + h, sx:sx + w] = logo.colour * 255.0
    # premultiplied: matrix times premultiplied RGB, plus each plane's offset times alpha
    value = cv2.transform(colour, yuv.RGB_TO_YUV[:, :3]) + (
        alpha[..., None] * yuv.RGB_TO_YUV[:, 3])
    luma = LogoPlane(np.ascontiguousarray(value[sy:sy + h, sx:sx + w, 0]),
                     np.ascontiguousarray(logo.alpha), logo.x, logo.y)
    half = (bw // 2, bh // 2)
    c_alpha = cv2.resize(alpha, half, interpolation=cv2.INTER_AREA)
    chroma = [LogoPlane(cv2.resize(np.ascontiguousarray(value[..., i]), half,
                                   interpolation=cv2.INTER_AREA), c_alpha, x0 // 2, y0 // 2)
              for i in (1, 2)]
    return PlanarLogo((luma, chroma[0], chroma[1]))


def blend_logo_i420(frame: np.ndarray, logo: PlanarLogo, opacity: float = 1.0) -> np.ndarray:
    """A copy of the I420 ``frame`` with ``logo`` composited at ``opacity`` (0..1), plane by
    plane: ``out = under * (1 - alpha * opacity) + value * opacity``."""
    out = frame.copy()
    if opacity <= 1e-3:
        return out
    for plane, dst in zip(logo.planes, yuv.planes(out), strict=True):
        h, w = plane.alpha.shape
        region = dst[plane.y:plane.y + h, plane.x:plane.x + w]
        rh, rw = region.shape
        mixed = (region.astype(np.float32) * (1.0 - plane.alpha[:rh, :rw] * opacity)
                 + plane.value[:rh, :rw] * opacity)
        region[:] = np.clip(mixed + 0.5, 0, 255).astype(np.uint8)
    return out


class LogoOverlay:
    """The small corner logo of every aspect, ready to blend onto I420 film frames."""

    def __init__(self, logo: np.ndarray, aspects: tuple[Aspect, ...]) -> None:
        rgba = check_logo(logo)
        h, w = rgba.shape[:2]
        self.scaled = {a.name: scale_logo(rgba, film_logo_box(a, w, h)) for a in aspects}
        self.planar = {name: planar_logo(scaled) for name, scaled in self.scaled.items()}

    def apply(self, frame: np.ndarray, aspect: Aspect, weight: float) -> np.ndarray:
        """The I420 ``frame`` with the logo at ``weight`` (0..1, e.g. how much of the frame is
        a shot rather than a card) times :data:`FILM_LOGO_OPACITY` (a new frame); the frame
        itself if 0."""
        if weight <= 1e-3:
            return frame
        return blend_logo_i420(frame, self.planar[aspect.name], weight * FILM_LOGO_OPACITY)
