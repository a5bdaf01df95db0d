"""``filmworker render``: the real workflow on an embedded dev server for a local order folder,
with local storage and the local outcome sink; progress on the terminal, outputs copied out.

Ctrl-C (SIGINT) or SIGTERM ends a local run at once (:func:`signals_end_the_run`): one line says
which run stopped and where its files are, the dev server and every ffmpeg are killed, and the
process exits 130 or 143. A graceful stop would gain nothing: the embedded server's runs end with
it, and a server stopped first (Ctrl-C reaches the whole terminal's process group) left the
worker retrying it for 40 s."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from activities.context import StageContext
from activities.report import run_clean
from app.devserver import free_port, start_embedded_server
from app.order_folder import load_order_folder
from app.process_tree import kill_descendants
from app.progress_view import showing_progress
from app.workers import running_worker
from media.base.spec import ASPECTS
from services.settings import Settings
from workflows.cleanup import CleanupInput
from workflows.contract import FilmOrder, FilmOutcome, FilmState, start_render
from workflows.keys import (
    LOGO_NAME,
    PAGE_NAME,
    PORTRAIT_POSTER_NAME,
    POSTER_NAME,
    film_name,
    outcome_key,
)
from workflows.stages import ActivityName

DELIVERED_FILES = (*(film_name(aspect.name) for aspect in ASPECTS), POSTER_NAME,
                   PORTRAIT_POSTER_NAME, PAGE_NAME)
OPTIONAL_DELIVERED_FILES = (LOGO_NAME,)  # brand style only: the gift page links it
STORYBOARD_KEEP_DAYS = 1.0
"""``render --storyboard`` keeps the run's files past the report (it draws from the timeline),
then deletes them itself."""
STORAGE_FOLDER = ".storage"
"""A local run's storage, inside its output folder."""
ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM)
SIGNAL_EXIT_BASE = 128
"""A run ended by signal N exits 128 + N, as a shell reports it: 130 Ctrl-C, 143 SIGTERM."""


def collect_outputs(settings: Settings, order: FilmOrder, outcome: FilmOutcome,
                    out_dir: Path) -> list[Path]:
    """Copy the delivered files and the reported outcome into ``out_dir``."""
    storage = StageContext.from_settings(settings).storage
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    if outcome.state is FilmState.SUCCEEDED:
        for name in DELIVERED_FILES:
            written.append(storage.get_file(order.delivery_key(name), out_dir / name))
        for name in OPTIONAL_DELIVERED_FILES:
            if storage.exists(order.delivery_key(name)):
                written.append(storage.get_file(order.delivery_key(name), out_dir / name))
    reported = storage.get_bytes(outcome_key(order.workflow_id), 1 << 20)
    (out_dir / "outcome.json").write_bytes(reported)
    written.append(out_dir / "outcome.json")
    return written


