"""The outcome callback against the reference order-API receiver, over real HTTP."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from datetime import timedelta
from email.utils import formatdate
from pathlib import Path

import httpx
import pytest
from temporalio.exceptions import ApplicationError

import activities.report as report
from activities.report import run_report
from services.outcome import (
    UNAUTHORIZED_RETRY_S,
    OutcomeRejected,
    OutcomeRetryable,
    outcome_url,
    parse_retry_after,
    post_outcome,
    write_local_outcome,
)
from services.storage.local import LocalStorage
from tests.receiver import OrderApiReceiver
from tests.stages import local_context
from workflows.contract import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    FilmOutcome,
    sign_body,
    verify_signature,
    workflow_id,
)
from workflows.keys import outcome_key
from workflows.stages import ReportInput

SECRET = "outcome-test-secret-0123456789"
GIFT = "gift_ab12cd"


@pytest.fixture
def receiver() -> Iterator[OrderApiReceiver]:
    with OrderApiReceiver(SECRET) as running:
        yield running


def _outcome(attempt: int = 1, **changes: object) -> FilmOutcome:
    fields: dict[str, object] = {
        "workflow_id": workflow_id(GIFT, attempt),
        "attempt": attempt,
        "charge_id": "ch_3Pq9",
        "state": "succeeded",
        "stage": "deliver",
        "film_url": {
            "16x9": "https://cdn.example.test/films/slug99/16x9.mp4",
            "9x16": "https://cdn.example.test/films/slug99/9x16.mp4",
        },
        "gift_url": "https://gift.example.test/slug99",
        "poster_url": "https://cdn.example.test/films/slug99/poster.jpg",
        "duration_sec": 60.0,
    }
    return FilmOutcome.model_validate({**fields, **changes})


def _post(receiver: OrderApiReceiver, outcome: FilmOutcome, **kwargs: object):
    return post_outcome(receiver.url, SECRET, GIFT, outcome, timeout_s=2.0, **kwargs)


# --- post_outcome ----------------------------------------------------------------------------


def test_accepted_once_with_valid_signature(receiver: OrderApiReceiver) -> None:
    outcome = _outcome()
    result = _post(receiver, outcome)
    assert (result.status_code, result.already_recorded) == (200, False)
    assert result.idempotency_key == outcome.workflow_id
    [(headers, body)] = receiver.accepted
    assert body == outcome.model_dump(mode="json", exclude_none=True)
    assert "reason" not in body
    assert headers[IDEMPOTENCY_HEADER] == outcome.workflow_id
    assert headers["content-type"] == "application/json"
    assert abs(int(headers[TIMESTAMP_HEADER]) - time.time()) < 5
    assert headers[SIGNATURE_HEADER].startswith("v1=")
    assert verify_signature(
        SECRET, headers[TIMESTAMP_HEADER], headers[SIGNATURE_HEADER], outcome.body()
    )


def test_held_outcome_carries_reason(receiver: OrderApiReceiver) -> None:
    outcome = _outcome(
        state="held",
        stage="gate",
        reason="gate.consent_missing",
        film_url=None,
        gift_url=None,
        poster_url=None,
        duration_sec=None,
    )
    _post(receiver, outcome)
    assert receiver.bodies() == [outcome.model_dump(mode="json", exclude_none=True)]
    assert receiver.bodies()[0]["reason"] == "gate.consent_missing"


def test_repeat_is_already_recorded(receiver: OrderApiReceiver) -> None:
    outcome = _outcome()
    first = _post(receiver, outcome)
    second = _post(receiver, outcome)
    assert not first.already_recorded
    assert (second.status_code, second.already_recorded) == (409, True)
    assert len(receiver.accepted) == 1
    assert receiver.requests == 2


@pytest.mark.parametrize("status", [500, 502, 503, 504, 408, 429])
def test_transient_status_is_retryable(receiver: OrderApiReceiver, status: int) -> None:
    receiver.fail_next(1, status=status)
    with pytest.raises(OutcomeRetryable) as info:
        _post(receiver, _outcome())
    assert info.value.status_code == status
    assert not info.value.non_retryable
    assert receiver.accepted == []
    assert _post(receiver, _outcome()).status_code == 200  # the retry goes through


def test_retry_after_becomes_next_retry_delay(receiver: OrderApiReceiver) -> None:
    receiver.fail_next(1, status=429, retry_after="7")
    with pytest.raises(OutcomeRetryable) as info:
        _post(receiver, _outcome())
    assert info.value.retry_after_s == 7
    assert info.value.next_retry_delay == timedelta(seconds=7)
    assert "retry after 7s" in str(info.value)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_error_is_rejected(receiver: OrderApiReceiver, status: int) -> None:
    receiver.fail_next(1, status=status)
    with pytest.raises(OutcomeRejected) as info:
        _post(receiver, _outcome())
    assert info.value.status_code == status
    assert info.value.non_retryable
    assert receiver.accepted == []


def test_wrong_secret_is_rejected(receiver: OrderApiReceiver) -> None:
    with pytest.raises(OutcomeRejected) as info:
        post_outcome(receiver.url, "not-the-secret", GIFT, _outcome(), timeout_s=2.0)
    assert info.value.status_code == 401
    assert receiver.rejected[-1].reason == "invalid_signature"
    assert receiver.accepted == []


def test_skewed_clock_is_rejected(receiver: OrderApiReceiver) -> None:
    with pytest.raises(OutcomeRejected) as info:
        _post(receiver, _outcome(), clock=lambda: time.time() - 400)
    assert info.value.status_code == 401


def test_a_401_is_retried_like_a_5xx_while_the_report_asks_for_it(
    receiver: OrderApiReceiver,
) -> None:
    with pytest.raises(OutcomeRetryable) as skewed:
        _post(receiver, _outcome(), clock=lambda: time.time() - 400, retry_unauthorized=True)
    with pytest.raises(OutcomeRetryable) as rotated:
        post_outcome(receiver.url, "the-next-secret", GIFT, _outcome(), timeout_s=2.0,
                     retry_unauthorized=True)
    receiver.fail_next(1, status=403)
    with pytest.raises(OutcomeRejected):
        _post(receiver, _outcome(), retry_unauthorized=True)

    assert (skewed.value.status_code, rotated.value.status_code) == (401, 401)
    assert [r.status for r in receiver.rejected] == [401, 401, 403]
    assert receiver.accepted == []


def test_the_report_retries_a_401_for_an_hour_then_leaves_it_to_ops(
    tmp_path: Path, receiver: OrderApiReceiver, monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = local_context(tmp_path, FILM_ORDER_API_URL=receiver.url,
                        FILM_ORDER_API_SECRET="the-next-secret")
    report_input = ReportInput(gift_id=GIFT, outcome=_outcome())
    with pytest.raises(OutcomeRetryable):
        run_report(ctx, report_input)

    monkeypatch.setattr(report, "_reporting_for_s", lambda: UNAUTHORIZED_RETRY_S)
    with pytest.raises(ApplicationError) as late:
        run_report(ctx, report_input)

    assert (late.value.type, late.value.non_retryable) == ("OutcomeRejected", True)
    assert receiver.accepted == []


def test_connection_refused_is_retryable(receiver: OrderApiReceiver) -> None:
    with receiver.outage(), pytest.raises(OutcomeRetryable) as info:
        _post(receiver, _outcome())
    assert info.value.status_code is None
    assert "ConnectError" in str(info.value)
    assert _post(receiver, _outcome()).status_code == 200  # back after the outage
    assert len(receiver.accepted) == 1


def test_timeout_is_retryable_and_retry_is_already_recorded(receiver: OrderApiReceiver) -> None:
    receiver.delay_next(1, seconds=0.6)
    outcome = _outcome()
    with pytest.raises(OutcomeRetryable):
        post_outcome(receiver.url, SECRET, GIFT, outcome, timeout_s=0.2)
    receiver.wait_for_accepted(1, timeout_s=5)  # the API recorded it after all
    assert _post(receiver, outcome).already_recorded
    assert len(receiver.accepted) == 1


def test_unusable_url_is_rejected() -> None:
    with pytest.raises(OutcomeRejected):
        post_outcome("ftp://orders.example.test", SECRET, GIFT, _outcome(), timeout_s=1)


def test_secret_and_body_are_never_logged(
    receiver: OrderApiReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    outcome = _outcome(reason="ops-only-reason-text")
    _post(receiver, outcome)
    receiver.fail_next(1, status=503)
    with pytest.raises(OutcomeRetryable) as retry:
        _post(receiver, outcome)
    with pytest.raises(OutcomeRejected) as rejected:
        post_outcome(receiver.url, "wrong-secret-xyz", GIFT, outcome, timeout_s=2.0)
    texts = [caplog.text, str(retry.value), str(rejected.value)]
    for text in texts:
        for secret_or_body in (SECRET, "wrong-secret-xyz", "ops-only-reason-text", "slug99"):
            assert secret_or_body not in text
    assert GIFT in caplog.text  # ids are logged, for ops


def test_outcome_url_escapes_gift_id() -> None:
    assert outcome_url("http://api.test/", "g1") == "http://api.test/internal/fulfillment/g1"
    assert outcome_url("http://api.test", "a/b") == "http://api.test/internal/fulfillment/a%2Fb"


def test_parse_retry_after() -> None:
    now = time.time()
    assert parse_retry_after("120") == 120
    assert parse_retry_after(formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30, 1)
    assert parse_retry_after("999999") == 3600
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("0") is None


def test_write_local_outcome(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path)
    outcome = _outcome()
    key = write_local_outcome(storage, outcome_key("film-x-1"), outcome)
    write_local_outcome(storage, key, outcome)  # a retried report overwrites
    assert storage.list("outcomes/") == [key]
    text = (tmp_path / key).read_text()
    assert text.startswith("{\n  ")
    assert json.loads(text) == outcome.model_dump(mode="json", exclude_none=True)


# --- the receiver refuses bad callbacks (posted by hand) ----------------------------------------


def _signed(body: bytes, *, secret: str = SECRET, timestamp: int | None = None) -> dict[str, str]:
    ts = int(time.time()) if timestamp is None else timestamp
    return {
        "Content-Type": "application/json",
        IDEMPOTENCY_HEADER: workflow_id(GIFT, 1),
        TIMESTAMP_HEADER: str(ts),
        SIGNATURE_HEADER: sign_body(secret, ts, body),
    }


def _send(receiver: OrderApiReceiver, body: bytes, headers: dict[str, str]) -> httpx.Response:
    url = f"{receiver.url}/internal/fulfillment/{GIFT}"
    return httpx.post(url, content=body, headers=headers, timeout=2.0)


def test_receiver_refuses_tampered_body(receiver: OrderApiReceiver) -> None:
    body = _outcome().body()
    tampered = body.replace(b'"succeeded"', b'"failed"')
    assert tampered != body
    assert _send(receiver, tampered, _signed(body)).status_code == 401
    assert receiver.accepted == []


def test_receiver_refuses_wrong_secret(receiver: OrderApiReceiver) -> None:
    body = _outcome().body()
    assert _send(receiver, body, _signed(body, secret="guess")).status_code == 401
    headers = {**_signed(body), SIGNATURE_HEADER: "v1=" + "0" * 64}
    assert _send(receiver, body, headers).status_code == 401
    unsigned = {k: v for k, v in _signed(body).items() if k != SIGNATURE_HEADER}
    assert _send(receiver, body, unsigned).status_code == 401
    assert receiver.accepted == []


@pytest.mark.parametrize("skew", [-330, 330, -10_000])  # beyond 300 s, whatever the latency
def test_receiver_refuses_stale_or_future_timestamp(receiver: OrderApiReceiver, skew: int) -> None:
    body = _outcome().body()
    headers = _signed(body, timestamp=int(time.time()) + skew)
    assert _send(receiver, body, headers).status_code == 401
    assert receiver.accepted == []


def test_receiver_accepts_small_skew(receiver: OrderApiReceiver) -> None:
    body = _outcome().body()
    assert _send(receiver, body, _signed(body, timestamp=int(time.time()) - 250)).status_code == 200


def test_receiver_refuses_inconsistent_callbacks(receiver: OrderApiReceiver) -> None:
    body = _outcome().body()
    other_key = {**_signed(body), IDEMPOTENCY_HEADER: "film-other-1"}
    assert _send(receiver, body, other_key).status_code == 422
    assert _send(receiver, b"{not json", _signed(b"{not json")).status_code == 400
    extra = json.dumps({**json.loads(body), "surprise": 1}).encode()
    assert _send(receiver, extra, _signed(extra)).status_code == 422
    wrong_gift = _outcome().body()
    url = f"{receiver.url}/internal/fulfillment/another_gift"
    response = httpx.post(url, content=wrong_gift, headers=_signed(wrong_gift), timeout=2.0)
    assert response.status_code == 422
    assert httpx.post(f"{receiver.url}/elsewhere", content=b"{}", timeout=2.0).status_code == 404
    assert receiver.accepted == []
    assert [r.status for r in receiver.rejected] == [422, 400, 422, 422, 404]
