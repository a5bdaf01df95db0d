"""``bench.reading_holds`` on hand-made OCR results (no film decoded, no tesseract)."""

from __future__ import annotations

from pathlib import Path

from bench.reading_holds import Text, film_texts, reads, stretches

REPO = Path(__file__).resolve().parents[2]


def test_a_stretch_bridges_one_missed_sample_but_not_two() -> None:
    times = [k * 0.2 for k in range(12)]
    hits = [True, True, False, True, True, False, False, True, False, False, False, True]
    found = stretches(times, hits, 0.2)
    assert [(round(a, 2), round(b, 2)) for a, b in found] == [(0.0, 1.0), (1.4, 0.2),
                                                              (2.2, 0.2)]


def test_a_message_reads_at_nine_tenths_of_its_words_and_a_name_only_whole() -> None:
    message = Text("closing", "one two three four five six seven eight nine ten", 4.3)
    assert reads(message, {"one", "two", "three", "four", "five", "six", "seven", "eight",
                           "nine"})
    assert not reads(message, {"one", "two", "three", "four", "five", "six", "seven"})
    name = Text("title name", "Lene & Mads", 2.5, every_word=True)
    assert reads(name, {"lene", "mads"}) and not reads(name, {"mads"})


def test_the_birthday_samples_texts_are_its_title_closing_and_interlude_lines() -> None:
    texts = {t.role: t for t in film_texts(REPO / "samples" / "birthday")}
    assert texts["title name"].text == "Mads" and texts["title name"].needs_s == 2.5
    assert "Mads" in texts["closing"].text
    assert texts["feeling words"].optional and texts["feeling words"].needs_s == 3.0
