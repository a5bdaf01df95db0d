"""The viewer's figures of ``bench.showings`` on hand-made views (no film decoded)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.showings import (
    PhotoFeatures,
    View,
    _split,
    group_showings,
    photo_features,
    register,
    summarize,
    travel,
)


def _view(t: float, photo: str | None, x: float = 0.0, w: float = 0.5,
          textured: float = 0.5) -> View:
    corners = ((x, 0.0), (x + w, 0.0), (x + w, w), (x, w)) if photo else None
    return View(t, photo, corners, textured)


def _showing(t0: float, photo: str, x: float, w: float) -> list[View]:
    return [_view(t0 + k * 0.2, photo, x, w) for k in range(5)]


def test_a_repeat_framed_1_5x_closer_is_a_new_framing_not_the_same_picture() -> None:
    views = [*_showing(0, "a", 0.0, 0.8), *_showing(2, "b", 0.0, 0.8),
             *_showing(4, "a", 0.2, 0.4),  # inside the first showing, half as wide
             *_showing(6, "a", 0.1, 0.7)]  # inside it again, at about its scale
    figures = summarize(views)
    assert figures["repeats"] == 2
    assert figures["mostly_same_area_only_share"] == 1.0
    assert figures["mostly_same_share"] == 0.5


def test_near_empty_frames_are_counted_between_the_cards_only() -> None:
    card = [_view(k * 0.2, None, textured=0.0) for k in range(5)]
    middle = [*_showing(1, "a", 0.0, 0.8), _view(2, "a", textured=0.1)]
    figures = summarize([*card, *middle, *card])
    assert figures["near_empty_share"] == round(1 / 6, 3)


def test_a_jump_to_another_framing_of_the_same_photo_starts_a_new_showing() -> None:
    views = [*_showing(0, "a", 0.0, 0.8), *_showing(1, "a", 0.5, 0.3)]
    assert len(group_showings(views)) == 2


def test_a_split_showing_is_its_own_picture_not_a_repeat_of_its_photos() -> None:
    views = [*_showing(0, "a", 0.0, 0.8), *_showing(2, "b", 0.0, 0.8),
             *[_view(4 + k * 0.2, None) for k in range(1)],
             *[View(5 + k * 0.2, "a|b", None, 0.5) for k in range(5)]]
    figures = summarize(views, subjects=("a",))
    assert figures["repeats"] == 0 and figures["splits"] == 1
    assert figures["order"] == ["a", "b", "a|b"]
    assert figures["subject_share"] == round(10 / 16, 3)


def _texture(seed: int, size: tuple[int, int] = (900, 600)) -> np.ndarray:
    """A grey 'photo' of random blocks and lines: features ORB finds and matches."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 255, (size[1] // 12, size[0] // 12), dtype=np.uint8)
    image = cv2.resize(small, size, interpolation=cv2.INTER_NEAREST)
    for _ in range(60):
        p0 = tuple(int(v) for v in rng.integers(0, size[0], 2))
        p1 = tuple(int(v) for v in rng.integers(0, size[0], 2))
        cv2.line(image, p0, p1, int(rng.integers(0, 255)), 3)
    return image


def _features(tmp_path: Path, names: str) -> list[PhotoFeatures]:
    paths = []
    for k, name in enumerate(names):
        paths.append(tmp_path / f"{name}.png")
        cv2.imwrite(str(paths[-1]), _texture(k + 1))
    return photo_features(paths, cv2.ORB_create(nfeatures=1500))


def _cell(photo: np.ndarray, w: int, h: int) -> np.ndarray:
    y, x = (photo.shape[0] - h) // 2, (photo.shape[1] - w) // 2
    return photo[y:y + h, x:x + w]


def test_a_triptych_frame_is_its_own_picture_named_by_its_three_photos(tmp_path: Path) -> None:
    features = _features(tmp_path, "abc")
    photos = [_texture(k + 1) for k in range(3)]
    frame = np.hstack([_cell(p, 213, 360) for p in photos])  # three columns of a 640x360 frame
    orb, matcher = cv2.ORB_create(nfeatures=1500), cv2.BFMatcher(cv2.NORM_HAMMING)
    assert _split(frame, features, orb, matcher) == "a|b|c"
    portrait = np.vstack([_cell(p, 360, 213) for p in photos])  # three rows in 9:16
    assert _split(portrait, features, orb, matcher) == "a|b|c"


def test_an_inset_print_over_another_photo_is_its_own_picture(tmp_path: Path) -> None:
    features = _features(tmp_path, "ab")
    back, print_ = _texture(1), _texture(2)
    frame = _cell(back, 640, 360).copy()
    frame[90:270, 380:620] = cv2.resize(print_, (240, 180), interpolation=cv2.INTER_AREA)
    orb, matcher = cv2.ORB_create(nfeatures=1500), cv2.BFMatcher(cv2.NORM_HAMMING)
    whole = register(frame, features, orb, matcher)
    assert whole is not None and whole[0] == "a"
    assert _split(frame, features, orb, matcher, whole[0]) == "a|b"
    alone = _cell(back, 640, 360)
    assert _split(alone, features, orb, matcher, "a") is None


def test_a_one_frame_layout_is_a_dissolve_not_a_showing() -> None:
    views = [*_showing(0, "a", 0.0, 0.8), View(1.0, "a|b", None, 0.5), *_showing(1.2, "a", 0.0,
                                                                                   0.8)]
    figures = summarize(views)
    assert figures["splits"] == 0 and figures["showings"] == 1


def test_a_tilt_is_measured_in_frame_widths_whatever_the_photo_shape() -> None:
    # corners are normalized per axis: a tilt over a 2:3 photo read 2/3 of its travel (the
    # anniversary's beach: planned 21 %, measured 8 %), over a 3:2 one 3/2 of it
    def tilt(tall: float) -> float | None:
        views = []
        for k in range(6):
            y = 0.1 + 0.02 * k  # the frame's top edge, in photo heights
            w = 0.5  # the frame's width, in photo widths
            h = w * 9 / 16 / tall  # its height, in photo heights
            views.append(View(k * 0.2, "a", ((0.2, y), (0.7, y), (0.7, y + h), (0.2, y + h)),
                              0.5, tall))
        return travel(group_showings(views)[0])
    moved = 0.02 * 3  # between the first and the last steady views
    assert tilt(1.5) == pytest.approx(moved * 1.5 / 0.5)
    assert tilt(2 / 3) == pytest.approx(moved * (2 / 3) / 0.5)
