"""The floor: a bare encode of the same number of frames, same sizes, same encoder settings.

Nothing is composited. Both aspects are encoded at once (as the renderer does), each by ffmpeg
started with :func:`media.frames.encode.encoder_argv` (the product's exact settings) and the same
song.
The pictures are real: each aspect gets a mosaic of the case's prepared photos, each cover-fit
to the frame plus :data:`PAN` margin, and frame ``n`` is a window of the mosaic panning across
one photo for :data:`SHOT_FRAMES` frames before cutting to the next, so x264 sees photographic
content, steady motion and cuts, while producing a frame costs one memory copy.

Two variants:

- ``pipe``: frames are cut from the mosaic in Python and piped as raw rgb24 through
  :class:`media.frames.encode.EncoderFeed` (a writer thread per encoder, bounded queue), as the
  renderer
  pipes them;
- ``lavfi``: ffmpeg makes the same frames itself (``movie`` + ``loop`` + ``crop``, no pipe): the
  difference to ``pipe`` is the cost of piping 6 MB frames from Python.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from bench.measure import RssSampler, measure

PAN = 0.15  # each photo is cover-fit to the frame plus 15%, the window pans across the margin
SHOT_FRAMES = 90  # 3 s per photo, then a cut
MAX_PHOTOS = 5  # photos in the mosaic (bounds memory: about 42 MB per aspect each 5)
VARIANTS = ("pipe", "lavfi")


def _even(value: float) -> int:
    return int(round(value / 2) * 2)


def build_mosaic(photos: list[Path], width: int, height: int) -> np.ndarray:
    """The photos, each cover-fit to ``(1 + PAN)`` times the frame, stacked vertically (RGB)."""
    tile_w, tile_h = _even(width * (1 + PAN)), _even(height * (1 + PAN))
    tiles = []
    for path in photos[:MAX_PHOTOS]:
        with Image.open(path) as image:
            rgb = image.convert("RGB")
        scale = max(tile_w / rgb.width, tile_h / rgb.height)
        size = (max(tile_w, round(rgb.width * scale)), max(tile_h, round(rgb.height * scale)))
        scaled = rgb.resize(size, Image.Resampling.LANCZOS)
        left, top = (size[0] - tile_w) // 2, (size[1] - tile_h) // 2
        tiles.append(np.asarray(scaled.crop((left, top, left + tile_w, top + tile_h))))
    return np.ascontiguousarray(np.concatenate(tiles, axis=0))


def window(index: int, tile: tuple[int, int], frame: tuple[int, int], photos: int
           ) -> tuple[int, int]:
    """Top-left corner (x, y) in the mosaic of frame ``index`` (same formula as the lavfi crop)."""
    (tile_w, tile_h), (width, height) = tile, frame
    k = index % SHOT_FRAMES
    shot = (index // SHOT_FRAMES) % photos
    x = (tile_w - width) * k // SHOT_FRAMES
    y = shot * tile_h + (tile_h - height) * k // SHOT_FRAMES
    return x, y


def lavfi_source(mosaic_path: Path, tile: tuple[int, int], frame: tuple[int, int],
                 photos: int, frames: int, fps: int) -> str:
    """An ffmpeg ``lavfi`` graph making the same frames as the ``pipe`` variant."""
    (tile_w, tile_h), (width, height), n = tile, frame, SHOT_FRAMES
    x = f"floor({tile_w - width}*mod(n,{n})/{n})"
    y = f"{tile_h}*mod(floor(n/{n}),{photos})+floor({tile_h - height}*mod(n,{n})/{n})"
    return (f"movie={mosaic_path},loop=loop=-1:size=1:start=0,setpts=N/{fps}/TB,"
            f"crop=w={width}:h={height}:x='{x}':y='{y}',trim=end_frame={frames},format=rgb24")


def lavfi_argv(encoder: list[str], source: str) -> list[str]:
    """``encoder`` (from :func:`media.frames.encode.encoder_argv`) with its raw stdin input replaced
    by the lavfi ``source``; every other option stays as the product sets it."""
    end = encoder.index("pipe:0")
    start = encoder.index("-f")
    if encoder[end - 1] != "-i" or start > end:
        raise ValueError(f"unexpected encoder command line: {encoder}")
    return [*encoder[:start], "-f", "lavfi", "-i", source, *encoder[end + 1:]]


def _frames_in(path: Path) -> int | None:
    from media.base.runner import Limits, ffprobe_argv, run_tool

    with contextlib.suppress(Exception):
        out = run_tool(ffprobe_argv("-select_streams", "v:0", "-show_entries",
                                    "stream=nb_frames", "-of", "json", str(path)), Limits())
        return int(json.loads(out.stdout)["streams"][0]["nb_frames"])
    return None


def run_floor(variant: str, frames: int, song: str, photos: list[str], workdir: str,
              preset: str) -> dict[str, Any]:
    """Encode ``frames`` frames of both aspects at once in ``variant`` (pipe or lavfi)."""
    from bench.rgb_encoder import rgb_encoder_argv
    from media.base import spec
    from media.base.runner import Limits, start_tool
    from media.frames.encode import ENCODER_ADDRESS_SPACE, EncoderFeed, FilmSound
    from media.frames.stall import StallWatch

    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}")
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    sources = [Path(p) for p in photos]
    count = min(len(sources), MAX_PHOTOS)
    limits = Limits(timeout_s=3600.0 + 20.0 * frames / spec.FPS,
                    address_space_bytes=ENCODER_ADDRESS_SPACE)
    mosaics, tiles, argvs, outputs = {}, {}, {}, {}
    for aspect in spec.ASPECTS:  # pre-generated: not measured
        mosaic = build_mosaic(sources, aspect.width, aspect.height)
        tiles[aspect.name] = (mosaic.shape[1], mosaic.shape[0] // count)
        outputs[aspect.name] = work / f"floor-{variant}-{aspect.name}.mp4"
        encoder = rgb_encoder_argv(aspect, FilmSound(Path(song), frames),  # the mosaic is RGB
                                   outputs[aspect.name], spec.EncoderSettings(preset=preset))
        if variant == "pipe":
            mosaics[aspect.name], argvs[aspect.name] = mosaic, encoder
        else:
            path = work / f"mosaic-{aspect.name}.ppm"
            Image.fromarray(mosaic).save(path)
            argvs[aspect.name] = lavfi_argv(encoder, lavfi_source(
                path, tiles[aspect.name], (aspect.width, aspect.height), count, frames,
                spec.FPS))
    produce_s = wait_s = 0.0
    with RssSampler() as sampler, measure(sampler) as measured, contextlib.ExitStack() as stack:
        processes = {a.name: stack.enter_context(start_tool(argvs[a.name], limits,
                                                            stdin=variant == "pipe"))
                     for a in spec.ASPECTS}
        if variant == "pipe":
            watch = StallWatch(limits.timeout_s)
            feeds = {name: EncoderFeed(process, name, watch) for name, process in processes.items()}
            for aspect in spec.ASPECTS:
                stack.callback(feeds[aspect.name].abort)
            for index in range(frames):
                for aspect in spec.ASPECTS:
                    started = time.monotonic()
                    x, y = window(index, tiles[aspect.name], (aspect.width, aspect.height),
                                  count)
                    image = np.ascontiguousarray(
                        mosaics[aspect.name][y:y + aspect.height, x:x + aspect.width])
                    produce_s += time.monotonic() - started
                    feeds[aspect.name].put(image)
            for feed in feeds.values():
                feed.finish()
            wait_s = sum(feed.wait_s for feed in feeds.values())
        else:
            for process in processes.values():
                process.wait()
    measured.extra = {"produce_s": produce_s, "encoder_wait_s": wait_s}
    return {
        "variant": variant, "frames": frames, "photos": count, "preset": preset,
        "measured": measured.to_dict(),
        "films_bytes": {name: path.stat().st_size for name, path in outputs.items()},
        "frames_out": {name: _frames_in(path) for name, path in outputs.items()},
    }

