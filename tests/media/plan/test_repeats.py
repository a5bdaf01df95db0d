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
from media.frames.sources import shot_photos
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.planner import plan
from media.plan.shot_order import shows_subject
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from media.plan.transitions import CROSSFADE, CUT, DIP, transition_kind
from media.song.compose import SongBrief, beat_grid, plan_song
from media.song.compose import _sections as song_sections

SUBJECT_SHARE_MAX = 0.3  # "about a quarter" of the photo time, as the corpus checks it
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


def _showings(tl: Timeline) -> list[tuple[int, set[str]]]:
    """Each shot that shows a photo, with the photos it shows (an interlude's card alone on
    its backdrop shows none)."""
    shown = [(i, {p for p in shot_photos(tl, i) if p}) for i, shot in enumerate(tl.shots)
             if shot.kind != "clip"]
    return [(i, photos) for i, photos in shown if photos]


def shown_again_too_soon(spec: FilmSpec, tl: Timeline) -> list[str]:
    """Shots that show a photo a second time while a photo of the spec is still unseen."""
    usable, seen, out = {p.id for p in spec.photos}, set(), []
    for i, photos in _showings(tl):
        if photos & seen and not usable <= seen:
            out.append(f"#{i} {sorted(photos & seen)} again before {sorted(usable - seen)}")
        seen |= photos
    return out


def back_to_back(tl: Timeline) -> list[str]:
    """Consecutive shots that show the same photo."""
    return [f"#{a}->#{b} {sorted(pa & pb)}" for (a, pa), (b, pb) in pairwise(_showings(tl))
            if b == a + 1 and pa & pb]


def subject_share(tl: Timeline) -> float:
    """The subject photo's share of the photo shots' time (a layout's cells share it)."""
    total = mine = 0.0
    for shot in tl.shots:
        if shot.kind != "photo":
            continue
        cells = [p for p in (shot.source_id, shot.partner_id, shot.second_partner_id) if p]
        total += shot.cut_out - shot.cut_in
        mine += (shot.cut_out - shot.cut_in) * cells.count(tl.subject_photo_id) / len(cells)
    return mine / total if total else 0.0


def ghosts(spec: FilmSpec, tl: Timeline) -> list[str]:
    """Dissolves whose two shots both show a face (or the subject)."""
    photos = {p.id: p for p in spec.photos}
    faced = {p for p in photos if shows_subject(photos[p], tl.subject_photo_id)}
    shown = dict(_showings(tl))
    return [f"#{i - 1}->#{i}" for i in range(1, len(tl.shots))
            if transition_kind(tl.shots[i].transition_in.kind).overlaps
            and tl.shots[i].transition_in.frames > 0
            and shown.get(i - 1, set()) & faced and shown.get(i, set()) & faced]


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
    assert set(middle[:7 - 3]) == {p.id for p in spec.photos} - {"p00", *leads}


def test_the_closing_stands_over_a_photo_the_middle_had_no_room_for() -> None:
    spec = _spec(30, 30.0, False, "some", "birthday")
    tl = plan(spec)
    shown = [p for _, photos in _showings(tl)[:-1] for p in photos]
    assert len(shown) == len(set(shown))  # no repeat at all
    closing = tl.shots[-1].source_id
    assert closing not in shown and closing not in tl.dropped_photo_ids
    assert spec.photos[int(closing[1:])].face_fraction > 0  # a face, as the subject's would


def test_an_interlude_stands_over_a_photo_that_keeps_the_repeat_rules_or_over_none() -> None:
    tl = plan(_spec(7, 67.0, False, "all", "birthday"))  # an interlude inside the first round
    (interlude,) = [s for s in tl.shots if s.card is not None and s.card.kind == "interlude"]
    photo_ids = [s.source_id for s in tl.shots if s.kind == "photo"]
    assert interlude.source_id in photo_ids  # the last photo the middle shows for the first time
    assert photo_ids.index(interlude.source_id) == len({"p00", *photo_ids}) - 2
    two = plan(_spec(2, 67.0, False, "all", "birthday"))  # between the two photos: neither
    (alone,) = [s for s in two.shots if s.card is not None and s.card.kind == "interlude"]
    assert alone.source_id == ""
