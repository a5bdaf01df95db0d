"""A title card in motion: its frames from the parts :func:`media.cards.render_card_image` drew.

Nothing on a card holds still. Over the card's whole length the backdrop pushes in slowly
(:data:`BACKDROP_DRIFT`), the text block grows gently about its centre (:data:`TEXT_DRIFT`) and
floats up (:data:`FLOAT`), and the words of a line drift apart a little (:data:`SPREAD`, a
tracking move). A card with an
entrance (the closing card) brings its words in one after another in reading order: each fades
in while it rises :attr:`CardImage.rise_px` into place (:data:`ENTRANCE_S`, :data:`STAGGER_S`,
all started within :data:`ALL_IN_S`).
The opening card has none: its first frame is the finished title, so the film never starts on
an empty or black frame and a messenger's thumbnail shows the name.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from media.cards import CardImage, Sprite, composite_sprite

ENTRANCE_S = 0.7  # seconds over which one word fades and rises in
STAGGER_S = 0.14  # seconds between the entrances of consecutive words...
ALL_IN_S = 1.1  # ...closer together when needed, so the last one starts by this time
TEXT_DRIFT = 0.07  # the text block is this much larger at the card's end (share of its size)
BACKDROP_DRIFT = 0.08  # the backdrop's push-in over the card (share of the frame)
SPREAD = 0.06  # words move apart by this share of their distance from the block's centre
FLOAT = 0.014  # the text block floats up this far over the card (share of the short side)


def _ease_out(u: float) -> float:
    u = min(max(u, 0.0), 1.0)
    return 1.0 - (1.0 - u) ** 3


def _pushed(base: np.ndarray, zoom: float) -> np.ndarray:
    """``base`` scaled by ``zoom`` (>= 1) about the frame's centre, same size."""
    if zoom <= 1.0 + 1e-6:
        return base.copy()
    height, width = base.shape[:2]
    matrix = np.float64([[zoom, 0.0, (1.0 - zoom) * width / 2],
                         [0.0, zoom, (1.0 - zoom) * height / 2]])
    return cv2.warpAffine(base, matrix, (width, height), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)


def _placed(sprite: Sprite, centre: tuple[float, float], scale: float, spread: float,
            lift: float) -> tuple[int, int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The sprite scaled by ``scale`` about the block ``centre``, moved apart by ``spread``
    and down by ``lift`` pixels: (left, top, (shade, alpha, ink)) with sub-pixel placement."""
    h, w = sprite.alpha.shape
    cx, cy = centre
    mid_x, mid_y = sprite.x0 + w / 2, sprite.y0 + h / 2
    new_x = cx + (mid_x - cx) * (scale + spread)
    new_y = cy + (mid_y - cy) * scale + lift
    left_f, top_f = new_x - w * scale / 2, new_y - h * scale / 2
    left, top = math.floor(left_f), math.floor(top_f)
    size = (math.ceil(w * scale + 2), math.ceil(h * scale + 2))
    matrix = np.float64([[scale, 0.0, left_f - left], [0.0, scale, top_f - top]])
    glyphs = np.dstack((sprite.ink, sprite.alpha))
    moved = cv2.warpAffine(glyphs, matrix, size, flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    shade = cv2.warpAffine(sprite.shade, matrix, size, flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return left, top, (shade, np.ascontiguousarray(moved[..., 3]),
                       np.ascontiguousarray(moved[..., :3]))


def card_frame(image: CardImage, seconds: float, length_s: float,
               entrance_at: float | None = None) -> np.ndarray:
    """The card ``seconds`` into its ``length_s`` seconds on screen (uint8 RGB, a new array).

    ``entrance_at``: when (seconds) its words start coming in; None: everything is in place
    from the first frame (the opening card).
    """
    progress = min(max(seconds / max(length_s, 1e-6), 0.0), 1.0) * image.drift
    out = _pushed(image.base, 1.0 + BACKDROP_DRIFT * progress)
    scale = 1.0 + TEXT_DRIFT * progress
    spread = SPREAD * progress
    height, width = image.base.shape[:2]
    rise = FLOAT * min(width, height) * progress
    placed = []
    stagger = min(STAGGER_S, ALL_IN_S / max(1, len(image.sprites) - 1))
    for sprite in image.sprites:
        opacity, lift = 1.0, 0.0
        if entrance_at is not None:
            u = (seconds - entrance_at - sprite.order * stagger) / ENTRANCE_S
            if u <= 0.0:
                continue
            opacity = _ease_out(u)
            lift = image.rise_px * (1.0 - opacity)
        placed.append((sprite, opacity, _placed(sprite, image.centre, scale, spread,
                                                lift - rise)))
    for shade in (True, False):  # every shadow under every glyph, as one text layer
        for sprite, opacity, (left, top, arrays) in placed:
            composite_sprite(out, sprite, left, top, opacity, shade=shade, scaled=arrays)
    return out
