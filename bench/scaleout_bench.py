"""Scale-out benchmark of issue 7: one film's render split over 1, 2, 4 worker processes.

``.venv/bin/python -m bench.scaleout_bench [--length 60] [--workers 1 2 4] [--tier TIER]``
prints figures and is never a test. It starts the embedded Temporal dev server, then for each
worker count N: starts N ``filmworker worker`` processes (shared local storage, their own scratch,
``FILM_RENDER_WORKERS=N``, ``FILM_MEDIA_CONCURRENCY=1`` so each process renders one segment at a
time), submits the sample order (``samples/birthday`` at ``--length`` seconds) as the order API
would, waits for its outcome and reads its history for:

- total wall (workflow started to completed);
- render-stage wall (``render_plan`` scheduled to ``render_join`` completed) and its parts:
  plan, each segment (wall from start to completion, and how long it waited for a worker), join
  (with one worker the film is kept whole: ``render_film`` counts as the one segment, no join);
- the speedup of the render stage and of the whole run against N=1;
- CPU seconds of the worker processes and their ffmpeg children over the whole run.

The machine's cores and load average head the output and are printed after every run: on a busy
machine the wall figures are inflated.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.cli import exit_now
from app.devserver import start_embedded_server
from app.order_folder import load_order_folder
from bench.cases import REPO, SAMPLE_ORDER
from bench.measure import machine
from services.settings import Settings
from tests.processes import WorkerProcess
from workflows.contract import start_render

ACTIVITY_EVENTS = ("scheduled", "started", "completed", "failed", "timed_out", "canceled")


def log(message: str) -> None:
    """Progress on stderr (the figures go to stdout)."""
    print(f"[scaleout {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass
class RunFigures:
    """What one run's history says (seconds)."""

    workers: int
    state: str
    total_s: float
    render_s: float
    plan_s: float
    join_s: float
    segments: list[dict[str, float]] = field(default_factory=list)
    cpu_s: float = 0.0
    loadavg: tuple[float, float, float] = (0.0, 0.0, 0.0)


def order_folder(source: Path, length_s: int, tier: str | None, dest: Path) -> Path:
    """``source`` with its ``order.json`` at ``length_s`` seconds (and ``tier``)."""
    dest.mkdir(parents=True)
    fields = json.loads((source / "order.json").read_text(encoding="utf-8"))
    fields["length_sec"] = length_s
    if tier:
        fields["tier"] = tier
    (dest / "order.json").write_text(json.dumps(fields), encoding="utf-8")
    for sub in ("photos", "clips"):
        if (source / sub).is_dir():
            (dest / sub).symlink_to((source / sub).resolve(), target_is_directory=True)
    return dest


def worker_env(address: str, queue: str, storage: Path, work: Path, workers: int
               ) -> dict[str, str]:
    """The environment of one worker process (README's variables)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FILM_", "TEMPORAL_"))}
    env.update({
        "TEMPORAL_ADDRESS": address, "FILM_TASK_QUEUE": queue,
        "FILM_STORAGE_URL": storage.as_uri(), "FILM_WORK_DIR": str(work),
        "FILM_RENDER_WORKERS": str(workers), "FILM_MEDIA_CONCURRENCY": "1",
        "FILM_LOG_FORMAT": "kv",
    })
    return env


async def activity_spans(handle: Any) -> tuple[list[dict[str, Any]], float, float]:
    """Per scheduled activity: type, input index (segments) and event times; and the run's
    start and close times (unix seconds)."""
    spans: dict[int, dict[str, Any]] = {}
    started = closed = 0.0
    async for event in handle.fetch_history_events():
        at = event.event_time.ToNanoseconds() / 1e9
        if event.HasField("workflow_execution_started_event_attributes"):
            started = at
        if event.HasField("workflow_execution_completed_event_attributes"):
            closed = at
        for kind in ACTIVITY_EVENTS:
            name = f"activity_task_{kind}_event_attributes"
            if not event.HasField(name):
                continue
            attributes = getattr(event, name)
            if kind == "scheduled":
                spans[event.event_id] = {"type": attributes.activity_type.name,
                                         "scheduled": at, "order": len(spans)}
            else:
                spans[attributes.scheduled_event_id][kind] = at
    return sorted(spans.values(), key=lambda s: s["order"]), started, closed


def figures(workers: int, state: str, spans: list[dict[str, Any]], started: float,
            closed: float) -> RunFigures:
    """The run's figures from its activity spans."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        by_type.setdefault(span["type"], []).append(span)
    plan, whole = by_type["render_plan"][0], by_type.get("render_film", [])
    last = (whole or by_type["render_join"])[-1]  # a film kept whole has no join
    segments = [{"wall_s": s["completed"] - s["started"],
                 "queued_s": s["started"] - s["scheduled"]}
                for s in [*by_type.get("render_segment", []), *whole] if "completed" in s]
    join_s = 0.0 if whole else last["completed"] - last["started"]
    return RunFigures(workers, state, closed - started, last["completed"] - plan["scheduled"],
                      plan["completed"] - plan["scheduled"], join_s, segments)


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


