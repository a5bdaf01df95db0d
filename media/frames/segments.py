"""Join a film rendered in segments: video by stream copy, the soundtrack laid once over it all.

A long film can be rendered as contiguous frame ranges on several workers
(:func:`media.frames.render.render_films` with ``frames=`` and no audio; the ranges are cut where
:func:`media.plan.timeline.segment_cut_frames` allows). Each segment is its own x264 encode, so it
starts on an IDR frame and its GOPs are closed: the segments' H.264 streams can be concatenated
without re-encoding (ffmpeg's concat demuxer, ``-c:v copy``). The sound is not cut at all: the
whole soundtrack is encoded once over the joined picture exactly as the single-pass encoder does
it, so there is no AAC priming gap or pop at a join.
"""

from __future__ import annotations

import json
from pathlib import Path

from media.base.runner import Limits, ffmpeg_argv, ffprobe_argv, run_tool
from media.frames.encode import FilmSound, audio_encoder_args


def concat_list(paths: list[Path]) -> str:
    """The concat demuxer's list of ``paths`` (absolute, single-quoted, quotes escaped)."""
    lines = []
    for path in paths:
        text = str(path.absolute())
        if any(c in text for c in "\n\r\0"):
            raise ValueError(f"segment path with a control character: {text!r}")
        lines.append("file '" + text.replace("'", "'\\''") + "'")
    return "ffconcat version 1.0\n" + "\n".join(lines) + "\n"


def join_argv(list_path: Path, sound: FilmSound, out_path: Path) -> list[str]:
    """ffmpeg joining the segments named in ``list_path`` by stream copy and encoding
    ``sound`` under them (fitted to its frames, AAC-LC as in
    :func:`media.frames.encode.encoder_argv`), +faststart."""
    return ffmpeg_argv(
        "-f", "concat", "-safe", "0", "-i", str(list_path),
        "-i", str(sound.path),
        "-map", "0:v:0", "-map", "1:a:0",
        "-c:v", "copy", *audio_encoder_args(sound),
        "-movflags", "+faststart", str(out_path),
    )


def join_segments(segment_paths: list[Path], sound: FilmSound, out_path: Path,
                  limits: Limits) -> Path:
    """Write ``out_path``: the video-only ``segment_paths`` (same encoder settings, in film
    order) joined by stream copy, with ``sound`` (the whole soundtrack, fitted to the whole
    film's frames) encoded under them. Raises :class:`media.base.runner.ToolError` if ffmpeg
    fails."""
    if not segment_paths:
        raise ValueError("no segments to join")
    list_path = out_path.with_name(out_path.name + ".concat.txt")
    list_path.write_text(concat_list(segment_paths), encoding="utf-8")
    try:
        run_tool(join_argv(list_path, sound, out_path), limits)
    finally:
        list_path.unlink(missing_ok=True)
    return out_path


def count_video_frames(path: Path, limits: Limits) -> int:
    """Frames (packets) of the first video stream of ``path``, counted without decoding."""
    out = run_tool(ffprobe_argv("-select_streams", "v:0", "-count_packets", "-show_entries",
                                "stream=nb_read_packets", "-of", "json", str(path)), limits)
    return int(json.loads(out.stdout)["streams"][0]["nb_read_packets"])


def join_limits(duration_s: float) -> Limits:
    """Limits of one join: a minute plus the film's length (AAC encoding runs at many times
    real time and the picture is only copied)."""
    return Limits(timeout_s=60.0 + duration_s)
