"""The render's one wall-clock limit is its progress (media.frames.stall): a render may take
any time while it keeps finishing frames, and is stopped once none comes for the limit."""

from __future__ import annotations

import types

import pytest

import media.frames.stall
from media.base.runner import ToolTimeoutError
from media.frames.stall import StallWatch


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The watch's clock, moved by hand (seconds)."""
    now = [1000.0]
    monkeypatch.setattr(media.frames.stall, "time",
                        types.SimpleNamespace(monotonic=lambda: now[0]))
    return now


def test_frames_that_keep_coming_keep_a_render_going_however_long_it_takes(
        clock: list[float]) -> None:
    watch = StallWatch(10.0)
    for _ in range(500):  # 2500 s of frames 5 s apart: far past any multiple of the limit
        clock[0] += 5.0
        watch.beat()
    assert watch.deadline == clock[0] + 10.0


def test_no_frame_for_the_whole_limit_stops_the_render_saying_what_it_waited_for(
        clock: list[float]) -> None:
    watch = StallWatch(10.0)
    clock[0] += 9.9
    watch.check("the sources of shot 3")
    clock[0] += 0.2
    with pytest.raises(ToolTimeoutError, match=r"no frame finished in 10 s .*shot 3"):
        watch.check("the sources of shot 3")


def test_a_frame_that_comes_after_the_limit_is_a_stall_too(clock: list[float]) -> None:
    watch = StallWatch(10.0)
    clock[0] += 11.0
    with pytest.raises(ToolTimeoutError, match="stalled"):
        watch.beat()

