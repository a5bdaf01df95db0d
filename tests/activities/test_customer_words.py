"""The customer's words on screen, at plan level (issue 42): every line of theirs is shown as
they wrote it, a film of 45 s or more shows the memory and the story line, a shorter one at
least one, each for its reading time and at a size a phone reads (activities.order_plan's
words, media.cards.wording, media.plan.interludes, media.cards.text; nothing drawn)."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from activities.order_plan import film_plan, film_words, order_look
from media.base.spec import ASPECTS
from media.cards import wording
from media.cards.spec import CardSpec
from media.cards.text import layout_card, text_layout
from media.design import looks
from media.design.reading import (
    CAP_HEIGHT_MIN_PX,
    CAP_HEIGHT_SHARE,
    PHONE_WIDTH_PX,
    message_hold_s,
    type_min_px,
)
from media.plan.inputs import PhotoSource
from media.plan.planner import plan
from media.plan.spec import FilmSpec, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from tests.helpers import order_fields, photo_refs
from workflows.contract import STORY_MAX_CHARS, FilmOrder

_LONG = ("He taught us both to play pool in the basement, and he never once let us win.",
         "Every Sunday he made pancakes shaped like the letters of our names.",
         "When the storm took the roof of the shed he laughed and called it a skylight.",
         "He sang off key in the car and knew every word of every song on the radio.",
         "We still have the fishing rod he mended with tape the summer we turned nine.")


def _fill(sentences: tuple[str, ...]) -> str:
    """``sentences`` repeated up to the contract's longest text, cut at a word."""
    text, k = "", 0
    while len(text) < STORY_MAX_CHARS:
        text += ("" if not text else " ") + sentences[k % len(sentences)]
        k += 1
    cut = text[:STORY_MAX_CHARS]
    return cut[:cut.rfind(" ")]


TEXTS = {  # name: (memory, story line)
    "birthday": ("The winter morning at the Grand Canyon when you stood at the rim in that black "
                 "beanie and said it was warmer than Denmark.",
                 "Forty this year, and still the new waver in black at heart."),
    "memorial": (" ".join(_LONG[:2]), "Seventy-two years of patience, pool cues and pancakes."),
    "long500": (_fill(_LONG), _fill(tuple(reversed(_LONG)))),
    "memory500": (_fill(_LONG), ""),
    "hebrew": ("הבוקר בים כשצחקנו עד שבכינו.", "שלושים שנה ועדיין הראשונה לעלות על הגבעה."),
    "arabic": ("صباح الشتاء عند البحر عندما ضحكنا حتى بكينا.",
               "ثلاثون عاماً وما زلتِ أول من يصعد التل."),
    "emoji": ("Karaoke night 🎤 when you sang until 3 am 😂🎶",
              "Happy 30th!!! 🥳🎂✨ Love you to the moon 🌙 and back"),
    "memory only": ("The July morning in Skagen when you stood with a foot in each sea and "
                    "watched the waves meet.", ""),
    "story only": ("", "Thirteen years of muddy paws on the forest path and a warm head on "
                       "every lap."),
    "multiline": ("Sunday lunches at your table.\nThe smell of cardamom buns.\nYour hand on ours.",
                  "Ninety years,\nand every one of them a gift."),
}
OCCASIONS = {
    "birthday": ({"slug": "birthday", "name": "Birthday", "short_name": "Happy Birthday",
                  "tone": "joyful"}, "From your friends at the pool hall"),
    "memorial": ({"slug": "memorial", "name": "Memorial", "short_name": "In Loving Memory",
                  "tone": "tender", "gentle": True}, "Your children Emma and Lucas"),
    "anniversary": ({"slug": "anniversary", "name": "Anniversary",
                     "short_name": "Happy Anniversary", "tone": "romantic"}, "From your friends"),
}
LENGTHS = (30, 45, 67, 180)
FPS = 30


def _order(texts: str, length: int, occasion: str = "birthday", tier: str = "standard",
           style: str = "gift") -> FilmOrder:
    memory, story = TEXTS[texts]
    details, relationship = OCCASIONS[occasion]
    return FilmOrder.model_validate(order_fields(
        memory=memory, story_note=story, length_sec=length, occasion=details, tier=tier,
        style=style, relationship=relationship, recipient_name="Mads",
        feeling_words=["grateful", "warm"], photos=photo_refs(7)))


def _beats(length: float, bpm: float = 112.0) -> list[float]:
    step = 60.0 / bpm
    return [0.23 + k * step for k in range(int((length - 0.23) / step) + 1)]


def _timeline(order: FilmOrder) -> Timeline:
    return plan(_spec(order))


