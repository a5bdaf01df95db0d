"""The pipeline benchmark of issue 7: prints figures, writes JSON; never a timed test.

``.venv/bin/python -m bench.pipeline_bench [--lengths 60 180] [--tiers standard signature]
[--rounds 2] [--skip-moviepy] [--quick]`` (or ``make bench``). On the sample order
(``samples/birthday``, its length and tier overridden per case) it prints first the headline
of issue 22: the strict floor ratios, measured side by side as ``--rounds`` alternating pairs
(all six stages of the case, then the exact floor of its frames: :mod:`bench.exact_floor`, the
x264 encode alone from raw yuv420p with the deployed settings and concurrency) giving render
stage / floor and end to end / floor per round, the MoviePy ratio at identical encoder settings
and the peak memory, against their targets; then, for each (length, tier):

- wall and CPU seconds (this process plus its ffmpeg children) of each stage, called in order in
  process without Temporal (:mod:`bench.cases`), peak memory and the films' sizes;
- the floor ratio: our render stage against a bare encode of as many frames with the product's
  encoder settings, both aspects at once, piped from Python, and the same fed by ffmpeg's own
  lavfi source to show the pipe's cost (:mod:`bench.floor`);
- the exact floor (above; where the scratch disk holds the raw yuv420p frames, 3.1 MB per
  frame and aspect);
- the MoviePy ratio: MoviePy rendering an equivalent timeline with the product's encoder
  settings, both films at once (:mod:`bench.moviepy_film`);
- the realtime factor: film seconds per wall second, all stages;

then a scaling check of the render stage with film length and photo count (with the exact
floor at each length the disk holds). Every measurement
runs in its own child process (:mod:`bench.jobs`), one after the other, so peaks are its own.
The machine (cores, CPU, load average at start and end, versions) heads the output; on a busy
machine the wall figures are inflated, and CPU seconds are the steadier figures to compare.
JSON goes to ``bench/results/<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.cases import BYTES_PER_MB, REPO, SAMPLE_ORDER, STAGES, CaseSpec
from bench.jobs import run_job
from bench.measure import machine, moviepy_version

RESULTS = REPO / "bench" / "results"
FULL = {"lengths": [60, 180], "tiers": ["standard", "signature"], "scaling_lengths": [60, 120, 180],
        "scaling_photos": [5, 10, 20], "scaling_photo_length": 60, "memory": True}
QUICK = {"lengths": [30], "tiers": ["standard"], "scaling_lengths": [30, 60],
         "scaling_photos": [5, 10, 20], "scaling_photo_length": 30, "memory": False}
MEMORY_CASE = CaseSpec(60, "signature", heavy=True)  # issue 7: 30 photos, 3 clips, one ~480 MB
MEMORY_TARGET_MIB = 1024
RENDER_TARGET, END_TO_END_TARGET, MOVIEPY_TARGET = 1.2, 1.6, 15.0  # issue 22
NOT_MEASURED = "not measured"


def log(message: str) -> None:
    """Progress on stderr (the figures go to stdout)."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command line; unset options take the ``--quick`` or full defaults."""
    parser = argparse.ArgumentParser(prog="python -m bench.pipeline_bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", type=int, nargs="+", help="film lengths (s); 60 180")
    parser.add_argument("--tiers", nargs="+", choices=["standard", "signature"],
                        help="tiers; standard signature")
    parser.add_argument("--quick", action="store_true",
                        help="30 s, standard only, MoviePy at 30 s, small scaling check")
    parser.add_argument("--rounds", type=int, default=2,
                        help="alternating pairs (all stages, exact floor) per case (default 2)")
    parser.add_argument("--mosaic-floors", action=argparse.BooleanOptionalAction, default=True,
                        help="also run issue 7's mosaic floors (pipe and lavfi); on by default")
    parser.add_argument("--skip-moviepy", action="store_true", help="do not run MoviePy")
    parser.add_argument("--moviepy-lengths", type=int, nargs="+",
                        help="lengths MoviePy renders (default: every length)")
    parser.add_argument("--no-scaling", action="store_true", help="skip the scaling check")
    parser.add_argument("--scaling-lengths", type=int, nargs="+",
                        help="render-stage lengths of the scaling check (60 120 180)")
    parser.add_argument("--scaling-photos", type=int, nargs="+",
                        help="photo counts of the scaling check (5 10 20)")
    parser.add_argument("--scaling-photo-length", type=int,
                        help="film length (s) of the photo-count points (60: 20 photos fit)")
    parser.add_argument("--scaling-tier", choices=["standard", "signature"],
                        help="tier of the scaling check (default: the first of --tiers)")
    parser.add_argument("--memory", action=argparse.BooleanOptionalAction, default=None,
                        help="run the memory case (60 s signature, 30 phone photos, 3 clips "
                             "incl. ~480 MB); on by default, off with --quick")
    parser.add_argument("--results-dir", type=Path, default=RESULTS)
    parser.add_argument("--workdir", type=Path, default=None,
                        help="scratch (default: a new temp dir, removed unless --keep)")
    parser.add_argument("--keep", action="store_true", help="keep films and logs")
    parser.add_argument("--job-timeout", type=float, default=4 * 3600,
                        help="seconds before one measurement is abandoned")
    parser.add_argument("--report", type=Path, metavar="JSON",
                        help="only print the figures of a saved run")
    args = parser.parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])
    defaults = QUICK if args.quick else FULL
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.moviepy_lengths is None:
        args.moviepy_lengths = list(args.lengths)
    if args.scaling_tier is None:
        args.scaling_tier = args.tiers[0]
    return args


