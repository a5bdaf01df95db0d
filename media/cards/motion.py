"""A title card in motion: its frames from the parts :func:`media.cards.draw.render_card_image`
drew.

Nothing on a card holds still. Over the card's whole length the backdrop pushes in slowly
(:data:`BACKDROP_DRIFT`), the text block grows gently about its centre (:data:`TEXT_DRIFT`) and
floats up (:data:`FLOAT`), and the words of a line drift apart a little (:data:`SPREAD`, a
tracking move).

Every card comes in with its look's entrance (:attr:`CardImage.entrance`, named in
:mod:`media.cards.design`, implemented here once), eased out (cubic) to rest by the end of it:

* ``settle``: the words start :attr:`~media.cards.design.Entrance.scale_from` times larger and,
  cut into letters (:func:`media.cards.draw.render_card_image`), ``tracking_from`` further apart;
  scale and tracking settle to rest together.
* ``rise``: the words come in one after another in reading order, each rising
  :attr:`CardImage.rise_px` into place (and fading in, on the closing).
* ``fade``: the words fade in one after another in place.
* ``land``: the words drop in ``scale_from`` times larger from ``rise`` above their place,
  fading in over the first :data:`LAND_FADE` of the entrance, and land with a small bounce
  (:func:`_ease_out_back`).
* the accent rule either draws out from its centre (``draw_line``) or fades in with its turn.

The closing's words start coming in at ``entrance_at`` and fade in; all are in place within
:data:`~media.cards.reading.WORDS_IN_S`. The opening's words are all on screen from its first
frame (the film never starts on an empty frame and a messenger's thumbnail shows the name):
they settle or rise into place by :data:`~media.cards.reading.TITLE_IN_S`, and fade out before
the picture under them changes (``exit_at``).

The motion is worked out once per frame (:func:`card_motion`) and drawn two ways:
:func:`card_frame` makes the film's I420 frame natively (the card's I420 parts,
:attr:`CardImage.i420`, moved plane by plane: chroma at half size, every offset halved on the
frame's 2x2 chroma grid), :func:`card_frame_rgb` the same frame in RGB (the reference the I420
one is checked against). The backdrop and the sprites are scaled by ``cv2.resize`` wherever a
whole-pixel origin makes it exact (:func:`_resampled`), the glyphs only over their own box, the
text composited on one float region per plane (its cost against the RGB frame:
``python -m bench.card_frame_cost``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from media.base import yuv
from media.cards.draw import LAYER_MARGIN, CardImage, Layer, Sprite, SpriteI420, composite_sprite
from media.cards.overlay import blend_logo_i420
from media.cards.reading import TEXT_EXIT_S, TITLE_IN_S, WORDS_IN_S

TEXT_DRIFT = 0.07  # the text block is this much larger at the card's end (share of its size)
BACKDROP_DRIFT = 0.08  # the backdrop's push-in over the card (share of the frame)
SPREAD = 0.06  # words move apart by this share of their distance from the block's centre
FLOAT = 0.014  # the text block floats up this far over the card (share of the short side)
MAX_RESIZE_LEAD = 256  # output pixels a resize may start before its output (else: warp)
RESIZE_COST_MAX = 2.5  # a resize may cover this many times its output's area (else: warp)
SUBPIXEL_TOLERANCE = 1 / 32  # output pixels the resize's grid may sit off the exact zoom
LAND_BACK = 1.2  # a landing's back-ease constant: it passes its rest by about 6 %
LAND_FADE = 0.3  # share of a landing's entrance over which its words fade in


def _ease_out(u: float) -> float:
    u = min(max(u, 0.0), 1.0)
    return 1.0 - (1.0 - u) ** 3


def _ease_out_back(u: float) -> float:
    """Ease-out (back, :data:`LAND_BACK`) that passes its rest by about 5 % and comes back: a
    landing's bounce."""
    u = min(max(u, 0.0), 1.0)
    c = LAND_BACK
    return 1.0 + (c + 1.0) * (u - 1.0) ** 3 + c * (u - 1.0) ** 2


@dataclass(frozen=True)
class Placement:
    """Where one sprite is in a frame: its index in :attr:`CardImage.sprites`, its
    ``opacity`` (0-1) and its top-left (``left``, ``top``, sub-pixel frame pixels) once scaled
    by ``scale`` (the sprite's own pixel ``(i, j)`` lands at ``(left + scale * i, top + scale *
    j)``); ``reveal``: the share of its width shown, about its centre (a rule drawing out)."""

    index: int
    opacity: float
    left: float
    top: float
    scale: float
    reveal: float = 1.0


