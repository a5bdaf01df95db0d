"""Measuring a photo cheaply: working-scale copies and the noise level (media.intake.measure)."""

from __future__ import annotations

import numpy as np
import pytest

from media.intake.measure import estimate_noise, gray, resize_long, shrink


def _grey_noise(sigma: float, shape: tuple[int, int] = (400, 600)) -> np.ndarray:
    """Mid-grey with the same Gaussian noise (``sigma`` 8-bit levels) on every channel."""
    noise = np.random.default_rng(4).normal(128.0, sigma, shape)
    luma = np.clip(noise + 0.5, 0, 255).astype(np.uint8)
    return np.repeat(luma[..., None], 3, axis=2)


def test_a_small_image_is_not_shrunk_and_is_the_same_array() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    small, scale = shrink(image, 512)
    assert small is image and scale == 1.0


def test_a_large_image_shrinks_to_the_long_edge_with_its_scale() -> None:
    small, scale = shrink(np.zeros((1000, 4000, 3), np.uint8), 2048)
    assert small.shape == (512, 2048, 3) and scale == pytest.approx(0.512)


def test_resize_long_enlarges_and_reduces_to_the_long_edge() -> None:
    assert resize_long(np.zeros((100, 50, 3), np.uint8), 256).shape == (256, 128, 3)
    assert resize_long(np.zeros((1000, 500, 3), np.uint8), 256).shape == (256, 128, 3)


def test_gray_is_the_luminance() -> None:
    red = np.zeros((4, 4, 3), np.uint8)
    red[..., 0] = 255
    assert gray(red).shape == (4, 4) and int(gray(red)[0, 0]) == 76  # 0.299 * 255


def test_a_flat_image_has_no_noise_and_noise_is_measured_in_levels() -> None:
    assert estimate_noise(np.full((200, 200, 3), 90, np.uint8)) == 0.0
    assert estimate_noise(_grey_noise(10.0)) == pytest.approx(10.0, rel=0.15)
    assert estimate_noise(_grey_noise(3.0)) == pytest.approx(3.0, rel=0.2)


def test_an_image_too_small_to_measure_counts_as_clean() -> None:
    assert estimate_noise(_grey_noise(20.0, (6, 6))) == 0.0
