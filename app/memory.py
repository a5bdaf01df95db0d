"""Giving the worker's memory back to the system between activities (glibc's allocator).

A media activity allocates and frees hundreds of MB (decoded photos, composed frames, clip
buffers), from several executor threads. glibc keeps freed memory in per-thread arenas
instead of returning it, so a worker that rendered a few films sat idle at ~570 MB (issue 31,
case 10), and each later stage started on top of what the last one left. Two calls fix most
of that without touching the media code:

- :func:`limit_arenas`: at most :data:`MALLOC_ARENAS` arenas (glibc's default is 8 per core),
  set once at start, before the worker's threads allocate;
- :func:`media.base.heap.trim` (``malloc_trim(0)``): return every free page of every arena to
  the system; :class:`MemoryReleaser` calls it after each activity attempt.

Both are no-ops where the C library is not glibc.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

from media.base import heap

log = logging.getLogger("filmworker.memory")

MALLOC_ARENAS = 2
M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


def limit_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Cap glibc's malloc arenas for threads created from now on; True when set."""
    libc = heap.glibc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1)


class _ReleaseAfter(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        try:
            return await self.next.execute_activity(input)
        finally:
            await asyncio.to_thread(heap.trim)


class MemoryReleaser(Interceptor):
    """Worker interceptor: :func:`media.base.heap.trim` after every activity attempt."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        """Wrap activity execution."""
        return _ReleaseAfter(next)
