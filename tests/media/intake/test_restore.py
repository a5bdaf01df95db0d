"""Photo restoration (media.intake.restore): measured gains on degraded photos, gates that leave
good
photos alone, and the report.

Run with ``pytest -s`` to print the before/after PSNR/SSIM table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import cv2
import numpy as np
import pytest
from skimage import data
from skimage.metrics import peak_signal_noise_ratio, structural_similarity

from media.intake.defects import find_defects
from media.intake.measure import estimate_noise
from media.intake.restore import MAX_UPSCALE, RECIPES, cover_long_edge, restore_photo

PHOTOS = ("astronaut", "coffee", "chelsea", "rocket")
Degrade = Callable[[np.ndarray, np.random.Generator], np.ndarray]


# --- synthetic degradations (float RGB, 8-bit levels) ----------------------------------------


def _u8(image: np.ndarray) -> np.ndarray:
    return np.clip(image + 0.5, 0, 255).astype(np.uint8)


def fade(image: np.ndarray) -> np.ndarray:
    """A faded print: blacks lifted by 62 levels, contrast down to 66 %."""
    return image.astype(np.float32) * 0.66 + 62


def cast(image: np.ndarray) -> np.ndarray:
    """A yellowed print: blue dye lost, warm shadows."""
    return (image.astype(np.float32) * np.array([1.0, 0.94, 0.80], np.float32)
            + np.array([14, 6, 0], np.float32))


def noise(image: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Gaussian noise, independent per channel."""
    return image.astype(np.float32) + rng.normal(0, sigma, image.shape).astype(np.float32)


