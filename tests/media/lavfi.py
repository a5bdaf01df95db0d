"""Tiny test clips made with ffmpeg's lavfi sources, shared by the clip and probe tests."""

from __future__ import annotations

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
