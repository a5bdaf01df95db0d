"""``filmworker render``: the real workflow on an embedded dev server for a local order folder,
with local storage and the local outcome sink; progress on the terminal, outputs copied out."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from activities.context import StageContext
from activities.report import run_clean
from app.devserver import free_port, start_embedded_server
from app.order_folder import load_order_folder
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

DELIVERED_FILES = (*(film_name(aspect.name) for aspect in ASPECTS), POSTER_NAME,
                   PORTRAIT_POSTER_NAME, PAGE_NAME)
OPTIONAL_DELIVERED_FILES = (LOGO_NAME,)  # brand style only: the gift page links it
STORYBOARD_KEEP_DAYS = 1.0
"""``render --storyboard`` keeps the run's files past the report (it draws from the timeline),
then deletes them itself."""


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


async def render_folder(folder: Path, out_dir: Path, *, ui: bool = True,
                        storyboard: bool = False, quiet: bool = False) -> FilmOutcome:
    """Run the real workflow on an embedded dev server for a local order folder (and with
    ``storyboard`` write a contact sheet of both films beside them); ``quiet``: no progress
    bar."""
    out_dir = out_dir.absolute()
    # Local runs keep their storage beside the outputs and report to the local sink; the
    # storyboard needs the run's timeline after the outcome: kept until it is drawn.
    settings = Settings(FILM_STORAGE_URL=f"file://{out_dir / '.storage'}",
                        FILM_ORDER_API_URL=None,
                        FILM_RUN_RETENTION_DAYS=STORYBOARD_KEEP_DAYS if storyboard else 0)
    order = load_order_folder(folder, settings)
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
    say("stage wall seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()))
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
