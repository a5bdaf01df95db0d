"""The film as data: exact frame counts, cuts on beats, shot order (media.plan.timeline)."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from media.frames.blend import layer_weights
from media.plan import planner
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.pacing import SHOT_MAX_S
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import KEN_BURNS, PUSH, Shot, Timeline, timeline_from_dict
from media.plan.transitions import CROSSFADE, CUT
from media.song.compose import SongBrief, plan_song
from media.song.compose import beat_grid as beat_grid_of
from tests.helpers import (
    CLOSING,
    OPENING,
    beat_grid,
    check_structure,
    plan_clips,
    plan_photos,
    planned_film,
    signature_film,
)


@pytest.mark.parametrize("length", [30.0, 47.3, 180.0])
@pytest.mark.parametrize("style", ["gift", "brand", "social"])
def test_total_frames_exact(length: float, style: str) -> None:
    tl = planned_film(length=length, style=style)
    assert tl.total_frames == round(length * 30)
    check_structure(tl)


@pytest.mark.parametrize("length", [30.0, 47.3, 180.0])
@pytest.mark.parametrize("jitter", [0.0, 0.02])
def test_cuts_land_on_beats(length: float, jitter: float) -> None:
    beats = beat_grid(length, jitter=jitter)
    tl = planned_film(n_photos=12, n_clips=3, length=length, beats=beats)
    beat_frames = np.array([round(b * 30) for b in beats])
    for shot in tl.shots[1:]:
        assert np.abs(beat_frames - shot.cut_in).min() <= 1, shot


def test_cards_frame_the_film() -> None:
    tl = planned_film(length=60.0)
    opening, closing = tl.shots[0], tl.shots[-1]
    assert 3.95 - 0.05 <= opening.cut_out / 30 <= 3.95 + 0.65  # in, 2.5 s held, then out
    assert 4.65 - 0.05 <= (tl.total_frames - closing.cut_in) / 30 <= 4.65 + 0.65  # 3 s read
    assert opening.card == OPENING and closing.card == CLOSING


@pytest.mark.parametrize("length", [30.0, 60.0, 180.0])
def test_the_subject_opens_under_the_title_and_is_not_shown_again_straight_after(
        length: float) -> None:
    for subject in ("p0", "p3", "p7"):
        tl = planned_film(subject=subject, length=length)
        shown = [s.source_id for s in _showings(tl)]
        assert tl.shots[0].kind == "card" and tl.shots[0].source_id == subject
        assert tl.shots[1].source_id != subject  # the title was its opening showing
        assert subject not in shown[:len(set(shown)) - 1]  # it returns after all the others
        assert tl.subject_photo_id == subject
        closing = tl.shots[-1]
        assert closing.kind == "card" and closing.motion == KEN_BURNS
        if len(shown) > len(set(shown)):  # photos repeat anyway: the closing is its bookend
            assert closing.source_id == subject
        else:  # every photo once: the closing stands over the one the middle left to it
            assert closing.source_id not in {subject, *shown}


def test_clips_are_spread_through_the_film() -> None:
    tl = planned_film(n_photos=10, n_clips=3, length=60.0)
    middle = [s for s in tl.shots if s.kind != "card"]
    positions = [i for i, s in enumerate(middle) if s.kind == "clip"]
    assert len(positions) == 3
    assert positions[0] > 0 and positions[-1] < len(middle) - 1
    gaps = np.diff([0, *positions, len(middle) - 1])
    assert gaps.min() >= 2 and gaps.max() - gaps.min() <= 2
    for shot in middle:
        if shot.kind == "clip":
            assert shot.clip_start_s >= 0
            assert shot.clip_start_s + shot.frames / 30 <= 8.0 + 1e-6


def test_many_photos_each_get_two_seconds_on_beats() -> None:
    tl = planned_film(n_photos=40, n_clips=0, length=47.3, style="brand", subject="p0")
    shown = [s for s in tl.shots if s.kind == "photo"]
    assert len({s.source_id for s in shown}) == len(shown)  # no repeats
    closing = tl.shots[-1].source_id  # a photo with no room in the middle: none shown twice
    assert closing not in {"p0", *(s.source_id for s in shown), *tl.dropped_photo_ids}
    assert len(shown) + 2 + len(tl.dropped_photo_ids) == 40  # and the title's subject
    assert min(s.cut_out - s.cut_in for s in shown) >= round(1.6 * 30)
    assert sum(s.cut_out - s.cut_in for s in shown) / len(shown) >= 2.0 * 30 - 1


def test_few_photos_repeat_with_other_moves() -> None:
    tl = planned_film(n_photos=3, n_clips=0, length=60.0, motion_shots=99, subject="p1")
    shown = [s for s in tl.shots if s.kind == "photo"]
    assert len(shown) > 3
    for a, b in pairwise(shown):
        assert a.source_id != b.source_id
    for photo_id in ("p0", "p2"):
        choices = [s.motion_choice for s in shown if s.source_id == photo_id]
        assert len(choices) >= 2 and len(set(choices[:2])) == 2


def test_motion_shots_get_ken_burns_the_subject_first_and_the_rest_push() -> None:
    tl = planned_film(n_photos=8, n_clips=1, length=30.0, motion_shots=3)
    stills = [s for s in tl.shots if s.kind == "photo"]
    assert sum(s.motion == KEN_BURNS for s in stills) == 3
    assert all(s.motion in (KEN_BURNS, PUSH) for s in stills)
    assert all(s.motion == KEN_BURNS for s in stills if s.source_id == "p3")  # the subject
    low = planner.plan(FilmSpec(
        length_sec=30.0, photos=plan_photos(4, low_res=frozenset({0, 1, 2, 3})),
        recipe=MotionRecipe(motion_shots=4), words=FilmWords(opening=OPENING, closing=CLOSING),
        song=SongGrid(beat_times=beat_grid(30))))
    assert all(s.motion == PUSH for s in low.shots if s.kind == "photo")


def test_transitions_and_pacing_follow_style() -> None:
    gift = planned_film(length=60.0)
    gentle = planned_film(length=60.0, gentle=True)
    social = planned_film(length=60.0, style="social")
    kinds = {tl.style + str(tl.gentle): {s.transition_in.kind for s in tl.shots[1:]}
             for tl in (gift, gentle, social)}
    assert kinds == {"giftFalse": {CROSSFADE}, "giftTrue": {CROSSFADE}, "socialFalse": {CUT}}
    assert min(s.transition_in.frames for s in gentle.shots[1:]) > max(
        s.transition_in.frames for s in gift.shots[1:])  # gentle films dissolve slower
    assert all(13 <= s.transition_in.frames <= 17 for s in gift.shots[1:])
    assert len(gentle.shots) <= len(gift.shots) < len(social.shots)


def test_without_beats_or_media() -> None:
    tl = planned_film(length=47.3, beats=[])
    check_structure(tl)
    bare = planner.plan(FilmSpec(
        length_sec=12.0, words=FilmWords(opening=OPENING, closing=CLOSING)))
    check_structure(bare)
    assert [s.kind for s in bare.shots] == ["card", "card"]
    only_clips = planned_film(n_photos=0, n_clips=2, length=30.0, subject=None, clip_s=3.0)
    check_structure(only_clips)
    assert {s.kind for s in only_clips.shots[1:-1]} == {"clip"}


def test_short_film_keeps_everything() -> None:
    tl = planned_film(n_photos=2, n_clips=1, length=16.0, subject="p1", clip_s=4.0)
    check_structure(tl)
    assert [s.kind for s in tl.shots] == ["card", "photo", "clip", "card"]  # no repeat
    assert [s.source_id for s in tl.shots if s.kind != "clip"] == ["p1", "p0", "p1"]


def test_serializes_and_reads_back() -> None:
    tl = planned_film(n_photos=5, n_clips=2, length=30.0)
    data = dataclasses.asdict(tl)
    text = json.dumps(data, ensure_ascii=False)
    assert "Zoë O'Brien" in text
    assert timeline_from_dict(json.loads(tl.to_json())) == tl
    assert len(tl.describe().splitlines()) == len(tl.shots) + 1


@pytest.mark.parametrize("gentle", [False, True])
def test_layer_weights_cover_every_frame(gentle: bool) -> None:
    tl = planned_film(n_photos=6, n_clips=2, length=30.0, gentle=gentle)
    fade_in, fade_out = tl.fade_in_frames, tl.fade_out_frames
    black_run = longest = 0
    for frame in range(tl.total_frames):
        layers = layer_weights(tl, frame)
        total = sum(w for _, w in layers)
        assert total <= 1.0 + 1e-9 and len(layers) <= 2
        for index, _ in layers:
            assert tl.shots[index].visible_in <= frame < tl.shots[index].visible_out
        if not gentle and fade_in <= frame < tl.total_frames - fade_out:
            assert total == pytest.approx(1.0)
        black_run = black_run + 1 if total < 0.05 else 0
        longest = max(longest, black_run)
    assert longest <= 3


# --- cut like an editor: real beat grids, tone, pacing, arc, clip segments -------------------


def song_beats(style: str, gentle: bool, length: float) -> tuple[list[float], list[float]]:
    """The beat and bar grid (seconds) of the song media.song.compose would compose for this
    order."""
    slug, tone = ("pet-tribute", "gentle") if gentle else ("birthday", "joyful")
    brief = SongBrief(slug, tone, gentle, "Zoë", "your family", "the lake", "", ("warm",),
                      style, length)
    return beat_grid_of(plan_song(brief, 7))


@pytest.mark.parametrize(("style", "gentle"), [("gift", False), ("gift", True),
                                               ("social", False)])
@pytest.mark.parametrize("length", [30.0, 75.0])
def test_every_cut_is_on_a_real_songs_beat(style: str, gentle: bool, length: float) -> None:
    beats, bars = song_beats(style, gentle, length)
    tl = planner.plan(FilmSpec(
        length_sec=length, photos=plan_photos(12), clips=plan_clips(2), style=style, gentle=gentle,
        recipe=MotionRecipe(motion_shots=4), subject_photo_id="p3",
        words=FilmWords(opening=OPENING, closing=CLOSING),
        song=SongGrid(beat_times=beats, bar_times=bars)))
    check_structure(tl)
    beat_frames = np.array([b * 30 for b in beats])
    for shot in tl.shots[1:]:
        assert np.abs(beat_frames - shot.cut_in).min() <= 1.0, (style, gentle, shot)


def _solid_mix(tl: Timeline, frame: int) -> np.ndarray:
    """Frame ``frame`` of ``tl`` where shot i is a flat colour (shot-specific, bright)."""
    colours = [np.array([200, 40 + 20 * (i % 8), 255 - 25 * (i % 8)], np.float64)
               for i in range(len(tl.shots))]
    return sum((colours[i] * w for i, w in layer_weights(tl, frame)), np.zeros(3))


def test_gentle_cuts_never_dip_to_a_near_black_frame() -> None:
    tl = planned_film(n_photos=6, n_clips=1, length=45.0, gentle=True)
    for shot in tl.shots[1:]:
        assert shot.transition_in.kind == CROSSFADE and shot.transition_in.frames >= 30
        half = shot.transition_in.frames // 2
        for frame in range(shot.cut_in - half - 1, shot.cut_in + half + 1):
            # every shot is a bright flat colour: a dissolve between two stays as bright
            assert _solid_mix(tl, frame).max() > 0.9 * 200, (shot, frame)


def test_gift_cuts_crossfade_two_shots() -> None:
    tl = planned_film(n_photos=6, n_clips=1, length=45.0)
    for i, shot in enumerate(tl.shots[1:], start=1):
        assert shot.transition_in.kind == CROSSFADE
        layers = dict(layer_weights(tl, shot.cut_in))
        assert set(layers) == {i - 1, i}
        assert layers[i - 1] == pytest.approx(0.5, abs=0.1)
        assert sum(layers.values()) == pytest.approx(1.0)


def test_social_cuts_hard_and_quicker_than_gift() -> None:
    gift = planned_film(n_photos=8, n_clips=2, length=60.0)
    social = planned_film(n_photos=8, n_clips=2, length=60.0, style="social")
    many = planned_film(n_photos=20, n_clips=2, length=60.0)  # the pacing, not the hold, decides
    gentle = planned_film(n_photos=20, n_clips=2, length=60.0, gentle=True)

    def mean_shot(tl: Timeline) -> float:
        middle = tl.shots[1:-1]
        return sum(s.cut_out - s.cut_in for s in middle) / len(middle) / tl.fps

    assert all(s.transition_in.kind == CUT for s in social.shots[1:])
    assert mean_shot(social) < 0.8 * mean_shot(gift)
    assert mean_shot(many) < 0.8 * mean_shot(gentle)


def _traits(face: float, size: tuple[int, int], glow: float, i: int) -> PhotoSource:
    return PhotoSource(f"p{i}", *size, False, face_fraction=face,
                       brightness=glow, warmth=0.0, saturation=0.0)


def test_arc_opens_on_subject_alternates_and_ends_warm() -> None:
    wide, tall = (4000, 3000), (3000, 4000)
    given = [_traits(0.3, tall, 0.4, 0), _traits(0.35, tall, 0.4, 1),
             _traits(0.3, tall, 0.4, 2), _traits(0.0, wide, 0.3, 3),
             _traits(0.0, wide, 0.9, 4), _traits(0.0, wide, 0.4, 5),
             _traits(0.4, tall, 0.5, 6)]
    # 26 s: a middle of seven shots (cards take at most 15%), so no photo repeats
    tl = planner.plan(FilmSpec(
        length_sec=26.0, photos=given, recipe=MotionRecipe(motion_shots=2), subject_photo_id="p6",
        words=FilmWords(opening=OPENING, closing=CLOSING), song=SongGrid(beat_times=beat_grid(26))))
    order = [s.source_id for s in tl.shots if s.kind == "photo"]
    assert tl.shots[0].source_id == "p6" and order[0] != "p6"  # the title opens on the subject
    assert tl.shots[-1].source_id == "p4"  # the warmest and brightest under the closing
    assert sorted(["p6", *order, "p4"]) == sorted(p.id for p in given)  # each once
    by_id = {p.id: p for p in given}
    closes = [by_id[i].close for i in order]
    assert sum(a == b for a, b in pairwise(closes)) <= 2  # close and wide alternate


def test_repeated_photos_never_end_on_the_closing_photo() -> None:
    tl = planned_film(n_photos=3, n_clips=0, length=60.0, subject="p1")
    order = [s.source_id for s in tl.shots if s.kind == "photo"]
    assert tl.shots[0].source_id == "p1"  # under the title
    assert len(order) > 3 and order[0] != "p1" and order[-1] != "p1"  # the closing's photo
    assert all(a != b for a, b in pairwise(["p1", *order]))


def test_clip_shot_starts_on_its_best_stretch() -> None:
    scores = tuple([0.0] * 10 + [0.9] * 25 + [0.1] * 5)  # 8 s sampled every 0.2 s: good 2-7 s
    clip = ClipSource("c0", 8.0, 1920, 1080, True, scores, 0.2)
    tl = planner.plan(FilmSpec(
        length_sec=30.0, photos=plan_photos(7), clips=[clip], recipe=MotionRecipe(motion_shots=1),
        subject_photo_id="p0", words=FilmWords(opening=OPENING, closing=CLOSING),
        song=SongGrid(beat_times=beat_grid(30))))
    shot = next(s for s in tl.shots if s.kind == "clip")
    assert shot.clip_start_s >= 2.0 - 1e-6
    assert shot.clip_start_s + shot.frames / 30 <= 7.0 + 1e-6


def test_planner_loads_neither_opencv_nor_pillow() -> None:
    probe = ("import json, sys\n"
             "import media.plan.planner\n"
             "print(json.dumps(sorted(m for m in sys.modules "
             "if m.split('.')[0] in ('cv2', 'PIL'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True, cwd=Path(__file__).resolve().parents[3])
    assert json.loads(done.stdout) == []


def _showings(tl: Timeline) -> list[Shot]:
    return [s for s in tl.shots if s.kind == "photo"]


@pytest.mark.parametrize(("n_photos", "length", "gentle"), [(6, 30.0, False), (7, 30.0, False),
                                                           (6, 35.0, True), (5, 38.0, False)])
def test_photos_hold_up_to_six_seconds_before_any_repeats(
        n_photos: int, length: float, gentle: bool) -> None:
    tl = planned_film(n_photos=n_photos, n_clips=0, length=length, gentle=gentle, subject="p0")
    shown = [s.source_id for s in _showings(tl)]
    closing = tl.shots[-1].source_id
    others = sorted(f"p{i}" for i in range(1, n_photos))  # the subject opened the title
    middle_s = (tl.shots[-1].cut_in - tl.shots[0].cut_out) / tl.fps
    holds = math.ceil(middle_s / (7.0 if gentle else 6.0))
    if closing == "p0":  # the middle shows every other photo, then repeats
        assert sorted(shown[:n_photos - 1]) == others  # each once before any again
        assert len(shown) == max(n_photos - 1, holds)
    else:  # one shot fewer holds no longer: the closing shows the last photo, none twice
        assert sorted([*shown, closing]) == others
        assert holds <= len(shown)


@pytest.mark.parametrize("n_photos", [1, 3, 7])
def test_a_long_film_from_few_photos_spaces_every_repeat_ten_seconds(n_photos: int) -> None:
    tl = planned_film(n_photos=n_photos, n_clips=0, length=180.0, subject="p0")
    hold = 6.0 * 1.3 + 1.0  # the subject's longer hold, and a beat of snapping
    if n_photos <= 3:  # too few new pictures for 6 s shots: the house's longest instead
        hold = SHOT_MAX_S + 1.0
    shots = _showings(tl)
    singles = [s for s in shots if not s.partner_id]
    assert max(s.cut_out - s.cut_in for s in singles) <= hold * tl.fps
    for shot in shots:  # a shot of two or three photos holds a little longer (the look's)
        assert shot.cut_out - shot.cut_in <= (hold * 1.6 + 1.0) * tl.fps
    if n_photos < 3:
        return
    last: dict[str, int] = {}
    for s in shots[:-1]:  # the closer ends the film wherever its last showing was
        if s.source_id in last:
            assert s.cut_in - last[s.source_id] >= 10 * tl.fps
        last[s.source_id] = s.cut_in


def test_without_a_chosen_subject_the_largest_face_opens_and_closes() -> None:
    given = [dataclasses.replace(p, face_fraction=f) for p, f in
             zip(plan_photos(4), (0.0, 0.1, 0.3, 0.0), strict=True)]
    tl = planner.plan(FilmSpec(
        length_sec=30.0, photos=given, recipe=MotionRecipe(motion_shots=2),
        words=FilmWords(opening=OPENING, closing=CLOSING), song=SongGrid(beat_times=beat_grid(30))))
    assert tl.shots[0].source_id == "p2" and tl.subject_photo_id == "p2"
    assert _showings(tl)[0].source_id != "p2"


@pytest.mark.parametrize("length", [30.0, 60.0, 180.0])
def test_the_signature_title_is_a_sequence_cut_on_the_beats_over_three_photos(
        length: float) -> None:
    tl = signature_film(length=length)
    title = tl.shots[:3]
    assert [s.kind for s in title] == ["card"] * 3
    assert [s.card.part for s in title] == ["occasion", "name", ""]
    assert title[0].card.lines == (OPENING.lines[0], "")  # the occasion alone
    assert title[1].card.lines == ("", OPENING.lines[1])  # then the name alone
    assert title[2].card == OPENING and title[2].source_id == "p3"  # the lockup: the subject
    assert len({s.source_id for s in title}) == 3
    beats = {round(b * 30) for b in beat_grid(length)}
    for shot in title[1:]:
        assert shot.transition_in.kind == CUT and shot.cut_in in beats
    for shot in title[:2]:
        assert shot.cut_out - shot.cut_in >= 0.75 * 30  # a beat or two each, never a flash
    assert title[2].cut_out - title[2].cut_in >= (0.8 + 2.5 + 0.4) * 30  # the lockup reads
    assert tl.shots[3].source_id not in {s.source_id for s in title}  # no back-to-back photo
    check_structure(tl)


def test_the_standard_title_is_a_single_shot_over_the_subject() -> None:
    tl = planned_film(length=30.0)
    assert tl.shots[0].card == OPENING and tl.shots[0].source_id == "p3"
    assert tl.shots[1].kind != "card"


def test_a_signature_film_of_one_photo_keeps_a_single_title_shot() -> None:
    tl = planner.plan(FilmSpec(
        length_sec=30.0, photos=plan_photos(1), recipe=MotionRecipe(motion_shots=3, premium=True),
        subject_photo_id="p0", words=FilmWords(opening=OPENING, closing=CLOSING),
        song=SongGrid(beat_times=beat_grid(30))))
    assert [s.kind for s in tl.shots].count("card") == 2
    check_structure(tl)


@pytest.mark.parametrize("length", [30.0, 30.5, 47.3, 90.0, 119.99, 120.0, 179.5, 180.0])
@pytest.mark.parametrize("gentle", [False, True])
def test_a_signature_film_has_exactly_its_frames(length: float, gentle: bool) -> None:
    tl = signature_film(length=length, gentle=gentle)
    assert tl.total_frames == round(length * 30)
    check_structure(tl)


@pytest.mark.parametrize("n_photos", [1, 2, 3])
@pytest.mark.parametrize("length", [4.0, 30.0])
def test_even_a_film_of_few_shots_never_shows_the_titles_photo_straight_after_it(
        n_photos: int, length: float) -> None:
    tl = planned_film(n_photos=n_photos, n_clips=0, length=length, subject="p0")
    assert tl.shots[0].source_id == "p0"
    if n_photos > 1:  # a one-photo film explores its one photo, framed anew each time
        assert tl.shots[1].source_id != "p0"
