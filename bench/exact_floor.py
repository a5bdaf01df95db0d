"""The exact floor: the encode alone of the very frames a case's render composed.

The mosaic floor (:mod:`bench.floor`) pans whole-pixel windows over still photos, which x264
predicts almost for free; Ken Burns zooms, parallax and crossfades are harder to encode at the
same CRF. This floor removes the content question, as issue 22 defines it: **the x264 encode
alone of the film's exact frames from raw yuv420p (the encoder's native input), with the
deployed x264 settings and concurrency (both aspects' encoders at once).**

It composes the case's film again with :func:`media.frames.render.render_films`, given encoders that
are ffmpeg copying the piped frames to a file (not measured, :func:`tap_writer_argv`): the
render composes and pipes yuv420p itself. It then measures both aspects encoded at once from
those files by :func:`floor_encoder_argv`: the product's :func:`media.frames.encode.encoder_argv`
reading the file instead of the pipe, so the settings can never drift; :func:`x264_options`
reads the options string x264 writes into each film, and the floor's must equal the product's
(``tests/bench/test_exact_floor.py`` shows the two encodes are bit-identical on the same
frames). Nothing is composited, converted or piped from Python in the measured part, so
``render / exact floor`` is what composing and piping cost on top of the encode the film needs
anyway.

The raw yuv420p frames take 3.1 MB per frame and aspect (11 GB for a 60 s film, 34 GB for
180 s), so the bench runs it only where the scratch disk has room (:func:`fits_on_disk`); the
files are deleted after (or kept in ``raw_dir`` for further rounds on the same frames).
``.venv/bin/python -m bench.exact_floor RESULTS_JSON CASE`` runs it on a saved run's case (the
run must have kept its workdir: ``--workdir``). With ``--rounds N`` it alternates N times between
the case's render stage as deployed (:func:`bench.cases.render_stage_again`: plan, render,
poster, upload) and the exact floor of the same film, and prints each round's ratio: on a noisy
machine, pairs run back to back compare better than one run of each.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from bench.cases import render_stage_again
from bench.measure import Measured, RssSampler, measure
from media.analysis.subjects import Subject, subject_from_dict
from media.base import spec, yuv
from media.base.runner import Limits, ffmpeg_argv, ffprobe_argv, run_tool, start_tool
from media.frames.encode import (
    ENCODER_ADDRESS_SPACE,
    EncoderArgv,
    FilmSound,
    encoder_argv,
    open_encoders,
)
from media.frames.render import render_films
from media.frames.sources import FilmSources
from media.plan.timeline import Timeline, timeline_from_dict

RAW_BYTES_PER_PIXEL = 1.5  # yuv420p: what the render pipes, the tap writes and the floor reads
FLOOR_PIX_FMT = yuv.PIX_FMT  # x264's native input
DISK_SHARE = 0.6  # use at most this share of the scratch disk's free space
TIMEOUT_S = 3600.0
_X264_OPTIONS = re.compile(rb"x264 - core [^\x00]*? options: ([^\x00]+)")


def raw_bytes(frames: int) -> int:
    """Bytes of the raw yuv420p frames of every aspect for ``frames`` frames."""
    return round(sum(a.width * a.height * RAW_BYTES_PER_PIXEL for a in spec.ASPECTS) * frames)


def fits_on_disk(frames: int, scratch: Path) -> bool:
    """Whether ``frames`` frames of raw yuv420p video fit in :data:`DISK_SHARE` of the free
    space (of ``scratch``, or of the nearest folder above it that exists)."""
    while not scratch.exists() and scratch != scratch.parent:
        scratch = scratch.parent
    return raw_bytes(frames) < DISK_SHARE * shutil.disk_usage(scratch).free


def _option_after(argv: Sequence[str], flag: str, before: str | None = None) -> str | None:
    """The value following the first ``flag`` in ``argv`` (only before ``before`` if given)."""
    end = argv.index(before) if before is not None and before in argv else len(argv)
    head = list(argv[:end])
    return head[head.index(flag) + 1] if flag in head[:-1] else None


def piped_pix_fmt(settings: spec.EncoderSettings | None = None) -> str:
    """The pixel format the product's encoder reads on its pipe (what the render emits)."""
    argv = encoder_argv(spec.LANDSCAPE, None, Path("probe.mp4"),
                        settings or spec.EncoderSettings())
    found = _option_after(argv, "-pix_fmt", before="pipe:0")
    if found is None:
        raise ValueError("encoder_argv names no input pixel format")
    return found


