"""Layouts that show two or three photos at once: when a shot shares the frame, with which
partners, and how each aspect shows it (media.plan.layouts)."""

from __future__ import annotations

import dataclasses
import json
from itertools import pairwise

import pytest

from media.design import looks
from media.plan import planner
from media.plan.inputs import PhotoSource
from media.plan.layout_kinds import INSET, PORTRAIT_PAIR, SPLIT, TRIPTYCH, fills
from media.plan.layouts import (
    SINGLE,
    Layout,
    arrange,
    cell_ratio,
    fresh_alone,
    orphans,
    plan_layouts,
    splits_in,
)
from media.plan.shot_order import Slot
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Shot, Timeline, timeline_from_dict
from tests.media.plan.test_interludes import INTERLUDES, _song
from tests.media.plan.test_timeline import CLOSING, OPENING, beat_grid, photos


def _film(n_photos: int, length: float, tall: frozenset[int] = frozenset(),
          gentle: bool = False) -> Timeline:
    given = [dataclasses.replace(p, width=3000, height=4000) if i in tall else p
             for i, p in enumerate(photos(n_photos))]
    return planner.plan(FilmSpec(
        length_sec=length, photos=given, gentle=gentle, recipe=MotionRecipe(motion_shots=3),
        subject_photo_id="p0", words=FilmWords(opening=OPENING, closing=CLOSING),
        song=SongGrid(beat_times=beat_grid(length))))


def _photo_shots(tl: Timeline) -> list[Shot]:
    return [s for s in tl.shots if s.kind == "photo"]


def _showings(shot: Shot) -> set[str]:
    return {shot.source_id or "", *(p for p in (shot.partner_id, shot.second_partner_id) if p)}


@pytest.mark.parametrize(("n_photos", "length"), [(5, 120.0), (7, 120.0), (7, 180.0)])
def test_a_long_film_from_few_photos_shows_some_repeats_as_layouts(n_photos: int,
                                                                   length: float) -> None:
    shots = _photo_shots(_film(n_photos, length))
    layouts = [s for s in shots if s.layout in (SPLIT, TRIPTYCH, INSET)]
    assert len(layouts) >= 2
    assert shots[0].layout == SINGLE  # the middle opens on a photo alone
    seen: set[str] = set()
    for shot in shots:
        if shot.layout in (SPLIT, TRIPTYCH, INSET):
            assert shot.source_id in seen  # only a repeat shares the frame
        seen |= _showings(shot)


@pytest.mark.parametrize(("n_photos", "length"), [(5, 120.0), (7, 180.0), (4, 180.0)])
def test_the_same_set_of_photos_never_shows_together_twice_nor_beside_itself(
        n_photos: int, length: float) -> None:
    shots = _photo_shots(_film(n_photos, length))
    sets = [frozenset(_showings(s)) for s in shots if s.partner_id]
    assert all(len(p) == (3 if s.layout == TRIPTYCH else 2)
               for p, s in zip(sets, [s for s in shots if s.partner_id], strict=True))
    assert len(sets) == len(set(sets))
    for a, b in pairwise(shots):
        assert not _showings(a) & _showings(b)


@pytest.mark.parametrize(("n_photos", "length"), [(5, 120.0), (7, 180.0), (4, 180.0)])
def test_two_layouts_in_a_row_are_never_of_a_kind_and_never_five(n_photos: int,
                                                                 length: float) -> None:
    kinds = [s.layout for s in _photo_shots(_film(n_photos, length))]
    for a, b in pairwise(kinds):
        assert not (a and a == b)
    for run in zip(kinds, kinds[1:], kinds[2:], kinds[3:], kinds[4:], strict=False):
        assert not all(run)


