"""The benchmarks' rgb24 encoder (bench.rgb_encoder): the product's settings, RGB in."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.rgb_encoder import RGB_PIX_FMT, rgb_encoder_argv
from media.base import spec, yuv
from media.base.runner import Limits
from media.frames.encode import encoder_argv, open_encoders
from media.frames.stall import StallWatch
from tests.media.frames.test_encode import stream_tags

ENCODER = spec.EncoderSettings(preset="superfast")  # ultrafast: no CABAC, so not High
LIMITS = Limits(timeout_s=60.0)


def test_the_rgb_encoder_is_the_products_with_rgb_in_and_one_conversion() -> None:
    product = encoder_argv(spec.LANDSCAPE, None, Path("a.mp4"), ENCODER)
    rgb = rgb_encoder_argv(spec.LANDSCAPE, None, Path("a.mp4"), ENCODER)
    assert rgb[rgb.index("-pix_fmt") + 1] == RGB_PIX_FMT and "-vf" in rgb
    assert rgb[rgb.index("-c:v"):] == product[product.index("-c:v"):]


def test_the_rgb_encoder_writes_the_tags_the_products_i420_encoder_writes(tmp_path: Path) -> None:
    aspect = spec.Aspect("small16x9", 320, 180)
    grey = np.full((aspect.height, aspect.width, 3), 128, np.uint8)
    grey[:, :160] = (200, 60, 30)
    films = {}
    for pix_fmt, frame in (("yuv420p", yuv.rgb_to_i420(grey)), ("rgb24", grey)):
        films[pix_fmt] = tmp_path / f"{pix_fmt}.mp4"

        argv = encoder_argv if pix_fmt == "yuv420p" else rgb_encoder_argv
        with open_encoders((aspect,), None, {aspect.name: films[pix_fmt]}, ENCODER,
                           StallWatch(60), argv_for=argv) as feeds:
            for _ in range(5):
                feeds[aspect.name].put(frame)
            feeds[aspect.name].finish()
    tags = stream_tags(films["yuv420p"])
    assert tags == stream_tags(films["rgb24"])
    assert (tags["pix_fmt"], tags["color_range"], tags["color_space"], tags["color_transfer"],
            tags["color_primaries"], tags["profile"]) == (
        spec.PIX_FMT, "tv", "bt709", "bt709", "bt709", "High")
