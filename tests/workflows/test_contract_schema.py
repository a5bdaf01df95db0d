"""The published order schema refuses what the worker refuses, wherever JSON Schema can say it
(issue 31, case 6): every order the worker refuses is fed through
``contract/film-order.schema.json`` with the jsonschema package; the few rules the schema cannot
express are named in its description and are exactly the refusals it lets through."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from tests.helpers import order_fields, photo_refs
from workflows.contract import FilmOrder
from workflows.schemas import RULES_LEFT_TO_THE_WORKER, SCHEMA_DIR


@pytest.fixture(scope="module")
def schema() -> jsonschema.protocols.Validator:
    document = json.loads((SCHEMA_DIR / "film-order.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(
        document, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def clip(slot: str, key_slot: str | None = None) -> dict[str, str]:
    return {"id": slot, "key": f"orders/gift0001/clips/{key_slot or slot}.mp4",
            "mime": "video/mp4"}


BRAND = {"logo_url": "https://brand.example.com/logo.png", "color": "#12355B"}

REFUSED_BY_BOTH: dict[str, dict[str, Any]] = {
    "zero-width name": {"recipient_name": "\u200b\u200b"},
    "bidi-marks-only name": {"recipient_name": "\u200e\u202e\u2066"},
    "combining-marks-only name": {"recipient_name": "\u0301\u0308"},
    "BOM and isolate name": {"recipient_name": "\ufeff \u2069"},
    "whitespace-only name": {"recipient_name": "   "},
    "ideographic-space name": {"recipient_name": "\u3000"},
    "control-characters name": {"recipient_name": "\x00\x07 \n"},
    "zero-width relationship": {"relationship": "\u200d"},
    "blank relationship": {"relationship": "\t \u00a0"},
    "zero-width feeling word": {"feeling_words": ["ok", "\u200b"]},
    "blank occasion name": {"occasion": {"slug": "birthday", "name": "  ",
                                         "short_name": "B", "tone": "joyful"}},
    "http logo": {"style": "brand", "brand": {"logo_url": "http://brand.example.com/l.png"}},
    "unclosed IPv6 bracket logo": {"style": "brand",
                                   "brand": {"logo_url": "https://[::1/logo.png"}},
    "stray bracket logo": {"style": "brand", "brand": {"logo_url": "https://a]/logo.png"}},
    "brand fields on a gift style": {"style": "gift", "brand": BRAND},
    "brand fields on a social style": {"style": "social", "brand": {"color": "#112233"}},
    "brand fields with the style left to its default": {"brand": BRAND},
    "duplicate photo ids": {"photos": photo_refs(2)[:1] * 2},
    "duplicate clip ids": {"clips": [clip("c01"), clip("c02"), clip("c01")]},
    "unknown subject photo": {"photos": photo_refs(3), "subject_photo_id": "p09"},
    "subject photo that is no photo id": {"subject_photo_id": "cover"},
    "photo key in the clips folder": {
        "photos": [{"id": "p01", "key": "orders/gift0001/clips/p01.jpg", "mime": "image/jpeg"}]},
    "photo key climbing out": {
        "photos": [{"id": "p01", "key": "orders/gift0001/photos/../../etc/p01.jpg",
                    "mime": "image/jpeg"}]},
    "clip key of no slot": {"clips": [clip("c01", "c07")]},
    "clip id c04": {"clips": [clip("c04")]},
    "four clips": {"clips": [clip("c01"), clip("c02"), clip("c03"), clip("c03")]},
    "31 photos": {"photos": photo_refs(31)},
    "long name": {"recipient_name": "x" * 81},
    "length under 30 s": {"length_sec": 29},
    "unknown field": {"unknown_field": 1},
}
"""Orders the worker refuses (``invalid_order:<field>``) and the schema refuses too."""

LEFT_TO_THE_WORKER: dict[str, dict[str, Any]] = {
    "media key of another gift": {
        "photos": [{"id": "p01", "key": "orders/other0001/photos/p01.jpg",
                    "mime": "image/jpeg"}]},
    "media key of another id": {"clips": [clip("c01", "c02")]},
    "name of tag characters only (beyond the BMP)": {"recipient_name": "\U000e0041\U000e0042"},
}
"""Orders the worker refuses that the schema lets through: the rules of
RULES_LEFT_TO_THE_WORKER, named in the schema's description."""

ACCEPTED_BY_BOTH: dict[str, dict[str, Any]] = {
    "plain": {},
    "names with joiners and marks around letters": {
        "recipient_name": "مریم\u200cجان", "relationship": "👩\u200d👧",
        "feeling_words": ["Zoë", "नमस्ते", "李小龍"]},
    "brand with an https logo": {"style": "brand", "brand": BRAND},
    "brand with a public IPv6 literal": {"style": "brand",
                                         "brand": {"logo_url": "https://[2001:db8::1]/l.png"}},
    "brand null on a gift style": {"style": "gift", "brand": None},
    "a subject among 30 photos": {"photos": photo_refs(30), "subject_photo_id": "p30"},
    "three clips": {"clips": [clip("c01"), clip("c02"), clip("c03")]},
    "photo ids with gaps": {"photos": [
        {"id": "p07", "key": "orders/gift0001/photos/p07.webp", "mime": "image/webp"},
        {"id": "p99", "key": "orders/gift0001/photos/p99.jpeg", "mime": "image/jpeg"}],
        "subject_photo_id": "p99"},
}


def worker_refuses(fields: dict[str, Any]) -> bool:
    try:
        FilmOrder.model_validate(fields)
    except ValidationError:
        return True
    return False


@pytest.mark.parametrize("overrides", REFUSED_BY_BOTH.values(), ids=REFUSED_BY_BOTH.keys())
def test_an_order_the_worker_refuses_is_refused_by_the_published_schema(
    schema: jsonschema.protocols.Validator, overrides: dict[str, Any],
) -> None:
    fields = order_fields(**overrides)
    assert worker_refuses(fields)
    assert list(schema.iter_errors(fields)), "the schema accepts an order the worker refuses"


@pytest.mark.parametrize("overrides", LEFT_TO_THE_WORKER.values(), ids=LEFT_TO_THE_WORKER.keys())
def test_only_the_rules_named_in_the_schema_are_left_to_the_worker(
    schema: jsonschema.protocols.Validator, overrides: dict[str, Any],
) -> None:
    fields = order_fields(**overrides)
    assert worker_refuses(fields)
    assert not list(schema.iter_errors(fields)), "now expressed: move it to REFUSED_BY_BOTH"


def test_the_schema_description_lists_the_rules_it_cannot_express(
    schema: jsonschema.protocols.Validator,
) -> None:
    description = schema.schema["description"]
    assert all(rule in description for rule in RULES_LEFT_TO_THE_WORKER)


@pytest.mark.parametrize("overrides", ACCEPTED_BY_BOTH.values(), ids=ACCEPTED_BY_BOTH.keys())
def test_an_order_the_worker_accepts_is_accepted_by_the_published_schema(
    schema: jsonschema.protocols.Validator, overrides: dict[str, Any],
) -> None:
    fields = order_fields(**overrides)
    assert not worker_refuses(fields)
    assert not list(schema.iter_errors(fields))
