"""A swipe in the frames: the incoming shot pushes the outgoing one off along the frame's long
side, both whole and at full opacity, never one seen through the other."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from media.base import yuv
from media.frames.blend import layer_shifts, side_by_side
from media.plan.timeline import Transition
from media.plan.transitions import CROSSFADE, SWIPE
from tests.helpers import signature_film


def _solid(width: int, height: int, luma: int, chroma: int) -> np.ndarray:
    frame = np.empty(yuv.frame_shape(width, height), np.uint8)
    frame[:height], frame[height:] = luma, chroma
    return frame


@pytest.mark.parametrize(("width", "height"), [(192, 108), (108, 192)])
def test_halfway_through_a_swipe_each_shot_fills_its_half_along_the_long_side(
        width: int, height: int) -> None:
    outgoing, incoming = _solid(width, height, 60, 100), _solid(width, height, 200, 150)
    frame = side_by_side([(outgoing, 1.0, -0.5), (incoming, 1.0, 0.5)], width, height)
    y, u, _ = yuv.planes(frame)
    first, second = (y[:, : width // 2], y[:, width // 2:]) if width > height else (
        y[: height // 2], y[height // 2:])
    assert (first == 60).all() and (second == 200).all()
    assert set(np.unique(u)) == {100, 150}  # chroma moves with its luma, on even pixels
    assert frame is not outgoing and (outgoing[:height] == 60).all()  # inputs untouched


def test_a_swipe_under_the_films_fade_darkens_towards_black_and_leaves_no_gap() -> None:
    a, b = _solid(64, 36, 216, 128), _solid(64, 36, 216, 128)
    frame = side_by_side([(a, 0.5, -0.25), (b, 0.5, 0.75)], 64, 36)
    assert (yuv.planes(frame)[0] == 116).all()  # 16 + (216 - 16) / 2 everywhere


def test_a_swipe_takes_the_incoming_shot_from_the_far_edge_to_its_place() -> None:
    planned = signature_film(8, 67.0)
    index = next(i for i, s in enumerate(planned.shots) if s.transition_in.kind == CROSSFADE)
    shots = list(planned.shots)
    shots[index] = replace(shots[index], transition_in=Transition(SWIPE, 14))
    timeline = replace(planned, shots=type(planned.shots)(shots))
    shot = timeline.shots[index]
    start = shot.transition_in.start(shot.cut_in)
    first = layer_shifts(timeline, start, [index - 1, index])
    last = layer_shifts(timeline, start + shot.transition_in.frames - 1, [index - 1, index])
    assert first[index] > 0.99 and last[index] < 0.01
    for shifts in (first, last):
        assert shifts[index] - shifts[index - 1] == pytest.approx(1.0)  # edge to edge
    assert layer_shifts(timeline, start - 1, [index - 1]) == {}
    assert layer_shifts(timeline, start + shot.transition_in.frames, [index]) == {}
