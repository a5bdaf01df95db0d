"""Profile the render stage of one case, to decide what to optimise.

``.venv/bin/python -m bench.profile_render [--length 30] [--tier standard] [--top 25]``

Prep, gate and assets run first, unprofiled (they only make the render stage's inputs). The
render stage then runs under cProfile: the main thread (the frame loop: compose, then hand each
frame to the encoders) and, separately, every helper thread it starts (shot preparation, encoder
writers, clip decoders' readers, each with its own profiler). Printed:

- the split of the frame loop from :class:`media.frames.render.RenderStats`: composing versus
waiting
  for the encoders (``encoder_wait_s``: the encoders are the bottleneck while it is large);
- the top functions by cumulative time of the main thread, then of the helper threads merged,
  and the profiled seconds of each helper thread;
- where the ``.prof`` files are (``snakeviz`` or ``python -m pstats`` open them).

cProfile slows Python-level code (not numpy's or OpenCV's C loops, nor ffmpeg), so the profiled
render is slower than an unprofiled one; compare shares, not absolute seconds. pyinstrument is
not a dependency, so it is not used.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import pstats
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.cases import (
    CaseSpec,
    capture_render_stats,
    case_context,
    make_order_folder,
    render_as_deployed,
)


@contextlib.contextmanager
def profile_threads() -> Iterator[list[tuple[str, cProfile.Profile]]]:
    """Profile every :class:`threading.Thread` started in the block (one profiler each)."""
    original = threading.Thread.run
    profiles: list[tuple[str, cProfile.Profile]] = []

    def profiled_run(thread: threading.Thread) -> None:
        profiler = cProfile.Profile()
        profiles.append((thread.name, profiler))
        profiler.enable()
        try:
            original(thread)
        finally:
            profiler.disable()

    threading.Thread.run = profiled_run  # type: ignore[method-assign]
    try:
        yield profiles
    finally:
        threading.Thread.run = original  # type: ignore[method-assign]


def top(stats: pstats.Stats, count: int, sort: str) -> str:
    """The ``count`` top functions of ``stats`` by ``sort``, as pstats prints them."""
    out = io.StringIO()
    stats.stream = out  # type: ignore[attr-defined]
    stats.strip_dirs().sort_stats(sort).print_stats(count)
    return out.getvalue().strip()


WAITING_THREADS = ("_collect_stdout", "run")
"""Thread targets that only wait: the runner's stdout collectors and the heartbeat loop. They
are left out of the merged listing (their time is blocking reads and sleeps)."""


def _thread_group(name: str) -> str:
    """A thread's name without its counter: ``Thread-27 (_collect_stdout)`` -> its target."""
    match = re.fullmatch(r"Thread-\d+ \((.*)\)", name)
    return match.group(1) if match else name


def run_profile(spec: CaseSpec, workdir: Path, count: int, sort: str) -> dict[str, Any]:
    """Run prep, gate, assets, then the render stage under the profilers; print the figures."""
    from activities.assets import run_assets
    from activities.gate import run_gate
    from activities.prep import run_prep
    from app.order_folder import load_order_folder
    from workflows.stages import RenderInput, StageInput

    ctx = case_context(workdir)
    order = load_order_folder(make_order_folder(spec, workdir / "order"), ctx.settings)
    started = time.perf_counter()
    prep = run_prep(ctx, order)
    stage_input = StageInput(order=order, prep=prep)
    run_gate(ctx, stage_input)
    assets = run_assets(ctx, stage_input)
    print(f"prep, gate, assets (unprofiled): {time.perf_counter() - started:.1f} s")

    main = cProfile.Profile()
    with capture_render_stats() as seen, profile_threads() as helpers:
        started = time.perf_counter()
        main.enable()
        try:
            render_as_deployed(ctx, RenderInput(order=order, prep=prep, assets=assets))
        finally:
            main.disable()
        stage_s = time.perf_counter() - started

    print(f"\n== render stage of {spec.label}, profiled: {stage_s:.1f} s wall")
    if seen:
        stats = seen[-1]
        loop = stats.compose_s + stats.encoder_wait_s
        print(f"render_films {stats.elapsed_s:.1f} s ({stats.frames} frames per aspect, "
              f"{stats.frames_per_s:.2f} frames/s); frame loop: composing "
              f"{stats.compose_s:.1f} s ({100 * stats.compose_s / max(loop, 1e-9):.0f}%), "
              f"waiting for the encoders {stats.encoder_wait_s:.1f} s "
              f"({100 * stats.encoder_wait_s / max(loop, 1e-9):.0f}%); outside render_films "
              f"{stage_s - stats.elapsed_s:.1f} s (fetch, clip analysis, soundtrack, poster, "
              "upload)")
    out_dir = workdir / "profiles"
    out_dir.mkdir(parents=True, exist_ok=True)
    main.dump_stats(out_dir / "main.prof")
    print(f"\n== main thread: top {count} by {sort}")
    print(top(pstats.Stats(main), count, sort))

    busy: dict[str, tuple[int, float]] = {}
    merged: pstats.Stats | None = None
    working = 0
    for name, profiler in helpers:
        stats_one = pstats.Stats(profiler)
        group = _thread_group(name)
        threads, seconds = busy.get(group, (0, 0.0))
        busy[group] = (threads + 1, seconds + stats_one.total_tt)  # type: ignore[attr-defined]
        if group in WAITING_THREADS:
            continue
        working += 1
        if merged is None:
            merged = stats_one
        else:
            merged.add(stats_one)
    if merged is not None:
        merged.dump_stats(out_dir / "helpers.prof")
        print(f"\n== helper threads ({working}: shot preparation, encoder writers, clip "
              f"readers), merged: top {count} by {sort}")
        print(top(merged, count, sort))
    print("\n== seconds spent inside each kind of helper thread (blocking waits included)")
    for group, (threads, seconds) in sorted(busy.items(), key=lambda item: -item[1][1]):
        note = "  (only waits; not in the listing above)" if group in WAITING_THREADS else ""
        print(f"{group:<24} {threads:3d} thread(s) {seconds:8.1f} s{note}")
    print(f"\nprofiles: {out_dir}/main.prof, {out_dir}/helpers.prof")
    return {"stage_s": stage_s, "profiles": str(out_dir)}


def main(argv: Sequence[str] | None = None) -> int:
    """Command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.profile_render",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", type=int, default=30, help="film length (s)")
    parser.add_argument("--tier", choices=["standard", "signature"], default="standard")
    parser.add_argument("--photos", type=int, default=None, help="photo count (sample's own)")
    parser.add_argument("--top", type=int, default=25, help="functions to list")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="scratch and .prof files (default: a temp dir, kept)")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="filmprofile-"))
    spec = CaseSpec(args.length, args.tier, args.photos, stop_after="render")
    try:
        run_profile(spec, workdir, args.top, args.sort)
    finally:
        for leftover in ("storage", "work", "order"):
            shutil.rmtree(workdir / leftover, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
