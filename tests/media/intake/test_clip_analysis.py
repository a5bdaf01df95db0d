"""Scoring a customer's clip in one cheap decode, and its best stretch found from the scores
(media.intake.clip_analysis)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from media.analysis.clip_window import best_window
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.intake.clip_analysis import analyse_clip, analyse_frames, frame_scores

LIMITS = Limits(timeout_s=60)
SMOOTH = "testsrc2=s=480x270:r=30:d=3,crop=320:180:x='40+t*15':y=45"
FIRST_PARTS = {
    "black_and_static": "color=c=black:s=320x180:r=30:d=3",
    "sharp_but_static": "smptebars=s=320x180:r=30:d=3",
    "shaky": "testsrc2=s=480x270:r=30:d=3,"
             "crop=320:180:x='80+60*(random(0)-0.5)':y='45+40*(random(1)-0.5)'",
}


def _two_part_clip(path: Path, first: str) -> Path:
    """6 s at 320x180: ``first`` for 3 s, then a textured picture panning smoothly for 3 s."""
    graph = f"{first}[a];{SMOOTH}[b];[a][b]concat=n=2:v=1:a=0[v]"
    run_tool(ffmpeg_argv("-filter_complex", graph, "-map", "[v]", "-c:v", "libx264",
                         "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(path)), LIMITS)
    return path


@pytest.mark.parametrize("first", sorted(FIRST_PARTS))
def test_best_segment_skips_a_dull_or_shaky_opening(tmp_path: Path, first: str) -> None:
    clip = _two_part_clip(tmp_path / f"{first}.mp4", FIRST_PARTS[first])
    analysis = analyse_clip(clip, (320, 180), LIMITS)
    assert 28 <= analysis.count <= 31  # about 5 samples a second, one decode
    start = best_window(frame_scores(analysis), analysis.step_s, 6.0, 2.0)
    assert start >= 2.9  # the chosen 2 s lie in the smooth, textured second half


def test_black_frames_score_lowest() -> None:
    rng = np.random.default_rng(1)
    black = np.zeros((4, 90, 160), np.uint8)
    textured = rng.integers(40, 215, (4, 90, 160)).astype(np.uint8)
    scores = frame_scores(analyse_frames(np.concatenate([black, textured]), 0.2))
    assert scores[:4].max() < 0.05 < scores[4:].min()
