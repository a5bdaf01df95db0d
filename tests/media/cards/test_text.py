"""Title card text: hard names fit in both aspects, wrap and shrink inside the safe area, and are
set exactly as typed (media.cards.text)."""

from __future__ import annotations

import numpy as np
import pytest

from media.cards import fonts
from media.cards.draw import render_card
from media.cards.spec import CardSpec
from media.cards.text import safe_area, text_layout, text_mask
from tests.media.card_names import HARD_NAMES, LONG_80

ASPECTS = [(1920, 1080), (1080, 1920)]
MARGIN = 0.06


def test_long_name_is_80_chars() -> None:
    assert len(LONG_80) == 80


def _check_inside(card: CardSpec, width: int, height: int) -> list:
    boxes = text_layout(card, width, height)
    left, right = MARGIN * width, (1 - MARGIN) * width
    top, bottom = (0.12 * height, 0.80 * height) if card.style == "social" else (0, height)
    for box in boxes:
        assert box.left >= left and box.right <= right, (box, width)
        assert box.top >= top and box.bottom <= bottom, (box, height)
        assert box.width > 0 and box.height > 0
    return boxes


@pytest.mark.parametrize(("width", "height"), ASPECTS)
@pytest.mark.parametrize("style", ["gift", "social"])
@pytest.mark.parametrize("name", HARD_NAMES)
def test_hard_names_fit_inside_margins(name: str, style: str, width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", name), None, False, style)
    boxes = _check_inside(card, width, height)
    titles = [b for b in boxes if b.role == "title"]
    assert 1 <= len(titles) <= 3
    # Nothing lost or reinterpreted: the lines put back together are the name as typed.
    assert "".join(b.text for b in titles).replace(" ", "") == name.replace(" ", "")
    # Shrunk, but still readable (80 capitals or ideographs on three 9:16 lines is the floor).
    floor = 0.05 if len(name) <= 40 else 0.028
    assert min(b.size for b in titles) >= floor * min(width, height)


@pytest.mark.parametrize(("width", "height"), ASPECTS)
@pytest.mark.parametrize("gentle", [False, True])
def test_closing_card_fits(width: int, height: int, gentle: bool) -> None:
    card = CardSpec("closing", ("With love, from your sister and the whole Kowalczyk family",
                                "Remember the lake house summer when it rained for a week?"),
                    "#7A1F5C", gentle, "gift")
    boxes = _check_inside(card, width, height)
    assert {b.role for b in boxes} == {"title", "sub", "rule"}


@pytest.mark.parametrize(("width", "height"), ASPECTS)
@pytest.mark.parametrize("name", ["Zoë O'Brien: 100%", "美咲", LONG_80, "a\\b {x} %d"])
def test_drawn_ink_stays_in_its_boxes(name: str, width: int, height: int) -> None:
    """The boxes are truthful: every glyph pixel actually drawn lies inside them."""
    card = CardSpec("opening", ("Happy Birthday", name), None, False, "gift")
    mask = text_mask(card, width, height) > 0.02
    assert mask.any()
    allowed = np.zeros_like(mask)
    for box in text_layout(card, width, height):
        allowed[box.top - 1 : box.bottom + 1, box.left - 1 : box.right + 1] = True
    assert not (mask & ~allowed).any()
    cols = np.flatnonzero(mask.any(axis=0))
    assert cols[0] >= MARGIN * width and cols[-1] < (1 - MARGIN) * width


def test_text_is_drawn_exactly_as_typed() -> None:
    name = "a\\b {x} %d: 100% O'Brien"
    card = CardSpec("opening", ("Happy Birthday", name), None, False, "gift")
    titles = [b.text for b in text_layout(card, 1920, 1080) if b.role == "title"]
    assert " ".join(titles) == name


def test_unsupported_characters_are_reported_and_dropped() -> None:
    assert fonts.missing_glyphs("Anna 😀 ❤\ufe0f") == []
    assert fonts.missing_glyphs("Anna 😀 ❤\ufe0f", colour=False) == ["😀", "❤"]
    assert fonts.missing_glyphs("Anna \U0001fbc5 \u13a0") == ["\U0001fbc5", "\u13a0"]
    # Without the emoji font (contact sheets), emoji and their selectors go.
    assert fonts.drawable("  Anna\n😀\ufe0f\tO'Brien ") == "Anna O'Brien"
    assert fonts.drawable("Anna 😀\ufe0f", colour=True) == "Anna 😀\ufe0f"
    card = CardSpec("opening", ("Happy Birthday", "\U0001fbc5"), None, False, "gift")
    assert [b.role for b in text_layout(card, 1920, 1080)] == ["heading", "rule"]


def test_empty_and_missing_lines() -> None:
    blank = CardSpec("opening", ("", "   "), None, False, "gift")
    assert text_layout(blank, 1920, 1080) == []
    image = render_card(blank, 1920, 1080)
    assert image.shape == (1080, 1920, 3) and image.dtype == np.uint8
    only_name = CardSpec("opening", ("", "Anna"), None, False, "gift")
    assert [b.role for b in text_layout(only_name, 1920, 1080)] == ["title", "rule"]
    one_line = CardSpec("closing", ("With love, Mum",), None, True, "gift")
    assert [b.role for b in text_layout(one_line, 1080, 1920)] == ["title", "rule"]
    no_lines = CardSpec("closing", (), None, False, "brand")
    assert text_layout(no_lines, 1080, 1920) == []


def test_social_cards_respect_safe_area_and_are_bolder() -> None:
    gift = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift")
    social = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "social")
    left, top, right, bottom = safe_area(social, 1080, 1920)
    assert top >= 0.12 * 1920 and bottom <= 0.80 * 1920
    assert left >= 0.06 * 1080 and right <= 0.94 * 1080
    size = {b.role: b.size for b in text_layout(gift, 1080, 1920)}
    social_size = {b.role: b.size for b in text_layout(social, 1080, 1920)}
    assert social_size["title"] > size["title"] and social_size["heading"] > size["heading"]


