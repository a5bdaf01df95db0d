"""The resample floor: what the least possible composer costs on top of the encode.

A moving photo needs at least one bilinear resample of the photo per frame and aspect, and the
frame has to reach the encoder. This bench composes exactly that and nothing else, a slow zoom
over each of a kept case's photos in turn, one ``cv2.resize`` per frame and aspect, no blends,
cards, clips or plan, and feeds it through the product's own encoder feed
(:func:`media.frames.encode.open_encoders`, the product's encoder settings and soundtrack). Each
round
then measures the encode alone of the very same frames from raw files, as
:mod:`bench.exact_floor` does for the real film. ``minimal / encode alone`` is the lowest
``render / exact floor`` ratio any composer in Python can reach on this machine: the render
stage's target is judged against it.

``--yuv`` asks what composing in YUV 4:2:0 would change: the same zoom resampled plane by
plane (BT.709 limited range, the photo converted once), piped as yuv420p to the product's
encoder settings minus the rgb24 conversion; its encode alone then reads yuv420p too.

``.venv/bin/python -m bench.resample_floor RESULTS_JSON CASE --rounds N [--yuv]`` (the run must
have kept its workdir: ``--workdir``).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench.exact_floor import (
    TIMEOUT_S,
    encode_from_raw,
    raw_bytes,
    raw_writer_argv,
    run_dir,
    saved_case,
    scratch_dir,
)
from bench.measure import Measured, RssSampler, measure
from bench.rgb_encoder import rgb_encoder_argv
from media.base import spec
from media.base import yuv as yuv_layout
from media.frames.compose import cover_box
from media.frames.encode import EncoderArgv, EncoderFactory, FilmSound, encoder_argv, open_encoders
from media.frames.sources import load_photo
from media.frames.stall import StallWatch

SHOT_FRAMES = 150  # frames per photo
ZOOM_PER_FRAME = 0.0007  # a slow push-in: 10% over a shot
# RGB -> BT.709 limited-range Y, Cb, Cr (cv2.transform: the last column is the offset)
BT709_LIMITED = np.array([
    [0.2126 * 219 / 255, 0.7152 * 219 / 255, 0.0722 * 219 / 255, 16.0],
    [-0.1146 * 224 / 255, -0.3854 * 224 / 255, 0.5 * 224 / 255, 128.0],
    [0.5 * 224 / 255, -0.4542 * 224 / 255, -0.0458 * 224 / 255, 128.0],
])


def _photos(run: Path) -> list[np.ndarray]:
    paths = sorted((run / "assets/photos").glob("*.jpg"))
    if not paths:
        raise FileNotFoundError(f"no photos under {run / 'assets/photos'}")
    return [load_photo(path) for path in paths]


def _cover_source(photo: np.ndarray, aspect: spec.Aspect) -> np.ndarray:
    """The photo's centred crop with the aspect's ratio, scaled once to 1.15x the frame."""
    h, w = photo.shape[:2]
    x, y, cw, ch = cover_box(w, h, aspect.width, aspect.height)
    size = (round(aspect.width * 1.15), round(aspect.height * 1.15))
    return cv2.resize(photo[y:y + ch, x:x + cw], size, interpolation=cv2.INTER_AREA)


def _zoom_window(source_size: tuple[int, int], index: int) -> tuple[int, int, int, int]:
    """The centred whole-pixel window (x, y, w, h) of frame ``index``'s slow push-in."""
    w, h = source_size
    zoom = 1.0 + ZOOM_PER_FRAME * (index % SHOT_FRAMES)
    cw, ch = round(w / zoom), round(h / zoom)
    return (w - cw) // 2, (h - ch) // 2, cw, ch


