"""The film's promises about repeats, pinned on plans of every kind of order (issue 42): no
photo shown a second time before every photo was shown once, never the same photo in two
consecutive shots, the subject photo at most about a quarter of the photo time, few photos
held longer and repeated with another move, and no dissolve laying a face over another face.

A shot shows a photo when the render draws it (:func:`media.frames.sources.shot_photos`): its
own, a layout's partners, and the photo under a card (the title's lead shots and lockup, the
interludes, the closing)."""

from __future__ import annotations

import functools
from itertools import pairwise

import pytest

from media.cards.spec import CardSpec
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.planner import plan
from media.plan.shots import SWIPE_GAP_S, SWIPE_MAX_S, SWIPE_MIN_S
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from media.plan.transitions import CROSSFADE, CUT, DIP, SWIPE, transition_kind
from media.song.compose import SongBrief, beat_grid, plan_song
from media.song.compose import _sections as song_sections
from tests.helpers import (
    SUBJECT_SHARE_MAX,
    back_to_back,
    ghosts,
    photo_showings,
    shown_again_too_soon,
    subject_share,
)

SIZES = [(4000, 3000), (3000, 4000), (4032, 2268), (3024, 3024), (2268, 4032)]
OCCASIONS = {"birthday": ("celebration", False, "joyful", ("Happy Birthday", "Ann")),
             "memorial": ("memorial", True, "tender", ("In Loving Memory", "Ann"))}
PHOTO_COUNTS = (1, 2, 3, 4, 5, 7, 10, 30)
LENGTHS = (30.0, 45.0, 67.0, 180.0)
KINDS = (("all", "birthday"), ("some", "memorial"), ("none", "birthday"))
"""Which photos have faces (every one, every other, none), and in which occasion's look."""
MEMORY = "The roof in June, the whole street singing along."


@functools.cache
def _song(length: float, occasion: str) -> SongGrid:
    _, gentle, tone, _ = OCCASIONS[occasion]
    song = plan_song(SongBrief(occasion, tone, gentle, "Ann", "your friends", "the roof", "",
                               ("warm",), "gift", length), 7)
    beats, bars = beat_grid(song)
    return SongGrid(beat_times=beats, bar_times=bars, sections=song_sections(song))


def _photos(n: int, faces: str) -> list[PhotoSource]:
    out = []
    for i in range(n):
        width, height = SIZES[i % len(SIZES)]
        has = faces == "all" or (faces == "some" and i % 2 == 0)
        out.append(PhotoSource(
            f"p{i:02d}", width, height, False,
            face_fraction=(0.3 if i == 0 else 0.12) if has else 0.0,
            brightness=0.4 + 0.03 * ((i * 7) % 10), focus_x=0.4 + 0.02 * (i % 5),
            hold_w=0.3 if has else 0.0, hold_h=0.35 if has else 0.0))
    return out


def _spec(n: int, length: float, premium: bool, faces: str, occasion: str) -> FilmSpec:
    look, gentle, _, title = OCCASIONS[occasion]
    return FilmSpec(
        length_sec=length, family=look, look=look, gentle=gentle,
        recipe=MotionRecipe(motion_shots=6 if premium else 4, premium=premium),
        photos=_photos(n, faces), subject_photo_id="p00" if faces != "none" else None,
        clips=[ClipSource("c01", 6.0, 1920, 1080, True)] if n % 2 else [],  # odd counts
        words=FilmWords(opening=CardSpec("opening", title, look=look),
                        closing=CardSpec("closing", ("With love", "from all of us"),
                                         look=look),
                        interludes=(CardSpec("interlude", (MEMORY, ""), look=look),
                                    CardSpec("interlude", ("", "grateful · warm"), look=look))),
        song=_song(length, occasion))


def _plans(n: int, length: float, premium: bool) -> list[tuple[FilmSpec, Timeline]]:
    specs = [_spec(n, length, premium, faces, occasion) for faces, occasion in KINDS]
    return [(spec, plan(spec)) for spec in specs]