# --- running -------------------------------------------------------------------------------


@dataclass
class Results:
    """Every measurement of one benchmark run, by name (as saved in the JSON)."""

    cases: dict[str, dict[str, Any]] = field(default_factory=dict)
    floors: dict[str, dict[str, Any]] = field(default_factory=dict)
    exact_floors: dict[str, dict[str, Any]] = field(default_factory=dict)
    moviepy: dict[str, dict[str, Any]] = field(default_factory=dict)
    scaling: list[dict[str, Any]] = field(default_factory=list)
    rounds: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Per case label: the alternating pairs, each {"case": stage figures, "floor": ...}."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Measurements not taken, and why (e.g. an exact floor the disk cannot hold)."""


class Runner:
    """Runs the measurements in order, keeps their results and saves them after each one."""

    def __init__(self, args: argparse.Namespace, workdir: Path, host: dict[str, Any],
                 out: Path) -> None:
        self.args = args
        self.workdir = workdir
        self.host = host
        self.out = out
        self.sample_photos = len([p for p in (SAMPLE_ORDER / "photos").iterdir() if p.is_file()])
        self.results = Results()

    def save(self) -> None:
        """Write the results so far (the figures are re-printed by ``--report FILE``)."""
        self.out.parent.mkdir(parents=True, exist_ok=True)
        record = {"argv": self.args.argv, "machine": self.host, "results": asdict(self.results),
                  "ratios": ratio_rows(self.results), "scaling": scaling_rows(self.results),
                  "skip_moviepy": self.args.skip_moviepy,
                  "workdir": str(self.workdir) if self.args.keep or self.args.workdir else None}
        self.out.write_text(json.dumps(record, indent=2, default=str), encoding="utf-8")

    def case(self, spec: CaseSpec) -> dict[str, Any]:
        """Run (or reuse) one case: a same-tier, same-photos case that ran at least as far."""
        for done in self.results.cases.values():
            ran = done.get("spec")
            if (ran and ran["length_sec"] == spec.length_sec and ran["tier"] == spec.tier
                    and ran["photos"] == spec.photos and ran.get("heavy") == spec.heavy
                    and STAGES.index(ran["stop_after"]) >= STAGES.index(spec.stop_after)):
                return done
        log(f"case {spec.label} (stages through {spec.stop_after}) ...")
        workdir = self.workdir / spec.label
        result = run_job("case", {"spec": asdict(spec), "workdir": str(workdir)}, workdir,
                         self.args.job_timeout)
        result.setdefault("spec", None)
        result.setdefault("label", spec.label)
        self.results.cases[spec.label] = result
        self.save()
        log(f"case {spec.label}: " + (result["error"] if "error" in result
                                      else f"{result['stages_wall_s']:.1f} s"))
        return result

    def floor(self, length: int, case: dict[str, Any]) -> None:
        """Both floor variants at ``length``, on ``case``'s frame count, song and photos."""
        for variant in ("pipe", "lavfi"):
            key = f"{length}-{variant}"
            log(f"floor {variant} at {length} s ...")
            workdir = self.workdir / f"floor-{key}"
            self.results.floors[key] = run_job("floor", {
                "variant": variant, "frames": case["timeline"]["total_frames"],
                "song": case["artifacts"]["song"],
                "photos": sorted(case["artifacts"]["photos"].values()),
                "workdir": str(workdir), "preset": case["preset"],
            }, workdir, self.args.job_timeout)
            self.results.floors[key]["length_sec"] = length
            self.save()

    def exact_floor(self, case: dict[str, Any], raw_dir: Path | None = None,
                    key: str | None = None) -> dict[str, Any] | None:
        """The exact floor of ``case`` (its frames tapped, then encoded alone), disk allowing;
        the tapped frames stay in ``raw_dir`` for the next round when given. Saved under
        ``key`` (default the case's label); None when skipped."""
        from bench.exact_floor import fits_on_disk, raw_bytes

        frames, key = case["timeline"]["total_frames"], key or case["label"]
        if not (raw_dir and raw_dir.exists()) and not fits_on_disk(frames, self.workdir):
            free = shutil.disk_usage(self.workdir).free / 1e9
            why = (f"raw yuv420p frames need {raw_bytes(frames) / 1e9:.1f} GB, the scratch "
                   f"disk has {free:.1f} GB free")
            log(f"exact floor of {case['label']}: skipped ({why})")
            self.results.skipped[f"exact floor {key}"] = why
            self.save()
            return None
        log(f"exact floor of {case['label']} ...")
        workdir = self.workdir / f"exact-{key}"
        result = run_job("exact_floor", {
            "storage": str(self.workdir / case["label"] / "storage"),
            "preset": case["preset"], "scratch": str(workdir),
            "raw_dir": str(raw_dir) if raw_dir else None,
        }, workdir, self.args.job_timeout)
        self.results.exact_floors[key] = result
        self.save()
        return result

    def rounds(self, case: dict[str, Any]) -> None:
        """``--rounds`` alternating pairs for ``case``: round 1 is the case itself and its exact
        floor; each further round runs all stages again (a fresh case) and the exact floor of
        the same frames (tapped once, kept between rounds)."""
        label, raw_dir = case["label"], self.workdir / f"raw-{case['label']}"
        pairs = self.results.rounds.setdefault(label, [])
        try:
            for number in range(1, max(1, self.args.rounds) + 1):
                if number == 1:
                    again = case
                else:
                    log(f"round {number} of {label}: all stages ...")
                    spec = CaseSpec(**case["spec"])
                    workdir = self.workdir / f"{label}-r{number}"
                    again = run_job("case", {"spec": asdict(spec), "workdir": str(workdir)},
                                    workdir, self.args.job_timeout)
                floor = self.exact_floor(case, raw_dir,
                                         label if number == 1 else f"{label}-r{number}")
                pairs.append({"round": number, "case": _round_case(again),
                              "floor": floor if floor is None or not _ok(floor)
                              else {"measured": floor["measured"]}})
                self.save()
                if floor is None:
                    break
        finally:
            shutil.rmtree(raw_dir, ignore_errors=True)

    def run_moviepy(self, length: int, case: dict[str, Any]) -> None:
        """MoviePy on ``case``'s timeline, photos and song."""
        log(f"MoviePy at {length} s (slow) ...")
        workdir = self.workdir / f"moviepy-{length}"
        self.results.moviepy[str(length)] = run_job("moviepy", {
            "timeline": case["artifacts"]["timeline"], "photos": case["artifacts"]["photos"],
            "song": case["artifacts"]["song"], "workdir": str(workdir),
            "preset": case["preset"],
            "storage": str(self.workdir / case["label"] / "storage"),
        }, workdir, self.args.job_timeout)
        self.results.moviepy[str(length)]["based_on"] = case["label"]
        self.save()

    def main_cases(self) -> None:
        """Every (length, tier) case and its exact floor, then that length's floors."""
        for length in self.args.lengths:
            done = [self.case(CaseSpec(length, tier)) for tier in self.args.tiers]
            for case in done:
                if _ok(case):
                    self.rounds(case)
            base = next((c for c in done if "error" not in c), None)
            if base is not None and self.args.mosaic_floors:
                self.floor(length, base)

    def moviepy_runs(self) -> None:
        """MoviePy at each of ``--moviepy-lengths`` (last: it is by far the slowest part)."""
        if self.args.skip_moviepy:
            return
        if moviepy_version() is None:
            log("MoviePy is not installed (make bench installs it): not measured")
            return
        for length in self.args.lengths:
            base = next((c for c in self.results.cases.values() if _ok(c) and c["spec"]
                         and c["length_sec"] == length and not c["spec"]["photos"]
                         and not c["spec"].get("heavy")), None)
            if base is not None and length in self.args.moviepy_lengths:
                self.run_moviepy(length, base)

    def memory_case(self) -> None:
        """The memory order of issue 7 through every stage (its peak is the figure)."""
        if self.args.memory:
            self.case(MEMORY_CASE)

    def scaling_check(self) -> None:
        """Render-stage points over film length (sample photos) and photo count."""
        tier, photo_length = self.args.scaling_tier, self.args.scaling_photo_length
        points = [(length, self.sample_photos) for length in self.args.scaling_lengths]
        points += [(photo_length, count) for count in self.args.scaling_photos
                   if (photo_length, count) not in points]
        for length, photos in points:
            spec = CaseSpec(length, tier, None if photos == self.sample_photos else photos,
                            stop_after="render")
            result = self.case(spec)
            floor_key = None
            if _ok(result) and photos == self.sample_photos:
                floor_key = result["label"]
                if floor_key not in self.results.exact_floors:
                    floor_key = (result["label"] if self.exact_floor(result) is not None
                                 else None)
            self.results.scaling.append({
                "exact_floor": floor_key,
                "length_sec": length, "photos": photos, "tier": tier,
                "case": result["label"],
                "length_axis": photos == self.sample_photos
                and length in self.args.scaling_lengths,
                "photo_axis": length == photo_length and photos in self.args.scaling_photos})
            self.save()