@pytest.mark.parametrize(("n_photos", "length"), [(5, 120.0), (7, 180.0)])
def test_a_partner_keeps_the_ten_second_repeat_spacing(n_photos: int, length: float) -> None:
    tl = _film(n_photos, length)
    starts: dict[str, list[int]] = {}
    for shot in _photo_shots(tl):
        for photo_id in _showings(shot):
            starts.setdefault(photo_id, []).append(shot.cut_in)
    for shot in _photo_shots(tl):
        for partner in (shot.partner_id, shot.second_partner_id):
            if partner:
                others = [t for t in starts[partner] if t != shot.cut_in]
                assert min(abs(t - shot.cut_in) for t in others) >= 10 * tl.fps


def test_a_film_whose_photos_need_no_repeat_has_no_splits() -> None:
    assert all(s.layout == SINGLE and s.partner_id is None for s in _film(7, 30.0).shots)


def test_a_gentle_look_shares_the_frame_for_fewer_repeats() -> None:
    def split_share(gentle: bool) -> float:
        shots = _photo_shots(_film(7, 180.0, gentle=gentle))
        return sum(bool(s.partner_id) for s in shots) / len(shots)

    assert 0 < split_share(True) < split_share(False)


def test_a_tall_photo_pairs_in_16x9_preferring_another_tall_photo() -> None:
    shots = _photo_shots(_film(7, 90.0, tall=frozenset({2, 5})))
    pairs = [s for s in shots if s.layout == PORTRAIT_PAIR]
    assert pairs and all(s.source_id in ("p2", "p5") for s in pairs)
    slots = _slots("abcdefghbdfh")
    sources = {**_sources("abcdefgh"), **{i: PhotoSource(i, 3000, 4000, False) for i in "bf"}}
    layouts = plan_layouts(slots, sources, [6.0] * len(slots), _rules(0.0, True), subject_id="a")
    assert layouts[8] == Layout(PORTRAIT_PAIR, "f")
    assert layouts[10].kind == PORTRAIT_PAIR and layouts[10].partner_id != "b"  # not twice


def test_no_shot_shares_the_frame_before_every_photo_was_shown_once() -> None:
    # a pair in the first round would show its partner again before the last photo's turn,
    # or show the partner first and its own shot again later: the tall photo waits alone
    slots = _slots("bcdefgbc")
    sources = {**_sources("bcdefg"), "b": PhotoSource("b", 2056, 3088, False)}
    layouts = plan_layouts(slots, sources, [4.0] * len(slots), _rules(0.0, True),
                           subject_id="a", before=("a",))
    assert layouts[:6] == [Layout()] * 6
    assert layouts[6].kind == PORTRAIT_PAIR and layouts[6].partner_id not in ("a", "b", "g")
    for n_photos, length in ((5, 120.0), (7, 180.0), (3, 90.0)):
        seen = {"p0"}  # the title's
        for shot in _photo_shots(_film(n_photos, length)):
            assert not shot.partner_id or len(seen) == n_photos
            seen |= _showings(shot)


def test_16x9_shows_every_layout_and_9x16_all_but_the_portrait_pair() -> None:
    for kind in (SPLIT, TRIPTYCH, INSET):
        assert splits_in(kind, portrait_aspect=False) and splits_in(kind, portrait_aspect=True)
    assert splits_in(PORTRAIT_PAIR, portrait_aspect=False)
    assert not splits_in(PORTRAIT_PAIR, portrait_aspect=True)  # the tall photo fits 9:16 alone
    assert not splits_in(SINGLE, portrait_aspect=False)


def _slots(ids: str) -> list[Slot]:
    seen: dict[str, int] = {}
    out = []
    for photo_id in ids:
        out.append(Slot("photo", photo_id, 6.0, None, seen.get(photo_id, 0)))
        seen[photo_id] = seen.get(photo_id, 0) + 1
    return out


def _rules(split_share: float, portrait_pairs: bool) -> looks.Layouts:
    """A look's layouts that split (only) ``split_share`` of the optional repeats."""
    return looks.Layouts(split_share=split_share, portrait_pairs=portrait_pairs, kinds=(SPLIT,))


def _sources(ids: str) -> dict[str, PhotoSource]:
    return {i: PhotoSource(i, 4000, 3000, False) for i in ids}


