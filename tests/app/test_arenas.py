"""The process's heap (app.memory): a capped process's threads share MALLOC_ARENAS arenas, and
big blocks go back to the system when freed."""

from __future__ import annotations

import json
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


# A 20 MB block freed (which raises glibc's own threshold to 20 MB), then ten 6 MB blocks (an RGB
# frame each) freed but the last: from an arena they stay resident below the one still in use.
BIG_BLOCKS = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from app import memory

    def rss_mib():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    if sys.argv[1] == "tuned":
        assert memory.tune_heap()
    del bytearray(20 * 1024**2)[:]
    before = rss_mib()
    blocks = [bytearray(b"x" * (6 * 1024**2)) for _ in range(10)]
    kept = blocks[-1]
    del blocks
    print(json.dumps({"held_mib": rss_mib() - before, "kept": len(kept)}))
""")


def _held_after_freeing(mode: str) -> float:
    done = subprocess.run([sys.executable, "-c", BIG_BLOCKS, mode], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=True)
    return float(json.loads(done.stdout)["held_mib"])


@pytest.mark.skipif(media_heap.glibc() is None, reason="glibc malloc only")
def test_a_tuned_process_gives_big_freed_blocks_back_at_once() -> None:
    assert _held_after_freeing("free") > 40  # nine freed frames kept in the arena
    assert _held_after_freeing("tuned") < 15  # only the frame still in use
