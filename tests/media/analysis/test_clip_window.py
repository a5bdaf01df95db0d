"""Which stretch of a clip a shot shows, from scores computed earlier
(media.analysis.clip_window)."""

from __future__ import annotations

import pytest

from media.analysis.clip_window import best_window


def test_best_window_without_scores_is_the_middle_and_avoids_used_stretches() -> None:
    assert best_window([], 0.0, 8.0, 2.0) == pytest.approx(3.0)
    assert best_window([0.5] * 40, 0.2, 8.0, 2.0) == pytest.approx(3.0)
    again = best_window([0.5] * 40, 0.2, 8.0, 2.0, avoid=[(3.0, 5.0)])
    assert again + 2.0 <= 3.0 + 1e-9 or again >= 5.0 - 1e-9
    assert best_window([0.9] * 10, 0.2, 2.0, 3.0) == 0.0  # shorter than the shot


def test_the_best_scored_stretch_wins_over_the_middle() -> None:
    scores = [0.1] * 30 + [0.9] * 10  # 8 s sampled every 0.2 s: the last 2 s are the best
    assert best_window(scores, 0.2, 8.0, 2.0) == pytest.approx(6.0)


def test_a_stretch_already_used_is_avoided_when_another_is_nearly_as_good() -> None:
    scores = [0.8] * 10 + [0.1] * 20 + [0.85] * 10
    assert best_window(scores, 0.2, 8.0, 2.0) == pytest.approx(6.0)
    assert best_window(scores, 0.2, 8.0, 2.0, avoid=[(6.0, 8.0)]) == pytest.approx(0.0)


def test_in_points_are_whole_milliseconds() -> None:
    start = best_window([0.3, 0.5, 0.7, 0.4] * 9, 1 / 3, 12.0, 5.0)
    assert start == round(start, 3)
