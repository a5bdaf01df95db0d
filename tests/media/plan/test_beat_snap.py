"""Cuts on the beat: planned cut frames moved onto the song's beat grid (media.plan.beat_snap)."""

from __future__ import annotations

from itertools import pairwise

from media.plan.beat_snap import card_bounds, frame_grid, snap_cuts


def test_beat_times_become_unique_sorted_frames_inside_the_film() -> None:
    assert frame_grid([0.0, 1.0, 0.5, 1.001, 3.0, 9.9], 30, 90) == (15, 30)


def test_every_cut_lands_on_a_beat_when_the_grid_allows_each_shot_its_minimum() -> None:
    beats = tuple(range(0, 300, 15))
    cuts = snap_cuts([52.0, 98.0, 160.0], 0, 300, [30, 30, 30, 30], beats)
    assert cuts == [45, 105, 165]
    assert all(b - a >= 30 for a, b in pairwise([0, *cuts, 300]))


def test_without_room_on_the_grid_cuts_keep_each_shot_its_minimum() -> None:
    beats = (50, 55)  # too few beats for three cuts
    cuts = snap_cuts([40.0, 80.0, 120.0], 0, 160, [30, 30, 30, 30], beats)
    assert all(b - a >= 30 for a, b in pairwise([0, *cuts, 160]))
    assert cuts[0] == 50  # the nearest beat that leaves room


def test_card_boundaries_only_lengthen_the_cards_onto_a_bar_then_a_beat() -> None:
    total = 900  # 30 s, a reach of 0.6 s (18 frames)
    assert card_bounds(3.0, 4.0, 30, total, beats=(95, 99), bars=(100,)) == (100, 780)
    assert card_bounds(3.0, 4.0, 30, total, beats=(95, 99, 770), bars=()) == (95, 770)
    assert card_bounds(3.0, 4.0, 30, total, beats=(), bars=()) == (90, 780)
    assert card_bounds(3.0, 4.0, 30, total, beats=(85,), bars=(790,)) == (90, 780)  # never less
    slow = tuple(range(20, 900, 27))  # a beat every 27 frames: it reaches further than 0.6 s
    assert card_bounds(3.0, 4.0, 30, total, beats=slow, bars=()) == (101, 776)
