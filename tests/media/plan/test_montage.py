"""What the signature tier adds to the plan: parallax on the photos that separate cleanly, the
chorus as a montage cut on the beat entered through a warm light, and the same animal counting
as the subject (media.plan.montage, media.plan.timeline)."""

from __future__ import annotations

import dataclasses
import json
from itertools import pairwise

import pytest

from media.cards.spec import CardSpec
from media.design import looks
from media.plan import planner
from media.plan.inputs import PARALLAX_MATTE_MIN, PhotoSource
from media.plan.montage import MONTAGE_MIN_S, LightLeak, piece_beats
from media.plan.moves import CHORUS, Section, section_frames
from media.plan.shot_order import REPEAT_SPACING_S, SUBJECT_HOLD, Slot, photo_slots
from media.plan.shots import PARALLAX_MIN_S, _parallax_slots
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import PARALLAX, ROLL, Timeline, timeline_from_dict
from media.plan.transitions import CROSSFADE
from media.song.compose import SongBrief, beat_grid, plan_song
from media.song.compose import _sections as song_sections
from tests.media.plan.test_timeline import check_structure
from workflows.contract import LENGTH_MAX_SEC, LENGTH_MIN_SEC

OPENING = CardSpec("opening", ("Happy Birthday", "Eileen"))
CLOSING = CardSpec("closing", ("From all of us", "Forty years young"))
GENTLE_OPENING = CardSpec("opening", ("In Loving Memory", "Honey"), gentle=True)
GENTLE_CLOSING = CardSpec("closing", ("Forever in our hearts",), gentle=True)
# The signature's title sequence (the occasion alone, then the name) lengthens the title and so
# moves every cut of the middle: the montage is compared with the standard plan under a title
# of the name alone, which has no sequence (tests/media/cards/ and test_timeline test it).
NAME_ONLY = {False: CardSpec("opening", ("", "Eileen")),
             True: CardSpec("opening", ("", "Honey"), gentle=True)}


def _photos(n: int, mattes: dict[int, float] | None = None,
            faces: frozenset[int] = frozenset({0, 3})) -> list[PhotoSource]:
    sizes = [(4000, 3000), (3000, 4000), (4000, 4000), (4032, 2268)]
    return [PhotoSource(f"p{i}", *sizes[i % 4], False,
                        face_fraction=0.25 if i in faces else 0.0,
                        matte=(mattes or {}).get(i, 0.0)) for i in range(n)]


def _song(length: float, gentle: bool = False, seed: int = 7) -> tuple[list, list, list]:
    slug, tone = ("pet-tribute", "tender") if gentle else ("birthday", "joyful")
    brief = SongBrief(slug, tone, gentle, "Eileen", "your family", "the roof", "", ("bright",),
                      "gift", length)
    song = plan_song(brief, seed)
    beats, bars = beat_grid(song)
    return beats, bars, song_sections(song)


def _film(length: float = 30.0, *, premium: bool = True, gentle: bool = False, n: int = 7,
          photos: list[PhotoSource] | None = None, subject: str | None = "p0",
          seed: int = 7) -> Timeline:
    beats, bars, sections = _song(length, gentle, seed)
    words = FilmWords(opening=NAME_ONLY[gentle], closing=GENTLE_CLOSING if gentle else CLOSING)
    return planner.plan(FilmSpec(
        length_sec=length, photos=photos or _photos(n), gentle=gentle,
        recipe=MotionRecipe(motion_shots=6, premium=premium), subject_photo_id=subject,
        words=words, song=SongGrid(beat_times=beats, bar_times=bars, sections=sections)))


def _chorus(tl: Timeline, length: float, gentle: bool = False, seed: int = 7
            ) -> list[Section]:
    return [s for s in section_frames(_song(length, gentle, seed)[2], tl.fps, tl.total_frames)
            if s.name == CHORUS]


# --- parallax on the best mattes ------------------------------------------------------------


def test_parallax_goes_to_the_best_matte_above_the_threshold_and_never_below() -> None:
    mattes = {1: 0.95, 2: PARALLAX_MATTE_MIN - 0.01, 3: 0.6, 4: 0.8}
    tl = _film(photos=_photos(7, mattes))
    layered = {s.source_id for s in tl.shots if s.motion == PARALLAX}
    assert layered and layered <= {"p1", "p3", "p4"}  # never p2, just under the threshold
    assert "p1" in layered  # the best matte always


