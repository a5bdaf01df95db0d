"""Report the run's outcome: the signed callback to the order API, or the local sink."""

from __future__ import annotations

from datetime import UTC, datetime

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.context import StageContext
from services.outcome import (
    UNAUTHORIZED_RETRY_S,
    OutcomeRejected,
    OutcomeRetryable,
    post_outcome,
    write_local_outcome,
)
from workflows.keys import outcome_key
from workflows.stages import ReportInput


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
