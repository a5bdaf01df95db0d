"""A photo and a crop of it (a close-up cut from a group shot, a re-framed portrait: the
spec's ``crops``, :mod:`media.analysis.crops`) are both shown, never in consecutive shots in
either aspect (issue 42: the same face twice in a row), in films of every length and tier.

A shot shows a photo when the render draws it (:func:`media.frames.sources.shot_photos`): its
own, a layout's partners, and the photo under a card."""

from __future__ import annotations

import functools
from itertools import pairwise

import pytest

from media.cards.spec import CardSpec
from media.plan.inputs import PhotoSource
from media.plan.planner import plan
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from media.song.compose import SongBrief, beat_grid, plan_song
from media.song.compose import _sections as song_sections
from tests.helpers import back_to_back, photo_showings

SIZES = [(4000, 3000), (3000, 4000), (4032, 2268), (3024, 3024), (2268, 4032)]


@functools.cache
def _song(length: float) -> SongGrid:
    song = plan_song(SongBrief("birthday", "joyful", False, "Ann", "your friends", "the roof",
                               "", ("warm",), "gift", length), 7)
    beats, bars = beat_grid(song)
    return SongGrid(beat_times=beats, bar_times=bars, sections=song_sections(song))


def _spec(n: int, length: float, premium: bool, crops: tuple[tuple[str, str], ...]
          ) -> FilmSpec:
    """``n`` photos with faces (p00 the subject), ``crops`` pairs of them."""
    photos = [PhotoSource(f"p{i:02d}", *SIZES[i % len(SIZES)], False,
                          face_fraction=0.3 if i == 0 else 0.12,
                          brightness=0.4 + 0.03 * ((i * 7) % 10), focus_x=0.4 + 0.02 * (i % 5),
                          hold_w=0.3, hold_h=0.35) for i in range(n)]
    look = "celebration"
    return FilmSpec(
        length_sec=length, family=look, look=look,
        recipe=MotionRecipe(motion_shots=6 if premium else 4, premium=premium),
        photos=photos, subject_photo_id="p00", crops=crops,
        words=FilmWords(opening=CardSpec("opening", ("Happy Birthday", "Ann"), look=look),
                        closing=CardSpec("closing", ("With love", "from all of us"),
                                         look=look),
                        interludes=(CardSpec("interlude", ("The roof in June.", ""),
                                             look=look),)),
        song=_song(length))


def _crops_side_by_side(spec: FilmSpec, tl: Timeline) -> list[str]:
    """Consecutive shots of which one shows a photo and the other a crop of it."""
    pairs = {frozenset(p) for p in spec.crops}
    return [f"#{a}->#{b} {sorted(pa)} {sorted(pb)}"
            for (a, pa), (b, pb) in pairwise(photo_showings(tl))
            if b == a + 1 and any(frozenset((x, y)) in pairs for x in pa for y in pb)]


def _crop_pairs(n: int) -> tuple[tuple[str, str], ...]:
    """A photo and a crop of it (the subject's from five photos on), and in larger films two
    more pairs (one photo with two crops of it)."""
    if n < 5:
        return (("p01", f"p{n - 1:02d}"),)
    if n < 6:
        return (("p00", f"p{n - 1:02d}"),)
    return (("p00", f"p{n - 1:02d}"), ("p02", "p04"), ("p02", "p05"), ("p04", "p05"))


TRIANGLE_LEFT = pytest.mark.xfail(strict=True, reason=(
    "a photo with two crops of it among seven photos, 180 s signature: the layouts' partners "
    "and the repeats' order still bring two of the three side by side"))


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
@pytest.mark.parametrize("length", [30.0, 45.0, 90.0, 180.0])
@pytest.mark.parametrize("n", [5, 7, 10, 30])
def test_a_photo_and_its_crop_are_never_in_consecutive_shots(n: int, length: float,
                                                            premium: bool,
                                                            request: pytest.FixtureRequest
                                                            ) -> None:
    if (n, length, premium) == (7, 180.0, True):
        request.applymarker(TRIANGLE_LEFT)
    spec = _spec(n, length, premium, _crop_pairs(n))
    tl = plan(spec)
    assert _crops_side_by_side(spec, tl) == []
    assert back_to_back(tl) == []


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
@pytest.mark.parametrize("length", [30.0, 90.0])
@pytest.mark.parametrize("n", [3, 5, 10])
def test_a_crop_is_shown_beside_its_photo_not_dropped(n: int, length: float,
                                                      premium: bool) -> None:
    spec = _spec(n, length, premium, _crop_pairs(n))
    tl = plan(spec)
    shown = {p for _, photos in photo_showings(tl) for p in photos}
    assert {p for pair in spec.crops for p in pair} <= shown
    assert set(tl.dropped_photo_ids) == set(plan(_spec(n, length, premium, ())).dropped_photo_ids)


