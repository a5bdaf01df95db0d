"""The poster: one well-chosen frame of the landscape film as a JPEG."""

from __future__ import annotations

from pathlib import Path

from media.runner import Limits, ffmpeg_argv, run_tool

POSTER_TIMEOUT_S = 60.0


def extract_poster(video: Path, at_s: float, out_jpeg: Path) -> Path:
    """Write the frame at ``at_s`` seconds of ``video`` as a full-size JPEG (quality ~2/31)."""
    run_tool(
        ffmpeg_argv("-ss", f"{at_s:.3f}", "-i", str(video), "-frames:v", "1",
                    "-vf", "scale=in_color_matrix=bt709:in_range=tv", "-q:v", "2",
                    str(out_jpeg)),
        Limits(timeout_s=POSTER_TIMEOUT_S),
    )
    return out_jpeg
