"""An interlude reads on a phone: each sample's interludes (one sample per look), drawn over its
photo mid-hold as the film draws them (I420), downscaled to a phone's size and read back by
tesseract, give the customer's line word for word (see test_read_on_a_phone for the method)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from activities.order_plan import cards_for, interlude_cards
from app.order_folder import read_order_folder
from media.analysis.subjects import find_subject
from media.base import spec, yuv
from media.cards.draw import render_card_image
from media.cards.motion import card_frame
from media.cards.spec import CardSpec
from media.frames.compose import subject_cover
from media.frames.sources import load_photo
from tests.media.cards.films import rgb_frame, sample_film, words_rows
from tests.media.cards.ocr import PHONE_WIDTH, folded_words, ocr_at_width

REPO = Path(__file__).resolve().parents[3]
LENGTH_S = 120.0

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None,
                                reason="tesseract-ocr not installed (make test installs it)")


def _interludes(sample: str, tmp_path: Path) -> tuple[tuple[CardSpec, ...], np.ndarray]:
    folder = tmp_path / sample
    shutil.copytree(REPO / "samples" / sample, folder)
    fields = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    fields["length_sec"] = LENGTH_S
    (folder / "order.json").write_text(json.dumps(fields), encoding="utf-8")
    order, _ = read_order_folder(folder)
    _, closing = cards_for(order)
    photo = load_photo(sorted((folder / "photos").iterdir())[0])
    return interlude_cards(order, closing), photo


# Since both faces of the anniversary's toast are found whole (issue 42), its 9:16 cover sits
# about 10 px further left: "grateful" is as legible to the eye, but its "l" lies over the
# wine glass's highlight and tesseract reads "gratefu" at phone size. The words' placement off
# the subject's highlights is the cards' to fix.
BORDERLINE = pytest.mark.xfail(strict=True, reason="tesseract reads 'gratefu' over the glass")


@pytest.mark.parametrize("sample", ["birthday", pytest.param("anniversary", marks=BORDERLINE),
                                    "pet-tribute"])
def test_an_interlude_reads_back_the_customers_words_at_phone_size(sample: str,
                                                                  tmp_path: Path) -> None:
    cards, photo = _interludes(sample, tmp_path)
    assert cards, "a 120 s film of this sample carries words between its pictures"
    subject = find_subject(photo)
    for card in cards[:2]:
        wanted = [w for line in card.lines for w in folded_words(line)]
        for aspect in spec.ASPECTS:
            back = subject_cover(photo, subject, aspect.width, aspect.height)
            image = render_card_image(card, aspect.width, aspect.height, back)
            mid_hold = yuv.i420_to_rgb(card_frame(image, 3.0, 8.0, 0.4))
            read = ocr_at_width(mid_hold, PHONE_WIDTH[aspect.name])
            found = [w for w in wanted if w in read]
            assert len(found) == len(wanted), (sample, aspect.name, wanted, read)


def test_the_interludes_carry_what_the_closing_did_not() -> None:
    order, _ = read_order_folder(REPO / "samples" / "anniversary")
    order = order.model_copy(update={"length_sec": LENGTH_S})
    _, closing = cards_for(order)
    cards = interlude_cards(order, closing)
    assert closing.lines[1] == order.story_note
    assert cards[0].lines == (order.memory, "")
    assert cards[0].kind == "interlude" and cards[0].look == closing.look
    assert all(order.story_note not in card.lines for card in cards)


# Open (issue 30): read by eye at phone size, but tesseract misses one letter.
KNOWN_MISREADS = {"anniversary": "the feeling words over the bar photo: 'grateful' reads "
                                 "'erateful' (its g's descender over the lamps)"}


@pytest.mark.parametrize("sample", ["birthday", "anniversary", "pet-tribute"])
def test_every_interlude_over_its_photo_reads_back_word_for_word_for_its_whole_hold(
        sample: str, tmp_path: Path) -> None:
    film = sample_film(sample, tmp_path, length=LENGTH_S)
    interludes = [(i, s) for i, s in film.cards() if s.card.kind == "interlude"]
    assert len(interludes) == 2
    for index, shot in interludes:
        prepared, frames = film.hold_frames(index)
        wanted = [w for line in shot.card.lines for w in folded_words(line)]
        for aspect in spec.ASPECTS:
            for frame in frames:
                read = ocr_at_width(rgb_frame(prepared, aspect, frame), PHONE_WIDTH[aspect.name],
                            words_rows(prepared, aspect))
                found = [w for w in wanted if w in read]
                if len(found) < len(wanted) and sample in KNOWN_MISREADS:
                    pytest.xfail(KNOWN_MISREADS[sample])
                assert len(found) == len(wanted), (sample, aspect.name, frame, wanted, read)


def test_a_short_line_is_set_larger_than_a_long_one() -> None:
    from media.cards.text import text_layout

    long_line = CardSpec("interlude", ("", "a line long enough to be read as a sentence"),
                         look="celebration")
    short_line = CardSpec("interlude", ("", "grateful · bright · playful"), look="celebration")
    for aspect in spec.ASPECTS:
        sizes = [max(b.size for b in text_layout(card, aspect.width, aspect.height))
                 for card in (long_line, short_line)]
        assert sizes[1] >= 1.4 * sizes[0], (aspect.name, sizes)
