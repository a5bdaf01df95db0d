"""Custom search attributes: every key defined once, typed, imported everywhere else."""

from __future__ import annotations

from temporalio.common import SearchAttributeKey

GIFT_ID = SearchAttributeKey.for_keyword("GiftId")
FILM_STATE = SearchAttributeKey.for_keyword("FilmState")
FILM_STAGE = SearchAttributeKey.for_keyword("FilmStage")
FILM_TIER = SearchAttributeKey.for_keyword("FilmTier")

ALL_KEYS = (GIFT_ID, FILM_STATE, FILM_STAGE, FILM_TIER)
