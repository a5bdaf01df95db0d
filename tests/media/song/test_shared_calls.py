"""The song's candidates shared with a pool (media.song.score.shared_with): every result in
order, whether the pool's workers take some or are busy with other jobs."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from media.song.score import shared_with


def _call(index: int, threads: list[str]) -> Callable[[], int]:
    def call() -> int:
        threads.append(threading.current_thread().name)
        return index * 10
    return call


def test_shared_calls_return_in_order_whoever_plays_them() -> None:
    threads: list[str] = []
    with ThreadPoolExecutor(2, thread_name_prefix="pool") as pool:
        assert shared_with(pool, [_call(i, threads) for i in range(5)]) == [0, 10, 20, 30, 40]
    assert len(threads) == 5


def test_calls_no_worker_took_are_played_by_the_caller_while_the_pool_is_busy() -> None:
    threads: list[str] = []
    release = threading.Event()
    with ThreadPoolExecutor(1, thread_name_prefix="pool") as pool:
        busy = pool.submit(release.wait, 30)  # the pool's one worker holds another job
        assert shared_with(pool, [_call(i, threads) for i in range(3)]) == [0, 10, 20]
        release.set()
        assert busy.result()
    assert threads == [threading.current_thread().name] * 3


def test_without_a_pool_the_calls_are_played_here_in_order() -> None:
    threads: list[str] = []
    assert shared_with(None, [_call(i, threads) for i in range(3)]) == [0, 10, 20]
    assert threads == [threading.current_thread().name] * 3
