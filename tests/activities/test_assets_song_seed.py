"""The song's seed comes from private, stable facts of the run, never from the public slug."""

from __future__ import annotations

from activities.assets import order_song_seed
from tests.stages import order_with_media


def test_song_seed_ignores_the_public_share_slug() -> None:
    order = order_with_media("giftseed1", [("p01", "jpg")], share_slug="publicSlugA")
    reissued = order_with_media("giftseed1", [("p01", "jpg")], share_slug="publicSlugB")
    assert order_song_seed(order) == order_song_seed(reissued)


def test_song_seed_is_stable_within_an_attempt_and_new_for_a_re_render() -> None:
    first = order_with_media("giftseed1", [("p01", "jpg")])
    assert order_song_seed(first) == order_song_seed(first.model_copy())
    re_render = order_with_media("giftseed1", [("p01", "jpg")], attempt=2)
    assert order_song_seed(re_render) != order_song_seed(first)
    assert order_song_seed(order_with_media("giftseed2", [("p01", "jpg")])) != \
        order_song_seed(first)