async def run_one(client: Any, address: str, folder: Path, workers: int, scratch: Path
                  ) -> RunFigures:
    """One order rendered by ``workers`` worker processes; their figures."""
    queue = f"scaleout-{workers}-{uuid.uuid4().hex[:8]}"
    storage = scratch / f"storage-{workers}"
    settings = Settings(FILM_STORAGE_URL=storage.as_uri(), FILM_TASK_QUEUE=queue,
                        FILM_ORDER_API_URL=None)
    order = load_order_folder(folder, settings, f"scaleout{workers}{uuid.uuid4().hex[:8]}")
    processes = [WorkerProcess(worker_env(address, queue, storage, scratch / f"work-{workers}-{i}",
                                          workers), scratch / f"worker-{workers}-{i}.log")
                 for i in range(workers)]
    cpu_before = _children_cpu_s()
    try:
        for process in processes:
            process.start()
        for process in processes:
            await asyncio.to_thread(process.wait_started, 120)
        log(f"{workers} worker process(es) polling {queue}; submitting {order.workflow_id}")
        handle = await start_render(client, order, task_queue=queue)
        outcome = await handle.result()
        spans, started, closed = await activity_spans(handle)
    finally:
        for process in processes:
            if process.process is not None and process.process.poll() is None:
                await asyncio.to_thread(process.terminate, 60)
    result = figures(workers, outcome.state.value, spans, started, closed)
    result.cpu_s = _children_cpu_s() - cpu_before
    result.loadavg = os.getloadavg()
    if outcome.state.value != "succeeded":
        log(f"run with {workers} worker(s) ended {outcome.state.value}: {outcome.reason}")
    return result


def report(runs: list[RunFigures], length_s: int) -> str:
    """The figures as a table, with speedups against the first run (N=1)."""
    base = runs[0]
    lines = [f"{'workers':>7} {'segs':>4} {'total s':>8} {'render s':>8} {'plan s':>6} "
             f"{'join s':>6} {'speedup render':>14} {'speedup total':>13} {'cpu s':>7}  "
             f"segment wall s (queued s)"]
    for run in runs:
        segments = ", ".join(f"{s['wall_s']:.1f} ({s['queued_s']:.1f})" for s in run.segments)
        lines.append(
            f"{run.workers:>7} {len(run.segments):>4} {run.total_s:>8.1f} {run.render_s:>8.1f} "
            f"{run.plan_s:>6.1f} {run.join_s:>6.1f} {base.render_s / run.render_s:>13.2f}x "
            f"{base.total_s / run.total_s:>12.2f}x {run.cpu_s:>7.0f}  {segments}"
            + ("" if run.state == "succeeded" else f"  [{run.state}]"))
        lines.append(f"{'':>7} load average after the run: "
                     + " ".join(f"{x:.2f}" for x in run.loadavg))
    lines.append(f"film: {length_s} s = {length_s * 30} frames per aspect, two aspects")
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> list[RunFigures]:
    """Start the dev server, run every worker count in turn, print the table."""
    about = machine()
    print(f"machine: {about['cpu_count']} cores ({about['cpus_usable']} usable), "
          f"{about['cpu_model']}, {about['memory_gib']} GiB; load average at start "
          + " ".join(f"{x:.2f}" for x in about["loadavg_start"]), flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="scaleout-"))
    runs = []
    try:
        folder = order_folder(args.order, args.length, args.tier, scratch / "order")
        env = await start_embedded_server()
        try:
            address = env.client.service_client.config.target_host
            for workers in args.workers:
                runs.append(await run_one(env.client, address, folder, workers, scratch))
                log(f"{workers} worker(s): render stage {runs[-1].render_s:.1f} s, "
                    f"total {runs[-1].total_s:.1f} s")
        finally:
            await env.shutdown()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(report(runs, args.length), flush=True)
    return runs


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.scaleout_bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=int, default=60, help="film length (s); 60")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4],
                        help="worker process counts, the first is the baseline; 1 2 4")
    parser.add_argument("--tier", choices=["standard", "signature"], default=None,
                        help="override the order's tier")
    parser.add_argument("--order", type=Path, default=SAMPLE_ORDER,
                        help=f"order folder; {SAMPLE_ORDER.relative_to(REPO)}")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m bench.scaleout_bench``."""
    asyncio.run(main_async(parse_args(argv)))
    exit_now(0)


if __name__ == "__main__":
    main()
