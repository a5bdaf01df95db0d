"""The soft matte: what hangs from the subject (hair, fur, a strand against the sky) lifted
with it onto the foreground layer, in the subject's own colours.

The cut (:mod:`media.frames.matte`) is hard at its low resolution; :func:`prior_alpha` snaps it
to the photo's own edges with a guided filter, and :func:`soft_matte` explains each pixel of a
band around it as a mix of the subject's colour and the background's there (a two-colour model,
the colours carried in by :func:`media.frames.fill.push_pull_fill`), keeping what it lifts
outside the cut only where it is a strand hanging from the subject. :func:`layer_matte` gives the
foreground layer its alpha and colours at the photo's size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from media.frames.fill import push_pull_fill

FEATHER = 0.0009  # alpha feather sigma after edge snapping, as a share of the long edge
GUIDE_RADIUS = 1.5  # guided-filter radius, in low-resolution mask pixels
GUIDE_EPS = 1e-3  # guided-filter regularization (intensity^2): lower follows edges harder
REFINE_LONG_EDGE = 2048  # pixels: the guided filter's working size (float32 planes at 12 MP
# would hold ~0.5 GB at once; at 2048 px, under 1080p crops, the edge looks the same)
CLEAN_ALPHA = 250  # alpha (0..255) from which a foreground pixel is pure subject colour
MATTE_REACH = 0.035  # the soft matte looks this far outside the cut for hair (share of long
# edge)
MATTE_INSIDE = 0.002  # and this far inside it (the subject's colour is read just inside that)
MATTE_NOISE = 8.0  # colour units added to the spread of the colours (the two-colour model's noise)
MATTE_TRUST = (1.5, 3.0)  # subject-to-background contrast over that spread: no trust .. full
MATTE_MISS_MAX = 0.5  # a pixel this far off the two colours' line (share of their contrast)
# is not a mix of them: the cut's alpha stays there
MATTE_SPECK = 0.15  # alpha above which a lifted pixel outside the cut must hang from the subject
MATTE_STRAND = 0.004  # and be part of a strand thinner than this (share of the long edge): a
# solid region the colours lift outside the cut (a door frame as bright as a face) stays behind


def _ramps(values: np.ndarray, doubtful: float, good: float) -> np.ndarray:
    """:func:`media.frames.matte.ramp` on an array (float32)."""
    return np.clip((values - doubtful) / (good - doubtful), 0.0, 1.0).astype(np.float32)


def prior_alpha(work: np.ndarray, piece: np.ndarray) -> np.ndarray:
    """The cut ``piece`` (bool, low resolution) as an alpha of the RGB ``work`` copy (float32
    0..1): upsampled, snapped to the photo's own edges by a guided filter (He et al. 2010;
    luminance guide, radius a little over one mask pixel) and lightly feathered
    (:data:`FEATHER`)."""
    wh, ww = work.shape[:2]
    scale = ww / piece.shape[1]
    prior = cv2.resize(piece.astype(np.uint8) * 255, (ww, wh),
                       interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255
    guide = cv2.cvtColor(work, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255
    alpha = guided_filter(guide, prior, max(2, round(GUIDE_RADIUS * scale)), GUIDE_EPS)
    del prior, guide
    alpha = cv2.GaussianBlur(alpha, (0, 0), max(0.7, FEATHER * max(wh, ww)))
    return np.clip(alpha, 0.0, 1.0, out=alpha)


def _local_spread(image: np.ndarray, known: np.ndarray, sigma: float) -> np.ndarray:
    """How much the ``known`` colours of ``image`` (float32 RGB) vary around each pixel: the RMS
    distance (colour units) to their Gaussian-weighted mean within ``sigma`` pixels, carried
    over the unknown pixels nearby; worked at a quarter of the size (a smooth field)."""
    h, w = known.shape
    small = (max(1, w // 4), max(1, h // 4))
    weight = known.astype(np.float32)
    colour = cv2.resize(image * weight[..., None], small, interpolation=cv2.INTER_AREA)
    power = cv2.resize(np.einsum("ijk,ijk->ij", image, image) * weight, small,
                       interpolation=cv2.INTER_AREA)
    share = cv2.resize(weight, small, interpolation=cv2.INTER_AREA)
    s = max(1.0, sigma / 4)
    total = cv2.GaussianBlur(share, (0, 0), s) + 1e-6
    mean = cv2.GaussianBlur(colour, (0, 0), s) / total[..., None]
    variance = cv2.GaussianBlur(power, (0, 0), s) / total - np.einsum("ijk,ijk->ij", mean, mean)
    spread = np.sqrt(np.maximum(variance, 0.0))
    return cv2.resize(spread, (w, h), interpolation=cv2.INTER_LINEAR)


@dataclass(frozen=True)
class SoftMatte:
    """A subject's alpha at a working size with its own colours at the soft edge: ``alpha``
    (float32 0..1, the whole picture) and, over ``roi`` (x0, y0, x1, y1), ``colour`` (float32
    RGB: the subject's colour where the alpha is partial, estimated without the background
    behind it); ``colour`` is None when the cut had no edge to refine."""

    alpha: np.ndarray
    colour: np.ndarray | None
    roi: tuple[int, int, int, int]


def soft_matte(work: np.ndarray, piece: np.ndarray) -> SoftMatte:
    """The subject's soft matte on the RGB uint8 ``work`` copy from its cut ``piece``.

    The guided-filter alpha (:func:`prior_alpha`) is hard at the scale of the cut, so fine
    structures beyond it (hair, fur, a strand against the sky) would stay in the background
    and show as a ghost once the subject moves. In a band around the cut (:data:`MATTE_REACH`
    outside, :data:`MATTE_INSIDE` inside) each pixel is explained as a mix of the subject's
    colour and the background's there (both carried in from the pixels beyond the band by
    :func:`push_pull_fill`): its alpha is its position on the line between the two (Bayesian
    matting with one sample each, Chuang et al. 2001). That alpha is trusted as far as the two
    colours stand apart against how much each varies around there (:func:`_local_spread`) and
    the pixel lies on that line; elsewhere the guided-filter alpha stays. What the model lifts
    outside the cut stays only where it is a strand (thinner than :data:`MATTE_STRAND`) hanging
    from the subject (a speck of the same colour in the background, or a bright door frame
    beside a face, stays behind). Deterministic: filters only."""
    prior = prior_alpha(work, piece)
    wh, ww = prior.shape
    long = max(wh, ww)
    reach, inside = max(2.0, MATTE_REACH * long), max(1.0, MATTE_INSIDE * long)
    hard = (prior >= 0.5).astype(np.uint8)
    band = (cv2.distanceTransform(1 - hard, cv2.DIST_L2, 3) <= reach) \
        & (cv2.distanceTransform(hard, cv2.DIST_L2, 3) <= inside)
    ys, xs = np.nonzero(band)
    if not xs.size:
        return SoftMatte(prior, None, (0, 0, 0, 0))
    pad = int(2 * reach) + 2
    x0, y0 = max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad)
    x1, y1 = min(ww, int(xs.max()) + 1 + pad), min(wh, int(ys.max()) + 1 + pad)
    del ys, xs
    image = work[y0:y1, x0:x1].astype(np.float32)
    unsure, subject = band[y0:y1, x0:x1], hard[y0:y1, x0:x1] > 0
    known_fore, known_back = subject & ~unsure, ~subject & ~unsure
    local = prior[y0:y1, x0:x1]
    if not known_fore.any() or not known_back.any():
        return SoftMatte(prior, None, (0, 0, 0, 0))
    fore, back = push_pull_fill(image, known_fore), push_pull_fill(image, known_back)
    spread = _local_spread(image, known_back, reach)
    step = fore - back
    contrast2 = np.einsum("ijk,ijk->ij", step, step)
    mix = np.einsum("ijk,ijk->ij", image - back, step) / (contrast2 + 1.0)
    np.clip(mix, 0.0, 1.0, out=mix)
    off = image - back - mix[..., None] * step
    miss = np.sqrt(np.einsum("ijk,ijk->ij", off, off))
    del off
    contrast = np.sqrt(contrast2)
    trust = _ramps(contrast / (spread + MATTE_NOISE), *MATTE_TRUST) \
        * _ramps(miss / (contrast + 1.0), MATTE_MISS_MAX, MATTE_MISS_MAX / 2)
    alpha = np.where(unsure, trust * mix + (1.0 - trust) * local, local).astype(np.float32)
    outside = unsure & ~subject
    lifted = ((alpha > MATTE_SPECK) & outside).astype(np.uint8)
    thick = max(3, round(2 * MATTE_STRAND * long) | 1)
    solid = cv2.morphologyEx(lifted, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (thick, thick))) > 0  # a region, not a strand: the cut's call
    _, labels = cv2.connectedComponents(((lifted > 0) & ~solid | subject).astype(np.uint8),
                                        connectivity=8)
    loose = outside & (solid | ~np.isin(labels, np.unique(labels[subject])))
    alpha[loose] = np.minimum(alpha[loose], local[loose])
    full = prior
    full[y0:y1, x0:x1] = alpha
    # The subject's own colour at its soft edge: the mix solved for it where the alpha is high
    # enough to trust the division, its colour carried in from inside elsewhere.
    exact = (image - (1.0 - alpha[..., None]) * back) / np.maximum(alpha, 0.05)[..., None]
    weight = _ramps(alpha, 0.3, 0.8)[..., None]
    colour = np.clip(weight * exact + (1.0 - weight) * fore, 0.0, 255.0)
    return SoftMatte(full, colour.astype(np.float32), (x0, y0, x1, y1))


def layer_matte(image_rgb: np.ndarray, piece: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The foreground's alpha (uint8) and colours (RGB uint8) at the photo's size: the soft
    matte (:func:`soft_matte`) worked on a copy at most :data:`REFINE_LONG_EDGE` pixels long,
    its alpha scaled to the photo; where the alpha is under :data:`CLEAN_ALPHA` the colour is
    the subject's own (the matte's estimate), so the edge carries no background along when the
    subject moves (no halo, no smear)."""
    h, w = image_rgb.shape[:2]
    k = min(1.0, REFINE_LONG_EDGE / max(h, w))
    work = image_rgb if k >= 1.0 else cv2.resize(
        image_rgb, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    matte = soft_matte(work, piece)
    del work
    alpha_u8 = np.clip(matte.alpha * 255 + 0.5, 0, 255).astype(np.uint8)
    if alpha_u8.shape != (h, w):
        alpha_u8 = cv2.resize(alpha_u8, (w, h), interpolation=cv2.INTER_LINEAR)
    colour = image_rgb.copy()
    if matte.colour is None:
        return alpha_u8, colour
    x0, y0, x1, y1 = matte.roi
    sx, sy = w / matte.alpha.shape[1], h / matte.alpha.shape[0]
    fx0, fy0 = math.floor(x0 * sx), math.floor(y0 * sy)
    fx1, fy1 = min(w, math.ceil(x1 * sx)), min(h, math.ceil(y1 * sy))
    estimate = cv2.resize(np.clip(matte.colour + 0.5, 0, 255).astype(np.uint8),
                          (fx1 - fx0, fy1 - fy0), interpolation=cv2.INTER_LINEAR)
    edge = (alpha_u8[fy0:fy1, fx0:fx1] > 0) & (alpha_u8[fy0:fy1, fx0:fx1] < CLEAN_ALPHA)
    colour[fy0:fy1, fx0:fx1][edge] = estimate[edge]
    return alpha_u8, colour


def guided_filter(guide: np.ndarray, src: np.ndarray, radius: int, eps: float) -> np.ndarray:
    """Edge-preserving smoothing of ``src`` steered by ``guide`` (both float32 0..1, same size;
    ``radius`` pixels, ``eps`` the regularization in squared intensity units)."""
    size = (2 * radius + 1, 2 * radius + 1)

    def box(x: np.ndarray) -> np.ndarray:
        return cv2.boxFilter(x, cv2.CV_32F, size, borderType=cv2.BORDER_REFLECT)

    # In place where it can be: each float32 plane of a 2048 px photo is 12 MB.
    mean_i, mean_p = box(guide), box(src)
    a = box(guide * src)
    a -= mean_i * mean_p  # the covariance
    var = box(guide * guide)
    var -= mean_i * mean_i
    var += eps
    a /= var
    del var
    b = mean_p
    b -= a * mean_i
    del mean_i
    out = box(a)
    out *= guide
    out += box(b)
    return out
