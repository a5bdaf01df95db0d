"""Peak memory of the worst legal order (issue 20, item 6): ``python -m bench.memory_bench``.

Runs the memory order (:data:`bench.pipeline_bench.MEMORY_CASE`: 60 s signature, 30 phone-size
photos, 3 clips of which one ~480 MB) through the real stages in a fresh child process
(:mod:`bench.jobs`), one stage after another as the media worker runs them at the default
``FILM_MEDIA_CONCURRENCY`` of a 2-core worker (one at a time), and prints each stage's sampled
peak of the process tree (RSS summed, and PSS) with who held it at that moment (the Python
process, each encoder, each clip decoder), against the 1 GiB budget of prep and render. Exits
1 when prep or render is over it. The JSON goes to ``bench/results/memory-<timestamp>.json``.
The same case runs in ``make bench`` (:mod:`bench.pipeline_bench`, its memory case).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from bench.cases import REPO, STAGES
from bench.jobs import run_job
from bench.measure import machine
from bench.pipeline_bench import MEMORY_CASE
from bench.pipeline_bench import MEMORY_TARGET_MIB as BUDGET_MIB

BUDGET_STAGES = ("prep", "render")
RESULTS = REPO / "bench" / "results"


def stage_lines(case: dict[str, Any]) -> list[str]:
    """One line per stage: peak tree RSS and PSS (MiB), then the processes at that peak."""
    lines = []
    for name, stage in case["stages"].items():
        parts = ", ".join(f"{who} {mib:.0f}" for who, mib in
                          sorted(stage.get("peak_parts", {}).items(), key=lambda kv: -kv[1]))
        over = (" OVER BUDGET" if name in BUDGET_STAGES
                and (stage.get("peak_tree_mib") or 0.0) > BUDGET_MIB else "")
        lines.append(f"{name:8s} peak tree RSS {stage.get('peak_tree_mib') or 0.0:6.0f} MiB, "
                     f"PSS {stage.get('peak_tree_pss_mib') or 0.0:6.0f} MiB, wall "
                     f"{stage['wall_s']:6.1f} s, CPU {stage['cpu_s']:6.1f} s{over}")
        if parts:
            lines.append(f"{'':8s} at the peak (MiB): {parts}")
    return lines


def over_budget(case: dict[str, Any]) -> list[str]:
    """The budgeted stages whose sampled tree RSS peak exceeds :data:`BUDGET_MIB`."""
    return [name for name in BUDGET_STAGES
            if (case["stages"].get(name, {}).get("peak_tree_mib") or 0.0) > BUDGET_MIB]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the memory case once and print its peaks; 1 if prep or render is over budget."""
    parser = argparse.ArgumentParser(prog="python -m bench.memory_bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--stop-after", choices=STAGES, default="deliver",
                        help="last stage to run (default: every stage)")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="scratch, kept (default: a temp dir, removed afterwards)")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--job-timeout", type=float, default=3 * 3600)
    args = parser.parse_args(argv)
    spec = replace(MEMORY_CASE, stop_after=args.stop_after)
    host = machine()
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="filmmem-"))).absolute()
    print(f"[memory] {host['cpu_count']} cores, load {host['loadavg_start']}, case "
          f"{spec.label} through {spec.stop_after} in {workdir}", file=sys.stderr, flush=True)
    try:
        case = run_job("case", {"spec": asdict(spec), "workdir": str(workdir / spec.label)},
                       workdir / spec.label, args.job_timeout)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    out = args.results_dir / f"memory-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": host, "case": case}, indent=2, default=str),
                   encoding="utf-8")
    if "error" in case:
        print(case["error"], case.get("log_tail", ""), sep="\n")
        return 2
    print(f"memory order {spec.label}: {case['photos_in_order']} photos, "
          f"{case['clips_in_order']} clips; budget {BUDGET_MIB} MiB for "
          f"{' and '.join(BUDGET_STAGES)}")
    print("\n".join(stage_lines(case)))
    over = over_budget(case)
    print(f"over budget: {', '.join(over)}" if over else "prep and render within budget")
    print(f"JSON: {out}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
