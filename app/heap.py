"""The process's heap (glibc malloc): few arenas for the whole process (a no-op elsewhere).

glibc gives each thread that allocates its own arena, up to 8 per core. A render's threads (the
frame loop, the shot preparer, the encoder feeders, OpenCV's workers) each grew one, and pages
freed in one arena are never reused by another, so the worker caps them at start (its effect
on the memory order: ``python -m bench.memory_bench``).

Freeing pages between shots is the render's own business: :func:`media.base.heap.trim`.
"""

from __future__ import annotations

import ctypes

HEAP_ARENAS = 2  # malloc arenas for the whole process
_M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)
_LIBC = ctypes.CDLL(None)
_GLIBC = hasattr(_LIBC, "mallopt")


def limit_arenas(count: int = HEAP_ARENAS) -> bool:
    """Cap the process's malloc arenas at ``count`` (call before threads start allocating:
    arenas already made stay). True when the C library took it."""
    return bool(_GLIBC and _LIBC.mallopt(_M_ARENA_MAX, count) == 1)
