"""Photo restoration for consumer photos and scanned prints: offline, CPU only, gated.

:func:`restore_photo` runs a chain of steps over an RGB uint8 photo. Every step first measures
the problem it fixes, runs only when the measurement says so and only as strongly as needed, so
a good photo comes back unchanged (the very same array when no step fires). Noise and defects
are measured at a working scale (long edge <= :data:`media.intake.measure.WORK_LONG_EDGE`
pixels: what a 1080p film can show of a 12 MP photo), global statistics on 256..512-pixel
copies.

``denoise``
    Luma noise sigma (8-bit levels) from the median absolute response of Immerkaer's
    Laplacian-like mask (the median ignores edges). Above :data:`NOISE_GATE`, non-local means on
    Lab lightness with ``h`` proportional to sigma, edge-aware bilateral smoothing of the chroma.
    A photo larger than the working scale keeps its resolution: the noise removed at the
    working scale is upsampled and subtracted.
``scratches``
    A white and a black top-hat of the luminance; components above a contrast threshold
    (absolute, and relative to the noise) that are long, thin and nearly straight are
    scratches, small strong ones are dust. Both must stand on a smooth surround (whiskers on
    fur, wood grain and lattices do not). Inpainted (Telea) only when at least
    :data:`media.intake.defects.SCRATCH_MIN_COUNT` scratches say the photo is a damaged print; dust
    goes
    with them (:func:`media.intake.defects.find_defects`).
``levels``
    Fade and colour cast with per-channel levels (never gray-world): faded means every
    channel's black point is lifted or the luminance range is short; a cast means the
    highlights are tinted, the shadows tinted the same way and nothing is neutral (a warm scene
    keeps its warmth). Each channel's black point goes to 0 and its white point toward 255 by
    a clamped gain (see :func:`levels_gain`).
``contrast``
    CLAHE on Lab lightness, blended in by how flat the local contrast measures.
``saturation``
    A gentle chroma boost when the mean chroma is low but not monochrome (never colourizes).
``upscale``
    Lanczos up to ``target_long_edge`` (see :func:`cover_long_edge`), then an unsharp mask on
    luminance whose amount and radius grow with the upscale factor, above a noise floor.

Recipes (tier config names them): ``full`` runs every step; ``light`` runs only levels, a
gentler CLAHE and the upscale. :class:`RestoreReport` lists every step with its measurements.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from PIL import Image, ImageCms

from media.analysis.framing import FIT_MARGIN, KEEP_MIN, largest_crop
from media.base.spec import ASPECTS, Aspect
from media.intake.defects import find_defects
from media.intake.measure import WORK_LONG_EDGE, estimate_noise, gray, resize_long, shrink
from media.intake.photos import JPEG_QUALITY

Recipe = Literal["light", "full"]
RECIPES: dict[str, tuple[str, ...]] = {
    "full": ("denoise", "scratches", "levels", "contrast", "saturation", "upscale"),
    "light": ("levels", "contrast", "upscale"),
}

MAX_UPSCALE = 4.0  # the upscale never enlarges a photo more than this (linear factor)
MAX_LONG_EDGE = 4096  # pixels: the upscale never makes the long edge longer than this

NOISE_GATE = 2.5  # 8-bit levels: below this estimated sigma the photo is not denoised
NLM_H_PER_SIGMA = 1.1  # non-local means filter strength per level of estimated sigma
NLM_H_MAX = 24.0
NLM_TEMPLATE, NLM_SEARCH = 5, 11  # non-local means patch and search window (pixels)

SCRATCH_MIN_PHOTO_EDGE = 200  # pixels: on smaller photos thin lines are mostly real detail
DEFECT_MAX_AREA = 0.04  # more than this share of the photo "defective": detail, not damage

LEVELS_LOW_PCT, LEVELS_HIGH_PCT = 0.5, 99.5
LEVELS_BLACK_LIFT = 20.0  # every channel's black point above this: faded (8-bit levels)
LEVELS_MIN_RANGE = 120.0  # luminance range (levels between its points) below this: faded
# A cast: the highlights tinted this much (8-bit levels; a warm scene's whites stay near
# neutral), the shadows tinted too, in about the same direction (cosine), and nothing in the
# photo neutral (Lab chroma of its least colourful tenth).
LEVELS_CAST_HIGHLIGHT = 25.0
LEVELS_CAST_SHADOW = 4.0
LEVELS_CAST_AGREEMENT = 0.5
LEVELS_NEUTRAL_CHROMA = 8.0
LEVELS_MAX_GAIN = 3.0  # no channel is stretched more than this
LEVELS_MAX_CAST_GAIN = 1.5  # no channel's gain exceeds another's by more than this ratio

CONTRAST_LONG_EDGE = 256  # pixels: local contrast is measured on a copy this large
CONTRAST_GATE = 5.0  # L units (0..100): local contrast below this is flat (hazy, faded)
CONTRAST_CLIP = {"full": 2.0, "light": 1.4}  # CLAHE clip limit per recipe
CONTRAST_TILES = 8  # CLAHE tiles across the long edge

CHROMA_MONO = 3.0  # Lab chroma: below this the photo is monochrome (left alone)
CHROMA_LOW = 12.0  # Lab chroma: below this saturation is boosted toward it
SATURATION_MAX_GAIN = 1.25

SHARPEN_PER_FACTOR = 0.35  # unsharp amount per unit of upscale factor above 1
SHARPEN_MAX = 0.8
SHARPEN_SIGMA_PER_FACTOR = 0.5  # unsharp blur sigma (output pixels) per upscale factor
SHARPEN_THRESHOLD = 2.0  # 8-bit levels of detail ignored by the unsharp mask (noise floor)


@dataclass(frozen=True)
class StepReport:
    """One step of the chain: whether it ran, what it measured, how long it took (ms)."""

    name: str
    applied: bool
    measurements: dict[str, float]
    reason: str = ""
    ms: float = 0.0


@dataclass(frozen=True)
class RestoreReport:
    """What :func:`restore_photo` did to a photo: sizes in pixels, each step considered."""

    recipe: str
    input_size: tuple[int, int]
    output_size: tuple[int, int]
    steps: tuple[StepReport, ...] = field(default_factory=tuple)

    @property
    def applied(self) -> tuple[str, ...]:
        """Names of the steps that changed the photo, in order."""
        return tuple(s.name for s in self.steps if s.applied)

    def step(self, name: str) -> StepReport:
        """The report of step ``name`` (KeyError if the recipe did not consider it)."""
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``applied`` included)."""
        return {**asdict(self), "applied": list(self.applied)}


