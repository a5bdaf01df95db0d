"""Memory of ``filmworker worker`` under a load of orders (issue 31, case 10):
``python -m bench.worker_load [--orders 6] [--media-concurrency 1]``.

Starts the embedded Temporal dev server and one ``filmworker worker`` process (local storage,
local outcome sink), samples the RSS of the worker process and of its whole process tree (the
worker plus its encoders, decoders and sandboxes, summed) every 0.5 s, submits ``--orders``
renders of the test fixture order at once, waits for every outcome, then keeps sampling while
the worker sits idle. Prints one JSON document: idle RSS before, peak tree and worker RSS under
load, idle RSS after (MiB), wall seconds, the outcomes' states and how many outcomes reached
the sink. Exits 1 when the tree peaked over ``--peak-budget-mib`` (1024) or the idle worker is
over ``--idle-budget-mib`` (300) afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from app.devserver import start_embedded_server
from app.order_folder import read_order_folder, upload_media
from bench.measure import _descendants, _status_kib
from services.storage import open_storage
from tests.processes import WorkerProcess
from workflows.contract import FilmOutcome, start_render

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "order"
RUN_TIMEOUT_S = 3600.0
IDLE_AFTER_S = 20.0


def tree_rss_mib(pid: int) -> tuple[float, float]:
    """(the process's RSS, its tree's summed RSS) in MiB."""
    own = _status_kib(pid, "VmRSS") / 1024
    return own, own + sum(_status_kib(k, "VmRSS") for k in _descendants(pid)) / 1024


class Sampler:
    """Samples a worker's RSS and its tree's in a thread; tracks peaks and the last sample."""

    def __init__(self, pid: int, interval_s: float = 0.5) -> None:
        self.pid, self.interval_s = pid, interval_s
        self.peak_tree = self.peak_worker = self.last_worker = self.last_tree = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            own, tree = tree_rss_mib(self.pid)
            self.last_worker, self.last_tree = own, tree
            self.peak_worker, self.peak_tree = max(self.peak_worker, own), max(self.peak_tree,
                                                                                tree)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(5)


@dataclass
class LoadResult:
    orders: int
    media_concurrency: int
    idle_before_mib: float
    peak_tree_mib: float
    peak_worker_mib: float
    idle_after_worker_mib: float
    idle_after_tree_mib: float
    wall_s: float
    states: dict[str, int] = field(default_factory=dict)
    outcomes_in_sink: int = 0
    environment: dict[str, str] = field(default_factory=dict)


async def run_load(orders: int, media_concurrency: int, work: Path,
                   extra_env: dict[str, str] | None = None) -> LoadResult:
    """The whole measurement (see the module)."""
    server = await start_embedded_server()
    storage_url = f"file://{work / 'storage'}"
    queue = f"load-{uuid.uuid4()}"
    env = {**os.environ, "TEMPORAL_ADDRESS": server.client.service_client.config.target_host,
           "FILM_TASK_QUEUE": queue, "FILM_STORAGE_URL": storage_url,
           "FILM_WORK_DIR": str(work / "scratch"),
           "FILM_MEDIA_CONCURRENCY": str(media_concurrency), **(extra_env or {})}
    env.pop("FILM_ORDER_API_URL", None)
    worker = WorkerProcess(env, work / "worker.log").start()
    try:
        worker.wait_started(120)
        await asyncio.sleep(5)
        idle_before = tree_rss_mib(worker.pid)[0]
        storage = open_storage(storage_url)
        handles = []
        for _ in range(orders):
            order, uploads = read_order_folder(FIXTURE, f"load{uuid.uuid4().hex[:10]}")
            upload_media(storage, uploads)
            handles.append(await start_render(server.client, order, task_queue=queue))
        with Sampler(worker.pid) as sampler:
            started = time.monotonic()
            outcomes: list[FilmOutcome] = await asyncio.wait_for(
                asyncio.gather(*(h.result() for h in handles)), RUN_TIMEOUT_S)
            wall = time.monotonic() - started
            await asyncio.sleep(IDLE_AFTER_S)
        states: dict[str, int] = {}
        for outcome in outcomes:
            states[outcome.state.value] = states.get(outcome.state.value, 0) + 1
        sink = len(storage.list("outcomes/"))
        return LoadResult(orders, media_concurrency, round(idle_before, 1),
                          round(sampler.peak_tree, 1), round(sampler.peak_worker, 1),
                          round(sampler.last_worker, 1), round(sampler.last_tree, 1),
                          round(wall, 1), states, sink, extra_env or {})
    finally:
        worker.stop()
        await server.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=6)
    parser.add_argument("--media-concurrency", type=int, default=1)
    parser.add_argument("--peak-budget-mib", type=float, default=1024.0)
    parser.add_argument("--idle-budget-mib", type=float, default=300.0)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra environment of the worker (repeatable)")
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.env)
    with tempfile.TemporaryDirectory(prefix="worker-load-") as work:
        result = asyncio.run(run_load(args.orders, args.media_concurrency, Path(work), extra))
    print(json.dumps(asdict(result), indent=2))
    ok = (result.peak_tree_mib < args.peak_budget_mib
          and result.idle_after_worker_mib < args.idle_budget_mib)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
