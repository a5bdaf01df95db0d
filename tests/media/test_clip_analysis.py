"""Choosing the best stretch of a customer's clip (media.clip_analysis), and framing clips like
photos (media.clip_framing)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from media.clip_analysis import analyse_clip, analyse_frames, best_window, frame_scores
from media.clip_framing import frame_clip, plan_clip_framing
from media.framing import Box, Subject
from media.runner import Limits, ffmpeg_argv, run_tool
from media.spec import LANDSCAPE, PORTRAIT

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


def test_best_window_without_scores_is_the_middle_and_avoids_used_stretches() -> None:
    assert best_window([], 0.0, 8.0, 2.0) == pytest.approx(3.0)
    assert best_window([0.5] * 40, 0.2, 8.0, 2.0) == pytest.approx(3.0)
    again = best_window([0.5] * 40, 0.2, 8.0, 2.0, avoid=[(3.0, 5.0)])
    assert again + 2.0 <= 3.0 + 1e-9 or again >= 5.0 - 1e-9
    assert best_window([0.9] * 10, 0.2, 2.0, 3.0) == 0.0  # shorter than the shot


def _subject(*faces: Box) -> Subject:
    focus = faces[0] if faces else Box(0.4, 0.4, 0.6, 0.6)
    return Subject(faces, focus, "faces" if faces else "saliency")


def test_landscape_clip_is_fitted_in_9x16_and_cropped_in_16x9() -> None:
    subject = _subject(Box(0.10, 0.3, 0.2, 0.5), Box(0.8, 0.3, 0.9, 0.5))  # two people apart
    portrait = plan_clip_framing((1920, 1080), subject, PORTRAIT)
    landscape = plan_clip_framing((1920, 1080), subject, LANDSCAPE)
    assert portrait.mode == "fit" and landscape.mode == "crop"
    x, y, w, h = portrait.box
    assert w == PORTRAIT.width - 2 * round(0.06 * 1080) and x > 0 and y > PORTRAIT.height // 4
    frame = np.zeros((1080, 1920, 3), np.uint8)
    frame[:, :, 0] = np.linspace(0, 255, 1920, dtype=np.uint8)[None, :]
    out = frame_clip(frame, portrait)
    assert out.shape == (PORTRAIT.height, PORTRAIT.width, 3)
    row = out[y + h // 2, x:x + w, 0].astype(int)
    assert row[0] < 10 and row[-1] > 245  # the whole clip, edge to edge, inside the frame


def test_face_aware_crop_keeps_the_face_and_social_crops_fuller() -> None:
    face = Box(0.70, 0.25, 0.80, 0.45)
    portrait = plan_clip_framing((1920, 1080), _subject(face), PORTRAIT, keep_min=0.3)
    assert portrait.mode == "crop"  # social 9:16: fuller frame instead of the fitted clip
    x, _, w, h = portrait.box
    assert w / h == pytest.approx(9 / 16, rel=0.01)
    assert x <= 0.70 * 1920 and x + w >= 0.80 * 1920  # the face is inside the crop
    out = frame_clip(np.zeros((1080, 1920, 3), np.uint8), portrait)
    assert out.shape == (1920, 1080, 3)
