"""Opening and closing title cards drawn: the text (:mod:`media.cards.text`) in the card's colours
(:mod:`media.cards.colour`) over a gradient or a softened photo, with its entrance animation.

Every drawn line is lifted to read against what is actually behind it, with a soft shadow; a
brand logo sits above the text (:mod:`media.cards.overlay`). :func:`render_card_image` keeps the
bare
backdrop and every word as a :class:`Sprite`, which :mod:`media.cards.motion` moves.

Cards are drawn once, in RGB (the poster uses that drawing as is). The film's frames are I420
(:mod:`media.base.yuv`): :attr:`CardImage.i420` converts the backdrop and every sprite once per card
(:class:`CardI420`), so each frame is moved and composited plane by plane, chroma at half size.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from PIL import Image, ImageDraw

from media.base import heap, yuv
from media.cards import design, fonts
from media.cards.colour import Palette, contrast_ratio, lift_contrast, luminance, palette
from media.cards.overlay import PlanarLogo, blend_logo, check_logo, planar_logo, scale_logo
from media.cards.scrim import Scrim
from media.cards.shaping import clusters
from media.cards.spec import CardSpec
from media.cards.text import (
    CardLayout,
    LaidLine,
    draw_text,
    layout_card,
    line_pieces,
    logo_reserve,
    safe_area,
)

DUOTONE_MAX = 0.85  # share of the palette duotone in the backdrop of a grey photo
DUOTONE_CHROMA = 0.14  # mean chroma (0..1) from which a photo keeps all its own colours


# --- backdrops --------------------------------------------------------------------------------


@heap.activity_cache(maxsize=4)
def _dither(width: int, height: int) -> np.ndarray:
    """Fixed, tiled +-1.5 LSB luma noise (height, width): keeps gradients from banding once
    encoded to 8-bit 4:2:0."""
    tile = np.random.default_rng(20240607).triangular(-1.5, 0.0, 1.5, (128, 128))
    reps = (height // 128 + 1, width // 128 + 1)
    return np.ascontiguousarray(np.tile(tile.astype(np.float32), reps)[:height, :width])


def _grid(width: int, height: int, step: int) -> tuple[np.ndarray, np.ndarray, int, int]:
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


def _gradient(pal: Palette, width: int, height: int) -> np.ndarray:
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


def _fit_background(background: np.ndarray, width: int, height: int) -> np.ndarray:
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


def _interlude_backdrop(background: np.ndarray, pal: Palette, rules: design.Interlude,
                        width: int, height: int, text_y: float) -> np.ndarray:
    """The photo behind an interlude's words: still a picture (only softened by the look's
    ``blur``), dimmed to the look's ``brightness`` with its highlights squeezed, a little of
    the palette in it, and a band of shade where the words sit (``text_y``: their centre, a
    share of the frame's height)."""
    image = _fit_background(background, width, height).astype(np.float32)
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


def _photo_backdrop(background: np.ndarray, pal: Palette, width: int, height: int,
                    focus_y: float) -> np.ndarray:
    """A darkened, softly blurred, palette-tinted copy of a frame, calm behind the text."""
    image = _fit_background(background, width, height)
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


# --- rendering --------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class CardI420:
    """A card's parts in I420: its ``base`` (the backdrop with the logo, an I420 frame) and
    its ``sprites`` (in the order of :attr:`CardImage.sprites`)."""

    base: np.ndarray
    sprites: tuple[SpriteI420, ...]


@dataclass(frozen=True)
class CardImage:
    """A rendered card: ``final`` (uint8 RGB, everything in place), its ``base`` (the backdrop,
    with the logo), the text as ``sprites`` that :mod:`media.cards.motion` moves, the centre of
    the text block (``centre``, pixels), how far (pixels) words rise as they come in, how
    much of the house motion it makes (``drift``) and its look's ``entrance``.

    A card whose words lie over its moving photo (:func:`render_words_over`) has a ``scrim``
    (laid over each frame of the photo before the words) and, in brand style, its ``logo``
    (I420 planes, blended over each frame); its ``base`` is then only what the words' colours
    were lifted against."""

    final: np.ndarray
    base: np.ndarray
    sprites: tuple[Sprite, ...]
    centre: tuple[float, float]
    rise_px: float
    drift: float  # how much of the house motion the card makes (its look's)
    entrance: design.Entrance
    scrim: Scrim | None = None
    logo: PlanarLogo | None = None
    held: dict = field(default_factory=dict, compare=False, repr=False)
    """The words' moved layers of the last frame (see :func:`media.cards.motion._lay_text`):
    words holding still over a moving photo are not resampled frame after frame."""

    @functools.cached_property
    def sprites_i420(self) -> tuple[SpriteI420, ...]:
        """The sprites converted to I420, once per card (on first use)."""
        return tuple(sprite_i420(sprite) for sprite in self.sprites)

    @functools.cached_property
    def i420(self) -> CardI420:
        """The backdrop and the sprites converted to I420, once per card (on first use)."""
        return CardI420(yuv.rgb_to_i420(self.base), self.sprites_i420)


def render_card(card: CardSpec, width: int, height: int,
                background: np.ndarray | None = None,
                logo: np.ndarray | None = None) -> np.ndarray:
    """The card as a uint8 RGB array of shape (height, width, 3).

    Without ``background``: the palette's gradient backdrop. With one (uint8 RGB, ideally the
    same size; another size is cover-fitted): text over a darkened, softly blurred copy of it.
    ``logo`` (RGBA uint8) is drawn above the text, larger than on the film's shots.
    """
    return render_card_image(card, width, height, background, logo).final


def render_card_image(card: CardSpec, width: int, height: int,
                      background: np.ndarray | None = None,
                      logo: np.ndarray | None = None) -> CardImage:
    """The card with its parts for the motion (see :func:`render_card`)."""
    rgba_logo = check_logo(logo) if logo is not None else None
    logo_w, logo_h, reserve = logo_reserve(width, height, rgba_logo)
    with fonts.LOCK:
        lay = layout_card(card, width, height, reserve)
    pal = palette(card)
    look = design.card_look(card)
    entrance = look.entrance(card.kind, card.part)
    if lay.lines:
        focus = (min(b.box[1] for b in lay.lines) + max(b.box[3] for b in lay.lines)) / 2
    else:
        focus = height / 2
    if background is None:
        base = _gradient(pal, width, height)
    elif card.kind == "interlude":
        base = _interlude_backdrop(background, pal, look.interlude, width, height,
                                   focus / height)
    else:
        base = _photo_backdrop(background, pal, width, height, focus / height)
    base += _dither(width, height)[:, :, None]  # the same luma noise on R, G and B
    letters = entrance.text == "settle" and entrance.tracking_from > 0.0
    sprites = _sprites(base, lay, pal, look.shadow_blur, letters) if lay.lines else []
    plain = _to_uint8(base)
    boxes = [line.box for line in lay.lines] + ([lay.rule] if lay.rule else [])
    if rgba_logo is not None:
        top = min((b[1] for b in boxes), default=height // 2 - logo_h // 2 + reserve)
        logo_box = ((width - logo_w) // 2, max(0, top - reserve), logo_w, logo_h)
        plain = blend_logo(plain, scale_logo(rgba_logo, logo_box))
    final = plain.copy()
    for sprite in sprites:
        composite_sprite(final, sprite, sprite.x0, sprite.y0, 1.0, shade=True)
    for sprite in sprites:
        composite_sprite(final, sprite, sprite.x0, sprite.y0, 1.0, shade=False)
    centre = ((min(b[0] for b in boxes) + max(b[2] for b in boxes)) / 2,
              (min(b[1] for b in boxes) + max(b[3] for b in boxes)) / 2) if boxes else \
        (width / 2, height / 2)
    rise = entrance.rise * min(width, height)
    return CardImage(final, plain, tuple(sprites), centre, rise, look.motion.drift, entrance)


def words_box(card: CardSpec, width: int, height: int, reserve: int = 0,
              at: tuple[float, float, float] | None = None) -> tuple[int, int, int, int] | None:
    """(left, top, right, bottom) pixels of the ink of ``card``'s lines and rule as laid out
    (see :func:`media.cards.text.layout_card`); None when it draws nothing."""
    with fonts.LOCK:
        lay = layout_card(card, width, height, reserve, at)
    boxes = [line.box for line in lay.lines] + ([lay.rule] if lay.rule else [])
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes))


def words_wanted(card: CardSpec, width: int, height: int, logo: np.ndarray | None = None
                 ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Where a card's look wants its words over a photo, and how large their block is: (the
    block's centre x, y pixels; its width, height pixels). Centred across, at the look's
    height in the text's safe area (:class:`media.cards.design.OverPhoto`; an interlude's
    ``text_y``). The caller moves it off the photo's subject
    (:func:`media.look.words.clear_of_subject`) and passes the place to
    :func:`render_words_over`. None when the card draws nothing."""
    look = design.card_look(card)
    share = {"opening": look.over_photo.opening_y, "closing": look.over_photo.closing_y,
             "interlude": look.interlude.text_y}[card.kind]
    reserve = logo_reserve(width, height, check_logo(logo) if logo is not None else None)[2]
    box = words_box(card, width, height, reserve)
    if box is None:
        return None
    safe = safe_area(card, width, height)
    top = min(safe[1] + reserve, (safe[1] + safe[3]) // 2)
    block = (float(box[2] - box[0]), float(box[3] - box[1]))
    centre_y = top + block[1] / 2 + max(0.0, safe[3] - top - block[1]) * share
    return (width / 2, centre_y), block


def render_words_over(card: CardSpec, width: int, height: int, behind: np.ndarray,
                      at: tuple[float, float, float] | None = None,
                      logo: np.ndarray | None = None) -> CardImage:
    """The card's words set over its photo shown sharp and moving (the film's title, closing
    and interludes): centred at ``at`` (centre x, y pixels, scale; see :func:`words_wanted`;
    None: where the look wants them), over the look's scrim
    (:mod:`media.cards.scrim`), lifted in colour to read against ``behind`` (uint8 RGB, the
    frame's size: the brightest the photo gets under them over the shot) darkened by the
    scrim. ``logo`` (RGBA uint8) sits above the words. The frames come from
    :func:`media.cards.motion.words_over_frame`."""
    rgba_logo = check_logo(logo) if logo is not None else None
    logo_w, logo_h, reserve = logo_reserve(width, height, rgba_logo)
    if at is None:
        wanted = words_wanted(card, width, height, logo)
        at = (*wanted[0], 1.0) if wanted is not None else None
    with fonts.LOCK:
        lay = layout_card(card, width, height, reserve, at)
    look = design.card_look(card)
    rules = look.over_photo
    pal = replace(palette(card), shadow_alpha=rules.shadow)
    entrance = look.entrance(card.kind, card.part)
    behind = _fit_background(behind, width, height)
    scrim = Scrim(rules, width, height, words_box(card, width, height, reserve, at), behind)
    base = scrim.apply_rgb(behind)
    letters = entrance.text == "settle" and entrance.tracking_from > 0.0
    sprites = (_sprites(base, lay, pal, look.shadow_blur * rules.shadow_spread, letters)
               if lay.lines else [])
    plain = _to_uint8(base)
    boxes = [line.box for line in lay.lines] + ([lay.rule] if lay.rule else [])
    planar = None
    if rgba_logo is not None:
        top = min((b[1] for b in boxes), default=height // 2 - logo_h // 2 + reserve)
        centre_x = round(at[0]) if boxes and at is not None else width // 2
        logo_box = (min(max(0, centre_x - logo_w // 2), width - logo_w), max(0, top - reserve),
                    logo_w, logo_h)
        scaled = scale_logo(rgba_logo, logo_box)
        plain = blend_logo(plain, scaled)
        planar = planar_logo(scaled)
    final = plain.copy()
    for shade in (True, False):
        for sprite in sprites:
            composite_sprite(final, sprite, sprite.x0, sprite.y0, 1.0, shade=shade)
    centre = ((min(b[0] for b in boxes) + max(b[2] for b in boxes)) / 2,
              (min(b[1] for b in boxes) + max(b[3] for b in boxes)) / 2) if boxes else \
        (width / 2, height / 2)
    return CardImage(final, plain, tuple(sprites), centre,
                     entrance.rise * min(width, height), rules.drift, entrance, scrim, planar)


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
    frame[fy0:fy1, fx0:fx1] = _to_uint8(region)


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


def _sprites(base: np.ndarray, lay: CardLayout, pal: Palette, blur: float,
             letters: bool) -> list[Sprite]:
    """Every word and the rule of ``lay`` as a :class:`Sprite` with its soft shadow (blurred
    by ``blur`` of the short side); with ``letters`` the title's words are cut into one sprite
    per letter, which a ``settle`` entrance tracks (:func:`_letters`)."""
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


def _to_uint8(image: np.ndarray) -> np.ndarray:
    # Rounds and saturates in one pass (backdrops never go meaningfully below zero).
    return cv2.convertScaleAbs(image)
