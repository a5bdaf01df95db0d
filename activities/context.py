"""What every stage activity shares: settings, storage, a scratch directory, heartbeats (and
the run's progress signal they carry)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.client import Client

from services.settings import Settings
from services.storage import open_storage
from services.storage.base import Storage
from workflows.contract import STAGE_PROGRESS_SIGNAL, StageProgress

HEARTBEAT_INTERVAL_S = 5.0  # well inside the 30 s heartbeat timeout of the stages
log = logging.getLogger("filmworker")


class ProgressSink:
    """Signals a stage activity's percent to its run (:data:`STAGE_PROGRESS_SIGNAL`), so the
    ``progress`` query moves during a stage. Called from heartbeat threads; the signal is sent
    on the worker's event loop through the worker's own client (codec included), without
    waiting: a lost report only delays the next one."""

    def __init__(self, client: Client, loop: asyncio.AbstractEventLoop) -> None:
        self._client = client
        self._loop = loop

    def send(self, info: activity.Info, percent: int) -> None:
        """Report ``percent`` of the activity ``info`` to its workflow run."""
        report = StageProgress(activity=info.activity_type, part=info.activity_id,
                               percent=percent)
        handle = self._client.get_workflow_handle(info.workflow_id, run_id=info.workflow_run_id)
        future = asyncio.run_coroutine_threadsafe(
            handle.signal(STAGE_PROGRESS_SIGNAL, report), self._loop)
        future.add_done_callback(_log_lost_report)


def _log_lost_report(future: concurrent.futures.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.debug("progress report lost: %s", type(future.exception()).__name__)


_progress_sink: ProgressSink | None = None


def use_progress_sink(sink: ProgressSink | None) -> None:
    """Where this process's heartbeaters report progress (the worker factory sets it)."""
    global _progress_sink
    _progress_sink = sink


@dataclass
class StageContext:
    """Settings and storage of this worker process, shared by all stage activities."""

    settings: Settings
    storage: Storage

    @classmethod
    def from_settings(cls, settings: Settings) -> StageContext:
        """Open the configured storage for ``settings``."""
        return cls(settings, open_storage(settings.storage_url,
                                          public_base_url=settings.public_base_url))

    @contextlib.contextmanager
    def scratch(self, label: str) -> Iterator[Path]:
        """A private scratch directory for one activity attempt, removed afterwards."""
        self.settings.work_dir.mkdir(parents=True, exist_ok=True)
        path = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=self.settings.work_dir))
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)


class Heartbeater:
    """Heartbeats the current activity from a background thread with the latest details.

    Media calls report progress from their own threads; this keeps the heartbeat regular even
    while a long ffmpeg call runs, and carries typed details (stage, percent, frames done).

    With ``stall_s`` the heartbeats follow progress: they go out only while :meth:`update` or
    :meth:`fraction` was called within the last ``stall_s`` seconds (a render calls it as its
    frames advance), so a stalled activity goes silent and the server times its attempt out
    after the activity's heartbeat timeout, however long the work may rightly take.
    """

    def __init__(self, stage: str, interval_s: float = HEARTBEAT_INTERVAL_S,
                 stall_s: float | None = None) -> None:
        self._details: dict[str, Any] = {"stage": stage, "percent": 0}
        self._reported_percent = 0
        self._interval_s = interval_s
        self._stall_s = stall_s
        self._moved_at = time.monotonic()
        self._stalled = False
        self._stop = threading.Event()
        self._context = contextvars.copy_context()
        self._thread = threading.Thread(target=self._context.run, args=(self._loop,),
                                        daemon=True)

    def update(self, **details: Any) -> None:
        """Record the latest progress; sent with the next heartbeat."""
        self._details = {**self._details, **details}
        self._moved_at = time.monotonic()

    def fraction(self, done: float) -> None:
        """Record progress as a fraction 0..1 of this stage."""
        self.update(percent=round(max(0.0, min(1.0, done)) * 100))

    def _loop(self) -> None:
        while not self._stop.wait(self._interval_s):
            if self._silent():
                continue
            with contextlib.suppress(Exception):
                activity.heartbeat(dict(self._details))
                self._report_progress()

    def _silent(self) -> bool:
        """True while the activity has made no progress for ``stall_s`` (said once in the
        log when it stalls, once when it moves again)."""
        if self._stall_s is None:
            return False
        idle_s = time.monotonic() - self._moved_at
        stalled = idle_s > self._stall_s
        if stalled != self._stalled:
            self._stalled = stalled
            with contextlib.suppress(Exception):
                if stalled:
                    activity.logger.warning(
                        "no progress for %.0f s: heartbeats stop, the attempt will time out",
                        idle_s, extra={"reason": "stalled"})
                else:
                    activity.logger.info("progress again: heartbeats resume")
        return stalled

    def _report_progress(self) -> None:
        """Signal the run when the percent moved since the last report (so at most once per
        heartbeat interval)."""
        percent = int(self._details.get("percent") or 0)
        if _progress_sink is not None and percent > self._reported_percent:
            _progress_sink.send(activity.info(), percent)
            self._reported_percent = percent

    def __enter__(self) -> Heartbeater:
        self._moved_at = time.monotonic()
        with contextlib.suppress(Exception):
            activity.heartbeat(dict(self._details))
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
