"""Frames in the encoder's format (media.base.yuv): I420 layout, BT.709 limited range, and the same
pixels ffmpeg's own RGB to yuv420p conversion writes."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from skimage import data

from media.base import yuv
from media.base.runner import ffmpeg_argv


def _astronaut(width: int = 512, height: int = 384) -> np.ndarray:
    import cv2

    return cv2.resize(data.astronaut(), (width, height), interpolation=cv2.INTER_AREA)


def test_black_is_limited_range_black_not_zeros() -> None:
    frame = yuv.black(8, 4)
    y, u, v = yuv.planes(frame)
    assert frame.shape == (6, 8)
    assert (y == 16).all() and (u == 128).all() and (v == 128).all()


def test_planes_are_views_in_ffmpeg_order() -> None:
    frame = yuv.black(4, 2)
    y, u, v = yuv.planes(frame)
    y[:] = 1
    u[:] = 2
    v[:] = 3
    assert frame.reshape(-1).tolist() == [1] * 8 + [2, 2] + [3, 3]


def test_odd_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="even"):
        yuv.frame_shape(1919, 1080)


def test_pure_colours_map_to_bt709_limited_range_codes() -> None:
    rgb = np.zeros((2, 8, 3), np.uint8)
    rgb[:, 0:2] = 255  # white
    rgb[:, 2:4] = (255, 0, 0)
    rgb[:, 4:6] = (0, 255, 0)
    rgb[:, 6:8] = (0, 0, 255)
    y, u, v = yuv.planes(yuv.rgb_to_i420(rgb))
    # BT.709 limited range: white 235/128/128, red 63/102/240, green 173/42/26, blue 32/240/118
    assert y[0].tolist() == [235, 235, 63, 63, 173, 173, 32, 32]
    assert u[0].tolist() == [128, 102, 42, 240]
    assert v[0].tolist() == [128, 240, 26, 118]


def test_conversion_matches_ffmpeg_swscale_within_50_db() -> None:
    rgb = _astronaut()
    height, width = rgb.shape[:2]
    out = subprocess.run(ffmpeg_argv(
        "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{width}x{height}", "-i", "pipe:0",
        "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
        "-f", "rawvideo", "-pix_fmt", "yuv420p", "pipe:1"),
        input=rgb.tobytes(), capture_output=True, check=True, timeout=60).stdout
    ours = yuv.planes(yuv.rgb_to_i420(rgb))
    theirs = yuv.planes(np.frombuffer(out, np.uint8).reshape(yuv.frame_shape(width, height)))
    for mine, ref in zip(ours, theirs, strict=True):
        assert yuv.psnr(mine, ref) > 50


def test_round_trip_to_rgb_is_close() -> None:
    rgb = _astronaut()
    assert yuv.psnr(yuv.i420_to_rgb(yuv.rgb_to_i420(rgb)), rgb) > 35


def test_separate_planes_equal_the_frames_and_odd_sizes_round_chroma_up() -> None:
    picture = _astronaut()
    y, u, v = yuv.rgb_to_planes(picture)
    frame = yuv.rgb_to_i420(picture)
    assert all(np.array_equal(a, b) for a, b in zip((y, u, v), yuv.planes(frame), strict=True))
    assert np.array_equal(yuv.from_planes(y, u, v), frame)
    odd = _astronaut(511, 383)
    y, u, v = yuv.rgb_to_planes(odd)
    assert y.shape == (383, 511) and u.shape == v.shape == (192, 256)
    even_y, even_u, _ = yuv.rgb_to_planes(odd[:382, :510])
    assert np.array_equal(y[:382, :510], even_y)
    assert np.array_equal(u[:191, :255], even_u)  # whole 2x2 blocks: the same averages


def test_luma_and_chroma_rows_split_a_frame_by_its_black_level() -> None:
    frame = yuv.black(8, 4)
    assert yuv.luma_rows(frame).shape == (4, 8) and (yuv.luma_rows(frame) == 16).all()
    assert yuv.chroma_rows(frame).shape == (2, 8) and (yuv.chroma_rows(frame) == 128).all()
    assert yuv.PLANE_OFFSETS == (16.0, 128.0, 128.0) and yuv.PIX_FMT == "yuv420p"


@pytest.mark.parametrize(("top", "bottom"), [(0, 7), (37, 121), (101, 102), (300, 384), (-4, 999)])
def test_a_band_of_rows_converts_to_the_same_rgb_as_the_whole_frame(top: int, bottom: int
                                                                    ) -> None:
    frame = yuv.rgb_to_i420(_astronaut())
    whole = yuv.i420_to_rgb(frame)
    band = yuv.i420_rows_to_rgb(frame, top, bottom)
    assert np.array_equal(band, whole[max(0, top):min(384, bottom)])
