"""Measuring a photo cheaply: working-scale copies, luminance and the noise level (RGB uint8
arrays in, numbers or smaller arrays out). Shared by the restoration steps
(:mod:`media.intake.restore`) and the defect finder (:mod:`media.intake.defects`)."""

from __future__ import annotations

import cv2
import numpy as np

WORK_LONG_EDGE = 2048  # pixels: noise and defects are measured (and denoised) at this scale


def shrink(image: np.ndarray, long_edge: int) -> tuple[np.ndarray, float]:
    """``image`` area-downscaled so its long edge is at most ``long_edge`` pixels, and the
    scale used (1.0: the very same array)."""
    h, w = image.shape[:2]
    k = long_edge / max(h, w)
    if k >= 1:
        return image, 1.0
    size = (max(1, round(w * k)), max(1, round(h * k)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), k


def resize_long(image: np.ndarray, long_edge: int) -> np.ndarray:
    """``image`` resized (area down, linear up) to a long edge of ``long_edge`` pixels."""
    h, w = image.shape[:2]
    k = long_edge / max(h, w)
    interp = cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR
    return cv2.resize(image, (max(1, round(w * k)), max(1, round(h * k))), interpolation=interp)


def gray(image: np.ndarray) -> np.ndarray:
    """Luminance of an RGB uint8 image (uint8)."""
    return cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)


def estimate_noise(image: np.ndarray) -> float:
    """Noise sigma (8-bit levels) of an RGB uint8 image, at the image's own resolution.

    Immerkaer's 3x3 mask (squared sum 36) cancels smooth content; the median absolute response
    / 0.6745 / 6 is the sigma of white noise, and the median ignores the edges that remain.
    """
    luma = gray(image).astype(np.float32)
    if min(luma.shape) < 8:
        return 0.0
    mask = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)
    response = cv2.filter2D(luma, cv2.CV_32F, mask)[1:-1, 1:-1]
    return float(np.median(np.abs(response))) / 0.6745 / 6.0