@dataclass(frozen=True)
class Motion:
    """A card's frame: the backdrop's ``zoom`` (about the frame's centre) and the visible
    sprites' :class:`Placement`, in reading order."""

    zoom: float
    placements: tuple[Placement, ...]


def card_motion(image: CardImage, seconds: float, length_s: float,
                entrance_at: float | None = None, exit_at: float | None = None) -> Motion:
    """Where everything on the card is ``seconds`` into its ``length_s`` seconds on screen.

    ``entrance_at``: when (seconds) its words start coming in, fading in (words not yet in are
    left out); None: they are all on screen from the first frame and come to rest by
    :data:`~media.cards.reading.TITLE_IN_S` (the opening card). ``exit_at``: when
    (seconds) the picture under the words starts to change; the words fade out over the
    :data:`~media.cards.reading.TEXT_EXIT_S` before it, so no word is left over a dissolve.
    """
    progress = min(max(seconds / max(length_s, 1e-6), 0.0), 1.0) * image.drift
    scale = 1.0 + TEXT_DRIFT * progress
    spread = SPREAD * progress
    height, width = image.base.shape[:2]
    rise = FLOAT * min(width, height) * progress
    entrance = image.entrance
    fades = entrance_at is not None
    window = WORDS_IN_S if fades else TITLE_IN_S
    last = max((sprite.order for sprite in image.sprites), default=0)
    stagger = min(entrance.stagger_s, max(0.0, window - entrance.seconds) / max(1, last))
    cx, cy = image.centre
    placements = []
    for index, sprite in enumerate(image.sprites):
        u = (seconds - (entrance_at or 0.0) - sprite.order * stagger) / entrance.seconds
        if fades and u <= 0.0:
            continue
        eased = _ease_out(u)
        opacity = eased if fades else 1.0
        grow, apart, lift, reveal = 0.0, 0.0, 0.0, 1.0
        if sprite.line < 0:
            if entrance.rule == "draw_line":
                reveal, opacity = eased, 1.0
        elif entrance.text == "settle":
            grow = (entrance.scale_from - 1.0) * (1.0 - eased)
            apart = entrance.tracking_from * (1.0 - eased)
        elif entrance.text == "rise":
            lift = image.rise_px * (1.0 - eased)
        elif entrance.text == "land":
            landed = _ease_out_back(u)
            grow = (entrance.scale_from - 1.0) * (1.0 - landed)
            lift = -image.rise_px * (1.0 - landed)
            opacity = min(1.0, max(u, 0.0) / LAND_FADE) if fades else 1.0
        if reveal <= 0.0:
            continue
        if exit_at is not None:
            gone = (seconds - (exit_at - TEXT_EXIT_S)) / TEXT_EXIT_S
            if gone >= 1.0:
                continue
            opacity *= 1.0 - _ease_out(gone) if gone > 0.0 else 1.0
        h, w = sprite.alpha.shape
        mid_x, mid_y = sprite.x0 + w / 2, sprite.y0 + h / 2
        size = scale * (1.0 + grow)
        new_x = cx + (mid_x - cx) * (size + spread + apart)
        new_y = cy + (mid_y - cy) * size + lift - rise
        placements.append(Placement(index, opacity, new_x - w * size / 2,
                                    new_y - h * size / 2, size, reveal))
    return Motion(1.0 + BACKDROP_DRIFT * progress, tuple(placements))


# --- RGB ---------------------------------------------------------------------------------------


def _pushed(base: np.ndarray, zoom: float) -> np.ndarray:
    """``base`` scaled by ``zoom`` (>= 1) about the frame's centre, same size."""
    if zoom <= 1.0 + 1e-6:
        return base.copy()
    height, width = base.shape[:2]
    matrix = np.float64([[zoom, 0.0, (1.0 - zoom) * width / 2],
                         [0.0, zoom, (1.0 - zoom) * height / 2]])
    return cv2.warpAffine(base, matrix, (width, height), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)


