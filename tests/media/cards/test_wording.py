"""What the closing card and the gift page say, from the order's own words
(media.cards.wording), and how long it takes to read (media.design.reading)."""

from __future__ import annotations

import pytest

from media.cards.wording import OccasionWords, closing, family_of, kicker, signature
from media.design.reading import message_hold_s, word_count

BIRTHDAY = OccasionWords(
    slug="birthday", greeting="Happy Birthday", tone="joyful", gentle=False, name="Marta",
    relationship="From your hiking club",
    lines=("Sixty this year, and still the first one up every trail we walk.",
           "The morning in the Picos de Europa when you reached the pass first."))
PET = OccasionWords(
    slug="pet-tribute", greeting="In Loving Memory", tone="tender", gentle=True, name="Honey",
    relationship="Our cocker spaniel",
    lines=("Thirteen years of muddy paws on the forest path and a warm head on every lap.",))
LONG_BUDGET_S = 9.0


def test_the_closing_greets_the_recipient_by_name_in_the_occasions_words() -> None:
    assert closing(BIRTHDAY, LONG_BUDGET_S).greeting == "Happy Birthday, Marta"
    assert closing(PET, LONG_BUDGET_S).greeting == "Forever in our hearts, Honey"


def test_the_customers_line_is_kept_exactly_as_written() -> None:
    assert closing(BIRTHDAY, LONG_BUDGET_S).message == BIRTHDAY.lines[0]
    assert closing(PET, LONG_BUDGET_S).message == PET.lines[0]


def test_a_line_that_cannot_be_read_in_time_is_left_out_never_cut() -> None:
    words = closing(PET, 4.0)
    assert words.message == "" and words.greeting == "Forever in our hearts, Honey"
    shorter = closing(BIRTHDAY, message_hold_s(" ".join(
        ["Happy Birthday, Marta", BIRTHDAY.lines[1], "From your hiking club"])))
    assert shorter.message in BIRTHDAY.lines  # the first line that fits, whole


def test_the_signature_is_the_relationship_only_when_it_says_who_it_is_from() -> None:
    assert closing(BIRTHDAY, LONG_BUDGET_S).signature == "From your hiking club"
    assert signature("Our parents") == "" and signature("Our cocker spaniel") == ""
    assert signature("  with love FROM   the twins ") == "with love FROM the twins"


def test_the_gift_page_says_the_kicker_not_a_catalogue_label() -> None:
    assert kicker(PET) == "Forever in our hearts"
    assert kicker(BIRTHDAY) == "Happy Birthday"


@pytest.mark.parametrize(("slug", "tone", "gentle", "family"), [
    ("birthday", "joyful", False, "celebration"), ("anniversary", "romantic", False, "romance"),
    ("pet-tribute", "tender", True, "pet_tribute"), ("memorial", "reflective", True, "memorial"),
    ("something-new", "reflective", True, "memorial"),
    ("something-new", "Romantic", False, "romance"), ("something-new", "warm", False,
                                                      "celebration")])
def test_an_occasion_falls_in_its_family_by_slug_else_by_gentleness_and_tone(
        slug: str, tone: str, gentle: bool, family: str) -> None:
    words = OccasionWords(slug=slug, greeting="Hi", tone=tone, gentle=gentle, name="A",
                          relationship="")
    assert family_of(words) == family


@pytest.mark.parametrize("name", ["{greeting}", "{0}", "%s", "Zoë\u200b", "  ", "A" * 80,
                                  "\u202eevil", "李小龍"])
def test_hostile_and_long_names_and_lines_are_used_as_they_are(name: str) -> None:
    words = OccasionWords(slug="birthday", greeting="Happy {name}", tone="joyful",
                          gentle=False, name=name, relationship="From " + "x" * 80,
                          lines=("", "   ", "word " * 100))
    out = closing(words, LONG_BUDGET_S)
    assert out.greeting == f"Happy {{name}}, {' '.join(name.split())}"
    assert out.message == ""  # 100 words cannot be read in 9 s; blank lines are no line
    assert out.signature.startswith("From x")


def test_reading_counts_words_and_unspaced_scripts_by_characters() -> None:
    assert word_count("Happy Birthday, Marta") == 3
    assert word_count("don't stop-me now") == 3
    assert word_count("生日快乐") == 2
    assert message_hold_s("Hi") == 3.0
    assert message_hold_s(" ".join(["word"] * 12)) == pytest.approx(5.0)
