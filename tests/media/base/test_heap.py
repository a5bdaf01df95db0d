"""What an activity caches is let go between activities (issue 31, the idle worker's memory)."""

from __future__ import annotations

import numpy as np

from media.analysis.subjects import detect_faces
from media.base import heap
from media.cards.draw import render_card
from media.cards.spec import CardSpec


def _fill_activity_caches() -> None:
    render_card(CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift"), 320, 180)
    detect_faces(np.full((96, 128, 3), 128, np.uint8))


def test_a_card_and_a_face_search_fill_caches_that_release_empties() -> None:
    _fill_activity_caches()
    assert heap.cached_entries() >= 3  # the dither, a shaped line, the face detector

    dropped = heap.release_caches()

    assert dropped >= 3
    assert heap.cached_entries() == 0


def test_a_released_cache_fills_again_with_the_same_results() -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift")
    before = render_card(card, 320, 180)
    heap.release()
    after = render_card(card, 320, 180)
    assert np.array_equal(np.asarray(before), np.asarray(after))