def scratches(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Five long, gently bent, anti-aliased scratches (bright and dark) and 25 dust specks."""
    out = image.astype(np.float32)
    h, w = out.shape[:2]
    for k in range(5):
        x0, y0 = rng.uniform(0, w), rng.uniform(0, h * 0.3)
        angle = rng.uniform(-0.4, 0.4) + np.pi / 2
        length, bend = rng.uniform(0.3, 0.8) * h, rng.uniform(-0.015, 0.015) * h
        t = np.linspace(0, 1, 8)
        xs = x0 + np.cos(angle) * length * t + bend * np.sin(np.pi * t)
        ys = y0 + np.sin(angle) * length * t
        layer = np.zeros((h, w), np.uint8)
        cv2.polylines(layer, [np.stack([xs, ys], 1).astype(np.int32)], False, 255, 1,
                      cv2.LINE_AA)
        alpha = layer.astype(np.float32)[..., None] / 255 * 0.85
        out = out * (1 - alpha) + (245.0 if k % 2 == 0 else 25.0) * alpha
    for k in range(25):
        layer = np.zeros((h, w), np.uint8)
        cv2.circle(layer, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                   int(rng.integers(1, 3)), 255, -1, cv2.LINE_AA)
        alpha = layer.astype(np.float32)[..., None] / 255 * 0.9
        out = out * (1 - alpha) + (240.0 if k % 3 else 20.0) * alpha
    return out


def downscale(image: np.ndarray, factor: float) -> np.ndarray:
    h, w = image.shape[:2]
    return cv2.resize(image, (round(w / factor), round(h / factor)),
                      interpolation=cv2.INTER_AREA)


DEGRADATIONS: dict[str, Degrade] = {
    "fade": lambda im, rng: _u8(fade(im)),
    "cast": lambda im, rng: _u8(cast(im)),
    "noise": lambda im, rng: _u8(noise(im, rng, 12.0)),
    "scratches": lambda im, rng: _u8(scratches(im, rng)),
    "down3": lambda im, rng: downscale(im, 3.0),
    "all": lambda im, rng: _u8(noise(scratches(cast(fade(downscale(im, 2.5))), rng), rng, 7.0)),
}


@functools.cache
def clean(name: str) -> np.ndarray:
    return getattr(data, name)()


def _at_size(image: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``image`` at ``like``'s size (bicubic: the baseline a plain resize gives)."""
    h, w = like.shape[:2]
    if image.shape[:2] == (h, w):
        return image
    return cv2.resize(image, (w, h), interpolation=cv2.INTER_CUBIC)


def _scores(reference: np.ndarray, image: np.ndarray) -> tuple[float, float]:
    image = _at_size(image, reference)
    return (peak_signal_noise_ratio(reference, image),
            structural_similarity(reference, image, channel_axis=2))


@functools.cache
def gains() -> dict[tuple[str, str], tuple[float, float, float, float, tuple[str, ...]]]:
    """(photo, degradation) -> (PSNR before, after, SSIM before, after, steps applied)."""
    table = {}
    for name in PHOTOS:
        reference = clean(name)
        for label, degrade in DEGRADATIONS.items():
            degraded = degrade(reference, np.random.default_rng(5))
            restored, report = restore_photo(degraded, "full", max(reference.shape[:2]))
            p0, s0 = _scores(reference, degraded)
            p1, s1 = _scores(reference, restored)
            table[name, label] = (p0, p1, s0, s1, report.applied)
    return table


# --- measured gains --------------------------------------------------------------------------


@pytest.mark.render
def test_restoration_improves_psnr_and_ssim_of_degraded_photos() -> None:
    table = gains()
    print("\nphoto      degradation  PSNR before -> after   SSIM before -> after   steps")
    for (name, label), (p0, p1, s0, s1, steps) in table.items():
        print(f"{name:10s} {label:11s}  {p0:6.2f} -> {p1:6.2f} dB    {s0:.3f} -> {s1:.3f}"
              f"      {','.join(steps)}")
    for name in PHOTOS:  # every damage at once: both measures improve on every photo
        p0, p1, s0, s1, _ = table[name, "all"]
        assert p1 > p0 + 1.0 and s1 > s0 + 0.05, name
    for label in DEGRADATIONS:  # each damage alone: better on average, never much worse
        rows = [table[name, label] for name in PHOTOS]
        assert np.mean([r[1] - r[0] for r in rows]) > 0.2, label
        assert np.mean([r[3] - r[2] for r in rows]) > 0.0, label
        for name, (p0, p1, s0, s1, _) in zip(PHOTOS, rows, strict=True):
            assert p1 > p0 - 0.5 and s1 > s0 - 0.015, (name, label)


@pytest.mark.parametrize("name", PHOTOS)
def test_a_clean_photo_passes_through_unchanged(name: str) -> None:
    photo = clean(name)
    for recipe in RECIPES:
        restored, report = restore_photo(photo, recipe, max(photo.shape[:2]))
        assert restored is photo, (recipe, report.applied)
        assert report.applied == ()


# --- gates -----------------------------------------------------------------------------------


def test_noise_is_measured_and_only_a_noisy_photo_is_denoised() -> None:
    photo = clean("astronaut")
    noisy = DEGRADATIONS["noise"](photo, np.random.default_rng(1))
    assert estimate_noise(photo) < 2.0
    luma_sigma = 12.0 * 0.668  # per-channel sigma seen through the luma weights
    assert estimate_noise(noisy) == pytest.approx(luma_sigma, rel=0.25)
    _, report = restore_photo(noisy, "full")
    step = report.step("denoise")
    assert step.applied and step.measurements["sigma_after"] < 0.4 * step.measurements["sigma"]
    assert not restore_photo(photo, "full")[1].step("denoise").applied


def test_inpainting_runs_only_when_scratches_are_found() -> None:
    for name in ("chelsea", "rocket"):  # whiskers, lattice towers: thin lines, not damage
        mask, counts = find_defects(clean(name))
        assert not mask.any(), (name, counts)
    damaged = DEGRADATIONS["scratches"](clean("chelsea"), np.random.default_rng(5))
    restored, report = restore_photo(damaged, "full")
    step = report.step("scratches")
    assert step.applied and step.measurements["scratches"] >= 2
    assert report.applied == ("scratches",)
    reference = clean("chelsea")
    assert _scores(reference, restored)[0] > _scores(reference, damaged)[0] + 3.0


def test_a_warm_scene_keeps_its_warmth_but_a_yellowed_print_is_corrected() -> None:
    for name in ("coffee", "chelsea"):  # warm subjects, no cast
        assert not restore_photo(clean(name), "full")[1].step("levels").applied
    yellowed = DEGRADATIONS["cast"](clean("astronaut"), np.random.default_rng(0))
    restored, report = restore_photo(yellowed, "light")
    assert report.applied == ("levels",)
    assert report.step("levels").reason == "cast"
    white = restored[460:490, 330:360].reshape(-1, 3).mean(axis=0)  # her collar: white
    assert np.ptp(white) < 0.5 * np.ptp(yellowed[460:490, 330:360].reshape(-1, 3).mean(axis=0))


def test_light_recipe_runs_only_the_light_steps() -> None:
    damaged = DEGRADATIONS["all"](clean("astronaut"), np.random.default_rng(5))
    _, full = restore_photo(damaged, "full", 512)
    _, light = restore_photo(damaged, "light", 512)
    assert {s.name for s in light.steps} == {"levels", "contrast", "upscale"}
    assert "denoise" in full.applied and "scratches" in full.applied
    assert set(light.applied) <= {"levels", "contrast", "upscale"}


def test_upscale_reaches_the_target_within_its_cap_and_sharpens() -> None:
    small = downscale(clean("astronaut"), 4.0)  # 128 px
    restored, report = restore_photo(small, "light", 400)
    assert restored.shape[:2] == (400, 400)
    step = report.step("upscale")
    assert step.applied and step.measurements["sharpen"] > 0
    capped, _ = restore_photo(small, "light", 2000)
    assert max(capped.shape[:2]) == round(128 * MAX_UPSCALE)
    same, report = restore_photo(clean("astronaut"), "light", 300)  # already larger
    assert not report.step("upscale").applied and same.shape == (512, 512, 3)


def test_cover_long_edge_fills_both_aspects_one_to_one() -> None:
    assert cover_long_edge(4000, 3000) == 2560  # 9:16 needs 1920 rows
    assert cover_long_edge(3000, 3000) == 1920
    assert cover_long_edge(1080, 1920) == 1920  # fitted in 16:9, cropped in 9:16
    assert cover_long_edge(3000, 2000) == 1920  # fitted in 9:16
    assert cover_long_edge(8000, 2000) == 4096  # capped


def test_report_lists_every_step_with_measurements() -> None:
    damaged = DEGRADATIONS["fade"](clean("coffee"), np.random.default_rng(0))
    _, report = restore_photo(damaged, "full", 600)
    data_ = report.to_dict()
    assert [s["name"] for s in data_["steps"]] == list(RECIPES["full"])
    assert data_["applied"] == ["levels"]
    levels = report.step("levels").measurements
    assert levels["black_r"] > 60 and "gain_r" in levels
    assert report.input_size == (600, 400) and report.output_size == (600, 400)
