"""The film spec (media.plan.spec): written as JSON and read back equal, planned again from that
JSON into the same film, made without a file on disk, and the song's stored grid read typed."""

from __future__ import annotations

import json

import pytest

from media.cards.spec import CardSpec
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.planner import plan
from media.plan.spec import (
    FilmSpec,
    FilmWords,
    LeftOut,
    MotionRecipe,
    SongGrid,
    SongSection,
)
from media.song.compose import SongBrief, beat_grid, plan_song
from media.song.compose import _sections as song_sections

OPENING = CardSpec("opening", ("Happy Birthday", "Eileen"), look="celebration")
CLOSING = CardSpec("closing", ("Happy Birthday, Eileen", "Forty and still dancing",
                               "From all of us"), "#C0392B", look="celebration")
INTERLUDE = CardSpec("interlude", ("The roof in June, the whole street singing along.", ""),
                     look="celebration")


def _song(length: float) -> SongGrid:
    song = plan_song(SongBrief("birthday", "joyful", False, "Eileen", "your family", "the roof",
                               "", ("bright",), "gift", length), 7)
    beats, bars = beat_grid(song)
    return SongGrid(beat_times=beats, bar_times=bars, sections=song_sections(song),
                    lyrics=("Eileen on the roof", "forty and still dancing"))


def _spec(length: float = 75.0, premium: bool = True) -> FilmSpec:
    photos = [PhotoSource(f"p{i:02d}", *size, i == 5, face_fraction=0.25 if i in (0, 3) else 0.0,
                          brightness=0.4 + 0.05 * i, focus_x=0.3 + 0.05 * i, hold_w=0.2,
                          hold_h=0.3, matte=0.8 if i == 3 else 0.0, with_subject=i == 4,
                          subject_box=(0.1, 0.2, 0.4, 0.6) if i == 4 else None)
              for i, size in enumerate([(4000, 3000), (3000, 4000), (4032, 2268)] * 3)]
    return FilmSpec(
        length_sec=length, family="celebration", look="celebration", grade="natural+finish",
        recipe=MotionRecipe(motion_shots=6, premium=premium), photos=photos,
        clips=[ClipSource("c01", 8.0, 1920, 1080, True, (0.1, 0.9, 0.4), 0.5)],
        left_out=[LeftOut(id="p10", reason="not_an_image")], subject_photo_id="p00",
        near_duplicates=[("p02", "p07")],
        words=FilmWords(opening=OPENING, closing=CLOSING, interludes=(INTERLUDE,)),
        song=_song(length))


@pytest.mark.parametrize("premium", [False, True])
def test_a_spec_reads_back_from_its_json_equal(premium: bool) -> None:
    spec = _spec(premium=premium)
    again = FilmSpec.from_json(spec.to_json())
    assert again == spec
    assert again.to_json() == spec.to_json()
    assert again.song.sections[0] == SongSection("intro", 0.0, again.song.sections[0].end_s)
    assert again.photos[4].subject_box == (0.1, 0.2, 0.4, 0.6)
    assert again.words.interludes == (INTERLUDE,)


@pytest.mark.parametrize(("length", "premium"), [(30.0, False), (75.0, True), (180.0, True)])
def test_a_saved_spec_plans_the_same_film(length: float, premium: bool) -> None:
    spec = _spec(length, premium)
    saved = FilmSpec.from_json(spec.to_json())
    assert plan(saved).to_json() == plan(spec).to_json()


def test_the_spec_holds_no_path_and_the_plan_reads_its_grade_and_look() -> None:
    spec = _spec()
    assert "/" not in json.dumps([json.loads(spec.to_json())["photos"],
                                  json.loads(spec.to_json())["clips"]])
    timeline = plan(spec)
    assert timeline.grade == "natural+finish"
    assert (timeline.style, timeline.gentle) == (spec.style, spec.gentle)
    assert plan(spec.model_copy(update={"grade": ""})).grade == "natural"  # the look's own


def test_the_songs_stored_metadata_reads_as_its_grid() -> None:
    stored = json.loads(json.dumps({
        "tempo_bpm": 120.0, "key": "C major", "beat_times": [0.0, 0.5, 1.0, 1.5, 2.0],
        "bar_times": [0.0, 2.0], "sections": [("intro", 0.0, 2.0), ("chorus", 2.0, 4.0)],
        "lyrics": ["a line"], "lyrics_sung": False, "provider": "local", "candidates": [],
        "chosen": None}))
    grid = SongGrid.from_song_meta(stored)
    assert grid.beat_times == (0.0, 0.5, 1.0, 1.5, 2.0) and grid.bar_times == (0.0, 2.0)
    assert grid.sections == (SongSection("intro", 0.0, 2.0), SongSection("chorus", 2.0, 4.0))
    assert grid.lyrics == ("a line",)
    bare = SongGrid.from_song_meta({"beat_times": [], "bar_times": []})
    assert bare.sections == () and bare.lyrics == ()


def test_a_film_under_three_seconds_is_refused() -> None:
    with pytest.raises(ValueError, match="too short"):
        plan(FilmSpec(length_sec=2.0, words=FilmWords(opening=OPENING, closing=CLOSING)))
