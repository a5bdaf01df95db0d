"""The middle of a film: which photos and clips, in what order, how long each
(media.plan.shot_order)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from media.plan.inputs import PhotoSource
from media.plan.shot_order import (
    Slot,
    arc_order,
    even_pick,
    fit_lengths,
    interleave,
    item_counts,
    photo_slots,
    subject_first,
)


def _photo(pid: str, *, face: float = 0.0, portrait: bool = False,
           brightness: float = 0.5) -> PhotoSource:
    width, height = (3000, 4000) if portrait else (4000, 3000)
    return PhotoSource(pid, Path(f"/in/{pid}.jpg"), width, height, False, face_fraction=face,
                       brightness=brightness)


def test_even_pick_spreads_over_the_range_from_its_start() -> None:
    assert even_pick(3, 9) == [0, 3, 6]
    assert even_pick(5, 3) == [0, 1, 2]
    assert even_pick(0, 4) == []


def test_the_subject_comes_first_and_the_others_keep_their_order() -> None:
    photos = [_photo("a"), _photo("b"), _photo("c")]
    assert [p.id for p in subject_first(photos, "b")] == ["b", "a", "c"]
    assert [p.id for p in subject_first(photos, None)] == ["a", "b", "c"]


def test_the_arc_ends_on_the_brightest_photo_and_alternates_close_and_wide() -> None:
    photos = [_photo("subject", face=0.4), _photo("close1", face=0.3), _photo("close2", face=0.3),
              _photo("wide1"), _photo("glow", brightness=0.9), _photo("wide2")]
    order = [p.id for p in arc_order(photos)]
    assert order[0] == "subject" and order[-1] == "glow"
    middle = arc_order(photos)[:-1]
    assert all(a.close != b.close for a, b in pairwise(middle))


def test_when_too_many_items_each_still_gets_its_minimum() -> None:
    photos, clips = item_counts(30, 3, 20.0, 2.0)
    assert photos + clips == 10 and clips >= 1
    assert item_counts(4, 1, 30.0, 2.0) == (4, 1)  # everything fits
    assert item_counts(3, 2, 2.5, 2.0) == (1, 0)  # room for one shot: the subject photo


def test_repeated_photos_count_their_showings() -> None:
    slots = photo_slots([_photo("a"), _photo("b")], 5, 3.0)
    assert [(s.source_id, s.occurrence) for s in slots] == [
        ("a", 0), ("b", 0), ("a", 1), ("b", 1), ("a", 2)]
    assert all(s.kind == "photo" and s.nominal_s == 3.0 for s in slots)


def test_clips_are_spread_between_photos_and_never_open() -> None:
    photos = [Slot("photo", f"p{i}", 3.0) for i in range(6)]
    clips = [Slot("clip", "c1", 4.0, 5.0), Slot("clip", "c2", 4.0, 5.0)]
    kinds = [s.kind for s in interleave(photos, clips)]
    assert kinds[0] == "photo" and kinds.count("clip") == 2
    first, second = (i for i, k in enumerate(kinds) if k == "clip")
    assert second - first >= 2


def test_lengths_fill_the_middle_exactly_with_clips_kept_within_their_length() -> None:
    slots = [Slot("photo", "p1", 3.0), Slot("clip", "c1", 4.0, 4.5), Slot("photo", "p2", 3.0)]
    lengths = fit_lengths(slots, 20.0, 2.0)
    assert sum(lengths) == pytest.approx(20.0)
    assert min(lengths) >= 2.0
    assert lengths[1] == pytest.approx(4.5, abs=1e-3)  # the clip stops at its own length
