"""MoviePy's encoder settings in the benchmark are the product's (bench.moviepy_film)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.moviepy_film import moviepy_encoder_params
from bench.rgb_encoder import rgb_encoder_argv
from media.base import spec

ENCODER = spec.EncoderSettings()  # the output spec's


def _value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_moviepy_gets_every_x264_and_output_setting_of_the_product(aspect: spec.Aspect) -> None:
    product = rgb_encoder_argv(aspect, None, Path("film.mp4"), ENCODER)
    given = moviepy_encoder_params(aspect, ENCODER.preset)
    params = given["ffmpeg_params"]
    assert given["preset"] == _value(product, "-preset")
    assert str(given["threads"]) == _value(product, "-threads")
    for flag in ("-vf", "-profile:v", "-crf", "-g", "-x264-params", "-pix_fmt", "-colorspace",
                 "-color_primaries", "-color_trc", "-color_range", "-r", "-movflags"):
        assert _value(params, flag) == _value(product[product.index("pipe:0"):], flag), flag


def test_moviepy_params_leave_out_what_moviepy_sets_or_maps_itself() -> None:
    params = moviepy_encoder_params(spec.LANDSCAPE, ENCODER.preset)["ffmpeg_params"]
    for flag in ("-map", "-c:v", "-preset", "-threads", "-i"):
        assert flag not in params