# --- figures -------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table: numbers right-aligned, text left-aligned (by the last column's
    cells: a column whose cells are all numbers or empty is numeric)."""
    cells = [[_cell(v) for v in row] for row in rows]
    numeric = [i > 0 and all(isinstance(row[i], int | float) or row[i] in (None, "")
                             for row in rows) for i in range(len(headers))]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]),
                      *(line(row) for row in cells)])


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) < 100 else f"{value:.1f}"
    return str(value)


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def _mb(sizes: dict[str, int]) -> str:
    return ", ".join(f"{name} {size / BYTES_PER_MB:.2f} MB" for name, size in sizes.items())


def _peak(measured: dict[str, Any]) -> str:
    """A sampled peak as 'PSS x MiB (summed RSS y MiB)'."""
    return (f"PSS {measured.get('peak_tree_pss_mib') or 0.0:.0f} MiB (summed RSS "
            f"{measured.get('peak_tree_mib') or 0.0:.0f} MiB)")


def _ok(result: dict[str, Any] | None) -> bool:
    return result is not None and "error" not in result


def _round_case(case: dict[str, Any]) -> dict[str, Any]:
    """What a round keeps of a case run: its stages' figures and peak memory (or its error)."""
    if not _ok(case):
        return {"error": case["error"]}
    return {"stages": case["stages"], "stages_wall_s": case["stages_wall_s"],
            "stages_cpu_s": case["stages_cpu_s"], "peak_tree_pss_mib":
            case["total"].get("peak_tree_pss_mib"), "render_stats": case.get("render_stats")}


