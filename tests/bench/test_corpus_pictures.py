"""The corpus's ground truth of which photos are one picture (issue 42): a scan, a phone's
re-save, a small copy, an exact or near copy of one print show the same picture, as the worker's
near-duplicate test finds them; a close-up of a face in it is a picture of its own."""

from __future__ import annotations

from bench.corpus.orders import PoolPhoto, same_picture
from bench.corpus.sources import CLIP_PICTURES, picture_of


def _photo(pid: str, kind: str, source: str, duplicate_of: str = "") -> PoolPhoto:
    return PoolPhoto(pid, f"{pid}.jpg", kind, source, 800, 600, duplicate_of=duplicate_of)


def test_a_scan_a_phone_copy_and_a_small_copy_of_one_print_are_one_picture() -> None:
    source = "corpus-sources/jesper.jpg"
    pool = {p.id: p for p in (_photo("portrait-000", "portrait", source),
                              _photo("old_scan-084", "old_scan", source),
                              _photo("phone_exif-093", "phone_exif", source),
                              _photo("tiny-111", "tiny", source))}
    assert {same_picture(p, pool) for p in pool.values()} == {source}


def test_a_close_up_of_a_face_is_a_picture_of_its_own_and_so_are_its_copies() -> None:
    source = "corpus-sources/jesper.jpg"
    pool = {p.id: p for p in (_photo("portrait-000", "portrait", source),
                              _photo("closeup-035", "closeup", source),
                              _photo("near_duplicate-140", "near_duplicate", source,
                                     duplicate_of="closeup-035"),
                              _photo("duplicate-139", "duplicate", source,
                                     duplicate_of="portrait-000"))}
    assert same_picture(pool["closeup-035"], pool) == ""
    assert same_picture(pool["near_duplicate-140"], pool) == ""  # grouped by duplicate_of
    assert same_picture(pool["duplicate-139"], pool) == source


def test_the_test_fixture_photos_and_clips_are_scikit_images_pictures() -> None:
    chelsea = _photo("pet-024", "pet", "tests/fixtures/order/photos/02-chelsea.jpg")
    assert same_picture(chelsea, {}) == picture_of("skimage:chelsea") == "skimage:chelsea"
    assert CLIP_PICTURES["02-chelsea.mp4"] == same_picture(chelsea, {})
    assert picture_of("tests/fixtures/order/photos/05-camera.jpg").endswith("05-camera.jpg")


def test_a_screenshot_of_a_photo_is_the_photos_picture_once_its_bars_are_cut() -> None:
    source = "corpus-sources/jesper.jpg"
    pool = {p.id: p for p in (_photo("portrait-000", "portrait", source),
                              _photo("tall_screenshot-105", "tall_screenshot", source))}
    assert {same_picture(p, pool) for p in pool.values()} == {source}
