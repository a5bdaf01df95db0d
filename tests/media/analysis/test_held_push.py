"""A framing no move holds pushes slowly in rather than freezing (``camera.held_push``)."""

from __future__ import annotations

from media.analysis.camera import (
    HELD_PUSH_LEAST_PX,
    HELD_PUSH_MOST,
    MAX_ACCEL_PX,
    Rect,
    held_push,
    motion_extent,
    peak_acceleration,
)
from media.base.spec import LANDSCAPE, PORTRAIT

JITTER_BOUND = MAX_ACCEL_PX + 0.01


def _overlaps(rect: Rect, box: tuple[float, float, float, float]) -> bool:
    return box[0] < rect.x + rect.w and box[2] > rect.x and box[1] < rect.y + rect.h and \
        box[3] > rect.y


def test_a_held_push_keeps_what_it_holds_whole_and_what_it_leaves_out_out() -> None:
    rect = Rect(40.0, 0.0, 675.0, 1200.0)  # a 9:16 crop whose faces fill nearly its width
    faces = (60.0, 300.0, 700.0, 920.0)
    left_out = (720.0, 100.0, 900.0, 300.0)  # a face beside the crop, wholly out of it
    motion = held_push(rect, [faces, left_out], 300, PORTRAIT.width)
    assert motion is not None and motion.start == rect
    assert motion.end.w < rect.w and rect.w / motion.end.w <= HELD_PUSH_MOST + 1e-9
    for frame in range(motion.frames):
        at = motion.rect_at(frame)
        assert at.contains(faces, 0.5) and rect.contains((at.x, at.y, at.x + at.w, at.y + at.h),
                                                         0.5)
        assert not _overlaps(at, left_out)
    assert motion_extent(motion, PORTRAIT.width) >= HELD_PUSH_LEAST_PX
    assert peak_acceleration(motion, PORTRAIT.width) <= JITTER_BOUND


def test_a_held_push_under_words_keeps_the_faces_above_them() -> None:
    # a scan's closing: the faces' guard reaches the crop's top, the words sit low
    rect = Rect(0.0, 56.0, 636.0, 357.75)
    guard = (180.0, 59.0, 432.0, 230.0)
    band = (0.0, 0.55)  # the rows above the words
    motion = held_push(rect, [guard], 352, LANDSCAPE.width, (0.5, 0.73), band)
    assert motion is not None
    for frame in range(motion.frames):
        at = motion.rect_at(frame)
        assert at.contains(guard, 0.5)
        assert guard[3] <= at.y + band[1] * at.h + 0.5
    assert motion_extent(motion, LANDSCAPE.width) >= HELD_PUSH_LEAST_PX


def test_no_held_push_when_the_faces_fill_the_frame() -> None:
    rect = Rect(0.0, 0.0, 675.0, 1200.0)
    assert held_push(rect, [(0.0, 0.0, 675.0, 1200.0)], 300, PORTRAIT.width) is None
