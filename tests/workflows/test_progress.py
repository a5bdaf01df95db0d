"""Progress that moves: the stage activities' heartbeat percent reaches the run as a signal,
and the ``progress`` query reports the running stage's percent and the whole run's, both
monotonic, on the real dev server."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
import uuid
from collections.abc import Callable
from typing import Any

from temporalio import activity
from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.context import Heartbeater, ProgressSink, use_progress_sink
from tests.helpers import FakeStages, eventually, fake_workers, make_order, wait_for_stage
from workflows.contract import (
    STAGE_PROGRESS_SIGNAL,
    FilmStage,
    FilmState,
    Progress,
    StageProgress,
    start_render,
)
from workflows.film import FilmRender
from workflows.progress import STAGE_START_PERCENT
from workflows.stages import ActivityName, RenderResult, WholeFilmInput, media_task_queue

RENDER_SECONDS = 3.0
SIGNALED = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
COMPLETED = EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED


def slow_render_film() -> Callable[..., Any]:
    """A threaded ``render_film`` that heartbeats like the real one (faster), over 3 s."""

    @activity.defn(name=ActivityName.RENDER_FILM)
    def render_film(whole: WholeFilmInput) -> RenderResult:
        with Heartbeater("render", interval_s=0.2) as heartbeat:
            started = time.monotonic()
            while (elapsed := time.monotonic() - started) < RENDER_SECONDS:
                heartbeat.fraction(elapsed / RENDER_SECONDS)
                time.sleep(0.05)
        return RenderResult(film_keys={"16x9": "a", "9x16": "b"}, poster_key="p",
                            timeline_key="t", duration_sec=whole.plan.duration_sec)

    return render_film


async def test_progress_moves_within_the_render_stage_from_heartbeats(
    temporal_env: WorkflowEnvironment,
) -> None:
    client = temporal_env.client
    use_progress_sink(ProgressSink(client, asyncio.get_running_loop()))
    stages = FakeStages()
    fakes = [a for a in stages.activities()
             if activity._Definition.must_from_callable(a).name != ActivityName.RENDER_FILM]
    queue = f"progress-{uuid.uuid4()}"
    try:
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            async with (
                Worker(client, task_queue=queue, workflows=[FilmRender], activities=fakes),
                Worker(client, task_queue=media_task_queue(queue), activity_executor=pool,
                       activities=[*fakes, slow_render_film()]),
            ):
                handle = await start_render(client, make_order(), task_queue=queue)
                samples: list[Progress] = []
                while (progress := await handle.query("progress", result_type=Progress)
                       ).state is FilmState.RUNNING:
                    samples.append(progress)
                    await asyncio.sleep(0.1)
                assert (await handle.result()).state is FilmState.SUCCEEDED
                final = await handle.query("progress", result_type=Progress)
    finally:
        use_progress_sink(None)
    percents = [p.percent for p in samples]
    assert percents == sorted(percents), "the run's percent never goes back"
    render = [p.stage_percent for p in samples if p.stage is FilmStage.RENDER]
    assert render == sorted(render), "the stage's percent never goes back"
    moving = {p for p in render if 10 < p < 100}
    assert len(moving) >= 3, f"render percent should move during the stage: {render}"
    assert max(percents) > STAGE_START_PERCENT[FilmStage.RENDER] + 20
    assert final.percent == 100 and final.stage_percent == 100


async def _signal(handle: Any, activity_name: str, part: str, percent: int) -> Progress:
    """Send a stage's progress signal; the run's progress once a workflow task handled it."""
    await handle.signal(STAGE_PROGRESS_SIGNAL,
                        StageProgress(activity=activity_name, part=part, percent=percent))

    async def handled() -> bool:
        kinds = [event.event_type async for event in handle.fetch_history_events()]
        last_signal = max(i for i, kind in enumerate(kinds) if kind == SIGNALED)
        return COMPLETED in kinds[last_signal:]

    await eventually(handled, f"the workflow handling {activity_name} {part} at {percent} %")
    return await handle.query("progress", result_type=Progress)


async def test_segments_add_up_stale_reports_are_ignored_and_retries_never_go_back(
    temporal_env: WorkflowEnvironment,
) -> None:
    stages = FakeStages(render_workers=2)
    stages.gates["render_segment"] = asyncio.Event()
    async with fake_workers(temporal_env.client, stages) as queue:
        handle = await start_render(temporal_env.client, make_order(), task_queue=queue)
        at_render = await wait_for_stage(handle, FilmStage.RENDER)

        async def both_segments_running() -> bool:
            return stages.calls.count("render_segment") == 2

        await eventually(both_segments_running, "both segments running")
        segment = ActivityName.RENDER_SEGMENT
        first = await _signal(handle, segment, "7", 50)  # one of two segments half done
        assert first.stage_percent == 10 + round(85 * 0.25)
        both = await _signal(handle, segment, "8", 50)
        assert both.stage_percent == 10 + round(85 * 0.5)
        assert both.percent > first.percent > at_render.percent
        stale = await _signal(handle, ActivityName.RENDER_PLAN, "5", 100)  # plan is done
        assert stale.stage_percent == both.stage_percent
        retried = await _signal(handle, segment, "7", 5)  # a retry starts again at 5 %
        assert retried.stage_percent == both.stage_percent
        assert retried.percent == both.percent
        stages.gates["render_segment"].set()
        assert (await handle.result()).state is FilmState.SUCCEEDED
