"""Layouts that show two photos at once: when a shot splits, with which partner, and how each
aspect shows it (media.plan.layouts)."""

from __future__ import annotations

import dataclasses
import json
from itertools import pairwise
from pathlib import Path

import pytest

from media.plan.inputs import PhotoSource
from media.plan.layouts import (
    PORTRAIT_PAIR,
    SINGLE,
    SPLIT,
    Layout,
    plan_layouts,
    splits_in,
)
from media.plan.shot_order import Slot
from media.plan.timeline import Shot, Timeline, plan_timeline, timeline_from_dict
from tests.media.plan.test_timeline import CLOSING, OPENING, beat_grid, photos


def _film(n_photos: int, length: float, tall: frozenset[int] = frozenset(),
          gentle: bool = False) -> Timeline:
    given = [dataclasses.replace(p, width=3000, height=4000) if i in tall else p
             for i, p in enumerate(photos(n_photos))]
    return plan_timeline(given, [], beat_grid(length), length, OPENING, CLOSING, motion_shots=3,
                         gentle=gentle, style="gift", subject_photo_id="p0")


def _photo_shots(tl: Timeline) -> list[Shot]:
    return [s for s in tl.shots if s.kind == "photo"]


def _showings(shot: Shot) -> set[str]:
    return {shot.source_id or "", *([shot.partner_id] if shot.partner_id else [])}


@pytest.mark.parametrize(("n_photos", "length"), [(5, 120.0), (7, 120.0), (7, 180.0)])
def test_a_long_film_from_few_photos_shows_some_repeats_as_splits(n_photos: int,
                                                                   length: float) -> None:
    shots = _photo_shots(_film(n_photos, length))
    splits = [s for s in shots if s.layout == SPLIT]
    assert len(splits) >= 2
    assert shots[0].layout == shots[-1].layout == SINGLE  # the subject opens, the closer ends
    seen: set[str] = set()
    for shot in shots:
        if shot.layout == SPLIT:
            assert shot.source_id in seen  # only a repeat splits
        seen |= _showings(shot)


@pytest.mark.parametrize(("n_photos", "length"), [(5, 120.0), (7, 180.0), (4, 180.0)])
def test_a_split_pairs_two_photos_never_beside_themselves_nor_the_same_pair_again(
        n_photos: int, length: float) -> None:
    shots = _photo_shots(_film(n_photos, length))
    pairs = [frozenset(_showings(s)) for s in shots if s.partner_id]
    assert all(len(p) == 2 for p in pairs)
    assert len(pairs) == len(set(pairs))
    for a, b in pairwise(shots):
        assert not (a.partner_id and b.partner_id)  # a single photo always comes between
        assert not _showings(a) & _showings(b)


@pytest.mark.parametrize(("n_photos", "length"), [(5, 120.0), (7, 180.0)])
def test_a_partner_keeps_the_ten_second_repeat_spacing(n_photos: int, length: float) -> None:
    tl = _film(n_photos, length)
    starts: dict[str, list[int]] = {}
    for shot in _photo_shots(tl):
        for photo_id in _showings(shot):
            starts.setdefault(photo_id, []).append(shot.cut_in)
    for shot in _photo_shots(tl):
        if shot.partner_id:
            others = [t for t in starts[shot.partner_id] if t != shot.cut_in]
            assert min(abs(t - shot.cut_in) for t in others) >= 10 * tl.fps


def test_a_film_whose_photos_need_no_repeat_has_no_splits() -> None:
    assert all(s.layout == SINGLE and s.partner_id is None for s in _film(7, 30.0).shots)


def test_a_gentle_look_splits_fewer_repeats() -> None:
    def split_share(gentle: bool) -> float:
        shots = _photo_shots(_film(7, 180.0, gentle=gentle))
        return sum(s.layout == SPLIT for s in shots) / len(shots)

    assert 0 < split_share(True) < split_share(False)


def test_a_tall_photo_pairs_in_16x9_preferring_another_tall_photo() -> None:
    shots = _photo_shots(_film(7, 30.0, tall=frozenset({2, 5})))
    assert [s.source_id for s in shots if s.layout == PORTRAIT_PAIR] == ["p2"]
    slots = _slots("abcdefgh")
    sources = {**_sources("abcdefgh"), **{i: PhotoSource(i, Path(f"/in/{i}.jpg"), 3000, 4000,
                                                         False) for i in "bf"}}
    layouts = plan_layouts(slots, sources, [6.0] * len(slots), split_share=0.5,
                           portrait_pairs=True, subject_id="a")
    assert layouts[1] == Layout(PORTRAIT_PAIR, "f")
    assert layouts[5].kind == PORTRAIT_PAIR and layouts[5].partner_id != "b"  # no pair twice


def test_16x9_splits_both_layouts_and_9x16_only_the_split() -> None:
    assert splits_in(SPLIT, portrait_aspect=False) and splits_in(SPLIT, portrait_aspect=True)
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


def _sources(ids: str) -> dict[str, PhotoSource]:
    return {i: PhotoSource(i, Path(f"/in/{i}.jpg"), 4000, 3000, False) for i in ids}


def test_a_look_without_layouts_keeps_every_showing_single() -> None:
    slots = _slots("abcdeabcdeabcde")
    layouts = plan_layouts(slots, _sources("abcde"), [6.0] * len(slots), split_share=0.0,
                           portrait_pairs=False, subject_id="a")
    assert layouts == [Layout()] * len(slots)


def test_no_partner_keeps_the_rules_and_the_repeat_stays_single() -> None:
    slots = _slots("abcabcabc")  # three photos: the only others are the neighbours
    layouts = plan_layouts(slots, _sources("abc"), [6.0] * len(slots), split_share=1.0,
                           portrait_pairs=True, subject_id="a")
    assert layouts == [Layout()] * len(slots)


def test_twins_never_share_a_split() -> None:
    slots = _slots("abcdeabcdeabcde")
    layouts = plan_layouts(slots, _sources("abcde"), [6.0] * len(slots), split_share=1.0,
                           portrait_pairs=False, subject_id="a", twins=[("b", "d"), ("c", "e")])
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
                           split_share=1.0, portrait_pairs=True, subject_id="a")
    assert any(layout.partner_id for layout in layouts)
    for slot, layout in zip(slots, layouts, strict=True):
        assert "c" not in {slot.source_id, layout.partner_id} or not layout.partner_id
