"""A repeat of a close-up whose faces (or a profile the detector only holds as possible) leave
its crop little room is framed anew inside what is safe (issue 42's few_photo_repeats): the
profile close-up's 9:16 crop, the close-up filling a square layout cell, the trimmed screenshot
fitted under a title and a closing."""

from __future__ import annotations

import numpy as np

from media.analysis.camera import Motion, Rect
from media.analysis.detail import Repeat, repeat_motion, same_framing
from media.analysis.framing import MoveRequest, keeps_possible
from media.analysis.safe_crops import must_hold, safe_crops
from media.analysis.subjects import Box, Subject, keep_whole, padded_core
from media.analysis.words import WordsBlock, framings_for_words
from media.base.spec import PORTRAIT, Aspect

PROFILE_SIZE = (948, 1200)
PROFILE = Subject(
    (), Box(0.197, 0.375, 0.421, 0.729), "saliency",
    possible=(Box(0.195, 0.250, 0.802, 0.729), Box(0.155, 0.0, 0.647, 0.369)),
    possible_cores=(Box(0.463, 0.400, 0.791, 0.707), Box(0.256, 0.042, 0.617, 0.311)))
"""The corpus's profile close-up (948 x 1200): its profile and the hair above it, both held
only possible, together wider than its 9:16 crop once their cores are loosened."""
CLOSE_UP_SIZE = (1264, 1264)
CLOSE_UP = Subject((Box(0.127, 0.038, 1.0, 0.949),), Box(0.127, 0.038, 1.0, 0.949), "faces",
                   cores=(Box(0.42, 0.33, 0.86, 0.80),))
"""The corpus's square close-up: a face reaching the photo's right edge."""
CELL = Aspect("cell", 704, 704)


def _holds(motion: Motion, box: tuple[float, float, float, float]) -> bool:
    return all(motion.rect_at(f).contains(box, tol=0.5) for f in (0, motion.frames // 2,
                                                                  motion.frames - 1))


def test_the_profile_close_ups_portrait_repeats_are_each_framed_anew() -> None:
    photo = Repeat(PROFILE_SIZE, keep_whole(PROFILE), np.zeros((96, 76), np.float32))
    earlier: list[Motion] = []
    for _ in range(4):
        motion = repeat_motion(photo, PORTRAIT, 166, MoveRequest(move="zoom_out"), earlier)
        assert motion.mode == "crop"  # the 9:16 film is full-bleed
        assert not any(same_framing(motion, m) for m in earlier)
        earlier.append(motion)
    # their cores padded fill the crop's width: a held crop pushes in on them bare, not frozen
    cores = [c.to_pixels(*PROFILE_SIZE) for c in PROFILE.possible_cores]
    assert all(_holds(m, core) for m in earlier for core in cores)
    padded = [padded_core(c).to_pixels(*PROFILE_SIZE) for c in PROFILE.possible_cores]
    assert all(_holds(m, core) for m in earlier[:3] for core in padded)


def test_a_safe_crop_holds_each_possible_face_whole_where_a_crop_can() -> None:
    subject = Subject((), Box(0.4, 0.4, 0.6, 0.6), "saliency",
                      possible=(Box(0.3, 0.2, 0.7, 0.6),), possible_cores=(
                          Box(0.4, 0.3, 0.6, 0.5),))
    crops = list(safe_crops((2000, 3000), subject, PORTRAIT, 120))
    assert crops and all(keeps_possible(m, (2000, 3000), subject) for m in crops)
    assert {m.move for m in crops} >= {"zoom_in", "zoom_out", "pan", "tilt", "still"}


def test_a_close_up_filling_its_square_cell_is_looked_at_closer_on_its_core() -> None:
    core = padded_core(CLOSE_UP.cores[0]).to_pixels(*CLOSE_UP_SIZE)
    whole = Motion("crop", Rect(0, 0, 1264, 1264), Rect(0, 0, 1264, 1264), 90, "still")
    crops = list(safe_crops(CLOSE_UP_SIZE, CLOSE_UP, CELL, 90))
    assert any(not same_framing(m, whole) for m in crops)
    assert all(_holds(m, core) for m in crops)


def test_a_photo_with_nothing_to_hold_needs_no_safe_crop() -> None:
    scenery = Subject((), Box(0.3, 0.3, 0.6, 0.6), "saliency")
    assert must_hold((3000, 2000), scenery, PORTRAIT) is None
    assert list(safe_crops((3000, 2000), scenery, PORTRAIT, 90)) == []


def test_a_fitted_card_photo_shown_both_ways_before_pushes_in_from_farther() -> None:
    size = (1170, 798)  # a trimmed screenshot whose face fills the 9:16 crop's room
    face = Box(0.0, 0.0, 1.0, 1.0)
    subject = Subject((face,), face, "faces")
    w, h = PORTRAIT.width, PORTRAIT.height
    block = WordsBlock((((w / 2, 0.8 * h, 1.0), (0.2 * w, 0.75 * h, 0.8 * w, 0.85 * h)),), 60.0)
    first, _ = next(framings_for_words(size, subject, PORTRAIT, 150, block))
    assert first.mode == "fit"
    backwards = Motion(first.mode, first.end, first.start, first.frames, "zoom_out")
    again, _ = next(framings_for_words(size, subject, PORTRAIT, 150, block, (first, backwards)))
    assert again.mode == "fit" and not any(same_framing(again, m) for m in (first, backwards))
    assert again.end == first.end  # the photo at its largest clears the words as before


def test_a_profile_wider_than_the_portrait_crop_is_shown_whole_once_its_crop_was_shown() -> None:
    size = (1600, 1207)  # the corpus's tilted close-up: its profile 835 px wide, the crop 679
    subject = Subject((), Box(0.365, 0.944, 0.438, 1.0), "saliency",
                      possible=(Box(0.216, 0.182, 0.737, 0.873),),
                      possible_cores=(Box(0.267, 0.314, 0.520, 0.701),))
    photo = Repeat(size, keep_whole(subject), np.zeros((72, 96), np.float32))
    earlier: list[Motion] = []
    for _ in range(6):
        earlier.append(repeat_motion(photo, PORTRAIT, 400, MoveRequest(move="pan"), earlier))
    assert earlier[0].mode == "crop"  # full-bleed first: the crop holding its loosened core
    assert all(not any(same_framing(m, e) for e in earlier[:k]) for k, m in enumerate(earlier))
    assert {m.mode for m in earlier[1:]} == {"fit"}  # then the whole profile, each anew