def round_rows(results: Results) -> list[dict[str, Any]]:
    """Per case and round: render stage and end to end against that round's exact floor."""
    rows = []
    for label, pairs in results.rounds.items():
        for pair in pairs:
            case, floor = pair["case"], pair["floor"]
            if "error" in case or not _ok(floor):
                rows.append({"case": label, "round": pair["round"],
                             "error": case.get("error") or (floor or {}).get("error")
                             or "exact floor skipped"})
                continue
            render, m = case["stages"]["render"], floor["measured"]
            rows.append({
                "case": label, "round": pair["round"], "render_wall_s": render["wall_s"],
                "render_cpu_s": render["cpu_s"], "end_to_end_wall_s": case["stages_wall_s"],
                "end_to_end_cpu_s": case["stages_cpu_s"], "floor_wall_s": m["wall_s"],
                "floor_cpu_s": m["cpu_s"],
                "render_over_floor": render["wall_s"] / m["wall_s"],
                "render_over_floor_cpu": render["cpu_s"] / m["cpu_s"],
                "end_to_end_over_floor": case["stages_wall_s"] / m["wall_s"],
                "end_to_end_over_floor_cpu": case["stages_cpu_s"] / m["cpu_s"],
                "peak_tree_pss_mib": case["peak_tree_pss_mib"]})
    return rows


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _verdict(value: float | None, target: float, at_most: bool = True) -> str:
    if value is None:
        return NOT_MEASURED
    met = value <= target if at_most else value >= target
    return f"{value:.2f} ({'meets' if met else 'misses'} {'<=' if at_most else '>='} {target})"


def _settings_line(name: str, result: dict[str, Any] | None) -> str | None:
    """Whether a run's x264 settings equal the product films' (from its ``settings``)."""
    settings = (result or {}).get("settings")
    if not settings:
        return None
    differences = {k: v for k, v in settings["differences"].items() if v}
    if not settings["differences"]:
        return f"{name}: x264 settings not compared (no product film)"
    if not differences:
        return f"{name}: x264 settings identical to the product films' (options string in SEI)"
    return f"{name}: x264 settings DIFFER from the product's: {differences}"


