"""MoviePy (the ``bench`` extra, never a product dependency) rendering an equivalent timeline.

The timeline is the render stage's own plan (``timeline.json`` of the case): the same shots at
the same frames, overlapping where ours crossfade. Every shot is a photo with a Ken Burns move
(cover-fit once, then a zoom of :data:`ZOOM` over the shot, re-sized each frame, centred) and
crossfades in (``CrossFadeIn``) over its overlap with the previous shot. Photo shots show their
photo; our cards show the first and last photo (as our cards' backgrounds do) and our clip shots
show the photos in turn, so MoviePy decodes no video and draws no text: the comparison is in
MoviePy's favour. The song is the same WAV.

The encoder settings are the product's (issue 22: "MoviePy at identical settings"), taken from
:func:`media.frames.encode.encoder_argv` so they cannot drift (:func:`moviepy_encoder_params`): x264
preset, CRF, keyint, B-frames (the preset's), threads, ``-x264-params`` (lookahead), profile,
the product's rgb24 -> yuv420p conversion (BT.709 limited range) and colour tags, faststart;
the sound AAC 192 kb/s 48 kHz (MoviePy's own two-step audio write, ffmpeg's default AAC coder).
Both aspects are written at once, each by its own process (``write_videofile``), as the
product encodes both at once: on two cores MoviePy gets the same two encoders at the same
threads, and a composer per film (ours has one for both). :func:`run_moviepy` reads the x264
options string each MoviePy film carries and compares it with the product films' of the same
case (``settings.differences``: empty when identical).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench.measure import RssSampler, measure, moviepy_version

ZOOM = 0.10  # the Ken Burns move: 10% zoom-in over each shot
MOVIEPY_PIX_FMT = "rgb24"  # what MoviePy pipes to its ffmpeg (no mask)


def shot_photos(shots: list[dict[str, Any]], photo_ids: list[str]) -> list[str]:
    """The photo MoviePy shows for each shot of our timeline (see the module docstring)."""
    photo_shots = [s["source_id"] for s in shots if s["kind"] == "photo"]
    first = photo_shots[0] if photo_shots else photo_ids[0]
    last = photo_shots[-1] if photo_shots else photo_ids[-1]
    chosen, others = [], 0
    for index, shot in enumerate(shots):
        if shot["kind"] == "photo":
            chosen.append(shot["source_id"])
        elif shot["kind"] == "card":
            chosen.append(first if index == 0 else last)
        else:
            chosen.append(photo_ids[others % len(photo_ids)])
            others += 1
    return chosen


def _ken_burns(path: str, width: int, height: int, duration: float) -> Any:
    from moviepy import CompositeVideoClip, ImageClip

    still = ImageClip(path)
    cover = max(width / still.size[0], height / still.size[1])
    still = still.resized(cover)  # an ImageClip is resized once
    moving = still.resized(lambda t: 1 + ZOOM * t / duration).with_position("center")
    return CompositeVideoClip([moving], size=(width, height)).with_duration(duration)


def build_film(timeline: dict[str, Any], photos: dict[str, str], width: int, height: int,
               song: str) -> Any:
    """The MoviePy clip of ``timeline`` at ``width`` x ``height`` with ``song``."""
    from moviepy import AudioFileClip, CompositeVideoClip, vfx

    fps, shots = timeline["fps"], timeline["shots"]
    clips, previous_out = [], 0
    for shot, photo_id in zip(shots, shot_photos(shots, sorted(photos)), strict=True):
        start, end = shot["visible_in"], shot["visible_out"]
        clip = _ken_burns(photos[photo_id], width, height, (end - start) / fps)
        clip = clip.with_start(start / fps)
        if previous_out > start:
            clip = clip.with_effects([vfx.CrossFadeIn((previous_out - start) / fps)])
        clips.append(clip)
        previous_out = end
    duration = timeline["total_frames"] / fps
    film = CompositeVideoClip(clips, size=(width, height)).with_duration(duration)
    return film.with_audio(AudioFileClip(song).with_duration(duration))


# Product encoder options MoviePy sets itself (``codec``, ``preset``, ``threads``) or that
# would undo its muxing (the product maps one input's video; MoviePy adds the song as input 1).
_SET_BY_MOVIEPY = {"-c:v": 1, "-preset": 1, "-threads": 1, "-map": 1}


def moviepy_encoder_params(aspect: Any, preset: str) -> dict[str, Any]:
    """``write_videofile`` keywords giving MoviePy the product's encoder settings: ``preset``,
    ``threads`` and ``ffmpeg_params`` (every other output option of
    :func:`media.frames.encode.encoder_argv` for rgb24 input, what MoviePy pipes: the conversion
    filter included)."""
    from bench.rgb_encoder import rgb_encoder_argv
    from media.base import spec

    argv = rgb_encoder_argv(aspect, None, Path("film.mp4"), spec.EncoderSettings(preset=preset))
    options = argv[argv.index("pipe:0") + 1:-1]  # the output options, before the output path
    params: list[str] = []
    index = 0
    while index < len(options):
        flag = options[index]
        skip = _SET_BY_MOVIEPY.get(flag)
        if skip is None:
            params.append(flag)
            index += 1
        else:
            index += 1 + skip
    return {"preset": argv[argv.index("-preset") + 1],
            "threads": int(argv[argv.index("-threads") + 1]), "ffmpeg_params": params}


def _write_one(timeline: dict[str, Any], photos: dict[str, str], song: str, aspect_name: str,
               out: str, preset: str, workdir: str) -> float:
    """One aspect written by MoviePy with the product's encoder settings (in a pool process);
    its wall seconds."""
    from media.base import spec
    from media.base.runner import tool_path

    os.environ["IMAGEIO_FFMPEG_EXE"] = tool_path("ffmpeg")  # before MoviePy reads its config
    aspect = next(a for a in spec.ASPECTS if a.name == aspect_name)
    started = time.perf_counter()
    film = build_film(timeline, photos, aspect.width, aspect.height, song)
    film.write_videofile(out, fps=spec.FPS, codec="libx264", audio_codec="aac",
                         audio_bitrate="192k", audio_fps=spec.AUDIO_SAMPLE_RATE,
                         temp_audiofile_path=workdir, logger=None,
                         **moviepy_encoder_params(aspect, preset))
    film.close()
    return time.perf_counter() - started


def _stream_tags(path: Path) -> dict[str, Any]:
    from media.base.probe import ffprobe_json

    streams = ffprobe_json(path).get("streams") or []
    video = next(s for s in streams if s.get("codec_type") == "video")
    audio = next((s for s in streams if s.get("codec_type") == "audio"), {})
    keys = ("codec_name", "profile", "pix_fmt", "color_space", "color_primaries",
            "color_transfer", "color_range", "r_frame_rate")
    return {**{k: video.get(k) for k in keys},
            "audio": f"{audio.get('codec_name')} {audio.get('sample_rate')} Hz "
                     f"{audio.get('channels')} ch"}


def run_moviepy(timeline: str, photos: dict[str, str], song: str, workdir: str,
                preset: str | None = None, storage: str | None = None) -> dict[str, Any]:
    """Write both aspects with MoviePy at once, at the product's encoder ``preset`` (default
    the output spec's) and settings; wall, CPU and memory of the two writes together, and the
    x264 settings compared with the product films of the case under ``storage`` (when given)."""
    from bench.exact_floor import product_films, run_dir, settings_check
    from media.base import spec
    preset = preset or spec.X264_PRESET
    plan = json.loads(Path(timeline).read_text(encoding="utf-8"))
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    outputs = {a.name: work / f"moviepy-{a.name}.mp4" for a in spec.ASPECTS}
    spawn = multiprocessing.get_context("spawn")
    with RssSampler() as sampler, measure(sampler) as measured, \
            ProcessPoolExecutor(max_workers=len(spec.ASPECTS), mp_context=spawn) as pool:
        futures = {a.name: pool.submit(_write_one, plan, photos, song, a.name,
                                       str(outputs[a.name]), preset, str(work))
                   for a in spec.ASPECTS}
        per_aspect = {name: future.result() for name, future in futures.items()}
    measured.extra = {"aspect_wall_s": per_aspect}
    product = product_films(run_dir(Path(storage))) if storage else {}
    return {
        "moviepy": moviepy_version(), "frames": plan["total_frames"],
        "length_sec": plan["length_sec"], "measured": measured.to_dict(), "preset": preset,
        "encoder_params": {a.name: moviepy_encoder_params(a, preset) for a in spec.ASPECTS},
        "settings": settings_check(outputs, product),
        "streams": {name: _stream_tags(path) for name, path in outputs.items()},
        "films_bytes": {name: path.stat().st_size for name, path in outputs.items()},
    }
