"""The smaller holes of issue 20, item 7: consent is the literal true, names must draw something,
a malformed signature header is False (never an exception), and outcomes never go out over
plain http except to a loopback host."""

from __future__ import annotations

import time

import pytest
from pydantic import ValidationError

from services.settings import Settings
from tests.helpers import raw_order
from workflows.contract import FilmOrder, sign_body, verify_signature
from workflows.intake import RefusedOrder, read_order

SECRET = "s3cret"
BODY = b'{"state":"held"}'


@pytest.mark.parametrize("accepted", ["yes", 1, "true", 1.0])
def test_consent_that_is_not_the_literal_true_is_an_invalid_order(accepted: object) -> None:
    payload = raw_order(consent={"accepted": accepted, "at": "2026-11-21T10:00:00Z"})
    refused = read_order(payload, f"film-{payload['gift_id']}-1")
    assert isinstance(refused, RefusedOrder) and refused.reason == "invalid_order:consent"


def test_consent_false_is_valid_and_left_to_the_gate_to_hold() -> None:
    payload = raw_order(consent={"accepted": False, "at": "2026-11-21T10:00:00Z"})
    assert FilmOrder.model_validate(payload).consent.accepted is False


@pytest.mark.parametrize("name", ["\u200b\u200b", "\u200e\u202e\u2066", "\u200d", "\ufeff \u2069",
                                  "\u0301\u0308"])
def test_a_name_made_only_of_zero_width_or_bidi_characters_is_refused(name: str) -> None:
    payload = raw_order(recipient_name=name)
    refused = read_order(payload, f"film-{payload['gift_id']}-1")
    assert isinstance(refused, RefusedOrder) and refused.reason == "invalid_order:recipient_name"
    with pytest.raises(ValidationError):
        FilmOrder.model_validate(raw_order(feeling_words=["ok", name]))


@pytest.mark.parametrize("name", ["Zoë", "مریم\u200cجان", "👩\u200d👧", "李小龍", "नमस्ते"])
def test_names_with_joiners_and_marks_around_visible_letters_are_kept(name: str) -> None:
    assert FilmOrder.model_validate(raw_order(recipient_name=name)).recipient_name == name


@pytest.mark.parametrize("timestamp", ["١٧٠٠٠٠٠٠٠٠", "²", "17000000000000000000", "", " 1",
                                       "1e9", "-1"])
def test_verify_signature_is_false_for_a_malformed_timestamp_never_an_exception(
    timestamp: str,
) -> None:
    assert verify_signature(SECRET, timestamp, "v1=00", BODY) is False


def test_verify_signature_is_false_for_a_non_ascii_signature_and_true_for_a_good_one() -> None:
    now = int(time.time())
    assert verify_signature(SECRET, str(now), "v1=é", BODY) is False
    assert verify_signature(SECRET, str(now), sign_body(SECRET, now, BODY), BODY) is True


@pytest.mark.parametrize("url", ["http://orders.example.com", "http://10.0.0.5:8080",
                                 "ftp://orders.example.com", "https://", "orders.example.com"])
def test_an_order_api_url_that_is_not_https_outside_a_local_run_is_refused(url: str) -> None:
    with pytest.raises(ValidationError, match="FILM_ORDER_API_URL"):
        Settings(FILM_ORDER_API_URL=url)


@pytest.mark.parametrize("url", ["https://orders.example.com/api", "http://127.0.0.1:8080",
                                 "http://localhost:9000", "http://[::1]:80"])
def test_an_https_or_loopback_order_api_url_is_accepted(url: str) -> None:
    assert Settings(FILM_ORDER_API_URL=url).order_api_url == url
