"""The start's intake: a start that arrived unsealed while payload keys are set."""

from __future__ import annotations

from temporalio import activity

from activities.context import StageContext
from workflows.intake import ids_from_workflow_id
from workflows.stages import PlainStart

PLAIN_STARTS_METRIC = "film_plain_starts"
"""Counter of unsealed starts under keys; Prometheus shows it as ``film_plain_starts_total``
(the exporter adds ``_total`` to every counter)."""


def run_plain_start(ctx: StageContext, start: PlainStart) -> bool:
    """Log and count an unsealed start (its customer text is in clear in the history); True
    when ``FILM_REFUSE_PLAIN_STARTS`` refuses it. Run as a local activity, so the decision is
    recorded and a replay on a worker with another setting takes the same path."""
    refuse = ctx.settings.refuse_plain_starts
    gift_id, attempt = ids_from_workflow_id(start.workflow_id)
    activity.logger.warning(
        "start payload arrived unsealed while FILM_PAYLOAD_KEYS is set: %s",
        "refused (FILM_REFUSE_PLAIN_STARTS)" if refuse else "accepted, its text is in clear",
        extra={"workflow_id": start.workflow_id, "gift_id": gift_id or "",
               "attempt": attempt or 0, "refused": refuse})
    activity.metric_meter().create_counter(
        PLAIN_STARTS_METRIC, "Starts that arrived unsealed while payload keys are set"
    ).add(1, {"refused": str(refuse).lower()})
    return refuse