GRID = [(n, length, premium) for n in PHOTO_COUNTS for length in LENGTHS
        for premium in (False, True)]


@pytest.mark.parametrize(("n", "length", "premium"), GRID)
def test_no_photo_is_shown_again_before_every_photo_was_shown_once(
        n: int, length: float, premium: bool) -> None:
    for spec, tl in _plans(n, length, premium):
        assert not shown_again_too_soon(spec, tl), tl.describe()


@pytest.mark.parametrize(("n", "length", "premium"), GRID)
def test_no_photo_is_shown_in_two_consecutive_shots(n: int, length: float,
                                                    premium: bool) -> None:
    if n < 2:
        return  # one photo: every shot shows it
    for _, tl in _plans(n, length, premium):
        assert not back_to_back(tl), tl.describe()


@pytest.mark.parametrize(("n", "length", "premium"),
                         [g for g in GRID if g[0] >= 4])
def test_the_subject_photo_takes_at_most_about_a_quarter_of_the_photo_time(
        n: int, length: float, premium: bool) -> None:
    for spec, tl in _plans(n, length, premium):
        if spec.subject_photo_id:
            assert subject_share(tl) <= SUBJECT_SHARE_MAX, tl.describe()


@pytest.mark.parametrize(("n", "length", "premium"), GRID)
def test_no_dissolve_lays_a_face_over_another_face(n: int, length: float,
                                                   premium: bool) -> None:
    for spec, tl in _plans(n, length, premium):
        assert not ghosts(spec, tl), tl.describe()
        between_faces = {tl.shots[i].transition_in.kind for i in range(1, len(tl.shots))}
        assert DIP not in between_faces or spec.gentle  # a celebration cuts instead


def test_a_gentle_film_dips_softly_between_two_faces_and_still_dissolves_elsewhere() -> None:
    tl = plan(_spec(5, 67.0, False, "some", "memorial"))
    kinds = [s.transition_in.kind for s in tl.shots[1:]]
    assert DIP in kinds and CROSSFADE in kinds and CUT not in kinds
    weights = transition_kind(DIP).weights
    assert weights(0.25)[0] == 0.0 and weights(0.75)[1] == 0.0  # never both on screen
    assert min(weights(u / 20)[0] + weights(u / 20)[1] for u in range(21)) >= 0.3  # not black


@pytest.mark.parametrize("length", [30.0, 67.0, 180.0])
def test_a_signature_film_swipes_now_and_then_between_two_faces_where_standard_cuts(
        length: float) -> None:
    signature = plan(_spec(7, length, True, "all", "birthday"))
    swipes = [s for s in signature.shots if s.transition_in.kind == SWIPE]
    assert swipes, signature.describe()
    fps = signature.fps
    assert all(SWIPE_MIN_S * fps <= s.transition_in.frames <= SWIPE_MAX_S * fps for s in swipes)
    assert all(b.cut_in - a.cut_in >= SWIPE_GAP_S * fps for a, b in pairwise(swipes))
    standard = plan(_spec(7, length, False, "all", "birthday"))
    assert SWIPE not in {s.transition_in.kind for s in standard.shots}
    memorial = plan(_spec(7, length, True, "all", "memorial"))
    assert SWIPE not in {s.transition_in.kind for s in memorial.shots}  # a gentle film dips


