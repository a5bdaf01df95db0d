"""What a title card says, as plain data (media.cards.spec)."""

from __future__ import annotations

import pytest

from media.cards.spec import CardSpec
from media.design.values import parse_hex


def test_rejects_bad_spec() -> None:
    with pytest.raises(ValueError):
        CardSpec("middle", ("a", "b"), None, False, "gift")
    with pytest.raises(ValueError):
        CardSpec("opening", ("a", "b"), None, False, "tiktok")
    with pytest.raises(ValueError):
        CardSpec("opening", ("a", "b"), "red", False, "gift")
    assert parse_hex("#abc") == (0xAA, 0xBB, 0xCC)


def test_lines_from_json_become_a_hashable_tuple_of_strings() -> None:
    card = CardSpec("closing", ["With love", None])  # type: ignore[arg-type]
    assert card.lines == ("With love", "")
    assert hash(card) == hash(CardSpec("closing", ("With love", "")))


@pytest.mark.parametrize(("value", "rgb"), [("#C0392B", (192, 57, 43)), ("c0392b", (192, 57, 43)),
                                            (" #fff ", (255, 255, 255))])
def test_hex_colours_parse_with_or_without_the_hash(value: str, rgb: tuple[int, int, int]) -> None:
    assert parse_hex(value) == rgb


@pytest.mark.parametrize("value", ["", "#12", "#12345", "#GGGGGG", "rgb(1,2,3)"])
def test_anything_but_a_hex_colour_is_rejected(value: str) -> None:
    with pytest.raises(ValueError, match="not a hex colour"):
        parse_hex(value)
