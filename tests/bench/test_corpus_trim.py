"""The corpus's ground truth follows intake's trim (issue 42): a screenshot's labelled face,
in shares of the upright photo with its bars, lands on the same picture in the working copy
the bars were cut from."""

from __future__ import annotations

import pytest

from bench.corpus.analysis import PhotoFacts
from bench.corpus.generate import corpus_photo
from bench.corpus.orders import PoolPhoto

FACE = {"box": [0.08, 0.40837, 0.98, 0.71643], "core": [0.36, 0.42378, 0.84, 0.6733],
        "profile": False, "small": False, "cut_by_photo": False}


def _facts(width: int, height: int,
           trimmed_from: tuple[float, float, float, float] | None) -> PhotoFacts:
    return PhotoFacts("", None, width, height, False, None, (0, 0), None, trimmed_from)


def _screenshot() -> PoolPhoto:
    return PoolPhoto("tall_screenshot-105", "tall_screenshot-105.jpg", "tall_screenshot",
                     "corpus-sources/jesper.jpg", 1170, 2532, faces=[FACE])


def test_a_trimmed_screenshots_face_is_labelled_on_the_picture_left() -> None:
    top, bottom = 1035 / 2532, 1809 / 2532
    photo, _ = corpus_photo(_screenshot(), _facts(1170, 774, (0.0, top, 1.0, bottom)))

    face = photo.faces[0]
    assert face.core[0] == pytest.approx(0.36 * 1170)
    assert face.core[1] == pytest.approx((0.42378 - top) * 2532 * 774 / (1809 - 1035))
    assert face.core[3] == pytest.approx((0.6733 - top) * 2532 * 774 / (1809 - 1035))
    assert 0 <= face.core[1] < face.core[3] <= 774
    assert not face.cut_by_photo


def test_an_untrimmed_photos_faces_scale_with_its_working_copy() -> None:
    photo, _ = corpus_photo(_screenshot(), _facts(585, 1266, None))

    assert photo.faces[0].core == pytest.approx((0.36 * 585, 0.42378 * 1266, 0.84 * 585,
                                                 0.6733 * 1266))


def test_a_trim_into_a_faces_core_marks_it_cut_by_the_photo() -> None:
    photo, _ = corpus_photo(_screenshot(), _facts(1170, 600, (0.0, 0.5, 1.0, 1.0)))

    assert photo.faces[0].cut_by_photo
