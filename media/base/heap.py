"""Freed memory handed back to the system between a render's shots (glibc ``malloc_trim``).

The process-wide arena cap and the release after each activity are process setup:
:mod:`app.memory`.
"""

from __future__ import annotations

import ctypes

_LIBC = ctypes.CDLL(None)


def trim() -> None:
    """Hand the heap's free pages back to the system (glibc ``malloc_trim``; a no-op elsewhere).

    Arrays under glibc's mmap threshold (which grows to 32 MB as big blocks are freed: a
    pre-scaled photo, a frame) come from the arenas of the threads that made them, and freed
    pages there stay resident: a render's RSS kept the high-water mark of every shot before it."""
    if hasattr(_LIBC, "malloc_trim"):
        _LIBC.malloc_trim(0)