def test_a_look_without_layouts_keeps_every_showing_single() -> None:
    slots = _slots("abcdeabcdeabcde")
    layouts = plan_layouts(slots, _sources("abcde"), [6.0] * len(slots), _rules(0.0, False),
                           subject_id="a")
    assert layouts == [Layout()] * len(slots)


def test_no_partner_keeps_the_rules_and_the_repeat_stays_single() -> None:
    slots = _slots("abcabcabc")  # three photos: the only others are the neighbours
    layouts = plan_layouts(slots, _sources("abc"), [6.0] * len(slots), _rules(1.0, True),
                           subject_id="a", before=("a",))  # the closing's too
    assert layouts == [Layout()] * len(slots)


def test_twins_never_share_a_split() -> None:
    slots = _slots("abcdeabcdeabcde")
    layouts = plan_layouts(slots, _sources("abcde"), [6.0] * len(slots), _rules(1.0, False),
                           subject_id="a", twins=[("b", "d"), ("c", "e")])
    assert any(layout.partner_id for layout in layouts)
    for slot, layout in zip(slots, layouts, strict=True):
        if layout.partner_id:
            assert {slot.source_id, layout.partner_id} not in ({"b", "d"}, {"c", "e"})


def test_a_split_film_round_trips_through_json_and_old_plans_still_load() -> None:
    tl = _film(7, 180.0, tall=frozenset({2}))
    assert any(s.partner_id for s in tl.shots)
    data = json.loads(tl.to_json())
    assert timeline_from_dict(data) == tl
    for shot in data["shots"]:  # a plan written before layouts existed
        del shot["layout"], shot["partner_id"]
    old = timeline_from_dict(data)
    assert all(s.layout == SINGLE and s.partner_id is None for s in old.shots)


def test_a_photo_whose_faces_no_half_holds_never_shares_the_frame() -> None:
    slots = _slots("abcdeabcdeabcde")
    group = dataclasses.replace(_sources("c")["c"], hold_w=0.9, hold_h=0.4)  # a wide group
    layouts = plan_layouts(slots, {**_sources("abde"), "c": group}, [6.0] * len(slots),
                           _rules(1.0, True), subject_id="a")
    assert any(layout.partner_id for layout in layouts)
    for slot, layout in zip(slots, layouts, strict=True):
        assert "c" not in {slot.source_id, layout.partner_id} or not layout.partner_id


def _birthday_like() -> list[PhotoSource]:
    """Seven photos as the 180 s birthday sample's: 800 px prints (a portrait, faces, a tall
    one, a wide group, scenery) and one 3200 px landscape."""
    def photo(i: int, w: int, h: int, hold: tuple[float, float] = (0.0, 0.0),
              face: float = 0.0) -> PhotoSource:
        return PhotoSource(f"p{i}", w, h, max(w, h) < 1000, face,
                           hold_w=hold[0], hold_h=hold[1])

    return [photo(1, 800, 532, (0.56, 0.84), 0.6), photo(2, 800, 549, (0.49, 0.72), 0.5),
            photo(3, 549, 800, (0.33, 0.23), 0.16), photo(4, 800, 542, (0.78, 0.98), 0.4),
            photo(5, 800, 600), photo(6, 800, 600), photo(7, 3200, 2133)]


def _birthday_film(length: float = 180.0) -> Timeline:
    """The birthday-like photos over a song's bars and sections, with the words' interludes."""
    beats, bars, sections = _song(length)
    return planner.plan(FilmSpec(
        length_sec=length, photos=_birthday_like(), recipe=MotionRecipe(motion_shots=3),
        subject_photo_id="p1",
        words=FilmWords(opening=OPENING, closing=CLOSING, interludes=INTERLUDES),
        song=SongGrid(beat_times=beats, bar_times=bars, sections=sections)))


