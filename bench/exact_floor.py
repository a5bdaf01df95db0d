"""The exact floor: the encode alone of the very frames a case's render composed.

The mosaic floor (:mod:`bench.floor`) pans whole-pixel windows over still photos, which x264
predicts almost for free; Ken Burns zooms, parallax and crossfades are harder to encode at the
same CRF. This floor removes the content question. It composes the case's film again with
:func:`media.render.render_films`, given encoders that are ffmpeg writing the raw rgb24 frames
to a file (not measured), then measures both aspects encoded at once from those files by
:func:`media.encode.encoder_argv` (the product's exact settings, the film's soundtrack), each
reading its file where the product reads its pipe. Nothing is composited or piped from Python
in the measured part, so ``render / exact floor`` is what composing and piping cost on top of
the encode the film needs anyway.

The raw frames take 6.2 MB per frame and aspect (22 GB for a 60 s film), so the bench runs it
only where the scratch disk has room (:func:`fits_on_disk`); the files are deleted after.
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
from media import spec, yuv
from media.encode import ENCODER_ADDRESS_SPACE, EncoderArgv, encoder_argv, open_encoders
from media.framing import Subject, subject_from_dict
from media.render import render_films
from media.runner import Limits, ffmpeg_argv, ffprobe_argv, run_tool, start_tool
from media.timeline import Timeline, timeline_from_dict

RAW_BYTES_PER_PIXEL = 1.5  # yuv420p (media.yuv.PIX_FMT): what the render pipes
DISK_SHARE = 0.6  # use at most this share of the scratch disk's free space
TIMEOUT_S = 3600.0


def raw_bytes(frames: int) -> int:
    """Bytes of raw frames of every aspect for ``frames`` frames."""
    return round(sum(a.width * a.height * RAW_BYTES_PER_PIXEL for a in spec.ASPECTS) * frames)


def fits_on_disk(frames: int, scratch: Path) -> bool:
    """Whether ``frames`` frames of raw video fit in :data:`DISK_SHARE` of the free space."""
    return raw_bytes(frames) < DISK_SHARE * shutil.disk_usage(scratch).free


def raw_writer_argv(aspect: spec.Aspect, audio_path: Path | None, out_path: Path,
                    preset: str) -> list[str]:
    """Stands in for :func:`media.encode.encoder_argv`: the piped frames, copied to a file."""
    return ffmpeg_argv("-f", "rawvideo", "-pix_fmt", yuv.PIX_FMT,
                       "-s", f"{aspect.width}x{aspect.height}", "-r", str(spec.FPS),
                       "-i", "pipe:0", "-c:v", "copy", "-f", "rawvideo", str(out_path))


def file_encoder_argv(aspect: spec.Aspect, raw_path: Path, audio_path: Path, out_path: Path,
                      preset: str, argv_for: EncoderArgv = encoder_argv) -> list[str]:
    """The product's encoder command line (``argv_for``, default :func:`encoder_argv`) reading
    ``raw_path`` instead of its pipe."""
    argv = argv_for(aspect, audio_path, out_path, preset)
    argv[argv.index("pipe:0")] = str(raw_path)
    return argv


def run_dir(storage: Path) -> Path:
    """The one order run under a case's ``storage`` (the folder holding prep/assets/render)."""
    timelines = list(storage.rglob("render/timeline.json"))
    if len(timelines) != 1:
        raise ValueError(f"expected one rendered run under {storage}, found {len(timelines)}")
    return timelines[0].parents[1]


def tap_frames(run: Path, scratch: Path) -> dict[str, Path]:
    """Compose the film of ``run`` again, each aspect's raw frames to a file in ``scratch``."""
    timeline, photos, clips, subjects, logo = _case_inputs(run)
    outputs = {a.name: scratch / f"{a.name}.rgb" for a in spec.ASPECTS}
    raw_writers = functools.partial(open_encoders, argv_for=raw_writer_argv,
                                    output_file_bytes=raw_bytes(timeline.total_frames))
    render_films(timeline, photos, clips, None, outputs, subjects=subjects, logo=logo,
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


def encode_from_raw(raws: dict[str, Path], audio: Path, outputs: dict[str, Path],
                    preset: str, argv_for: EncoderArgv = encoder_argv) -> Measured:
    """Every aspect's raw frames (``raws``, by aspect name) encoded at once by
    :func:`file_encoder_argv` (from ``argv_for``) into ``outputs``, measured (wall, CPU with
    children, memory)."""
    limits = Limits(timeout_s=TIMEOUT_S, address_space_bytes=ENCODER_ADDRESS_SPACE)
    with RssSampler() as sampler, measure(sampler) as measured, contextlib.ExitStack() as stack:
        procs = [stack.enter_context(start_tool(
            file_encoder_argv(a, raws[a.name], audio, outputs[a.name], preset, argv_for), limits))
            for a in spec.ASPECTS]
        for proc in procs:
            proc.wait()
    return measured


def exact_floor(storage: Path, preset: str, scratch_parent: Path | None = None
                ) -> dict[str, Any]:
    """The case under ``storage``: frames tapped (not measured), then both aspects encoded at
    once from the raw files (measured: wall, CPU with children, peak memory)."""
    run = run_dir(storage)
    audio = _soundtrack(run)
    with scratch_dir(scratch_parent) as scratch:
        raws = tap_frames(run, scratch)
        outputs = {a.name: scratch / f"{a.name}.mp4" for a in spec.ASPECTS}
        measured = encode_from_raw(raws, audio, outputs, preset)
        return {"measured": measured.to_dict(), "preset": preset,
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
    record = json.loads(args.results.read_text(encoding="utf-8"))
    case = record["results"]["cases"][args.case]
    workdir = Path(record["workdir"]) / case["label"]
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
    for number in range(1, rounds + 1):
        stage, stats = render_stage_again(workdir)
        floor = exact_floor(workdir / "storage", preset)["measured"]
        ratios.append((stage.wall_s / floor["wall_s"], stage.cpu_s / floor["cpu_s"]))
        print(f"round {number}: render stage wall {stage.wall_s:.1f} s, cpu {stage.cpu_s:.1f} s "
              f"(Python {stage.cpu_self_s:.1f}, memory sampler {stage.sampler_cpu_s:.1f} left "
              f"out; render_films {stats.elapsed_s:.1f} s wall); "
              f"exact floor wall {floor['wall_s']:.1f} s, cpu {floor['cpu_s']:.1f} s; ratio "
              f"{ratios[-1][0]:.3f} wall, {ratios[-1][1]:.3f} cpu", flush=True)
    walls, cpus = zip(*ratios, strict=True)
    print(f"mean of {rounds}: render stage/exact floor {sum(walls) / rounds:.3f} wall, "
          f"{sum(cpus) / rounds:.3f} cpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())
