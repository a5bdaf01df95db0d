"""A film of one to three photos in two or three minutes (issue 42's few_photo_repeats): its
shots hold longer, up to the house's longest (:data:`media.plan.pacing.SHOT_MAX_S`), rather than
show a photo more often than it can be framed anew (:func:`media.analysis.scales.
repeat_framings`), and the film keeps cutting on the song's beats."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from media.analysis.detail import Repeat, repeat_motion, same_framing
from media.analysis.framing import MoveRequest, plan_ken_burns
from media.analysis.scales import CROP_FRAMINGS, WHOLE_FRAMINGS, repeat_framings
from media.analysis.subjects import Box, Subject
from media.base.spec import ASPECTS
from media.cards.spec import CardSpec
from media.plan.inputs import PhotoSource
from media.plan.pacing import SHOT_MAX_S
from media.plan.planner import plan
from media.plan.slots import ODD_STEP_SLACK, framed_anew
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from tests.helpers import birthday_song_grid, photo_showings

SMALL = (800, 532)  # an old print scanned small: no closer look, never whole (3 framings)
LARGE = (4000, 3000)
LENGTHS = (119.0, 150.0, 180.0)
MEMORY = "The roof in June, the whole street singing along."
FACE = Subject((Box(0.42, 0.25, 0.58, 0.5),), Box(0.42, 0.25, 0.58, 0.5), "faces")


@functools.cache
def _song(length: float) -> SongGrid:
    return birthday_song_grid(length)


@functools.cache
def _film(n: int, length: float, premium: bool, size: tuple[int, int],
          style: str = "social") -> Timeline:
    """The plan of ``n`` photos of ``size`` with faces in a ``length``-second film in
    ``style`` (social: the shortest holds), the signature tier when ``premium``."""
    photos = [PhotoSource(f"p{i:02d}", *size, False, face_fraction=0.3, focus_x=0.5,
                          hold_w=0.25, hold_h=0.4) for i in range(n)]
    look = "celebration"
    return plan(FilmSpec(
        length_sec=length, family=look, look=look, style=style,
        recipe=MotionRecipe(motion_shots=6 if premium else 4, premium=premium),
        photos=photos, subject_photo_id="p00",
        words=FilmWords(opening=CardSpec("opening", ("Happy Birthday", "Ann"), look=look),
                        closing=CardSpec("closing", ("With love", "from all of us"),
                                         look=look),
                        interludes=(CardSpec("interlude", (MEMORY, ""), look=look),)),
        song=_song(length)))


def _photo_shots_s(tl: Timeline) -> list[float]:
    return [(s.cut_out - s.cut_in) / tl.fps for s in tl.shots if s.kind == "photo"]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("premium", [False, True])
def test_few_small_photos_in_a_long_film_hold_near_the_house_maximum_rather_than_repeat(
        n: int, length: float, premium: bool) -> None:
    tl = _film(n, length, premium, SMALL)
    lengths = _photo_shots_s(tl)  # each run between interludes takes whole shots: 0.7
    assert sum(lengths) / len(lengths) >= 0.7 * SHOT_MAX_S, tl.describe()


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("length", (30.0, 67.0, *LENGTHS))
@pytest.mark.parametrize("size", [SMALL, LARGE])
def test_no_photo_shot_of_few_photos_holds_past_the_house_maximum(
        n: int, length: float, size: tuple[int, int]) -> None:
    for premium in (False, True):
        tl = _film(n, length, premium, size, "gift")
        slack = ODD_STEP_SLACK if n == 2 else 1.0
        beat_s = float(np.median(np.diff(tl.beat_frames))) / tl.fps  # each cut moved onto
        assert max(_photo_shots_s(tl)) <= SHOT_MAX_S * slack + 2 * beat_s, tl.describe()  # a beat


@pytest.mark.parametrize("length", LENGTHS)
def test_large_photos_are_shown_about_as_often_as_they_can_be_framed_anew(
        length: float) -> None:
    """Three sharp photos have framings for a film of about 10 s shots: the planner holds
    that long, not the social look's 5 s (every photo 3 times more often than it can be
    framed anew, as before)."""
    tl = _film(3, length, False, LARGE)
    showings = sum(len(photos) for _, photos in photo_showings(tl))
    framings = framed_anew([repeat_framings(LARGE, ASPECTS)] * 3)
    assert showings <= max(framings, length / SHOT_MAX_S) + 2, tl.describe()


@pytest.mark.parametrize("n", [1, 3])
def test_the_cuts_of_a_long_few_photo_film_stay_on_the_beat(n: int) -> None:
    tl = _film(n, 180.0, False, SMALL)
    beats = set(tl.beat_frames)
    cuts = [s.cut_in for s in tl.shots[1:]]
    assert sum(c in beats for c in cuts) >= len(cuts) - 1, tl.describe()


@pytest.mark.parametrize("size", [SMALL, (1300, 1300), (451, 300), LARGE, (3000, 4000),
                                  (3021, 2266), (1203, 1600)])
def test_a_photo_has_at_least_the_framings_its_size_promises(size: tuple[int, int]) -> None:
    texture = np.ones((48, 64), np.float32)
    ask = MoveRequest(choice=0, full=True)
    for aspect in ASPECTS:
        earlier = [plan_ken_burns(size, FACE, aspect, 300, ask)]
        while len(earlier) < repeat_framings(size, ASPECTS):
            motion = repeat_motion(Repeat(size, FACE, texture), aspect, 300, ask, earlier)
            assert not any(same_framing(motion, m) for m in earlier), (aspect, len(earlier))
            earlier.append(motion)


def test_a_small_print_promises_the_fewest_framings_and_a_large_one_more() -> None:
    assert repeat_framings(SMALL, ASPECTS) == CROP_FRAMINGS
    assert repeat_framings(LARGE, ASPECTS) > CROP_FRAMINGS
    assert repeat_framings(LARGE, ASPECTS[:1]) == WHOLE_FRAMINGS  # 16:9 shows it whole too


def test_two_photos_alternate_so_the_one_with_fewer_framings_bounds_the_film() -> None:
    assert framed_anew([3]) == 3
    assert framed_anew([3, 40]) == 7
    assert framed_anew([5, 5, 5]) == 15
    assert framed_anew([3, 5, 40]) == 17
