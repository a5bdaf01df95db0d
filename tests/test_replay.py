"""Replay: every recorded history must replay against the current FilmRender, so a
non-deterministic workflow change fails CI; workflow changes go through ``workflow.patched``.

``tests/histories/v1-main-queue/`` was recorded from the workflow as it was before the media
task queue (all stages on one queue); ``v2-media-queue/`` before the render stage was split into
segments (one ``render`` activity); ``v3-render-segments/`` (two segments) and
``v3-one-segment/`` (one segment and its join) before a film planned as one segment was rendered
whole; ``v4-render-whole-film/`` from the current code. Record a new version with
``python -m tests.histories.record --out tests/histories/<version>`` after a patched change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHistory
from temporalio.testing import WorkflowEnvironment

from app.ops import read_history, replay
from tests.processes import filmworker
from tests.test_workflow import FakeStages, fake_workers, make_order
from workflows.contract import start_render
from workflows.film import (
    MEDIA_QUEUE_PATCH,
    MEDIA_STAGES,
    RENDER_SEGMENTS_PATCH,
    RENDER_WHOLE_FILM_PATCH,
    media_task_queue,
)
from workflows.stages import RENDER_ACTIVITIES, ActivityName

HISTORIES = Path(__file__).resolve().parent / "histories"
RECORDED = sorted(HISTORIES.glob("*/*.json"))
BEFORE_PATCH, AFTER_PATCH = HISTORIES / "v1-main-queue", HISTORIES / "v2-media-queue"
SEGMENTS = HISTORIES / "v3-render-segments"
ONE_SEGMENT, WHOLE_FILM = HISTORIES / "v3-one-segment", HISTORIES / "v4-render-whole-film"
VERSIONS = (BEFORE_PATCH, AFTER_PATCH, SEGMENTS, ONE_SEGMENT, WHOLE_FILM)


def patch_ids(history: WorkflowHistory) -> list[str]:
    """The ``workflow.patched`` ids recorded in ``history``."""
    ids = []
    for event in history.events:
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            for payload in event.marker_recorded_event_attributes.details["patch-data"].payloads:
                ids.append(json.loads(payload.data)["id"])
    return ids


def scheduled_activities(history: WorkflowHistory) -> list[str]:
    """Activity types in the order they were scheduled."""
    return [e.activity_task_scheduled_event_attributes.activity_type.name
            for e in history.events
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED]


def activity_queues(history: WorkflowHistory) -> dict[str, str]:
    """Activity type -> the task queue it was scheduled on."""
    return {
        e.activity_task_scheduled_event_attributes.activity_type.name:
            e.activity_task_scheduled_event_attributes.task_queue.name
        for e in history.events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }


def workflow_queue(history: WorkflowHistory) -> str:
    """The task queue the run was started on."""
    return history.events[0].workflow_execution_started_event_attributes.task_queue.name


def test_recorded_histories_cover_succeeded_held_and_failed_before_and_after_each_patch(
) -> None:
    recorded = {(path.parent.name, path.stem) for path in RECORDED}
    for version in VERSIONS:
        assert {(version.name, kind) for kind in ("succeeded", "held", "failed")} <= recorded


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
async def test_recorded_history_replays_against_the_current_workflow(path: Path) -> None:
    result = await replay(read_history(path))
    assert result.replay_failure is None, result.replay_failure


async def test_history_from_before_the_patch_replays_and_keeps_its_single_queue() -> None:
    old = read_history(BEFORE_PATCH / "succeeded.json")
    assert patch_ids(old) == []
    assert set(activity_queues(old).values()) == {workflow_queue(old)}
    assert (await replay(old)).replay_failure is None

    new = read_history(AFTER_PATCH / "succeeded.json")
    assert patch_ids(new) == [MEDIA_QUEUE_PATCH]
    queue = workflow_queue(new)
    assert activity_queues(new) == {
        name: media_task_queue(queue) if name in MEDIA_STAGES else queue
        for name in activity_queues(old)
    }


async def test_history_from_before_the_split_renders_in_one_activity_and_still_replays() -> None:
    old = read_history(AFTER_PATCH / "succeeded.json")
    assert ActivityName.RENDER in scheduled_activities(old)
    assert not set(RENDER_ACTIVITIES) & set(scheduled_activities(old))
    assert (await replay(old)).replay_failure is None

    new = read_history(SEGMENTS / "succeeded.json")
    assert patch_ids(new) == [MEDIA_QUEUE_PATCH, RENDER_SEGMENTS_PATCH]
    names = scheduled_activities(new)
    assert ActivityName.RENDER not in names
    render = names[names.index(ActivityName.RENDER_PLAN):names.index(ActivityName.RENDER_JOIN) + 1]
    assert render == ["render_plan", "render_segment", "render_segment", "render_join"]
    queue = workflow_queue(new)
    assert {activity_queues(new)[n] for n in render} == {media_task_queue(queue)}

    failed = scheduled_activities(read_history(SEGMENTS / "failed.json"))
    assert "render_segment" in failed and "render_join" not in failed and "verify" not in failed


def render_activities(names: list[str]) -> list[str]:
    """The render stage's part of ``names``: from ``render_plan`` to just before ``verify``."""
    return names[names.index(ActivityName.RENDER_PLAN):names.index(ActivityName.VERIFY)]


