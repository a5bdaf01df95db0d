"""A run's working files (``orders/{gift_id}/runs/{attempt}/``) live no longer than needed:
deleted once the outcome is reported, or kept ``FILM_RUN_RETENTION_DAYS`` and then deleted by
a delayed cleanup workflow. (Succeeded, held and failed runs of the real pipeline check the
first in tests/test_pipeline.py; S3 in tests/test_ops.py.)"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import pytest
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities.context import StageContext
from app.order_folder import load_order_folder
from app.workers import running_worker
from services.settings import Settings
from workflows.cleanup import CLEANUP_WORKFLOW_TYPE, INVALID_CLEANUP, cleanup_workflow_id
from workflows.contract import FilmOrder, FilmState, start_render

SAMPLE_ORDER = Path(__file__).resolve().parents[1] / "fixtures" / "order"
KEPT_S = 3.0


def held_at_the_gate(settings: Settings) -> FilmOrder:
    """The fixture's photos (prep writes their prepared copies under runs/), no consent."""
    order = load_order_folder(SAMPLE_ORDER, settings, f"keep{uuid.uuid4().hex[:10]}")
    return order.model_copy(update={"clips": [], "consent": order.consent.model_copy(
        update={"accepted": False})})


@pytest.mark.timeout(300)
async def test_run_files_are_kept_the_configured_days_then_deleted_by_the_cleanup_workflow(
    temporal_env: WorkflowEnvironment, tmp_path: Path,
) -> None:
    settings = Settings(FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}",
                        FILM_TASK_QUEUE=f"keep-{uuid.uuid4()}", FILM_WORK_DIR=str(tmp_path / "w"),
                        FILM_RUN_RETENTION_DAYS=KEPT_S / 86400)
    storage = StageContext.from_settings(settings).storage
    order = held_at_the_gate(settings)
    async with running_worker(temporal_env.client, settings):
        reported = time.monotonic()
        outcome = await (await start_render(temporal_env.client, order,
                                            task_queue=settings.task_queue)).result()
        assert (outcome.state, outcome.reason) == (FilmState.HELD, "consent_missing")
        kept = storage.list(order.run_prefix + "/")
        assert any("/prep/photos/" in key for key in kept), kept  # kept after the report
        cleanup = temporal_env.client.get_workflow_handle(
            cleanup_workflow_id(order.gift_id, order.attempt))
        assert await asyncio.wait_for(cleanup.result(), timeout=120) == len(kept)
        assert time.monotonic() - reported >= KEPT_S - 0.5
    assert storage.list(order.run_prefix + "/") == []
    assert (await cleanup.describe()).status is WorkflowExecutionStatus.COMPLETED


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("arguments", "reason"), [
    ([{"gift_id": "g0", "attempt": 0}], "attempt: Input should be greater than or equal to 1"),
    ([{"gift_id": "g0", "attempt": -1}], "attempt: Input should be greater than or equal to 1"),
    ([{"gift_id": "g0"}], "attempt: Field required"),
    (["film-g0-1"], "input: Input should be an object"),
    ([], "started without input"),
    ([{"gift_id": "g0", "attempt": 1}, {"gift_id": "g0", "attempt": 2}], "TypeError"),
])
async def test_a_cleanup_started_without_a_valid_run_fails_at_once_with_the_reason(
    temporal_env: WorkflowEnvironment, tmp_path: Path, arguments: list[object], reason: str,
) -> None:
    settings = Settings(FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}",
                        FILM_TASK_QUEUE=f"badclean-{uuid.uuid4()}",
                        FILM_WORK_DIR=str(tmp_path / "w"))
    async with running_worker(temporal_env.client, settings):
        handle = await temporal_env.client.start_workflow(
            CLEANUP_WORKFLOW_TYPE, args=arguments, id=f"cleanup-bad-{uuid.uuid4()}",
            task_queue=settings.task_queue)
        with pytest.raises(WorkflowFailureError) as failed:
            await asyncio.wait_for(handle.result(), timeout=60)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError), cause
    if reason != "TypeError":
        assert cause.type == INVALID_CLEANUP
    assert reason in str(cause)
    history = await handle.fetch_history()
    assert not [e for e in history.events if e.HasField("workflow_task_failed_event_attributes")]
