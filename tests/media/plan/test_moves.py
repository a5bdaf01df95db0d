"""Camera moves and transitions chosen per shot from the photo and the song (media.plan.moves,
media.plan.timeline): the vocabulary, never the same move twice in a row, transitions by section,
chorus cuts on downbeats, cards at most 15% of the film."""

from __future__ import annotations

import dataclasses
from itertools import pairwise

import numpy as np
import pytest

from media.cards.spec import CardSpec
from media.design.reading import TITLE_HOLD_S, message_hold_s
from media.plan import planner
from media.plan.inputs import PhotoSource
from media.plan.moves import (
    MOVE_VOCABULARY,
    PAN,
    PULL_OUT,
    PUSH_IN,
    TILT,
    PhotoLook,
    choose_moves,
    section_at,
    section_frames,
)
from media.plan.pacing import card_lengths, film_look, pacing_of
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import FULL_MOTIONS, PARALLAX, Timeline
from media.plan.transitions import CROSSFADE, CUT, DIP
from media.song.compose import SongBrief, beat_grid, plan_song
from media.song.compose import _sections as song_sections

OPENING = CardSpec("opening", ("Happy Birthday", "Eileen"))
CLOSING = CardSpec("closing", ("From all of us", "Forty years young"))


def _photo(i: int, size: tuple[int, int], focus: tuple[float, float] = (0.5, 0.5),
           face: float = 0.0) -> PhotoSource:
    return PhotoSource(f"p{i}", *size, False, face_fraction=face,
                       focus_x=focus[0], focus_y=focus[1])


def _mixed_photos(n: int) -> list[PhotoSource]:
    sizes = [(4000, 3000), (3000, 4000), (4000, 4000), (4032, 2268)]
    focus = [(0.5, 0.5), (0.8, 0.4), (0.3, 0.8), (0.5, 0.3)]
    return [_photo(i, sizes[i % 4], focus[(i * 3) % 4], 0.3 * (i % 3 == 0)) for i in range(n)]


def _song(gentle: bool, length: float) -> tuple[list[float], list[float], list]:
    slug, tone = ("pet-tribute", "gentle") if gentle else ("birthday", "joyful")
    brief = SongBrief(slug, tone, gentle, "Eileen", "your family", "the roof", "", ("bright",),
                      "gift", length)
    song = plan_song(brief, 7)
    beats, bars = beat_grid(song)
    return beats, bars, song_sections(song)


def _film(length: float = 30.0, *, gentle: bool = False, premium: bool = False,
          n_photos: int = 8, motion_shots: int = 6,
          matte: float = 0.0) -> tuple[Timeline, list[float], list]:
    beats, bars, sections = _song(gentle, length)
    photos = [dataclasses.replace(p, matte=matte) for p in _mixed_photos(n_photos)]
    tl = planner.plan(FilmSpec(
        length_sec=length, photos=photos, gentle=gentle,
        recipe=MotionRecipe(motion_shots=motion_shots, premium=premium), subject_photo_id="p0",
        words=FilmWords(opening=OPENING, closing=CLOSING),
        song=SongGrid(beat_times=beats, bar_times=bars, sections=sections)))
    return tl, bars, sections


@pytest.mark.parametrize("gentle", [False, True])
@pytest.mark.parametrize("length", [30.0, 60.0, 180.0])
def test_no_two_photo_shots_in_a_row_share_a_move(gentle: bool, length: float) -> None:
    tl, _, _ = _film(length, gentle=gentle, n_photos=12)
    moves = [s.move for s in tl.shots if s.kind == "photo"]
    assert all(m in MOVE_VOCABULARY for m in moves)
    assert all(a != b for a, b in pairwise(moves)), moves


def test_the_film_uses_the_whole_move_vocabulary() -> None:
    tl, _, _ = _film(60.0, n_photos=12, motion_shots=99)
    assert {s.move for s in tl.shots if s.kind == "photo"} == set(MOVE_VOCABULARY)


def test_moves_suit_the_photo() -> None:
    wide = PhotoLook(4032, 2268, 0.8, 0.5)
    tall = PhotoLook(3000, 4000, 0.5, 0.8)
    low = PhotoLook(800, 800, 0.5, 0.5, low_res=True)
    assert choose_moves([wide], ["verse"], False, [True]) == [PAN]
    assert choose_moves([tall], ["verse"], False, [True]) == [TILT]
    assert choose_moves([low], ["verse"], False, [True]) == [PUSH_IN]  # square, low-res
    low_wide = PhotoLook(640, 427, 0.5, 0.5, low_res=True)  # still pans across, sometimes
    assert PAN in choose_moves([low_wide] * 4, ["verse"] * 4, False, [False] * 4)
    assert choose_moves([wide], ["verse"], False, [False]) == [PAN]  # gently, still toward it
    close = PhotoLook(3000, 3000, 0.5, 0.5, close=True)
    assert choose_moves([close], ["verse"], True, [True]) == [PULL_OUT]  # gentle: reveal
    # a clip between two photos does not reset the rule
    assert choose_moves([wide, None, wide], ["verse"] * 3, False, [True] * 3)[2] != PAN


