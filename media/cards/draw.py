"""Opening, closing and interlude cards drawn: the text (:mod:`media.cards.text`) in the card's
colours (:mod:`media.cards.colour`) over its backdrop (:mod:`media.cards.backdrop`: a gradient or
a softened photo) or over its photo shown sharp under a scrim (:func:`render_words_over`), with
a brand logo above the text (:mod:`media.cards.overlay`).

:func:`render_card_image` keeps the bare backdrop and every word as a sprite
(:mod:`media.cards.sprites`), which :mod:`media.cards.motion` moves with the look's entrance.
Cards are drawn once, in RGB (the poster uses that drawing as is). The film's frames are I420
(:mod:`media.base.yuv`): :attr:`CardImage.i420` converts the backdrop and every sprite once per
card (:class:`CardI420`), so each frame is moved and composited plane by plane, chroma at half
size.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np

from media.base import yuv
from media.cards import fonts
from media.cards.backdrop import (
    dither,
    fit_background,
    gradient,
    interlude_backdrop,
    photo_backdrop,
)
from media.cards.colour import Palette, palette
from media.cards.overlay import PlanarLogo, blend_logo, check_logo, planar_logo, scale_logo
from media.cards.scrim import Scrim
from media.cards.spec import CardSpec, card_look
from media.cards.sprites import (
    Sprite,
    SpriteI420,
    composite_sprite,
    sprite_i420,
    to_uint8,
    word_sprites,
)
from media.cards.text import CardLayout, layout_card, logo_reserve, safe_area
from media.design import looks
from media.design.entrances import cuts_letters

Box = tuple[int, int, int, int]  # left, top, right, bottom pixels (right and bottom exclusive)


@dataclass(frozen=True)
class CardI420:
    """A card's parts in I420: its ``base`` (the backdrop with the logo, an I420 frame) and
    its ``sprites`` (in the order of :attr:`CardImage.sprites`)."""

    base: np.ndarray
    sprites: tuple[SpriteI420, ...]


@dataclass(frozen=True)
class CardImage:
    """A rendered card: its ``base`` (the backdrop,
    with the logo), the text as ``sprites`` that :mod:`media.cards.motion` moves, the centre of
    the text block (``centre``, pixels), how far (pixels) words rise as they come in, how
    much of the house motion it makes (``drift``) and its look's ``entrance``.

    A card whose words lie over its moving photo (:func:`render_words_over`) has a ``scrim``
    (laid over each frame of the photo before the words) and, in brand style, its ``logo``
    (I420 planes, blended over each frame); its ``base`` is then only what the words' colours
    were lifted against."""

    base: np.ndarray
    sprites: tuple[Sprite, ...]
    centre: tuple[float, float]
    rise_px: float
    drift: float  # how much of the house motion the card makes (its look's)
    entrance: looks.Entrance
    scrim: Scrim | None = None
    logo: PlanarLogo | None = None
    held: dict = field(default_factory=dict, compare=False, repr=False)
    """The words' moved layers of the last frame (see :func:`media.cards.planes.lay_text`):
    words holding still over a moving photo are not resampled frame after frame."""

    @functools.cached_property
    def final(self) -> np.ndarray:
        """The card still (uint8 RGB, everything in place: every word at rest over ``base``),
        made on first use (a film's frames never need it, a poster or a still does)."""
        return _with_words(self.base, list(self.sprites))

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
    look = card_look(card)
    entrance = look.entrance(card.kind, card.part)
    base = _backdrop(card, pal, lay, background, width, height)
    letters = cuts_letters(entrance.text, entrance)
    sprites = word_sprites(base, lay, pal, look.shadow_blur, letters) if lay.lines else []
    plain = to_uint8(base)
    boxes = _ink_boxes(lay)
    if rgba_logo is not None:
        logo_box = ((width - logo_w) // 2, _logo_top(boxes, height, logo_h, reserve), logo_w,
                    logo_h)
        plain = blend_logo(plain, scale_logo(rgba_logo, logo_box))
    rise = entrance.rise * min(width, height)
    return CardImage(plain, tuple(sprites),
                     _centre(boxes, width, height), rise, look.motion.drift, entrance)


def _backdrop(card: CardSpec, pal: Palette, lay: CardLayout, background: np.ndarray | None,
              width: int, height: int) -> np.ndarray:
    """What the card's words stand on (float RGB, dithered): the palette's gradient without a
    ``background``, else the photo softened as the card's kind wants it, shaded where the
    words sit."""
    if lay.lines:
        focus = (min(b.box[1] for b in lay.lines) + max(b.box[3] for b in lay.lines)) / 2
    else:
        focus = height / 2
    if background is None:
        base = gradient(pal, width, height)
    elif card.kind == "interlude":
        base = interlude_backdrop(background, pal, card_look(card).interlude, width,
                                  height, focus / height)
    else:
        base = photo_backdrop(background, pal, width, height, focus / height)
    base += dither(width, height)[:, :, None]  # the same luma noise on R, G and B
    return base


def words_box(card: CardSpec, width: int, height: int, reserve: int = 0,
              at: tuple[float, float, float] | None = None) -> Box | None:
    """(left, top, right, bottom) pixels of the ink of ``card``'s lines and rule as laid out
    (see :func:`media.cards.text.layout_card`); None when it draws nothing."""
    with fonts.LOCK:
        lay = layout_card(card, width, height, reserve, at)
    boxes = _ink_boxes(lay)
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes))


