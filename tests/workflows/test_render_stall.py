"""A render's limit follows its progress: its heartbeats go out while its frames advance, so a
stalled render is timed out by the server and retried, and a slow one is never cut short by
the clock (the render stage has no start-to-close; see ``workflows.stages.RENDER_STALL``)."""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from temporalio import activity
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment
from temporalio.worker import Worker

from activities.context import Heartbeater
from tests.helpers import FakeStages, make_order
from workflows.contract import FilmState, start_render
from workflows.film import FilmRender
from workflows.stages import (
    RENDER_SAFETY_NET,
    RENDER_STALL,
    STAGE_HEARTBEAT,
    STAGE_TIMEOUTS,
    ActivityName,
    FilmStage,
    RenderResult,
    WholeFilmInput,
    media_task_queue,
)

INTERVAL_S = 0.1
STALL_S = 1.0
LATE_S = 0.3  # how late a heartbeat may be sent after the check that allowed it (a busy host)


def _beats_while(env: ActivityEnvironment, work: Callable[[Heartbeater], None]) -> list[float]:
    """The times (seconds from the start) of the heartbeats sent while ``work`` ran."""
    beats: list[float] = []
    started = time.monotonic()
    env.on_heartbeat = lambda *_: beats.append(time.monotonic() - started)

    def run() -> None:
        with Heartbeater("render", interval_s=INTERVAL_S, stall_s=STALL_S) as heartbeat:
            work(heartbeat)

    env.run(run)
    return beats


def test_heartbeats_stop_while_the_frames_stall_and_resume_when_they_advance() -> None:
    marks: dict[str, float] = {}
    started = time.monotonic()

    def render(heartbeat: Heartbeater) -> None:
        for frame in range(10):  # frames advancing
            heartbeat.fraction(frame / 30)
            time.sleep(INTERVAL_S)
        marks["stalled"] = time.monotonic() - started
        time.sleep(STALL_S + 1.5)  # no frame for longer than the stall limit
        marks["moving"] = time.monotonic() - started
        for frame in range(10, 20):
            heartbeat.fraction(frame / 30)
            time.sleep(INTERVAL_S)

    beats = _beats_while(ActivityEnvironment(), render)
    silent_from, silent_to = marks["stalled"] + STALL_S + LATE_S, marks["moving"]
    assert [t for t in beats if silent_from < t < silent_to] == [], "beats during the stall"
    assert any(t < marks["stalled"] for t in beats), "beats while frames advanced"
    assert any(t > marks["moving"] for t in beats), "beats once frames advanced again"


def test_a_slow_render_heartbeats_as_long_as_its_frames_keep_coming() -> None:
    def render(heartbeat: Heartbeater) -> None:
        for frame in range(6):  # a frame every 0.6 s: slow, under the stall limit
            heartbeat.fraction(frame / 6)
            time.sleep(STALL_S * 0.6)

    beats = _beats_while(ActivityEnvironment(), render)
    gaps = [later - earlier for earlier, later in itertools.pairwise(beats)]
    assert len(beats) > 10 and max(gaps) < STALL_S, "heartbeats were interrupted"


def test_the_render_stage_is_limited_by_its_progress_and_a_safety_net_never_by_the_film() -> None:
    render = STAGE_TIMEOUTS[FilmStage.RENDER]
    assert render.start_to_close is None
    assert render.heartbeat == STAGE_HEARTBEAT
    assert render.schedule_to_close == RENDER_SAFETY_NET > RENDER_STALL * 3


def stalling_render_film(released: threading.Event) -> Callable[..., Any]:
    """A ``render_film`` whose first attempt composes a few frames, then stalls (until
    ``released``); the next attempt renders."""

    @activity.defn(name=ActivityName.RENDER_FILM)
    def render_film(whole: WholeFilmInput) -> RenderResult:
        with Heartbeater("render", interval_s=0.2, stall_s=1.0) as heartbeat:
            for frame in range(5):
                heartbeat.fraction(frame / 100)
                time.sleep(0.05)
            if activity.info().attempt == 1:
                released.wait(120)  # stuck: no frame comes
                raise RuntimeError("the stalled attempt was released")
            heartbeat.fraction(1.0)
        return RenderResult(film_keys={"16x9": "a", "9x16": "b"}, poster_key="p",
                            timeline_key="t", duration_sec=whole.plan.duration_sec)

    return render_film


@pytest.mark.timeout(180)
async def test_a_stalled_render_is_timed_out_by_its_silence_and_rendered_again(
    temporal_env: WorkflowEnvironment,
) -> None:
    client = temporal_env.client
    stages = FakeStages()
    released = threading.Event()
    fakes = [a for a in stages.activities()
             if activity._Definition.must_from_callable(a).name != ActivityName.RENDER_FILM]
    queue = f"stall-{uuid.uuid4()}"
    try:
        async with (
            Worker(client, task_queue=queue, workflows=[FilmRender], activities=fakes),
            Worker(client, task_queue=media_task_queue(queue),
                   activities=[*fakes, stalling_render_film(released)],
                   activity_executor=ThreadPoolExecutor(4), max_concurrent_activities=2),
        ):
            started = time.monotonic()
            handle = await start_render(client, make_order(), task_queue=queue)
            outcome = await handle.result()
            elapsed = time.monotonic() - started
            released.set()  # the stalled attempt's thread ends, so the worker can stop
    finally:
        released.set()
    assert outcome.state is FilmState.SUCCEEDED
    history = await handle.fetch_history()
    timed_out = [e.activity_task_timed_out_event_attributes for e in history.events
                 if e.HasField("activity_task_timed_out_event_attributes")]
    assert timed_out == [], "a retried attempt's timeout is recorded in the next attempt"
    attempts = [e.activity_task_started_event_attributes for e in history.events
                if e.HasField("activity_task_started_event_attributes")]
    render = [a for a in attempts if a.attempt == 2]
    assert render and "Heartbeat" in render[0].last_failure.message
    assert elapsed < STAGE_HEARTBEAT.total_seconds() + 60