def test_signature_films_add_parallax_on_top_of_moves() -> None:
    tl, _, _ = _film(30.0, premium=True, matte=0.8)  # photos whose subjects separate cleanly
    photo_shots = [s for s in tl.shots if s.kind == "photo"]
    assert any(s.motion == PARALLAX for s in photo_shots)
    assert all(s.move for s in photo_shots if s.motion in FULL_MOTIONS)


def test_transitions_follow_the_song_sections() -> None:
    tl, bars, sections = _film(60.0, n_photos=14)
    parts = section_frames(sections, tl.fps, tl.total_frames)
    bar_frames = {round(b * tl.fps) for b in bars}
    kinds = set()
    for before, shot in pairwise(tl.shots):
        if "card" in (before.kind, shot.kind):
            continue
        name = section_at(parts, shot.cut_in)
        kinds.add(shot.transition_in.kind)
        if name == "chorus":
            assert shot.transition_in.kind == CUT
            assert shot.cut_in in bar_frames  # a chorus cuts on the downbeat
        else:
            assert shot.transition_in.kind == CROSSFADE  # a verse (or bridge) dissolves
    assert kinds == {CUT, CROSSFADE}
    assert len({s.transition_in.frames for s in tl.shots[1:]}) >= 2  # not one length for all


def test_gentle_films_dissolve_slowly_and_slower_where_a_section_changes() -> None:
    tl, _, sections = _film(60.0, gentle=True, n_photos=10)
    parts = section_frames(sections, tl.fps, tl.total_frames)
    # never through black; a soft dip, not a dissolve, between two faces (no ghost)
    assert {s.transition_in.kind for s in tl.shots[1:]} <= {CROSSFADE, DIP}
    faced = {f"p{i}" for i in range(10) if i % 3 == 0}
    assert all(shot.transition_in.kind == DIP for before, shot in pairwise(tl.shots)
               if {before.source_id, shot.source_id} <= faced)
    inside, changes = [], []
    for before, shot in pairwise(tl.shots[1:-1]):
        if shot.transition_in.kind != CROSSFADE:
            continue
        changed = (section_at(parts, shot.cut_in)
                   != section_at(parts, (before.cut_in + shot.cut_in) // 2))
        room = min(before.cut_out - before.cut_in, shot.cut_out - shot.cut_in)
        if shot.transition_in.frames < 2 * (room // 4):  # not shortened to fit the shots
            (changes if changed else inside).append(shot.transition_in.frames)
    assert inside and changes
    assert min(changes) > max(inside)  # a section change dissolves slower
    assert all(s.transition_in.frames >= 30 for s in tl.shots[1:]  # slow: a second or more
               if s.transition_in.kind == CROSSFADE)


@pytest.mark.parametrize("gentle", [False, True])
@pytest.mark.parametrize("length", [30.0, 45.0, 60.0, 180.0])
def test_cards_take_what_reading_needs_and_at_most_a_beat_more_each(gentle: bool,
                                                                   length: float) -> None:
    tl, _, _ = _film(length, gentle=gentle)
    cards = [s for s in tl.shots if s.kind == "card"]
    assert len(cards) == 2
    pacing = pacing_of(film_look("gift", gentle))
    hold = message_hold_s(" ".join(CLOSING.lines))
    opening_s, closing_s = card_lengths(TITLE_HOLD_S, hold, pacing.transition_s, pacing.fade_s)
    beat = float(np.median(np.diff(tl.beat_frames)))
    opening, closing = cards[0].cut_out, tl.total_frames - cards[1].cut_in
    assert opening_s * tl.fps - 1 <= opening <= opening_s * tl.fps + max(beat, 18) + 1
    assert closing_s * tl.fps - 1 <= closing <= closing_s * tl.fps + max(beat, 18) + 1


def test_the_timeline_names_its_subject_and_grade() -> None:
    tl, _, _ = _film(30.0, gentle=True)
    assert tl.subject_photo_id == "p0" and tl.grade == "gentle"
    assert _film(30.0)[0].grade == "natural"
