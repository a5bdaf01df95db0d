"""Bidi: controls are neutralised, levels and display order are FriBiDi's, and a right-to-left
line drawn run by run (one font and one direction each) is the line Pillow's RAQM layout draws
whole with FriBiDi (media.cards.bidi, media.cards.shaping)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from media.cards import bidi, fonts
from media.cards.shaping import shape_line


def test_bidi_controls_and_invisible_format_characters_are_removed() -> None:
    text = "\u202eAnna\u202c \u2067Ben\u2069\u200e\u200f\u061c\u00ad\u200b"
    assert bidi.neutralise(text) == "Anna Ben"


def test_joiners_survive_neutralising() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert bidi.neutralise(family) == family
    assert bidi.neutralise("می\u200cخواهم") == "می\u200cخواهم"


def test_first_strong_character_sets_the_paragraph_direction() -> None:
    assert bidi.base_level("Sara سارة") == 0
    assert bidi.base_level("سارة Sara") == 1
    assert bidi.base_level("2024 שרה") == 1
    assert bidi.base_level("123") == 0


def test_arabic_in_a_latin_line_is_right_to_left() -> None:
    assert bidi.levels("Sara سارة") == [0, 0, 0, 0, 0, 1, 1, 1, 1]


def test_numbers_after_hebrew_stay_left_to_right_inside_it() -> None:
    levels = bidi.levels("Lior ליאור 2024")
    assert levels[:5] == [0] * 5
    assert levels[5:10] == [1] * 5
    assert levels[10] == 1  # the space between two right-to-left things
    assert levels[11:] == [2] * 4


def test_display_order_reverses_right_to_left_runs() -> None:
    assert bidi.resolve("Sara سارة").visual == (0, 1, 2, 3, 4, 8, 7, 6, 5)
    assert bidi.resolve("2024 שרה").visual == (4, 5, 6, 7, 3, 2, 1, 0)


def test_brackets_around_latin_in_a_hebrew_line_take_the_line_s_direction() -> None:
    levels = bidi.levels("שרה (Sarah)")  # UAX #9's bracket pairs (N0), as FriBiDi has them
    assert (levels[4], levels[-1]) == (1, 1)
    assert levels[5:10] == [2] * 5


@pytest.mark.parametrize("line", ["Happy Birthday, Marta!", "Zoë 🎂 40", "美咲 2024", "Анна"])
def test_a_line_with_nothing_right_to_left_is_in_logical_order_as_fribidi_says(
        line: str) -> None:
    assert bidi.resolve(line) == bidi._fribidi_resolve(line, None)
    assert bidi.resolve(line).levels == (0,) * len(line)


SIZE = 48


def _canvas() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("L", (1200, 120), 0)
    return image, ImageDraw.Draw(image)


@pytest.mark.parametrize(("line", "face"), [
    ("مرحبا 2024 سارة ١٢٣!", "NotoSansArabic-Bold.ttf"),
    ("سارة، ٣٠ عاما - مبروك!", "NotoSansArabic-Bold.ttf"),
    ("שרה ואמא בבית", "NotoSansHebrew-Bold.ttf"),
])
def test_a_right_to_left_line_is_in_the_visual_order_fribidi_gives(line: str, face: str) -> None:
    shaped = shape_line(line, SIZE, fonts.BOLD, fonts.FACE_JA, 0.0)
    font = fonts.load_font(fonts.FONT_DIR / face, SIZE)
    assert {piece.font.path for piece in shaped.items} == {font.path}
    ours, draw = _canvas()
    for piece in shaped.items:
        draw.text((20 + piece.x, 80), piece.text, font=piece.font, fill=255, anchor="ls",
                  direction=piece.direction)
    whole, draw = _canvas()  # RAQM lays the whole line out, FriBiDi ordering it
    draw.text((20, 80), line, font=font, fill=255, anchor="ls")
    in_logical_order, draw = _canvas()
    pen = 20.0
    for word in line.split(" "):
        draw.text((pen, 80), word, font=font, fill=255, anchor="ls", direction="rtl")
        pen += font.getlength(f"{word} ", direction="rtl")

    ink = np.asarray(whole, float)
    assert np.abs(np.asarray(ours, float) - ink).mean() < 0.02 * ink.mean()
    assert np.abs(np.asarray(in_logical_order, float) - ink).mean() > 0.5 * ink.mean()
