"""The song's words: whole clauses from any brief, grammar for any relationship text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from media.song.lyrics import clauses, clean, memory_clause, relationship_noun, write_lyrics
from media.song.plan import SongBrief

WORDS = ["the", "night", "we", "watched", "launch", "from", "roof", "you", "slept", "on", "warm",
         "camera", "bag", "my", "and", "with", "pizza", "at", "mission", "control", "of",
         "summer", "drove", "to", "coast", "Anna", "<script>", "😀", "海边", "—", "when"]
SEPARATORS = [" ", " ", " ", ", ", ". ", "; ", " - ", "\n", "!", "…"]


def _text(draw: st.DrawFn, max_words: int) -> str:
    count = draw(st.integers(0, max_words))
    parts = [draw(st.sampled_from(WORDS)) + draw(st.sampled_from(SEPARATORS))
             for _ in range(count)]
    return "".join(parts) + draw(st.text(max_size=20))


@st.composite
def briefs(draw: st.DrawFn) -> SongBrief:
    gentle = draw(st.booleans())
    return SongBrief(
        occasion_slug=draw(st.sampled_from(["birthday", "pet-tribute", "memorial",
                                            "anniversary", "other"])),
        tone="joyful", gentle=gentle, recipient_name=draw(st.text(max_size=50)),
        relationship=_text(draw, 8), memory=_text(draw, 60), story_note=_text(draw, 80),
        feeling_words=tuple(draw(st.lists(st.text(max_size=20), max_size=4))),
        style="gift", length_sec=60.0)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(briefs())
def test_lyric_lines_use_only_whole_clauses_of_the_brief(brief: SongBrief) -> None:
    lines = write_lyrics(brief)
    assert 4 <= len(lines) <= 8 and all(line.strip() for line in lines)
    chosen = memory_clause(brief)
    if chosen:
        whole = clauses(brief.memory) + clauses(brief.story_note)
        assert any(clause.endswith(chosen) for clause in whole), "a whole clause, never cut"
        assert len(chosen.split()) <= 10 and len(chosen) <= 56
        last = chosen.split()[-1].lower()
        assert last not in {"the", "from", "at", "of", "my", "and", "to", "with", "when"}
        assert any(chosen[1:] in line for line in lines)
    rel = relationship_noun(brief.relationship)
    if rel:
        assert rel.lower() in clean(brief.relationship).lower()
        assert not {"from", "at", "of", "all", "us"} & {w.lower() for w in rel.split()}


def test_a_group_signature_is_not_read_as_a_possessive() -> None:
    brief = SongBrief("birthday", "joyful", False, "Max", "From all of us at mission control",
                      "Remember the night we watched the launch from the roof, with pizza", "",
                      ("happy",), "gift", 60.0)
    lines = write_lyrics(brief)
    assert not any(line.startswith("My From") for line in lines)
    assert "Remember the night we watched the launch from the roof?" in lines
    assert "You mean the world to us" in lines


def test_a_story_note_clause_stands_as_its_own_line() -> None:
    brief = SongBrief("pet-tribute", "tender", True, "Biscuit", "dog", "",
                      "You slept on the warm camera bag. Always there.", (), "gift", 60.0)
    assert "You slept on the warm camera bag" in write_lyrics(brief)


def test_a_memory_too_long_to_sing_falls_back_to_a_neutral_line() -> None:
    long_memory = ("The afternoon we walked all the way around the lake and back again "
                   "without stopping once")
    brief = SongBrief("birthday", "joyful", False, "Anna", "sister", long_memory, "", (),
                      "gift", 60.0)
    lines = write_lyrics(brief)
    assert not any("lake" in line for line in lines)
    assert "My sister, you mean the world to me" in lines
