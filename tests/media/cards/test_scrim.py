"""The scrim's per-plane maps: its gain and the black it lets in, rounded to uint8."""

from __future__ import annotations

import cv2
import numpy as np

from media.base import yuv
from media.cards.scrim import Scrim
from media.cards.spec import CardSpec, card_look

RULES = card_look(CardSpec("closing", ("With love",))).over_photo


def test_each_plane_keeps_the_gain_and_lets_in_black_both_rounded_to_the_nearest() -> None:
    behind = np.random.default_rng(3).integers(0, 255, (270, 480, 3), dtype=np.uint8)
    scrim = Scrim(RULES, 480, 270, (120, 150, 360, 220), behind)
    for (keep, letin, (top, bottom)), black, size in zip(
            scrim.plane_maps, (yuv.BLACK_Y, yuv.NEUTRAL_C, yuv.NEUTRAL_C),
            ((480, 270), (240, 135), (240, 135)), strict=True):
        gain = cv2.resize(scrim.gain, size, interpolation=cv2.INTER_AREA)[top:bottom]
        assert np.array_equal(keep, np.clip(np.rint(gain * 255.0), 0, 255).astype(np.uint8))
        assert np.array_equal(letin, np.clip(np.rint(black * (1.0 - gain)), 0, 255)
                              .astype(np.uint8))
