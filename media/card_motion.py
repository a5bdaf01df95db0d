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

The motion is worked out once per frame (:func:`card_motion`) and drawn two ways:
:func:`card_frame` makes the film's I420 frame natively (the card's I420 parts,
:attr:`CardImage.i420`, moved plane by plane: chroma at half size, every offset halved on the
frame's 2x2 chroma grid), :func:`card_frame_rgb` the same frame in RGB (the reference the I420
one is checked against).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from media import yuv
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


@dataclass(frozen=True)
class Placement:
    """Where one sprite is in a frame: its index in :attr:`CardImage.sprites`, its
    ``opacity`` (0-1) and its top-left (``left``, ``top``, sub-pixel frame pixels) once scaled
    by ``scale`` (the sprite's own pixel ``(i, j)`` lands at ``(left + scale * i, top + scale *
    j)``)."""

    index: int
    opacity: float
    left: float
    top: float
    scale: float


@dataclass(frozen=True)
class Motion:
    """A card's frame: the backdrop's ``zoom`` (about the frame's centre) and the visible
    sprites' :class:`Placement`, in reading order."""

    zoom: float
    placements: tuple[Placement, ...]


def card_motion(image: CardImage, seconds: float, length_s: float,
                entrance_at: float | None = None) -> Motion:
    """Where everything on the card is ``seconds`` into its ``length_s`` seconds on screen.

    ``entrance_at``: when (seconds) its words start coming in; None: everything is in place
    from the first frame (the opening card). Words not yet in are left out.
    """
    progress = min(max(seconds / max(length_s, 1e-6), 0.0), 1.0) * image.drift
    scale = 1.0 + TEXT_DRIFT * progress
    spread = SPREAD * progress
    height, width = image.base.shape[:2]
    rise = FLOAT * min(width, height) * progress
    stagger = min(STAGGER_S, ALL_IN_S / max(1, len(image.sprites) - 1))
    cx, cy = image.centre
    placements = []
    for index, sprite in enumerate(image.sprites):
        opacity, lift = 1.0, 0.0
        if entrance_at is not None:
            u = (seconds - entrance_at - sprite.order * stagger) / ENTRANCE_S
            if u <= 0.0:
                continue
            opacity = _ease_out(u)
            lift = image.rise_px * (1.0 - opacity)
        h, w = sprite.alpha.shape
        mid_x, mid_y = sprite.x0 + w / 2, sprite.y0 + h / 2
        new_x = cx + (mid_x - cx) * (scale + spread)
        new_y = cy + (mid_y - cy) * scale + lift - rise
        placements.append(Placement(index, opacity, new_x - w * scale / 2,
                                    new_y - h * scale / 2, scale))
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


