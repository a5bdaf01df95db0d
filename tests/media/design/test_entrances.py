"""Type animations are registered functions (media.design.entrances): every name the looks use
is registered, a name nobody registered is refused when a look is read, and a new animation is
one registered function that a look names and the motion plays."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pydantic
import pytest

from media.cards.draw import render_card_image
from media.cards.motion import card_motion
from media.cards.spec import KINDS, CardSpec
from media.design import entrances, looks
from media.design.entrances import Moment, Pose
from media.design.values import STYLES


def _entrances_of(look: looks.Look) -> list[looks.Entrance]:
    named = [look.motion.entrance(kind) for kind in KINDS]
    return [*named, look.title_sequence.occasion, look.title_sequence.name]


@pytest.mark.parametrize("name", looks.look_names())
@pytest.mark.parametrize("style", STYLES)
def test_every_animation_a_look_names_is_registered(name: str, style: str) -> None:
    for entrance in _entrances_of(looks.look(name, style)):
        assert entrance.text in entrances.TEXT_ENTRANCES
        assert entrance.rule in entrances.RULE_ENTRANCES


def test_an_animation_nobody_registered_is_refused_when_the_look_is_read(tmp_path: Path) -> None:
    with pytest.raises(pydantic.ValidationError, match="no type animation 'spin'"):
        looks.Entrance(text="spin", seconds=0.5)
    with pytest.raises(pydantic.ValidationError, match="no rule animation 'wipe'"):
        looks.Entrance(text="rise", seconds=0.5, rule="wipe")
    source = (looks.LOOK_DIR / "romance.toml").read_text(encoding="utf-8")
    (tmp_path / "spun.toml").write_text(source.replace(
        'closing = { text = "rise"', 'closing = { text = "spin"'), encoding="utf-8")
    with pytest.raises(pydantic.ValidationError):
        looks.look("spun", "gift", tmp_path)


def test_only_a_tracked_settle_cuts_the_title_into_letters() -> None:
    assert entrances.cuts_letters("settle", looks.Entrance(text="settle", seconds=0.5,
                                                            tracking_from=0.1))
    assert not entrances.cuts_letters("settle", looks.Entrance(text="settle", seconds=0.5))
    assert not entrances.cuts_letters("land", looks.Entrance(text="land", seconds=0.5,
                                                              tracking_from=0.1))


@pytest.fixture
def half_shown() -> Iterator[str]:
    """A toy animation registered for one test: the words hold at half opacity, 10 px low,
    until their entrance is over."""
    name = "toy_half_shown"

    @entrances.text_entrance(name)
    def toy(entrance: entrances.EntranceParameters, moment: Moment) -> Pose:
        return Pose(lift=10.0, opacity=0.5) if moment.u < 1.0 else Pose()

    yield name
    del entrances.TEXT_ENTRANCES[name]


def test_a_new_animation_is_one_registered_function_a_look_names(half_shown: str,
                                                                  tmp_path: Path) -> None:
    source = (looks.LOOK_DIR / "romance.toml").read_text(encoding="utf-8")
    (tmp_path / "toy.toml").write_text(source.replace(
        'closing = { text = "rise"', f'closing = {{ text = "{half_shown}"'), encoding="utf-8")
    look = looks.look("toy", "gift", tmp_path)
    assert look.motion.closing.text == half_shown
    card = CardSpec("closing", ("With love, Marta", "Remember the lake house", "from us"),
                    look="romance")
    image = dataclasses.replace(render_card_image(card, 960, 540),
                                entrance=look.motion.closing)
    during = card_motion(image, 0.3, 5.0, entrance_at=0.2)
    after = card_motion(image, 0.2 + look.motion.closing.seconds + 2.0, 5.0, entrance_at=0.2)
    words = {p.index: p for p in during.placements if image.sprites[p.index].line >= 0}
    assert words and all(p.opacity == 0.5 for p in words.values())
    rested = {p.index: p for p in after.placements}
    assert all(p.top > rested[i].top + 5.0 for i, p in words.items())
    assert all(p.opacity == 1.0 for p in rested.values())
