"""The poster: one frame of the landscape film as a full-size JPEG (media.poster)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from media.poster import extract_poster
from media.runner import Limits, ffmpeg_argv, run_tool


def _film(path: Path) -> Path:
    """2 s at 320x180: red for the first second, blue for the second, BT.709 limited range."""
    graph = "color=red:s=320x180:r=30:d=1[a];color=blue:s=320x180:r=30:d=1[b];[a][b]concat=n=2"
    run_tool(ffmpeg_argv("-filter_complex", graph, "-c:v", "libx264", "-preset", "ultrafast",
                         "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries",
                         "bt709", "-color_trc", "bt709", "-color_range", "tv", str(path)),
             Limits(timeout_s=60))
    return path


def test_the_poster_is_the_frame_at_the_given_second_at_full_size(tmp_path: Path) -> None:
    film = _film(tmp_path / "film.mp4")
    early = extract_poster(film, 0.5, tmp_path / "early.jpg")
    late = extract_poster(film, 1.5, tmp_path / "late.jpg")
    with Image.open(early) as image:
        assert image.format == "JPEG" and image.size == (320, 180)
        red = np.asarray(image.convert("RGB"), np.float64).mean(axis=(0, 1))
    with Image.open(late) as image:
        blue = np.asarray(image.convert("RGB"), np.float64).mean(axis=(0, 1))
    assert red[0] > 200 and red[2] < 40
    assert blue[2] > 200 and blue[0] < 40