def _placed(sprite: Sprite, place: Placement
            ) -> tuple[int, int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The sprite moved to ``place``: (left, top, (shade, alpha, ink)) with sub-pixel
    placement."""
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
    return left, top, (shade, np.ascontiguousarray(moved[..., 3]),
                       np.ascontiguousarray(moved[..., :3]))


def card_frame_rgb(image: CardImage, seconds: float, length_s: float,
                   entrance_at: float | None = None) -> np.ndarray:
    """The card ``seconds`` into its ``length_s`` seconds on screen as uint8 RGB (a new
    array): the same frame as :func:`card_frame`, drawn from the RGB parts."""
    motion = card_motion(image, seconds, length_s, entrance_at)
    out = _pushed(image.base, motion.zoom)
    placed = [(image.sprites[p.index], p.opacity, _placed(image.sprites[p.index], p))
              for p in motion.placements]
    for shade in (True, False):  # every shadow under every glyph, as one text layer
        for sprite, opacity, (left, top, arrays) in placed:
            composite_sprite(out, sprite, left, top, opacity, shade=shade, scaled=arrays)
    return out


# --- I420 --------------------------------------------------------------------------------------


def card_frame(image: CardImage, seconds: float, length_s: float,
               entrance_at: float | None = None) -> np.ndarray:
    """The card ``seconds`` into its ``length_s`` seconds on screen: a new I420 frame
    (:mod:`media.yuv`), made from the card's I420 parts (:attr:`CardImage.i420`).

    ``entrance_at``: when (seconds) its words start coming in; None: everything is in place
    from the first frame (the opening card).
    """
    motion = card_motion(image, seconds, length_s, entrance_at)
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


MAX_RESIZE_LEAD = 128  # output pixels a resize may start before its output (else: warp)
RESIZE_COST_MAX = 2.5  # a resize may cover this many times its output's area (else: warp)
SUBPIXEL_TOLERANCE = 1 / 32  # output pixels the resize's grid may sit off the exact zoom


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
    steps = first + zoom * np.arange(math.ceil(MAX_RESIZE_LEAD / zoom) + 1)  # origins before
    good = np.flatnonzero((steps >= 1.0) & (steps <= MAX_RESIZE_LEAD)
                          & (np.abs(steps - np.round(steps)) <= SUBPIXEL_TOLERANCE))
    if len(good) == 0:
        return None
    return origin - int(good[0]), round(float(steps[good[0]]))


def _resampled(src: np.ndarray, zoom: float, shift: tuple[float, float], size: tuple[int, int],
               border: int, fill: tuple[float, ...] = (0.0,)) -> np.ndarray:
    """``src`` scaled by ``zoom`` (>= 1) then moved by ``shift`` (pixels) into a new ``size``
    (width, height) array: output pixel ``x`` shows source pixel ``(x - shift) / zoom``;
    beyond ``src``, its ``border`` (``cv2.BORDER_*``; ``fill`` for a constant one).

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
        matrix = np.float64([[zoom, 0.0, shift[0]], [0.0, zoom, shift[1]]])
        return cv2.warpAffine(src, matrix, size, flags=cv2.INTER_LINEAR, borderMode=border,
                              borderValue=fill)
    height, width = src.shape[:2]
    (x0, nx), (y0, ny) = along_x, along_y
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


def _moved(array: np.ndarray, left_f: float, top_f: float, scale: float,
           fill: tuple[float, ...]) -> tuple[int, int, np.ndarray]:
    """``array`` (a sprite's channels) scaled by ``scale`` with its pixel (0, 0) at
    ``left_f``/``top_f``: (left, top, moved channels) on whole pixels; ``fill``: each
    channel's value where nothing is drawn."""
    h, w = array.shape[:2]
    left, top = math.floor(left_f), math.floor(top_f)
    size = (math.ceil(w * scale + 2), math.ceil(h * scale + 2))
    return left, top, _resampled(array, scale, (left_f - left, top_f - top), size,
                                 cv2.BORDER_CONSTANT, fill)


def _lay_text(planes: tuple[np.ndarray, np.ndarray, np.ndarray], sprites: tuple,
              placements: tuple[Placement, ...]) -> None:
    """Composite the placed sprites onto the Y, U, V ``planes`` in place: every shadow, then
    every glyph, as one text layer; each plane's text region is converted to float once."""
    luma_layers, chroma_layers = [], []
    for place in placements:
        sprite = sprites[place.index]
        scale = place.scale
        luma_layers.append((place.opacity, *_moved(sprite.luma, place.left, place.top, scale,
                                                    (0.0, 1.0, 1.0, 0.0))))
        # Chroma sample k of the sprite sits at its luma pixel dx + 2k + 0.5; frame chroma
        # sample c at luma pixel 2c + 0.5.
        c_left = (place.left + scale * (sprite.dx + 0.5) - 0.5) / 2
        c_top = (place.top + scale * (sprite.dy + 0.5) - 0.5) / 2
        chroma_layers.append((place.opacity, *_moved(sprite.chroma, c_left, c_top, scale,
                                                     (0.0, 0.0, 1.0, 1.0))))
    y, u, v = planes
    _composite(y, luma_layers, paint=0, keep=1, keep_shade=2, black=yuv.BLACK_Y)
    _composite(u, chroma_layers, paint=0, keep=2, keep_shade=3, black=yuv.NEUTRAL_C)
    _composite(v, chroma_layers, paint=1, keep=2, keep_shade=3, black=yuv.NEUTRAL_C)


def _window(shape: tuple[int, ...], layers: list) -> tuple[int, int, int, int] | None:
    """The bounding box (x0, y0, x1, y1) of ``layers`` clipped to a plane of ``shape``."""
    height, width = shape[:2]
    x0 = max(0, min(left for _, left, _, _ in layers))
    y0 = max(0, min(top for _, _, top, _ in layers))
    x1 = min(width, max(left + a.shape[1] for _, left, _, a in layers))
    y1 = min(height, max(top + a.shape[0] for _, _, top, a in layers))
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _clip(layer_left: int, layer_top: int, layer: np.ndarray, box: tuple[int, int, int, int]
          ) -> tuple[tuple[slice, slice], tuple[slice, slice]] | None:
    """(region window, layer window) where ``layer`` at ``layer_left``/``layer_top`` overlaps
    ``box``; windows of the region array (``box``-relative) and of the layer."""
    bx0, by0, bx1, by1 = box
    h, w = layer.shape[:2]
    x0, y0 = max(bx0, layer_left), max(by0, layer_top)
    x1, y1 = min(bx1, layer_left + w), min(by1, layer_top + h)
    if x1 <= x0 or y1 <= y0:
        return None
    return ((slice(y0 - by0, y1 - by0), slice(x0 - bx0, x1 - bx0)),
            (slice(y0 - layer_top, y1 - layer_top), slice(x0 - layer_left, x1 - layer_left)))


def _composite(plane: np.ndarray, layers: list, *, paint: int, keep: int, keep_shade: int,
               black: int) -> None:
    """Shadows then glyphs of ``layers`` ((opacity, left, top, channels)) onto the uint8
    ``plane`` in place, worked on the plane less its ``black`` (see :class:`SpriteI420`):
    ``paint``, ``keep`` and ``keep_shade`` are the channels' indices."""
    box = _window(plane.shape, layers)
    if box is None:
        return
    x0, y0, x1, y1 = box
    region = plane[y0:y1, x0:x1].astype(np.float32)
    region -= black
    clipped = [(opacity, windows, channels) for opacity, left, top, channels in layers
               if (windows := _clip(left, top, channels, box)) is not None]
    for opacity, (into, outof), channels in clipped:
        factor = channels[(*outof, keep_shade)]
        if opacity < 1.0:
            factor = 1.0 - opacity + opacity * factor
        region[into] *= factor
    for opacity, (into, outof), channels in clipped:
        factor = channels[(*outof, keep)]
        ink = channels[(*outof, paint)]
        if opacity < 1.0:
            factor, ink = 1.0 - opacity + opacity * factor, opacity * ink
        target = region[into]
        target *= factor
        target += ink
    region += black
    plane[y0:y1, x0:x1] = cv2.convertScaleAbs(region)
