"""Report the run's outcome (the signed callback to the order API, or the local sink); then, as
an activity of its own, forget the run's working files: deleted at once, or after
``FILM_RUN_RETENTION_DAYS`` by a delayed :class:`workflows.cleanup.FilmRunCleanup`. Apart, so
that a storage error while the files are deleted is retried without posting the outcome again."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from temporalio import activity
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.exceptions import ApplicationError

from activities.context import StageContext
from services.outcome import (
    UNAUTHORIZED_RETRY_S,
    OutcomeRejected,
    OutcomeRetryable,
    post_outcome,
    write_local_outcome,
)
from services.storage.base import InvalidStorageKey
from workflows.cleanup import CLEANUP_WORKFLOW_TYPE, CleanupInput, cleanup_workflow_id
from workflows.keys import outcome_key, run_prefix
from workflows.stages import ReportInput

log = logging.getLogger(__name__)


def run_report(ctx: StageContext, report_input: ReportInput) -> str:
    """Deliver the outcome once in effect; the workflow's retry policy does the retrying."""
    outcome = report_input.outcome
    settings = ctx.settings
    if not settings.order_api_url:
        key = outcome_key(outcome.workflow_id)
        write_local_outcome(ctx.storage, key, outcome)
        return f"written to local sink {key}"
    if not settings.order_api_secret:
        raise ApplicationError("FILM_ORDER_API_SECRET is not set", type="OutcomeRejected",
                               non_retryable=True)
    try:
        result = post_outcome(settings.order_api_url, settings.order_api_secret,
                              report_input.gift_id, outcome,
                              retry_unauthorized=_reporting_for_s() < UNAUTHORIZED_RETRY_S)
    except OutcomeRejected as error:
        raise ApplicationError(str(error), type="OutcomeRejected", non_retryable=True) from error
    except OutcomeRetryable as error:
        activity.logger.warning("outcome not accepted yet: %s", error)
        raise
    return "already recorded" if result.already_recorded else "accepted"


def _reporting_for_s() -> float:
    """Seconds since this report's first attempt was scheduled (0 outside an activity)."""
    if not activity.in_activity():
        return 0.0
    return (datetime.now(UTC) - activity.info().scheduled_time).total_seconds()


def run_clean(ctx: StageContext, cleanup: CleanupInput) -> int:
    """Delete every file under the run's working prefix; how many there were. Idempotent."""
    prefix = run_prefix(cleanup.gift_id, cleanup.attempt) + "/"
    try:
        keys = ctx.storage.list(prefix)
    except InvalidStorageKey:  # an order refused before prep (a gift id outside the contract)
        return 0
    for key in keys:
        ctx.storage.delete(key)
    log.info("run files deleted", extra={"gift_id": cleanup.gift_id, "attempt": cleanup.attempt,
                                         "result": len(keys)})
    return len(keys)


async def keep_run_files(client: Client, cleanup: CleanupInput, days: float,
                         task_queue: str) -> None:
    """Start the run's :class:`FilmRunCleanup` ``days`` from now (a repeated report attaches to
    the one already waiting)."""
    await client.start_workflow(
        CLEANUP_WORKFLOW_TYPE, cleanup, id=cleanup_workflow_id(cleanup.gift_id, cleanup.attempt),
        task_queue=task_queue, start_delay=timedelta(days=days),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING)
