"""The memory benchmark's sampler says who held the memory at a stage's peak (issue 20, item 6):
this process and each child by its command and output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.memory_bench import over_budget, stage_lines

HELD_MIB = 200
REPO = Path(__file__).resolve().parents[2]
# Run in a process of its own, as every bench measurement is (bench.jobs): the sampler counts
# the process's whole tree, and a pytest process may have children of its own (the session's
# Temporal dev server). The peak is sampled while the array is held, not left to the sampler's
# thread (which a busy host may not schedule in time), and the child is waited for until it
# runs its own program (until then it is a copy of this process, which the sampler leaves out).
MEASURE_A_CHILD_AND_AN_ARRAY = f"""
import json, subprocess, time
from pathlib import Path
import numpy as np
from bench.measure import RssSampler, measure

child = subprocess.Popen(["sleep", "60"])
deadline = time.monotonic() + 60
while Path(f"/proc/{{child.pid}}/comm").read_text().strip() != "sleep":
    assert time.monotonic() < deadline, "the child never ran sleep"
    time.sleep(0.01)
try:
    with RssSampler(interval_s=0.05) as sampler, measure(sampler) as measured:
        held = np.ones({HELD_MIB} * 1024**2, np.uint8)  # resident: every page written
        sampler.sample()
        del held
finally:
    child.kill()
    child.wait()
print(json.dumps({{"parts": measured.peak_parts, "tree": measured.peak_tree_mib}}))
"""


def test_the_peak_is_split_between_this_process_and_its_children_by_name() -> None:
    done = subprocess.run([sys.executable, "-c", MEASURE_A_CHILD_AND_AN_ARRAY], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=True)
    measured = json.loads(done.stdout)
    parts = measured["parts"]
    assert parts["python"] >= HELD_MIB
    assert set(parts) == {"python", "sleep 60"}
    assert abs(sum(parts.values()) - measured["tree"]) < 1.0


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