def test_a_swipe_moves_the_shots_at_full_opacity_and_lays_nothing_over_anything() -> None:
    kind = transition_kind(SWIPE)
    assert kind.overlaps and not kind.lays_over and kind.travel is not None
    assert all(kind.weights(u / 10) == (1.0, 1.0) for u in range(1, 10))
    travel = [kind.travel(u / 20) for u in range(21)]
    assert travel[0] == 0.0 and travel[-1] == 1.0 and travel == sorted(travel)
    assert travel[2] < 0.01 and travel[-3] > 0.99  # eased: soft off the mark and on landing
    assert transition_kind(CROSSFADE).lays_over and not transition_kind(DIP).lays_over


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("length", [67.0, 180.0])
def test_few_photos_hold_longer_and_each_repeat_moves_anew(n: int, length: float) -> None:
    for premium in (False, True):
        for _, tl in _plans(n, length, premium):
            photo_shots = [s for s in tl.shots if s.kind == "photo"]
            middle_s = sum(s.cut_out - s.cut_in for s in photo_shots) / tl.fps
            assert middle_s / len(photo_shots) >= 7.5, tl.describe()  # not a slideshow
            if n < 3:
                assert not any(s.layout for s in photo_shots)  # the same photos, no new picture
            moves: dict[str, list[tuple[str, int]]] = {}
            for shot in photo_shots:
                earlier = moves.setdefault(shot.source_id or "", [])
                if earlier:
                    assert (shot.move, shot.motion_choice) != earlier[-1], tl.describe()
                earlier.append((shot.move, shot.motion_choice))


def test_the_signature_title_shows_its_lead_photos_first_and_the_middle_every_other_next(
        ) -> None:
    spec = _spec(7, 30.0, True, "all", "birthday")
    tl = plan(spec)
    leads = [s.source_id for s in tl.shots if s.card is not None and s.card.part]
    assert len(leads) == 2 and "p00" not in leads
    middle = [s.source_id for s in tl.shots if s.kind == "photo"]
    closing = tl.shots[-1].source_id  # the photo the middle left to it: none shown twice
    assert set(middle[:7 - 4]) | {closing} == {p.id for p in spec.photos} - {"p00", *leads}


@pytest.mark.parametrize("count", [5, 7, 10, 30])
@pytest.mark.parametrize("length", [30.0, 45.0])
def test_the_signature_titles_lead_photos_show_people_and_cost_no_photo(count: int,
                                                                         length: float) -> None:
    spec = _spec(count, length, True, "some", "birthday")  # every other photo has a face
    tl = plan(spec)
    faces = {p.id for p in spec.photos if p.face_fraction > 0}
    leads = [s.source_id for s in tl.shots if s.card is not None and s.card.part]
    assert leads and set(leads) <= faces, tl.describe()
    standard = plan(_spec(count, length, False, "some", "birthday"))
    shown = {p for _, photos in photo_showings(tl) for p in photos}
    assert len(shown) >= len({p for _, photos in photo_showings(standard) for p in photos})


def test_the_closing_stands_over_a_photo_the_middle_had_no_room_for() -> None:
    spec = _spec(30, 30.0, False, "some", "birthday")
    tl = plan(spec)
    shown = [p for _, photos in photo_showings(tl)[:-1] for p in photos]
    assert len(shown) == len(set(shown))  # no repeat at all
    closing = tl.shots[-1].source_id
    assert closing not in shown and closing not in tl.dropped_photo_ids
    assert spec.photos[int(closing[1:])].face_fraction > 0  # a face, as the subject's would


@pytest.mark.parametrize(("n", "premium"), [(5, False), (7, False), (7, True), (10, False),
                                          (10, True)])
def test_a_30_second_film_with_a_photo_for_every_shot_shows_none_twice(n: int,
                                                                       premium: bool) -> None:
    for _, tl in _plans(n, 30.0, premium):
        shown = [p for _, photos in photo_showings(tl) for p in photos]
        assert len(shown) == len(set(shown)), tl.describe()  # the closing's photo too


@pytest.mark.parametrize("premium", [False, True])
def test_a_film_that_repeats_photos_anyway_keeps_the_closing_over_the_title_photo(
        premium: bool) -> None:
    for spec, tl in _plans(4, 30.0, premium):  # too few photos for its shots
        title = [s for s in tl.shots if s.card is not None and s.card.kind == "opening"][-1]
        assert tl.shots[-1].source_id == title.source_id == spec.photos[0].id, tl.describe()


