"""Giving the worker's memory back to the system between activities (glibc's allocator).

A media activity allocates and frees hundreds of MB (decoded photos, composed frames, clip
buffers), from several executor threads. glibc keeps freed memory in per-thread arenas
instead of returning it, so a worker that rendered a few films sat idle at ~570 MB (issue 31,
case 10), and each later stage started on top of what the last one left. Two calls fix most
of that without touching the media code:

- :func:`tune_heap`: at most :data:`MALLOC_ARENAS` arenas (glibc's default is 8 per core),
  set once at start, before the worker's threads allocate, and big blocks mapped on their own
  (see below);
- :func:`media.base.heap.trim` (``malloc_trim(0)``): return every free page of every arena to
  the system; :class:`MemoryReleaser` calls it after each activity attempt, after emptying the
  activity caches and collecting cycles (:func:`media.base.heap.release`).

Both are no-ops where the C library is not glibc. That still left the idle worker ~100-130 MiB
above where it started after a film (370 MiB, issue 31's target 300). Measured in process on the
fixture order, that was ~30 MiB of caches (a frame-size dither, the face detector, shaped card
lines), 15-35 MiB held by the pooled executor threads, ~40 MiB of library code the film paged in
(OpenCV's alone ~25 MiB: clean file pages, counted in RSS) and ~15 MiB of Python heap. So, after
each activity attempt, :class:`MemoryReleaser` also empties the activity caches and collects
cycles (:func:`media.base.heap.release`) and, on the media worker, asks the kernel to reclaim
the clean file pages (:func:`page_out_files`); and a media activity runs in a thread of its own
(:class:`ThreadPerActivity`), so what the thread keeps until it ends goes with it. A child process
per media activity (not built) would add its own ~240 MiB of imports to the tree while the render
peaks at ~0.9-1 GiB with its two encoders, past the 1 GiB budget.

Under a load of orders the tree's peak is the render: the worker (550-620 MiB) and its two x264
encoders (~200 MiB each). Of the worker's anonymous memory at that peak, 125-150 MiB was free
memory glibc kept in its arenas (``malloc_info``, the fixture order's render in process): each
big block freed (a card's float layers of 8-24 MB, an RGB frame of 6 MB) raises glibc's mmap
threshold to its size, up to 32 MiB, so the next ones come from the arenas and their pages stay
when they are freed; trimming between shots could not keep up within a shot. So
:func:`tune_heap` also fixes the threshold at :data:`MMAP_THRESHOLD_BYTES`: blocks that big are
mapped on their own and go back to the system when freed, while an I420 frame (3.1 MB), reused
frame after frame, still comes from the arenas (no page faults per frame: the render's CPU,
31-33 s, stayed within its spread). Measured on the same render, twice each: free memory in
the arenas at the peak 14-18 MiB (was 125-136), the worker's anonymous peak 383-399 MiB (was
447-466).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import itertools
import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

from media.base import heap

log = logging.getLogger("filmworker.memory")

MALLOC_ARENAS = 2
MMAP_THRESHOLD_BYTES = 4 * 1024**2
"""Blocks of this size and more are mapped on their own and unmapped when freed (glibc's
threshold, fixed instead of growing to 32 MiB): above an I420 frame of the films (3.1 MB)."""
M_ARENA_MAX = -8  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
MADV_PAGEOUT = 21  # madvise advice (linux/mman.h, Linux 5.4+)
_MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \d+\s+(/\S.*)$")


def limit_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Cap glibc's malloc arenas for threads created from now on; True when set."""
    libc = heap.glibc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1)