@dataclass
class RunTimings:
    """What a finished run's history says of its time (wall seconds): each activity's, from
    scheduled to closed with retries (by activity name), and the customer's wait, from the
    workflow's start to its delivery's completion (None when nothing was delivered)."""

    stages: dict[str, float] = field(default_factory=dict)
    delivered_after_s: float | None = None

    def lines(self, command_s: float) -> list[str]:
        """The lines ``filmworker render`` prints: the stages, then the delivery time beside
        the whole command's ``command_s`` (which adds the dev server's and worker's start)."""
        out = ["stage wall seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in self.stages.items())]
        if self.delivered_after_s is not None:
            out.append(f"delivered {self.delivered_after_s:.1f} s after the workflow's start "
                       f"(the customer's wait); {command_s:.1f} s with this command's dev server "
                       "and worker start")
        return out


def run_timings(events: Iterable[Any]) -> RunTimings:
    """:class:`RunTimings` of a run's history events (in order)."""
    scheduled: dict[int, tuple[str, float]] = {}
    timings = RunTimings()
    started_at: float | None = None
    for event in events:
        at = event.event_time.ToDatetime().timestamp()
        if event.HasField("workflow_execution_started_event_attributes"):
            started_at = at
        if event.HasField("activity_task_scheduled_event_attributes"):
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[event.event_id] = (name, at)
        for field_name in ("completed", "failed", "timed_out"):
            attributes = getattr(event, f"activity_task_{field_name}_event_attributes")
            if event.HasField(f"activity_task_{field_name}_event_attributes"):
                name, since = scheduled[attributes.scheduled_event_id]
                timings.stages[name] = timings.stages.get(name, 0.0) + at - since
                if (field_name == "completed" and name == ActivityName.DELIVER
                        and started_at is not None):
                    timings.delivered_after_s = at - started_at
    return timings


async def stage_timings(handle: Any) -> RunTimings:
    """:func:`run_timings` of a finished run, read from its history."""
    return run_timings([event async for event in handle.fetch_history_events()])


def write_storyboard(settings: Settings, order: FilmOrder, out_dir: Path) -> Path:
    """``out_dir/storyboard.png``: both delivered films, one frame per shot of the render
    stage's timeline, cards included (and the timeline beside it, ``timeline.json``)."""
    from media.deliver.contact_sheet import film_storyboard
    from media.plan.timeline import timeline_from_dict

    storage = StageContext.from_settings(settings).storage
    raw = storage.get_bytes(order.run_keys.timeline, 4 << 20)
    (out_dir / "timeline.json").write_bytes(raw)  # what the storyboard shows, as data
    plan = json.loads(raw)
    films = {aspect.name: out_dir / film_name(aspect.name) for aspect in ASPECTS}
    return film_storyboard(films, timeline_from_dict(plan), out_dir / "storyboard.png",
                           label=f"{order.gift_id} · {order.style.value} · {order.tier.value}")


@contextlib.contextmanager
def signals_end_the_run(order: FilmOrder, folder: Path, storage_root: Path,
                        work_dir: Path) -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM end this process at once: every process it started
    killed (the dev server; ffmpeg with its process group), the run's scratch ``work_dir``
    removed, one line on stderr naming the run and where its files are, exit 128 + the signal.
    Outside the main thread (no signal handlers there) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(signum: int, _frame: FrameType | None) -> None:
        for each in ENDING_SIGNALS:  # a second Ctrl-C does not cut this short
            signal.signal(each, signal.SIG_IGN)
        kill_descendants()
        shutil.rmtree(work_dir, ignore_errors=True)
        say(f"filmworker: interrupted by {signal.Signals(signum).name}: run "
            f"{order.workflow_id} of {folder} stopped; its files are in "
            f"{storage_root / order.run_prefix}")
        sys.stdout.flush()
        os._exit(SIGNAL_EXIT_BASE + signum)

    previous = {each: signal.signal(each, end) for each in ENDING_SIGNALS}
    try:
        yield
    finally:
        for each, handler in previous.items():
            signal.signal(each, handler)


async def render_folder(folder: Path, out_dir: Path, *, ui: bool = True,
                        storyboard: bool = False, quiet: bool = False) -> FilmOutcome:
    """Run the real workflow on an embedded dev server for a local order folder (and with
    ``storyboard`` write a contact sheet of both films beside them); ``quiet``: no progress
    bar. Ctrl-C and SIGTERM end it at once (:func:`signals_end_the_run`)."""
    out_dir = out_dir.absolute()
    storage_root = out_dir / STORAGE_FOLDER
    # Local runs keep their storage beside the outputs and report to the local sink; the
    # storyboard needs the run's timeline after the outcome: kept until it is drawn. The
    # activities' scratch goes in a folder of this run's own, removed however it ends.
    settings = Settings(FILM_STORAGE_URL=f"file://{storage_root}", FILM_ORDER_API_URL=None,
                        FILM_RUN_RETENTION_DAYS=STORYBOARD_KEEP_DAYS if storyboard else 0)
    order = load_order_folder(folder, settings)
    settings.work_dir.mkdir(parents=True, exist_ok=True)
    work_dir = Path(tempfile.mkdtemp(prefix="render-", dir=settings.work_dir))
    try:
        with signals_end_the_run(order, folder, storage_root, work_dir):
            return await _render_order(order, folder, out_dir, settings.model_copy(
                update={"work_dir": work_dir}), ui=ui, storyboard=storyboard, quiet=quiet)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


async def _render_order(order: FilmOrder, folder: Path, out_dir: Path, settings: Settings, *,
                        ui: bool, storyboard: bool, quiet: bool) -> FilmOutcome:
    """:func:`render_folder` once the order is read and the signals are taken care of."""
    began = time.monotonic()
    ui_port = free_port() if ui else None
    async with await start_embedded_server(ui=ui, ui_port=ui_port) as env:
        if ui_port:
            say(f"Temporal UI: http://127.0.0.1:{ui_port}/namespaces/default/workflows/"
                  f"{order.workflow_id}")
        async with running_worker(env.client, settings):
            handle = await start_render(env.client, order, task_queue=settings.task_queue)
            async with showing_progress(handle, folder.name, quiet=quiet):
                outcome: FilmOutcome = await handle.result()
            timings = await stage_timings(handle)
    for line in timings.lines(time.monotonic() - began):
        say(line)
    for path in collect_outputs(settings, order, outcome, out_dir):
        say(f"wrote {path}")
    if storyboard and outcome.state is FilmState.SUCCEEDED:
        say(f"wrote {write_storyboard(settings, order, out_dir)}")
    if storyboard:  # the embedded server and its delayed cleanup are gone: delete them now
        run_clean(StageContext.from_settings(settings),
                  CleanupInput(gift_id=order.gift_id, attempt=order.attempt))
    return outcome


def say(line: str) -> None:
    """A line for the person at the terminal (stderr: stdout is the command's result)."""
    print(line, file=sys.stderr, flush=True)
