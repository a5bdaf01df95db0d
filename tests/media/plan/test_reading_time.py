"""Every word on a card stays fully visible for its reading time, and is gone before the picture
under it changes (media.design.reading, media.plan.beat_snap, media.cards.wording)."""

from __future__ import annotations

import pytest

from media.cards.spec import CardSpec
from media.cards.wording import OccasionWords, closing
from media.design.reading import (
    TEXT_EXIT_S,
    TITLE_HOLD_S,
    TITLE_IN_S,
    WORDS_IN_S,
    message_hold_s,
)
from media.plan import planner
from media.plan.beat_snap import CARD_SNAP_REACH_S
from media.plan.pacing import CARD_SHARE_MAX, card_seconds, closing_budget_s, film_look
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from tests.helpers import OPENING, beat_grid, plan_clips, plan_photos

ANNIVERSARY = OccasionWords(
    slug="anniversary", greeting="Happy Anniversary", tone="romantic", gentle=False,
    name="Ana & Tomás", relationship="Our parents",
    lines=("Thirty years of lake evenings, slow breakfasts and music in the living room.",
           "You met renting the last rowing boat at the lake one September evening, and you "
           "still go back every year."))


def _film(length: float, style: str, gentle: bool):
    words = closing(ANNIVERSARY, closing_budget_s(length, film_look(style, gentle)))
    card = CardSpec("closing", words.lines, None, gentle, style)
    return planner.plan(FilmSpec(
        length_sec=length, photos=plan_photos(8), clips=plan_clips(1), style=style, gentle=gentle,
        recipe=MotionRecipe(motion_shots=3), subject_photo_id="p0",
        words=FilmWords(opening=OPENING, closing=card),
        song=SongGrid(beat_times=beat_grid(length)))), words


@pytest.mark.parametrize("length", [30.0, 45.0, 60.0, 90.0, 120.0, 180.0])
@pytest.mark.parametrize(("style", "gentle"), [("gift", False), ("social", False),
                                               ("brand", False), ("gift", True)])
def test_the_title_holds_its_reading_time_and_leaves_before_the_picture_changes(
        length: float, style: str, gentle: bool) -> None:
    tl, _ = _film(length, style, gentle)
    first_photo = tl.shots[1]
    dissolve_starts = first_photo.transition_in.start(first_photo.cut_in)
    # at rest once its entrance is over (TITLE_IN_S), until its words start to fade out
    fully_visible_s = (dissolve_starts / tl.fps) - TEXT_EXIT_S - TITLE_IN_S
    assert fully_visible_s >= TITLE_HOLD_S - 1 / tl.fps


@pytest.mark.parametrize("length", [30.0, 45.0, 60.0, 90.0, 120.0, 180.0])
@pytest.mark.parametrize(("style", "gentle"), [("gift", False), ("social", False),
                                               ("brand", False), ("gift", True)])
def test_the_closing_words_hold_their_reading_time_before_the_film_fades(
        length: float, style: str, gentle: bool) -> None:
    tl, words = _film(length, style, gentle)
    last = tl.shots[-1]
    all_in = last.cut_in + last.transition_in.frames // 2 + WORDS_IN_S * tl.fps
    fade_starts = tl.total_frames - tl.fade_out_frames
    assert (fade_starts - all_in) / tl.fps >= message_hold_s(" ".join(
        line for line in words.lines if line)) - 1 / tl.fps


def test_a_long_film_closes_with_the_customers_own_line_verbatim() -> None:
    _, words = _film(90.0, "gift", False)
    assert words.message == ANNIVERSARY.lines[0]


@pytest.mark.parametrize(("style", "gentle"), [("gift", False), ("social", False),
                                               ("brand", False), ("gift", True)])
def test_a_30_second_film_closes_with_the_customers_own_line_when_it_can_be_read(
        style: str, gentle: bool) -> None:
    _, words = _film(30.0, style, gentle)
    assert words.greeting == "Happy Anniversary, Ana & Tomás"
    assert words.message == ANNIVERSARY.lines[0]


def test_a_line_too_long_to_read_in_a_30_second_film_is_left_out_not_cut() -> None:
    long_line = " ".join(["and the summer by the lake"] * 6)
    words = closing(OccasionWords(**{**ANNIVERSARY.__dict__, "lines": (long_line,)}),
                    closing_budget_s(30.0, film_look("gift", False)))
    assert words.greeting == "Happy Anniversary, Ana & Tomás" and words.message == ""


@pytest.mark.parametrize(("style", "gentle"), [("gift", False), ("social", False),
                                               ("brand", False), ("gift", True)])
def test_a_30_second_films_closing_lasts_what_its_words_need_and_a_beat_at_most(
        style: str, gentle: bool) -> None:
    # the customer's line in the closing is the one a 30 s film promises: its reading time
    # (1 + W / 3 s) sets the card; only the snap onto a bar may add to it, and the two cards
    # together stay within half the film
    tl, words = _film(30.0, style, gentle)
    look = film_look(style, gentle)
    _, needed_s = card_seconds(30.0, CardSpec("closing", words.lines, None, gentle, style), look)
    beat_s = max(CARD_SNAP_REACH_S, 60.0 / 112)  # beat_grid's tempo
    closing_s = (tl.shots[-1].cut_out - tl.shots[-1].cut_in) / tl.fps
    assert closing_s <= needed_s + beat_s + 1 / tl.fps
    opening_s = (tl.shots[0].cut_out - tl.shots[0].cut_in) / tl.fps
    assert opening_s + closing_s <= CARD_SHARE_MAX * 30.0 + 2 * beat_s