def headline_report(results: Results) -> str:
    """Issue 22's figures first: strict floor ratios by round and their mean, the MoviePy ratio
    at identical encoder settings, peak memory, each against its target."""
    rows = round_rows(results)
    lines = ["== headline (issue 22): strict floor = x264 alone on the film's exact frames from "
             "raw yuv420p, deployed settings, both aspects at once; alternating pairs "
             "(all stages, then the floor)"]
    body = [[r["case"], r["round"], "FAILED: " + r["error"]] + [""] * 6 if "error" in r else
            [r["case"], r["round"], r["render_wall_s"], r["floor_wall_s"],
             r["render_over_floor"], r["render_over_floor_cpu"], r["end_to_end_wall_s"],
             r["end_to_end_over_floor"], r["end_to_end_over_floor_cpu"]] for r in rows]
    lines.append(table(["case", "round", "render s", "floor s", "render/floor", "(cpu)",
                        "e2e s", "e2e/floor", "(cpu)"], body))
    for label in results.rounds:
        ok = [r for r in rows if r["case"] == label and "error" not in r]
        if not ok:
            continue
        render = _mean([r["render_over_floor"] for r in ok])
        render_cpu = _mean([r["render_over_floor_cpu"] for r in ok])
        e2e = _mean([r["end_to_end_over_floor"] for r in ok])
        e2e_cpu = _mean([r["end_to_end_over_floor_cpu"] for r in ok])
        lines.append(f"{label}, mean of {len(ok)}: render stage/floor "
                     f"{_verdict(render, RENDER_TARGET)} wall, {render_cpu:.2f} cpu; "
                     f"end to end/floor {_verdict(e2e, END_TO_END_TARGET)} wall, "
                     f"{e2e_cpu:.2f} cpu")
    for length, movie in results.moviepy.items():
        base = results.cases.get(movie.get("based_on", ""))
        if not _ok(movie) or not _ok(base):
            lines.append(f"MoviePy {length} s: FAILED" if not _ok(movie) else "")
            continue
        label = base["label"]
        renders = [r["render_wall_s"] for r in rows if r["case"] == label and "error" not in r]
        render = _mean(renders) or base["stages"]["render"]["wall_s"]
        m = movie["measured"]
        ratio = _verdict(m["wall_s"] / render, MOVIEPY_TARGET, at_most=False)
        lines.append(f"MoviePy {movie.get('moviepy', '')} {length} s, both films at once at the "
                     f"product's encoder settings: {m['wall_s']:.1f} s wall, {m['cpu_s']:.1f} "
                     f"cpu s; MoviePy/render stage {ratio} wall, "
                     f"{m['cpu_s'] / base['stages']['render']['cpu_s']:.2f} cpu")
    checks = [_settings_line(f"exact floor {k}", v) for k, v in results.exact_floors.items()]
    checks += [_settings_line(f"MoviePy {k} s", v) for k, v in results.moviepy.items()]
    lines += [c for c in checks if c]
    peaks = {label: c["total"].get("peak_tree_pss_mib") for label, c in results.cases.items()
             if _ok(c)}
    if peaks:
        worst = max(peaks, key=lambda k: peaks[k] or 0.0)
        lines.append(f"peak memory: process tree PSS {peaks[worst] or 0.0:.0f} MiB in "
                     f"{worst} (target <= {MEMORY_TARGET_MIB} MiB"
                     + ("" if any(c.get("spec", {}).get("heavy") for c in results.cases.values()
                                  if _ok(c)) else "; memory order not run") + ")")
    lines += [f"not measured: {name}: {why}" for name, why in results.skipped.items()]
    return "\n".join(line for line in lines if line)


def case_report(case: dict[str, Any]) -> str:
    """One case's stage table and memory, sizes and render internals."""
    if not _ok(case):
        return f"== {case['label']}: FAILED: {case['error']}\n{case.get('log_tail', '')}"
    plan, stages = case["timeline"], case["stages"]
    through = "" if case["spec"]["stop_after"] == "deliver" else (
        f", stages through {case['spec']['stop_after']}")
    head = (f"== {case['label']}{through}: {plan['total_frames']} frames per film, "
            f"{plan['shots']} shots ({plan['photo_shots']} photo, {plan['clip_shots']} clip, "
            f"{plan['card_shots']} card), {case['photos_in_order']} photos "
            f"({plan['photos_used']} used), {case['clips_in_order']} clips, "
            f"x264 preset {case['preset']}")
    rows = [[name, s["wall_s"], s["cpu_s"], s["cpu_self_s"], s["cpu_children_s"],
             s.get("peak_tree_pss_mib"), s.get("peak_tree_mib"), s.get("peak_child_mib")]
            for name, s in stages.items()]
    total = case["total"]
    rows.append(["all stages", case["stages_wall_s"], case["stages_cpu_s"],
                 total["cpu_self_s"], total["cpu_children_s"], total.get("peak_tree_pss_mib"),
                 total.get("peak_tree_mib"), total.get("peak_child_mib")])
    lines = [head, table(["stage", "wall s", "cpu s", "python", "ffmpeg", "tree PSS MiB",
                          "tree RSS MiB", "1 child MiB"], rows)]
    lines.append(f"peak RSS (ru_maxrss): self {total['maxrss_self_mib']:.0f} MiB, children "
                 f"{total['maxrss_children_mib']:.0f} MiB (the children's figure counts the "
                 "Python parent's size at fork; the tree and child columns are sampled peaks: "
                 "PSS counts pages shared between processes once, summed RSS once per sharer)")
    lines.append(f"films: {_mb(case['films_bytes'])}")
    if total.get("sampler_cpu_s"):
        lines.append(f"the memory sampler's own {total['sampler_cpu_s']:.1f} CPU-s are left out "
                     "of the python column")
    if case["spec"].get("heavy"):
        worst = max(stages, key=lambda n: stages[n].get("peak_tree_pss_mib") or 0.0)
        lines.append(f"memory order: peak of the process tree {_peak(stages[worst])} in stage "
                     f"{worst} (target <= {MEMORY_TARGET_MIB} MiB)")
    stats = case.get("render_stats")
    if stats:
        lines.append(f"render_films: {stats['elapsed_s']:.1f} s of the render stage's "
                     f"{stages['render']['wall_s']:.1f} s, {stats['frames_per_s']:.1f} frames/s; "
                     f"main thread composing {stats['compose_s']:.1f} s, waiting for the "
                     f"encoders {stats['encoder_wait_s']:.1f} s")
    return "\n".join(lines)


