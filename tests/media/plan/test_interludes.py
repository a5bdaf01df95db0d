"""The customer's words through a long film: interludes in the plan (media.plan.interludes,
media.plan.timeline) and the lines they carry (media.cards.wording.interlude_lines)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from itertools import pairwise

import pytest

from media.cards.spec import CardSpec
from media.cards.wording import InterludeLine, feeling_line, interlude_lines
from media.design import looks
from media.design.reading import TEXT_EXIT_S, WORDS_IN_S, message_hold_s
from media.plan import planner
from media.plan.inputs import PhotoSource
from media.plan.interludes import interlude_count
from media.plan.pacing import card_seconds, film_look
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline, timeline_from_dict
from media.song.compose import SongBrief, beat_grid, plan_song

LOOK = "romance"
OPENING = CardSpec("opening", ("Happy Anniversary", "Lene & Mads"), look=LOOK)
STORY = "Ten years of trips, toasts and long summer evenings by the sea."
MEMORY = ("The July morning in Skagen when you stood with a foot in each sea and watched "
          "the waves meet.")
CLOSING = CardSpec("closing", ("Happy Anniversary, Lene & Mads", STORY, "From your friends"),
                   look=LOOK)
INTERLUDES = (CardSpec("interlude", (MEMORY, ""), look=LOOK),
              CardSpec("interlude", ("", "grateful · warm · tender"), look=LOOK))
RULES = looks.look(LOOK).interlude
FPS = 30


def _photos(n: int = 7) -> list[PhotoSource]:
    return [PhotoSource(f"p{i}", 4000, 3000, False,
                        face_fraction=0.15 if i in (1, 4) else 0.0) for i in range(n)]


def _song(length: float) -> tuple[list[float], list[float], list[tuple[str, float, float]]]:
    """The beats, bars and sections (seconds) of the song composed for this film's cards."""
    opening_s, closing_s = card_seconds(length, CLOSING, film_look("gift", False, CLOSING.look))
    song = plan_song(SongBrief("anniversary", "romantic", False, "Lene", "friends", MEMORY,
                               STORY, ("warm",), "gift", length, opening_s, closing_s), 7)
    beats, bars = beat_grid(song)
    sections = [(name, start * song.bar_s,
                 song.length_sec if name == "ending" else (start + n) * song.bar_s)
                for name, start, n in song.form]
    return beats, bars, sections


def _film(length: float, interludes: tuple[CardSpec, ...] = INTERLUDES,
          n_photos: int = 7) -> Timeline:
    beats, bars, sections = _song(length)
    return planner.plan(FilmSpec(
        length_sec=length, photos=_photos(n_photos), look=OPENING.look,
        recipe=MotionRecipe(motion_shots=4), subject_photo_id="p3",
        words=FilmWords(opening=OPENING, closing=CLOSING, interludes=interludes),
        song=SongGrid(beat_times=beats, bar_times=bars, sections=sections)))


def _interludes(tl: Timeline) -> list[int]:
    return [i for i, s in enumerate(tl.shots) if s.card is not None
            and s.card.kind == "interlude"]


@pytest.mark.parametrize(("length", "count"), [(30.0, 0), (45.0, 0), (60.0, 1), (90.0, 1),
                                               (119.5, 1), (120.0, 2), (180.0, 2)])
def test_a_film_gets_interludes_by_its_length(length: float, count: int) -> None:
    assert interlude_count(length, RULES) == count
    assert len(_interludes(_film(length))) == count


@pytest.mark.parametrize("length", [60.0, 90.0, 120.0, 150.0, 180.0])
def test_interludes_sit_between_runs_of_pictures_on_the_songs_bars(length: float) -> None:
    tl = _film(length)
    beats, bars, _ = _song(length)
    bar_frames = {round(b * FPS) for b in bars}
    beat_frames = {round(b * FPS) for b in beats}
    between = RULES.pictures_between_s * FPS
    cards = [i for i, s in enumerate(tl.shots) if s.kind == "card"]
    for i in _interludes(tl):
        shot = tl.shots[i]
        assert tl.shots[i - 1].kind == "photo" and tl.shots[i + 1].kind == "photo"
        assert shot.cut_in in bar_frames, "an interlude starts on a bar"
        assert shot.cut_out in beat_frames, "and ends on the beat (a bar where in reach)"
    for a, b in pairwise(cards):
        assert tl.shots[b].cut_in - tl.shots[a].cut_out >= between, (a, b)


