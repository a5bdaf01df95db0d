"""Looks as data (media.design.looks): every look file validates, every look and variant
renders both cards at both aspects with the name in large type, a new look is one file, and
every type animation comes to rest by the end of its entrance."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pydantic
import pytest

from media.base import yuv
from media.cards.draw import render_card_image
from media.cards.motion import card_frame, card_motion
from media.cards.spec import CardSpec
from media.cards.text import text_layout
from media.design import looks
from media.design.reading import TITLE_IN_S, WORDS_IN_S
from media.design.values import STYLES
from media.plan.pacing import film_look, pacing_of

ASPECTS = ((1920, 1080), (1080, 1920))
FAMILIES = ("celebration", "romance", "memorial", "pet_tribute")


def _cards(look: str, style: str) -> tuple[CardSpec, CardSpec]:
    opening = CardSpec("opening", ("Happy Birthday", "Marta"), None, False, style, look=look)
    closing = CardSpec("closing", ("Happy Birthday, Marta", "Sixty this year, and still first "
                                   "up every trail.", "From your hiking club"),
                       None, False, style, look=look)
    return opening, closing


@pytest.mark.parametrize("name", looks.look_names())
@pytest.mark.parametrize("style", STYLES)
def test_every_look_file_validates_in_every_style(name: str, style: str) -> None:
    look = looks.look(name, style)
    assert look.name == name and look.style == style
    assert look.families
    assert look.typography.display.file != look.typography.text.file


def test_there_is_a_designed_look_for_every_occasion_family() -> None:
    names = {looks.look_name_for(family) for family in FAMILIES}
    assert len(names) >= 3
    for family in FAMILIES:
        assert family in looks.look(looks.look_name_for(family)).families


def test_social_variants_are_bolder_bigger_and_faster_than_gift() -> None:
    for name in looks.look_names():
        gift, social = looks.look(name, "gift"), looks.look(name, "social")
        assert social.roles.name.size.portrait > gift.roles.name.size.portrait
        assert social.typography.display.file != gift.typography.display.file
        assert social.social_safe and not gift.social_safe
        assert social.pacing.shot_s <= gift.pacing.shot_s


@pytest.mark.parametrize("name", looks.look_names())
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_every_look_renders_both_cards_with_the_name_large_and_inside_the_frame(
        name: str, style: str, width: int, height: int) -> None:
    opening, closing = _cards(name, style)
    for card in (opening, closing):
        image = render_card_image(card, width, height)
        assert image.final.shape == (height, width, 3)
        assert image.sprites
    boxes = text_layout(opening, width, height)
    title = next(b for b in boxes if b.role == "title")
    assert title.text == "Marta"
    # The name reads on a phone: at least 5 % of the frame's height, shown 390 / 844 px wide.
    assert title.height >= 0.05 * height
    for box in boxes:
        assert box.left >= 0 and box.right <= width and box.top >= 0 and box.bottom <= height


def test_the_closing_greeting_keeps_its_kicker_on_one_line_in_9_16() -> None:
    for name in looks.look_names():
        card = CardSpec("closing", ("Happy Birthday, Marta", "", ""), look=name)
        lines = [b.text for b in text_layout(card, 1080, 1920) if b.role == "title"]
        assert lines[0].startswith("Happy Birthday"), (name, lines)


def test_a_new_look_is_one_file(tmp_path: Path) -> None:
    source = looks.LOOK_DIR / "celebration.toml"
    text = source.read_text(encoding="utf-8").replace(
        'families = ["celebration"]', 'families = ["graduation_party"]').replace(
        'top = "#1B1630"', 'top = "#102030"')
    (tmp_path / "party.toml").write_text(text, encoding="utf-8")
    assert looks.look_names(tmp_path) == ("party",)
    assert looks.look_name_for("graduation_party", tmp_path) == "party"
    assert looks.look("party", "gift", tmp_path).colours.top == "#102030"
    assert looks.look("party", "social", tmp_path).social_safe


def test_a_look_file_with_a_mistake_is_refused(tmp_path: Path) -> None:
    source = (looks.LOOK_DIR / "romance.toml").read_text(encoding="utf-8")
    (tmp_path / "bad.toml").write_text(source.replace("PlayfairDisplay-SemiBoldItalic.ttf",
                                                      "Missing.ttf"), encoding="utf-8")
    with pytest.raises(pydantic.ValidationError):
        looks.look("bad", "gift", tmp_path)
    slow = source.replace('opening = { text = "rise", seconds = 0.8',
                          'opening = { text = "rise", seconds = 0.85')
    (tmp_path / "slow.toml").write_text(slow, encoding="utf-8")
    with pytest.raises(pydantic.ValidationError):  # over TITLE_IN_S: the title would not hold
        looks.look("slow", "gift", tmp_path)
    shutil.rmtree(tmp_path)


def test_the_film_takes_pacing_transitions_and_grade_from_its_look() -> None:
    memorial = looks.look("memorial", "gift")
    pacing = pacing_of(film_look("gift", False, "memorial"))
    assert pacing.shot_s == memorial.pacing.shot_s
    assert pacing.transitions.dissolve_s == memorial.transitions.dissolve_s
    assert film_look("gift", True).grade == "gentle"
    assert pacing_of(film_look("social", False, "romance")).transition == "cut"


def _at_rest(image, seconds: float, length: float, entrance_at: float | None) -> bool:
    """True when every sprite is fully in, at its drawn place (to the house drift)."""
    motion = card_motion(image, seconds, length, entrance_at)
    still = card_motion(image, seconds + 0.2, length, entrance_at)
    return (len(motion.placements) == len(image.sprites)
            and all(p.opacity == 1.0 and p.reveal == 1.0 for p in motion.placements)
            and all(abs(a.top - b.top) < 2.0 and abs(a.scale - b.scale) < 0.01
                    for a, b in zip(motion.placements, still.placements, strict=True)))


@pytest.mark.parametrize("name", looks.look_names())
@pytest.mark.parametrize("style", STYLES)
def test_every_type_animation_comes_to_rest_by_the_end_of_its_entrance(
        name: str, style: str) -> None:
    opening, closing = _cards(name, style)
    title = render_card_image(opening, 960, 540)
    assert _at_rest(title, TITLE_IN_S, 4.0, None)
    assert not _at_rest(title, 0.0, 4.0, None) or title.entrance.text == "fade"
    words = render_card_image(closing, 960, 540)
    assert _at_rest(words, 0.3 + WORDS_IN_S, 5.0, 0.3)
    assert not _at_rest(words, 0.3 + 0.1, 5.0, 0.3)


def test_settle_starts_larger_and_tracked_out_and_shows_the_name_on_the_first_frame() -> None:
    card = CardSpec("opening", ("Happy Birthday", "Marta"), look="celebration")
    image = render_card_image(card, 960, 540)
    assert image.entrance.text == "settle"
    assert len(image.sprites) > 3  # the name is cut into letters to track them
    first = card_motion(image, 0.0, 4.0)
    rest = card_motion(image, TITLE_IN_S, 4.0)
    words = [i for i, sprite in enumerate(image.sprites) if sprite.line >= 0]
    assert [p.index for p in first.placements] == words  # every word there on frame 0 (the
    # rule starts to draw)
    at_rest = {p.index: p for p in rest.placements}
    assert all(p.scale > at_rest[p.index].scale for p in first.placements)
    lefts = [p.left for p in first.placements]
    assert max(lefts) - min(lefts) > max(p.left for p in rest.placements) - min(
        p.left for p in rest.placements)
    frame = yuv.i420_to_rgb(card_frame(image, 0.0, 4.0))
    assert float(np.abs(frame.astype(int) - image.base.astype(int)).max()) > 100


def test_draw_line_draws_the_rule_out_from_its_centre() -> None:
    card = CardSpec("opening", ("Happy Birthday", "Marta"), look="celebration")
    image = render_card_image(card, 960, 540)
    rule = next(i for i, s in enumerate(image.sprites) if s.line < 0)
    reveals = [next(p.reveal for p in card_motion(image, t, 4.0).placements if p.index == rule)
               for t in (0.05, 0.3, TITLE_IN_S)]
    assert reveals[0] < reveals[1] < reveals[2] == 1.0


@pytest.mark.parametrize("name", looks.look_names())
@pytest.mark.parametrize("style", STYLES)
def test_a_name_filling_the_line_starts_its_entrance_inside_the_frame(name: str,
                                                                      style: str) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Maximilianus"), None, False, style,
                    look=name)
    image = render_card_image(card, 1080, 1920)
    for seconds in (0.0, 0.2, TITLE_IN_S):
        for place in card_motion(image, seconds, 4.0).placements:
            inked = np.flatnonzero(image.sprites[place.index].alpha.max(axis=0) > 0.1)
            if not len(inked):
                continue  # a strip of the name's shadow margin only
            left = place.left + inked[0] * place.scale
            right = place.left + (inked[-1] + 1) * place.scale
            assert left >= 0 and right <= 1080, (seconds, place)
