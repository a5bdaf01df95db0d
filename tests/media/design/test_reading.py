"""How large words must be to read on a phone: one rule, the size a card sets and the
capitals a phone shows agree."""

from __future__ import annotations

import pytest

from media.base.spec import ASPECTS
from media.design.reading import (
    CAP_HEIGHT_MIN_PX,
    PHONE_WIDTH_PX,
    cap_height_on_phone_px,
    phone_width_px,
    type_min_px,
)


def test_a_portrait_film_is_seen_upright_and_a_landscape_one_turned() -> None:
    assert phone_width_px(1080, 1920) == PHONE_WIDTH_PX["portrait"] == 390
    assert phone_width_px(1920, 1080) == PHONE_WIDTH_PX["landscape"] == 844


@pytest.mark.parametrize("aspect", ASPECTS, ids=lambda a: a.name)
def test_the_smallest_type_a_card_sets_has_capitals_a_phone_reads_and_no_smaller(aspect) -> None:
    smallest = type_min_px(aspect.width, aspect.height)
    assert cap_height_on_phone_px(smallest, aspect.width, aspect.height) >= CAP_HEIGHT_MIN_PX
    assert cap_height_on_phone_px(smallest - 1, aspect.width, aspect.height) < CAP_HEIGHT_MIN_PX
