"""What every stage activity shares: settings, storage, a scratch directory, heartbeats."""

from __future__ import annotations

import contextlib
import contextvars
import shutil
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio import activity

from services.settings import Settings
from services.storage import open_storage
from services.storage.base import Storage

HEARTBEAT_INTERVAL_S = 5.0  # well inside the 30 s heartbeat timeout of the stages


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
    """

    def __init__(self, stage: str, interval_s: float = HEARTBEAT_INTERVAL_S) -> None:
        self._details: dict[str, Any] = {"stage": stage, "percent": 0}
        self._interval_s = interval_s
        self._stop = threading.Event()
        self._context = contextvars.copy_context()
        self._thread = threading.Thread(target=self._context.run, args=(self._loop,),
                                        daemon=True)

    def update(self, **details: Any) -> None:
        """Record the latest progress; sent with the next heartbeat."""
        self._details = {**self._details, **details}

    def fraction(self, done: float) -> None:
        """Record progress as a fraction 0..1 of this stage."""
        self.update(percent=round(max(0.0, min(1.0, done)) * 100))

    def _loop(self) -> None:
        while not self._stop.wait(self._interval_s):
            with contextlib.suppress(Exception):
                activity.heartbeat(dict(self._details))

    def __enter__(self) -> Heartbeater:
        with contextlib.suppress(Exception):
            activity.heartbeat(dict(self._details))
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