def test_greek_heading_caps_drop_tonos() -> None:
    card = CardSpec("opening", ("Χρόνια πολλά", "Ελένη"), None, False, "gift")
    heading = [b.text for b in text_layout(card, 1920, 1080) if b.role == "heading"]
    assert heading == ["ΧΡΟΝΙΑ ΠΟΛΛΑ"]


@pytest.mark.parametrize(("style", "gentle", "name_floor"), [("gift", False, 0.10),
                                                             ("gift", True, 0.09),
                                                             ("social", False, 0.10)])
def test_opening_type_reads_on_a_tv_and_bigger_on_a_phone(style: str, gentle: bool,
                                                          name_floor: float) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Eileen"), None, gentle, style)
    wide = {b.role: b for b in text_layout(card, 1920, 1080)}
    tall = {b.role: b for b in text_layout(card, 1080, 1920)}
    # Ink heights as a fraction of the 16:9 frame's height: the name about a tenth of it,
    # the capitals of the heading at least 3.3%.
    assert wide["title"].height >= name_floor * 1080
    assert wide["heading"].height >= 0.033 * 1080
    # 9:16 is width-limited: the same name is drawn larger there, and fills more of the width.
    assert tall["title"].size >= 1.2 * wide["title"].size
    assert tall["heading"].size >= 1.1 * wide["heading"].size


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_long_names_still_fit_at_the_larger_sizes(width: int, height: int) -> None:
    for name in (LONG_80, "Maximiliana Josephine", "W" * 30):
        card = CardSpec("opening", ("Happy 100th Birthday", name), None, False, "gift")
        boxes = _check_inside(card, width, height)
        titles = [b for b in boxes if b.role == "title"]
        assert "".join(b.text for b in titles).replace(" ", "") == name.replace(" ", "")


@pytest.mark.parametrize(("width", "height"), ASPECTS)
@pytest.mark.parametrize("style", ["gift", "social"])
@pytest.mark.parametrize("part", ["", "occasion", "name"])
def test_a_word_that_fits_at_a_readable_size_is_never_split(part: str, style: str, width: int,
                                                           height: int) -> None:
    """The type shrinks before a word breaks: never "CONGRATULATI / ONS" or "Robert J / ames"."""
    lines = ("Congratulations, Graduate", "Robert James Whitaker")
    card = CardSpec("opening", lines, None, False, style, part=part)
    words = {w.strip(",").upper() for line in lines for w in line.split()}
    for box in text_layout(card, width, height):
        for word in box.text.split():
            assert word.strip(",").upper() in words, (box.text, part, style, width)