def raw_writer_argv(aspect: spec.Aspect, sound: FilmSound | None, out_path: Path,
                    settings: spec.EncoderSettings) -> list[str]:
    """Stands in for :func:`media.frames.encode.encoder_argv`: the piped frames, copied to a
    file."""
    return ffmpeg_argv("-f", "rawvideo", "-pix_fmt", yuv.PIX_FMT,
                       "-s", f"{aspect.width}x{aspect.height}", "-r", str(spec.FPS),
                       "-i", "pipe:0", "-c:v", "copy", "-f", "rawvideo", str(out_path))


def tap_writer_argv(aspect: spec.Aspect, sound: FilmSound | None, out_path: Path,
                    settings: spec.EncoderSettings) -> list[str]:
    """The piped frames written to ``out_path`` as they are: the render pipes yuv420p, what the
    floor's encoders read, so the tap converts nothing (:func:`raw_writer_argv`)."""
    if piped_pix_fmt(settings) != FLOOR_PIX_FMT:
        raise ValueError(f"the render pipes {piped_pix_fmt(settings)}, the floor reads "
                         f"{FLOOR_PIX_FMT}: converting is the composer's cost, not the floor's")
    return raw_writer_argv(aspect, sound, out_path, settings)


def floor_encoder_argv(aspect: spec.Aspect, sound: FilmSound | None, out_path: Path,
                       settings: spec.EncoderSettings) -> list[str]:
    """The product's encoder command line (:func:`media.frames.encode.encoder_argv`, every x264 and
    output setting as deployed) reading yuv420p frames, so it converts nothing."""
    argv = encoder_argv(aspect, sound, out_path, settings)
    if "-vf" in argv:
        raise ValueError("the product's encoder filters yuv420p input: the floor would too")
    return argv


def x264_options(film: Path, limit_bytes: int = 4 << 20) -> str:
    """The options string x264 wrote into ``film``'s first SEI (``cabac=1 ref=1 ...``): every
    encoder setting as x264 itself applied it (preset, CRF, keyint, B-frames, threads,
    lookahead)."""
    with open(film, "rb") as fp:
        found = _X264_OPTIONS.search(fp.read(limit_bytes))
    if found is None:
        raise ValueError(f"{film}: no x264 options string in its first {limit_bytes} bytes")
    return found.group(1).decode("ascii", "replace")


def options_differences(ours: str, theirs: str) -> dict[str, tuple[str | None, str | None]]:
    """x264 options that differ between two options strings: {name: (ours, theirs)}."""
    def parse(text: str) -> dict[str, str]:
        return dict(item.split("=", 1) if "=" in item else (item, "") for item in text.split())

    a, b = parse(ours), parse(theirs)
    return {k: (a.get(k), b.get(k)) for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)}


def file_encoder_argv(aspect: spec.Aspect, raw_path: Path, sound: FilmSound | None,
                      out_path: Path, settings: spec.EncoderSettings,
                      argv_for: EncoderArgv = encoder_argv) -> list[str]:
    """The product's encoder command line (``argv_for``, default :func:`encoder_argv`, at
    ``settings``) reading ``raw_path`` instead of its pipe."""
    argv = argv_for(aspect, sound, out_path, settings)
    argv[argv.index("pipe:0")] = str(raw_path)
    return argv


def saved_case(results: Path, label: str) -> tuple[Path, dict[str, Any]]:
    """The workdir a bench run kept for case ``label`` (``--workdir``/``--keep``) and the
    case's record, from that run's results JSON."""
    record = json.loads(results.read_text(encoding="utf-8"))
    case = record["results"]["cases"][label]
    return Path(record["workdir"]) / case["label"], case


def run_dir(storage: Path) -> Path:
    """The one order run under a case's ``storage`` (the folder holding prep/assets/render)."""
    timelines = list(storage.rglob("render/timeline.json"))
    if len(timelines) != 1:
        raise ValueError(f"expected one rendered run under {storage}, found {len(timelines)}")
    return timelines[0].parents[1]


def tap_frames(run: Path, scratch: Path) -> dict[str, Path]:
    """Compose the film of ``run`` again, each aspect's frames to a raw yuv420p file in
    ``scratch`` (:func:`tap_writer_argv`; not measured)."""
    timeline, photos, clips, subjects, logo = _case_inputs(run)
    outputs = {a.name: scratch / f"{a.name}.yuv" for a in spec.ASPECTS}
    raw_writers = functools.partial(open_encoders, argv_for=tap_writer_argv,
                                    output_file_bytes=raw_bytes(timeline.total_frames))
    render_films(timeline, FilmSources(photos, clips, subjects, logo), outputs,
                 encoders=raw_writers)
    return outputs


