"""Scratches and dust on a scanned print, told apart from real detail (media.intake.defects)."""

from __future__ import annotations

import cv2
import numpy as np

from media.intake.defects import _off_the_sides, find_defects


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


def test_scratches_joined_by_the_bright_detail_they_cross_are_still_scratches() -> None:
    # two long scratches crossing a bright bar (a collar, a can) read as one wide component
    luma = np.ascontiguousarray(_print(0)[..., 0])
    for x in (300, 360):
        cv2.line(luma, (x, 60), (x + 6, 540), 250, 1)
    cv2.line(luma, (280, 300), (390, 300), 250, 2)
    mask, counts = find_defects(np.repeat(luma[..., None], 3, axis=2))
    assert counts["scratches"] >= 2
    assert mask[150, 295:310].any() and mask[450, 355:370].any()  # both, away from the bar


def test_dark_struts_of_a_tower_against_the_sky_are_not_scratches() -> None:
    # a lattice: two dark uprights joined by dark cross braces, as a launch tower at dusk
    luma = np.ascontiguousarray(_print(0)[..., 0])
    for x in (300, 360):
        cv2.line(luma, (x, 60), (x, 540), 10, 1)
    for y in range(80, 540, 60):
        cv2.line(luma, (300, y), (360, y + 30), 10, 1)
    mask, _ = find_defects(np.repeat(luma[..., None], 3, axis=2))
    assert not mask.any()




def test_a_line_hugging_the_photos_side_is_its_border_not_a_joined_scratch() -> None:
    line = np.zeros((100, 300), bool)
    line[:, 298] = True  # the scanner's edge
    assert not _off_the_sides(line, 2)
    line[:, 298], line[:, 150] = False, True
    assert _off_the_sides(line, 2)


def test_a_scratch_is_followed_on_where_it_barely_stands_out() -> None:
    # two scratches run down a print whose top third is a pale sky: over the sky they are only
    # 20 levels brighter than it, below the finder's threshold, and are still part of them
    luma = np.ascontiguousarray(_print(0)[..., 0])
    luma[:200] = 225
    for x in (250, 500):
        cv2.line(luma, (x, 0), (x + 20, 599), 250, 1)
        cv2.line(luma, (x, 0), (x + 7, 199), 245, 1)  # the same line, fainter over the sky
    mask, counts = find_defects(np.repeat(luma[..., None], 3, axis=2))
    assert counts["scratches"] >= 2
    assert mask[100, 245:262].any() and mask[100, 495:512].any()  # over the sky
    assert not mask[100, 300:480].any()  # and nothing else of it
    assert np.count_nonzero(mask[20:180]) <= 2 * 160  # the line alone: a pixel a row each