@pytest.mark.parametrize("length", [60.0, 120.0, 180.0])
def test_an_interlude_holds_its_words_long_enough_to_read(length: float) -> None:
    tl = _film(length)
    for i in _interludes(tl):
        shot, after = tl.shots[i], tl.shots[i + 1]
        words_in = shot.cut_in + shot.transition_in.frames // 2 + WORDS_IN_S * FPS
        words_out = after.transition_in.start(after.cut_in) - TEXT_EXIT_S * FPS
        text = " ".join(line for line in shot.card.lines if line)
        assert (words_out - words_in) / FPS >= message_hold_s(text) - 1e-6


@pytest.mark.parametrize("length", [60.0, 120.0, 180.0])
def test_the_middle_stays_mostly_pictures(length: float) -> None:
    tl = _film(length)
    middle = tl.shots[-1].cut_in - tl.shots[0].cut_out
    words = sum(tl.shots[i].cut_out - tl.shots[i].cut_in for i in _interludes(tl))
    assert words <= RULES.share_max * middle


def test_interludes_carry_the_lines_verbatim_best_first() -> None:
    tl = _film(120.0)
    assert [tl.shots[i].card.lines for i in _interludes(tl)] == [(MEMORY, ""),
                                                                 ("", "grateful · warm · tender")]


@pytest.mark.parametrize("length", [60.0, 120.0, 180.0])
def test_an_interlude_sits_over_a_photo_not_shown_within_ten_seconds(length: float) -> None:
    tl = _film(length)
    apart = RULES.photo_apart_s * FPS
    behind = [tl.shots[i].source_id for i in _interludes(tl)]
    assert all(behind) and len(set(behind)) == len(behind)
    for i in _interludes(tl):
        shot = tl.shots[i]
        for other in tl.shots:
            if other.kind == "photo" and other.source_id == shot.source_id:
                assert other.cut_in >= shot.cut_out + apart or \
                    other.cut_out <= shot.cut_in - apart, (shot, other)


def test_an_interlude_prefers_the_subject_photo_where_it_is_not_shown_nearby() -> None:
    tl = _film(120.0)
    backs = [tl.shots[i].source_id for i in _interludes(tl)]
    assert "p3" in backs  # the subject, where its mid-film showing is not within 10 s


def test_a_film_without_words_gets_no_interludes() -> None:
    assert interlude_lines(("", "  "), "", [], 9.0, 180.0) == ()
    tl = _film(180.0, interludes=())
    assert _interludes(tl) == []
    assert [s.kind for s in tl.shots].count("card") == 2


@pytest.mark.parametrize("length", [60.0, 89.97, 120.0, 133.33, 180.0])
def test_the_frame_count_stays_exact_with_interludes(length: float) -> None:
    tl = _film(length)
    assert tl.total_frames == round(length * FPS)
    assert tl.shots[0].cut_in == 0 and tl.shots[-1].cut_out == tl.total_frames
    assert all(a.cut_out == b.cut_in for a, b in pairwise(tl.shots))


def test_a_film_from_one_photo_still_gets_its_interludes() -> None:
    tl = _film(120.0, n_photos=1)
    assert len(_interludes(tl)) == 2
    assert tl.total_frames == 3600


def test_a_plan_with_interludes_reads_back_from_json() -> None:
    tl = _film(120.0)
    again = timeline_from_dict(json.loads(tl.to_json()))
    assert again == tl
    assert again.shots[_interludes(tl)[0]].card.kind == "interlude"


