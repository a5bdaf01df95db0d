"""What a card's words stand on: the palette's gradient, or a photo softened and shaded behind
them (a closing's darkened, blurred copy; an interlude's picture, only softened), with a fixed
dither so gradients never band once encoded (:mod:`media.cards.draw` lays the words on it)."""

from __future__ import annotations

import cv2
import numpy as np

from media.base import heap
from media.cards.colour import Palette
from media.design import looks

DUOTONE_MAX = 0.85  # share of the palette duotone in the backdrop of a grey photo
DUOTONE_CHROMA = 0.14  # mean chroma (0..1) from which a photo keeps all its own colours


@heap.activity_cache(maxsize=4)
def dither(width: int, height: int) -> np.ndarray:
    """Fixed, tiled +-1.5 LSB luma noise (height, width): keeps gradients from banding once
    encoded to 8-bit 4:2:0."""
    tile = np.random.default_rng(20240607).triangular(-1.5, 0.0, 1.5, (128, 128))
    reps = (height // 128 + 1, width // 128 + 1)
    return np.ascontiguousarray(np.tile(tile.astype(np.float32), reps)[:height, :width])


def _grid(width: int, height: int, step: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Cell-centre coordinates (0-1) of a grid ``step`` pixels a cell: (yy, xx, columns, rows)."""
    sw, sh = max(2, width // step), max(2, height // step)
    ys = (np.arange(sh, dtype=np.float32) + 0.5) / sh
    xs = (np.arange(sw, dtype=np.float32) + 0.5) / sw
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    return yy, xx, sw, sh


def _shade(colour: np.ndarray, pal: Palette, width: int, height: int, yy: np.ndarray,
           xx: np.ndarray, glow_centre_y: float) -> np.ndarray:
    """Glow (screen blend) and vignette over a low-resolution colour field."""
    unit = min(width, height)
    dx = (xx - 0.5) * width / unit
    dy = (yy - glow_centre_y) * height / unit
    glow = np.exp(-(dx**2 + dy**2) / (2 * 0.42**2))[..., None] * pal.glow_strength
    colour = 255.0 - (255.0 - colour) * (1.0 - glow * np.asarray(pal.glow, np.float32) / 255.0)
    r2 = ((xx - 0.5) * 2) ** 2 + ((yy - 0.5) * 2) ** 2
    colour *= (1.0 - pal.vignette * np.clip(r2 / 2.0, 0.0, 1.0) ** 1.4)[..., None]
    return colour


def gradient(pal: Palette, width: int, height: int) -> np.ndarray:
    """The palette's backdrop (float32 RGB 0-255, ``height`` x ``width`` pixels): a diagonal
    gradient from ``top`` to ``bottom`` with its glow and vignette."""
    yy, xx, _, _ = _grid(width, height, 8)
    t = np.clip(0.72 * yy + 0.28 * xx, 0.0, 1.0)
    if pal.glow_strength == 0.0:
        t = np.clip(t * 2.2, 0.0, 1.0)  # flat brand colour over most of the frame
    t = (t * t * (3 - 2 * t))[..., None]
    top = np.asarray(pal.top, np.float32)
    bottom = np.asarray(pal.bottom, np.float32)
    colour = top * (1 - t) + bottom * t
    colour = _shade(colour, pal, width, height, yy, xx, 0.40)
    return cv2.resize(colour.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)


def fit_background(background: np.ndarray, width: int, height: int) -> np.ndarray:
    """``background`` (grey, RGB or RGBA) as uint8 RGB of ``width`` x ``height`` pixels,
    cover-fitted (scaled to fill, centre-cropped) when it is another size."""
    image = np.asarray(background)
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(f"background must be an RGB image, got shape {image.shape}")
    image = image[..., :3]
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    h, w = image.shape[:2]
    if (h, w) != (height, width):
        # Cover: scale to fill, centre-crop.
        scale = max(width / w, height / h)
        nw, nh = max(width, round(w * scale)), max(height, round(h * scale))
        image = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
        x0, y0 = (nw - width) // 2, (nh - height) // 2
        image = image[y0 : y0 + height, x0 : x0 + width]
    return image


def _duotone(small: np.ndarray, pal: Palette) -> np.ndarray:
    """A grey or washed-out photo takes the palette's colours by its own light (shadows in the
    palette's deep tone, highlights in its glow), so a black-and-white photo gives a warm
    backdrop rather than a flat grey one; colourful photos keep their colours."""
    chroma = float((small.max(axis=-1) - small.min(axis=-1)).mean()) / 255.0
    weight = DUOTONE_MAX * float(np.clip(1.0 - chroma / DUOTONE_CHROMA, 0.0, 1.0))
    if weight <= 0.0:
        return small
    luma = (small @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)) / 255.0
    shadow = np.asarray(pal.top, np.float32)
    light = np.asarray(pal.glow, np.float32)
    duo = shadow + (light - shadow) * luma[..., None]
    return small * (1.0 - weight) + duo * weight


def interlude_backdrop(background: np.ndarray, pal: Palette, rules: looks.Interlude,
                        width: int, height: int, text_y: float) -> np.ndarray:
    """The photo behind an interlude's words: still a picture (only softened by the look's
    ``blur``), dimmed to the look's ``brightness`` with its highlights squeezed, a little of
    the palette in it, and a band of shade where the words sit (``text_y``: their centre, a
    share of the frame's height)."""
    image = fit_background(background, width, height).astype(np.float32)
    if rules.blur > 0.0:
        image = cv2.GaussianBlur(image, (0, 0), sigmaX=max(0.5, rules.blur * min(width, height)))
    weights = np.asarray([0.2126, 0.7152, 0.0722], np.float32)
    small = cv2.resize(image, (max(2, width // 8), max(2, height // 8)),
                       interpolation=cv2.INTER_AREA)
    mean = float((small @ weights).mean())
    image *= float(np.clip(rules.brightness / max(mean, 1.0), 0.2, 1.0))
    luma = image @ weights
    knee = 1.4 * rules.brightness
    squeeze = np.where(luma > knee, (knee + (luma - knee) * 0.35) / np.maximum(luma, 1e-3), 1.0)
    image *= squeeze[..., None]
    tint = np.asarray(pal.top, np.float32) * 0.55 + np.asarray(pal.bottom, np.float32) * 0.45
    image = image * 0.88 + tint * 0.12
    yy, xx, _, _ = _grid(width, height, 8)
    band = 1.0 - 0.55 * np.exp(-((yy - text_y) ** 2) / (2 * 0.15**2))
    r2 = ((xx - 0.5) * 2) ** 2 + ((yy - 0.5) * 2) ** 2
    shade = band * (1.0 - 0.3 * np.clip(r2 / 2.0, 0.0, 1.0) ** 1.4)
    shade = cv2.resize(shade.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)
    return image * shade[..., None]


def photo_backdrop(background: np.ndarray, pal: Palette, width: int, height: int,
                    focus_y: float) -> np.ndarray:
    """A darkened, softly blurred, palette-tinted copy of a frame, calm behind the text."""
    image = fit_background(background, width, height)
    step = 6
    sw, sh = max(2, width // step), max(2, height // step)
    small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32)
    unit_small = min(sw, sh)
    small = cv2.GaussianBlur(small, (0, 0), sigmaX=max(1.0, unit_small * 0.016))
    small = _duotone(small, pal)
    luma = small @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)
    mean = float(luma.mean())
    small *= float(np.clip(86.0 / max(mean, 1.0), 0.26, 0.74))
    # Soft knee: no highlight stays bright enough to fight white type.
    luma = small @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)
    knee = 68.0
    squeezed = np.where(luma > knee, knee + (luma - knee) * 0.3, luma)
    small *= (squeezed / np.maximum(luma, 1e-3))[..., None]
    tint = np.asarray(pal.top, np.float32) * 0.55 + np.asarray(pal.bottom, np.float32) * 0.45
    small = small * 0.8 + tint * 0.2
    yy, xx, _, _ = _grid(width, height, step)
    yy, xx = yy[:sh, :sw], xx[:sh, :sw]
    unit = min(width, height)
    dy = (yy - focus_y) * height / unit
    dx = (xx - 0.5) * width / unit
    scrim = 1.0 - 0.28 * np.exp(-(dx**2 * 0.5 + dy**2) / (2 * 0.32**2))
    r2 = ((xx - 0.5) * 2) ** 2 + ((yy - 0.5) * 2) ** 2
    small *= (scrim * (1.0 - 0.32 * np.clip(r2 / 2.0, 0.0, 1.0) ** 1.4))[..., None]
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)
