"""The output spec: the delivered aspects and their frame sizes (media.base.spec)."""

from __future__ import annotations

from media.base import spec


def test_the_two_films_are_1080p_landscape_and_portrait() -> None:
    assert [(a.name, a.width, a.height) for a in spec.ASPECTS] == [
        ("16x9", 1920, 1080), ("9x16", 1080, 1920)]
    assert spec.ASPECTS == (spec.LANDSCAPE, spec.PORTRAIT)


def test_only_the_9x16_film_is_portrait() -> None:
    assert spec.PORTRAIT.is_portrait and not spec.LANDSCAPE.is_portrait


def test_frame_sizes_are_even_for_yuv420p() -> None:
    assert spec.PIX_FMT == "yuv420p"
    assert all(a.width % 2 == 0 and a.height % 2 == 0 for a in spec.ASPECTS)

