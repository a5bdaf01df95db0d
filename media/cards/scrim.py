"""The scrim under a card's words over a sharp, moving photo: what keeps them readable without
blurring the picture (the look's :class:`media.design.looks.OverPhoto`).

Three soft shades multiply: a ``band`` across the frame at the words' height (full over the
words, falling off past their edges over ``band_reach`` of the frame's height, and beyond the
words' sides over a quarter of the frame's width, so words set beside a face leave the face
lit), a ``pool`` hugging the words, and a ``vignette`` towards the corners. The product is a
gain map (how much of its light each pixel keeps, 0-1), worked out once per card and aspect at
an eighth of the frame's size and scaled up (it is smooth).

Every frame of the moving photo is darkened towards black by it: in the film's I420 planes
that is ``Y' = Y * g + 16 * (1 - g)`` and ``C' = C * g + 128 * (1 - g)``, done as one
``cv2.multiply`` by the gain (uint8, 255 for 1) and one ``cv2.add`` of the black it lets in,
per plane, over the rows the scrim reaches: a frame costs about two copies of it. Under words
holding still the scrim and the words are one such map (:func:`media.cards.planes.lay_text`):
the frame costs the same two copies, the words nothing more.
"""

from __future__ import annotations

import cv2
import numpy as np

from media.base import yuv
from media.design.looks import OverPhoto

STEP = 8  # the gain map is worked out at 1/STEP of the frame's size
SIDE_FALLOFF = 0.25  # the band fades past the words' sides over this share of the width
POOL_MARGIN = 0.05  # the pool reaches this share of the short side past the words
UNTOUCHED = 254  # gain (of 255) from which a row is left as it is
DEEPEN_STEP = 0.1  # the band and the pool deepen by this much a step over a bright picture
DEEPEN_STEPS = 5
DEPTH_MAX = 0.8  # and at most to this (the picture stays a picture)
WORDS_LIGHT_PERCENTILE = 95
LUMA = np.asarray([0.2126, 0.7152, 0.0722], np.float32)


ScrimPlane = tuple[np.ndarray, np.ndarray, tuple[int, int]]
"""One plane's scrim: gain (uint8, 255 for 1), black let in (uint8), rows (top, bottom)."""


