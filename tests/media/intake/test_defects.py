"""Scratches and dust on a scanned print, told apart from real detail (media.intake.defects)."""

from __future__ import annotations

import cv2
import numpy as np

from media.intake.defects import find_defects


def _print(lines: int, specks: int = 0) -> np.ndarray:
    """A smooth grey gradient (600x800) with ``lines`` long thin bright scratches and ``specks``
    small dark dust specks."""
    ramp = np.linspace(70, 140, 800, dtype=np.float32)[None, :].repeat(600, axis=0)
    luma = ramp.astype(np.uint8)
    for i in range(lines):
        x = 150 + 200 * i
        cv2.line(luma, (x, 60), (x + 40, 520), 250, 1)
    for i in range(specks):
        cv2.circle(luma, (100 + 120 * i, 300), 2, 0, -1)
    return np.repeat(luma[..., None], 3, axis=2)


def test_a_smooth_photo_has_no_defects() -> None:
    mask, counts = find_defects(_print(0))
    assert not mask.any()
    assert counts == {"scratches": 0.0, "specks": 0.0, "area": 0.0}


def test_two_scratches_mark_a_damaged_print_and_its_dust_goes_with_them() -> None:
    mask, counts = find_defects(_print(2, specks=3))
    assert counts["scratches"] == 2 and counts["specks"] == 3
    assert mask[300, 160:180].any()  # the first scratch, halfway down
    assert mask[298:303, 98:103].any()  # a speck
    assert 0 < counts["area"] < 0.02


def test_a_single_line_is_taken_for_detail_not_damage() -> None:
    mask, counts = find_defects(_print(1, specks=3))
    assert counts["scratches"] == 1
    assert not mask.any()  # neither the line nor the dust is touched
