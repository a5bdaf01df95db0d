"""Each measurement runs in a fresh child process, so its peak RSS and CPU are its own.

``python -m bench.jobs KIND ARGS_JSON OUT_JSON`` runs one job (``case``, ``floor``,
``exact_floor`` or ``moviepy``) and writes its result as JSON; :func:`run_job` is the parent's side.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
LOG_TAIL_CHARS = 2000


def _case(args: dict[str, Any]) -> dict[str, Any]:
    from bench.cases import CaseSpec, run_case

    return run_case(CaseSpec(**args["spec"]), Path(args["workdir"]))


def _floor(args: dict[str, Any]) -> dict[str, Any]:
    from bench.floor import run_floor

    return run_floor(**args)


def _exact_floor(args: dict[str, Any]) -> dict[str, Any]:
    from bench.exact_floor import exact_floor

    raw_dir = args.get("raw_dir")
    return exact_floor(Path(args["storage"]), args["preset"], Path(args["scratch"]),
                       Path(raw_dir) if raw_dir else None)


def _moviepy(args: dict[str, Any]) -> dict[str, Any]:
    from bench.moviepy_film import run_moviepy

    return run_moviepy(**args)


JOBS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "case": _case, "floor": _floor, "exact_floor": _exact_floor, "moviepy": _moviepy,
}


def run_job(kind: str, args: dict[str, Any], workdir: Path,
            timeout_s: float) -> dict[str, Any]:
    """Run job ``kind`` in a child Python process; its result, or ``{"error": ...}`` if it
    failed (with the end of its log; the whole log stays in ``workdir``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    out, log = workdir / f"{kind}.result.json", workdir / f"{kind}.log"
    out.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    started = time.perf_counter()
    with log.open("wb") as log_file:
        try:
            done = subprocess.run([sys.executable, "-m", "bench.jobs", kind, json.dumps(args),
                                   str(out)], cwd=workdir, env=env, stdout=log_file,
                                  stderr=subprocess.STDOUT, timeout=timeout_s, check=False)
            code: int | None = done.returncode
        except subprocess.TimeoutExpired:
            code = None
    elapsed = time.perf_counter() - started
    if code == 0 and out.is_file():
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        result["process_wall_s"] = elapsed
        return result
    tail = log.read_text(encoding="utf-8", errors="replace")[-LOG_TAIL_CHARS:]
    reason = f"timed out after {timeout_s:.0f}s" if code is None else f"exit {code}"
    return {"error": f"{kind} job {reason}; log {log}", "log_tail": tail}


def main(argv: list[str] | None = None) -> int:
    """Child entry: run one job and write its result (the heap capped as the worker caps it)."""
    from app.memory import tune_heap
    tune_heap()
    kind, args, out = (argv if argv is not None else sys.argv[1:])
    result = JOBS[kind](json.loads(args))
    Path(out).write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
