"""FilmRunCleanup: deletes one run's working files (``orders/{gift_id}/runs/{attempt}/``) after
the retention that ops asked for (``FILM_RUN_RETENTION_DAYS``).

Without that setting the outcome report deletes them at once. With it, the report starts this
workflow with a start delay of that many days (a durable timer on the server, nothing polls
meanwhile); it then runs the ``clean_run`` activity once, retried until storage answers.
Deterministic and tiny: one activity, no configuration read."""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, ConfigDict, Field
from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from workflows.contract import workflow_id
    from workflows.stages import ActivityName

CLEANUP_WORKFLOW_TYPE = "FilmRunCleanup"
CLEAN_RUN_TIMEOUT = timedelta(minutes=10)
CLEAN_RUN_RETRY = RetryPolicy(initial_interval=timedelta(seconds=10), backoff_coefficient=2.0,
                              maximum_interval=timedelta(hours=1), maximum_attempts=0)


class CleanupInput(BaseModel):
    """Which run's working files to delete."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gift_id: str
    attempt: int = Field(ge=1)


def cleanup_workflow_id(gift_id: str, attempt: int) -> str:
    """``cleanup-film-{gift_id}-{attempt}``: one cleanup per run (a repeated report attaches)."""
    return f"cleanup-{workflow_id(gift_id, attempt)}"


@workflow.defn(name=CLEANUP_WORKFLOW_TYPE)
class FilmRunCleanup:
    """Delete one run's working files; returns how many files were deleted."""

    @workflow.run
    async def run(self, cleanup: CleanupInput) -> int:
        """Run ``clean_run`` once (retried until storage answers)."""
        return await workflow.execute_activity(
            ActivityName.CLEAN_RUN, cleanup, result_type=int,
            start_to_close_timeout=CLEAN_RUN_TIMEOUT, retry_policy=CLEAN_RUN_RETRY)
