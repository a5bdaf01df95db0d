"""Flat borders cut away at intake (media.intake.borders, through the prep stage's
prepare_usable_photo): a screenshot's bars, a pillarbox, a scan's frame go; a night sky, a lone
blown-out sky and a blank photo stay as they are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from skimage import data

from media.base import errors
from media.base.errors import MediaRejected
from media.intake.borders import picture_box
from media.intake.sandbox import prepare_photo_bounded
from media.intake.usable import prepare_usable_photo

EDGE_SLACK_PX = 8
"""Pixels the box found may differ from the picture's own edge (the judged blocks, the blend
row cut with the bar)."""


def _rng() -> np.random.Generator:
    return np.random.default_rng(7)


def _picture(width: int, height: int) -> np.ndarray:
    """A real photo (the astronaut) resized to ``width`` x ``height``."""
    return np.asarray(Image.fromarray(data.astronaut()).resize((width, height),
                                                               Image.Resampling.LANCZOS))


def _on_canvas(picture: np.ndarray, size: tuple[int, int], at: tuple[int, int],
               colour: tuple[int, int, int], noise: float = 0.0) -> np.ndarray:
    """``picture`` pasted at ``at`` (left, top) on a plain canvas of ``size`` with ``noise``
    levels of Gaussian noise in its bars."""
    canvas = np.empty((size[1], size[0], 3), np.float32)
    canvas[:] = colour
    if noise:
        canvas += _rng().normal(0.0, noise, canvas.shape)
    height, width = picture.shape[:2]
    canvas[at[1]:at[1] + height, at[0]:at[0] + width] = picture
    return np.clip(canvas, 0, 255).astype(np.uint8)


def _prepared(tmp_path: Path, pixels: np.ndarray, fmt: str = "JPEG", **save: object):
    src = tmp_path / f"upload.{fmt.lower()}"
    Image.fromarray(pixels).save(src, fmt, **save)
    working = tmp_path / "working.jpg"
    return prepare_usable_photo(src, working), working


def _assert_box(found: tuple[int, ...] | None, expected: tuple[int, int, int, int]) -> None:
    assert found is not None
    assert np.abs(np.subtract(found, expected)).max() <= EDGE_SLACK_PX, (found, expected)


def test_a_phone_screenshot_of_a_landscape_photo_loses_its_black_bars(tmp_path: Path) -> None:
    picture = _picture(1170, 780)
    screenshot = _on_canvas(picture, (1170, 2532), (0, 900), (0, 0, 0))

    info, working = _prepared(tmp_path, screenshot, quality=90)

    assert abs(info.height - 780) <= 2 * EDGE_SLACK_PX and info.width == 1170
    assert info.trimmed_from is not None
    left, top, right, bottom = info.trimmed_from
    assert (left, right) == (0.0, 1.0)
    assert top == pytest.approx(900 / 2532, abs=0.004)
    assert bottom == pytest.approx(1680 / 2532, abs=0.004)
    with Image.open(working) as image:
        assert image.size == (info.width, info.height)


def test_a_pillarboxed_portrait_photo_loses_its_white_bars() -> None:
    picture = _picture(600, 900)
    screen = _on_canvas(picture, (1600, 900), (500, 0), (255, 255, 255))

    _assert_box(picture_box(Image.fromarray(screen)), (500, 0, 1100, 900))


def test_a_scan_in_a_grey_frame_loses_the_frame_on_every_side() -> None:
    picture = _picture(800, 600)
    scan = _on_canvas(picture, (1000, 760), (100, 80), (200, 198, 190))

    _assert_box(picture_box(Image.fromarray(scan)), (100, 80, 900, 680))


def test_noisy_bars_of_a_jpeg_are_still_flat(tmp_path: Path) -> None:
    picture = _picture(1000, 660)
    screenshot = _on_canvas(picture, (1000, 1800), (0, 570), (12, 12, 14), noise=3.0)

    info, _ = _prepared(tmp_path, screenshot, quality=75)

    assert info.trimmed_from is not None
    assert abs(info.height - 660) <= 2 * EDGE_SLACK_PX


def _night_photo() -> np.ndarray:
    """A street at night: a dark noisy sky brightening downwards to a straight black ground
    with a few lit windows."""
    height, width = 900, 1200
    sky = np.linspace(6, 60, height, dtype=np.float32)[:, None, None]
    pixels = np.broadcast_to(sky * np.array([0.8, 0.9, 1.3], np.float32),
                             (height, width, 3)).copy()
    pixels[600:] = 3
    rng = _rng()
    for _ in range(40):
        x, y = int(rng.integers(0, width - 20)), int(rng.integers(640, height - 30))
        pixels[y:y + 22, x:x + 14] = (230, 190, 110)
    pixels += rng.normal(0.0, 3.0, pixels.shape[:2])[..., None]
    return np.clip(pixels, 0, 255).astype(np.uint8)


def test_a_night_photo_with_a_straight_black_ground_is_kept_whole(tmp_path: Path) -> None:
    info, _ = _prepared(tmp_path, _night_photo(), quality=85)

    assert info.trimmed_from is None
    assert (info.width, info.height) == (1200, 900)


def test_a_blown_out_sky_over_a_straight_horizon_is_picture() -> None:
    sea = _picture(1200, 500)
    photo = _on_canvas(sea, (1200, 800), (0, 300), (255, 255, 255))

    assert picture_box(Image.fromarray(photo)) is None


def test_a_white_wall_fading_into_the_picture_is_kept() -> None:
    height, width = 800, 1000
    wall = np.linspace(255, 120, height, dtype=np.float32)[:, None, None]
    photo = np.broadcast_to(wall, (height, width, 3)).astype(np.uint8).copy()
    photo[:, :80] = 255  # and a white door frame at the left: one flat side, then a fade

    assert picture_box(Image.fromarray(photo)) is None


def test_a_blank_screenshot_stays_blank_and_is_left_out(tmp_path: Path) -> None:
    blank = _on_canvas(np.full((90, 1170, 3), 246, np.uint8), (1170, 2532), (0, 0),
                       (255, 255, 255))

    with pytest.raises(MediaRejected) as rejected:
        _prepared(tmp_path, blank, "PNG")

    assert rejected.value.reason == errors.IMAGE_BLANK


def test_bars_around_a_sliver_are_kept_and_the_photo_judged_whole(tmp_path: Path) -> None:
    sliver = _picture(1170, 120)
    screenshot = _on_canvas(sliver, (1170, 2532), (0, 1200), (0, 0, 0))

    info, _ = _prepared(tmp_path, screenshot, quality=90)

    assert info.trimmed_from is None
    assert (info.width, info.height) == (1170, 2532)


def test_the_sandboxed_prep_reports_the_box_it_kept(tmp_path: Path) -> None:
    screenshot = _on_canvas(_picture(1170, 780), (1170, 2532), (0, 900), (255, 255, 255))
    src = tmp_path / "upload.png"
    Image.fromarray(screenshot).save(src, "PNG")

    info = prepare_photo_bounded(src, tmp_path / "working.jpg")

    assert isinstance(info.trimmed_from, tuple)
    assert info.trimmed_from[1] == pytest.approx(900 / 2532, abs=0.004)


def test_a_screenshots_status_bar_and_buttons_are_cut_with_its_bars(tmp_path: Path) -> None:
    screenshot = _on_canvas(_picture(1170, 780), (1170, 2532), (0, 880), (0, 0, 0))
    screenshot[40:80, 60:200] = 235  # the clock
    screenshot[45:75, 960:1110] = 235  # signal, wifi, battery
    for x in range(90, 1170, 260):  # share, like, edit, delete
        screenshot[2380:2440, x:x + 60] = 200

    info, _ = _prepared(tmp_path, screenshot, quality=90)

    assert info.trimmed_from is not None
    assert abs(info.height - 780) <= 2 * EDGE_SLACK_PX and info.width == 1170
