"""Cuts on the beat: moving a film's planned cut frames onto the song's beat grid (pure).

All positions are film frame indices; beat and bar times arrive in seconds and are turned into
frames once (:func:`frame_grid`). :func:`snap_cuts` puts every cut between shots on a beat when
the grid allows each shot its minimum length; :func:`card_bounds` places the cards' boundaries on a
bar, else a beat, each card at least as long as reading its words takes
(:func:`media.plan.pacing.card_seconds`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

SNAP_MIN_SLACK = 0.75  # shots may shrink to this share of their minimum to keep every cut on a beat
CARD_SNAP_REACH_S = 0.6  # a card boundary may move this much later (earlier) onto a bar or beat


def snap_cuts(targets: list[float], start: int, end: int, mins: list[int],
              beats: Sequence[int]) -> list[int]:
    """Cut frames (between ``start`` and ``end``) for the target cut frames between shots: all
    on beats when the grid allows every shot its minimum, or failing that
    :data:`SNAP_MIN_SLACK` of it (see :func:`_beat_cuts`), else each
    moved to the nearest beat that keeps every shot at least ``mins[k]`` frames long (or left
    where it is)."""
    for slack in (1.0, SNAP_MIN_SLACK):
        on_beats = _beat_cuts(targets, start, end, [max(1, round(m * slack)) for m in mins],
                              beats)
        if on_beats is not None:
            return on_beats
    cuts, prev = [], start
    for k, target in enumerate(targets):
        lo = prev + mins[k]
        hi = end - sum(mins[k + 1:])
        candidates = beats[bisect.bisect_left(beats, lo):bisect.bisect_right(beats, hi)]
        if candidates:
            cut = min(candidates, key=lambda b: (abs(b - target), b))
        else:
            cut = min(max(round(target), lo), hi)
        cuts.append(cut)
        prev = cut
    return cuts


def _beat_cuts(targets: list[float], start: int, end: int, mins: list[int],
               beats: Sequence[int]) -> list[int] | None:
    """One beat per cut, in order, every shot ``k`` at least ``mins[k]`` frames long (``mins``
    has one entry per shot, ``len(targets) + 1``), minimising the summed squared distance (in
    frames) to the targets: dynamic programming over the beat grid. None if impossible."""
    grid = np.asarray([b for b in beats if start < b < end], np.int64)
    if not targets or len(grid) < len(targets):
        return None
    inf = np.inf
    cost = np.where(grid - start >= mins[0], (grid - targets[0]) ** 2.0, inf)
    back: list[np.ndarray] = []
    for k in range(1, len(targets)):
        best_idx = _running_argmin(cost)
        limit = np.searchsorted(grid, grid - mins[k], side="right") - 1  # last allowed prev
        prev = np.where(limit >= 0, best_idx[np.maximum(limit, 0)], -1)
        prev_cost = np.where(prev >= 0, cost[np.maximum(prev, 0)], inf)
        back.append(prev)
        cost = prev_cost + (grid - targets[k]) ** 2.0
    cost = np.where(end - grid >= mins[len(targets)], cost, inf)
    if not np.isfinite(cost).any():
        return None
    j = int(np.argmin(cost))
    cuts = [j]
    for prev in reversed(back):
        j = int(prev[j])
        cuts.append(j)
    return [int(grid[j]) for j in reversed(cuts)]


def _running_argmin(values: np.ndarray) -> np.ndarray:
    """For each position, the index of the smallest value at or before it."""
    idx = np.arange(len(values))
    best = np.minimum.accumulate(values)
    is_best = values <= best
    return np.maximum.accumulate(np.where(is_best, idx, 0))


def frame_grid(times: Sequence[float], fps: int, total: int) -> tuple[int, ...]:
    """Beat times (seconds) as sorted unique frame indices strictly inside the film."""
    return tuple(sorted({round(t * fps) for t in times if 0 < round(t * fps) < total}))


def card_bounds(opening_s: float, closing_s: float, fps: int, total: int,
                beats: tuple[int, ...], bars: tuple[int, ...]) -> tuple[int, int]:
    """Frames where the opening card ends and the closing card starts: each card at least
    ``opening_s`` / ``closing_s`` seconds (the time its words need,
    :func:`media.plan.pacing.card_lengths`),
    lengthened onto a bar (else a beat) by at most :data:`CARD_SNAP_REACH_S` or one beat,
    whichever is longer; at least a second of film between them."""
    min_mid = round(1.0 * fps)
    beat = round(float(np.median(np.diff(beats)))) if len(beats) > 2 else 0
    reach = max(round(CARD_SNAP_REACH_S * fps), beat)
    open_min = max(1, min(math.ceil(opening_s * fps), total - 2 * min_mid))
    opening = _snap_within(open_min, min(open_min + reach, total - 2 * min_mid), bars, beats,
                           latest=False)
    close_max = max(opening + min_mid, total - math.ceil(closing_s * fps))
    closing = _snap_within(max(opening + min_mid, close_max - reach), close_max, bars, beats,
                           latest=True)
    return opening, closing


def _snap_within(lo: int, hi: int, bars: Sequence[int], beats: Sequence[int], *,
                 latest: bool) -> int:
    """A bar in ``lo..hi`` (frames), else a beat, else the bound the card needs (``lo`` for
    an opening, ``hi`` for a closing): the one nearest that bound."""
    bound = hi if latest else lo
    for grid in (bars, beats):
        candidates = [g for g in grid if lo <= g <= hi]
        if candidates:
            return min(candidates, key=lambda g: abs(g - bound))
    return bound
