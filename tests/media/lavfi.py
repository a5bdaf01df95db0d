"""Tiny test clips made with ffmpeg's lavfi sources, shared by the clip and probe tests."""

from __future__ import annotations

import struct
from pathlib import Path

from media.base.runner import Limits, ffmpeg_argv, run_tool


def ffmpeg(*args: str) -> None:
    """Run the house ffmpeg (test media generation)."""
    run_tool(ffmpeg_argv(*args), Limits(timeout_s=60))


def lavfi_clip(dest: Path, video: str, *out: str, audio: str | None = None) -> Path:
    """A clip from a lavfi video graph (and optional audio graph) with output options ``out``."""
    inputs = ["-f", "lavfi", "-i", video]
    if audio:
        inputs += ["-f", "lavfi", "-i", audio]
    ffmpeg(*inputs, *out, str(dest))
    return dest


def x264(*extra: str) -> list[str]:
    """Output options of a quick H.264 yuv420p encode, plus ``extra``."""
    return ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", *extra]


# --- clips people record, and clips that lie (issue 31, cases 1, 5 and 8) ----------------------


def audio_outlasting_video(dest: Path, video_s: float = 2.0, audio_s: float = 100.0) -> Path:
    """An MP4 of ``video_s`` seconds of 320x240 video and ``audio_s`` seconds of audio."""
    return lavfi_clip(dest, f"testsrc2=s=320x240:r=30:d={video_s}", *x264(), "-c:a", "aac",
                      audio=f"sine=d={audio_s}")


def webm_without_duration(dest: Path, seconds: float = 3.0) -> Path:
    """A VP9+Opus WebM written as a live stream (``-live 1``): no Duration element and no
    Cues, as a browser's MediaRecorder writes it."""
    return lavfi_clip(dest, f"testsrc2=s=320x240:r=30:d={seconds}", "-c:v", "libvpx-vp9",
                      "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus",
                      "-live", "1", "-f", "webm", audio=f"sine=d={seconds}")


def mkv_starting_at(dest: Path, start_s: float = 10_000.0, seconds: float = 3.0) -> Path:
    """A Matroska clip whose first timestamp is ``start_s`` (as a camera or an edit writes)."""
    return lavfi_clip(dest, f"testsrc2=s=320x240:r=30:d={seconds}", *x264(),
                      "-output_ts_offset", str(start_s), "-f", "matroska")


def matroska_header_lie(dest: Path, *, size: str = "2560x1440", fps: int = 240,
                        seconds: float = 1.0, claimed_fps: int = 60,
                        claimed_s: float = 0.25) -> Path:
    """A Matroska clip of ``seconds`` at ``fps`` whose track DefaultDuration claims
    ``claimed_fps`` and whose Segment Duration claims ``claimed_s`` (both patched in place):
    ffprobe then reports the claims; the block timestamps still say the truth."""
    lavfi_clip(dest, f"color=c=gray:s={size}:r={fps}:d={seconds}", *x264(), "-f", "matroska")
    data = bytearray(dest.read_bytes())
    default_duration = data.find(b"\x23\xe3\x83\x83")  # ID, then a 3-byte size
    assert default_duration > 0, "no DefaultDuration element"
    data[default_duration + 4:default_duration + 7] = round(1e9 / claimed_fps).to_bytes(3, "big")
    segment_duration = data.find(b"\x44\x89\x88")  # ID, then an 8-byte float (milliseconds)
    assert segment_duration > 0, "no Segment Duration element"
    data[segment_duration + 3:segment_duration + 11] = struct.pack(">d", claimed_s * 1000)
    dest.write_bytes(bytes(data))
    return dest
