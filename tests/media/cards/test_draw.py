"""Title cards drawn: the accent shows, palettes differ, text over a photo stays legible, the
text fades in and the brand logo sits above it (media.cards.draw)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from media.cards.colour import accent_rgb, contrast_ratio, palette
from media.cards.draw import render_card
from media.cards.spec import CardSpec
from media.cards.text import safe_area, text_layout, text_mask
from media.design.values import parse_hex

ASPECTS = [(1920, 1080), (1080, 1920)]


def _count_colour(image: np.ndarray, rgb: tuple[int, int, int], tol: int = 0) -> int:
    low = np.asarray([max(0, c - tol) for c in rgb], np.uint8)
    high = np.asarray([min(255, c + tol) for c in rgb], np.uint8)
    return int(cv2.countNonZero(cv2.inRange(image, low, high)))


@pytest.mark.parametrize("accent", ["#2E7D6B", "#E4572E", "#1A237E", "#FFD400", "#000000"])
@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_brand_accent_is_visible(accent: str, width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), accent, False, "brand")
    rgb = parse_hex(accent)
    assert accent_rgb(card) == rgb
    image = render_card(card, width, height)
    assert _count_colour(image, rgb) >= 150  # the rule (or the brand-coloured field) exactly
    # And the heading is drawn in a (lifted) version of the accent, readable on the backdrop.
    assert contrast_ratio(palette(card).heading, palette(card).bottom) >= 3.0


def test_house_accent_without_brand_colour() -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift")
    assert _count_colour(render_card(card, 1920, 1080), accent_rgb(card)) >= 150


def test_gentle_palette_is_quieter() -> None:
    loud = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift")
    quiet = CardSpec("opening", ("In Loving Memory", "Anna"), None, True, "gift")
    a = render_card(loud, 1080, 1920).astype(np.float32)
    b = render_card(quiet, 1080, 1920).astype(np.float32)
    assert np.abs(a.mean(axis=(0, 1)) - b.mean(axis=(0, 1))).max() > 8

    def saturation(image: np.ndarray) -> float:
        hsv = cv2.cvtColor(image.astype(np.uint8), cv2.COLOR_RGB2HSV)
        return float(hsv[..., 1].mean())

    assert saturation(b) < saturation(a) * 0.8
    assert palette(quiet).shadow_alpha < palette(loud).shadow_alpha


def _busy_background(width: int, height: int) -> np.ndarray:
    """Bright and busy: white sky, a black-and-white checkerboard, saturated blocks."""
    image = np.full((height, width, 3), 245, np.uint8)
    yy, xx = np.mgrid[0:height, 0:width]
    checks = ((yy // 40 + xx // 40) % 2).astype(bool)
    image[height // 3 :][checks[height // 3 :]] = 10
    image[: height // 4, : width // 3] = (255, 220, 0)
    image[height // 2 :, width // 2 :] = (0, 200, 255)
    return image


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_text_over_a_photo_is_legible(width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Zoë O'Brien"), None, False, "gift")
    background = _busy_background(width, height)
    image = render_card(card, width, height, background)
    plain = render_card(card, width, height)
    assert not np.array_equal(image, plain)
    # The photo still shows through (darkened): bright areas stay brighter than dark ones.
    luma = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY).astype(np.float32)
    bg_luma = cv2.cvtColor(background, cv2.COLOR_RGB2GRAY).astype(np.float32)
    corner = (slice(0, height // 8), slice(0, width // 8))
    assert luma[corner].mean() < bg_luma[corner].mean() * 0.6  # darkened

    mask = text_mask(card, width, height)
    core = mask > 0.95
    near = cv2.dilate((mask > 0.02).astype(np.uint8), np.ones((25, 25), np.uint8)) > 0
    ring = near & (mask <= 0.02)
    assert core.sum() > 500 and ring.sum() > 500
    text_rgb = tuple(float(v) for v in np.median(image[core], axis=0))
    around = tuple(float(v) for v in np.percentile(image[ring], 95, axis=0))
    assert contrast_ratio(text_rgb, around) >= 4.5


def test_background_of_another_size_is_fitted() -> None:
    card = CardSpec("closing", ("With love", ""), None, False, "gift")
    image = render_card(card, 1080, 1920, _busy_background(640, 360))
    assert image.shape == (1920, 1080, 3)


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_render_is_well_formed(width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Zoë O'Brien"), "#E4572E", False, "gift")
    image = render_card(card, width, height)
    assert image.shape == (height, width, 3) and image.dtype == np.uint8


def test_rendering_is_deterministic_across_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    cards = [CardSpec("opening", ["Happy Birthday", name], None, False, "gift")  # type: ignore[arg-type]
             for name in ("Zoë", "美咲", "Анна", "김민준")]
    serial = [render_card(card, 960, 540) for card in cards]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda card: render_card(card, 960, 540), cards))
    for a, b in zip(serial, parallel, strict=True):
        assert np.array_equal(a, b)


def _grey_photo(width: int, height: int) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width]
    grey = (90 + 80 * np.sin(xx / 97.0) * np.cos(yy / 61.0)).astype(np.uint8)
    return np.repeat(grey[..., None], 3, axis=2)


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_closing_card_over_a_grey_photo_is_not_flat_grey(width: int, height: int) -> None:
    card = CardSpec("closing", ("From all of us at mission control",
                                "Forty years young and still reaching for the stars."))
    image = render_card(card, width, height, _grey_photo(width, height))
    hsv = cv2.cvtColor(image, cv2.COLOR_RGB2HSV)
    assert float(hsv[..., 1].mean()) > 40  # the palette's colour, not grey
    boxes = text_layout(card, width, height)
    title = next(b for b in boxes if b.role == "title")
    sub = [b for b in boxes if b.role == "sub"]
    assert title.size > 1.3 * sub[0].size  # a clear hierarchy
    assert sub[0].text.startswith("\u201c") and sub[-1].text.endswith("\u201d")  # quoted


def _logo() -> np.ndarray:
    logo = np.zeros((100, 300, 4), np.uint8)
    logo[20:80, 20:280] = (0, 200, 90, 255)  # opaque green bar in a transparent margin
    return logo


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_card_logo_is_large_above_the_text(width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), "#1E88E5", False, "brand")
    image = render_card(card, width, height, None, _logo())
    green = cv2.inRange(image, (0, 190, 80), (10, 210, 100)) > 0
    ys, xs = np.nonzero(green)
    assert len(ys) > 0
    text = text_layout(card, width, height, _logo())
    assert ys.max() < min(b.top for b in text)  # above the text, never over it
    assert abs((xs.min() + xs.max()) / 2 - width / 2) < 3  # centred
    assert xs.max() - xs.min() >= 0.25 * min(width, height)  # large on the card
    top = safe_area(card, width, height)[1]
    assert ys.min() >= top
