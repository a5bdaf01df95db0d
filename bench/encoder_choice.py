"""Which x264 settings deliver a film fastest without a loss a viewer sees, or bytes that grow.

``python -m bench.encoder_choice RESULTS_JSON CASE [--variant NAME=PRESET:CRF[:X264PARAMS]] ...``
taps a kept case's exact frames once (as :mod:`bench.exact_floor` does: the film composed again,
each aspect's yuv420p frames to a file), then for each variant encodes both aspects at once
from those files with the product's command line (:func:`media.frames.encode.encoder_argv`) at
the variant's preset, CRF and x264 parameters (only the variant's: ``vf=veryfast:20`` is plain
veryfast), and prints per variant: wall and CPU seconds of the
encode (the exact floor at those settings), the films' bytes and Mbit/s, and each aspect's
SSIM and PSNR (luma; ffmpeg's filters) against the raw frames themselves, the lossless
reference. CPU seconds are the steady figure on a shared machine; ``--rounds`` repeats each
encode and keeps the median.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.exact_floor import (
    _soundtrack,
    encode_from_raw,
    run_dir,
    saved_case,
    scratch_dir,
    tap_frames,
)
from media.base import spec, yuv
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.frames.encode import FilmSound

_SSIM = re.compile(r"SSIM Y:([0-9.]+)")
_PSNR = re.compile(r"PSNR y:([0-9.inf]+)")


@dataclass(frozen=True)
class Variant:
    """One encoder setting to try: a name, x264's preset and CRF, and x264 parameters over the
    preset (``key=value:key=value``; empty: the preset as it is)."""

    name: str
    preset: str
    crf: int
    params: str = ""

    @classmethod
    def parse(cls, text: str) -> Variant:
        """``NAME=PRESET:CRF[:X264PARAMS]``."""
        name, _, rest = text.partition("=")
        preset, crf, *params = rest.split(":")
        return cls(name, preset, int(crf), ":".join(params))


DEFAULT_VARIANTS = (
    Variant("delivered", spec.X264_PRESET, spec.X264_CRF, spec.X264_PARAMS),
    Variant("superfast-20", "superfast", 20),
    Variant("superfast-mbtree-20", "superfast", spec.X264_CRF, spec.X264_PARAMS),
)


def quality(film: Path, raw: Path, aspect: spec.Aspect) -> dict[str, float]:
    """Luma SSIM and PSNR (dB) of ``film``'s picture against the raw yuv420p frames ``raw``."""
    argv = ffmpeg_argv("-loglevel", "info", "-nostats", "-i", str(film),
                       "-f", "rawvideo", "-pix_fmt", yuv.PIX_FMT,
                       "-s", f"{aspect.width}x{aspect.height}", "-r", str(spec.FPS),
                       "-i", str(raw),
                       "-lavfi", "[0:v][1:v]ssim;[0:v][1:v]psnr", "-f", "null", "-")
    argv = _split_lavfi(argv)
    log = run_tool(argv, Limits(timeout_s=1800)).stderr_tail
    ssim, psnr = _SSIM.search(log), _PSNR.search(log)
    return {"ssim_y": float(ssim.group(1)) if ssim else float("nan"),
            "psnr_y": float(psnr.group(1)) if psnr else float("nan")}


def _split_lavfi(argv: list[str]) -> list[str]:
    """One filter graph may read an input once only: split the film and the reference."""
    at = argv.index("-lavfi") + 1
    argv[at] = ("[0:v]split[a][b];[1:v]split[c][d];[a][c]ssim;[b][d]psnr")
    return argv


def measure_variant(variant: Variant, raws: dict[str, Path], sound: FilmSound,
                    scratch: Path, rounds: int) -> dict[str, Any]:
    """Encode both aspects at ``variant`` ``rounds`` times; median wall and CPU, bytes,
    quality."""
    settings = spec.EncoderSettings(preset=variant.preset, crf=variant.crf,
                                    params=variant.params)
    outputs = {a.name: scratch / f"{variant.name}-{a.name}.mp4" for a in spec.ASPECTS}
    runs = [encode_from_raw(raws, sound, outputs, settings)
            for _ in range(rounds)]
    result: dict[str, Any] = {
        "variant": variant.name, "preset": variant.preset, "crf": variant.crf,
        "params": variant.params,
        "wall_s": statistics.median(m.wall_s for m in runs),
        "cpu_s": statistics.median(m.cpu_s for m in runs),
        "bytes": {n: p.stat().st_size for n, p in outputs.items()},
    }
    seconds = sound.frames / spec.FPS
    result["mbit_s"] = {n: round(b * 8 / seconds / 1e6, 2) for n, b in result["bytes"].items()}
    result["quality"] = {a.name: quality(outputs[a.name], raws[a.name], a) for a in spec.ASPECTS}
    for path in outputs.values():
        path.unlink()
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: tap once, then every variant's encode, bytes and quality."""
    parser = argparse.ArgumentParser(prog="python -m bench.encoder_choice",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a bench/results JSON with a kept workdir")
    parser.add_argument("case", help="case label, e.g. 30s-standard")
    parser.add_argument("--variant", action="append", type=Variant.parse, default=[],
                        help="NAME=PRESET:CRF[:X264PARAMS] (repeatable; default: a set)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--raw-dir", type=Path, help="keep (or reuse) the tapped frames here")
    args = parser.parse_args(argv)
    workdir, _ = saved_case(args.results, args.case)
    run = run_dir(workdir / "storage")
    frames = json.loads((run / "render/timeline.json").read_text())["total_frames"]
    sound = FilmSound(_soundtrack(run), frames)
    with contextlib.ExitStack() as stack:
        scratch = stack.enter_context(scratch_dir(workdir))
        raw_dir = args.raw_dir or scratch
        raw_dir.mkdir(parents=True, exist_ok=True)
        raws = {a.name: raw_dir / f"{a.name}.yuv" for a in spec.ASPECTS}
        if not all(p.exists() for p in raws.values()):
            raws = tap_frames(run, raw_dir)
        for variant in args.variant or DEFAULT_VARIANTS:
            print(json.dumps(measure_variant(variant, raws, sound, scratch, args.rounds)),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
