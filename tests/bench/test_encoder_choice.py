"""The encoder-choice bench's variants (bench.encoder_choice)."""

from __future__ import annotations

from bench.encoder_choice import DEFAULT_VARIANTS, Variant
from media.base import spec


def test_a_variant_reads_name_preset_crf_and_x264_parameters() -> None:
    assert Variant.parse("tree=superfast:21:mbtree=1:rc-lookahead=10") == Variant(
        "tree", "superfast", 21, "mbtree=1:rc-lookahead=10")
    assert Variant.parse("plain=veryfast:20") == Variant("plain", "veryfast", 20, "")


def test_the_default_variants_include_the_delivered_settings() -> None:
    delivered = (spec.X264_PRESET, spec.X264_CRF, spec.X264_PARAMS)
    assert delivered in {(v.preset, v.crf, v.params) for v in DEFAULT_VARIANTS}
