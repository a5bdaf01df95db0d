"""FilmRender's orchestration logic on the real dev server, with same-named fake stages.

These tests are about the workflow (order of stages, progress, search attributes, held/failed
classification, attaching to a live run); the stages themselves are tested for real elsewhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from services.storage.base import StorageUnavailable
from tests.helpers import (
    FAKE_CUTS,
    FAKE_FPS,
    FAKE_TOTAL_FRAMES,
    FakeStages,
    eventually,
    fake_workers,
    make_order,
    wait_for_stage,
)
from workflows.cleanup import CleanupInput
from workflows.contract import (
    FilmStage,
    FilmState,
    Progress,
    start_render,
)
from workflows.search import FILM_STAGE, FILM_STATE, FILM_TIER, GIFT_ID
from workflows.segments import plan_segments
from workflows.stages import (
    HOLD_ERROR_TYPE,
    MEDIA_STAGES,
    ActivityName,
    TaskQueue,
    activities_on,
    media_task_queue,
)


@pytest_asyncio.fixture
async def fake_worker(temporal_env: WorkflowEnvironment) -> AsyncIterator[tuple[Client, str,
                                                                               FakeStages]]:
    """Fake-stage workers on their own task queue (see :func:`fake_workers`)."""
    stages = FakeStages()
    async with fake_workers(temporal_env.client, stages) as queue:
        yield temporal_env.client, queue, stages


# What each stage calls when rendered on one worker (the render stage: plan, the whole film).
STAGE_ACTIVITIES: dict[FilmStage, tuple[str, ...]] = {
    stage: ("render_plan", "render_film") if stage is FilmStage.RENDER else (stage.value,)
    for stage in FilmStage
}


async def test_progress_moves_through_the_stages_in_order(fake_worker: Any) -> None:
    client, queue, stages = fake_worker
    for stage in FilmStage:
        stages.gates[STAGE_ACTIVITIES[stage][0]] = asyncio.Event()
    handle = await start_render(client, make_order(), task_queue=queue)
    percents = []
    for stage in FilmStage:
        progress = await wait_for_stage(handle, stage)
        assert progress.state is FilmState.RUNNING
        percents.append(progress.percent)
        attributes = (await handle.describe()).typed_search_attributes
        assert attributes.get(FILM_STAGE) == stage.value
        stages.gates[STAGE_ACTIVITIES[stage][0]].set()
    outcome = await handle.result()
    assert stages.calls == [name for stage in FilmStage for name in STAGE_ACTIVITIES[stage]]
    assert percents == sorted(percents) and percents[0] == 0
    assert outcome.state is FilmState.SUCCEEDED and outcome.stage is FilmStage.DELIVER
    assert outcome.film_url == {"16x9": "u1", "9x16": "u2"}
    final = await handle.query("progress", result_type=Progress)
    assert (final.state, final.percent) == (FilmState.SUCCEEDED, 100)
    attributes = (await handle.describe()).typed_search_attributes
    assert attributes.get(FILM_STATE) == "succeeded"
    assert attributes.get(FILM_TIER) == "standard"
    assert attributes.get(GIFT_ID) == (await handle.describe()).id.split("-")[1]
    assert stages.reported == [outcome]


async def test_repeated_start_attaches_to_the_live_run(fake_worker: Any) -> None:
    client, queue, stages = fake_worker
    stages.gates["prep"] = asyncio.Event()
    order = make_order()
    first = await start_render(client, order, task_queue=queue)
    second = await start_render(client, order, task_queue=queue)
    assert first.id == second.id == order.workflow_id
    assert first.result_run_id == second.result_run_id
    stages.gates["prep"].set()
    await first.result()
    assert stages.calls.count("prep") == 1
    assert len(stages.reported) == 1


async def test_a_hold_ends_the_run_held_and_is_reported_once(fake_worker: Any) -> None:
    client, queue, stages = fake_worker
    stages.failures["gate"] = lambda: ApplicationError(
        "no usable photo", "no_usable_photos", type=HOLD_ERROR_TYPE, non_retryable=True)
    handle = await start_render(client, make_order(), task_queue=queue)
    outcome = await handle.result()
    assert (outcome.state, outcome.stage, outcome.reason) == (
        FilmState.HELD, FilmStage.GATE, "no_usable_photos")
    assert stages.calls == ["prep", "gate"]
    assert stages.reported == [outcome]
    assert (await handle.describe()).typed_search_attributes.get(FILM_STATE) == "held"


@pytest.mark.timeout(120)
async def test_a_fault_of_ours_is_retried_then_ends_the_run_failed(fake_worker: Any) -> None:
    client, queue, stages = fake_worker
    stages.failures["render_plan"] = lambda: RuntimeError("encoder crashed")
    handle = await start_render(client, make_order(), task_queue=queue)
    outcome = await handle.result()
    assert (outcome.state, outcome.stage) == (FilmState.FAILED, FilmStage.RENDER)
    assert outcome.reason == "render_failed:RuntimeError"
    assert stages.calls.count("render_plan") == 3, "three attempts before giving up"
    assert "verify" not in stages.calls
    assert stages.reported == [outcome]


async def test_media_stages_run_on_the_media_queue_and_orchestration_on_the_main_one(
    fake_worker: Any,
) -> None:
    client, queue, stages = fake_worker
    outcome = await (await start_render(client, make_order(), task_queue=queue)).result()
    assert outcome.state is FilmState.SUCCEEDED
    expected = {name: media_task_queue(queue) if stage in MEDIA_STAGES else queue
                for stage in FilmStage for name in STAGE_ACTIVITIES[stage]}
    assert stages.queues == {**expected, "report_outcome": queue, "forget_run_files": queue}
    assert stages.queues["gate"] == queue
    assert stages.queues["render_film"] == f"{queue}-media"


def test_the_media_worker_runs_every_media_stage_activity_and_no_orchestration_one() -> None:
    media_activities = {"prep", "assets", "render_plan", "render_segment", "render_join",
                        "render_film", "verify", "deliver"}
    assert set(activities_on(TaskQueue.MEDIA)) == media_activities
    assert set(activities_on(TaskQueue.MAIN)) == {"gate", "report_outcome", "forget_run_files",
                                                  "clean_run", "plain_start"}
    assert "render" not in {name.value for name in ActivityName}, "no render stage activity"


async def test_a_film_planned_as_one_segment_is_rendered_whole_with_no_segment_or_join(
    fake_worker: Any,
) -> None:
    client, queue, stages = fake_worker
    outcome = await (await start_render(client, make_order(), task_queue=queue)).result()
    assert outcome.state is FilmState.SUCCEEDED
    assert stages.calls[3:6] == ["render_plan", "render_film", "verify"]
    assert "render_segment" not in stages.calls and "render_join" not in stages.calls
    assert outcome.duration_sec == FAKE_TOTAL_FRAMES / FAKE_FPS


@pytest.mark.timeout(120)
async def test_a_failing_whole_film_render_ends_the_run_failed_and_is_reported_once(
    fake_worker: Any,
) -> None:
    client, queue, stages = fake_worker
    stages.failures["render_film"] = lambda: RuntimeError("x264 segfaulted")
    outcome = await (await start_render(client, make_order(), task_queue=queue)).result()
    assert (outcome.state, outcome.stage) == (FilmState.FAILED, FilmStage.RENDER)
    assert outcome.reason == "render_failed:RuntimeError"
    assert stages.calls.count("render_film") == 3, "three attempts before giving up"
    assert "render_segment" not in stages.calls and "verify" not in stages.calls
    assert stages.reported == [outcome]


async def test_render_is_split_into_as_many_segments_as_the_plan_allows_then_joined(
    temporal_env: WorkflowEnvironment,
) -> None:
    stages = FakeStages(render_workers=3)
    stages.gates["render_segment"] = asyncio.Event()
    async with fake_workers(temporal_env.client, stages) as queue:
        handle = await start_render(temporal_env.client, make_order(), task_queue=queue)

        async def three_segments_running() -> bool:
            return stages.calls.count("render_segment") == 3

        # all three are scheduled at once, before any of them finished
        await eventually(three_segments_running, "three segments running")
        assert "render_join" not in stages.calls
        stages.gates["render_segment"].set()
        outcome = await handle.result()
    assert outcome.state is FilmState.SUCCEEDED
    ranges = sorted((s.start_frame, s.stop_frame) for s in stages.segments)
    assert ranges == plan_segments(FAKE_TOTAL_FRAMES, FAKE_CUTS, 3, FAKE_FPS)
    assert ranges[0][0] == 0 and ranges[-1][1] == FAKE_TOTAL_FRAMES and len(ranges) == 3
    assert sorted(s.index for s in stages.segments) == [0, 1, 2]
    assert stages.calls[3:8] == ["render_plan", *["render_segment"] * 3, "render_join"]
    split_parts = ("render_plan", "render_segment", "render_join")
    assert {stages.queues[n] for n in split_parts} == {media_task_queue(queue)}
    assert "render_film" not in stages.calls
    assert stages.reported == [outcome]


@pytest.mark.timeout(120)
async def test_a_failing_segment_ends_the_run_failed_and_is_reported_once(
    temporal_env: WorkflowEnvironment,
) -> None:
    stages = FakeStages(render_workers=3)
    stages.failures["render_segment:1"] = lambda: RuntimeError("x264 segfaulted")
    async with fake_workers(temporal_env.client, stages) as queue:
        outcome = await (await start_render(temporal_env.client, make_order(),
                                            task_queue=queue)).result()
    assert (outcome.state, outcome.stage) == (FilmState.FAILED, FilmStage.RENDER)
    assert outcome.reason == "render_failed:RuntimeError"
    assert [s.index for s in stages.segments].count(1) == 3, "three attempts before giving up"
    assert [s.index for s in stages.segments].count(0) == 1
    assert "render_join" not in stages.calls and "verify" not in stages.calls
    assert stages.reported == [outcome]


async def test_the_run_files_are_forgotten_after_the_outcome_is_reported(
    fake_worker: Any,
) -> None:
    client, queue, stages = fake_worker
    order = make_order()
    outcome = await (await start_render(client, order, task_queue=queue)).result()
    assert stages.reported == [outcome]
    assert stages.forgotten == [CleanupInput(gift_id=order.gift_id, attempt=order.attempt)]


@pytest.mark.timeout(120)
async def test_a_storage_error_while_forgetting_the_run_files_is_retried_without_reporting_again(
    fake_worker: Any,
) -> None:
    client, queue, stages = fake_worker
    stages.forget_failures = [StorageUnavailable("S3 answered 503"), StorageUnavailable("reset")]
    outcome = await (await start_render(client, make_order(), task_queue=queue)).result()
    assert outcome.state is FilmState.SUCCEEDED
    assert len(stages.forgotten) == 3, "two storage errors, then deleted"
    assert stages.reported == [outcome], "the outcome was posted once"


async def test_a_run_whose_files_cannot_be_forgotten_still_ends_with_its_reported_outcome(
    fake_worker: Any,
) -> None:
    client, queue, stages = fake_worker
    stages.forget_failures = [ApplicationError("bucket gone", type="NoSuchBucket",
                                               non_retryable=True)]
    handle = await start_render(client, make_order(), task_queue=queue)
    outcome = await handle.result()
    assert outcome.state is FilmState.SUCCEEDED
    assert stages.reported == [outcome] and len(stages.forgotten) == 1
