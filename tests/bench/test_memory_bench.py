"""The memory benchmark's sampler says who held the memory at a stage's peak (issue 20, item 6):
this process and each child by its command and output."""

from __future__ import annotations

import subprocess
import time

import numpy as np

from bench.measure import RssSampler, measure
from bench.memory_bench import over_budget, stage_lines

HELD_MIB = 200


def test_the_peak_is_split_between_this_process_and_its_children_by_name() -> None:
    child = subprocess.Popen(["sh", "-c", "sleep 5; echo done"])
    try:
        time.sleep(0.2)
        with RssSampler(interval_s=0.05) as sampler, measure(sampler) as measured:
            held = np.ones(HELD_MIB * 1024**2, np.uint8)  # resident: every page written
            time.sleep(0.3)
            del held
    finally:
        child.kill()
        child.wait()
    parts = measured.peak_parts
    assert parts["python"] >= HELD_MIB
    assert "sh sleep 5; echo done" in parts
    assert abs(sum(parts.values()) - (measured.peak_tree_mib or 0.0)) < 1.0


def test_the_report_names_the_stages_over_the_budget() -> None:
    case = {"stages": {
        "prep": {"peak_tree_mib": 600.0, "peak_tree_pss_mib": 580.0, "wall_s": 1.0,
                 "cpu_s": 1.0, "peak_parts": {"python": 300.0, "ffmpeg c03.mp4": 300.0}},
        "render": {"peak_tree_mib": 1100.0, "peak_tree_pss_mib": 1050.0, "wall_s": 2.0,
                   "cpu_s": 2.0, "peak_parts": {"python": 600.0, "ffmpeg 16x9.mp4": 250.0,
                                                "ffmpeg 9x16.mp4": 250.0}}}}
    lines = stage_lines(case)
    assert over_budget(case) == ["render"]
    assert "OVER BUDGET" in lines[2] and "OVER BUDGET" not in lines[0]
    assert lines[3].split(": ", 1)[1] == "python 600, ffmpeg 16x9.mp4 250, ffmpeg 9x16.mp4 250"
