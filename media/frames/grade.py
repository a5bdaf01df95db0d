"""The film's colour grade: one look over every photo, clip frame and card backdrop.

A :class:`Grade` is a few numbers: ``contrast`` around mid-grey with ``lift`` raising the
blacks (softer), an S-shaped tone ``curve`` (deeper shadows and brighter highlights without
clipping either), ``warmth`` (red up, blue down, in 0..255 levels at mid-grey), a ``split``
tone (highlights warmed and shadows cooled by that many levels) and ``saturation`` (1 keeps
the colours, lower mixes them toward their luma). It is applied with per-channel lookup tables
and one blend with the gray image (:func:`apply_grade`), so a photo is graded once when it is
decoded. A clip frame is graded on its way to the film's planes (:func:`graded_i420`): the
tables in RGB, the saturation (a linear mix) folded into the RGB to YUV matrix, the glow added
to the planes, each at its own size.

``natural`` (birthdays, anniversaries) leaves the pictures as they are; ``gentle`` (memorials,
pet tributes) is softer, warmer and less saturated.

Signature films are *finished* (:func:`finished` names their grade, e.g. ``natural+finish``):
a designed grade a viewer sees on a phone beside the standard film (the tone curve, richer
colour, warm highlights over cool shadows) and a warm halation around the highlights
(``bloom``, part of the grade, so it belongs to the picture and moves with it), all of it worked
once per photo. Nothing is drawn over the composed frames any more: a film grain and a vignette
were, and neither shows at a phone's 390 pixels across (a two-pixel grain is averaged away, a
16 % darkening of the far corners goes unseen), while x264 spent half the birthday film's bits
on the grain (a foggy shot went from 2.3 to 5.8 Mbit/s) and the two took a quarter of the
render's CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from media.base import yuv

FINISH_SUFFIX = "+finish"  # a grade name ending so is the signature tier's finished look
SPLIT_NORM = 10.392  # 1 / the peak of x (1 - x) (2x - 1): the split tone's full strength
BLOOM_THRESHOLD = 190.0  # luma (0..255) from which highlights glow
BLOOM_SIGMA = 0.025  # the glow's spread, a share of the picture's long edge
BLOOM_DOWNSCALE = 8  # the glow is worked out at 1/8 of the picture's size
BLOOM_TINT = (1.0, 0.62, 0.38)  # halation is warm: red spreads most
BLOOM_AREA = 0.04  # highlight share of a picture above which its glow is scaled down
GRAY_WEIGHTS = (0.299, 0.587, 0.114)  # the gray the saturation mixes toward (OpenCV's RGB2GRAY)


@dataclass(frozen=True)
class Grade:
    """A look: ``contrast`` (1 = unchanged), ``lift`` (black level, 0..255), ``curve`` (the
    S-curve's strength: 0 = none, 1 = a full smoothstep), ``warmth`` (levels added to red and
    taken from blue at mid-grey), ``split`` (levels added to red and taken from blue in the
    highlights, the other way round in the shadows), ``saturation`` (1 = unchanged)."""

    contrast: float = 1.0
    lift: float = 0.0
    warmth: float = 0.0
    saturation: float = 1.0
    curve: float = 0.0
    split: float = 0.0
    bloom: float = 0.0  # strength of the warm glow around highlights (0: none)

    @property
    def identity(self) -> bool:
        """True when the grade changes nothing."""
        return self == Grade()


GRADES = {
    "natural": Grade(),
    "gentle": Grade(contrast=0.88, lift=10.0, warmth=9.0, saturation=0.80),
    "natural" + FINISH_SUFFIX: Grade(lift=3.0, curve=0.3, warmth=4.0, split=6.0,
                                     saturation=1.12, bloom=0.35),
    "gentle" + FINISH_SUFFIX: Grade(contrast=0.92, lift=10.0, curve=0.2, warmth=10.0, split=4.0,
                                    saturation=0.86, bloom=0.4),
}


def grade_named(name: str) -> Grade:
    """The grade called ``name`` (see :data:`GRADES`); unknown names are natural."""
    return GRADES.get(name, GRADES["natural"])


def finished(name: str) -> str:
    """The finished (signature) version of the grade called ``name``."""
    return name if name.endswith(FINISH_SUFFIX) else name + FINISH_SUFFIX


@lru_cache(maxsize=8)
def _luts(grade: Grade) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lookup tables (uint8, 256 entries) of the red, green and blue channels."""
    levels = np.arange(256, dtype=np.float32)
    base = (levels - 128.0) * grade.contrast + 128.0
    if grade.curve:
        x = np.clip(base / 255.0, 0.0, 1.0)
        base = 255.0 * (x + grade.curve * (x * x * (3.0 - 2.0 * x) - x))
    base = grade.lift + base * (255.0 - grade.lift) / 255.0
    bell = 1.0 - ((levels - 128.0) / 128.0) ** 2  # warmth fades out at black and white
    x = levels / 255.0
    tone = SPLIT_NORM * x * (1.0 - x) * (2.0 * x - 1.0)  # -1 at x = 0.21, +1 at 0.79
    warm = grade.warmth * bell + grade.split * tone
    tables = (base + warm, base, base - warm)
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


