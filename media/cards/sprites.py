"""A card's words as sprites: each word (or each letter, for an entrance that tracks them) and
the accent rule drawn once in its colour with its soft shadow, ready for
:mod:`media.cards.motion` to move; and the same sprites in the film's I420 planes
(:class:`SpriteI420`, composited by :mod:`media.cards.planes`).

Every drawn line is lifted in colour to read against what is actually behind it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw

from media.base import yuv
from media.cards import fonts
from media.cards.colour import Palette, contrast_ratio, lift_contrast, luminance
from media.cards.shaping import clusters
from media.cards.text import CardLayout, LaidLine, draw_text, line_pieces


@dataclass(frozen=True)
class Sprite:
    """One word (or the accent rule) of a card, ready to move: its ``shade`` (0-1, how much of
    what is behind its soft shadow takes away), its glyph ``alpha`` (0-1) and ``ink`` (RGB
    premultiplied by alpha), float32 arrays whose top-left sits at ``x0``/``y0`` (frame
    pixels), its ``line`` (-1 for the rule) and its place in reading ``order``."""

    x0: int
    y0: int
    shade: np.ndarray
    alpha: np.ndarray
    ink: np.ndarray
    line: int
    order: int


LAYER_MARGIN = 24  # samples of nothing around each I420 sprite layer (moves read views of it)


@dataclass(frozen=True)
class Layer:
    """One of a :class:`SpriteI420`'s float32 arrays, with :data:`LAYER_MARGIN` samples of
    nothing drawn on every side (``array``; :attr:`inner` without them), and where its first
    inner sample sits: ``dx``, ``dy`` luma pixels right of and below the sprite's top-left (on
    a chroma plane the sample covers luma pixels ``dx``, ``dx + 1`` and rows ``dy``, ``dy + 1``
    from there)."""

    array: np.ndarray
    dx: int
    dy: int

    @classmethod
    def padded(cls, inner: np.ndarray, dx: int, dy: int, fill: tuple[float, ...]) -> Layer:
        """A layer of ``inner`` with its margin of ``fill`` (each channel's nothing)."""
        m = LAYER_MARGIN
        return cls(cv2.copyMakeBorder(inner, m, m, m, m, cv2.BORDER_CONSTANT, value=fill),
                   dx, dy)

    @property
    def inner(self) -> np.ndarray:
        """The layer without its margin."""
        m = LAYER_MARGIN
        return self.array[m:-m, m:-m]


@dataclass(frozen=True)
class SpriteI420:
    """A :class:`Sprite` in the film's I420 planes, as :mod:`media.cards.motion` composites it:
    on a plane less its black (Y 16, U and V 128), a shadow multiplies by its ``keep``
    (``1 - shade``) and a glyph multiplies by its ``keep`` (``1 - alpha``) then adds its
    ``paint`` (the ink through :data:`media.base.yuv.RGB_TO_YUV` without the offsets,
    premultiplied). Top-left at ``x0``/``y0`` (the sprite's).

    ``shade``: the shadow's keep (h, w); ``glyphs``: (paint Y, keep), cut to the glyphs' box
    (the shadow reaches further). ``chroma_shade`` and ``chroma_glyphs`` (paint U, paint V,
    keep): the same at half size, each sample the 2x2 mean on the frame's own 2x2 grid.
    """

    x0: int
    y0: int
    shade: Layer
    glyphs: Layer
    chroma_shade: Layer
    chroma_glyphs: Layer


def composite_sprite(frame: np.ndarray, sprite: Sprite, x0: int, y0: int, opacity: float, *,
                     shade: bool, scaled: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                     ) -> None:
    """Lay ``sprite`` (or its ``scaled`` (shade, alpha, ink) arrays) onto ``frame`` (uint8 RGB,
    in place) with its top-left at ``x0``/``y0`` pixels and ``opacity`` (0-1): its shadow
    (``shade``) or its glyphs. Draw every shadow before any glyph, as one text layer would."""
    shade_a, alpha, ink = scaled if scaled is not None else (sprite.shade, sprite.alpha,
                                                              sprite.ink)
    height, width = frame.shape[:2]
    h, w = alpha.shape
    fx0, fy0 = max(0, x0), max(0, y0)
    fx1, fy1 = min(width, x0 + w), min(height, y0 + h)
    if fx1 <= fx0 or fy1 <= fy0 or opacity <= 0.0:
        return
    sx, sy = fx0 - x0, fy0 - y0
    window = (slice(sy, sy + fy1 - fy0), slice(sx, sx + fx1 - fx0))
    region = frame[fy0:fy1, fx0:fx1].astype(np.float32)
    if shade:
        region *= (1.0 - opacity * shade_a[window])[..., None]
    else:
        cover = opacity * alpha[window]
        region *= (1.0 - cover)[..., None]
        region += opacity * ink[window]
    frame[fy0:fy1, fx0:fx1] = to_uint8(region)


def sprite_i420(sprite: Sprite) -> SpriteI420:
    """``sprite`` in the film's Y, U and V (see :class:`SpriteI420`). Blends are linear, so
    laying these on the I420 planes is laying the sprite on the RGB frame (to rounding)."""
    h, w = sprite.alpha.shape
    paint = cv2.transform(sprite.ink, yuv.RGB_TO_YUV[:, :3])  # (h, w, 3): Y, U, V
    keep = 1.0 - sprite.alpha
    keep_shade = 1.0 - sprite.shade
    rows = np.flatnonzero(sprite.alpha.any(axis=1))
    cols = np.flatnonzero(sprite.alpha.any(axis=0))
    gy0, gy1 = (int(rows[0]), int(rows[-1]) + 1) if len(rows) else (0, 1)
    gx0, gx1 = (int(cols[0]), int(cols[-1]) + 1) if len(cols) else (0, 1)
    glyphs = cv2.merge([np.ascontiguousarray(paint[gy0:gy1, gx0:gx1, 0]),
                        np.ascontiguousarray(keep[gy0:gy1, gx0:gx1])])
    # Chroma: padded to whole 2x2 blocks of the frame's grid with nothing drawn.
    dx, dy = -(sprite.x0 % 2), -(sprite.y0 % 2)
    right, bottom = (w - dx) % 2, (h - dy) % 2

    def half(full: np.ndarray, fill: tuple[float, ...]) -> np.ndarray:
        padded = cv2.copyMakeBorder(full, -dy, bottom, -dx, right, cv2.BORDER_CONSTANT,
                                    value=fill)
        size = (padded.shape[1] // 2, padded.shape[0] // 2)
        return cv2.resize(padded, size, interpolation=cv2.INTER_AREA)

    chroma = half(cv2.merge([np.ascontiguousarray(paint[..., 1]),
                             np.ascontiguousarray(paint[..., 2]), keep]), (0.0, 0.0, 1.0))
    cx0, cy0 = (gx0 - dx) // 2, (gy0 - dy) // 2
    cx1, cy1 = (gx1 - dx + 1) // 2, (gy1 - dy + 1) // 2
    return SpriteI420(
        sprite.x0, sprite.y0, Layer.padded(keep_shade, 0, 0, (1.0,)),
        Layer.padded(glyphs, gx0, gy0, (0.0, 1.0)),
        Layer.padded(half(keep_shade, (1.0,)), dx, dy, (1.0,)),
        Layer.padded(chroma[cy0:cy1, cx0:cx1], dx + 2 * cx0, dy + 2 * cy0, (0.0, 0.0, 1.0)))


def _text_colours(base: np.ndarray, lay: CardLayout, pal: Palette) -> dict[str, tuple[int, ...]]:
    """The colour of each palette attribute the lines use, lifted until every line reads
    against what is actually behind it."""
    colours: dict[str, tuple[int, ...]] = {}
    for line in lay.lines:
        bx0, by0, bx1, by1 = line.box
        behind = base[max(0, by0):max(by0 + 1, by1), max(0, bx0):max(bx0 + 1, bx1)]
        behind_rgb = tuple(float(v) for v in
                           np.percentile(behind[::3, ::3].reshape(-1, 3), 90, axis=0))
        want = getattr(pal, line.role.colour)
        lifted = lift_contrast(want, behind_rgb, 4.5)  # type: ignore[arg-type]
        prior = colours.get(line.role.colour)
        if prior is None or luminance(lifted) > luminance(prior[:3]):  # type: ignore[arg-type]
            colours[line.role.colour] = (*lifted, 255)
    return colours


def _units(lay: CardLayout) -> list[tuple[int, int]]:
    """The moving parts of a card in reading order: (line index, word index), and (-1, 0) for
    the accent rule after the first block of lines."""
    units: list[tuple[int, int]] = []
    first_role = lay.lines[0].role.name if lay.lines else ""
    for index, line in enumerate(lay.lines):
        if lay.rule is not None and line.role.name != first_role and (-1, 0) not in units:
            units.append((-1, 0))
        words = sorted({piece.word for piece in line_pieces(lay, line).items})
        units.extend((index, word) for word in words)
    if lay.rule is not None and (-1, 0) not in units:
        units.append((-1, 0))
    return units


def word_sprites(base: np.ndarray, lay: CardLayout, pal: Palette, blur: float,
                 letters: bool) -> list[Sprite]:
    """Every word and the rule of ``lay`` as a :class:`Sprite` with its soft shadow (blurred
    by ``blur`` of the short side), coloured to read against ``base`` (float RGB, the frame's
    size); with ``letters`` the title's words are cut into one sprite per letter, for an
    entrance that moves them apart (:func:`media.design.entrances.cuts_letters`)."""
    height, width = base.shape[:2]
    unit = min(width, height)
    sigma = unit * blur
    pad = math.ceil(sigma * 4 + unit * 0.01)
    boxes = [line.box for line in lay.lines] + ([lay.rule] if lay.rule else [])
    x0 = max(0, min(b[0] for b in boxes) - pad)
    y0 = max(0, min(b[1] for b in boxes) - pad)
    x1 = min(width, max(b[2] for b in boxes) + pad)
    y1 = min(height, max(b[3] for b in boxes) + pad)
    colours = _text_colours(base, lay, pal)
    sprites = []
    for order, (line_index, word) in enumerate(_units(lay)):
        layer = Image.new("RGBA", (x1 - x0, y1 - y0), (0, 0, 0, 0))
        if line_index < 0:
            _draw_rule(layer, base, lay, pal, (x0, y0))
        else:
            with fonts.LOCK:
                draw_text(layer, lay, (x0, y0), colours,
                          only=lambda li, w, want=(line_index, word): (li, w) == want)
        bbox = layer.getbbox()
        if bbox is None:
            continue
        cx0, cy0 = max(0, bbox[0] - pad), max(0, bbox[1] - pad)
        cx1, cy1 = min(layer.width, bbox[2] + pad), min(layer.height, bbox[3] + pad)
        rgba = np.asarray(layer.crop((cx0, cy0, cx1, cy1)))
        alpha = rgba[..., 3].astype(np.float32) * (1.0 / 255.0)
        shade = _shadow(alpha, sigma, unit) * pal.shadow_alpha
        ink = rgba[..., :3].astype(np.float32) * alpha[..., None]
        sprite = Sprite(x0 + cx0, y0 + cy0, shade, alpha, ink, line_index, order)
        if letters and line_index >= 0 and lay.lines[line_index].role.name == "title":
            sprites.extend(_letters(sprite, lay, lay.lines[line_index], word))
        else:
            sprites.append(sprite)
    return sprites


def _letters(sprite: Sprite, lay: CardLayout, line: LaidLine, word: int) -> list[Sprite]:
    """``sprite`` (word ``word`` of ``line``) cut into vertical strips, one per letter, at the
    letters' pen positions: at rest they tile the word exactly. Only where letters may be
    spaced apart (:func:`media.cards.fonts.trackable`, untracked lines, no emoji); else the
    word whole."""
    cuts: list[int] = []
    with fonts.LOCK:
        for piece in line_pieces(lay, line).items:
            if piece.word != word:
                continue
            if (fonts.is_colour(piece.font) or not fonts.trackable(piece.text)
                    or piece.direction != "ltr" or line.role.tracking):
                return [sprite]
            start = line.x + piece.x - sprite.x0
            letters = clusters(piece.text)
            for k in range(len(letters)):
                cuts.append(round(start + piece.font.getlength("".join(letters[:k]))))
    width = sprite.alpha.shape[1]
    edges = sorted({c for c in cuts if 0 < c < width})
    if not edges:
        return [sprite]
    out = []
    for a, b in zip([0, *edges], [*edges, width], strict=True):
        window = (slice(None), slice(a, b))
        out.append(Sprite(sprite.x0 + a, sprite.y0, np.ascontiguousarray(sprite.shade[window]),
                          np.ascontiguousarray(sprite.alpha[window]),
                          np.ascontiguousarray(sprite.ink[window]), sprite.line, sprite.order))
    return out


def _draw_rule(layer: Image.Image, base: np.ndarray, lay: CardLayout, pal: Palette,
               origin: tuple[int, int]) -> None:
    """The accent rule onto ``layer`` (which starts at ``origin``), lifted to show against
    the backdrop behind it."""
    assert lay.rule is not None
    rx0, ry0, rx1, ry1 = lay.rule
    behind = tuple(float(v) for v in base[ry0:ry1, rx0:rx1].reshape(-1, 3).mean(axis=0))
    colour = pal.accent
    if contrast_ratio(colour, behind) < 1.5:  # type: ignore[arg-type]
        colour = lift_contrast(pal.accent, behind, 3.0)  # type: ignore[arg-type]
    ox, oy = origin
    ImageDraw.Draw(layer).rectangle((rx0 - ox, ry0 - oy, rx1 - ox - 1, ry1 - oy - 1),
                                    fill=(*colour, 255))


def _shadow(alpha: np.ndarray, sigma: float, unit: int) -> np.ndarray:
    """A soft drop shadow of a glyph coverage (0-1): blurred at half resolution, nudged down."""
    ah, aw = alpha.shape
    half = cv2.resize(alpha, (max(1, aw // 2), max(1, ah // 2)), interpolation=cv2.INTER_AREA)
    half = cv2.GaussianBlur(half, (0, 0), sigmaX=max(0.5, sigma / 2))
    blurred = cv2.resize(half, (aw, ah), interpolation=cv2.INTER_LINEAR)
    shift = max(1, round(unit * 0.003))
    shadow = np.zeros_like(blurred)
    shadow[shift:] = blurred[:-shift]
    np.multiply(shadow, 1.6, out=shadow)
    np.clip(shadow, 0.0, 1.0, out=shadow)
    return shadow


def to_uint8(image: np.ndarray) -> np.ndarray:
    """``image`` (float) as uint8: rounded and saturated in one pass (backdrops never go
    meaningfully below zero)."""
    return cv2.convertScaleAbs(image)
