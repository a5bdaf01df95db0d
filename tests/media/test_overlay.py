"""The brand logo's place on the film frames (media.overlay)."""

from __future__ import annotations

import numpy as np
import pytest

from media.overlay import LogoOverlay, film_logo_box
from media.spec import ASPECTS, LANDSCAPE, PORTRAIT, Aspect


def synthetic_logo(width: int = 400, height: int = 160) -> np.ndarray:
    """A wide RGBA word-mark: an opaque orange bar inside a fully transparent margin."""
    logo = np.zeros((height, width, 4), np.uint8)
    logo[height // 5: -height // 5, width // 10: -width // 10] = (250, 120, 20, 255)
    return logo


def _ink(aspect: Aspect, logo: np.ndarray, weight: float = 1.0) -> np.ndarray:
    frame = np.full((aspect.height, aspect.width, 3), 30, np.uint8)
    out = LogoOverlay(logo, (aspect,)).apply(frame, aspect, weight)
    return np.abs(out.astype(int) - frame).sum(axis=2) > 0


@pytest.mark.parametrize("shape", [(160, 400), (400, 400), (600, 150)], ids=["wide", "square",
                                                                             "tall"])
def test_logo_sits_inside_the_safe_area_of_both_aspects(shape: tuple[int, int]) -> None:
    logo = synthetic_logo(shape[1], shape[0])
    wide = _ink(LANDSCAPE, logo)
    ys, xs = np.nonzero(wide)
    assert len(ys) > 200
    # 16:9: bottom-right, inside the 5% title-safe margin, small.
    assert xs.min() > LANDSCAPE.width * 0.6 and ys.min() > LANDSCAPE.height * 0.75
    assert xs.max() < LANDSCAPE.width * 0.95 and ys.max() < LANDSCAPE.height * 0.95
    assert ys.max() - ys.min() <= 0.06 * LANDSCAPE.height
    # 9:16: top-centre, below the band platform UI covers (top 12%), well above the bottom 20%.
    tall = _ink(PORTRAIT, logo)
    ys, xs = np.nonzero(tall)
    assert ys.min() >= 0.12 * PORTRAIT.height and ys.max() <= 0.25 * PORTRAIT.height
    assert abs((xs.min() + xs.max()) / 2 - PORTRAIT.width / 2) <= 2
    assert xs.min() > 0.05 * PORTRAIT.width and xs.max() < 0.95 * PORTRAIT.width


def test_transparent_pixels_leave_the_frame_alone_and_weight_fades_it() -> None:
    logo = synthetic_logo()
    x, y, w, h = film_logo_box(LANDSCAPE, logo.shape[1], logo.shape[0])
    ink = _ink(LANDSCAPE, logo)
    assert not ink[y:y + h // 8].any()  # the logo's transparent top margin
    assert ink[y + h // 2, x + w // 2]
    assert not _ink(LANDSCAPE, logo, weight=0.0).any()
    frame = np.full((LANDSCAPE.height, LANDSCAPE.width, 3), 30, np.uint8)
    overlay = LogoOverlay(logo, ASPECTS)
    half = overlay.apply(frame, LANDSCAPE, 0.5)[y + h // 2, x + w // 2].astype(int)
    full = overlay.apply(frame, LANDSCAPE, 1.0)[y + h // 2, x + w // 2].astype(int)
    assert 30 < half[0] < full[0]


def test_rgb_logo_and_bad_shapes() -> None:
    rgb = np.full((50, 100, 3), 200, np.uint8)
    assert _ink(PORTRAIT, rgb).any()  # no alpha: opaque
    with pytest.raises(ValueError):
        LogoOverlay(np.zeros((10, 10), np.uint8), ASPECTS)