def map_big_blocks(threshold_bytes: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Fix glibc's mmap threshold at ``threshold_bytes``: bigger blocks are mapped on their own
    and given back when freed, never kept in an arena; True when set."""
    libc = heap.glibc()
    return bool(libc is not None and libc.mallopt(M_MMAP_THRESHOLD, threshold_bytes) == 1)


def tune_heap() -> bool:
    """The worker's heap, set once at start before its threads allocate: :func:`limit_arenas`
    and :func:`map_big_blocks`. True when both were set (False off glibc)."""
    return limit_arenas() & map_big_blocks()


def read_only_file_ranges(maps: str) -> list[tuple[int, int]]:
    """The (start, end) addresses of the file-backed mappings in ``maps`` (the text of
    ``/proc/<pid>/maps``) that the process cannot write: libraries' code and constants, fonts."""
    ranges = []
    for line in maps.splitlines():
        found = _MAPPING.match(line)
        if found and "w" not in found.group(3) and not found.group(4).endswith(" (deleted)"):
            ranges.append((int(found.group(1), 16), int(found.group(2), 16)))
    return ranges


def page_out_files() -> int:
    """Ask the kernel to reclaim now this process's clean file pages (``MADV_PAGEOUT``): the
    library code a film paged in (OpenCV's alone ~25 MiB) that the idle worker does not run;
    what it does run faults back in. Pages another process maps stay. The number of mappings
    advised (0 off Linux or before 5.4)."""
    libc = heap.glibc()
    try:
        maps = Path("/proc/self/maps").read_text(encoding="utf-8")
    except OSError:
        return 0
    if libc is None:
        return 0
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    return sum(libc.madvise(start, end - start, MADV_PAGEOUT) == 0
               for start, end in read_only_file_ranges(maps))


def release_memory(page_out: bool) -> None:
    """After an activity: :func:`media.base.heap.release` (activity caches emptied, cycles
    collected, heap trimmed), then with ``page_out`` :func:`page_out_files`."""
    heap.release()
    if page_out:
        page_out_files()


class _ReleaseAfter(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, page_out: bool) -> None:
        super().__init__(next)
        self.page_out = page_out

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        try:
            return await self.next.execute_activity(input)
        finally:
            await asyncio.to_thread(release_memory, self.page_out)


class MemoryReleaser(Interceptor):
    """Worker interceptor: :func:`release_memory` after every activity attempt; ``page_out``
    for the media worker, whose activities page in the heavy libraries."""

    def __init__(self, page_out: bool = False) -> None:
        self.page_out = page_out

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        """Wrap activity execution."""
        return _ReleaseAfter(next, self.page_out)


def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
          future: concurrent.futures.Future[Any]) -> None:
    try:
        result = fn(*args, **kwargs)
    except BaseException as exc:  # the activity's own failure, cancellation included
        future.set_exception(exc)
    else:
        future.set_result(result)


class ThreadPerActivity(concurrent.futures.ThreadPoolExecutor):
    """An activity executor that runs every task in a new thread, ended before its future
    resolves, so the memory the thread held is back (and trimmed) by the time
    :class:`MemoryReleaser` runs. A ThreadPoolExecutor by type: Temporal passes a sync
    activity's context, heartbeats and cancellation in-process only to those."""

    def __init__(self, max_workers: int, thread_name_prefix: str = "activity") -> None:
        super().__init__(max_workers, thread_name_prefix=thread_name_prefix)
        self._prefix = thread_name_prefix
        self._numbers = itertools.count(1)
        self._guard = threading.Lock()
        self._closed = False
        self._running: set[threading.Thread] = set()

    def submit(self, fn: Callable[..., Any], /, *args: Any,
               **kwargs: Any) -> concurrent.futures.Future[Any]:
        """Start ``fn(*args, **kwargs)`` in a thread of its own."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._guard:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            name = f"{self._prefix}_{next(self._numbers)}"
            runner = threading.Thread(target=self._run, args=(name, fn, args, kwargs, future),
                                      name=f"{name}_wait")
            self._running.add(runner)
        runner.start()
        return future

    def _run(self, name: str, fn: Callable[..., Any], args: tuple[Any, ...],
             kwargs: dict[str, Any], future: concurrent.futures.Future[Any]) -> None:
        try:
            if not future.set_running_or_notify_cancel():
                return
            # The future is settled here, after the worker thread is gone: not from inside it.
            settled: concurrent.futures.Future[Any] = concurrent.futures.Future()
            worker = threading.Thread(target=_call, args=(fn, args, kwargs, settled), name=name)
            worker.start()
            worker.join()
            if settled.done() and settled.exception() is not None:
                future.set_exception(settled.exception())
            elif settled.done():
                future.set_result(settled.result())
            else:
                future.set_exception(RuntimeError(f"{name} ended without a result"))
        finally:
            with self._guard:
                self._running.discard(threading.current_thread())

    def running(self) -> int:
        """How many tasks are running now."""
        with self._guard:
            return len(self._running)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuse new tasks; with ``wait``, block until the running ones end."""
        with self._guard:
            self._closed = True
            running = list(self._running)
        if wait:
            for runner in running:
                runner.join()
        super().shutdown(wait, cancel_futures=cancel_futures)
