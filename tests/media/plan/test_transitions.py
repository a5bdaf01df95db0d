"""Transitions are one registered function each (media.plan.transitions): every one a look
names is registered, and one registered beside its peers is planned and blended with nothing
else changed."""

from __future__ import annotations

import pytest

from media.cards.spec import CardSpec
from media.design import looks
from media.frames.blend import layer_weights
from media.plan import film as film_module
from media.plan import pacing, planner, transitions
from media.plan.inputs import PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import transition_frames
from media.plan.transitions import (
    CROSSFADE,
    TRANSITIONS,
    Weights,
    transition,
    transition_kind,
)

STYLES = ("gift", "brand", "social")


@pytest.mark.parametrize("name", looks.look_names())
@pytest.mark.parametrize("style", STYLES)
def test_every_transition_a_look_names_is_registered(name: str, style: str) -> None:
    look = looks.look(name, style)
    assert look.pacing.transition in TRANSITIONS
    assert look.transitions.chorus in TRANSITIONS
    assert CROSSFADE in TRANSITIONS  # the dissolve the planner itself chooses by section


def test_an_unregistered_transition_is_refused_naming_the_registered_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown transition 'wipe'.*crossfade"):
        transition_kind("wipe")


def _smooth(u: float) -> float:
    u = min(max(u, 0.0), 1.0)
    return u * u * (3 - 2 * u)


def test_a_transition_registered_beside_its_peers_is_planned_and_blended(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transitions, "TRANSITIONS", dict(TRANSITIONS))

    @transition("ease")
    def ease(u: float) -> Weights:
        """A dissolve eased in and out."""
        return _smooth(u), 1.0 - _smooth(u)

    look = pacing.film_look("gift", False)
    eased = look.model_copy(update={"pacing": look.pacing.model_copy(
        update={"transition": "ease", "transition_s": 0.8})})
    monkeypatch.setattr(film_module, "film_look", lambda *_, **__: eased)
    photos = [PhotoSource(f"p{i}", 4000, 3000, False) for i in range(4)]
    film = planner.plan(FilmSpec(
        length_sec=20.0, photos=photos, style="gift", recipe=MotionRecipe(motion_shots=1),
        subject_photo_id="p0",
        words=FilmWords(opening=CardSpec("opening", ("Hello",)),
                        closing=CardSpec("closing", ("Bye",))),
        song=SongGrid(beat_times=[i * 0.5 for i in range(41)])))
    index = next(i for i, s in enumerate(film.shots) if s.transition_in.kind == "ease")
    shot, before = film.shots[index], film.shots[index - 1]
    frames = shot.transition_in.frames
    assert frames > 0
    start = shot.transition_in.start(shot.cut_in)
    assert shot.visible_in == start and before.visible_out == start + frames  # both on screen
    assert transition_frames(film, index)[0] == frames
    frame = start + frames // 4
    weights = dict(layer_weights(film, frame))
    u = (frame - start + 0.5) / frames
    assert weights[index] == pytest.approx(_smooth(u))
    assert weights[index - 1] == pytest.approx(1.0 - _smooth(u))
