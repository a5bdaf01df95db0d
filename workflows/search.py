"""Custom search attributes: every key defined once, typed, imported everywhere else."""

from __future__ import annotations

from temporalio.common import SearchAttributeKey

GIFT_ID = SearchAttributeKey.for_keyword("GiftId")
FILM_STATE = SearchAttributeKey.for_keyword("FilmState")
FILM_STAGE = SearchAttributeKey.for_keyword("FilmStage")
FILM_TIER = SearchAttributeKey.for_keyword("FilmTier")

ALL_KEYS = (GIFT_ID, FILM_STATE, FILM_STAGE, FILM_TIER)

# Ops visibility queries (Temporal UI search box, `temporal workflow list --query`, README).
HELD_RUNS = "FilmState = 'held'"
FAILED_RUNS = "FilmState = 'failed'"
UNREPORTED_RUNS = ("WorkflowType = 'FilmRender' AND ExecutionStatus = 'Running' "
                   "AND FilmState != 'running'")


def stuck_runs(stage: str, started_before: str) -> str:
    """Runs still in ``stage`` that started before ``started_before`` (RFC 3339, UTC)."""
    return (f"FilmState = 'running' AND FilmStage = '{stage}' "
            f"AND StartTime < '{started_before}'")
