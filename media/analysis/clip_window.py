"""Which stretch of a clip a shot shows, from quality scores computed earlier (pure numpy: the
scores come from :func:`media.intake.clip_analysis.frame_scores`, the planner only reads them)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

CENTRE_BIAS = 0.02  # score units: equal windows prefer the clip's middle
OVERLAP_PENALTY = 0.6  # score units per fraction of a window overlapping one already used


def best_window(scores: Sequence[float], step_s: float, duration_s: float, window_s: float,
                avoid: Sequence[tuple[float, float]] = ()) -> float:
    """In-point (seconds) of the ``window_s``-second stretch of a ``duration_s``-second clip with
    the best mean score (``scores`` sampled every ``step_s`` seconds).

    Windows overlapping the ``avoid`` intervals (seconds, e.g. segments already used) are
    penalized; among equals the one nearest the clip's middle wins. Without scores: the middle.
    """
    room = max(0.0, duration_s - window_s)
    if room <= 0.0:
        return 0.0
    values = np.asarray(scores, np.float64)
    if len(values) == 0 or step_s <= 0:
        return _least_overlap(room, window_s, avoid)
    starts = np.unique(np.append(np.arange(0.0, room + 1e-9, step_s), room))
    sums = np.concatenate(([0.0], np.cumsum(values)))
    best, best_start = -math.inf, room / 2
    for start in starts:
        lo = min(len(values) - 1, round(start / step_s))
        hi = max(lo + 1, min(len(values), round((start + window_s) / step_s)))
        score = (sums[hi] - sums[lo]) / (hi - lo)
        score -= CENTRE_BIAS * abs(start - room / 2) / max(room, 1e-9)
        score -= OVERLAP_PENALTY * _overlap(start, window_s, avoid)
        if score > best + 1e-12:
            best, best_start = score, float(start)
    return round(best_start, 3)


def _overlap(start: float, window_s: float, avoid: Sequence[tuple[float, float]]) -> float:
    """Fraction of the window [start, start + window_s) covered by the ``avoid`` intervals."""
    covered = sum(max(0.0, min(start + window_s, b) - max(start, a)) for a, b in avoid)
    return min(1.0, covered / window_s) if window_s > 0 else 0.0


def _least_overlap(room: float, window_s: float, avoid: Sequence[tuple[float, float]]) -> float:
    """The middle of the clip, or the in-point overlapping ``avoid`` least (no scores)."""
    candidates = np.linspace(0.0, room, 21)
    return round(float(min(candidates, key=lambda s: (_overlap(s, window_s, avoid),
                                                         abs(s - room / 2)))), 3)
