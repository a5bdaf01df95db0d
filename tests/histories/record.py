"""Record representative FilmRender histories from the real dev server, for the replay tests.

Run from the repository root (it takes about a minute)::

    .venv/bin/python -m tests.histories.record --out tests/histories/v4-render-whole-film \
        --render-workers 1

It starts the embedded dev server and records three runs, each written as
``{out}/{kind}.json`` with ``WorkflowHistory.to_json()``:

- ``succeeded``: every stage replaced by a same-named fast stand-in (the workflow's logic is
  what a history captures; media work would only make the run slow), the render plan allowing
  ``--render-workers`` segments (default :data:`RENDER_WORKERS`; 1 keeps the film whole);
- ``held``: the real prep and gate stages on an order whose every photo is unusable;
- ``failed``: stand-in stages whose render (one activity, every segment, or the whole film)
  always crashes, so the real retry policy gives up.

Workers listen on the main task queue and on its media queue and offer every activity, so the
same script records histories of any workflow version (before and after the media queue, before
and after the render split into segments). Commit the files: ``tests/test_replay.py`` replays
every JSON file below ``tests/histories/``.
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
from tests.test_pipeline import disguised_photo_order
from tests.test_workflow import FakeStages, fake_workers, make_order
from workflows.contract import FilmOrder, FilmState, start_render

RENDER_WORKERS = 2
"""Segments the stand-in render plan allows (a 30 s order: two 15 s segments)."""


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


async def record_fake_runs(client: Client, out: Path, render_workers: int) -> None:
    """The succeeded and failed runs, on stand-in stages."""
    async with fake_workers(client, FakeStages(render_workers), "record") as queue:
        await run_and_save(client, make_order(), queue, FilmState.SUCCEEDED,
                           out / "succeeded.json")
    failing = FakeStages(render_workers)
    for name in ("render", "render_segment", "render_film"):
        failing.failures[name] = lambda: RuntimeError("x264 segfaulted")
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


async def record(out: Path, render_workers: int) -> None:
    """Record all three histories into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    env = await start_embedded_server()
    try:
        await record_fake_runs(env.client, out, render_workers)
        with tempfile.TemporaryDirectory() as scratch:
            await record_held_run(env.client, out, Path(scratch))
    finally:
        await env.shutdown()


def main() -> None:
    """``python -m tests.histories.record --out DIR [--render-workers N]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--render-workers", type=int, default=RENDER_WORKERS)
    args = parser.parse_args()
    asyncio.run(record(args.out, args.render_workers))
    exit_now(0)


if __name__ == "__main__":
    main()
