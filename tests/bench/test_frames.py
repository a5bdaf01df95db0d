"""The frame-level bench's pieces on synthetic frames (nothing rendered): registration finds a
photo's placement, OCR reads a card's words at phone size, repeats and the worst films."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from bench.corpus import registration as reg
from bench.corpus.frames import (
    OrderResult,
    Showing,
    corpus_orders,
    lines_read,
    phone_view,
    reads,
    repeat_failures,
    summarized,
    text_band,
    worst,
)
from bench.corpus.orders import LABELS, corpus_root
from bench.text_reads import installed_languages, ocr_languages, words

pytestmark = pytest.mark.bench

REPO = Path(__file__).resolve().parents[2]
PHOTO = REPO / "samples" / "birthday" / "photos" / "04-three-friends.jpg"
SUNSET = REPO / "samples" / "birthday" / "photos" / "07-summit-sunset.jpg"
FONT = REPO / "media" / "cards" / "assets" / "fonts" / "NotoSans-Bold.ttf"


def _photo() -> np.ndarray:
    grey = cv2.imread(str(PHOTO), cv2.IMREAD_GRAYSCALE)
    return cv2.resize(grey, (800, round(800 * grey.shape[0] / grey.shape[1])),
                      interpolation=cv2.INTER_AREA)


def _framed(photo: np.ndarray, crop: tuple[int, int, int, int], scale: float,
            shift: tuple[int, int], size: tuple[int, int] = (960, 540)) -> np.ndarray:
    """A frame showing ``crop`` (x0, y0, x1, y1) of ``photo`` scaled by ``scale`` with its
    top-left at ``shift`` on a plain ground, graded a little darker."""
    x0, y0, x1, y1 = crop
    part = cv2.resize(photo[y0:y1, x0:x1], None, fx=scale, fy=scale,
                      interpolation=cv2.INTER_LINEAR)
    frame = np.full((size[1], size[0]), 40, np.uint8)
    h = min(part.shape[0], size[1] - shift[1])
    w = min(part.shape[1], size[0] - shift[0])
    frame[shift[1]:shift[1] + h, shift[0]:shift[0] + w] = part[:h, :w]
    return np.clip(frame.astype(np.float32) * 0.9 + 5, 0, 255).astype(np.uint8)


def test_registration_finds_a_cropped_scaled_shifted_photo_on_a_frame() -> None:
    photo = _photo()
    crop, scale, shift = (120, 60, 620, 400), 1.3, (150, 40)
    frame = _framed(photo, crop, scale, shift)
    placement = reg.register(reg.features(photo), reg.features(frame))
    assert placement is not None
    expected = np.array([[shift[0] + (x - crop[0]) * scale, shift[1] + (y - crop[1]) * scale]
                         for x, y in ((200, 100), (500, 300), (300, 350))])
    found = placement.project(np.array([[200, 100], [500, 300], [300, 350]]))
    assert np.abs(found - expected).max() < 3.0
    assert placement.scale() == pytest.approx(scale, rel=0.03)


def test_a_core_inside_the_crop_is_whole_one_on_its_edge_is_cut_one_outside_absent() -> None:
    photo = _photo()
    crop = (120, 60, 620, 400)
    frame = _framed(photo, crop, 1.3, (150, 40))
    placement = reg.register(reg.features(photo), reg.features(frame))
    assert placement is not None
    shown = reg.shown_region(photo, frame, placement)
    assert reg.core_shown((300, 150, 400, 250), placement, shown) > 0.9
    assert 0.3 < reg.core_shown((570, 150, 670, 250), placement, shown) < 0.7
    assert reg.core_shown((680, 150, 760, 250), placement, shown) < 0.1


def test_words_drawn_over_a_core_leave_it_covered() -> None:
    photo = _photo()
    frame = _framed(photo, (120, 60, 620, 400), 1.3, (150, 40))
    placement = reg.register(reg.features(photo), reg.features(frame))
    assert placement is not None
    x0, y0 = np.round(placement.project(np.array([[300, 150]]))[0]).astype(int)
    x1, y1 = np.round(placement.project(np.array([[400, 250]]))[0]).astype(int)
    covered = frame.copy()
    covered[y0:y1, x0:(x0 + x1) // 2] = 250  # a white title over the core's left half
    shown = reg.shown_region(photo, covered, placement)
    assert reg.core_shown((300, 150, 400, 250), placement, shown) < 0.7


def test_a_frame_without_the_photo_registers_nothing() -> None:
    rng = np.random.default_rng(1)
    noise = cv2.GaussianBlur(rng.integers(0, 255, (540, 960), dtype=np.uint8), (5, 5), 0)
    assert reg.register(reg.features(_photo()), reg.features(noise)) is None


def _card_frame(text: str | None) -> np.ndarray:
    image = Image.new("RGB", (960, 540), (70, 60, 55))
    if text:
        ImageDraw.Draw(image).text((480, 330), text, font=ImageFont.truetype(str(FONT), 40),
                                   fill=(250, 245, 235), anchor="mm")
    return np.asarray(image)


@pytest.mark.ocr
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="needs Debian's tesseract-ocr")
def test_ocr_reads_a_cards_words_back_at_phone_size_in_their_band() -> None:
    want = words("Forty, still laughing.")
    view = phone_view(_card_frame("Forty, still laughing."), 844)
    band = text_band(view, want, "eng")
    assert band is not None
    top, bottom = band
    assert top < 0.62 * view.shape[0] < bottom and bottom - top < 0.5 * view.shape[0]
    assert reads(view, band, want, 1.0, 844, "eng")
    assert not reads(phone_view(_card_frame(None), 844), band, want, 1.0, 844, "eng")


def test_han_and_kana_are_compared_a_sign_at_a_time_and_latin_a_word_at_a_time() -> None:
    assert words("誕生日おめとう, Mads!") == ["誕", "生", "日", "お", "め", "と", "う", "mads"]
    assert words("Café DÉJÀ") == ["cafe", "deja"]


def test_a_text_is_read_in_its_scripts_languages_or_not_judged_without_them() -> None:
    if "eng" in installed_languages():
        assert ocr_languages("Happy birthday, Mads! 🎉") == "eng"
        assert ocr_languages("🎉 2026") == "eng"  # digits and emoji alone: any language reads them
    if {"eng", "rus"} <= installed_languages():
        assert ocr_languages("С днём рождения, Mads") == "rus+eng"
    assert ocr_languages("ሰላም") is None  # Ethiopic: no tesseract language for it here


@pytest.mark.ocr
@pytest.mark.skipif("rus" not in installed_languages(),
                    reason="needs Debian's tesseract-ocr-rus")
def test_a_cyrillic_card_reads_back_in_its_language() -> None:
    text = "С днём рождения"
    want, lang = words(text), ocr_languages(text)
    assert lang is not None
    view = phone_view(_card_frame(text), 844)
    assert reads(view, text_band(view, want, lang), want, 1.0, 844, lang)
    assert not reads(view, None, want, 1.0, 844, "eng")



@pytest.mark.ocr
@pytest.mark.skipif(shutil.which("tesseract") is None, reason="needs Debian's tesseract-ocr")
def test_a_large_name_over_a_busy_photo_reads_at_the_phones_own_size() -> None:
    # the signature's lead shot: a name 60 px tall on the phone over a sunlit field, plain to
    # the eye; tesseract reads nothing of it doubled, as it does small type
    sunset = Image.open(SUNSET).convert("RGB")
    frame = sunset.crop((0, 0, sunset.height * 9 // 16, sunset.height)).resize((540, 960))
    frame = Image.fromarray((np.asarray(frame) * 0.7).astype(np.uint8))
    ImageDraw.Draw(frame).text((270, 780), "Mads", font=ImageFont.truetype(str(FONT), 120),
                               fill=(250, 245, 235), anchor="mm")
    view = phone_view(np.asarray(frame), 390)
    assert reads(view, text_band(view, ["mads"], "eng"), ["mads"], 1.0, 390, "eng")

def test_a_photo_shown_again_before_the_others_and_back_to_back_is_caught() -> None:
    groups = {"p01": "a", "p02": "b", "p03": "c"}
    shows = [Showing(1, ("p01",), ("p01",)), Showing(2, ("p02",), ("p02",)),
             Showing(3, ("p02",), ("p02",)), Showing(5, ("p03",), ("p01",)),
             Showing(6, ("p03",), ("p03",))]
    checks = repeat_failures(shows, groups)
    assert checks["first_round"] == ["#3 shows b again before 1 unseen"]
    assert checks["no_back_to_back"] == ["#2->#3 b"]
    assert checks["shots_as_planned"] == ["#5 plans p03 shows p01"]


def test_near_duplicates_count_as_one_photo_and_one_photo_films_are_not_judged() -> None:
    shows = [Showing(1, ("p01",), ("p01",)), Showing(3, ("p01",), ("p02",))]
    checks = repeat_failures(shows, {"p01": "a", "p02": "a"})
    assert checks["first_round"] is None and checks["no_back_to_back"] is None
    assert checks["shots_as_planned"] == []


def _result(name: str, **fails: int) -> OrderResult:
    checks: dict[str, list[str] | None] = {"faces_whole": None, "words_read": []}
    checks.update({k: ["x"] * n for k, n in fails.items()})
    return OrderResult(name, checks)


def test_the_worst_films_fail_most_invariants_then_most_often() -> None:
    results = [_result("clean"), _result("one-many", faces_whole=9),
               _result("two", faces_whole=1, words_read=1), _result("one-few", words_read=2),
               _result("two-more", first_round=1, no_back_to_back=3)]
    assert [r.name for r in worst(results, 3)] == ["two-more", "two", "one-many"]
    assert "clean" not in [r.name for r in worst(results)]


def test_a_faces_frames_on_one_shot_are_told_once() -> None:
    lines = ["16x9   3.0s #1 card p01: face core 86% shown, cut by the frame's edge",
             "16x9   4.0s #1 card p01: face core 29% shown, cut by the frame's edge",
             "9x16   4.0s #1 card p01: face core 50% shown, cut by the frame's edge",
             "16x9 #2 opening read 1.0 s"]
    assert summarized(lines) == [
        "16x9 #1 card p01: 2 cores over 3.0-4.0 s, 29-86 % of a core shown, cut by the frame's "
        "edge",
        "9x16 #1 card p01: 1 cores over 4.0-4.0 s, 50-50 % of a core shown, cut by the frame's "
        "edge",
        "16x9 #2 opening read 1.0 s"]


def test_the_frame_bench_renders_the_corpus_the_generator_made_with_todays_labels(
        tmp_path: Path) -> None:
    """The bench once named its corpus without the labels' digest and rendered an older
    generation, whose truth no longer matched the labels file."""
    assert corpus_orders(tmp_path) == corpus_root(tmp_path) / "orders"
    assert LABELS.read_bytes()  # the labels file the corpus's name digests


ARABIC_MEMORY = REPO / "tests" / "fixtures" / "ocr" / "arabic-memory-9x16.png"
"""A 9:16 memory card as the film showed it (a corpus order's, at a phone's 390 px): two lines
of Arabic set large on a plain ground."""


@pytest.mark.ocr
@pytest.mark.skipif("ara" not in installed_languages(),
                    reason="needs Debian's tesseract-ocr-ara")
def test_a_two_line_arabic_memory_reads_back_line_by_line_where_the_page_read_skips_one() -> None:
    text = "صباح الشتاء عند البحر عندما ضحكنا حتى بكينا."
    want, lang = words(text), ocr_languages(text)
    assert lang is not None
    frame = cv2.cvtColor(cv2.imread(str(ARABIC_MEMORY)), cv2.COLOR_BGR2RGB)
    second_line = set(words("عندما ضحكنا حتى بكينا."))
    assert second_line <= set(words(" ".join(lines_read(frame, lang))))
    view = phone_view(frame, 390)
    assert reads(view, text_band(view, want, lang), want, 1.0, 390, lang)


def test_a_shot_registered_as_a_crop_of_its_planned_photo_shows_what_was_planned() -> None:
    # p02 is a close-up cut from p01: a frame of the one registers as the other
    groups = {"p01": "a", "p02": "b", "p03": "c"}
    shows = [Showing(1, ("p01",), ("p02",)), Showing(3, ("p03",), ("p03",)),
             Showing(5, ("p03",), ("p01",))]
    checks = repeat_failures(shows, groups, {"p01": "pic", "p02": "pic", "p03": "other"})
    assert checks["shots_as_planned"] == ["#5 plans p03 shows p01"]


def test_a_few_picture_films_first_round_is_complete_once_every_picture_was_shown() -> None:
    # p01 (the title's picture) again between a photo and its crop, as the plan spreads them
    groups = {"p01": "a", "p02": "b", "p03": "c"}
    pictures = {"p01": "one", "p02": "two", "p03": "two"}
    shows = [Showing(1, ("p01",), ("p01",)), Showing(2, ("p02",), ("p02",)),
             Showing(3, ("p01",), ("p01",)), Showing(4, ("p03",), ("p03",))]
    assert repeat_failures(shows, groups, pictures)["first_round"] == []
    assert repeat_failures(shows, groups)["first_round"] == ["#3 shows a again before 1 unseen"]
