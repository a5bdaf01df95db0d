"""Cuts on the beat: moving a film's planned cut frames onto the song's beat grid (pure).

All positions are film frame indices; beat and bar times arrive in seconds and are turned into
frames once (:func:`frame_grid`). :func:`snap_cuts` puts every cut between shots on a beat when
the grid allows each shot its minimum length; :func:`snap_near` places one card boundary on a
bar, else a beat, near its target; :func:`card_bounds` places both cards that way, together at
most :data:`CARD_SHARE_MAX` of the film.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

import numpy as np

CARD_SHARE_MAX = 0.15  # the two cards together hold at most this share of the film's frames
OPENING_CARD_S = (1.5, 3.5)  # shortest and longest opening card (seconds)
CLOSING_CARD_S = (2.0, 4.5)  # shortest and longest closing card (seconds)
OPENING_CARD_SHARE = 0.42  # of the cards' budget; the closing card (longer text) gets the rest


def snap_cuts(targets: list[float], start: int, end: int, mins: list[int],
              beats: Sequence[int]) -> list[int]:
    """Cut frames (between ``start`` and ``end``) for the target cut frames between shots: all
    on beats when the grid allows every shot its minimum (see :func:`_beat_cuts`), else each
    moved to the nearest beat that keeps every shot at least ``mins[k]`` frames long (or left
    where it is)."""
    on_beats = _beat_cuts(targets, start, end, mins, beats)
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


def snap_near(target_s: float, window_s: float, fps: int, bars: Sequence[int],
              beats: Sequence[int], lo: int, hi: int) -> int:
    """A card boundary (frame) near ``target_s`` seconds: the bar (frames) nearest it within
    ``window_s`` seconds either side, else the nearest beat, else the target itself; always
    within the frames ``lo..hi``."""
    target = target_s * fps
    a = max(lo, math.floor((target_s - window_s) * fps))
    b = min(hi, math.ceil((target_s + window_s) * fps))
    for grid in (bars, beats):
        candidates = [g for g in grid if a <= g <= b]
        if candidates:
            return min(candidates, key=lambda g: abs(g - target))
    return min(max(round(target), lo), hi)


def frame_grid(times: Sequence[float], fps: int, total: int) -> tuple[int, ...]:
    """Beat times (seconds) as sorted unique frame indices strictly inside the film."""
    return tuple(sorted({round(t * fps) for t in times if 0 < round(t * fps) < total}))


def card_lengths(length: float) -> tuple[float, float]:
    """Longest opening and closing cards (seconds) of a ``length``-second film: together at
    most :data:`CARD_SHARE_MAX` of it (a film too short for the shortest cards gets less)."""
    budget = CARD_SHARE_MAX * length
    open_s = min(OPENING_CARD_S[1], max(OPENING_CARD_S[0], OPENING_CARD_SHARE * budget))
    close_s = min(CLOSING_CARD_S[1], max(CLOSING_CARD_S[0], budget - open_s))
    if open_s + close_s > budget:  # a short film: share the budget, never exceed it
        open_s, close_s = OPENING_CARD_SHARE * budget, (1 - OPENING_CARD_SHARE) * budget
    return open_s, close_s


def card_bounds(length: float, fps: int, total: int, beats: tuple[int, ...],
                 bars: tuple[int, ...]) -> tuple[int, int]:
    """Frames where the opening card ends and the closing card starts: on a bar (else a beat)
    that only shortens the cards of :func:`card_lengths` (by at most a beat, or 0.5 s, and
    less than half the card)."""
    open_s, close_s = card_lengths(length)
    min_mid = round(1.0 * fps)
    beat_s = float(np.median(np.diff(beats))) / fps if len(beats) > 2 else 0.0
    reach = max(0.5, 1.05 * beat_s)
    open_w, close_w = min(reach, 0.45 * open_s), min(reach, 0.45 * close_s)
    open_max = min(math.floor(open_s * fps), total - 2 * min_mid)
    opening = snap_near(open_s - open_w / 2, open_w / 2, fps, bars, beats,
                        max(1, min(round(0.8 * fps), open_max)), max(1, open_max))
    close_min = max(total - math.floor(close_s * fps), opening + min_mid)
    closing = snap_near(length - close_s + close_w / 2, close_w / 2, fps, bars, beats,
                        close_min, max(close_min, total - round(0.5 * fps)))
    return opening, closing
