"""FilmRunCleanup: deletes one run's working files (``orders/{gift_id}/runs/{attempt}/``) after
the retention that ops asked for (``FILM_RUN_RETENTION_DAYS``).

Without that setting they are deleted at once after the outcome report (the run's
``forget_run_files`` activity). With it, that activity starts this workflow with a start delay
of that many days (a durable timer on the server, nothing polls meanwhile); it then runs the
``clean_run`` activity once, retried until storage answers. Deterministic and tiny: one
activity, no configuration read. A start whose input is not one valid :class:`CleanupInput`
(say attempt 0) fails at once with the reason, never a workflow task retried for ever."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.api.common.v1 import Payload
from temporalio.common import RawValue, RetryPolicy
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from pydantic import BaseModel, ConfigDict, Field, ValidationError

    from workflows.contract import workflow_id
    from workflows.stages import ActivityName

CLEANUP_WORKFLOW_TYPE = "FilmRunCleanup"
INVALID_CLEANUP = "InvalidCleanupInput"
"""The error type of a FilmRunCleanup started without one valid :class:`CleanupInput`."""
CLEAN_RUN_TIMEOUT = timedelta(minutes=10)
"""Start-to-close of one deletion of a run's working files (``clean_run``, and
``forget_run_files`` after the report)."""
CLEAN_RUN_RETRY = RetryPolicy(initial_interval=timedelta(seconds=10), backoff_coefficient=2.0,
                              maximum_interval=timedelta(hours=1), maximum_attempts=0)
FORGET_RUN_FILES_RETRY = RetryPolicy(initial_interval=timedelta(seconds=5),
                                     backoff_coefficient=2.0,
                                     maximum_interval=timedelta(minutes=5), maximum_attempts=0)
FORGET_RUN_FILES_SCHEDULE_TO_CLOSE = timedelta(hours=1)
"""How long a run keeps trying to forget its working files after its outcome was reported;
past it they are left to the storage's lifecycle rule (README, "Retention") and the run ends
with its outcome all the same."""
_NO_INPUT = RawValue(Payload())


class CleanupInput(BaseModel):
    """Which run's working files to delete."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gift_id: str
    attempt: int = Field(ge=1)


def cleanup_workflow_id(gift_id: str, attempt: int) -> str:
    """``cleanup-film-{gift_id}-{attempt}``: one cleanup per run (a repeated report attaches)."""
    return f"cleanup-{workflow_id(gift_id, attempt)}"


def _invalid(why: str) -> ApplicationError:
    return ApplicationError(f"{CLEANUP_WORKFLOW_TYPE} needs one {{gift_id, attempt >= 1}}: {why}",
                            type=INVALID_CLEANUP, non_retryable=True)


def _reasons(error: ValidationError) -> str:
    """``attempt: Input should be greater than or equal to 1`` (each error, ``; ``-joined)."""
    return "; ".join(f"{'.'.join(str(part) for part in item['loc']) or 'input'}: {item['msg']}"
                     for item in error.errors())


# The input is taken raw and validated in the run: a payload the converter refuses (attempt 0,
# a missing field) would otherwise fail the workflow task, which the server retries for ever.
# A start with more than one argument fails the call itself (TypeError), so that fails the run.
@workflow.defn(name=CLEANUP_WORKFLOW_TYPE, failure_exception_types=[TypeError])
class FilmRunCleanup:
    """Delete one run's working files; returns how many files were deleted."""

    @workflow.run
    async def run(self, cleanup: RawValue = _NO_INPUT) -> int:
        """Validate the input, then run ``clean_run`` once (retried until storage answers)."""
        return await workflow.execute_activity(
            ActivityName.CLEAN_RUN, self._read(cleanup), result_type=int,
            start_to_close_timeout=CLEAN_RUN_TIMEOUT, retry_policy=CLEAN_RUN_RETRY)

    @staticmethod
    def _read(raw: RawValue) -> CleanupInput:
        """The start's :class:`CleanupInput`, or the error that fails the run at once."""
        if raw is _NO_INPUT:
            raise _invalid("started without input")
        try:
            return workflow.payload_converter().from_payload(raw.payload, CleanupInput)
        except ValidationError as error:
            raise _invalid(_reasons(error)) from None
        except Exception as error:  # not JSON, an unknown encoding: the same refusal
            raise _invalid(f"unreadable input ({type(error).__name__})") from None