def test_interlude_lines_are_the_customers_unused_text_then_feelings_never_a_song_line() -> None:
    # the story is on the closing: the memory comes first (required from 45 s), the song's
    # lines that quote them are sung, never shown; feeling words last
    assert interlude_lines((STORY, MEMORY), STORY, ["grateful", "warm"], 9.0, 60.0) == \
        (InterludeLine(MEMORY, True, True), InterludeLine("grateful · warm", False))
    assert interlude_lines((STORY, MEMORY), STORY, [], 9.0, 30.0) == \
        (InterludeLine(MEMORY, True),)  # a 30 s film with the story on its closing
    assert interlude_lines((STORY, ""), "", [], 9.0, 30.0) == \
        (InterludeLine(STORY, True, True),)  # the closing carries none: one is required
    assert interlude_lines(("", ""), "", [], 9.0, 180.0) == ()


def test_interlude_lines_are_never_cut_nor_rewritten() -> None:
    messy = "  We  laughed   all the way\nhome.  "
    assert interlude_lines((messy,), "", [], 9.0, 60.0) == \
        (InterludeLine("We laughed all the way home.", True, True),)
    too_long = " ".join(["word"] * 40)
    assert interlude_lines((too_long,), "", [], 9.0, 60.0) == ()


def test_a_text_too_long_for_a_card_shows_its_first_whole_sentence_then_the_others() -> None:
    first = "He taught us both to play pool in the basement, and he never once let us win."
    second = "Every Sunday he made pancakes shaped like the letters of our names."
    third = " ".join(["And"] + ["then"] * 25) + "."
    lines = interlude_lines((f"{first} {second}  {third}",), "", [], 8.0, 60.0)
    assert lines == (InterludeLine(first, True, True), InterludeLine(second, True))


def test_a_sentence_too_long_for_any_card_shows_its_first_whole_clauses() -> None:
    long = ("We drove to the lake every summer, " + "and " * 30 + "we swam until dark.")
    lines = interlude_lines((long,), "", [], 9.0, 60.0)
    assert lines == (InterludeLine("We drove to the lake every summer,", True, True),)


def test_feeling_words_become_one_short_line_as_typed() -> None:
    assert feeling_line(["Grateful", " warm ", "", "warm", "a whole sentence of feelings"]) == \
        "Grateful · warm"
    assert feeling_line([]) == ""


def test_every_look_sets_its_interlude_words_and_rules() -> None:
    for name in looks.look_names():
        for style in ("gift", "brand", "social"):
            look = looks.look(name, style)
            assert look.roles.interlude is not None, name
            assert look.motion.interlude is not None, name
            assert math.isclose(look.interlude.from_s[0], 60.0)


@pytest.mark.parametrize("length", [30.0 + 5.0 * k for k in range(31)]
                         + [59.99, 60.01, 119.99, 120.01, 179.99])
def test_every_length_sold_keeps_its_frames_and_its_rules(length: float) -> None:
    tl = _film(length)
    assert tl.total_frames == round(length * FPS)
    assert all(a.cut_out == b.cut_in and b.cut_out > b.cut_in for a, b in pairwise(tl.shots))
    assert len(_interludes(tl)) == interlude_count(length, RULES)
    for i in _interludes(tl):
        assert tl.shots[i - 1].kind == tl.shots[i + 1].kind == "photo"


@pytest.mark.parametrize("length", [30.0, 45.0])
def test_a_required_interlude_is_placed_where_the_looks_rules_leave_no_room(
        length: float) -> None:
    beats, bars, sections = _song(length)
    # shorter than 45 s the closing carries none of their texts when one must go between
    closing = CLOSING if length >= 45 else replace(CLOSING, lines=(CLOSING.lines[0], "",
                                                                   CLOSING.lines[2]))
    spec = FilmSpec(
        length_sec=length, photos=_photos(), look=OPENING.look,
        recipe=MotionRecipe(motion_shots=4), subject_photo_id="p3",
        words=FilmWords(opening=OPENING, closing=closing, interludes=INTERLUDES, required=1),
        song=SongGrid(beat_times=beats, bar_times=bars, sections=sections))
    tl = planner.plan(spec)
    assert interlude_count(length, RULES) == 0
    assert [tl.shots[i].card for i in _interludes(tl)] == [INTERLUDES[0]]  # not the feelings
    index = _interludes(tl)[0]
    assert tl.shots[index - 1].kind == "photo" and tl.shots[index + 1].kind == "photo"
    assert tl.total_frames == round(length * FPS)