def words_wanted(card: CardSpec, width: int, height: int, logo: np.ndarray | None = None
                 ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Where a card's look wants its words over a photo, and how large their block is: (the
    block's centre x, y pixels; its width, height pixels). Centred across, at the look's
    height in the text's safe area (:class:`media.design.looks.OverPhoto`; an interlude's
    ``text_y``). The caller moves it off the photo's subject
    (:func:`media.analysis.words.clear_of_subject`) and passes the place to
    :func:`render_words_over`. None when the card draws nothing."""
    look = card_look(card)
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


def words_over_rows(card: CardSpec, width: int, height: int,
                    at: tuple[float, float, float] | None = None,
                    logo: np.ndarray | None = None) -> tuple[int, int] | None:
    """The rows (top, bottom pixels, bottom exclusive) of the frame :func:`render_words_over`
    reads of its ``behind`` for the same arguments: those of its words' ink (their colours and
    the scrim's depth are read there); None when the card draws no words."""
    reserve = logo_reserve(width, height, check_logo(logo) if logo is not None else None)[2]
    at = at if at is not None else _wanted_at(card, width, height, logo)
    return _rows(words_box(card, width, height, reserve, at), height)


def _rows(box: Box | None, height: int) -> tuple[int, int] | None:
    """The rows (top, bottom pixels) of ``box`` inside a frame ``height`` pixels high."""
    return None if box is None else (max(0, box[1]), min(height, max(box[1], box[3])))


def _wanted_at(card: CardSpec, width: int, height: int, logo: np.ndarray | None
               ) -> tuple[float, float, float] | None:
    """Where the look wants ``card``'s words, at full size (see :func:`words_wanted`)."""
    wanted = words_wanted(card, width, height, logo)
    return (*wanted[0], 1.0) if wanted is not None else None


def render_words_over(card: CardSpec, width: int, height: int, behind: np.ndarray,
                      at: tuple[float, float, float] | None = None,
                      logo: np.ndarray | None = None) -> CardImage:
    """The card's words set over its photo shown sharp and moving (the film's title, closing
    and interludes): centred at ``at`` (centre x, y pixels, scale; see :func:`words_wanted`;
    None: where the look wants them), over the look's scrim
    (:mod:`media.cards.scrim`), lifted in colour to read against ``behind`` (uint8 RGB, the
    frame's size: the brightest the photo gets under them over the shot; only its rows
    :func:`words_over_rows` are read) darkened by the scrim. ``logo`` (RGBA uint8) sits above
    the words. The frames come from :func:`media.cards.motion.words_over_frame`; the card's
    ``base`` is black outside those rows (it is only what the colours were lifted against)."""
    rgba_logo = check_logo(logo) if logo is not None else None
    logo_w, logo_h, reserve = logo_reserve(width, height, rgba_logo)
    if at is None:
        at = _wanted_at(card, width, height, logo)
    with fonts.LOCK:
        lay = layout_card(card, width, height, reserve, at)
    look = card_look(card)
    rules = look.over_photo
    pal = replace(palette(card), shadow_alpha=rules.shadow)
    entrance = look.entrance(card.kind, card.part)
    behind = fit_background(behind, width, height)
    words = words_box(card, width, height, reserve, at)
    scrim = Scrim(rules, width, height, words, behind)
    base = np.zeros((height, width, 3), np.float32)
    plain = np.zeros((height, width, 3), np.uint8)
    rows = _rows(words, height)
    if rows is not None:
        top, bottom = rows
        base[top:bottom] = scrim.apply_rgb(behind[top:bottom], top)
        plain[top:bottom] = to_uint8(base[top:bottom])
    letters = cuts_letters(entrance.text, entrance)
    sprites = (word_sprites(base, lay, pal, look.shadow_blur * rules.shadow_spread, letters)
               if lay.lines else [])
    boxes = _ink_boxes(lay)
    planar = None
    if rgba_logo is not None:
        centre_x = round(at[0]) if boxes and at is not None else width // 2
        logo_box = (min(max(0, centre_x - logo_w // 2), width - logo_w),
                    _logo_top(boxes, height, logo_h, reserve), logo_w, logo_h)
        scaled = scale_logo(rgba_logo, logo_box)
        plain = blend_logo(plain, scaled)
        planar = planar_logo(scaled)
    return CardImage(plain, tuple(sprites),
                     _centre(boxes, width, height), entrance.rise * min(width, height),
                     rules.drift, entrance, scrim, planar)


def _ink_boxes(lay: CardLayout) -> list[Box]:
    """The ink boxes of ``lay``'s lines, then of its rule."""
    return [line.box for line in lay.lines] + ([lay.rule] if lay.rule else [])


def _logo_top(boxes: list[Box], height: int, logo_h: int, reserve: int) -> int:
    """The logo's top (pixels): ``reserve`` above the words' top (or where a logo of
    ``logo_h`` would sit centred on a card without words)."""
    top = min((b[1] for b in boxes), default=height // 2 - logo_h // 2 + reserve)
    return max(0, top - reserve)


def _with_words(plain: np.ndarray, sprites: list[Sprite]) -> np.ndarray:
    """A copy of ``plain`` (uint8 RGB) with every sprite at rest: every shadow under every
    glyph, as one text layer."""
    final = plain.copy()
    for shade in (True, False):
        for sprite in sprites:
            composite_sprite(final, sprite, sprite.x0, sprite.y0, 1.0, shade=shade)
    return final


def _centre(boxes: list[Box], width: int, height: int) -> tuple[float, float]:
    """The centre (x, y pixels) of the ink ``boxes``; the frame's without any."""
    if not boxes:
        return (width / 2, height / 2)
    return ((min(b[0] for b in boxes) + max(b[2] for b in boxes)) / 2,
            (min(b[1] for b in boxes) + max(b[3] for b in boxes)) / 2)