def test_the_best_matte_is_first_when_the_budget_holds_one_shot() -> None:
    slots = [Slot("photo", f"p{i}", 3.0) for i in range(4)]
    photos = {p.id: p for p in _photos(4, {0: 0.55, 1: 0.9, 2: 0.7, 3: 0.3})}
    lengths = [3.0, 3.0, 3.0, 3.0]
    assert _parallax_slots(slots, [0, 1, 2, 3], photos, 3.0, lengths, set()) == {1}
    assert _parallax_slots(slots, [0, 1, 2, 3], photos, 6.0, lengths, set()) == {1, 2}
    assert _parallax_slots(slots, [0, 1, 2, 3], photos, 99.0, lengths, set()) == {0, 1, 2}
    short = [3.0, PARALLAX_MIN_S - 0.1, 3.0, 3.0]  # a shot too short for the slide to read
    assert _parallax_slots(slots, [0, 1, 2, 3], photos, 99.0, short, set()) == {0, 2}
    # a shot that shares the frame with a second photo in one film comes after the others
    assert _parallax_slots(slots, [0, 1, 2, 3], photos, 3.0, lengths, {1}) == {2}


def test_no_photo_separating_means_no_parallax_and_the_subject_rolls_instead() -> None:
    tl = _film()
    motions = [s.motion for s in tl.shots if s.kind == "photo"]
    assert PARALLAX not in motions
    assert ROLL in motions
    assert {s.source_id for s in tl.shots if s.motion == ROLL} <= {"p0", "p3"}  # faces, subject
    standard = _film(premium=False, photos=_photos(7, {1: 0.95}))
    assert not {PARALLAX, ROLL} & {s.motion for s in standard.shots}


# --- the chorus montage ----------------------------------------------------------------------


@pytest.mark.parametrize(("length", "gentle", "seed", "flashes"),
                         [(30.0, False, 7, False), (30.0, True, 7, False), (35.0, True, 3, False),
                          (60.0, False, 5, True), (90.0, False, 11, True),
                          (180.0, True, 7, True)])
def test_signature_cuts_the_chorus_on_the_beat_and_keeps_every_planned_cut(
        length: float, gentle: bool, seed: int, flashes: bool) -> None:
    """A chorus flashes back only once every photo was shown (no flash where the first round
    ends after the chorus: the chorus then keeps its planned cuts)."""
    signature = _film(length, gentle=gentle, n=7, seed=seed)
    standard = _film(length, premium=False, gentle=gentle, n=7, seed=seed)
    beats = sorted(set(signature.beat_frames))
    choruses = _chorus(signature, length, gentle, seed)
    planned = {s.cut_in for s in standard.shots}
    cuts = {s.cut_in for s in signature.shots}
    assert planned <= cuts  # every planned cut stays: a verse keeps its shots
    added = sorted(cuts - planned)
    assert bool(added) == flashes, "the montage adds cuts where photos may flash"
    assert all(any(c.start <= cut < c.end for c in choruses) for cut in added)
    assert all(cut in beats for cut in added)  # on the beat
    look = looks.look("memorial" if gentle else "celebration").montage
    step = piece_beats(look.beats, beats[1] - beats[0], signature.fps)
    ordered = sorted(cuts)
    gaps = [beats.index(b) - beats.index(a) for a, b in pairwise(ordered)
            if a in beats and b in beats and any(c.start <= a < c.end for c in choruses)]
    assert not added or min(gaps) >= step  # the montage's rhythm: every ``step`` beats
    assert {leak.peak for leak in signature.light_leaks} <= {c.start for c in choruses} | \
        {s.cut_in for s in signature.shots}
    for shot in signature.shots:
        assert shot.cut_out - shot.cut_in >= 0.9 * MONTAGE_MIN_S * signature.fps


@pytest.mark.parametrize(("length", "gentle"), [(30.0, False), (60.0, False), (35.0, True)])
def test_standard_keeps_todays_chorus(length: float, gentle: bool) -> None:
    tl = _film(length, premium=False, gentle=gentle)
    assert tl.light_leaks == ()
    _, bars, _ = _song(length, gentle)
    bar_frames = {round(b * tl.fps) for b in bars}
    for shot in tl.shots[1:-1]:
        if any(c.start <= shot.cut_in < c.end for c in _chorus(tl, length, gentle)):
            assert shot.cut_in in bar_frames  # only downbeats, as before


@pytest.mark.parametrize(("length", "seed"), [(30.0, 7), (30.0, 5), (60.0, 7), (180.0, 7)])
def test_a_flash_keeps_the_repeat_rules_and_no_planned_photo_loses_its_showing(
        length: float, seed: int) -> None:
    n = 4 if length < 60 else 7  # photos too few for the film: they repeat, and may flash
    signature = _film(length, seed=seed, n=n)
    standard = _film(length, premium=False, seed=seed, n=n)
    choruses = _chorus(signature, length, seed=seed)
    count: dict[str, int] = {}
    for shot in standard.shots:
        if shot.kind == "photo":
            count[shot.source_id or ""] = count.get(shot.source_id or "", 0) + 1
    for photo_id, shown in count.items():
        assert sum(1 for s in signature.shots if s.source_id == photo_id) >= shown
    planned = {s.cut_in for s in standard.shots}
    last: dict[str, int] = {}
    photo_shots = [s for s in signature.shots if s.kind == "photo"]
    previous = None
    for shot in photo_shots:
        inside = any(c.start <= shot.cut_in < c.end for c in choruses)
        assert previous is None or previous.source_id != shot.source_id  # never cut to itself
        if shot.cut_in not in planned:
            assert inside  # a flash: only in a chorus, 10 s after its photo's last showing
            assert len({"p0", *last}) == n  # and once every photo was shown
            for photo_id in (shot.source_id, shot.partner_id, shot.second_partner_id):
                if photo_id in last:
                    assert shot.cut_in - last[photo_id] >= REPEAT_SPACING_S * signature.fps
        for photo_id in (shot.source_id, shot.partner_id, shot.second_partner_id):
            if photo_id:
                last[photo_id] = shot.cut_in
        previous = shot
    assert len(photo_shots) > sum(count.values())


