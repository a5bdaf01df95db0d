"""The brand logo's place on the film frames (media.cards.overlay)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from skimage import data

from media.base import yuv
from media.base.spec import ASPECTS, LANDSCAPE, PORTRAIT, Aspect
from media.cards.overlay import LogoOverlay, blend_logo, film_logo_box


def synthetic_logo(width: int = 400, height: int = 160) -> np.ndarray:
    """A wide RGBA word-mark: an opaque orange bar inside a fully transparent margin."""
    logo = np.zeros((height, width, 4), np.uint8)
    logo[height // 5: -height // 5, width // 10: -width // 10] = (250, 120, 20, 255)
    return logo


def _grey(aspect: Aspect, level: int = 30) -> np.ndarray:
    return yuv.rgb_to_i420(np.full((aspect.height, aspect.width, 3), level, np.uint8))


def _ink(aspect: Aspect, logo: np.ndarray, weight: float = 1.0) -> np.ndarray:
    """Where the logo changed the luma of an I420 frame (pixels)."""
    frame = _grey(aspect)
    out = LogoOverlay(logo, (aspect,)).apply(frame, aspect, weight)
    return yuv.planes(out)[0] != yuv.planes(frame)[0]


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
    frame = _grey(LANDSCAPE)
    overlay = LogoOverlay(logo, ASPECTS)
    under = int(yuv.planes(frame)[0][y + h // 2, x + w // 2])
    half = int(yuv.planes(overlay.apply(frame, LANDSCAPE, 0.5))[0][y + h // 2, x + w // 2])
    full = int(yuv.planes(overlay.apply(frame, LANDSCAPE, 1.0))[0][y + h // 2, x + w // 2])
    assert under < half < full  # the orange bar is lighter than the dark grey frame
    assert yuv.planes(frame)[0].min() == round(16 + 30 * 219 / 255)  # a copy, untouched


@pytest.mark.parametrize("aspect", ASPECTS, ids=[a.name for a in ASPECTS])
def test_the_logo_on_i420_frames_equals_the_rgb_blend_converted(aspect: Aspect) -> None:
    logo = synthetic_logo(401, 163)  # odd sizes: the chroma box is widened to 2x2 blocks
    logo[..., 3] = np.linspace(0, 255, 401, dtype=np.uint8)[None, :]  # a soft alpha ramp
    picture = cv2.resize(data.astronaut(), (aspect.width, aspect.height))
    overlay = LogoOverlay(logo, (aspect,))
    planar = overlay.apply(yuv.rgb_to_i420(picture), aspect, 0.7)
    scaled = overlay.scaled[aspect.name]
    converted = yuv.rgb_to_i420(blend_logo(picture, scaled, 0.7 * 0.88))
    x, y = scaled.x - 4, scaled.y - 4
    h, w = scaled.alpha.shape[0] + 8, scaled.alpha.shape[1] + 8
    for k, a, b in zip((1, 2, 2), yuv.planes(planar), yuv.planes(converted), strict=True):
        box = np.s_[y // k:(y + h) // k, x // k:(x + w) // k]  # the logo and its surround
        assert yuv.psnr(a[box], b[box]) >= 40


def test_rgb_logo_and_bad_shapes() -> None:
    rgb = np.full((50, 100, 3), 200, np.uint8)
    assert _ink(PORTRAIT, rgb).any()  # no alpha: opaque
    with pytest.raises(ValueError):
        LogoOverlay(np.zeros((10, 10), np.uint8), ASPECTS)
