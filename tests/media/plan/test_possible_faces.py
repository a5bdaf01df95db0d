"""Photos with a possible face only (the detector not sure of it, see
:attr:`media.analysis.subjects.Subject.possible`): never a person to the planner, but no dissolve
lays one over another face (:func:`media.plan.shots.faces_apart`)."""

from __future__ import annotations

import dataclasses

import pytest

from media.plan import planner
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from media.plan.transitions import transition_kind
from tests.helpers import CLOSING, OPENING, beat_grid, photo_showings, plan_photos


def _film(n: int, length: float, premium: bool, gentle: bool) -> tuple[FilmSpec, Timeline]:
    photos = [dataclasses.replace(p, possible_face=True) for p in plan_photos(n)]
    spec = FilmSpec(length_sec=length, photos=photos, gentle=gentle,
                    recipe=MotionRecipe(motion_shots=4, premium=premium),
                    words=FilmWords(opening=OPENING, closing=CLOSING),
                    song=SongGrid(beat_times=beat_grid(length)))
    return spec, planner.plan(spec)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 30])
@pytest.mark.parametrize("length", [30.0, 67.0, 180.0])
@pytest.mark.parametrize("premium", [False, True])
def test_no_dissolve_lays_a_possible_face_over_another(n: int, length: float,
                                                       premium: bool) -> None:
    for gentle in (False, True):
        spec, tl = _film(n, length, premium, gentle)
        shown = dict(photo_showings(tl))
        faced = {p.id for p in spec.photos}
        overlaps = [i for i in range(1, len(tl.shots))
                    if transition_kind(tl.shots[i].transition_in.kind).lays_over
                    and tl.shots[i].transition_in.frames > 0
                    and shown.get(i - 1, set()) & faced and shown.get(i, set()) & faced]
        assert overlaps == [], tl.describe()


def test_a_possible_face_is_no_person_to_the_planner() -> None:
    # the same photos without the flag plan the same shots of the same photos but for the
    # transitions and the layouts (a possible face stays out of a layout's narrow cells)
    spec, tl = _film(5, 67.0, False, False)
    bare = spec.model_copy(update={"photos": plan_photos(5)})
    other = planner.plan(bare)
    assert [(s.kind, s.source_id) for s in tl.shots] == [
        (s.kind, s.source_id) for s in other.shots]
    assert tl.subject_photo_id == other.subject_photo_id
    assert any(s.layout for s in other.shots) and not any(s.layout for s in tl.shots)
