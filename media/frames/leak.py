"""The warm light of a signature film's chorus: a light leak drawn over composed frames.

A :class:`media.plan.montage.LightLeak` is a warm light that comes up over the picture as the
chorus's downbeat nears, is brightest on the cut and fades out after it, the picture dissolving
under it. :class:`LightOverlay` draws the film's lights on each composed I420 frame (see
:mod:`media.base.yuv`), a pure function of the frame's index (split renders agree):

* the light's shape is a broad glow entering from one side of the frame and drifting in over
  the light's life, a soft slanted streak through it (the flare of a lens), and a warm wash
  over the whole frame (:data:`WASH`), worked out on a grid :data:`FIELD_STEP` times smaller
  than the frame and scaled up (it has no detail to lose);
* it is *screened* onto the picture: luma rises toward white in proportion to what is left
  above it (``y + k (1 - y)``, so highlights never clip harder; :data:`LUMA_SHARE` of the
  light's own luma, so it warms more than it brightens), and chroma takes the light's colour
  in about the same proportion (at least :data:`CHROMA_FLOOR` of it), so shadows warm up and
  whites turn warm without clipping;
* the result is dithered (a fixed tile of +-1.5 LSB triangular noise, as the cards' backdrops
  are, :func:`media.cards.draw._dither`): a slow gradient added to a flat sky never bands.

Only the frames a light is on cost anything (about a second of frames per chorus).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from media.base import yuv
from media.plan.montage import LightLeak

FIELD_STEP = 8  # the light's shape is worked out on a grid this many times smaller
WASH = 0.18  # share of the light over the whole frame (the warm wash)
GLOW_SIGMA = 0.24  # the glow's spread, a share of the frame's long side
LUMA_SHARE = 0.6  # the light brightens less than it colours: warm, not washed out
CHROMA_FLOOR = 0.5  # even a bright pixel takes this share of the light's colour
STREAK_SIGMA = 0.05  # the streak's half-width, a share of the long side
STREAK_SHARE = 0.55  # the streak's brightness against the glow's
STREAK_SLANT = math.radians(62)  # the streak's angle from the horizontal
GLOW_FROM, GLOW_TO = -0.2, 0.62  # the glow's centre sweeps between these (share of the width
# from the side it enters from) over the light's life: a light passing across the lens, which a
# phone shows as movement where a glow drifting a third of the way read as a flash
GLOW_HEIGHT = 0.32  # the glow's centre, a share of the height from the top
DITHER_SEED = 20261128
DITHER_TILE = 128


def _dither_tile() -> np.ndarray:
    """The fixed +-1.5 LSB triangular noise tile (float32), the same in every film."""
    rng = np.random.default_rng(DITHER_SEED)
    return rng.triangular(-1.5, 0.0, 1.5, (DITHER_TILE, DITHER_TILE)).astype(np.float32)


def _light_yuv(colour: tuple[int, int, int]) -> tuple[float, float, float]:
    """The light's luma (0..1 of the range) and its chroma offsets (levels from neutral)."""
    rgb = np.array([*colour, 1.0], np.float32)
    y, u, v = yuv.RGB_TO_YUV @ rgb
    return ((float(y) - yuv.BLACK_Y) / 219.0, float(u) - yuv.NEUTRAL_C,
            float(v) - yuv.NEUTRAL_C)


def light_shape(leak: LightLeak, frame: int, width: int, height: int) -> np.ndarray:
    """The light's shape (float32 0..1, on the small grid) at film frame ``frame`` of a
    ``width`` x ``height`` frame: wash, glow and streak (see the module doc), not yet scaled by
    the light's level."""
    sw, sh = max(8, width // FIELD_STEP), max(8, height // FIELD_STEP)
    xs = (np.arange(sw, dtype=np.float32) + 0.5) * (width / sw)
    ys = (np.arange(sh, dtype=np.float32) + 0.5) * (height / sh)
    life = min(max((frame - leak.start + 0.5) / max(1, leak.end - leak.start), 0.0), 1.0)
    across = GLOW_FROM + (GLOW_TO - GLOW_FROM) * life
    cx = width * (across if leak.side > 0 else 1.0 - across)
    cy = height * GLOW_HEIGHT
    long_side = float(max(width, height))
    dx, dy = xs[None, :] - cx, ys[:, None] - cy
    glow = np.exp(-(dx * dx + dy * dy) / (2.0 * (GLOW_SIGMA * long_side) ** 2))
    slant = STREAK_SLANT if leak.side > 0 else math.pi - STREAK_SLANT
    off_line = dx * math.sin(slant) - dy * math.cos(slant)
    streak = np.exp(-(off_line * off_line) / (2.0 * (STREAK_SIGMA * long_side) ** 2))
    shape = WASH + (1.0 - WASH) * np.maximum(glow, STREAK_SHARE * streak * np.sqrt(glow))
    return shape.astype(np.float32)


class LightOverlay:
    """The film's lights (``leaks``) over one aspect's composed frames (``width`` x
    ``height``)."""

    def __init__(self, leaks: Sequence[LightLeak], width: int, height: int) -> None:
        self.leaks = tuple(leaks)
        self.width, self.height = width, height
        self._dither: np.ndarray | None = None

    def active(self, frame: int) -> bool:
        """Whether any light is on at film frame ``frame``."""
        return any(leak.level(frame) > 0.0 for leak in self.leaks)

    def _noise(self) -> np.ndarray:
        """The dither at the frame's size (built on first use)."""
        if self._dither is None:
            reps = (self.height // DITHER_TILE + 1, self.width // DITHER_TILE + 1)
            self._dither = np.ascontiguousarray(
                np.tile(_dither_tile(), reps)[:self.height, :self.width])
        return self._dither

    def apply(self, frame: np.ndarray, index: int) -> np.ndarray:
        """Film frame ``index`` (I420) with the lights on it: a new array, or ``frame`` itself
        when no light is on (it is never written to)."""
        lights = [(leak, leak.level(index)) for leak in self.leaks]
        lights = [(leak, level) for leak, level in lights if level > 0.0]
        if not lights:
            return frame
        out = np.empty_like(frame)
        y_in, u_in, v_in = yuv.planes(frame)
        y_out, u_out, v_out = yuv.planes(out)
        luma = y_in.astype(np.float32)
        left = 235.0 - luma  # what is left above each pixel, in levels (screen blend)
        np.maximum(left, 0.0, out=left)
        half = (self.width // 2, self.height // 2)
        room = cv2.resize(left, half, interpolation=cv2.INTER_AREA)
        room *= (1.0 - CHROMA_FLOOR) / 219.0
        room += CHROMA_FLOOR
        u, v = u_in.astype(np.float32), v_in.astype(np.float32)
        for leak, level in lights:
            small = light_shape(leak, index, self.width, self.height) * (level * leak.strength)
            ly, lu, lv = _light_yuv(leak.colour)
            k = cv2.resize(small, (self.width, self.height), interpolation=cv2.INTER_LINEAR)
            luma += k * (LUMA_SHARE * ly) * left
            kc = cv2.resize(small, half, interpolation=cv2.INTER_LINEAR) * room
            u += kc * lu
            v += kc * lv
        luma += self._noise()
        luma += 0.5
        y_out[:] = np.clip(luma, 0, 255).astype(np.uint8)
        u_out[:] = np.clip(u + 0.5, 0, 255).astype(np.uint8)
        v_out[:] = np.clip(v + 0.5, 0, 255).astype(np.uint8)
        return out
