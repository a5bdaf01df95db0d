"""A card's parts moved and composited on the film's I420 planes, as
:mod:`media.cards.motion` places them: the backdrop pushed in plane by plane (chroma at half
size, every offset halved on the frame's 2x2 chroma grid) and the words' sprites
(:class:`media.cards.sprites.SpriteI420`) laid as one text layer, every shadow under every
glyph, on one float region per plane.

The backdrop and the sprites are scaled by ``cv2.resize`` wherever a whole-pixel origin makes
it exact (:func:`_resampled`), the glyphs only over their own box; words holding still over a
moving photo are made once into one affine map a pixel (:func:`lay_text`'s ``held``), with
the card's scrim under them folded in (one uint8 pass over the frame for both). Their
cost against the RGB frame: ``python -m bench.card_frame_cost``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from media.base import yuv
from media.cards.scrim import Scrim, ScrimPlane
from media.cards.sprites import LAYER_MARGIN, Layer, SpriteI420

MAX_RESIZE_LEAD = 256  # output pixels a resize may start before its output (else: warp)
RESIZE_COST_MAX = 2.5  # a resize may cover this many times its output's area (else: warp)
SUBPIXEL_TOLERANCE = 1 / 32  # output pixels the resize's grid may sit off the exact zoom


@dataclass(frozen=True)
class Placement:
    """Where one sprite is in a frame: its index in the card's sprites
    (:attr:`media.cards.draw.CardImage.sprites`), its ``opacity`` (0-1) and its top-left
    (``left``, ``top``, sub-pixel frame pixels) once scaled by ``scale`` (the sprite's own pixel
    ``(i, j)`` lands at ``(left + scale * i, top + scale * j)``); ``reveal``: the share of its
    width shown, about its centre (a rule drawing out)."""

    index: int
    opacity: float
    left: float
    top: float
    scale: float
    reveal: float = 1.0


def revealed(width: int, reveal: float) -> slice:
    """The columns of a ``width``-wide moved sprite shown at ``reveal`` (a centred share)."""
    if reveal >= 1.0:
        return slice(0, width)
    hidden = round(width * (1.0 - reveal) / 2)
    return slice(hidden, max(hidden + 1, width - hidden))


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


def push_plane(src: np.ndarray, dst: np.ndarray, zoom: float,
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
        cut = revealed(moved.shape[1], place.reveal)
        moved, left = moved[:, cut], left + cut.start
    return place.opacity, left, top, moved


def lay_text(planes: tuple[np.ndarray, np.ndarray, np.ndarray],
              sprites: tuple[SpriteI420, ...], placements: tuple[Placement, ...],
              held: dict | None = None, scrim: Scrim | None = None) -> None:
    """Composite the placed sprites onto the Y, U, V ``planes`` in place: every shadow, then
    every glyph, as one text layer; each plane's text region is converted to float once.
    ``held`` (a dict kept by the caller from frame to frame) keeps the last frame's moved
    layers: a sprite placed where it was (words holding still) is not resampled again.
    ``scrim``, if given, is laid under the words first; under words holding still the two
    are one map a pixel (:func:`_fused_map`), one pass over the frame instead of two."""
    if scrim is not None and held is None:
        scrim.lay_planes(planes)
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
    still = _still(placements)
    maps = held.get(HELD_MAPS)
    if maps is None or maps[0] != still:  # placements new this frame: composite them
        maps = (still, None)
    elif maps[1] is None:  # the same a second frame running: made into maps once
        maps = (still, tuple(_text_map(plane.shape, shade, glyph, paint=paint, keep=keep,
                                       black=black)
                             for plane, (shade, glyph, paint, keep, black)
                             in zip(planes, passes, strict=True)))
    fused = held.get(FUSED_MAPS)
    held.clear()
    held.update(moved)
    held[HELD_MAPS] = maps
    if scrim is not None and maps[1] is not None:
        if fused is None or fused[0] is not maps[1]:
            fused = (maps[1], tuple(_fused_map(plane.shape, text_map, under) for
                                    plane, text_map, under in
                                    zip(planes, maps[1], scrim.plane_maps, strict=True)))
        held[FUSED_MAPS] = fused
        for plane, fused_map in zip(planes, fused[1], strict=True):
            apply_fused(plane, fused_map)
        return
    if scrim is not None:
        scrim.lay_planes(planes)
    for plane, text_map, (shade, glyph, paint, keep, black) in zip(
            planes, maps[1] or (None,) * 3, passes, strict=True):
        if maps[1] is not None:
            _apply_map(plane, text_map)
        else:
            _composite(plane, shade, glyph, paint=paint, keep=keep, black=black)


def _still(placements: tuple[Placement, ...]) -> tuple:
    """What makes words hold still from one frame to the next: every placement as it is."""
    return tuple((place.index, place.left, place.top, place.scale, place.reveal, place.opacity)
                 for place in placements)


def held_fused(held: dict, placements: tuple[Placement, ...]) -> tuple[FusedMap, ...] | None:
    """The scrim and words' fused maps (Y, U, V, :data:`FusedMap`) that :func:`lay_text` would
    lay this frame, given its ``held`` dict and the frame's ``placements``, when that is all it
    would do (the words hold where they were and their maps are made); else None. A caller
    that lays them itself (:func:`apply_fused` over the frame) may skip :func:`lay_text`: the
    held state stays what the call would have left."""
    maps, fused = held.get(HELD_MAPS), held.get(FUSED_MAPS)
    if (maps is None or maps[1] is None or fused is None or fused[0] is not maps[1]
            or maps[0] != _still(placements)):
        return None
    return fused[1]


HELD_MAPS = "text maps"  # the key of the held words' maps in a card's ``held`` dict
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


FUSED_MAPS = "scrim and text maps"  # the key of the held words' maps fused with the scrim
FusedMap = tuple[int, int, np.ndarray, np.ndarray, np.ndarray | None] | None
"""A scrim and held words on a plane's rows ``top..bottom`` as one map in uint8: each pixel
becomes ``p * keep / 255 + lift - lower`` (each step rounded and saturated as OpenCV's uint8
arithmetic does; ``lower`` None where nothing goes below the plane's zero)."""


def _fused_map(shape: tuple[int, ...], text_map: TextMap, scrim: ScrimPlane) -> FusedMap:
    """The scrim's plane map (:attr:`media.cards.scrim.Scrim.plane_maps`), then the words'
    :data:`TextMap`, as one :data:`FusedMap` on a plane of ``shape``."""
    keep, letin, (top, bottom) = scrim
    spans = [(top, bottom)] if bottom > top else []
    if text_map is not None:
        spans.append((text_map[0][1], text_map[0][3]))
    if not spans:
        return None
    lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
    # Outside the words' window the map is the scrim's own (its uint8 gain and black let in,
    # exactly what rounding them through float gives back): only the window is worked in float.
    keep_all = np.full((hi - lo, shape[1]), 255, np.uint8)
    lift = np.zeros_like(keep_all)
    lower = np.zeros_like(keep_all)
    if bottom > top:
        keep_all[top - lo:bottom - lo] = keep
        lift[top - lo:bottom - lo] = letin
    if text_map is not None:
        (x0, y0, x1, y1), scale, offset = text_map
        window = np.s_[y0 - lo:y1 - lo, x0:x1]
        gain = keep_all[window] / np.float32(255.0)
        gain *= scale
        light = lift[window] * scale + offset
        keep_all[window] = np.clip(np.rint(gain * 255.0), 0, 255).astype(np.uint8)
        lift[window] = np.clip(np.rint(light), 0, 255).astype(np.uint8)
        lower[window] = np.clip(np.rint(-light), 0, 255).astype(np.uint8)
    return lo, hi, keep_all, lift, lower if lower.any() else None


def apply_fused(plane: np.ndarray, fused: FusedMap,
                window: tuple[int, int, int, int] | None = None) -> None:
    """Apply a :data:`FusedMap` to the uint8 ``plane`` in place: all of it, or only inside
    ``window`` (x0, y0, x1, y1 pixels; each pixel gets what the whole map gives it)."""
    if fused is None:
        return
    top, bottom, keep, lift, lower = fused
    x0, y0, x1, y1 = window if window is not None else (0, top, plane.shape[1], bottom)
    y0, y1 = max(y0, top), min(y1, bottom)
    if y1 <= y0 or x1 <= x0:
        return
    rows = plane[y0:y1, x0:x1]
    cut = np.s_[y0 - top:y1 - top, x0:x1]
    cv2.multiply(rows, keep[cut], dst=rows, scale=1.0 / 255.0)
    cv2.add(rows, lift[cut], dst=rows)
    if lower is not None:
        cv2.subtract(rows, lower[cut], dst=rows)


def _apply_map(plane: np.ndarray, text_map: TextMap) -> None:
    """Apply a :data:`TextMap` to the uint8 ``plane`` in place."""
    if text_map is None:
        return
    (x0, y0, x1, y1), scale, offset = text_map
    region = plane[y0:y1, x0:x1]
    # The same float32 products and sums as converting first, one pass fewer.
    mapped = cv2.multiply(region, scale, dtype=cv2.CV_32F)
    cv2.add(mapped, offset, dst=mapped)
    cv2.convertScaleAbs(mapped, dst=region)


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
