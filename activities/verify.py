"""Verify stage: both films against the output spec; a miss fails the run (not retried)."""

from __future__ import annotations

from temporalio.exceptions import ApplicationError

from activities.context import Heartbeater, StageContext
from media.spec import ASPECTS
from media.verify import verify_film
from workflows.stages import VerifyInput, VerifyResult

SPEC_MISS_ERROR_TYPE = "FilmSpecMiss"


def run_verify(ctx: StageContext, verify_input: VerifyInput) -> VerifyResult:
    """Probe and measure both films; raise a non-retryable error listing every miss."""
    order, rendered = verify_input.order, verify_input.render
    measurements: dict[str, dict[str, float | str]] = {}
    problems: list[str] = []
    with ctx.scratch("verify") as scratch, Heartbeater("verify") as heartbeat:
        for index, aspect in enumerate(ASPECTS):
            heartbeat.update(percent=50 * index, item=aspect.name)
            local = ctx.storage.get_file(rendered.film_keys[aspect.name],
                                         scratch / f"{aspect.name}.mp4")
            report = verify_film(local, aspect=aspect, planned_duration_s=order.length_sec)
            measurements[aspect.name] = report.measurements
            problems += [f"{aspect.name}: {problem}" for problem in report.problems]
    if problems:
        raise ApplicationError("film misses the output spec: " + "; ".join(problems),
                               type=SPEC_MISS_ERROR_TYPE, non_retryable=True)
    return VerifyResult(measurements=measurements)
