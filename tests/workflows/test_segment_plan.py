"""How the workflow splits a film's render over the media workers (workflows.segments)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from workflows.segments import MIN_SEGMENT_S, plan_segments

FPS = 30
CUTS_EVERY_3S = list(range(95, 180 * FPS, 90))


def assert_covers(ranges: list[tuple[int, int]], total: int) -> None:
    assert ranges[0][0] == 0 and ranges[-1][1] == total
    assert all(a < b for a, b in ranges)
    assert all(prev[1] == nxt[0] for prev, nxt in pairwise(ranges))


@pytest.mark.parametrize("length_s", [30, 60, 95, 180])
@pytest.mark.parametrize("workers", [1, 2, 3, 4, 8])
def test_segments_cover_every_frame_once_in_order(length_s: int, workers: int) -> None:
    total = length_s * FPS
    ranges = plan_segments(total, [c for c in CUTS_EVERY_3S if c < total], workers, FPS)
    assert_covers(ranges, total)
    assert 1 <= len(ranges) <= workers
    assert all(start in CUTS_EVERY_3S for start, _ in ranges[1:]), "joins only on cut frames"


def test_one_worker_renders_one_segment() -> None:
    assert plan_segments(180 * FPS, CUTS_EVERY_3S, 1, FPS) == [(0, 180 * FPS)]


def test_as_many_segments_as_workers_when_the_film_is_long_enough() -> None:
    ranges = plan_segments(120 * FPS, CUTS_EVERY_3S, 4, FPS)
    assert len(ranges) == 4
    lengths = [b - a for a, b in ranges]
    assert max(lengths) - min(lengths) <= 3 * FPS, "each cut is the one nearest its target"


def test_no_segment_shorter_than_the_minimum_on_average() -> None:
    total = 30 * FPS
    assert len(plan_segments(total, CUTS_EVERY_3S, 8, FPS)) == total // (MIN_SEGMENT_S * FPS)
    assert plan_segments(15 * FPS, CUTS_EVERY_3S, 4, FPS) == [(0, 15 * FPS)]


def test_cut_nearest_the_even_split_is_chosen() -> None:
    assert plan_segments(60 * FPS, [100, 880, 950, 1700], 2, FPS) == [(0, 880), (880, 1800)]
    assert plan_segments(60 * FPS, [100, 890, 910, 1700], 2, FPS) == [(0, 890), (890, 1800)]


def test_scarce_cuts_give_fewer_segments_and_none_gives_one() -> None:
    assert plan_segments(90 * FPS, [1200], 3, FPS) == [(0, 1200), (1200, 2700)]
    assert plan_segments(90 * FPS, [], 3, FPS) == [(0, 2700)]
    assert plan_segments(90 * FPS, [0, 2700, 5000], 3, FPS) == [(0, 2700)]


def test_an_empty_film_is_refused() -> None:
    with pytest.raises(ValueError):
        plan_segments(0, [], 2, FPS)
