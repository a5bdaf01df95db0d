"""Verify stage: both films against the output spec; a miss fails the run (not retried)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.context import Heartbeater, StageContext
from media.base.spec import ASPECTS
from media.deliver.verify import SoundMeasures, verify_film
from media.frames.signal import STORED_MAX_BYTES, FrameSignal
from services.storage.base import Storage
from workflows.stages import VerifyInput, VerifyResult

SPEC_MISS_ERROR_TYPE = "FilmSpecMiss"


def load_signal(storage: Storage, key: str | None) -> FrameSignal | None:
    """The frame signal the render stored under ``key``; None without one, or if it does not
    read as one (verify then decodes the film's picture instead)."""
    if not key:
        return None
    try:
        return FrameSignal.from_bytes(storage.get_bytes(key, STORED_MAX_BYTES))
    except ValueError:
        activity.logger.warning("frame signal %s unreadable; decoding the film instead", key)
        return None


def run_verify(ctx: StageContext, verify_input: VerifyInput) -> VerifyResult:
    """Probe and measure both films side by side, their pictures against what the render
    measured of the frames it composed; raise a non-retryable error listing every miss."""
    order, rendered = verify_input.order, verify_input.render
    problems: list[str] = []
    with ctx.scratch("verify") as scratch, Heartbeater("verify") as heartbeat:
        films = {a.name: ctx.storage.get_file(rendered.film_keys[a.name],
                                                scratch / f"{a.name}.mp4") for a in ASPECTS}
        heartbeat.update(percent=10, item="both films")
        sound = SoundMeasures()  # both films carry one soundtrack: measured once
        with ThreadPoolExecutor(max_workers=len(ASPECTS)) as pool:
            futures = {a.name: pool.submit(verify_film, films[a.name], aspect=a,
                                           planned_duration_s=order.length_sec,
                                           signal=load_signal(ctx.storage,
                                                              rendered.signal_keys.get(a.name)),
                                           sound=sound)
                       for a in ASPECTS}
            reports = {name: future.result() for name, future in futures.items()}
    for name, report in reports.items():
        problems += [f"{name}: {problem}" for problem in report.problems]
    if problems:
        raise ApplicationError("film misses the output spec: " + "; ".join(problems),
                               type=SPEC_MISS_ERROR_TYPE, non_retryable=True)
    return VerifyResult(measurements={name: r.measurements for name, r in reports.items()})
