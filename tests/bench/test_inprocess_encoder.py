"""The in-process encoder of the benchmark gets the product's x264 settings
(bench.inprocess_encoder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.inprocess_encoder import codec_settings, inprocess_encoders
from media.base import spec
from media.frames.encode import encoder_argv
from media.frames.stall import StallWatch

ENCODER = spec.EncoderSettings()  # the output spec's


def _value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_the_in_process_encoder_gets_every_x264_setting_of_the_product(
        aspect: spec.Aspect) -> None:
    product = encoder_argv(aspect, None, Path("film.mp4"), ENCODER)
    settings = codec_settings(aspect, ENCODER)
    assert settings["options"] == {"preset": ENCODER.preset, "crf": _value(product, "-crf"),
                                   "profile": _value(product, "-profile:v"),
                                   "x264-params": _value(product, "-x264-params")}
    assert settings["gop_size"] == int(_value(product, "-g"))
    assert settings["thread_count"] == int(_value(product, "-threads"))


def test_the_in_process_encoders_refuse_a_soundtrack_they_would_drop(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="video only"), inprocess_encoders(
            spec.ASPECTS, tmp_path / "song.wav", {}, ENCODER, StallWatch(60.0)):
        pass
