"""The process's C heap (glibc's allocator): freed memory handed back to the system
(``malloc_trim``), between a render's shots and after every activity; no-ops where the C library
is not glibc. The process-wide arena cap, set once at start, is process setup: :mod:`app.memory`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any


@functools.cache
def glibc() -> Any | None:
    """glibc, or None (another C library: musl, macOS)."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.gnu_get_libc_version  # noqa: B018  (glibc only: raises AttributeError otherwise)
    except (OSError, AttributeError):
        return None
    return libc


def trim() -> bool:
    """Hand the heap's free pages back to the system (glibc ``malloc_trim``); True when some
    were released.

    Arrays under glibc's mmap threshold (which grows to 32 MB as big blocks are freed: a
    pre-scaled photo, a frame) come from the arenas of the threads that made them, and freed
    pages there stay resident: a render's RSS kept the high-water mark of every shot before it,
    and an idle worker what its last activities left."""
    libc = glibc()
    return bool(libc is not None and libc.malloc_trim(0) == 1)