def _spec(order: FilmOrder) -> FilmSpec:
    look = order_look(order)
    photos = [PhotoSource(f"p{i:02d}", 4000, 3000, False, face_fraction=0.1 * (i % 2))
              for i in range(1, 8)]
    beats = _beats(order.length_sec)
    premium = order.tier.value == "signature"
    return FilmSpec(
        length_sec=order.length_sec, style=order.style.value, gentle=order.occasion.gentle,
        look=look.name, recipe=MotionRecipe(motion_shots=6 if premium else 4, premium=premium),
        photos=photos, subject_photo_id="p01", words=film_words(order, look),
        song=SongGrid(beat_times=beats, bar_times=beats[::4]))


def _flat(text: str) -> str:
    return " ".join(text.split())


def _pieces(text: str) -> set[str]:
    """The text whole and each of its sentences (as the corpus's checker splits them)."""
    parts = [p.strip() for p in re.split(r"(?<=[.!?。！？])\s*|\n", text) if p.strip()]
    return {_flat(text), *(_flat(p) for p in parts)}


def _customer_lines(tl: Timeline) -> list[tuple[int, str]]:
    """(shot index, line) of every card line that carries the customer's memory or story."""
    out = []
    for index, shot in enumerate(tl.shots):
        card = shot.card
        if card is None:
            continue
        if card.kind == "closing" and card.lines[1].strip():
            out.append((index, card.lines[1]))
        if card.kind == "interlude" and card.lines[0].strip():
            out.append((index, card.lines[0]))
    return out


def _cap_px(card: CardSpec, line: str) -> dict[str, float]:
    """The capitals' height on the phone (pixels) of the smallest type ``line`` is set in on
    ``card``, per aspect (as the corpus's checker measures them)."""
    caps = {}
    for aspect in ASPECTS:
        sizes = [b.size for b in text_layout(card, aspect.width, aspect.height)
                 if b.role != "rule"
                 and _flat(b.text).strip("“”\"").lower() in _flat(line).lower()]
        assert sizes, (aspect.name, line)
        phone = PHONE_WIDTH_PX["portrait" if aspect.height > aspect.width else "landscape"]
        caps[aspect.name] = CAP_HEIGHT_SHARE * min(sizes) * phone / aspect.width
    return caps


def _shown_for_reading(tl: Timeline, text: str) -> list[str]:
    """The lines of ``text`` (whole or one of its sentences) on a card long enough to read."""
    pieces = _pieces(text)
    return [line for index, line in _customer_lines(tl) if _flat(line) in pieces
            and (tl.shots[index].cut_out - tl.shots[index].cut_in) / tl.fps
            >= message_hold_s(line) - 1e-6]


CASES = [(texts, length) for texts in TEXTS for length in LENGTHS]


@pytest.mark.parametrize(("texts", "length"), CASES)
def test_every_line_of_theirs_on_screen_is_a_piece_of_what_they_wrote(texts: str,
                                                                     length: int) -> None:
    order = _order(texts, length)
    theirs = [_flat(order.memory), _flat(order.story_note)]
    for _, line in _customer_lines(_timeline(order)):
        assert any(_flat(line) in text for text in theirs if text), line


@pytest.mark.parametrize(("texts", "length"), CASES)
def test_a_long_film_shows_both_texts_and_a_short_one_at_least_one_for_their_reading_time(
        texts: str, length: int) -> None:
    order = _order(texts, length)
    tl = _timeline(order)
    shown = {name: bool(_shown_for_reading(tl, text))
             for name, text in (("memory", order.memory), ("story", order.story_note))
             if text.strip()}
    if length >= wording.BOTH_WORDS_FROM_S:
        assert all(shown.values()), shown
    else:
        assert any(shown.values()), shown


@pytest.mark.parametrize(("texts", "length"), CASES)
def test_every_line_on_every_card_reads_on_a_phone_in_both_aspects(texts: str,
                                                                   length: int) -> None:
    tl = _timeline(_order(texts, length))
    for shot in tl.shots:
        if shot.card is None:
            continue
        for line in shot.card.lines:
            if line.strip():
                caps = _cap_px(shot.card, line)
                assert min(caps.values()) >= CAP_HEIGHT_MIN_PX, (shot.card.kind, line, caps)


@pytest.mark.parametrize("occasion", list(OCCASIONS))
@pytest.mark.parametrize(("tier", "style"), [("standard", "gift"), ("signature", "gift"),
                                             ("signature", "social"), ("standard", "brand")])