def ratio_rows(results: Results) -> list[dict[str, Any]]:
    """The three ratios per case (None where a side was not measured)."""
    rows = []
    for case in results.cases.values():
        spec = case.get("spec")
        if (not _ok(case) or spec is None or spec["stop_after"] != "deliver" or spec["photos"]
                or spec.get("heavy")):
            continue
        length = case["length_sec"]
        render = case["stages"]["render"]
        pipe = results.floors.get(f"{length}-pipe")
        lavfi = results.floors.get(f"{length}-lavfi")
        movie = results.moviepy.get(str(length))
        exact = results.exact_floors.get(case["label"])
        exact_m = exact["measured"] if _ok(exact) else None
        pipe_m = pipe["measured"] if _ok(pipe) else None
        lavfi_m = lavfi["measured"] if _ok(lavfi) else None
        movie_m = movie["measured"] if _ok(movie) else None
        rows.append({
            "case": case["label"], "length_sec": length, "tier": case["tier"],
            "render_wall_s": render["wall_s"], "render_cpu_s": render["cpu_s"],
            "end_to_end_wall_s": case["stages_wall_s"],
            "floor_pipe_wall_s": pipe_m and pipe_m["wall_s"],
            "floor_pipe_cpu_s": pipe_m and pipe_m["cpu_s"],
            "floor_lavfi_wall_s": lavfi_m and lavfi_m["wall_s"],
            "floor_lavfi_cpu_s": lavfi_m and lavfi_m["cpu_s"],
            "render_over_floor": _ratio(render["wall_s"], pipe_m and pipe_m["wall_s"]),
            "render_over_floor_cpu": _ratio(render["cpu_s"], pipe_m and pipe_m["cpu_s"]),
            "render_over_lavfi_floor": _ratio(render["wall_s"], lavfi_m and lavfi_m["wall_s"]),
            "end_to_end_over_floor": _ratio(case["stages_wall_s"], pipe_m and pipe_m["wall_s"]),
            "exact_floor_wall_s": exact_m and exact_m["wall_s"],
            "exact_floor_cpu_s": exact_m and exact_m["cpu_s"],
            "render_over_exact": _ratio(render["wall_s"], exact_m and exact_m["wall_s"]),
            "render_over_exact_cpu": _ratio(render["cpu_s"], exact_m and exact_m["cpu_s"]),
            "end_to_end_over_exact": _ratio(case["stages_wall_s"],
                                            exact_m and exact_m["wall_s"]),
            "moviepy_wall_s": movie_m and movie_m["wall_s"],
            "moviepy_cpu_s": movie_m and movie_m["cpu_s"],
            "moviepy_over_render": _ratio(movie_m and movie_m["wall_s"], render["wall_s"]),
            "moviepy_over_render_cpu": _ratio(movie_m and movie_m["cpu_s"], render["cpu_s"]),
            "realtime_factor": _ratio(float(length), case["stages_wall_s"]),
        })
    return rows


def ratios_report(rows: list[dict[str, Any]]) -> str:
    """The ratios table (targets of issue 7 in the header line)."""
    def show(value: float | None) -> Any:
        return NOT_MEASURED if value is None else value

    body = [[r["case"], r["render_wall_s"], show(r["floor_pipe_wall_s"]),
             show(r["render_over_floor"]), show(r["render_over_floor_cpu"]),
             show(r["floor_lavfi_wall_s"]), show(r["render_over_lavfi_floor"]),
             show(r["end_to_end_over_floor"]), show(r.get("exact_floor_wall_s")),
             show(r.get("render_over_exact")), show(r.get("render_over_exact_cpu")),
             show(r.get("end_to_end_over_exact")), show(r["moviepy_wall_s"]),
             show(r["moviepy_over_render"]), show(r["moviepy_over_render_cpu"]),
             r["realtime_factor"]] for r in rows]
    return ("== ratios of the first round (the strict floor is 'exact'; targets: render/exact <= "
            f"{RENDER_TARGET}, e2e/exact <= {END_TO_END_TARGET}, MoviePy/render >= "
            f"{MOVIEPY_TARGET:.0f}; 'floor' and 'lavfi' are the mosaic floors of issue 7; wall "
            "unless marked cpu)\n"
            + table(["case", "render s", "floor s", "render/floor", "(cpu)", "lavfi s",
                     "render/lavfi", "e2e/floor", "exact s", "render/exact", "(cpu)",
                     "e2e/exact", "MoviePy s", "MoviePy/render", "(cpu)",
                     "realtime x"], body))