def minimal_frames(photos: Sequence[np.ndarray], aspect: spec.Aspect,
                   frames: int) -> Iterator[np.ndarray]:
    """A slow zoom over each photo in turn: one resize of a whole-pixel window per frame."""
    sources = [_cover_source(photo, aspect) for photo in photos]
    for index in range(frames):
        source = sources[(index // SHOT_FRAMES) % len(sources)]
        x, y, cw, ch = _zoom_window((source.shape[1], source.shape[0]), index)
        yield cv2.resize(source[y:y + ch, x:x + cw], (aspect.width, aspect.height),
                         interpolation=cv2.INTER_LINEAR)


def _yuv_planes(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Y, and Cb and Cr at half size, of an RGB image (BT.709 limited range)."""
    yuv = cv2.transform(rgb, BT709_LIMITED)
    h, w = rgb.shape[:2]
    luma = np.ascontiguousarray(yuv[:, :, 0])
    return luma, *(cv2.resize(np.ascontiguousarray(yuv[:, :, c]), (w // 2, h // 2),
                              interpolation=cv2.INTER_AREA) for c in (1, 2))


def minimal_yuv_frames(photos: Sequence[np.ndarray], aspect: spec.Aspect,
                       frames: int) -> Iterator[np.ndarray]:
    """:func:`minimal_frames` composed in yuv420p: each plane resized into the frame's I420
    buffer (Y, then Cb, then Cr), one resize per plane."""
    w, h = aspect.width, aspect.height
    sources = [_yuv_planes(_cover_source(photo, aspect)) for photo in photos]
    for index in range(frames):
        planes = sources[(index // SHOT_FRAMES) % len(sources)]
        x, y, cw, ch = _zoom_window((planes[0].shape[1], planes[0].shape[0]), index)
        frame = np.empty(h * w * 3 // 2, np.uint8)
        cv2.resize(planes[0][y:y + ch, x:x + cw], (w, h), dst=frame[:h * w].reshape(h, w),
                   interpolation=cv2.INTER_LINEAR)
        quarter = (h // 2) * (w // 2)
        for i, plane in enumerate(planes[1:]):
            start = h * w + i * quarter
            cv2.resize(plane[y // 2:(y + ch) // 2, x // 2:(x + cw) // 2], (w // 2, h // 2),
                       dst=frame[start:start + quarter].reshape(h // 2, w // 2),
                       interpolation=cv2.INTER_LINEAR)
        yield frame


def raw_rgb_writer_argv(aspect: spec.Aspect, sound: FilmSound | None, out_path: Path,
                        settings: spec.EncoderSettings) -> list[str]:
    """:func:`bench.exact_floor.raw_writer_argv` for piped rgb24 frames."""
    argv = raw_writer_argv(aspect, sound, out_path, settings)
    argv[argv.index(yuv_layout.PIX_FMT)] = "rgb24"
    return argv


def product_encoder_argv(yuv: bool) -> EncoderArgv:
    """The product's encoder command line reading yuv420p with ``yuv``, else rgb24."""
    return encoder_argv if yuv else rgb_encoder_argv


def render_minimal(photos: Sequence[np.ndarray], frames: int, sound: FilmSound | None,
                   outputs: dict[str, Path], preset: str, yuv: bool = False,
                   encoders: EncoderFactory | None = None) -> None:
    """Both aspects of the minimal film through the encoders, frame by frame (composed in
    yuv420p with ``yuv``); ``encoders`` opens them (default: the product's encoders reading
    the pixel format composed)."""
    aspects, make = spec.ASPECTS, minimal_yuv_frames if yuv else minimal_frames
    if encoders is None:
        encoders = functools.partial(open_encoders, argv_for=product_encoder_argv(yuv))
    with encoders(aspects, sound, outputs, spec.EncoderSettings(preset=preset),
                  StallWatch(TIMEOUT_S)) as feeds:
        streams = {a.name: make(photos, a, frames) for a in aspects}
        for _ in range(frames):
            for name, stream in streams.items():
                feeds[name].put(next(stream))
        for feed in feeds.values():
            feed.finish()


def _measure_minimal(photos: Sequence[np.ndarray], frames: int, sound: FilmSound, preset: str,
                     scratch: Path, yuv: bool) -> Measured:
    outputs = {a.name: scratch / f"{a.name}.mp4" for a in spec.ASPECTS}
    with RssSampler() as sampler, measure(sampler) as measured:
        render_minimal(photos, frames, sound, outputs, preset, yuv)
    return measured


def _measure_encode_alone(photos: Sequence[np.ndarray], frames: int, sound: FilmSound,
                          preset: str,
                          scratch: Path, yuv: bool) -> Measured:
    """The same frames tapped to raw files in ``scratch`` (not measured), then encoded from
    them."""
    raws = {a.name: scratch / f"{a.name}.raw" for a in spec.ASPECTS}
    raw_writers = functools.partial(
        open_encoders, argv_for=raw_writer_argv if yuv else raw_rgb_writer_argv,
        output_file_bytes=raw_bytes(frames) * (1 if yuv else 2))
    render_minimal(photos, frames, None, raws, preset, yuv, raw_writers)
    outputs = {a.name: scratch / f"{a.name}-file.mp4" for a in spec.ASPECTS}
    return encode_from_raw(raws, sound, outputs, spec.EncoderSettings(preset=preset),
                           product_encoder_argv(yuv))


def resample_floor_rounds(workdir: Path, preset: str, rounds: int,
                          yuv: bool = False) -> list[dict[str, Any]]:
    """``rounds`` pairs of the minimal film through the encoders and its encode alone."""
    run = run_dir(workdir / "storage")
    frames = json.loads((run / "render/timeline.json").read_text())["total_frames"]
    sound = FilmSound(run / "assets/song.wav", frames)
    photos = _photos(run)
    results = []
    for number in range(1, rounds + 1):
        with scratch_dir(None) as scratch:
            minimal = _measure_minimal(photos, frames, sound, preset, scratch, yuv)
            alone = _measure_encode_alone(photos, frames, sound, preset, scratch, yuv)
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
    parser.add_argument("--yuv", action="store_true", help="compose and pipe yuv420p instead")
    args = parser.parse_args(argv)
    workdir, case = saved_case(args.results, args.case)
    results = resample_floor_rounds(workdir, case["preset"], args.rounds, args.yuv)
    walls = [r["minimal"]["wall_s"] / r["encode_alone"]["wall_s"] for r in results]
    cpus = [r["minimal"]["cpu_s"] / r["encode_alone"]["cpu_s"] for r in results]
    print(f"mean of {len(results)}: minimal composer/encode alone {sum(walls) / len(walls):.3f} "
          f"wall, {sum(cpus) / len(cpus):.3f} cpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())
