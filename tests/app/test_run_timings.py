"""The times ``filmworker render`` reads from a run's history: each stage's, and the customer's
wait (the workflow's start to the delivery's completion), apart from the command's own start."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from temporalio.api.history.v1 import HistoryEvent

from app.local_run import run_timings

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _event(event_id: int, at_s: float, **attributes: object) -> HistoryEvent:
    event = HistoryEvent(event_id=event_id, **attributes)
    event.event_time.FromDatetime(START + timedelta(seconds=at_s))
    return event


def _activity(first_id: int, name: str, scheduled_s: float, closed_s: float,
              ) -> list[HistoryEvent]:
    return [
        _event(first_id, scheduled_s, activity_task_scheduled_event_attributes={
            "activity_type": {"name": name}}),
        _event(first_id + 1, closed_s, activity_task_completed_event_attributes={
            "scheduled_event_id": first_id}),
    ]


def _history(deliver: bool = True) -> list[HistoryEvent]:
    events = [_event(1, 0.0, workflow_execution_started_event_attributes={})]
    stages = [("prep", 0.1, 1.1), ("assets", 1.2, 4.2), ("render_film", 4.3, 30.3),
              ("verify", 30.4, 31.5)] + ([("deliver", 31.6, 32.0)] if deliver else [])
    for index, (name, scheduled_s, closed_s) in enumerate(stages):
        events += _activity(10 + 2 * index, name, scheduled_s, closed_s)
    return events


def test_the_customers_wait_runs_from_the_workflows_start_to_the_delivery():
    timings = run_timings(_history())
    assert timings.delivered_after_s == 32.0
    assert round(timings.stages["assets"], 6) == 3.0
    assert round(timings.stages["render_film"], 6) == 26.0


def test_the_render_command_prints_the_customers_wait_beside_its_own_wall():
    lines = run_timings(_history()).lines(command_s=35.25)
    assert lines[0].startswith("stage wall seconds: prep 1.0, assets 3.0, render_film 26.0")
    assert lines[1] == ("delivered 32.0 s after the workflow's start (the customer's wait); "
                        "35.2 s with this command's dev server and worker start")


def test_a_run_that_delivered_nothing_says_no_delivery_time():
    timings = run_timings(_history(deliver=False))
    assert timings.delivered_after_s is None
    assert len(timings.lines(command_s=20.0)) == 1
