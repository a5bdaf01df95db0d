"""A title card in motion: its frames from the parts :func:`media.cards.draw.render_card_image`
drew.

Nothing on a card holds still. Over the card's whole length the backdrop pushes in slowly
(:data:`BACKDROP_DRIFT`), the text block grows gently about its centre (:data:`TEXT_DRIFT`) and
floats up (:data:`FLOAT`), and the words of a line drift apart a little (:data:`SPREAD`, a
tracking move).

Every card comes in with its look's entrance (:attr:`CardImage.entrance`): each word (and the
accent rule) is posed by the animation the look names, registered in
:mod:`media.design.entrances`, eased to rest by the end of it.

The closing's words start coming in at ``entrance_at`` and fade in; all are in place within
:data:`~media.design.reading.WORDS_IN_S`. The opening's words are all on screen from its first
frame (the film never starts on an empty frame and a messenger's thumbnail shows the name):
they settle or rise into place by :data:`~media.design.reading.TITLE_IN_S`, and fade out before
the picture under them changes (``exit_at``).

The motion is worked out once per frame (:func:`card_motion`) and drawn two ways:
:func:`card_frame` makes the film's I420 frame natively (the card's I420 parts,
:attr:`CardImage.i420`, moved and composited plane by plane by :mod:`media.cards.planes`),
:func:`card_frame_rgb` the same frame in RGB (the reference the I420 one is checked against).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from media.base import yuv
from media.cards.draw import CardImage
from media.cards.overlay import blend_logo_i420
from media.cards.planes import (
    FusedMap,
    Placement,
    apply_fused,
    held_fused,
    lay_text,
    push_plane,
    revealed,
)
from media.cards.sprites import Sprite, composite_sprite
from media.design.entrances import Moment, ease_out, rule_pose, text_pose
from media.design.reading import TEXT_EXIT_S, TITLE_IN_S, WORDS_IN_S

TEXT_DRIFT = 0.07  # the text block is this much larger at the card's end (share of its size)
BACKDROP_DRIFT = 0.08  # the backdrop's push-in over the card (share of the frame)
SPREAD = 0.06  # words move apart by this share of their distance from the block's centre
FLOAT = 0.014  # the text block floats up this far over the card (share of the short side)


@dataclass(frozen=True)
class Motion:
    """A card's frame: the backdrop's ``zoom`` (about the frame's centre) and the visible
    sprites' :class:`~media.cards.planes.Placement`, in reading order."""

    zoom: float
    placements: tuple[Placement, ...]


def card_motion(image: CardImage, seconds: float, length_s: float,
                entrance_at: float | None = None, exit_at: float | None = None) -> Motion:
    """Where everything on the card is ``seconds`` into its ``length_s`` seconds on screen.

    ``entrance_at``: when (seconds) its words start coming in, fading in (words not yet in are
    left out); None: they are all on screen from the first frame and come to rest by
    :data:`~media.design.reading.TITLE_IN_S` (the opening card). ``exit_at``: when
    (seconds) the picture under the words starts to change; the words fade out over the
    :data:`~media.design.reading.TEXT_EXIT_S` before it, so no word is left over a dissolve.
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
    staying = _staying(seconds, exit_at)
    placements = []
    for index, sprite in enumerate(image.sprites if staying is not None else ()):
        u = (seconds - (entrance_at or 0.0) - sprite.order * stagger) / entrance.seconds
        if fades and u <= 0.0:
            continue
        moment = Moment(u, fades, image.rise_px)
        pose = (rule_pose(entrance.rule, entrance, moment) if sprite.line < 0
                else text_pose(entrance.text, entrance, moment))
        if pose.reveal <= 0.0:
            continue
        h, w = sprite.alpha.shape
        mid_x, mid_y = sprite.x0 + w / 2, sprite.y0 + h / 2
        size = scale * (1.0 + pose.grow)
        new_x = cx + (mid_x - cx) * (size + spread + pose.apart)
        new_y = cy + (mid_y - cy) * size + pose.lift - rise
        placements.append(Placement(index, pose.opacity * staying, new_x - w * size / 2,
                                    new_y - h * size / 2, size, pose.reveal))
    return Motion(1.0 + BACKDROP_DRIFT * progress, tuple(placements))


def _staying(seconds: float, exit_at: float | None) -> float | None:
    """The share of their opacity the words keep ``seconds`` into the card as they leave over
    the :data:`~media.design.reading.TEXT_EXIT_S` before ``exit_at`` (None: they never leave);
    None once they are gone."""
    if exit_at is None:
        return 1.0
    gone = (seconds - (exit_at - TEXT_EXIT_S)) / TEXT_EXIT_S
    if gone >= 1.0:
        return None
    return 1.0 - ease_out(gone) if gone > 0.0 else 1.0


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
    ink)), scaled and placed to the sub-pixel, for :func:`media.cards.sprites.composite_sprite`."""
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
    cut = revealed(size[0], place.reveal)
    return left + cut.start, top, (np.ascontiguousarray(shade[:, cut]),
                                   np.ascontiguousarray(moved[:, cut, 3]),
                                   np.ascontiguousarray(moved[:, cut, :3]))


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


def held_words(image: CardImage, motion: Motion) -> HeldMaps | None:
    """The maps (Y, U, V, :data:`media.cards.planes.FusedMap`) that are all a frame of
    ``image`` posed as ``motion`` lays over its photo when its words hold still under no logo
    (:func:`media.cards.planes.held_fused`): a caller may lay them itself, wherever the
    picture under them changes, instead of :func:`words_over_frame`. None otherwise."""
    if image.logo is not None or image.scrim is None or not motion.placements:
        return None
    return held_fused(image.held, motion.placements)


HeldMaps = tuple[FusedMap, ...]
"""A card's scrim and held words as one map per plane (Y, U, V): :func:`held_words`."""


def lay_held(planes: Sequence[np.ndarray], maps: HeldMaps,
             windows: Sequence[tuple[int, int, int, int] | None] | None = None) -> None:
    """Lay :func:`held_words`' ``maps`` over the Y, U, V ``planes`` in place: over all of each
    plane, or only inside its window in ``windows`` (x0, y0, x1, y1 pixels; None: nothing)."""
    for index, (plane, plane_map) in enumerate(zip(planes, maps, strict=True)):
        if windows is None:
            apply_fused(plane, plane_map)
        elif windows[index] is not None:
            apply_fused(plane, plane_map, windows[index])


def words_over_frame(image: CardImage, picture: np.ndarray, seconds: float, length_s: float,
                     entrance_at: float | None = None, exit_at: float | None = None, *,
                     own: bool = False, motion: Motion | None = None) -> np.ndarray:
    """A card whose words lie over its moving photo (:func:`media.cards.draw.render_words_over`)
    ``seconds`` into its ``length_s`` seconds on screen: ``picture`` (the photo's I420 frame at
    that moment) under the card's scrim and logo, and the words placed as :func:`card_motion`
    says (``entrance_at``, ``exit_at`` as there; the backdrop's zoom is the photo's own move),
    or as ``motion`` when the caller worked it out already. A new frame; or ``picture``
    itself, drawn on, when the caller ``own``-s it (a frame made for this card alone: no
    copy)."""
    if motion is None:
        motion = card_motion(image, seconds, length_s, entrance_at, exit_at)
    out = picture if own else picture.copy()
    scrim = image.scrim
    if scrim is not None and (image.logo is not None or not motion.placements):
        scrim.lay(out)  # under the logo; or alone, no words on the frame
        scrim = None
    if image.logo is not None:
        out = blend_logo_i420(out, image.logo)
    if motion.placements:
        lay_text(yuv.planes(out), image.sprites_i420, motion.placements, image.held, scrim)
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
        push_plane(src, dst, zoom, luma_t if plane == 0 else chroma_t)
    if motion.placements:
        lay_text(planes_out, parts.sprites, motion.placements)
    return out
