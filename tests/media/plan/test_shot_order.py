"""The middle of a film: which photos and clips, in what order, how long each
(media.plan.shot_order)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from media.plan.inputs import PhotoSource
from media.plan.shot_order import (
    SUBJECT_HOLD,
    Slot,
    arc_order,
    even_pick,
    fit_lengths,
    interleave,
    item_counts,
    photo_order,
    photo_slots,
    pick_subject,
    pictures_of,
    showing_order,
    subject_first,
)


def _photo(pid: str, *, face: float = 0.0, portrait: bool = False,
           brightness: float = 0.5) -> PhotoSource:
    width, height = (3000, 4000) if portrait else (4000, 3000)
    return PhotoSource(pid, width, height, False, face_fraction=face,
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
    assert [s.source_id for s in slots][:2] == ["a", "b"]
    for photo_id in "ab":
        showings = [s.occurrence for s in slots if s.source_id == photo_id]
        assert showings == list(range(len(showings)))
    assert all(s.kind == "photo" and s.nominal_s == 3.0 for s in slots)


def _runs_seen_again(order: list[str]) -> int:
    runs = [tuple(order[i:i + 3]) for i in range(len(order) - 2)]
    return sum(run in runs[:i] for i, run in enumerate(runs))


def test_every_photo_shows_once_before_any_photo_shows_again() -> None:
    ids = list("abcdefg")
    order = showing_order(ids, 20, 2)
    assert order[:7] == ids  # the arc once, the closer ending that round
    assert sorted(set(order)) == ids


def test_a_long_film_from_few_photos_never_replays_a_run_of_three() -> None:
    for n, count in ((7, 29), (5, 30), (6, 24), (4, 20)):
        ids = [chr(97 + i) for i in range(n)]
        order = showing_order(ids, count, 2, "a")
        assert _runs_seen_again(order) <= count // 10, (n, order)
        assert all(a != b for a, b in pairwise(order[:-1])), order


def test_a_repeat_waits_its_spacing_when_there_are_photos_enough() -> None:
    order = showing_order(list("abcdefg"), 29, 3, "a")
    for i, photo_id in enumerate(order):
        earlier = [j for j in range(i) if order[j] == photo_id]
        assert not earlier or i - earlier[-1] >= 3, (i, order)


def test_the_photos_the_title_showed_come_back_only_after_every_other() -> None:
    order = showing_order(list("sbcdez"), 12, 2, before=("d", "s"), after="s")
    assert order[:4] == list("bcez")  # the others first, in arc order
    assert "s" in order[4:] and "d" in order[4:]
    assert all(a != b for a, b in pairwise(["s", *order, "s"]))
    assert showing_order(list("sb"), 3, 2, before=("s",), after="s") == list("bsb")


def test_a_photo_and_its_crops_are_one_picture() -> None:
    assert pictures_of(list("abcd"), [("d", "b"), ("c", "d")]) == {
        "a": "a", "b": "b", "c": "b", "d": "b"}
    assert pictures_of(list("ab"), [("a", "z")]) == {"a": "a", "b": "b"}


def test_a_photo_and_its_crop_take_turns_with_the_other_picture() -> None:
    order = photo_order(list("sbc"), 9, 2, (("s",), "s"), [("b", "c")])
    assert order == list("bscsbscsb")
    assert showing_order(list("sbc"), 5, 2, ("s",), "s") == list("bcbcb")  # by photo: b~c


def test_a_crop_of_the_title_photo_waits_for_its_pictures_turn() -> None:
    order = photo_order(list("sbcd"), 3, 2, (("s",), "s"), [("s", "d")])
    assert order == list("bdc")  # d is new but s's picture: never next to the title's
    assert photo_order(list("sb"), 3, 2, (("s",), "s"), [("s", "b")]) == list("bsb")  # one
    # picture: nothing to spread


def test_shots_of_the_subject_or_of_faces_are_held_longer_than_scenery() -> None:
    photos = [_photo("s"), _photo("face", face=0.2), _photo("sky")]
    slots = {s.source_id: s.nominal_s for s in photo_slots(photos, 3, 3.0, subject_id="s")}
    assert slots["s"] == slots["face"] == pytest.approx(3.0 * SUBJECT_HOLD)
    assert slots["sky"] == 3.0


def test_without_a_chosen_subject_the_largest_face_is_the_subject() -> None:
    photos = [_photo("sky"), _photo("small", face=0.1), _photo("big", face=0.3)]
    assert pick_subject(photos, None) == "big"
    assert pick_subject(photos, "sky") == "sky"
    assert pick_subject([_photo("sky"), _photo("sea")], None) is None


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