@contextlib.contextmanager
def scratch_dir(parent: Path | None) -> Iterator[Path]:
    """A temporary folder for raw frames (under ``parent``, default the system's), removed
    after."""
    with tempfile.TemporaryDirectory(prefix="exact-floor-", dir=parent) as scratch:
        yield Path(scratch)


def _frames_in(path: Path) -> int:
    out = run_tool(ffprobe_argv("-count_packets", "-select_streams", "v:0", "-show_entries",
                                "stream=nb_read_packets", "-of", "csv=p=0", str(path)),
                   Limits(timeout_s=120))
    return int(out.stdout.strip())


def _case_inputs(run: Path) -> tuple[Timeline, dict[str, Path], dict[str, Path],
                                     dict[str, Subject], np.ndarray | None]:
    """A kept run's timeline, photo and clip paths, subjects and logo (None if it has none)."""
    timeline = timeline_from_dict(json.loads((run / "render/timeline.json").read_text()))
    photos = {p.stem: p for p in (run / "assets/photos").glob("*.jpg")}
    clips = {p.stem: p for p in (run / "prep/clips").glob("*.mp4")}
    framing = json.loads((run / "assets/framing.json").read_text())
    subjects = {k: subject_from_dict(v) for k, v in framing.items()}
    logo_path = run / "assets/logo.png"
    logo = None
    if logo_path.exists():
        with Image.open(logo_path) as image:
            logo = np.asarray(image.convert("RGBA"))
    return timeline, photos, clips, subjects, logo


def _soundtrack(run: Path) -> Path:
    soundtrack = run / "render/soundtrack.wav"
    return soundtrack if soundtrack.exists() else run / "assets/song.wav"


def encode_from_raw(raws: dict[str, Path], sound: FilmSound | None, outputs: dict[str, Path],
                    settings: spec.EncoderSettings,
                    argv_for: EncoderArgv = encoder_argv) -> Measured:
    """Every aspect's raw frames (``raws``, by aspect name) encoded at once by
    :func:`file_encoder_argv` (from ``argv_for``, at ``settings``) into ``outputs``, measured
    (wall, CPU with children, memory)."""
    limits = Limits(timeout_s=TIMEOUT_S, address_space_bytes=ENCODER_ADDRESS_SPACE)
    with RssSampler() as sampler, measure(sampler) as measured, contextlib.ExitStack() as stack:
        procs = [stack.enter_context(start_tool(
            file_encoder_argv(a, raws[a.name], sound, outputs[a.name], settings, argv_for),
            limits))
            for a in spec.ASPECTS]
        for proc in procs:
            proc.wait()
    return measured


def product_films(run: Path) -> dict[str, Path]:
    """The films the case's render stage delivered, by aspect name (``run/render/*``)."""
    films = {a.name: run / "render" / f"{a.name}.mp4" for a in spec.ASPECTS}
    return {name: path for name, path in films.items() if path.exists()}


def settings_check(floor_films: dict[str, Path], product: dict[str, Path]
                   ) -> dict[str, Any]:
    """The x264 options each floor film and each product film were encoded with, and their
    differences by aspect (empty: identical settings)."""
    options = {name: x264_options(path) for name, path in floor_films.items()}
    theirs = {name: x264_options(path) for name, path in product.items()}
    return {"x264_options": options, "product_x264_options": theirs,
            "differences": {name: options_differences(options[name], theirs[name])
                            for name in options if name in theirs}}


def _tapped(raw_dir: Path, frames: int) -> dict[str, Path] | None:
    """The yuv420p files of a previous tap in ``raw_dir`` if they are complete."""
    raws = {a.name: raw_dir / f"{a.name}.yuv" for a in spec.ASPECTS}
    sizes = {a.name: round(a.width * a.height * RAW_BYTES_PER_PIXEL) * frames
             for a in spec.ASPECTS}
    ok = all(path.exists() and path.stat().st_size == sizes[name] for name, path in raws.items())
    return raws if ok else None