def _alone(tl: Timeline) -> dict[str, int]:
    counts: dict[str, int] = {}
    for shot in _photo_shots(tl):
        if shot.layout in (SINGLE, PORTRAIT_PAIR):  # 9:16 shows a pair's photo alone
            counts[shot.source_id or ""] = counts.get(shot.source_id or "", 0) + 1
    return counts


@pytest.mark.parametrize("length", [90.0, 120.0, 180.0])
def test_no_photo_is_shown_alone_more_often_than_it_has_new_pictures(length: float) -> None:
    photos = {p.id: p for p in _birthday_like()}
    assert [fresh_alone(p) for p in photos.values()] == [1, 1, 1, 1, 1, 1, 2]
    for photo_id, count in _alone(_birthday_film(length)).items():
        assert count <= fresh_alone(photos[photo_id]), photo_id


def test_a_film_holds_its_shots_longer_rather_than_repeat_the_same_picture() -> None:

    tl = _birthday_film()
    middle = [s for s in tl.shots[1:-1] if s.kind != "card"]
    mean_s = sum(s.cut_out - s.cut_in for s in middle) / len(middle) / tl.fps
    look = looks.look(looks.DEFAULT_LOOK)
    assert look.pacing.hold_s < mean_s <= look.layouts.hold_max_s + 0.5


def test_a_group_photo_too_wide_for_any_cell_comes_back_as_an_inset_print() -> None:
    group = _birthday_like()[3]
    assert not fills(group, cell_ratio(SPLIT, False)) and not fills(group, cell_ratio(TRIPTYCH,
                                                                                     True))
    shots = [s for s in _photo_shots(_birthday_film()) if "p4" in _showings(s)]
    assert len(shots) >= 2
    for shot in shots[1:]:
        assert shot.layout == INSET and shot.source_id == "p4"
        assert shot.partner_id in {"p5", "p6", "p7"}  # a backdrop without faces to cover


@pytest.mark.parametrize("length", [120.0, 180.0])
def test_every_photo_of_a_layout_fills_its_cell_with_its_faces_whole(length: float) -> None:
    photos = {p.id: p for p in _birthday_like()}
    kinds = set()
    for shot in _photo_shots(_birthday_film(length)):
        kinds.add(shot.layout)
        if shot.layout in (SPLIT, TRIPTYCH):
            for photo_id in _showings(shot):
                for portrait in (False, True):
                    assert fills(photos[photo_id], cell_ratio(shot.layout, portrait))
    assert INSET in kinds and (TRIPTYCH in kinds or length < 180)


def test_the_subject_comes_back_beside_others_when_its_photo_has_no_new_picture() -> None:
    # the title over the subject is its first showing; its return mid-film the one alone
    tl = _birthday_film()
    assert _alone(tl)["p1"] == 1
    back = next(s for s in _photo_shots(tl) if s.source_id == "p1" and not s.partner_id)
    later = [s for s in _photo_shots(tl) if "p1" in _showings(s) and s.cut_in > back.cut_in]
    assert later and all(s.partner_id for s in later)


def test_a_showing_alone_past_its_photos_new_pictures_is_an_orphan() -> None:
    slots = _slots("abcab")
    small = {i: PhotoSource(i, 800, 600, True) for i in "abc"}
    singles = [Layout()] * len(slots)
    # the opener's showing alone comes first: a's return; then b's second showing
    assert orphans(slots, singles, small, subject_id="a") == [3, 4]
    assert orphans(slots, singles, _sources("abc"), subject_id="a") == []  # big photos: closer


def test_a_repeat_without_partners_gives_its_place_to_a_photo_that_has_some() -> None:
    slots = _slots("abcdab")
    small = {i: PhotoSource(i, 800, 600, True) for i in "abcd"}
    arranged, layouts = arrange(slots, small, [12.0] * len(slots), _rules(0.0, False),
                                subject_id="a")
    assert layouts[4].kind == SPLIT
    assert {arranged[4].source_id, layouts[4].partner_id}.isdisjoint(
        {arranged[3].source_id, arranged[5].source_id})
