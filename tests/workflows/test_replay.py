"""Replay: every recorded history must replay against the current FilmRender, so a
non-deterministic workflow change fails CI.

``tests/histories/baseline/`` holds one run per outcome (``succeeded``: the film rendered whole;
``held``; ``failed``) and ``succeeded-segmented`` (the render split into two segments and
joined), recorded from the current code with ``python -m tests.histories.record --out
tests/histories/baseline``. How a later change keeps old runs replaying is in the README
("Replay and versioning").
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
from tests.helpers import FakeStages, fake_workers, make_order
from tests.processes import filmworker
from workflows.contract import start_render
from workflows.stages import MEDIA_STAGES, STAGE_ACTIVITIES, ActivityName, media_task_queue

HISTORIES = Path(__file__).resolve().parents[1] / "histories"
RECORDED = sorted(HISTORIES.glob("*/*.json"))
BASELINE = HISTORIES / "baseline"
BASELINE_KINDS = ("succeeded", "succeeded-segmented", "held", "failed")


def marker_names(history: WorkflowHistory) -> list[str]:
    """The names of the markers recorded in ``history`` (``workflow.patched`` writes one)."""
    return [e.marker_recorded_event_attributes.marker_name for e in history.events
            if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED]


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


def render_activities(names: list[str]) -> list[str]:
    """The render stage's part of ``names``: from ``render_plan`` to just before ``verify``."""
    return names[names.index(ActivityName.RENDER_PLAN):names.index(ActivityName.VERIFY)]


def test_the_baseline_holds_one_history_per_outcome_and_one_segmented_render() -> None:
    assert sorted(path.stem for path in BASELINE.glob("*.json")) == sorted(BASELINE_KINDS)


@pytest.mark.slow
@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.stem}")
async def test_recorded_history_replays_against_the_current_workflow(path: Path) -> None:
    result = await replay(read_history(path))
    assert result.replay_failure is None, result.replay_failure


@pytest.mark.parametrize("kind", BASELINE_KINDS)
def test_baseline_history_has_no_patch_marker(kind: str) -> None:
    assert marker_names(read_history(BASELINE / f"{kind}.json")) == []


def test_baseline_runs_media_stages_on_the_media_queue_and_gate_and_report_on_the_main_one(
) -> None:
    history = read_history(BASELINE / "succeeded.json")
    queue = workflow_queue(history)
    media = {name for stage in MEDIA_STAGES for name in STAGE_ACTIVITIES[stage]}
    assert activity_queues(history) == {
        name: media_task_queue(queue) if name in media else queue
        for name in scheduled_activities(history)
    }
    assert activity_queues(history)[ActivityName.GATE] == queue
    assert activity_queues(history)[ActivityName.REPORT_OUTCOME] == queue
    assert activity_queues(history)[ActivityName.FORGET_RUN_FILES] == queue


def test_baseline_renders_a_one_segment_film_whole_and_a_longer_split_in_segments_and_joined(
) -> None:
    whole = read_history(BASELINE / "succeeded.json")
    assert scheduled_activities(whole) == ["prep", "gate", "assets", "render_plan", "render_film",
                                           "verify", "deliver", "report_outcome",
                                           "forget_run_files"]

    segmented = read_history(BASELINE / "succeeded-segmented.json")
    render = render_activities(scheduled_activities(segmented))
    assert render == ["render_plan", "render_segment", "render_segment", "render_join"]
    queue = media_task_queue(workflow_queue(segmented))
    assert {activity_queues(segmented)[name] for name in render} == {queue}


def test_baseline_failed_run_ends_at_the_render_and_held_run_at_the_gate() -> None:
    failed = scheduled_activities(read_history(BASELINE / "failed.json"))
    assert "render_film" in failed and "render_segment" not in failed
    assert "verify" not in failed
    assert failed[-2:] == [ActivityName.REPORT_OUTCOME, ActivityName.FORGET_RUN_FILES]

    held = scheduled_activities(read_history(BASELINE / "held.json"))
    assert held == ["prep", "gate", "report_outcome", "forget_run_files"]


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
    good = filmworker("replay", str(BASELINE / "held.json"))
    assert good.returncode == 0, good.stderr
    assert "replayed" in good.stdout
    bad = tampered(BASELINE / "succeeded.json", tmp_path / "changed.json")
    result = filmworker("replay", str(bad))
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
