"""Record the baseline FilmRender histories from the real dev server, for the replay tests.

Run from the repository root (it takes about a minute)::

    .venv/bin/python -m tests.histories.record --out tests/histories/baseline

It starts the embedded dev server and records four runs, each written as ``{out}/{kind}.json``
with ``WorkflowHistory.to_json()``:

- ``succeeded``: every stage replaced by a same-named fast stand-in (the workflow's logic is
  what a history captures; media work would only make the run slow), the render plan allowing
  one render worker, so the film is rendered whole (``render_plan``, ``render_film``);
- ``succeeded-segmented``: the same with the plan allowing ``--render-workers`` segments
  (default :data:`SEGMENTED_RENDER_WORKERS`), rendered concurrently and joined
  (``render_segment`` per segment, ``render_join``);
- ``held``: the real prep and gate stages on an order whose every photo is unusable;
- ``failed``: stand-in stages whose whole-film render always crashes, so the real retry policy
  gives up.

The stand-in workers listen on the main task queue and on its media queue and offer every
activity, so the history shows where the workflow routes each one. Commit the files:
``tests/workflows/test_replay.py`` replays every JSON file below ``tests/histories/``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import uuid
from pathlib import Path

from temporalio.client import Client

from app.cli import exit_now
from app.devserver import start_embedded_server
from app.order_folder import load_order_folder
from app.workers import running_worker
from services.settings import Settings
from tests.helpers import FakeStages, disguised_photo_order, fake_workers, make_order
from workflows.contract import FilmOrder, FilmState, start_render

SEGMENTED_RENDER_WORKERS = 2
"""Segments the stand-in render plan allows in the segmented run (a 30 s order: two 15 s
segments)."""


async def run_and_save(client: Client, order: FilmOrder, queue: str, expected: FilmState,
                       path: Path) -> None:
    """Run ``order`` to its end, check its state and write its history to ``path``."""
    handle = await start_render(client, order, task_queue=queue)
    outcome = await handle.result()
    if outcome.state is not expected:
        raise SystemExit(f"{path.stem}: expected {expected.value}, got {outcome.state.value}")
    history = await handle.fetch_history()
    path.write_text(history.to_json() + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(history.events)} events, {outcome.state.value})")


async def record_fake_runs(client: Client, out: Path, segmented_workers: int) -> None:
    """The succeeded runs (film whole, film in segments) and the failed run, on stand-in
    stages."""
    for render_workers, name in ((1, "succeeded"), (segmented_workers, "succeeded-segmented")):
        async with fake_workers(client, FakeStages(render_workers), "record") as queue:
            await run_and_save(client, make_order(), queue, FilmState.SUCCEEDED,
                               out / f"{name}.json")
    failing = FakeStages(render_workers=1)
    failing.failures["render_film"] = lambda: RuntimeError("x264 segfaulted")
    async with fake_workers(client, failing, "record") as queue:
        await run_and_save(client, make_order(), queue, FilmState.FAILED, out / "failed.json")


async def record_held_run(client: Client, out: Path, scratch: Path) -> None:
    """The held run, on the real prep and gate stages."""
    settings = Settings(FILM_STORAGE_URL=f"file://{scratch / 'storage'}",
                        FILM_ORDER_API_URL=None, FILM_TASK_QUEUE=f"record-{uuid.uuid4()}",
                        FILM_WORK_DIR=str(scratch / "work"))
    order = load_order_folder(disguised_photo_order(scratch / "order"), settings,
                              f"held{uuid.uuid4().hex[:10]}")
    async with running_worker(client, settings):
        await run_and_save(client, order, settings.task_queue, FilmState.HELD,
                           out / "held.json")


async def record(out: Path, segmented_workers: int) -> None:
    """Record the four baseline histories into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    env = await start_embedded_server()
    try:
        await record_fake_runs(env.client, out, segmented_workers)
        with tempfile.TemporaryDirectory() as scratch:
            await record_held_run(env.client, out, Path(scratch))
    finally:
        await env.shutdown()


def main() -> None:
    """``python -m tests.histories.record --out DIR [--render-workers N]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--render-workers", type=int, default=SEGMENTED_RENDER_WORKERS,
                        help="segments of the segmented succeeded run (at least 2)")
    args = parser.parse_args()
    if args.render_workers < 2:
        parser.error("--render-workers: the segmented run needs at least 2")
    asyncio.run(record(args.out, args.render_workers))
    exit_now(0)


if __name__ == "__main__":
    main()
