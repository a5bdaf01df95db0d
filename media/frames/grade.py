"""The film's colour grade: one look over every photo, clip frame and card backdrop.

A :class:`Grade` is three numbers: ``contrast`` around mid-grey with ``lift`` raising the
blacks (softer), ``warmth`` (red up, blue down, in 0..255 levels at mid-grey) and
``saturation`` (1 keeps the colours, lower mixes them toward their luma). It is applied with
per-channel lookup tables and one blend with the gray image (:func:`apply_grade`), so a photo
is graded once when it is decoded and a clip frame costs a few milliseconds.

``natural`` (birthdays, anniversaries) leaves the pictures as they are; ``gentle`` (memorials,
pet tributes) is softer, warmer and less saturated.

Signature films are *finished* (:func:`finished` names their grade, e.g. ``natural+finish``):
a slightly richer grade with a warm halation around the highlights (``bloom``, part of the
grade, so it belongs to the picture and moves with it), then, on every composed frame, a
:class:`FrameTexture`: a gentle vignette and a soft film grain, both fixed to the frame. The
grain is one field of soft noise drawn once per aspect; each frame shows a window of it at an
offset that is a hash of the frame's index (so a frame is still a pure function of its index),
changing every :data:`GRAIN_HOLD` frames. It is luma only and soft (grain about two pixels
across), so x264 keeps it as texture instead of turning it into blocks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from media.base import yuv

FINISH_SUFFIX = "+finish"  # a grade name ending so is the signature tier's finished look
GRAIN_SIGMA = 0.9  # grain softness: the noise's blur, in output pixels
GRAIN_HOLD = 3  # frames each grain window is shown (grain changes 10 times a second)
GRAIN_MARGIN = 64  # extra grain field around the frame, the room for the windows' offsets
GRAIN_SEED = 20261126  # the grain field's random seed (the same grain in every film)
VIGNETTE_START = 0.6  # the vignette starts this far out (share of the half-diagonal)
BLOOM_THRESHOLD = 190.0  # luma (0..255) from which highlights glow
BLOOM_SIGMA = 0.025  # the glow's spread, a share of the picture's long edge
BLOOM_DOWNSCALE = 8  # the glow is worked out at 1/8 of the picture's size
BLOOM_TINT = (1.0, 0.62, 0.38)  # halation is warm: red spreads most
BLOOM_AREA = 0.04  # highlight share of a picture above which its glow is scaled down


@dataclass(frozen=True)
class Grade:
    """A look: ``contrast`` (1 = unchanged), ``lift`` (black level, 0..255), ``warmth``
    (levels added to red and taken from blue at mid-grey), ``saturation`` (1 = unchanged)."""

    contrast: float = 1.0
    lift: float = 0.0
    warmth: float = 0.0
    saturation: float = 1.0
    bloom: float = 0.0  # strength of the warm glow around highlights (0: none)

    @property
    def identity(self) -> bool:
        """True when the grade changes nothing."""
        return self == Grade()


@dataclass(frozen=True)
class Finish:
    """The frame texture of a finished film: ``grain`` (standard deviation of the luma grain,
    in 0..255 levels) and ``vignette`` (the share of brightness the corners lose)."""

    grain: float = 1.5
    vignette: float = 0.16


GRADES = {
    "natural": Grade(),
    "gentle": Grade(contrast=0.88, lift=10.0, warmth=9.0, saturation=0.80),
    "natural" + FINISH_SUFFIX: Grade(contrast=1.06, lift=4.0, warmth=5.0, saturation=1.05,
                                     bloom=0.35),
    "gentle" + FINISH_SUFFIX: Grade(contrast=0.9, lift=12.0, warmth=11.0, saturation=0.82,
                                    bloom=0.4),
}
FINISHES = {"natural" + FINISH_SUFFIX: Finish(), "gentle" + FINISH_SUFFIX: Finish(grain=1.2)}


def grade_named(name: str) -> Grade:
    """The grade called ``name`` (see :data:`GRADES`); unknown names are natural."""
    return GRADES.get(name, GRADES["natural"])


def finished(name: str) -> str:
    """The finished (signature) version of the grade called ``name``."""
    return name if name.endswith(FINISH_SUFFIX) else name + FINISH_SUFFIX


def finish_named(name: str) -> Finish | None:
    """The frame texture of the grade called ``name``, None when it has none."""
    return FINISHES.get(name)


@lru_cache(maxsize=8)
def _luts(grade: Grade) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lookup tables (uint8, 256 entries) of the red, green and blue channels."""
    levels = np.arange(256, dtype=np.float32)
    base = (levels - 128.0) * grade.contrast + 128.0
    base = grade.lift + base * (255.0 - grade.lift) / 255.0
    bell = 1.0 - ((levels - 128.0) / 128.0) ** 2  # warmth fades out at black and white
    tables = (base + grade.warmth * bell, base, base - grade.warmth * bell)
    return tuple(np.clip(t + 0.5, 0, 255).astype(np.uint8) for t in tables)  # type: ignore[return-value]


