"""The process's heap (glibc malloc): few arenas, and free pages handed back (no-ops elsewhere).

glibc gives each thread that allocates its own arena, up to 8 per core. A render's threads (the
frame loop, the shot preparer, the encoder feeders, OpenCV's workers) each grew one, and pages
freed in one arena are never reused by another: at the memory order's peak the Python process
held 535-542 MiB, 474 MiB with two arenas (the render's tree 1043-1048 -> 992 MiB summed RSS,
997-1000 -> 953 MiB PSS; render wall 102-112 s either way; ``python -m bench.memory_bench``).
"""

from __future__ import annotations

import ctypes

HEAP_ARENAS = 2  # malloc arenas for the whole process
_M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)
_LIBC = ctypes.CDLL(None)
_GLIBC = hasattr(_LIBC, "mallopt") and hasattr(_LIBC, "malloc_trim")


def limit_arenas(count: int = HEAP_ARENAS) -> bool:
    """Cap the process's malloc arenas at ``count`` (call before threads start allocating:
    arenas already made stay). True when the C library took it."""
    return bool(_GLIBC and _LIBC.mallopt(_M_ARENA_MAX, count) == 1)


def trim() -> None:
    """Hand the heap's free pages back to the system (glibc ``malloc_trim``).

    Arrays under glibc's mmap threshold (which grows to 32 MB as big blocks are freed: a
    pre-scaled photo, a frame) come from the arenas of the threads that made them, and freed
    pages there stay resident: a render's RSS kept the high-water mark of every shot before it
    (~150 MB more at the peak of the memory order). A few ms."""
    if _GLIBC:
        _LIBC.malloc_trim(0)