def graded_i420(image: np.ndarray, grade: Grade) -> np.ndarray:
    """``image`` (uint8 RGB, H x W x 3, even sizes, writable: a clip's decoded frame, used once)
    graded as :func:`apply_grade` grades it, as a new I420 frame (:mod:`media.base.yuv`); its
    tables are applied to ``image`` in place (a new picture-sized array per frame cost more than
    the tables). The saturation, a linear mix toward the gray, rides in the RGB to YUV matrix;
    the glow is added to the planes, its luma at full size and its chroma at half, one channel
    each (where :func:`apply_grade` spreads three channels at full size). The same picture as
    ``yuv.rgb_to_i420(apply_grade(image, grade))`` to rounding, except where the glow pushes
    a channel past white: there the player clips it instead."""
    rgb = cv2.LUT(image, np.dstack(_luts(grade)), dst=image)
    frame = yuv.rgb_to_i420(rgb, _graded_yuv_matrix(grade.saturation))
    if grade.bloom > 0:
        _add_glow(frame, _glow_field(rgb, grade.bloom))
    return frame


@lru_cache(maxsize=8)
def _graded_yuv_matrix(saturation: float) -> np.ndarray:
    """:data:`media.base.yuv.RGB_TO_YUV` after ``saturation``'s mix of each channel toward
    the gray (:data:`GRAY_WEIGHTS`), as one 3 x 4 matrix."""
    mix = saturation * np.eye(3) + (1.0 - saturation) * np.outer(np.ones(3), GRAY_WEIGHTS)
    matrix = yuv.RGB_TO_YUV.astype(np.float64)
    matrix[:, :3] = matrix[:, :3] @ mix
    return matrix.astype(np.float32)


def _add_glow(frame: np.ndarray, glow: np.ndarray) -> None:
    """Add the warm ``glow`` (float32 levels, on the small grid of :func:`_glow_field`) to the
    I420 ``frame`` in place: its tint's luma to Y, its chroma to U and V (saturating)."""
    width, height = yuv.frame_size(frame)
    tint = yuv.RGB_TO_YUV[:, :3] @ np.array(BLOOM_TINT, np.float32)  # levels per glow level
    sizes = ((width, height), (width // 2, height // 2), (width // 2, height // 2))
    for plane, size, level in zip(yuv.planes(frame), sizes, tint, strict=True):
        step = np.clip(glow * abs(float(level)) + 0.5, 0, 255).astype(np.uint8)
        step = cv2.resize(step, size, interpolation=cv2.INTER_LINEAR)
        (cv2.add if level > 0 else cv2.subtract)(plane, step, dst=plane)


def add_bloom(image: np.ndarray, strength: float) -> np.ndarray:
    """``image`` (uint8 RGB) with a warm glow (:data:`BLOOM_TINT`) spread from its highlights
    (luma over :data:`BLOOM_THRESHOLD`), worked out at 1/:data:`BLOOM_DOWNSCALE` size. A
    bright picture (fog, snow: more than :data:`BLOOM_AREA` of it is highlight) glows
    proportionally less, so it is never washed out."""
    return cv2.add(np.ascontiguousarray(image), _bloom_glow(image, strength))


def _bloom_glow(image: np.ndarray, strength: float) -> np.ndarray:
    """The glow :func:`add_bloom` adds to ``image`` (uint8 RGB, its size)."""
    h, w = image.shape[:2]
    glow = _glow_field(image, strength)
    tinted = np.dstack([glow * t for t in BLOOM_TINT])
    return cv2.resize(np.clip(tinted + 0.5, 0, 255).astype(np.uint8), (w, h),
                      interpolation=cv2.INTER_LINEAR)


def _glow_field(image: np.ndarray, strength: float) -> np.ndarray:
    """The glow of ``image`` (uint8 RGB) before its tint: float32 levels on a grid
    :data:`BLOOM_DOWNSCALE` times smaller than the picture (its whole blocks averaged; a
    picture smaller than one block, whole)."""
    h, w = image.shape[:2]
    size = (max(1, w // BLOOM_DOWNSCALE), max(1, h // BLOOM_DOWNSCALE))
    whole = image[:size[1] * BLOOM_DOWNSCALE, :size[0] * BLOOM_DOWNSCALE]  # whole 8x8 blocks:
    # OpenCV's area average at a whole ratio is a fast path, at 8.06 (540 rows) its slow one
    small = cv2.resize(whole if whole.size else image, size, interpolation=cv2.INTER_AREA)
    luma = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float32)
    bright = np.clip((luma - BLOOM_THRESHOLD) / (255.0 - BLOOM_THRESHOLD), 0.0, 1.0)
    strength *= min(1.0, BLOOM_AREA / max(1e-6, float(bright.mean())))
    sigma = max(1.0, BLOOM_SIGMA * max(small.shape[:2]))
    return cv2.GaussianBlur(bright, (0, 0), sigma) * (255.0 * strength)