def test_the_chorus_downbeat_dissolves_under_a_warm_light() -> None:
    tl = _film(30.0, n=4)
    look = looks.look("celebration").montage
    (leak,) = tl.light_leaks
    shot = next(s for s in tl.shots if s.cut_in == leak.peak)
    # on the chorus's downbeat, or on the cut just before it
    assert any(0 <= c.start - leak.peak < MONTAGE_MIN_S * tl.fps for c in _chorus(tl, 30.0))
    assert shot.transition_in.kind == CROSSFADE
    assert shot.transition_in.frames == round(look.light_s * tl.fps / 2) * 2
    assert leak.start == leak.peak - shot.transition_in.frames // 2 < leak.peak < leak.end
    assert leak.level(leak.start - 1) == leak.level(leak.end) == 0.0
    assert leak.level(leak.peak) > 0.9
    assert leak.colour == (0xFF, 0x9A, 0x4A) and leak.strength == look.light_strength
    again = timeline_from_dict(dataclasses.asdict(tl))
    assert again == tl  # the lights travel with the plan to every segment


def test_a_montage_flashes_the_subjects_photos_first() -> None:
    tl, standard = _film(60.0, n=6), _film(60.0, n=6, premium=False)
    planned = {s.cut_in for s in standard.shots}
    flashes = [s.source_id for s in tl.shots if s.kind == "photo" and s.cut_in not in planned]
    assert flashes and flashes[0] in {"p0", "p3"}  # the subject or the other face first


LENGTHS = [LENGTH_MIN_SEC + k for k in range(int(LENGTH_MAX_SEC - LENGTH_MIN_SEC) + 1)]


@pytest.mark.slow
@pytest.mark.parametrize("gentle", [False, True])
def test_signature_plans_have_exactly_their_frames_at_every_length(gentle: bool) -> None:
    for length in [*LENGTHS, 30.01, 33.3, 45.55, 90.016, 100.1, 119.99, 179.99]:
        tl = _film(length, gentle=gentle, n=7, seed=int(length * 7) % 13)
        assert tl.total_frames == round(length * 30), length
        check_structure(tl)


# --- the same animal --------------------------------------------------------------------------


def test_a_photo_showing_the_same_animal_holds_longer_moves_most_and_says_where_she_is(
        ) -> None:
    pets = [PhotoSource(f"p{i}", 3000, 2000, False) for i in range(6)]
    pets[3] = dataclasses.replace(pets[3], with_subject=True,
                                  subject_box=(0.31, 0.24, 0.53, 0.42))
    slots = photo_slots(pets, 6, 3.0, subject_id="p0")
    by_id = {s.source_id: s.nominal_s for s in slots}
    assert by_id["p3"] == by_id["p0"] == 3.0 * SUBJECT_HOLD
    assert by_id["p1"] == 3.0
    tl = planner.plan(FilmSpec(
        length_sec=30.0, photos=pets, gentle=True, recipe=MotionRecipe(motion_shots=2),
        subject_photo_id="p0", words=FilmWords(opening=GENTLE_OPENING, closing=GENTLE_CLOSING)))
    full = {s.source_id for s in tl.shots if s.kind == "photo" and s.motion == "ken_burns"}
    # the tier's two full moves: the dog's photo first (the subject's opened under the title)
    assert "p3" in full and len(full) == 2
    assert tl.with_subject == ("p3",)
    again = timeline_from_dict(json.loads(tl.to_json()))
    assert again.with_subject == ("p3",)
    assert tl.subject_box("p3") == again.subject_box("p3") == (0.31, 0.24, 0.53, 0.42)
    assert again.subject_box("p1") is None  # where the dog is: only where she was matched


def test_light_leak_level_is_a_smooth_bell_around_its_cut() -> None:
    leak = LightLeak(10, 20, 35, (255, 154, 74), 0.8)
    levels = [leak.level(f) for f in range(8, 37)]
    peak = levels.index(max(levels))
    assert 8 + peak in (19, 20)
    assert all(a <= b for a, b in pairwise(levels[:peak + 1]))
    assert all(a >= b for a, b in pairwise(levels[peak:]))
