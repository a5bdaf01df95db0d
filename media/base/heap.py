"""The process's C heap (glibc's allocator): freed memory handed back to the system
(``malloc_trim``), between a render's shots and after every activity; no-ops where the C library
is not glibc. The process-wide arena cap, set once at start, is process setup: :mod:`app.memory`.

Also the caches one activity fills and the next need not find (:func:`activity_cache`): a
frame-size dither, the face detector, shaped card lines. Kept between activities they held
~30 MiB of an idle worker (issue 31); :func:`release` empties them, collects reference cycles
and trims.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_ACTIVITY_CACHES: list[functools._lru_cache_wrapper[Any]] = []


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


def activity_cache(maxsize: int) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """:func:`functools.lru_cache` of ``maxsize``, emptied by :func:`release_caches`: for what
    one activity reuses (across a render's frames, a prep's photos) but is not worth its memory
    while the worker waits for the next."""

    def decorate(function: Callable[..., T]) -> functools._lru_cache_wrapper[T]:
        cached = functools.lru_cache(maxsize=maxsize)(function)
        _ACTIVITY_CACHES.append(cached)
        return cached

    return decorate


def cached_entries() -> int:
    """How many entries the :func:`activity_cache` caches hold now."""
    return sum(cached.cache_info().currsize for cached in _ACTIVITY_CACHES)


def release_caches() -> int:
    """Empty every :func:`activity_cache`; the number of entries dropped."""
    dropped = cached_entries()
    for cached in _ACTIVITY_CACHES:
        cached.cache_clear()
    return dropped


def release() -> bool:
    """Between activities: empty the activity caches, collect reference cycles (a cycle can
    hold a frame's arrays), then :func:`trim`; True when the heap gave pages back."""
    release_caches()
    gc.collect()
    return trim()