def cover_long_edge(width: int, height: int, aspects: tuple[Aspect, ...] = ASPECTS) -> int:
    """Long edge (pixels) a ``width`` x ``height`` photo needs to be shown 1:1 in every aspect:
    its largest crop covering the frame, or, where a crop would keep too little of it (the
    photo is then fitted, see :func:`media.analysis.framing.needs_fit`), the fitted photo. Capped by
    :data:`MAX_LONG_EDGE`."""
    factors = []
    for aspect in aspects:
        crop_w, crop_h = largest_crop(width, height, aspect)
        if crop_w * crop_h >= KEEP_MIN * width * height:
            factors.append(aspect.width / crop_w)
        else:
            margin = 2 * FIT_MARGIN * min(aspect.width, aspect.height)
            factors.append(min((aspect.width - margin) / width, (aspect.height - margin) / height))
    return min(MAX_LONG_EDGE, math.ceil(max(width, height) * max(factors)))


# --- measurements ----------------------------------------------------------------------------


def _level_copy(image: np.ndarray) -> np.ndarray:
    """A 512-pixel copy, median-filtered so that noise, scratches and dust do not move the
    black and white points."""
    small = shrink(image, 512)[0]
    return cv2.medianBlur(small, 5 if max(small.shape[:2]) >= 400 else 3)