def apply_grade(image: np.ndarray, grade: Grade) -> np.ndarray:
    """``image`` (uint8 RGB, H x W x 3) graded, as a new array; the same array when the grade
    is identity. Worked in place on that one new array (a phone photo is ~20 MB a copy, and the
    render grades photos while its encoders and a clip decoder hold their own memory)."""
    if grade.identity:
        return image
    out = cv2.LUT(np.ascontiguousarray(image), np.dstack(_luts(grade)))
    if grade.saturation != 1.0:
        gray = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
        cv2.addWeighted(out, grade.saturation, gray, 1.0 - grade.saturation, 0.0, dst=out)
        del gray
    if grade.bloom > 0:
        cv2.add(out, _bloom_glow(out, grade.bloom), dst=out)
    return out


def add_bloom(image: np.ndarray, strength: float) -> np.ndarray:
    """``image`` (uint8 RGB) with a warm glow (:data:`BLOOM_TINT`) spread from its highlights
    (luma over :data:`BLOOM_THRESHOLD`), worked out at 1/:data:`BLOOM_DOWNSCALE` size. A
    bright picture (fog, snow: more than :data:`BLOOM_AREA` of it is highlight) glows
    proportionally less, so it is never washed out."""
    return cv2.add(np.ascontiguousarray(image), _bloom_glow(image, strength))


