"""The process's heap cap (app.memory): a capped process's threads share HEAP_ARENAS arenas."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app import memory
from media.base import heap as media_heap

REPO = Path(__file__).resolve().parents[2]
# Six threads allocate at once, then glibc's malloc_stats lists the arenas on stderr.
PROBE = textwrap.dedent("""
    import ctypes, sys, threading
    from app import memory
    if sys.argv[1] == "capped":
        assert memory.limit_arenas()
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    together = threading.Barrier(6)
    def allocate():
        together.wait()
        blocks = [libc.malloc(4096) for _ in range(200)]
        together.wait()
    threads = [threading.Thread(target=allocate) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    libc.malloc_stats()
""")


def _arenas(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], cwd=REPO, capture_output=True,
                          text=True, timeout=60, check=True)
    return sum(line.startswith("Arena") for line in done.stderr.splitlines())


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc only")
def test_a_capped_process_keeps_its_threads_in_heap_arenas() -> None:
    assert _arenas("free") > memory.MALLOC_ARENAS  # each thread would grow its own
    assert _arenas("capped") == memory.MALLOC_ARENAS


def test_trimming_the_heap_is_safe_at_any_time() -> None:
    media_heap.trim()