def _baseline_row(name: str, result: dict[str, Any], note: Callable[[], str]) -> list[Any]:
    """One row of the baselines table: the run's measurements and ``note()``, or FAILED."""
    if not _ok(result):
        return [name, "FAILED", "", "", "", "", "", result["error"]]
    m = result["measured"]
    return [name, m["wall_s"], m["cpu_s"], m.get("peak_tree_pss_mib"), m["peak_tree_mib"],
            m["peak_child_mib"], _mb(result["films_bytes"]), note()]


def _frames_out(result: dict[str, Any]) -> str:
    return "/".join(str(v) for v in result["frames_out"].values())


def baselines_report(results: Results) -> str:
    """The floor and MoviePy runs themselves."""
    def floor_note(floor: dict[str, Any]) -> str:
        note = f"{floor['frames']} in, {_frames_out(floor)} out"
        pipe = results.floors.get(f"{floor['length_sec']}-pipe")
        if floor["variant"] == "lavfi" and _ok(pipe):
            m, piped = floor["measured"], pipe["measured"]
            note += (f"; the pipe costs {piped['wall_s'] - m['wall_s']:.1f} s wall "
                     f"({piped['cpu_s'] - m['cpu_s']:.1f} s cpu)")
        return note

    def exact_note(exact: dict[str, Any]) -> str:
        raw_gb = sum(exact["raw_bytes"].values()) / 1e9
        return (f"{_frames_out(exact)} frames out, from {raw_gb:.1f} GB of raw "
                f"{exact.get('pix_fmt_read', 'yuv420p')}")

    def moviepy_note(movie: dict[str, Any]) -> str:
        per = ", ".join(f"{k} {v:.0f} s"
                        for k, v in movie["measured"]["extra"]["aspect_wall_s"].items())
        return f"{movie['frames']} frames; {per}; timeline of {movie['based_on']}"

    rows = []
    for key, floor in results.floors.items():
        length, variant = key.split("-", 1)
        rows.append(_baseline_row(f"floor {variant} {length} s", floor,
                                  lambda f=floor: floor_note(f)))
    rows += [_baseline_row(f"exact floor {label}", exact, lambda e=exact: exact_note(e))
             for label, exact in results.exact_floors.items()]
    rows += [_baseline_row(f"MoviePy {movie.get('moviepy', '')} {length} s", movie,
                           lambda m=movie: moviepy_note(m))
             for length, movie in results.moviepy.items()]
    return "== floor and MoviePy runs\n" + table(
        ["run", "wall s", "cpu s", "tree PSS MiB", "tree RSS MiB", "1 child MiB", "films",
         "notes"], rows)


def scaling_rows(results: Results) -> list[dict[str, Any]]:
    """Per scaling point: stage seconds, render per film second, work per photo."""
    rows = []
    for point in results.scaling:
        case = results.cases[point["case"]]
        if not _ok(case):
            rows.append({**point, "error": case["error"]})
            continue
        stages, length, photos = case["stages"], point["length_sec"], point["photos"]
        render = stages["render"]
        work_cpu = sum(stages[name]["cpu_s"] for name in ("prep", "assets", "render"))
        floor = results.exact_floors.get(point.get("exact_floor") or "")
        floor_s = floor["measured"]["wall_s"] if _ok(floor) else None
        rows.append({**point, "photos_used": case["timeline"]["photos_used"],
                     "floor_s": floor_s, "render_over_floor": _ratio(render["wall_s"], floor_s),
                     "prep_s": stages["prep"]["wall_s"], "assets_s": stages["assets"]["wall_s"],
                     "render_s": render["wall_s"], "render_cpu_s": render["cpu_s"],
                     "work_cpu_s": work_cpu,
                     "render_s_per_film_s": render["wall_s"] / length,
                     "render_cpu_per_film_s": render["cpu_s"] / length,
                     "work_cpu_per_photo": work_cpu / photos})
    return rows


def _marginal(points: list[dict[str, Any]], unit: str, key: str) -> list[tuple[str, float]]:
    """Extra ``key`` per extra ``unit`` between consecutive points (constant = linear)."""
    steps = []
    for a, b in itertools.pairwise(points):
        if b[unit] != a[unit]:
            steps.append((f"{a[unit]}->{b[unit]}", (b[key] - a[key]) / (b[unit] - a[unit])))
    return steps


