"""The resample floor: what the least possible composer costs on top of the encode.

A moving photo needs at least one bilinear resample of the photo per frame and aspect, and the
frame has to reach the encoder. This bench composes exactly that and nothing else, a slow zoom
over each of a kept case's photos in turn, one ``cv2.resize`` per frame and aspect, no blends,
cards, clips or plan, and feeds it through the product's own encoder feed
(:func:`media.render.write_frame`, the product's encoder settings and soundtrack). Each round
then measures the encode alone of the very same frames from raw files, as
:mod:`bench.exact_floor` does for the real film. ``minimal / encode alone`` is the lowest
``render / exact floor`` ratio any composer in Python can reach on this machine: the render
stage's target is judged against it.

``.venv/bin/python -m bench.resample_floor RESULTS_JSON CASE --rounds N`` (the run must have
kept its workdir: ``--workdir``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import cv2
import numpy as np

from bench.exact_floor import (
    TIMEOUT_S,
    file_encoder_argv,
    raw_bytes,
    raw_writer_argv,
    run_dir,
    scratch_dir,
)
from bench.measure import Measured, RssSampler, measure
from media import render, spec
from media.compose import cover_box
from media.runner import Limits, start_tool

SHOT_FRAMES = 150  # frames per photo
ZOOM_PER_FRAME = 0.0007  # a slow push-in: 10% over a shot


def _photos(run: Path) -> list[np.ndarray]:
    paths = sorted((run / "assets/photos").glob("*.jpg"))
    if not paths:
        raise FileNotFoundError(f"no photos under {run / 'assets/photos'}")
    return [render.load_photo(path) for path in paths]


def _cover_source(photo: np.ndarray, aspect: spec.Aspect) -> np.ndarray:
    """The photo's centred crop with the aspect's ratio, scaled once to 1.15x the frame."""
    h, w = photo.shape[:2]
    x, y, cw, ch = cover_box(w, h, aspect.width, aspect.height)
    size = (round(aspect.width * 1.15), round(aspect.height * 1.15))
    return cv2.resize(photo[y:y + ch, x:x + cw], size, interpolation=cv2.INTER_AREA)


def minimal_frames(photos: Sequence[np.ndarray], aspect: spec.Aspect,
                   frames: int) -> Iterator[np.ndarray]:
    """A slow zoom over each photo in turn: one resize of a whole-pixel window per frame."""
    sources = [_cover_source(photo, aspect) for photo in photos]
    for index in range(frames):
        source = sources[(index // SHOT_FRAMES) % len(sources)]
        zoom = 1.0 + ZOOM_PER_FRAME * (index % SHOT_FRAMES)
        h, w = source.shape[:2]
        cw, ch = round(w / zoom), round(h / zoom)
        x, y = (w - cw) // 2, (h - ch) // 2
        yield cv2.resize(source[y:y + ch, x:x + cw], (aspect.width, aspect.height),
                         interpolation=cv2.INTER_LINEAR)


def render_minimal(photos: Sequence[np.ndarray], frames: int, audio: Path | None,
                   outputs: dict[str, Path], preset: str) -> None:
    """Both aspects of the minimal film through the product's encoders, frame by frame."""
    aspects = spec.ASPECTS
    with render.open_encoders(aspects, audio, outputs, preset, TIMEOUT_S) as feeds:
        streams = {a.name: minimal_frames(photos, a, frames) for a in aspects}
        for _ in range(frames):
            for name, stream in streams.items():
                feeds[name].put(next(stream))
        for feed in feeds.values():
            feed.finish()


def _measure_minimal(photos: Sequence[np.ndarray], frames: int, audio: Path, preset: str,
                     scratch: Path) -> Measured:
    outputs = {a.name: scratch / f"{a.name}.mp4" for a in spec.ASPECTS}
    with RssSampler() as sampler, measure(sampler) as measured:
        render_minimal(photos, frames, audio, outputs, preset)
    return measured


def _measure_encode_alone(photos: Sequence[np.ndarray], frames: int, audio: Path, preset: str,
                          scratch: Path) -> Measured:
    """The same frames tapped to raw files (not measured), then encoded from them."""
    raws = {a.name: scratch / f"{a.name}.rgb" for a in spec.ASPECTS}
    room = functools.partial(Limits, output_file_bytes=raw_bytes(frames))
    with mock.patch.object(render, "encoder_argv", raw_writer_argv), \
            mock.patch.object(render, "Limits", room):
        render_minimal(photos, frames, None, raws, preset)
    outputs = {a.name: scratch / f"{a.name}-file.mp4" for a in spec.ASPECTS}
    limits = Limits(timeout_s=TIMEOUT_S, address_space_bytes=render.ENCODER_ADDRESS_SPACE)
    with RssSampler() as sampler, measure(sampler) as measured, contextlib.ExitStack() as stack:
        procs = [stack.enter_context(start_tool(
            file_encoder_argv(a, raws[a.name], audio, outputs[a.name], preset), limits))
            for a in spec.ASPECTS]
        for proc in procs:
            proc.wait()
    for raw in raws.values():
        raw.unlink()
    return measured


def resample_floor_rounds(workdir: Path, preset: str, rounds: int) -> list[dict[str, Any]]:
    """``rounds`` pairs of the minimal film through the encoders and its encode alone."""
    run = run_dir(workdir / "storage")
    frames = json.loads((run / "render/timeline.json").read_text())["total_frames"]
    audio = run / "assets/song.wav"
    photos = _photos(run)
    results = []
    for number in range(1, rounds + 1):
        with scratch_dir(None) as scratch:
            minimal = _measure_minimal(photos, frames, audio, preset, scratch)
            alone = _measure_encode_alone(photos, frames, audio, preset, scratch)
        results.append({"minimal": minimal.to_dict(), "encode_alone": alone.to_dict()})
        print(f"round {number}: minimal composer wall {minimal.wall_s:.1f} s, cpu "
              f"{minimal.cpu_s:.1f} s (Python {minimal.cpu_self_s:.1f}); encode alone wall "
              f"{alone.wall_s:.1f} s, cpu {alone.cpu_s:.1f} s; ratio "
              f"{minimal.wall_s / alone.wall_s:.3f} wall, {minimal.cpu_s / alone.cpu_s:.3f} cpu",
              flush=True)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: rounds of the resample floor on a saved run's case."""
    parser = argparse.ArgumentParser(prog="python -m bench.resample_floor",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a bench/results JSON with a kept workdir")
    parser.add_argument("case", help="case label, e.g. 60s-standard")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    record = json.loads(args.results.read_text(encoding="utf-8"))
    case = record["results"]["cases"][args.case]
    results = resample_floor_rounds(Path(record["workdir"]) / case["label"], case["preset"],
                                    args.rounds)
    walls = [r["minimal"]["wall_s"] / r["encode_alone"]["wall_s"] for r in results]
    cpus = [r["minimal"]["cpu_s"] / r["encode_alone"]["cpu_s"] for r in results]
    print(f"mean of {len(results)}: minimal composer/encode alone {sum(walls) / len(walls):.3f} "
          f"wall, {sum(cpus) / len(cpus):.3f} cpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())