def _pictures(spec: FilmSpec) -> dict[str, str]:
    """Each photo's picture: a photo and its crops are one."""
    picture = {p.id: p.id for p in spec.photos}
    for a, b in spec.crops:
        picture[b] = picture[a]
    return picture


def _shown_again_before_every_picture(spec: FilmSpec, tl: Timeline) -> list[str]:
    """Shots that show a photo a second time while a picture of the spec is still unseen."""
    picture = _pictures(spec)
    everyone, seen, pictures_seen, out = set(picture.values()), set(), set(), []
    for i, photos in photo_showings(tl):
        if photos & seen and not everyone <= pictures_seen:
            out.append(f"#{i} {sorted(photos & seen)} again before "
                       f"{sorted(everyone - pictures_seen)}")
        seen |= photos
        pictures_seen |= {picture[p] for p in photos}
    return out


FEW_PHOTO_PAIRS = {3: [("p01", "p02"), ("p00", "p02")], 4: [("p01", "p03"), ("p00", "p03")]}


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
@pytest.mark.parametrize("length", [30.0, 60.0, 119.0])
@pytest.mark.parametrize(("n", "pair"), [(n, pair) for n, pairs in FEW_PHOTO_PAIRS.items()
                                         for pair in pairs])
def test_a_few_photo_film_spreads_a_photo_and_its_crop_by_picture(
        n: int, pair: tuple[str, str], length: float, premium: bool) -> None:
    spec = _spec(n, length, premium, (pair,))
    tl = plan(spec)
    assert _crops_side_by_side(spec, tl) == []
    assert back_to_back(tl) == []
    assert _shown_again_before_every_picture(spec, tl) == []
    shown = {p for _, photos in photo_showings(tl) for p in photos}
    assert shown == {p.id for p in spec.photos}


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
@pytest.mark.parametrize("length", [60.0, 119.0])
def test_the_two_photos_of_one_picture_take_turns_with_the_other_picture(
        length: float, premium: bool) -> None:
    spec = _spec(3, length, premium, (("p01", "p02"),))
    tl = plan(spec)
    picture = _pictures(spec)
    singles = [s.source_id for s in tl.shots if s.kind == "photo" and not s.partner_id]
    pair_turns = [p for p in singles if picture[p] == "p01"]
    assert len(pair_turns) >= 3
    assert all(a != b for a, b in pairwise(pair_turns))  # the close-up, the whole, ...
    counts = {pid: singles.count(pid) for pid in ("p00", "p01", "p02")}
    assert abs(counts["p00"] - counts["p01"] - counts["p02"]) <= 1  # a picture as often as
    # the other, its photos each about half as often


@pytest.mark.parametrize(("n", "pair", "leads"), [(3, ("p01", "p02"), 1), (3, ("p00", "p02"), 1),
                                                  (4, ("p01", "p03"), 2),
                                                  (4, ("p00", "p03"), 2)])
def test_the_signature_titles_leads_stand_over_pictures_of_their_own(
        n: int, pair: tuple[str, str], leads: int) -> None:
    spec = _spec(n, 60.0, True, (pair,))
    tl = plan(spec)
    title = [s.source_id for s in tl.shots if s.card is not None and s.card.part]
    lockup = next(s.source_id for s in tl.shots if s.card is not None and not s.card.part)
    assert len(title) == leads
    picture = _pictures(spec)
    assert len({picture[p] for p in (*title, lockup)}) == leads + 1


def test_two_photos_of_one_picture_keep_the_signature_titles_lead() -> None:
    spec = _spec(2, 60.0, True, (("p00", "p01"),))  # nothing to keep apart: one picture
    tl = plan(spec)
    assert [s.source_id for s in tl.shots if s.card is not None and s.card.part] == ["p01"]
    assert back_to_back(tl) == []