def channel_points(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel black and white points (8-bit levels): the 0.5 and 99.5 percentiles of a
    median-filtered copy."""
    pixels = _level_copy(image).reshape(-1, 3)
    low = np.percentile(pixels, LEVELS_LOW_PCT, axis=0)
    high = np.percentile(pixels, LEVELS_HIGH_PCT, axis=0)
    return low.astype(np.float64), high.astype(np.float64)


def local_contrast(image: np.ndarray) -> float:
    """RMS deviation (L units, 0..100) of Lab lightness from its blur at 1/32 of the long edge,
    on a copy resized to :data:`CONTRAST_LONG_EDGE` pixels (so the measure does not depend on
    the photo's resolution): how much local contrast the photo shows."""
    small = resize_long(image, CONTRAST_LONG_EDGE)
    light = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)[..., 0]
    base = cv2.GaussianBlur(light, (0, 0), CONTRAST_LONG_EDGE / 32)
    return float(np.sqrt(np.mean((light - base) ** 2)))


def mean_chroma(image: np.ndarray) -> float:
    """Mean Lab chroma of the mid-tones (15 < L < 90) on a 512-pixel copy."""
    lab = cv2.cvtColor(shrink(image, 512)[0].astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
    mid = (lab[..., 0] > 15) & (lab[..., 0] < 90)
    if not mid.any():
        return 0.0
    return float(np.hypot(lab[..., 1], lab[..., 2])[mid].mean())


# --- steps -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Options:
    recipe: str
    target_long_edge: int


StepResult = tuple[np.ndarray | None, dict[str, float], str]
"""(new image, or None when the gate kept the step from running; measurements; reason)."""


def _denoise(image: np.ndarray, opts: _Options) -> StepResult:
    """Non-local means as strong as the noise measured at the working scale (see module doc)."""
    work, k = shrink(image, WORK_LONG_EDGE)
    sigma = estimate_noise(work)
    meas = {"sigma": round(sigma, 2), "work_scale": round(k, 3)}
    if sigma < NOISE_GATE:
        return None, meas, f"noise sigma {sigma:.1f} < {NOISE_GATE}"
    h = min(NLM_H_MAX, NLM_H_PER_SIGMA * sigma)
    lab = cv2.cvtColor(work, cv2.COLOR_RGB2LAB)
    smooth = cv2.bilateralFilter(lab, 5, 3.0 * h, 2.0)  # edge-aware chroma
    lab[..., 0] = cv2.fastNlMeansDenoising(lab[..., 0], None, h, NLM_TEMPLATE, NLM_SEARCH)
    lab[..., 1:] = smooth[..., 1:]
    clean = cv2.cvtColor(lab, cv2.COLOR_LAB2RGB)
    meas.update(h=round(h, 2), sigma_after=round(estimate_noise(clean), 2))
    if k == 1.0:
        return clean, meas, ""
    # Larger than the working scale: remove the noise as seen at that scale (the film never
    # shows finer detail than that), keeping the photo's native resolution.
    delta = cv2.subtract(clean, work, dtype=cv2.CV_16S)
    delta = cv2.resize(delta, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_LINEAR)
    return cv2.add(image, delta, dtype=cv2.CV_8U), meas, ""  # saturating


def _scratches(image: np.ndarray, opts: _Options) -> StepResult:
    """Inpaint detected scratches and dust (Telea), only when some were found."""
    if min(image.shape[:2]) < SCRATCH_MIN_PHOTO_EDGE:
        return None, {}, f"too small to tell scratches from detail (< {SCRATCH_MIN_PHOTO_EDGE})"
    mask, counts = find_defects(image)
    meas = {k: round(v, 5) for k, v in counts.items()}
    if counts["area"] == 0:
        return None, meas, "no scratches found (dust alone is not removed)"
    if counts["area"] > DEFECT_MAX_AREA:
        return None, meas, "too much of the photo looks defective: taken for texture"
    h, w = image.shape[:2]
    scale = w / mask.shape[1]
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    if scale != 1.0:
        mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
        mask = np.where(mask > 0, 255, 0).astype(np.uint8)
    radius = max(3.0, 2.0 * scale)
    return cv2.inpaint(image, mask, radius, cv2.INPAINT_TELEA), meas, ""


def tints(low: np.ndarray, high: np.ndarray) -> tuple[float, float, float]:
    """How the shadows and the highlights are tinted: the lengths (8-bit levels) of each
    channel's black and white point minus their mean, and the cosine between the two."""
    shadow, highlight = low - low.mean(), high - high.mean()
    norms = float(np.linalg.norm(shadow)), float(np.linalg.norm(highlight))
    if min(norms) < 1e-6:
        return norms[0], norms[1], 0.0
    return norms[0], norms[1], float(shadow @ highlight) / (norms[0] * norms[1])


def neutral_chroma(image: np.ndarray) -> float:
    """Mean Lab chroma of the least colourful tenth of the mid-tones: about 0 when the photo
    holds anything neutral (white, gray, black), high when a cast tints everything."""
    lab = cv2.cvtColor(shrink(image, 512)[0].astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
    mid = (lab[..., 0] > 20) & (lab[..., 0] < 95)
    if not mid.any():
        return 0.0
    chroma = np.sort(np.hypot(lab[..., 1], lab[..., 2])[mid])
    return float(chroma[:max(1, chroma.size // 10)].mean())


def levels_gain(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Per-channel gain once each black point is taken to 0: the geometric mean of a full
    stretch (white point to 255) and a veil removal (255 / (255 - black)), clamped.

    A faded print's true white is unknown: a full stretch is right for a photo that had
    whites and badly overshoots a low-key one (skimage's chelsea), the veil model alone
    under-corrects; halfway in log gain is never far off either way.
    """
    full = 255.0 / np.maximum(high - low, 1.0)
    veil = 255.0 / np.maximum(255.0 - low, 1.0)
    gain = np.minimum(np.sqrt(full * veil), LEVELS_MAX_GAIN)
    return np.minimum(gain, gain.min() * LEVELS_MAX_CAST_GAIN)


def _levels(image: np.ndarray, opts: _Options) -> StepResult:
    """Per-channel levels for fade and cast: each channel's black point to 0 and its white
    point toward 255 (see :func:`levels_gain`)."""
    low, high = channel_points(image)
    luma_range = float(np.ptp(np.percentile(gray(_level_copy(image)),
                                            (LEVELS_LOW_PCT, LEVELS_HIGH_PCT))))
    shadow, highlight, agreement = tints(low, high)
    neutral = neutral_chroma(image)
    meas = {"black_r": low[0], "black_g": low[1], "black_b": low[2], "white_r": high[0],
            "white_g": high[1], "white_b": high[2], "luma_range": luma_range,
            "shadow_tint": shadow, "highlight_tint": highlight, "tint_agreement": agreement,
            "neutral_chroma": neutral}
    meas = {k: round(float(v), 2) for k, v in meas.items()}
    faded = low.min() > LEVELS_BLACK_LIFT or luma_range < LEVELS_MIN_RANGE
    cast = (highlight >= LEVELS_CAST_HIGHLIGHT and shadow >= LEVELS_CAST_SHADOW
            and agreement >= LEVELS_CAST_AGREEMENT and neutral >= LEVELS_NEUTRAL_CHROMA)
    if not (faded or cast):
        return None, meas, "not faded, no cast"
    gain = levels_gain(low, high)
    levels = np.arange(256, dtype=np.float64)
    luts = [np.clip((levels - low[c]) * gain[c] + 0.5, 0, 255).astype(np.uint8)
            for c in range(3)]
    out = cv2.merge([cv2.LUT(np.ascontiguousarray(image[..., c]), luts[c]) for c in range(3)])
    meas.update(gain_r=round(float(gain[0]), 3), gain_g=round(float(gain[1]), 3),
                gain_b=round(float(gain[2]), 3))
    return out, meas, "faded" if faded else "cast"


def _contrast(image: np.ndarray, opts: _Options) -> StepResult:
    """CLAHE on Lab lightness, blended in by how flat the local contrast measures."""
    contrast = local_contrast(image)
    meas = {"local_contrast": round(contrast, 2)}
    if contrast >= CONTRAST_GATE:
        return None, meas, f"local contrast {contrast:.1f} >= {CONTRAST_GATE}"
    strength = min(1.0, 2.0 * (CONTRAST_GATE - contrast) / CONTRAST_GATE)
    lab = cv2.cvtColor(image, cv2.COLOR_RGB2LAB)
    h, w = image.shape[:2]
    tiles = (max(2, round(CONTRAST_TILES * w / max(h, w))),
             max(2, round(CONTRAST_TILES * h / max(h, w))))
    clahe = cv2.createCLAHE(clipLimit=CONTRAST_CLIP[opts.recipe], tileGridSize=tiles)
    light = lab[..., 0]
    lab[..., 0] = cv2.addWeighted(clahe.apply(light), strength, light, 1.0 - strength, 0.0)
    meas["strength"] = round(strength, 3)
    return cv2.cvtColor(lab, cv2.COLOR_LAB2RGB), meas, ""


def _saturation(image: np.ndarray, opts: _Options) -> StepResult:
    """Gentle chroma boost for washed-out colour; monochrome photos stay monochrome."""
    chroma = mean_chroma(image)
    meas = {"chroma": round(chroma, 2)}
    if chroma < CHROMA_MONO:
        return None, meas, "monochrome"
    if chroma >= CHROMA_LOW:
        return None, meas, f"chroma {chroma:.1f} >= {CHROMA_LOW}"
    gain = min(SATURATION_MAX_GAIN, CHROMA_LOW / chroma)
    lab = cv2.cvtColor(image, cv2.COLOR_RGB2LAB)
    lut = np.clip((np.arange(256) - 128.0) * gain + 128.5, 0, 255).astype(np.uint8)
    lab[..., 1] = cv2.LUT(lab[..., 1], lut)
    lab[..., 2] = cv2.LUT(lab[..., 2], lut)
    meas["gain"] = round(gain, 3)
    return cv2.cvtColor(lab, cv2.COLOR_LAB2RGB), meas, ""


def _upscale(image: np.ndarray, opts: _Options) -> StepResult:
    """Lanczos up to the target long edge, then a luminance unsharp mask grown with the factor."""
    h, w = image.shape[:2]
    long_edge = max(h, w)
    target = min(opts.target_long_edge, MAX_LONG_EDGE, math.floor(long_edge * MAX_UPSCALE))
    meas = {"long_edge": float(long_edge), "target": float(opts.target_long_edge)}
    if target <= long_edge:
        return None, meas, "large enough"
    factor = target / long_edge
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    up = cv2.resize(image, size, interpolation=cv2.INTER_LANCZOS4)
    amount = min(SHARPEN_MAX, SHARPEN_PER_FACTOR * (factor - 1.0))
    luma = gray(up).astype(np.float32)
    detail = luma - cv2.GaussianBlur(luma, (0, 0), SHARPEN_SIGMA_PER_FACTOR * factor)
    detail = np.sign(detail) * np.maximum(np.abs(detail) - SHARPEN_THRESHOLD, 0.0)
    out = _to_u8(up.astype(np.float32) + (amount * detail)[..., None])
    meas.update(factor=round(factor, 3), sharpen=round(amount, 3))
    return out, meas, ""


def _to_u8(image: np.ndarray) -> np.ndarray:
    """Float 8-bit levels rounded and clipped to uint8."""
    return np.clip(image + 0.5, 0, 255).astype(np.uint8)


STEPS: dict[str, Callable[[np.ndarray, _Options], StepResult]] = {
    "denoise": _denoise, "scratches": _scratches, "levels": _levels, "contrast": _contrast,
    "saturation": _saturation, "upscale": _upscale,
}


def restore_photo(image_rgb: np.ndarray, recipe: Recipe = "full",
                  target_long_edge: int = 0) -> tuple[np.ndarray, RestoreReport]:
    """Restore an RGB uint8 photo (H, W, 3) with ``recipe`` (``full`` or ``light``).

    ``target_long_edge`` (pixels; 0 = keep the size) is the long edge the photo is upscaled to
    when smaller (see :func:`cover_long_edge`), at most :data:`MAX_UPSCALE` times and
    :data:`MAX_LONG_EDGE` pixels. Returns the photo (the input array itself when no step ran)
    and a report of every step with its measurements.
    """
    if recipe not in RECIPES:
        raise ValueError(f"unknown restore recipe {recipe!r}")
    image = np.ascontiguousarray(image_rgb[..., :3])
    if image.dtype != np.uint8:
        raise ValueError("restore_photo expects uint8 RGB")
    opts = _Options(recipe, int(target_long_edge))
    reports = []
    for name in RECIPES[recipe]:
        started = time.perf_counter()
        out, meas, reason = STEPS[name](image, opts)
        if out is not None:
            image = out
        reports.append(StepReport(name, out is not None, meas, reason,
                                  round(1000 * (time.perf_counter() - started), 1)))
    if image is not image_rgb and not any(r.applied for r in reports):
        image = image_rgb
    h0, w0 = image_rgb.shape[:2]
    return image, RestoreReport(recipe, (w0, h0), (image.shape[1], image.shape[0]),
                                tuple(reports))


def save_jpeg(image_rgb: np.ndarray, dest: Path) -> None:
    """Write a restored RGB uint8 photo as an sRGB-tagged JPEG at the working copies' quality
    (:data:`media.intake.photos.JPEG_QUALITY`), atomically (temp file + rename)."""
    partial = dest.with_name(f".{dest.name}.part")
    try:
        Image.fromarray(image_rgb).save(partial, "JPEG", quality=JPEG_QUALITY,
                                        icc_profile=_srgb_icc())
        os.replace(partial, dest)
    finally:
        partial.unlink(missing_ok=True)


@lru_cache(maxsize=1)
def _srgb_icc() -> bytes:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
