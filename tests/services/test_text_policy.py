"""The gate's word list: obfuscation is seen through, innocent words pass, time stays linear."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from services.text_policy import (
    BUILTIN_WORDS_PATH,
    PolicyHit,
    WordList,
    find_abuse,
    fold,
    load_word_list,
    parse_word_list,
)

BUILTIN = load_word_list()


@pytest.mark.parametrize("text", [
    "kike", "KIKE", "Kikes", "you kike!", "k1ke", "k!k3", "kiiiike", "k i k e", "k.i.k.e",
    "k - i - k - e", "K_I_K_E", "a k i k e", "ｋｉｋｅ", "𝐤𝐢𝐤𝐞", "кіке", "ki\u200bke",
    "kí\u0301ke", "ki\u00adke",
    "$pic", "s p 1 c", "n1gg3r", "N I G G E R S", "wetbacks", "go kill yourself",
    "Go-kill-yourself!!", "gokillyourself", "g o k i l l y o u r s e l f", "D1E in a f1re",
    "line one\ngo   kill\nyourself",
])
def test_obfuscated_entries_are_found(text: str) -> None:
    assert BUILTIN.match(text) is not None, text


@pytest.mark.parametrize("text", [
    "sniggering", "Niger", "Nigeria", "spice", "conspicuous", "Mom's pic of us", "Pakistani food",
    "skiker", "wetbackpack", "don't kill yourself working so hard", "go kill your time",
    "Die Hard in a fireplace", "Zoë O'Brien", "李小龍", "1 2 3 4 5", "",
])
def test_innocent_text_passes(text: str) -> None:
    assert BUILTIN.match(text) is None, text


def test_the_scunthorpe_problem_is_avoided() -> None:
    words = WordList(["cunt", "ass"])
    for innocent in ("Scunthorpe", "Penistone and Scunthorpe", "class", "assassin", "bass",
                     "a s s i s t", "Mass."):
        assert words.match(innocent) is None, innocent
    assert words.match("you c.u.n.t") == "cunt"
    assert words.match("c u n t s") == "cunt"


def test_a_doubled_letter_of_an_entry_must_be_doubled_in_the_text() -> None:
    words = WordList(["kill"])
    assert words.match("kil") is None
    assert words.match("kiiilll") == "kill"
    assert words.match("k1ll") == "kill"
    assert words.match("ki|1") == "kill"


def test_entries_are_folded_like_the_text() -> None:
    words = WordList(["  Ünïcode Wörd  ", "ＦＵＬＬ"])
    assert words.entries == ("Ünïcode Wörd", "ＦＵＬＬ")
    assert words.match("unicode word") == "Ünïcode Wörd"
    assert words.match("full") == "ＦＵＬＬ"
    assert fold("ÀÉÎ\u200d") == "aei"


def test_every_field_that_matches_is_reported_and_masked() -> None:
    hits = find_abuse({"recipient_name": "Ada", "memory": "k i k e", "feeling_words.2": "sp1c"},
                      BUILTIN)
    assert hits == [PolicyHit("memory", "kike"), PolicyHit("feeling_words.2", "spic")]
    assert [hit.masked_entry for hit in hits] == ["k**e", "s**c"]


def test_word_list_sources(tmp_path: Path) -> None:
    listed = tmp_path / "words.txt"
    listed.write_text("# ops list\n\nbadword\n  other thing  \n", encoding="utf-8")

    assert load_word_list(None).entries == load_word_list("  ").entries
    assert load_word_list(None).entries == tuple(
        parse_word_list(BUILTIN_WORDS_PATH.read_text(encoding="utf-8")))
    assert load_word_list("foo, bar baz ,,").entries == ("foo", "bar baz")
    assert load_word_list(str(listed)).entries == ("badword", "other thing")
    off = load_word_list("/dev/null")
    assert len(off) == 0 and off.match("kike") is None
    with pytest.raises(OSError):
        load_word_list(str(tmp_path / "missing.txt"))


def test_the_built_in_list_is_small_and_only_holds_clear_slurs_and_threats() -> None:
    assert 5 <= len(BUILTIN) <= 50
    assert BUILTIN.match("kill") is None and BUILTIN.match("die") is None


def test_hostile_text_is_matched_in_linear_time() -> None:
    rng = random.Random(5)
    worst = [" ".join(rng.choice("1|!") for _ in range(250)), "1 " * 250, "|1" * 250,
             "k" * 500, " ".join(rng.choice("kikespc") for _ in range(250))]
    started = time.monotonic()
    for text in worst:
        BUILTIN.match(text)
    assert time.monotonic() - started < 15.0  # catastrophic backtracking would take hours
