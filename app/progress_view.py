"""A run's progress on the terminal while a command waits for it (``render``, ``samples``,
``submit --wait``): a ``rich`` progress bar on a terminal, one plain line per change otherwise,
always on stderr so stdout stays the command's result."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from workflows.contract import PROGRESS_QUERY
from workflows.contract import Progress as RunProgress

POLL_S = 0.5


def progress_line(progress: RunProgress) -> str:
    """One line: run percent, state, stage and the stage's own percent."""
    return (f"{progress.percent:3d}% {progress.state.value:<9} {progress.stage.value:<8} "
            f"(stage {progress.stage_percent}%)")


async def _poll(handle: Any) -> RunProgress | None:
    with contextlib.suppress(Exception):  # the run may not have its first task yet
        return await handle.query(PROGRESS_QUERY, result_type=RunProgress)
    return None


async def follow_progress(handle: Any, label: str, *, quiet: bool = False) -> None:
    """Show ``handle``'s progress until cancelled (nothing when ``quiet``)."""
    if quiet:
        await asyncio.Event().wait()
    console = Console(file=sys.stderr)
    if not console.is_terminal:
        last = ""
        while True:
            progress = await _poll(handle)
            if progress is not None and (line := progress_line(progress)) != last:
                print(f"{label}: {line}", file=sys.stderr, flush=True)
                last = line
            await asyncio.sleep(POLL_S)
    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
               TextColumn("{task.fields[stage]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(label, total=100, stage="")
        while True:
            progress = await _poll(handle)
            if progress is not None:
                bar.update(task, completed=progress.percent,
                           stage=f"{progress.stage.value} {progress.stage_percent}%")
            await asyncio.sleep(POLL_S)


@contextlib.asynccontextmanager
async def showing_progress(handle: Any, label: str, *, quiet: bool = False) -> Any:
    """Follow ``handle``'s progress for the duration of the block."""
    follower = asyncio.create_task(follow_progress(handle, label, quiet=quiet))
    try:
        yield
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower
