"""Names in any script are drawn on the cards: every script's glyphs are real (no tofu box),
Arabic and Hebrew read right to left, emoji keep their colours, bidi overrides are ignored and
text no font can draw is never silently dropped (media.cards.fonts, media.cards.text)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from media.cards import fonts
from media.cards.draw import render_card
from media.cards.spec import CardSpec
from media.cards.text import (
    draw_text,
    layout_card,
    line_pieces,
    text_layout,
    text_mask,
    undrawn_notes,
)

SCRIPT_NAMES = {
    "arabic": "سارة",
    "hebrew": "שרה",
    "thai": "สมชาย",
    "armenian": "Անի",
    "devanagari": "अनीता",
    "bengali": "অনিতা",
    "tamil": "அனிதா",
    "georgian": "ნინო",
    "cjk": "美咲",
    "hangul": "김민준",
    "emoji": "🎂",
    "greek": "Ελένη",
    "cyrillic": "Анна",
}


def _card(name: str) -> CardSpec:
    return CardSpec("opening", ("Happy Birthday", name))


def _title_pieces(name: str, width: int = 1920, height: int = 1080) -> list:
    lay = layout_card(_card(name), width, height)
    return [p for line in lay.lines if line.role.name == "title"
            for p in line_pieces(lay, line).items]


@pytest.mark.parametrize("script", sorted(SCRIPT_NAMES))
def test_every_script_is_drawn_with_real_glyphs(script: str) -> None:
    name = SCRIPT_NAMES[script]
    titles = [b for b in text_layout(_card(name), 1920, 1080) if b.role == "title"]
    assert "".join(b.text for b in titles) == name
    assert all(b.width > 0 and b.height > 0 for b in titles)
    mask = text_mask(CardSpec("opening", ("", name)), 1920, 1080)
    assert mask.sum() > 500  # real ink, not an empty run
    for piece in _title_pieces(name):
        path = piece.font.path
        index = piece.font.index
        for ch in piece.text:
            if ch.isspace() or fonts.is_follower(ch):
                continue
            # The font the piece is drawn with maps every character to a real glyph (its cmap),
            # so nothing is drawn as the .notdef box.
            assert fonts.font_has_glyph(ch, path, index), f"{ch!r} is tofu in {path}"


def test_names_from_the_issue_are_drawn_whole() -> None:
    for name in ("Sara سارة", "שרה", "สมชาย", "Անի", "अनीता", "美咲", "Zoë 🎂"):
        titles = [b.text for b in text_layout(_card(name), 1080, 1920) if b.role == "title"]
        assert " ".join(titles) == name


def _word_ink_centres(name: str) -> list[float]:
    """Mean x (pixels) of each word's ink on the 16:9 card, words in logical order."""
    lay = layout_card(_card(name), 1920, 1080)
    title = next(i for i, line in enumerate(lay.lines) if line.role.name == "title")
    centres = []
    for word in range(len(name.split(" "))):
        image = Image.new("L", (1920, 1080), 0)
        with fonts.LOCK:
            draw_text(image, lay, (0, 0), None,
                      only=lambda line, w, word=word: line == title and w == word)
        cols = np.flatnonzero(np.asarray(image).any(axis=0))
        centres.append(float(cols.mean()))
    return centres


def test_arabic_words_read_right_to_left() -> None:
    first, second = _word_ink_centres("سارة علي")
    assert first > second  # the first word typed sits on the right


def test_hebrew_words_read_right_to_left() -> None:
    first, second = _word_ink_centres("שרה כהן")
    assert first > second


def test_latin_then_arabic_keeps_latin_on_the_left() -> None:
    latin, arabic = _word_ink_centres("Sara سارة")
    assert latin < arabic


def test_arabic_letters_are_joined() -> None:
    """Shaped Arabic is narrower than its letters set apart in their isolated forms."""
    joined = sum(p.font.getlength(p.text, direction=p.direction)
                 for p in _title_pieces("سارة"))
    font = _title_pieces("سارة")[0].font
    isolated = sum(font.getlength(ch) for ch in "سارة")
    assert joined < isolated


def test_a_right_to_left_override_does_not_reverse_the_card() -> None:
    plain = text_mask(_card("Anna Smith"), 1920, 1080)
    overridden = text_mask(_card("\u202eAnna Smith\u202c"), 1920, 1080)
    assert np.array_equal(plain, overridden)
    isolate = text_mask(_card("\u2067Anna\u2069 Smith\u200f"), 1920, 1080)
    assert np.array_equal(plain, isolate)


def test_emoji_are_drawn_in_colour() -> None:
    image = render_card(CardSpec("opening", ("", "🎂")), 1920, 1080)
    box = next(b for b in text_layout(CardSpec("opening", ("", "🎂")), 1920, 1080)
               if b.role == "title")
    ink = image[box.top:box.bottom, box.left:box.right].astype(int)
    chroma = ink.max(axis=2) - ink.min(axis=2)
    assert box.width > 50 and (chroma > 80).mean() > 0.1


def test_an_undrawable_letter_leaves_the_line_out_and_says_so() -> None:
    card = _card("Ꭰ Anna")  # Cherokee: no bundled font
    lay = layout_card(card, 1920, 1080)
    assert [line.role.name for line in lay.lines] == ["heading"]
    assert lay.notes == ("opening card title line left out: no bundled font draws U+13A0",)


def test_an_undrawable_symbol_is_dropped_and_noted() -> None:
    card = _card("Anna \U0001fbc5")
    lay = layout_card(card, 1920, 1080)
    assert [line.text for line in lay.lines if line.role.name == "title"] == ["Anna"]
    assert lay.notes == ("opening card title line dropped symbols no bundled font draws: "
                         "U+1FBC5",)


def test_the_plan_notes_what_a_card_could_not_draw() -> None:
    assert undrawn_notes(_card("Sara سارة 🎂")) == ()
    assert undrawn_notes(_card("Ꭰ")) == (
        "opening card title line left out: no bundled font draws U+13A0",)


def test_a_wrapped_line_keeps_its_paragraphs_direction() -> None:
    """"Sara سارة 🎂" reads left to right: wrapped in 9:16, its last line "سارة 🎂" keeps the
    cake after the Arabic name (on the right), as in the unwrapped line."""
    lay = layout_card(_card("Sara سارة 🎂"), 1080, 1920)
    titles = [line for line in lay.lines if line.role.name == "title"]
    assert len(titles) == 2
    pieces = line_pieces(lay, titles[-1]).items
    emoji = [p for p in pieces if fonts.is_colour(p.font)]
    arabic = [p for p in pieces if "س" in p.text]
    assert emoji and arabic and emoji[0].x > arabic[0].x
