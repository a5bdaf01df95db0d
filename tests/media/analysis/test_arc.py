"""What a photo looks like to the planner: face size, brightness, warmth, colourfulness
(media.analysis.arc)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from media.analysis.arc import THUMB_PX, PhotoTraits, look, photo_traits
from media.analysis.subjects import Box, Subject


def _photo(path: Path, rgb: tuple[int, int, int], size: tuple[int, int] = (800, 600)) -> Path:
    Image.new("RGB", size, rgb).save(path, quality=95)
    return path


def test_a_warm_bright_photo_outshines_a_cool_dark_one(tmp_path: Path) -> None:
    sunset = photo_traits(_photo(tmp_path / "sunset.jpg", (250, 170, 90)))
    night = photo_traits(_photo(tmp_path / "night.jpg", (20, 30, 70)))
    assert sunset.brightness > night.brightness
    assert sunset.warmth > 0 > night.warmth
    assert sunset.saturation > 0.4


def test_a_grey_photo_has_no_warmth_or_colour(tmp_path: Path) -> None:
    traits = photo_traits(_photo(tmp_path / "grey.jpg", (128, 128, 128)))
    assert traits.brightness == pytest.approx(128 / 255, abs=0.01)
    assert traits.warmth == pytest.approx(0.0, abs=0.01)
    assert traits.saturation == pytest.approx(0.0, abs=0.01)


def test_the_largest_face_sets_how_close_the_shot_is(tmp_path: Path) -> None:
    path = _photo(tmp_path / "faces.jpg", (120, 100, 90))
    subject = Subject((Box(0.1, 0.1, 0.2, 0.25), Box(0.5, 0.2, 0.8, 0.6)),
                      Box(0.5, 0.2, 0.8, 0.6), "faces")
    assert photo_traits(path, subject).face_fraction == pytest.approx(0.4)
    assert photo_traits(path).face_fraction == 0.0  # no subject: faceless


def test_look_reads_uint8_and_float_images_alike() -> None:
    rgb = np.zeros((THUMB_PX, THUMB_PX, 3), np.uint8)
    rgb[..., 0] = 255
    assert look(rgb) == pytest.approx(look(rgb.astype(np.float32) / 255.0))
    brightness, warmth, saturation = look(rgb)
    assert brightness == pytest.approx(0.2126, abs=1e-4)
    assert warmth == pytest.approx(1.0) and saturation == pytest.approx(1.0)


def test_defaults_are_a_neutral_mid_grey_without_faces() -> None:
    assert PhotoTraits() == PhotoTraits(0.0, 0.5, 0.0, 0.0)