class Scrim:
    """The scrim of one card in one ``width`` x ``height`` frame, its words inside ``words``
    (left, top, right, bottom pixels; None: nothing to shade, only the vignette). With
    ``behind`` (uint8 RGB, the frame's size: the brightest the picture gets under the words)
    its band and pool deepen, in steps of :data:`DEEPEN_STEP`, until the light left behind the
    words (its :data:`WORDS_LIGHT_PERCENTILE`-th percentile luma) is at most the look's
    ``words_light`` (a bright, busy picture gets a deeper scrim than a dark one), as deep as
    :data:`DEPTH_MAX` at most."""

    def __init__(self, rules: OverPhoto, width: int, height: int,
                 words: tuple[int, int, int, int] | None,
                 behind: np.ndarray | None = None) -> None:
        self.width, self.height = width, height
        self.gain = _deepened(rules, width, height, words, behind)  # float32 (h, w), 0-1
        self._planes: list[ScrimPlane] = []
        for plane, black in zip(yuv.planes(np.zeros(yuv.frame_shape(width, height), np.uint8)),
                                (yuv.BLACK_Y, yuv.NEUTRAL_C, yuv.NEUTRAL_C), strict=True):
            rows, cols = plane.shape
            gain = (self.gain if (rows, cols) == self.gain.shape else
                    cv2.resize(self.gain, (cols, rows), interpolation=cv2.INTER_AREA))
            # rint(gain * 255) and rint(black * (1 - gain)) in uint8, one pass each
            keep = cv2.convertScaleAbs(gain, alpha=255.0)
            letin = cv2.convertScaleAbs(np.float32(1.0) - gain, alpha=float(black))
            shaded = np.flatnonzero(keep.min(axis=1) < UNTOUCHED)
            span = (int(shaded[0]), int(shaded[-1]) + 1) if shaded.size else (0, 0)
            self._planes.append((keep[span[0]:span[1]], letin[span[0]:span[1]], span))

    def apply(self, frame: np.ndarray) -> np.ndarray:
        """A new I420 frame: ``frame`` (I420, this scrim's size; never written) with the scrim
        laid over it."""
        out = frame.copy()
        self.lay(out)
        return out

    def lay(self, frame: np.ndarray) -> None:
        """Lay the scrim over ``frame`` (I420, this scrim's size) in place."""
        self.lay_planes(yuv.planes(frame))

    @property
    def plane_maps(self) -> tuple[ScrimPlane, ...]:
        """Per plane (Y, U, V) what :meth:`lay_planes` does to it: the gain (uint8, 255 for 1)
        and the black let in (uint8) over the rows ``(top, bottom)`` it reaches."""
        return tuple(self._planes)

    def lay_planes(self, planes: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
        """Lay the scrim over the Y, U, V ``planes`` of a frame of this scrim's size in place."""
        for plane, (keep, letin, (top, bottom)) in zip(planes, self._planes, strict=True):
            if bottom > top:
                rows = plane[top:bottom]
                cv2.multiply(rows, keep, dst=rows, scale=1.0 / 255.0)
                cv2.add(rows, letin, dst=rows)

    def apply_rgb(self, image: np.ndarray, top: int = 0) -> np.ndarray:
        """``image`` (RGB, this scrim's width: its rows from row ``top`` of the frame down;
        the whole frame by default) with the scrim over it, as float32."""
        gain = self.gain[top:top + image.shape[0]]
        return image.astype(np.float32) * gain[..., None]


def _deepened(rules: OverPhoto, width: int, height: int,
              words: tuple[int, int, int, int] | None, behind: np.ndarray | None
              ) -> np.ndarray:
    """The gain map (see :class:`Scrim`), deepened for what is ``behind`` the words."""
    gain = _gain(rules, width, height, words)
    if words is None or behind is None:
        return gain
    x0, y0, x1, y1 = (max(0, v) for v in words)
    under = behind[y0:y1:2, x0:x1:2].astype(np.float32) @ LUMA
    if under.size == 0:
        return gain
    for _ in range(DEEPEN_STEPS):
        light = float(np.percentile(under * gain[y0:y1:2, x0:x1:2], WORDS_LIGHT_PERCENTILE))
        if light <= rules.words_light or (rules.band >= DEPTH_MAX and rules.pool >= DEPTH_MAX):
            break
        rules = rules.model_copy(update={"band": min(DEPTH_MAX, rules.band + DEEPEN_STEP),
                                         "pool": min(DEPTH_MAX, rules.pool + DEEPEN_STEP)})
        gain = _gain(rules, width, height, words)
    return gain


def _gain(rules: OverPhoto, width: int, height: int,
          words: tuple[int, int, int, int] | None) -> np.ndarray:
    """The light each pixel keeps (float32, ``height`` x ``width``, 0-1)."""
    sw, sh = max(2, width // STEP), max(2, height // STEP)
    ys = (np.arange(sh, dtype=np.float32) + 0.5) * height / sh
    xs = (np.arange(sw, dtype=np.float32) + 0.5) * width / sw
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    gain = np.ones((sh, sw), np.float32)
    unit = min(width, height)
    if words is not None:
        x0, y0, x1, y1 = words
        cx, cy, hw, hh = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2, (y1 - y0) / 2
        past_y = np.maximum(np.abs(yy - cy) - hh, 0.0) / max(1.0, rules.band_reach * height)
        past_x = np.maximum(np.abs(xx - cx) - hw, 0.0) / (SIDE_FALLOFF * width)
        gain *= 1.0 - rules.band * np.exp(-0.5 * (past_y ** 2 + past_x ** 2))
        margin = POOL_MARGIN * unit
        q = ((xx - cx) / (hw + margin)) ** 2 + ((yy - cy) / (hh + margin)) ** 2
        gain *= 1.0 - rules.pool * np.exp(-q)
    if rules.vignette > 0.0:
        r2 = ((xx / width - 0.5) * 2) ** 2 + ((yy / height - 0.5) * 2) ** 2
        gain *= 1.0 - rules.vignette * np.clip(r2 / 2.0, 0.0, 1.0) ** 1.4
    return cv2.resize(gain, (width, height), interpolation=cv2.INTER_LINEAR)
