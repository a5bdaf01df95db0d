"""Where words sit over a picture (media.analysis.words): clear of its subject, inside the frame."""

from __future__ import annotations

from media.analysis.subjects import Box
from media.analysis.words import EDGE_MARGIN, WORD_SCALES, clear_of_subject

WIDE = (1920, 1080)


def test_words_that_do_not_cover_the_subject_stay_where_the_look_wants_them() -> None:
    assert clear_of_subject((960, 900), (600, 120), Box(0.3, 0.1, 0.7, 0.6), WIDE) == (960, 900,
                                                                                       1.0)


def test_words_move_below_a_subject_when_they_fit_there() -> None:
    x, y, scale = clear_of_subject((960, 540), (600, 120), Box(0.3, 0.1, 0.7, 0.6), WIDE)
    assert (x, scale) == (960, 1.0) and y - 60 >= 0.6 * 1080


def test_a_closing_that_fits_nowhere_sits_low_inside_the_frame_not_over_the_faces() -> None:
    # the anniversary's couple filled the 16:9 frame: the closing (1438 x 412 px) was placed
    # beside them half off the frame and drawn back across both faces
    faces = Box(0.175, 0.187, 0.825, 0.791)
    x, y, scale = clear_of_subject((960, 590), (1438, 412), faces, WIDE, least_covering=True)
    half_w, half_h = 1438 * scale / 2, 412 * scale / 2
    assert scale == WORD_SCALES[1]
    assert x - half_w >= EDGE_MARGIN * 1920 and x + half_w <= (1 - EDGE_MARGIN) * 1920 + 1e-6
    assert y + half_h <= (1 - EDGE_MARGIN) * 1080 + 1e-6
    assert y - half_h > 0.6 * 1080  # low, under the eyes and mouths, not across them


def test_words_over_a_close_portrait_cover_its_chin_before_its_eyes_and_mouth() -> None:
    # the birthday's portrait filled the 16:9 frame over its pull-out: the closing sat beside
    # the face, drawn back across the nose and mouth
    face = Box(0.15, 0.0, 0.87, 1.0)
    _, y, scale = clear_of_subject((960, 650), (1234, 226), face, WIDE, least_covering=True)
    assert y - 226 * scale / 2 > 0.7 * 1080  # under the mouth