async def test_one_segment_history_from_before_the_whole_film_render_replays_with_its_join(
) -> None:
    old = read_history(ONE_SEGMENT / "succeeded.json")
    assert patch_ids(old) == [MEDIA_QUEUE_PATCH, RENDER_SEGMENTS_PATCH]
    assert render_activities(scheduled_activities(old)) == [
        "render_plan", "render_segment", "render_join"]
    assert (await replay(old)).replay_failure is None

    new = read_history(WHOLE_FILM / "succeeded.json")
    assert patch_ids(new) == [MEDIA_QUEUE_PATCH, RENDER_SEGMENTS_PATCH, RENDER_WHOLE_FILM_PATCH]
    assert render_activities(scheduled_activities(new)) == ["render_plan", "render_film"]
    assert activity_queues(new)["render_film"] == media_task_queue(workflow_queue(new))

    failed = scheduled_activities(read_history(WHOLE_FILM / "failed.json"))
    assert "render_film" in failed and "render_segment" not in failed and "verify" not in failed


def tampered(source: Path, dest: Path) -> Path:
    """``source`` with its gate stage renamed: what a reordered or renamed stage looks like."""
    history = json.loads(source.read_text(encoding="utf-8"))
    for event in history["events"]:
        scheduled = event.get("activityTaskScheduledEventAttributes")
        if scheduled and scheduled["activityType"]["name"] == "gate":
            scheduled["activityType"]["name"] = "moderation"
    dest.write_text(json.dumps(history), encoding="utf-8")
    return dest


async def test_replay_command_exits_non_zero_on_a_non_deterministic_history(
    tmp_path: Path,
) -> None:
    good = filmworker("replay", str(AFTER_PATCH / "held.json"), )
    assert good.returncode == 0, good.stderr
    assert "replayed" in good.stdout
    bad = tampered(AFTER_PATCH / "succeeded.json", tmp_path / "changed.json")
    result = filmworker("replay", str(bad), )
    assert result.returncode == 1
    assert "replay FAILED" in result.stderr and "ondeterminism" in result.stderr


async def test_replay_command_fetches_a_run_by_workflow_id(
    temporal_env: WorkflowEnvironment,
) -> None:
    async with fake_workers(temporal_env.client, FakeStages(), "replay") as queue:
        handle = await start_render(temporal_env.client, make_order(), task_queue=queue)
        await handle.result()
    address = temporal_env.client.service_client.config.target_host
    result = filmworker("replay", "--workflow-id", handle.id,
                        env={**os.environ, "TEMPORAL_ADDRESS": address})
    assert result.returncode == 0, result.stderr
    assert f"{handle.id}: replayed" in result.stdout
