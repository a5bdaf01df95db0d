"""The worker gives freed memory back to the system between activities (issue 31, case 10)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from media.base.heap import glibc

REPO = Path(__file__).resolve().parents[2]

FRAGMENTED_HEAP = textwrap.dedent("""
    import json
    from pathlib import Path
    from app.memory import limit_arenas
    from media.base.heap import trim

    def rss_mib():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    limit_arenas()
    blocks = [bytearray(64 * 1024) for _ in range(3000)]  # ~190 MiB below the mmap threshold
    for block in blocks:
        block[::4096] = b"x" * len(block[::4096])  # touch every page
    kept = blocks[::10]  # every tenth stays: the heap cannot shrink from its top
    del blocks
    freed = rss_mib()
    released = trim()
    print(json.dumps({"freed": freed, "trimmed": rss_mib(), "released": released,
                      "kept": len(kept)}))
""")


@pytest.mark.skipif(glibc() is None, reason="not glibc")
def test_trimming_gives_a_fragmented_heap_back_to_the_system() -> None:
    child = subprocess.run([sys.executable, "-c", FRAGMENTED_HEAP], cwd=REPO, timeout=60,
                           capture_output=True, text=True, check=True)
    figures = json.loads(child.stdout)
    assert figures["released"]
    assert figures["freed"] > 150, "glibc kept the freed blocks"
    assert figures["trimmed"] < figures["freed"] - 100, figures
