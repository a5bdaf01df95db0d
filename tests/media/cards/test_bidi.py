"""Bidi: controls are neutralised, levels follow UAX #9's implicit rules and runs are put in
display order (media.cards.bidi)."""

from __future__ import annotations

from media.cards import bidi


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


def test_visual_order_reverses_right_to_left_runs() -> None:
    assert bidi.visual_order([0, 1, 1, 2]) == [0, 3, 2, 1]
    assert bidi.visual_order([1, 1, 1]) == [2, 1, 0]
    assert bidi.visual_order([0, 0]) == [0, 1]
    assert bidi.visual_order([]) == []