def test_a_middle_of_two_photos_keeps_both_rather_than_leave_one_to_the_closing() -> None:
    for spec, tl in _plans(3, 12.0, False):  # a title, two photos and the closing
        middle = [s.source_id for s in tl.shots if s.kind == "photo"]
        assert len(set(middle)) == 2, tl.describe()
        assert tl.shots[-1].source_id == spec.photos[0].id, tl.describe()


def test_an_interlude_stands_over_a_photo_that_keeps_the_repeat_rules_or_over_none() -> None:
    tl = plan(_spec(7, 67.0, False, "all", "birthday"))  # an interlude inside the first round
    (interlude,) = [s for s in tl.shots if s.card is not None and s.card.kind == "interlude"]
    photo_ids = [s.source_id for s in tl.shots if s.kind == "photo"]
    assert interlude.source_id in photo_ids  # the last photo the middle shows for the first time
    assert photo_ids.index(interlude.source_id) == len({"p00", *photo_ids}) - 2
    two = plan(_spec(2, 67.0, False, "all", "birthday"))  # between the two photos: neither
    (alone,) = [s for s in two.shots if s.card is not None and s.card.kind == "interlude"]
    assert alone.source_id == ""


@functools.cache
def _corpus_spec(order_id: str) -> FilmSpec:
    """The spec of the corpus order ``order_id`` (``tests/fixtures/corpus``), its words made by
    the current wording rules, as the corpus report plans it."""
    from bench.corpus import fixture
    from bench.corpus.specs import with_current_words
    from workflows.contract import FilmOrder

    order = next(o for o in fixture.load().orders if o.id == order_id)
    assert order.spec is not None
    return with_current_words(order.spec, FilmOrder.model_validate(order.order))


@pytest.mark.parametrize("order_id", ["o038-duplicates", "o218-duplicates"])
def test_an_interlude_stands_over_a_photo_left_out_for_room_rather_than_show_one_twice(
        order_id: str) -> None:
    spec = _corpus_spec(order_id)  # 30 photos in 61 s and 90 s: many left out for room
    tl = plan(spec)
    shown = [p for _, photos in photo_showings(tl)[:-1] for p in photos]
    assert len(shown) == len(set(shown)), tl.describe()  # no repeat while photos stay unseen
    interludes = [s for s in tl.shots if s.card is not None and s.card.kind == "interlude"]
    assert interludes and all(s.source_id not in tl.dropped_photo_ids for s in interludes)


def test_the_chorus_montage_flashes_other_photos_once_the_subject_would_pass_its_share(
        ) -> None:
    spec = _corpus_spec("o036-blank_mix")  # signature, 4 usable photos, 90 s, one montage
    tl = plan(spec)
    assert tl.subject_photo_id == "p02"
    assert subject_share(tl) <= SUBJECT_SHARE_MAX, tl.describe()
    assert tl.light_leaks  # the montage is still there, flashing the other photos


@pytest.mark.parametrize("order_id", ["o053-no_faces", "o233-no_faces"])
def test_a_clip_standing_in_for_the_photo_it_was_made_from_comes_in_the_first_round(
        order_id: str) -> None:
    spec = _corpus_spec(order_id)  # a photo dropped as the twin of a clip made from it
    tl = plan(spec)
    stand_ins = {c for p, c in spec.near_duplicates if p in tl.dropped_photo_ids
                 and c.startswith("c")}
    assert stand_ins
    first_repeat = next(i for k, (i, photos) in enumerate(photo_showings(tl))
                        if photos & {p for _, seen in photo_showings(tl)[:k] for p in seen})
    clips = [i for i, shot in enumerate(tl.shots) if shot.source_id in stand_ins]
    assert clips and min(clips) < first_repeat, tl.describe()