def _bloom_glow(image: np.ndarray, strength: float) -> np.ndarray:
    """The glow :func:`add_bloom` adds to ``image`` (uint8 RGB, its size)."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, w // BLOOM_DOWNSCALE), max(1, h // BLOOM_DOWNSCALE)),
                       interpolation=cv2.INTER_AREA)
    luma = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float32)
    bright = np.clip((luma - BLOOM_THRESHOLD) / (255.0 - BLOOM_THRESHOLD), 0.0, 1.0)
    strength *= min(1.0, BLOOM_AREA / max(1e-6, float(bright.mean())))
    sigma = max(1.0, BLOOM_SIGMA * max(small.shape[:2]))
    glow = cv2.GaussianBlur(bright, (0, 0), sigma) * (255.0 * strength)
    tinted = np.dstack([glow * t for t in BLOOM_TINT])
    return cv2.resize(np.clip(tinted + 0.5, 0, 255).astype(np.uint8), (w, h),
                      interpolation=cv2.INTER_LINEAR)


def _grain_field(width: int, height: int, amplitude: float) -> tuple[np.ndarray, np.ndarray]:
    """Soft luma grain (standard deviation ``amplitude`` levels) as its positive and negative
    parts (uint8), :data:`GRAIN_MARGIN` larger than the frame on each axis."""
    rng = np.random.default_rng(GRAIN_SEED)
    noise = rng.standard_normal((height + GRAIN_MARGIN, width + GRAIN_MARGIN), np.float32)
    noise = cv2.GaussianBlur(noise, (0, 0), GRAIN_SIGMA)
    noise *= amplitude / max(1e-6, float(noise.std()))
    positive = np.clip(noise + 0.5, 0, 255).astype(np.uint8)
    negative = np.clip(-noise + 0.5, 0, 255).astype(np.uint8)
    return positive, negative


def _vignette(width: int, height: int, strength: float) -> tuple[np.ndarray, np.ndarray]:
    """Luma gain (uint8, 255 = 1) and the black level it takes back (uint8) of a vignette
    that darkens toward the corners by ``strength``, smoothly from :data:`VIGNETTE_START`."""
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    r = np.hypot((xs + 0.5 - width / 2) / (width / 2), (ys + 0.5 - height / 2) / (height / 2))
    u = np.clip((r / np.sqrt(2) - VIGNETTE_START) / (1 - VIGNETTE_START), 0.0, 1.0)
    gain = 1.0 - strength * u * u * (3 - 2 * u)
    lift = yuv.BLACK_Y * (1.0 - gain)  # darken toward black (16), not below it
    return (np.clip(gain * 255 + 0.5, 0, 255).astype(np.uint8),
            np.clip(lift + 0.5, 0, 255).astype(np.uint8))


def grain_offset(frame: int) -> tuple[int, int]:
    """The grain window's offset (x, y) for film frame ``frame``: a hash of its index, the same
    for :data:`GRAIN_HOLD` frames."""
    key = (frame // GRAIN_HOLD) * 2654435761 % 2 ** 32
    return key % GRAIN_MARGIN, (key >> 16) % GRAIN_MARGIN


class FrameTexture:
    """The finish of one aspect's frames (see the module doc): vignette and grain, drawn once,
    applied to each composed I420 frame with a few saturating array operations on its luma."""

    def __init__(self, finish: Finish, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.gain, self.lift = _vignette(width, height, finish.vignette)
        self.positive, self.negative = _grain_field(width, height, finish.grain)
        self.edges = _darkened_strips(self.gain)

    def apply(self, frame: np.ndarray, index: int) -> np.ndarray:
        """Film frame ``index`` (I420) with the texture, as a new array (``frame`` is not
        written to)."""
        out = frame.copy()
        luma, dst = yuv.luma_rows(frame), yuv.luma_rows(out)
        for strip in self.edges:  # the vignette, where it darkens at all
            cv2.multiply(luma[strip], self.gain[strip], dst=dst[strip], scale=1.0 / 255.0)
            cv2.add(dst[strip], self.lift[strip], dst=dst[strip])
        x, y = grain_offset(index)
        window = (slice(y, y + self.height), slice(x, x + self.width))
        cv2.add(dst, self.positive[window], dst=dst)
        cv2.subtract(dst, self.negative[window], dst=dst)
        return out


def _darkened_strips(gain: np.ndarray) -> tuple[tuple[slice, slice], ...]:
    """Strips (row and column slices: top, bottom, left, right) holding every pixel the
    vignette darkens, around the centre rectangle it leaves untouched (the rectangle inscribed
    in its untouched ellipse: the middle :data:`VIGNETTE_START` of each axis)."""
    height, width = gain.shape
    x0 = math.ceil(width * (1 - VIGNETTE_START) / 2) + 1
    y0 = math.ceil(height * (1 - VIGNETTE_START) / 2) + 1
    x1, y1 = width - x0, height - y0
    everything = ((slice(0, height), slice(0, width)),)
    if x1 <= x0 or y1 <= y0 or not (gain[y0:y1, x0:x1] == 255).all():
        return everything
    cols = slice(0, width)
    return ((slice(0, y0), cols), (slice(y1, height), cols),
            (slice(y0, y1), slice(0, x0)), (slice(y0, y1), slice(x1, width)))
