"""The storage key layout (workflows/keys.py) is DESIGN.md's, and the contract validates with it."""

from __future__ import annotations

import pytest

from workflows import keys
from workflows.keys import RunKeys


def test_inputs_are_where_the_order_api_writes_them() -> None:
    assert keys.photo_key("g_1", "p01", "jpg") == "orders/g_1/photos/p01.jpg"
    assert keys.clip_key("g_1", "c02", "mov") == "orders/g_1/clips/c02.mov"


@pytest.mark.parametrize(("key", "matches"), [
    ("orders/g.1/photos/p01.webp", True),
    ("orders/gx1/photos/p01.webp", False),  # the gift id is matched literally, not as a regex
    ("orders/g.1/photos/p01.", False),
    ("orders/g.1/photos/p01.jpeg2000", False),
    ("orders/g.1/clips/p01.jpg", False),
    ("orders/g.1/photos/../p01.jpg", False),
])
def test_an_input_key_matches_only_its_own_gift_folder_and_slot(key: str, matches: bool) -> None:
    assert bool(keys.media_key_pattern("g.1", keys.PHOTOS, "p01").match(key)) is matches


def test_every_working_file_of_a_run_lives_under_its_attempt() -> None:
    run = RunKeys("g1", 3)
    assert run.prefix == keys.run_prefix("g1", 3) == "orders/g1/runs/3"
    assert run.prepared_photo("p01") == "orders/g1/runs/3/prep/photos/p01.jpg"
    assert run.prepared_clip("c01") == "orders/g1/runs/3/prep/clips/c01.mp4"
    assert run.restored_photo("p01") == "orders/g1/runs/3/assets/photos/p01.jpg"
    assert (run.framing, run.restore_report, run.logo) == (
        "orders/g1/runs/3/assets/framing.json", "orders/g1/runs/3/assets/restore.json",
        "orders/g1/runs/3/assets/logo.png")
    assert (run.song, run.song_meta) == ("orders/g1/runs/3/assets/song.wav",
                                         "orders/g1/runs/3/assets/song.json")
    assert (run.film_spec, run.timeline, run.soundtrack, run.film("9x16"), run.poster) == (
        "orders/g1/runs/3/render/spec.json",
        "orders/g1/runs/3/render/timeline.json", "orders/g1/runs/3/render/soundtrack.wav",
        "orders/g1/runs/3/render/9x16.mp4", "orders/g1/runs/3/render/poster.jpg")
    assert run.segment_film(7, "16x9") == "orders/g1/runs/3/render/segments/007/16x9.mp4"
    assert run.segment_film(7, "16x9").startswith(run.segments_prefix)


def test_another_attempt_of_the_same_gift_shares_no_working_file() -> None:
    first, second = RunKeys("g1", 1), RunKeys("g1", 2)
    assert not second.timeline.startswith(first.prefix + "/")
    assert first.key("render/x") != second.key("render/x")


def test_the_delivery_is_keyed_by_the_share_slug_alone() -> None:
    assert keys.film_key("s1", keys.film_name("16x9")) == "films/s1/16x9.mp4"
    assert keys.film_key("s1", keys.PAGE_NAME) == "films/s1/index.html"
    assert keys.film_key("s1", keys.POSTER_NAME) == "films/s1/poster.jpg"
    assert keys.film_key("s1", keys.PORTRAIT_POSTER_NAME) == "films/s1/poster-9x16.jpg"
    assert keys.film_key("s1", keys.MANIFEST_NAME) == "films/s1/manifest.json"
    assert keys.outcome_key("film-g1-2") == "outcomes/film-g1-2.json"