def exact_floor(storage: Path, preset: str, scratch_parent: Path | None = None,
                raw_dir: Path | None = None) -> dict[str, Any]:
    """The case under ``storage``: frames tapped as raw yuv420p (not measured; reused from
    ``raw_dir`` when a previous round left them there, else kept there when given), then both
    aspects encoded at once from the raw files with the product's settings (measured: wall,
    CPU with children, peak memory), and the x264 settings compared with the product's films
    (``settings``: ``differences`` empty when identical)."""
    run = run_dir(storage)
    settings = spec.EncoderSettings(preset=preset)
    frames = json.loads((run / "render/timeline.json").read_text())["total_frames"]
    sound = FilmSound(_soundtrack(run), frames)
    with scratch_dir(scratch_parent) as scratch:
        raws = _tapped(raw_dir, frames) if raw_dir is not None else None
        reused = raws is not None
        if raws is None:
            if raw_dir is not None:
                raw_dir.mkdir(parents=True, exist_ok=True)
            raws = tap_frames(run, raw_dir or scratch)
        outputs = {a.name: scratch / f"{a.name}.mp4" for a in spec.ASPECTS}
        measured = encode_from_raw(raws, sound, outputs, settings, floor_encoder_argv)
        return {"measured": measured.to_dict(), "preset": preset, "frames": frames,
                "pix_fmt_read": FLOOR_PIX_FMT, "piped_pix_fmt": piped_pix_fmt(settings),
                "reused_tap": reused,
                "argv": floor_encoder_argv(spec.LANDSCAPE, sound, outputs[spec.LANDSCAPE.name],
                                           settings),
                "settings": settings_check(outputs, product_films(run)),
                "raw_bytes": {name: path.stat().st_size for name, path in raws.items()},
                "films_bytes": {name: path.stat().st_size for name, path in outputs.items()},
                "frames_out": {name: _frames_in(path) for name, path in outputs.items()}}


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: the exact floor of one case of a saved run, and the render's ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench.exact_floor",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a bench/results JSON with a kept workdir")
    parser.add_argument("case", help="case label, e.g. 60s-standard")
    parser.add_argument("--rounds", type=int, default=0,
                        help="alternate the render stage and the exact floor this many times")
    args = parser.parse_args(argv)
    workdir, case = saved_case(args.results, args.case)
    storage = workdir / "storage"
    if args.rounds > 0:
        return _alternate(workdir, case["preset"], args.rounds)
    floor = exact_floor(storage, case["preset"])
    m, r = floor["measured"], case["stages"]["render"]
    print(f"exact floor of {args.case}: wall {m['wall_s']:.1f} s, cpu {m['cpu_s']:.1f} s, "
          f"frames {floor['frames_out']}")
    print(f"render: wall {r['wall_s']:.1f} s, cpu {r['cpu_s']:.1f} s -> render/floor "
          f"{r['wall_s'] / m['wall_s']:.2f} wall, {r['cpu_s'] / m['cpu_s']:.2f} cpu; "
          f"end to end/floor {case['stages_wall_s'] / m['wall_s']:.2f}")
    return 0


def _alternate(workdir: Path, preset: str, rounds: int) -> int:
    """Print ``rounds`` pairs of render stage (as deployed) and exact floor figures, then the
    mean ratios."""
    ratios = []
    with scratch_dir(workdir) as raw_dir:  # the frames, tapped once for every round
        for number in range(1, rounds + 1):
            ratios.append(_round(workdir, preset, raw_dir, number))
    walls, cpus = zip(*ratios, strict=True)
    print(f"mean of {rounds}: render stage/exact floor {sum(walls) / rounds:.3f} wall, "
          f"{sum(cpus) / rounds:.3f} cpu")
    return 0


def _round(workdir: Path, preset: str, raw_dir: Path, number: int) -> tuple[float, float]:
    """One pair: the render stage as deployed, then the exact floor; prints and returns the
    (wall, cpu) ratios."""
    stage, stats = render_stage_again(workdir)
    floor = exact_floor(workdir / "storage", preset, raw_dir=raw_dir)["measured"]
    ratio = (stage.wall_s / floor["wall_s"], stage.cpu_s / floor["cpu_s"])
    print(f"round {number}: render stage wall {stage.wall_s:.1f} s, cpu {stage.cpu_s:.1f} s "
          f"(Python {stage.cpu_self_s:.1f}, memory sampler {stage.sampler_cpu_s:.1f} left "
          f"out; render_films {stats.elapsed_s:.1f} s wall); "
          f"exact floor wall {floor['wall_s']:.1f} s, cpu {floor['cpu_s']:.1f} s; ratio "
          f"{ratio[0]:.3f} wall, {ratio[1]:.3f} cpu", flush=True)
    return ratio


if __name__ == "__main__":
    sys.exit(main())
