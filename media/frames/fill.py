"""What the moving subject uncovers behind it, and what fills it there.

A parallax subject slides over its background, exposing what it covered: :func:`covered` is
everything the foreground holds and a hair's breadth more, filled smoothly from around it
(:func:`push_pull_fill`, :func:`filled_background`); beyond it the background is the photo's
own. :func:`background_detail` and :func:`uncovered_detail` measure how busy the background is
beside the subject, where the smooth fill will show (a wall or the sky hide it, rock or foliage
do not).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

FILL_ALPHA = 0.04  # the background is filled wherever the soft matte is above this alpha
FILL_MARGIN = 0.003  # and a hair's breadth around it (share of the long edge), no more: beyond
# it the background is the photo's own (a wider fill showed as a blurred band beside the subject)
FILL_LONG_EDGE = 640  # pixels: the background fill (push-pull) is computed this large, once
FILL_BLUR = 0.004  # the fill's final blur sigma, as a share of its long edge
DETAIL_SCALE = 0.005  # detail is what varies within this share of the long edge (about 10 px of
# a 1080p frame): what the smooth fill lacks
DETAIL_SHARE = 0.8  # the strip beside the subject is judged by this quantile of its detail


def push_pull_fill(image: np.ndarray, known: np.ndarray) -> np.ndarray:
    """``image`` (float32 H x W x 3) with its unknown pixels (``known`` 0) filled smoothly from
    the known ones around them: known colours are averaged down an image pyramid and the
    coarser levels fill in what each finer level lacks (no streaks along isophotes, unlike
    Telea's method on a tall hole)."""
    weights = [known.astype(np.float32)]
    sums = [image * weights[0][..., None]]
    while min(weights[-1].shape) > 4:
        weights.append(cv2.pyrDown(weights[-1]))
        sums.append(cv2.pyrDown(sums[-1]))
    colour = sums[-1] / np.maximum(weights[-1], 1e-6)[..., None]
    for total, weight in zip(reversed(sums[:-1]), reversed(weights[:-1]), strict=True):
        up = cv2.pyrUp(colour, dstsize=(weight.shape[1], weight.shape[0]))
        trust = np.clip(weight * 4.0, 0.0, 1.0)[..., None]  # a few known pixels suffice
        colour = trust * (total / np.maximum(weight, 1e-6)[..., None]) + (1.0 - trust) * up
    return colour


def filled_background(image_rgb: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The photo with everything the foreground covers (:func:`covered`: any alpha over
    :data:`FILL_ALPHA`, grown by a hair's breadth) replaced by a smooth fill from around it
    (:func:`push_pull_fill` at :data:`FILL_LONG_EDGE`, computed once per photo), blended in
    through a soft edge outside it: what the moving subject reveals is never the subject's
    ghost, and beyond the subject the background is the photo's own (no blurred band beside
    it even before it moves)."""
    h, w = image_rgb.shape[:2]
    k = min(1.0, FILL_LONG_EDGE / max(h, w))
    size = (max(1, round(w * k)), max(1, round(h * k)))
    small = cv2.resize(image_rgb, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    hole = covered(alpha > round(FILL_ALPHA * 255))
    hole_small = cv2.dilate((cv2.resize(hole.astype(np.uint8), size,
                                        interpolation=cv2.INTER_AREA) > 0).astype(np.uint8),
                            np.ones((3, 3), np.uint8))  # no pixel of the subject feeds the fill
    fill = push_pull_fill(small, 1 - hole_small)
    fill = cv2.GaussianBlur(fill, (0, 0), max(1.0, FILL_BLUR * max(size)))
    fill_up = cv2.resize(np.clip(fill + 0.5, 0, 255).astype(np.uint8), (w, h),
                         interpolation=cv2.INTER_LINEAR)
    del fill, small
    weight = hole.astype(np.float32)
    del hole
    soft = cv2.GaussianBlur(weight, (0, 0), max(1.0, FILL_MARGIN * max(h, w) / 2))
    np.maximum(weight, soft, out=weight)
    del soft
    return cv2.blendLinear(fill_up, image_rgb, weight, 1.0 - weight)


def covered(present: np.ndarray) -> np.ndarray:
    """What the background fill replaces (bool): every pixel where the soft matte gives any
    subject (``present``: alpha over :data:`FILL_ALPHA`), grown by :data:`FILL_MARGIN` of the
    long edge."""
    grow = max(3, round(2 * FILL_MARGIN * max(present.shape)) | 1)
    return cv2.dilate(present.astype(np.uint8),
                      cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow))) > 0


def background_detail(image_rgb: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """The background's fine detail around each pixel not ``hidden`` (float32, luminance units
    0..255; 0 where hidden): the RMS of its luminance less its local mean over
    :data:`DETAIL_SCALE` of the long edge, both taken over the visible pixels only (the
    subject's own edge does not count). A smooth fill is invisible where this is low (sky, a
    plain wall, a blurred background) and shows as a smear where it is high (rock, foliage,
    a crowd, stray hair)."""
    gray = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    seen = (~hidden).astype(np.float32)
    sigma = max(1.0, DETAIL_SCALE * max(gray.shape))

    def mean(values: np.ndarray) -> np.ndarray:
        return cv2.GaussianBlur(values * seen, (0, 0), sigma) / np.maximum(
            cv2.GaussianBlur(seen, (0, 0), sigma), 1e-3)

    fine = (gray - mean(gray)) * seen
    return np.sqrt(mean(fine * fine)) * seen


def uncovered_detail(detail: np.ndarray, hidden: np.ndarray, band: float) -> float:
    """The worst detail beside what the subject uncovers: for each of eight directions the
    background strip ``band`` pixels wide next to ``hidden`` on that side (where the fill will
    show once the subject slides the other way by that much: a pan uncovers both sides, one at
    each end of the shot, a push all round), its :data:`DETAIL_SHARE` quantile; the largest."""
    h, w = hidden.shape
    mask = hidden.astype(np.uint8)
    worst = 0.0
    for k in range(8):
        angle = math.tau * k / 8
        shift = np.float32([[1, 0, -band * math.cos(angle)], [0, 1, -band * math.sin(angle)]])
        moved = cv2.warpAffine(mask, shift, (w, h), flags=cv2.INTER_NEAREST) > 0
        strip = moved & ~hidden
        if np.count_nonzero(strip) >= 8:
            worst = max(worst, float(np.quantile(detail[strip], DETAIL_SHARE)))
    return worst
