"""The worker gives freed memory back to the system between activities (issue 31, case 10):
the heap is trimmed, the activity caches emptied, and a media activity's thread ends with it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio import activity, workflow
from temporalio.exceptions import ActivityError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from app.memory import (
    MemoryReleaser,
    ThreadPerActivity,
    page_out_files,
    read_only_file_ranges,
)
from media.base import heap
from media.base.heap import glibc
from media.cards.draw import render_card
from media.cards.spec import CardSpec

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


@pytest.mark.slow
@pytest.mark.skipif(glibc() is None, reason="not glibc")
def test_trimming_gives_a_fragmented_heap_back_to_the_system() -> None:
    child = subprocess.run([sys.executable, "-c", FRAGMENTED_HEAP], cwd=REPO, timeout=60,
                           capture_output=True, text=True, check=True)
    figures = json.loads(child.stdout)
    assert figures["released"]
    assert figures["freed"] > 150, "glibc kept the freed blocks"
    assert figures["trimmed"] < figures["freed"] - 100, figures


# --- a media activity in a thread of its own, caches released after it -----------------------


def test_each_task_runs_in_a_new_thread_that_has_ended_when_its_future_resolves() -> None:
    with ThreadPerActivity(2, "media") as executor:
        first = executor.submit(threading.current_thread).result(10)
        second = executor.submit(threading.current_thread).result(10)
    assert first is not second
    assert first.name.startswith("media_") and not first.is_alive()
    assert not second.is_alive()


def test_a_failing_task_hands_its_exception_to_its_future() -> None:
    with ThreadPerActivity(1) as executor:
        future = executor.submit(int, "not a number")
        with pytest.raises(ValueError):
            future.result(10)


def test_shutdown_waits_for_running_tasks_then_refuses_new_ones() -> None:
    executor = ThreadPerActivity(1)
    started = threading.Event()
    done = []
    executor.submit(lambda: (started.set(), time.sleep(0.3), done.append(1)))
    started.wait(10)
    executor.shutdown(wait=True)
    assert done == [1] and executor.running() == 0
    with pytest.raises(RuntimeError):
        executor.submit(int, "1")


@activity.defn(name="fill_caches")
def fill_caches() -> int:
    """Render a card (a media activity's caches fill) and heartbeat; the entries cached."""
    activity.heartbeat("drawn")
    render_card(CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift"), 320, 180)
    activity.heartbeat("drawn")
    return heap.cached_entries()


@activity.defn(name="wait_for_cancel")
def wait_for_cancel() -> str:
    """Heartbeat until cancelled (Temporal raises the cancellation into this thread)."""
    while True:
        activity.heartbeat()
        time.sleep(0.1)


@workflow.defn(name="MemoryProbe", sandboxed=False)
class MemoryProbe:
    @workflow.run
    async def run(self) -> tuple[int, str]:
        cached = await workflow.execute_activity(fill_caches,
                                                 start_to_close_timeout=timedelta(seconds=60))
        waiting = workflow.start_activity(
            wait_for_cancel, start_to_close_timeout=timedelta(seconds=60),
            heartbeat_timeout=timedelta(seconds=10),
            cancellation_type=workflow.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        await workflow.sleep(1)
        waiting.cancel()
        try:
            await waiting
        except ActivityError as err:
            return cached, type(err.cause).__name__
        return cached, "not cancelled"


async def test_a_media_activity_in_its_own_thread_heartbeats_is_cancelled_and_leaves_no_cache(
        temporal_env: WorkflowEnvironment) -> None:
    queue = f"memory-{uuid.uuid4()}"
    heap.release_caches()
    with ThreadPerActivity(2, "media") as executor:
        async with Worker(temporal_env.client, task_queue=queue, workflows=[MemoryProbe],
                          activities=[fill_caches, wait_for_cancel], activity_executor=executor,
                          interceptors=[MemoryReleaser(page_out=True)]):
            cached, ended = await temporal_env.client.execute_workflow(
                MemoryProbe.run, id=f"memory-{uuid.uuid4()}", task_queue=queue,
                execution_timeout=timedelta(seconds=60))
    assert cached > 0, "the card filled no activity cache"
    assert ended == "CancelledError"
    assert heap.cached_entries() == 0


MAPS = """\
55d0c0000000-55d0c0100000 r--p 00000000 08:01 131 /usr/bin/python3.11
55d0c0100000-55d0c0400000 r-xp 00100000 08:01 131 /usr/bin/python3.11
55d0c0400000-55d0c0410000 rw-p 00400000 08:01 131 /usr/bin/python3.11
55d0c1000000-55d0c5000000 rw-p 00000000 00:00 0                  [heap]
7f0000000000-7f0002000000 r-xp 00000000 08:01 77  /venv/cv2/cv2.abi3.so
7f0002000000-7f0002100000 rw-p 02000000 08:01 77  /venv/cv2/cv2.abi3.so
7f0003000000-7f0004000000 rw-p 00000000 00:00 0
7f0005000000-7f0005001000 r--s 00000000 00:05 12  /dev/shm/queue (deleted)
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                  [stack]
"""


def test_paging_out_advises_only_the_read_only_file_mappings() -> None:
    assert read_only_file_ranges(MAPS) == [(0x55D0C0000000, 0x55D0C0100000),
                                           (0x55D0C0100000, 0x55D0C0400000),
                                           (0x7F0000000000, 0x7F0002000000)]


def test_paging_out_this_process_is_safe_and_its_code_still_runs() -> None:
    page_out_files()
    assert render_card(CardSpec("opening", ("Hi", "Anna"), None, False, "gift"), 64, 36).shape \
        == (36, 64, 3)
