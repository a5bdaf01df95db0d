"""The load bench judges the worker tree by the physical memory it holds (PSS, the 1 GiB goal),
not by its summed RSS, and says who held it."""

from __future__ import annotations

import os
import subprocess
import time

from bench.worker_load import LoadResult, tree_pss_breakdown


def _result(peak_rss: float, peak_pss: float) -> LoadResult:
    return LoadResult(
        orders=1, media_concurrency=1, idle_before_mib=200.0, peak_tree_mib=peak_rss,
        peak_worker_mib=550.0, peak_tree_pss_mib=peak_pss, peak_parts_mib={},
        peak_pss_parts_mib={}, idle_after_worker_mib=220.0, idle_after_tree_mib=220.0,
        wall_s=100.0, states={"succeeded": 1}, callbacks_accepted={"film-g-1": 1})


def test_the_tree_passes_by_its_pss_peak_whatever_its_summed_rss() -> None:
    assert _result(peak_rss=1080.0, peak_pss=990.0).passed(1024.0, 300.0)
    assert not _result(peak_rss=1010.0, peak_pss=1030.0).passed(1024.0, 300.0)


def test_the_pss_breakdown_names_the_worker_and_each_child() -> None:
    child = subprocess.Popen(["sleep", "30"])
    try:
        deadline = time.monotonic() + 30
        while "sleep 30" not in (parts := tree_pss_breakdown(os.getpid())):
            assert time.monotonic() < deadline, parts
            time.sleep(0.01)
    finally:
        child.kill()
        child.wait()
    assert parts["python"] > 10 and parts["sleep 30"] > 0
