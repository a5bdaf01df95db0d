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
from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from activities.context import StageContext
from app.order_folder import load_order_folder
from app.workers import running_worker
from services.settings import Settings
from workflows.cleanup import cleanup_workflow_id
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