def scaling_report(rows: list[dict[str, Any]]) -> str:
    """The scaling table and the marginal CPU cost per film second and per photo."""
    body = []
    for r in rows:
        if "error" in r:
            body.append([f"{r['length_sec']} s, {r['photos']} photos", "FAILED"] + [""] * 10)
            continue
        body.append([f"{r['length_sec']} s, {r['photos']} photos", r["photos_used"],
                     r["prep_s"], r["assets_s"], r["render_s"], r["render_cpu_s"],
                     r.get("floor_s"), r.get("render_over_floor"),
                     r["render_s_per_film_s"], r["render_cpu_per_film_s"], r["work_cpu_s"],
                     r["work_cpu_per_photo"]])
    lines = [f"== scaling (stages prep to render, tier {rows[0]['tier'] if rows else '-'}; "
             "'used': photos the timeline shows, the rest are prepped and analysed only)",
             table(["point", "used", "prep s", "assets s", "render s", "render cpu",
                    "exact floor s", "render/floor", "render s/film s", "cpu/film s",
                    "prep+assets+render cpu", "cpu/photo"],
                   body)]
    for axis, unit, key, what in (
            ("length", "length_sec", "render_cpu_s", "render cpu s per extra film second"),
            ("photo", "photos", "work_cpu_s", "prep+assets+render cpu s per extra photo")):
        points = sorted((r for r in rows if "error" not in r and r[f"{axis}_axis"]),
                        key=lambda r, unit=unit: r[unit])
        steps = _marginal(points, unit, key)
        if steps:
            shown = ", ".join(f"{label}: {value:.2f}" for label, value in steps)
            verdict = (f"; last/first step {steps[-1][1] / steps[0][1]:.2f} (about 1 or less "
                       "= linear)" if len(steps) >= 2 and steps[0][1] > 0 else "")
            lines.append(f"{axis}: {what}: {shown}{verdict}")
    return "\n".join(lines)


def report(record: dict[str, Any]) -> str:
    """All the figures of a saved run, as printed at its end."""
    host, results = record["machine"], Results(**record["results"])
    end = host.get("loadavg_end") or [float("nan")] * 3
    busy = max(host["loadavg_start"][0], end[0]) > (host["cpus_usable"] or 1)
    headline = headline_report(results)
    if busy:
        headline += (f"\nbusy machine (load average {max(host['loadavg_start'][0], end[0]):.1f} "
                     f"on {host['cpus_usable']} cores): wall ratios are inflated, compare the "
                     "cpu ones")
    parts = [
        headline,
        f"== machine: {host['cpu_count']} cores ({host['cpus_usable']} usable), "
        f"{host['cpu_model']}, {host['memory_gib']} GiB; python {host['python']}; "
        f"{host['ffmpeg']}; MoviePy {host['moviepy'] or NOT_MEASURED}\n"
        "   load average (1, 5, 15 min) at start "
        f"{' '.join(f'{v:.2f}' for v in host['loadavg_start'])}, at end "
        f"{' '.join(f'{v:.2f}' for v in end)}"
        + ("  << busy machine: wall figures are inflated" if busy else ""),
        *(case_report(case) for case in results.cases.values()),
        ratios_report(ratio_rows(results)),
        baselines_report(results)
        + ("" if results.moviepy else f"\nMoviePy: {NOT_MEASURED}"
           + (" (--skip-moviepy)" if record.get("skip_moviepy") else "")),
    ]
    scaling = scaling_rows(results)
    if scaling:
        parts.append(scaling_report(scaling))
    failed = [c["label"] for c in results.cases.values() if not _ok(c)]
    failed += [f"floor {k}" for k, f in results.floors.items() if not _ok(f)]
    failed += [f"exact floor {k}" for k, f in results.exact_floors.items() if not _ok(f)]
    failed += [f"MoviePy {k}" for k, m in results.moviepy.items() if not _ok(m)]
    if failed:
        parts.append(f"FAILED: {', '.join(failed)}")
    return "\n\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """Run everything, save the JSON, print the figures (or, with ``--report``, reprint)."""
    args = parse_args(argv)
    if args.report is not None:
        print(report(json.loads(args.report.read_text(encoding="utf-8"))))
        return 0
    host = machine()
    host["moviepy"] = moviepy_version()
    log(f"{host['cpu_count']} cores ({host['cpus_usable']} usable), load "
        f"{', '.join(f'{v:.2f}' for v in host['loadavg_start'])}")
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix="filmbench-"))).absolute()
    out = args.results_dir / f"{time.strftime('%Y%m%d-%H%M%S')}.json"
    runner = Runner(args, workdir, host, out)
    try:
        runner.main_cases()
        runner.memory_case()
        if not args.no_scaling:
            runner.scaling_check()
        runner.moviepy_runs()
    finally:
        host["loadavg_end"] = list(os.getloadavg())
        runner.save()
        if args.workdir is None and not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    text = report(json.loads(out.read_text(encoding="utf-8")))
    print(text)
    print(f"\nwrote {out}")
    return 1 if "\nFAILED: " in text else 0


if __name__ == "__main__":
    sys.exit(main())
