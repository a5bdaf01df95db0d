"""The three samples, planned as their orders make them (their photos analysed, small), keep
the repeat promises of issue 42 in both tiers: no photo again before every photo was shown,
never one photo in two consecutive shots, the subject at most about a quarter of the photo
time, no dissolve between two faces, and no repeat at all in their 30 s films (the closing
stands over the photo their middle left to it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.order_plan import film_plan
from tests.helpers import (
    SUBJECT_SHARE_MAX,
    back_to_back,
    ghosts,
    photo_showings,
    sample_spec,
    shown_again_too_soon,
    subject_share,
)
from workflows.contract import Tier

pytestmark = pytest.mark.slow  # each sample's photos analysed: seconds of CPU


@pytest.mark.parametrize("tier", [Tier.STANDARD, Tier.SIGNATURE])
@pytest.mark.parametrize("sample", ["birthday", "anniversary", "pet-tribute"])
def test_a_sample_film_keeps_the_repeat_promises(tmp_path: Path, sample: str,
                                                 tier: Tier) -> None:
    order, spec = sample_spec(tmp_path, sample, tier)
    tl = film_plan(spec)
    assert not shown_again_too_soon(spec, tl), tl.describe()
    assert not back_to_back(tl), tl.describe()
    assert not ghosts(spec, tl), tl.describe()
    if tl.subject_photo_id and len(spec.photos) >= 4:
        assert subject_share(tl) <= SUBJECT_SHARE_MAX
    if order.length_sec <= 30:
        shown = [p for _, photos in photo_showings(tl) for p in photos]
        assert len(shown) == len(set(shown)), tl.describe()  # the closing's photo too
