"""MoviePy (the ``bench`` extra, never a product dependency) rendering an equivalent timeline.

The timeline is the render stage's own plan (``timeline.json`` of the case): the same shots at
the same frames, overlapping where ours crossfade. Every shot is a photo with a Ken Burns move
(cover-fit once, then a zoom of :data:`ZOOM` over the shot, re-sized each frame, centred) and
crossfades in (``CrossFadeIn``) over its overlap with the previous shot. Photo shots show their
photo; our cards show the first and last photo (as our cards' backgrounds do) and our clip shots
show the photos in turn, so MoviePy decodes no video and draws no text: the comparison is in
MoviePy's favour. The song is the same WAV. Both aspects are written by two
``write_videofile`` calls with MoviePy's defaults except ``fps=30`` and ``codec="libx264"``
(so x264 runs at MoviePy's default preset ``medium`` and the audio is MoviePy's default codec);
``temp_audiofile_path`` only keeps its temporary file in the work directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bench.measure import RssSampler, measure, moviepy_version

ZOOM = 0.10  # the Ken Burns move: 10% zoom-in over each shot


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


def run_moviepy(timeline: str, photos: dict[str, str], song: str, workdir: str) -> dict[str, Any]:
    """Write both aspects with MoviePy; wall, CPU and memory of the two writes together."""
    from media import spec
    from media.runner import tool_path

    os.environ["IMAGEIO_FFMPEG_EXE"] = tool_path("ffmpeg")  # before MoviePy reads its config
    plan = json.loads(Path(timeline).read_text(encoding="utf-8"))
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    per_aspect: dict[str, float] = {}
    outputs = {a.name: work / f"moviepy-{a.name}.mp4" for a in spec.ASPECTS}
    with RssSampler() as sampler, measure(sampler) as measured:
        for aspect in spec.ASPECTS:
            with measure() as one:
                film = build_film(plan, photos, aspect.width, aspect.height, song)
                film.write_videofile(str(outputs[aspect.name]), fps=spec.FPS, codec="libx264",
                                     temp_audiofile_path=str(work))
                film.close()
            per_aspect[aspect.name] = one.wall_s
    measured.extra = {"aspect_wall_s": per_aspect}
    return {
        "moviepy": moviepy_version(), "frames": plan["total_frames"],
        "length_sec": plan["length_sec"], "measured": measured.to_dict(),
        "films_bytes": {name: path.stat().st_size for name, path in outputs.items()},
    }
