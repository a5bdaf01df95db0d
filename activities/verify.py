"""Verify stage: both films against the output spec; a miss fails the run (not retried)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from temporalio.exceptions import ApplicationError

from activities.context import Heartbeater, StageContext
from media.spec import ASPECTS
from media.verify import verify_film
from workflows.stages import VerifyInput, VerifyResult

SPEC_MISS_ERROR_TYPE = "FilmSpecMiss"


def run_verify(ctx: StageContext, verify_input: VerifyInput) -> VerifyResult:
    """Probe and measure both films (side by side: each check is mostly one single-threaded
    ffmpeg filter chain); raise a non-retryable error listing every miss."""
    order, rendered = verify_input.order, verify_input.render
    problems: list[str] = []
    with ctx.scratch("verify") as scratch, Heartbeater("verify") as heartbeat:
        films = {a.name: ctx.storage.get_file(rendered.film_keys[a.name],
                                                scratch / f"{a.name}.mp4") for a in ASPECTS}
        heartbeat.update(percent=10, item="both films")
        with ThreadPoolExecutor(max_workers=len(ASPECTS)) as pool:
            futures = {a.name: pool.submit(verify_film, films[a.name], aspect=a,
                                           planned_duration_s=order.length_sec)
                       for a in ASPECTS}
            reports = {name: future.result() for name, future in futures.items()}
    for name, report in reports.items():
        problems += [f"{name}: {problem}" for problem in report.problems]
    if problems:
        raise ApplicationError("film misses the output spec: " + "; ".join(problems),
                               type=SPEC_MISS_ERROR_TYPE, non_retryable=True)
    return VerifyResult(measurements={name: r.measurements for name, r in reports.items()})