@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("texts", ["birthday", "memory only"])
def test_the_promise_holds_in_every_occasion_tier_and_style(texts: str, occasion: str,
                                                            tier: str, style: str,
                                                            length: int) -> None:
    fields = {"brand": {"logo_url": "https://example.com/logo.png", "color": "#224466"}} \
        if style == "brand" else {}
    order = _order(texts, length, occasion, tier, style)
    if fields:
        order = order.model_copy(update={"brand": FilmOrder.model_validate(
            order_fields(style="brand", photos=photo_refs(1), **fields)).brand})
    tl = _timeline(order)
    shown = [bool(_shown_for_reading(tl, t)) for t in (order.memory, order.story_note)
             if t.strip()]
    assert all(shown) if length >= wording.BOTH_WORDS_FROM_S else any(shown)
    frames = [s.cut_out - s.cut_in for s in tl.shots]
    assert sum(frames) == round(length * FPS) and all(f > 0 for f in frames)
    assert all(a.cut_out == b.cut_in for a, b in pairwise(tl.shots))


def test_the_birthday_sample_closes_on_its_story_line_as_written() -> None:
    order = _order("birthday", 30, tier="signature")
    closing = _timeline(order).shots[-1].card
    assert closing is not None
    assert closing.lines == ("Happy Birthday, Mads", order.story_note,
                             "From your friends at the pool hall")


def test_the_memorial_memory_is_theirs_never_we_still_remember_when() -> None:
    order = _order("memorial", 60, "memorial")
    lines = [line for _, line in _customer_lines(_timeline(order))]
    assert _LONG[0] in lines
    assert not any(line.lower().startswith(("we still remember", "remember")) for line in lines)


def test_a_30s_film_whose_text_is_too_long_for_its_closing_shows_it_between_the_pictures(
) -> None:
    order = _order("memory only", 30)
    words = film_words(order, order_look(order))
    tl = _timeline(order)
    assert words.closing.lines[1] == "" and words.required == 1
    assert _shown_for_reading(tl, order.memory) == [_flat(order.memory)]
    assert any(s.kind == "photo" for s in tl.shots)


def test_a_500_character_memory_shows_whole_sentences_only() -> None:
    order = _order("memory500", 180)
    lines = [line for _, line in _customer_lines(_timeline(order))]
    assert lines and all(_flat(line) in _pieces(order.memory) for line in lines)
    assert len(lines) >= 2  # a long film shows more of it than its first sentence


@pytest.mark.parametrize("name", looks.look_names())
@pytest.mark.parametrize("style", ["gift", "brand", "social"])
def test_no_look_sets_a_role_smaller_than_a_phone_reads(name: str, style: str) -> None:
    look = looks.look(name, style)
    for role_name in ("occasion", "name", "greeting", "message", "sign"):
        size = getattr(look.roles, role_name).size
        for aspect in ASPECTS:
            share = size.portrait if aspect.height > aspect.width else size.landscape
            assert share * aspect.height >= type_min_px(aspect.width, aspect.height), \
                (name, style, role_name, aspect.name)


@pytest.mark.parametrize("words", [18, 40, 80])
def test_a_long_line_takes_more_lines_rather_than_type_a_phone_cannot_read(words: int) -> None:
    text = " ".join(["remembered"] * words)
    card = CardSpec("interlude", (text, ""), look="celebration")
    for aspect in ASPECTS:
        sizes = [b.size for b in text_layout(card, aspect.width, aspect.height)
                 if b.role != "rule"]
        assert min(sizes) >= type_min_px(aspect.width, aspect.height), aspect.name


def test_the_plan_says_how_much_of_a_long_memory_no_card_carries() -> None:
    order = _order("memory500", 67)
    notes = [n for n in film_plan(_spec(order)).notes if "customer's words" in n]
    assert len(notes) == 1 and notes[0].endswith("found no room between the pictures")
    assert order.memory[:40] not in notes[0]  # counts, never their words
    long = _order("memory only", 67)
    long = long.model_copy(update={"memory": long.memory + " " + "and then " * 40 + "home."})
    assert film_words(long, None).notes == (
        "their memory: 1 of its 2 sentences on no card (longer than the film's cards can hold "
        "for their reading time)",)
    assert film_words(_order("birthday", 67), None).notes == ()


def test_words_set_smaller_to_clear_a_face_never_go_below_what_a_phone_reads() -> None:
    card = CardSpec("closing", ("Happy Birthday, Mads", TEXTS["birthday"][1],
                                "From your friends at the pool hall"), look="celebration")
    for aspect in ASPECTS:
        at = (aspect.width / 2, aspect.height * 0.7, 0.4)  # a face fills the photo
        lay = layout_card(card, aspect.width, aspect.height, 0, at)
        assert min(line.size for line in lay.lines) >= type_min_px(aspect.width, aspect.height)