def placed_sprite(sprite: Sprite, place: Placement
            ) -> tuple[int, int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The sprite moved to ``place`` (its index and opacity unused): (left, top, (shade, alpha,
    ink)), scaled and placed to the sub-pixel, for :func:`media.cards.draw.composite_sprite`."""
    h, w = sprite.alpha.shape
    scale = place.scale
    left, top = math.floor(place.left), math.floor(place.top)
    size = (math.ceil(w * scale + 2), math.ceil(h * scale + 2))
    matrix = np.float64([[scale, 0.0, place.left - left], [0.0, scale, place.top - top]])
    glyphs = np.dstack((sprite.ink, sprite.alpha))
    moved = cv2.warpAffine(glyphs, matrix, size, flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    shade = cv2.warpAffine(sprite.shade, matrix, size, flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    cut = _revealed(size[0], place.reveal)
    return left + cut.start, top, (np.ascontiguousarray(shade[:, cut]),
                                   np.ascontiguousarray(moved[:, cut, 3]),
                                   np.ascontiguousarray(moved[:, cut, :3]))


def _revealed(width: int, reveal: float) -> slice:
    """The columns of a ``width``-wide moved sprite shown at ``reveal`` (a centred share)."""
    if reveal >= 1.0:
        return slice(0, width)
    hidden = round(width * (1.0 - reveal) / 2)
    return slice(hidden, max(hidden + 1, width - hidden))


def card_frame_rgb(image: CardImage, seconds: float, length_s: float,
                   entrance_at: float | None = None, exit_at: float | None = None
                   ) -> np.ndarray:
    """The card ``seconds`` into its ``length_s`` seconds on screen as uint8 RGB (a new
    array): the same frame as :func:`card_frame`, drawn from the RGB parts."""
    motion = card_motion(image, seconds, length_s, entrance_at, exit_at)
    out = _pushed(image.base, motion.zoom)
    placed = [(image.sprites[p.index], p.opacity, placed_sprite(image.sprites[p.index], p))
              for p in motion.placements]
    for shade in (True, False):  # every shadow under every glyph, as one text layer
        for sprite, opacity, (left, top, arrays) in placed:
            composite_sprite(out, sprite, left, top, opacity, shade=shade, scaled=arrays)
    return out


# --- I420 --------------------------------------------------------------------------------------


def words_over_frame(image: CardImage, picture: np.ndarray, seconds: float, length_s: float,
                     entrance_at: float | None = None, exit_at: float | None = None, *,
                     own: bool = False) -> np.ndarray:
    """A card whose words lie over its moving photo (:func:`media.cards.draw.render_words_over`)
    ``seconds`` into its ``length_s`` seconds on screen: ``picture`` (the photo's I420 frame at
    that moment) under the card's scrim and logo, and the words placed as :func:`card_motion`
    says (``entrance_at``, ``exit_at`` as there; the backdrop's zoom is the photo's own move).
    A new frame; or ``picture`` itself, drawn on, when the caller ``own``-s it (a frame made
    for this card alone: no copy)."""
    motion = card_motion(image, seconds, length_s, entrance_at, exit_at)
    out = picture if own else picture.copy()
    if image.scrim is not None:
        image.scrim.lay(out)
    if image.logo is not None:
        out = blend_logo_i420(out, image.logo)
    if motion.placements:
        _lay_text(yuv.planes(out), image.sprites_i420, motion.placements, image.held)
    return out


def card_frame(image: CardImage, seconds: float, length_s: float,
               entrance_at: float | None = None, exit_at: float | None = None) -> np.ndarray:
    """The card ``seconds`` into its ``length_s`` seconds on screen: a new I420 frame
    (:mod:`media.base.yuv`), made from the card's I420 parts (:attr:`CardImage.i420`).
    ``entrance_at`` and ``exit_at`` as in :func:`card_motion`.
    """
    motion = card_motion(image, seconds, length_s, entrance_at, exit_at)
    parts = image.i420
    width, height = yuv.frame_size(parts.base)
    out = np.empty_like(parts.base)
    planes_in, planes_out = yuv.planes(parts.base), yuv.planes(out)
    zoom = motion.zoom
    # Luma: zoom about index (W/2, H/2), as the RGB warp; chroma: the same map on its grid.
    luma_t = ((1.0 - zoom) * width / 2, (1.0 - zoom) * height / 2)
    chroma_t = ((1.0 - zoom) * (width - 1) / 4, (1.0 - zoom) * (height - 1) / 4)
    for plane, (src, dst) in enumerate(zip(planes_in, planes_out, strict=True)):
        _push_plane(src, dst, zoom, luma_t if plane == 0 else chroma_t)
    if motion.placements:
        _lay_text(planes_out, parts.sprites, motion.placements)
    return out


def _resize_origin(pos: float, zoom: float) -> tuple[int, int] | None:
    """For one axis of a picture zoomed by ``zoom`` whose output pixel 0 shows source pixel
    ``pos``: a whole source pixel ``o`` (the region's start; before 0: padded) and a whole
    number ``n`` >= 1 of output pixels such that ``cv2.resize`` by ``zoom`` of the region from
    ``o`` (it shows region pixel ``(j + 0.5) / zoom - 0.5`` at output pixel ``j``), cut at
    ``n``, is the zoom within :data:`SUBPIXEL_TOLERANCE` (no coarser than ``warpAffine``'s own
    1/32-pixel grid): ``(o, n)`` with the least ``n``, or None when ``n`` would pass
    :data:`MAX_RESIZE_LEAD`."""
    origin = math.floor(pos)
    first = zoom * (pos - origin) + (zoom - 1.0) / 2  # output pixels from the origin to pos
    # Each whole source pixel further back adds ``zoom`` output pixels: the fractional part
    # creeps by ``zoom - 1``, so jump straight to where it next nears a whole number.
    back = max(0, math.ceil((1.0 - first) / zoom))
    while True:
        steps = first + back * zoom
        if steps > MAX_RESIZE_LEAD:
            return None
        whole = round(steps)
        if steps >= 1.0 and abs(steps - whole) <= SUBPIXEL_TOLERANCE:
            return origin - back, whole
        if zoom - 1.0 <= 1e-12:
            return None
        fraction = steps - math.floor(steps)
        back += max(1, math.ceil((1.0 - SUBPIXEL_TOLERANCE - fraction) / (zoom - 1.0)))


def _resampled(src: np.ndarray, zoom: float, shift: tuple[float, float], size: tuple[int, int],
               border: int, fill: tuple[float, ...] = (0.0,), margin: int = 0) -> np.ndarray:
    """``src`` scaled by ``zoom`` (>= 1) then moved by ``shift`` (pixels) into a new ``size``
    (width, height) array: output pixel ``x`` shows source pixel ``(x - shift) / zoom``;
    beyond ``src``, its ``border`` (``cv2.BORDER_*``; ``fill`` for a constant one). ``src``
    may carry ``margin`` pixels of that border on every side already (pixel 0 is then its
    ``margin``-th): regions inside it are read as views, not padded copies.

    One ``cv2.resize`` of a region (a third to a quarter of the CPU of ``warpAffine``, which
    spends most of its time mapping coordinates) where whole-pixel origins make it exact (see
    :func:`_resize_origin`) at no more than :data:`RESIZE_COST_MAX` times the output's area,
    else the warp.
    """
    out_w, out_h = size
    along_x = _resize_origin(-shift[0] / zoom, zoom)
    along_y = _resize_origin(-shift[1] / zoom, zoom)
    if (along_x is None or along_y is None
            or (along_x[1] + out_w) * (along_y[1] + out_h) > RESIZE_COST_MAX * out_w * out_h):
        matrix = np.float64([[zoom, 0.0, shift[0] - zoom * margin],
                             [0.0, zoom, shift[1] - zoom * margin]])
        return cv2.warpAffine(src, matrix, size, flags=cv2.INTER_LINEAR, borderMode=border,
                              borderValue=fill)
    height, width = src.shape[:2]
    (x0, nx), (y0, ny) = along_x, along_y
    x0, y0 = x0 + margin, y0 + margin
    x1 = x0 + math.ceil((nx + out_w) / zoom) + 2
    y1 = y0 + math.ceil((ny + out_h) / zoom) + 2
    region = src[max(0, y0):min(height, y1), max(0, x0):min(width, x1)]
    pads = (max(0, -y0), max(0, y1 - height), max(0, -x0), max(0, x1 - width))
    if any(pads):
        region = cv2.copyMakeBorder(region, *pads, border, value=fill)
    big = cv2.resize(region, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_LINEAR)
    return big[ny:ny + out_h, nx:nx + out_w]


def _push_plane(src: np.ndarray, dst: np.ndarray, zoom: float,
                shift: tuple[float, float]) -> None:
    """``dst`` (same size as ``src``) = ``src`` scaled by ``zoom`` about the frame's centre
    (``shift``: see :func:`_resampled`), the edges reflected as the RGB warp's."""
    if zoom <= 1.0 + 1e-6:
        dst[:] = src
        return
    height, width = src.shape
    dst[:] = _resampled(src, zoom, shift, (width, height), cv2.BORDER_REFLECT)


def _moved(layer: Layer, place: Placement, chroma: bool, fill: tuple[float, ...]
           ) -> tuple[float, int, int, np.ndarray]:
    """A sprite's ``layer`` moved to ``place`` on a luma or ``chroma`` plane: (opacity, left,
    top, moved array) on that plane's whole pixels; ``fill``: each channel's value where
    nothing is drawn."""
    scale = place.scale
    left_f, top_f = place.left + scale * layer.dx, place.top + scale * layer.dy
    if chroma:  # chroma sample c sits at luma pixel 2c + 0.5 (the layer's first: dx + 0.5)
        left_f = (left_f + scale * 0.5 - 0.5) / 2
        top_f = (top_f + scale * 0.5 - 0.5) / 2
    h, w = layer.inner.shape[:2]
    left, top = math.floor(left_f), math.floor(top_f)
    size = (math.ceil(w * scale + 2), math.ceil(h * scale + 2))
    moved = _resampled(layer.array, scale, (left_f - left, top_f - top), size,
                       cv2.BORDER_CONSTANT, fill, LAYER_MARGIN)
    if place.reveal < 1.0:
        cut = _revealed(moved.shape[1], place.reveal)
        moved, left = moved[:, cut], left + cut.start
    return place.opacity, left, top, moved


def _lay_text(planes: tuple[np.ndarray, np.ndarray, np.ndarray],
              sprites: tuple[SpriteI420, ...], placements: tuple[Placement, ...],
              held: dict | None = None) -> None:
    """Composite the placed sprites onto the Y, U, V ``planes`` in place: every shadow, then
    every glyph, as one text layer; each plane's text region is converted to float once.
    ``held`` (a dict kept by the caller from frame to frame) keeps the last frame's moved
    layers: a sprite placed where it was (words holding still) is not resampled again."""
    fills = ((1.0,), (0.0, 1.0), (1.0,), (0.0, 0.0, 1.0))
    kept = held if held is not None else {}
    moved: dict = {}
    layers: list[list] = [[], [], [], []]
    for place in placements:
        sprite = sprites[place.index]
        key = (place.index, place.left, place.top, place.scale, place.reveal)
        parts = kept.get(key)
        if parts is None:
            parts = tuple(_moved(layer, place, chroma, fill) for layer, chroma, fill in
                          zip((sprite.shade, sprite.glyphs, sprite.chroma_shade,
                               sprite.chroma_glyphs), (False, False, True, True), fills,
                              strict=True))
        moved[key] = parts
        for into, (_, left, top, array) in zip(layers, parts, strict=True):
            into.append((place.opacity, left, top, array))
    shades, glyphs, chroma_shades, chroma_glyphs = layers
    passes = ((shades, glyphs, 0, 1, yuv.BLACK_Y), (chroma_shades, chroma_glyphs, 0, 2,
                                                    yuv.NEUTRAL_C),
              (chroma_shades, chroma_glyphs, 1, 2, yuv.NEUTRAL_C))
    if held is None:
        for plane, (shade, glyph, paint, keep, black) in zip(planes, passes, strict=True):
            _composite(plane, shade, glyph, paint=paint, keep=keep, black=black)
        return
    # Words holding still (the same placements two frames running) are one affine map a pixel,
    # made once and applied to each frame of the moving photo under them.
    still = tuple((place.index, place.left, place.top, place.scale, place.reveal, place.opacity)
                  for place in placements)
    maps = held.get(_HELD_MAPS)
    if maps is None or maps[0] != still:  # placements new this frame: composite them
        maps = (still, None)
    elif maps[1] is None:  # the same a second frame running: made into maps once
        maps = (still, tuple(_text_map(plane.shape, shade, glyph, paint=paint, keep=keep,
                                       black=black)
                             for plane, (shade, glyph, paint, keep, black)
                             in zip(planes, passes, strict=True)))
    held.clear()
    held.update(moved)
    held[_HELD_MAPS] = maps
    for plane, text_map, (shade, glyph, paint, keep, black) in zip(
            planes, maps[1] or (None,) * 3, passes, strict=True):
        if maps[1] is not None:
            _apply_map(plane, text_map)
        else:
            _composite(plane, shade, glyph, paint=paint, keep=keep, black=black)


_HELD_MAPS = "text maps"  # the key of the held words' maps in a card's ``held`` dict
TextMap = tuple[tuple[int, int, int, int], np.ndarray, np.ndarray] | None
"""Words' effect on a plane's window (x0, y0, x1, y1): each pixel becomes ``p * scale +
offset`` (float32 arrays); None where no words fall on the plane."""


def _text_map(shape: tuple[int, ...], shades: list, glyphs: list, *, paint: int, keep: int,
              black: int) -> TextMap:
    """:func:`_composite`'s shadows and glyphs on a plane of ``shape`` as one :data:`TextMap`:
    the same steps, run on the affine map of the pixel instead of the pixel."""
    box = _window(shape, shades + glyphs)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    scale = np.ones((y1 - y0, x1 - x0), np.float32)
    offset = np.zeros_like(scale)  # on the plane less its black, as _composite works
    for opacity, into, factor in _clipped(shades, box):
        if opacity < 1.0:
            factor = 1.0 - opacity + opacity * factor
        scale[into] *= factor
        offset[into] *= factor
    for opacity, into, channels in _clipped(glyphs, box):
        factor, ink = channels[..., keep], channels[..., paint]
        if opacity < 1.0:
            factor, ink = 1.0 - opacity + opacity * factor, opacity * ink
        scale[into] *= factor
        target = offset[into]
        target *= factor
        target += ink
    offset += black * (1.0 - scale)  # back on the plane: (p - b) * s + o + b
    return box, scale, offset


def _apply_map(plane: np.ndarray, text_map: TextMap) -> None:
    """Apply a :data:`TextMap` to the uint8 ``plane`` in place."""
    if text_map is None:
        return
    (x0, y0, x1, y1), scale, offset = text_map
    region = plane[y0:y1, x0:x1].astype(np.float32)
    region *= scale
    region += offset
    plane[y0:y1, x0:x1] = cv2.convertScaleAbs(region)


def _window(shape: tuple[int, ...], layers: list) -> tuple[int, int, int, int] | None:
    """The bounding box (x0, y0, x1, y1) of ``layers`` clipped to a plane of ``shape``."""
    height, width = shape[:2]
    x0 = max(0, min(left for _, left, _, _ in layers))
    y0 = max(0, min(top for _, _, top, _ in layers))
    x1 = min(width, max(left + a.shape[1] for _, left, _, a in layers))
    y1 = min(height, max(top + a.shape[0] for _, _, top, a in layers))
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _clipped(layers: list, box: tuple[int, int, int, int]) -> list:
    """``layers`` ((opacity, left, top, array)) where they overlap ``box``: (opacity, region
    window (``box``-relative), the array's window)."""
    bx0, by0, bx1, by1 = box
    out = []
    for opacity, left, top, array in layers:
        h, w = array.shape[:2]
        x0, y0 = max(bx0, left), max(by0, top)
        x1, y1 = min(bx1, left + w), min(by1, top + h)
        if x1 > x0 and y1 > y0:
            out.append((opacity, (slice(y0 - by0, y1 - by0), slice(x0 - bx0, x1 - bx0)),
                        array[y0 - top:y1 - top, x0 - left:x1 - left]))
    return out


def _composite(plane: np.ndarray, shades: list, glyphs: list, *, paint: int, keep: int,
               black: int) -> None:
    """Every shadow (``shades``: (opacity, left, top, keep)), then every glyph (``glyphs``:
    (opacity, left, top, channels)) onto the uint8 ``plane`` in place, worked on the plane
    less its ``black`` (see :class:`SpriteI420`): ``paint`` and ``keep`` are the glyph
    channels' indices."""
    box = _window(plane.shape, shades + glyphs)
    if box is None:
        return
    x0, y0, x1, y1 = box
    region = plane[y0:y1, x0:x1].astype(np.float32)
    region -= black
    for opacity, into, factor in _clipped(shades, box):
        if opacity < 1.0:
            factor = 1.0 - opacity + opacity * factor
        region[into] *= factor
    for opacity, into, channels in _clipped(glyphs, box):
        factor, ink = channels[..., keep], channels[..., paint]
        if opacity < 1.0:
            factor, ink = 1.0 - opacity + opacity * factor, opacity * ink
        target = region[into]
        target *= factor
        target += ink
    region += black
    plane[y0:y1, x0:x1] = cv2.convertScaleAbs(region)
