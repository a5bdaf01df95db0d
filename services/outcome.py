"""The outcome callback to the order API: one signed POST, classified for Temporal's retries.

:func:`post_outcome` makes exactly one attempt; the activity's retry policy does the retrying
(with backoff, for up to a day). The classification follows DESIGN.md:

- 2xx: accepted; 409: already recorded (also success, ``already_recorded=True``);
- network errors, timeouts, 5xx, 408, 429: :class:`OutcomeRetryable` (a ``Retry-After`` header
  becomes the next retry delay);
- 401 with ``retry_unauthorized``: :class:`OutcomeRetryable` too. The receiver answers 401 to a
  timestamp 300 s off its clock and to a signature of the other secret, which a clock being
  corrected or a secret rotated on one side first cause for a while; the report activity asks
  for it during its first :data:`UNAUTHORIZED_RETRY_S`;
- any other status (400/401/403/404/422, redirects): :class:`OutcomeRejected`, non-retryable:
  a bug or a configuration error that ops must see.

Both errors are Temporal ``ApplicationError`` subclasses, so raised from an activity they carry
their own retry semantics. Neither the secret nor the request body is ever logged.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, timedelta
from urllib.parse import quote

import httpx
from temporalio.exceptions import ApplicationError

from services.storage.base import Storage
from workflows import names
from workflows.contract import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    FilmOutcome,
    outcome_path,
    sign_body,
)

__all__ = [
    "OutcomeRejected",
    "OutcomeRetryable",
    "PostResult",
    "outcome_headers",
    "outcome_url",
    "post_outcome",
    "write_local_outcome",
]

log = logging.getLogger(__name__)

RETRYABLE_STATUSES = frozenset(names.RETRYABLE_STATUSES)
UNAUTHORIZED = 401
UNAUTHORIZED_RETRY_S = 3600.0
"""How long after its first attempt a report answered 401 is retried like a 5xx (seconds):
long enough for a clock to be corrected or a secret rotation to reach both sides, short of the
report's day, so a secret that is simply wrong still reaches ops the same hour."""
MAX_RETRY_AFTER_S = 3600.0
RESPONSE_SNIPPET_CHARS = 200


class OutcomeRetryable(ApplicationError):
    """The order API could not take the outcome now: retry later (our side or theirs)."""

    def __init__(
        self, message: str, *, status_code: int | None = None, retry_after_s: float | None = None
    ) -> None:
        delay = timedelta(seconds=retry_after_s) if retry_after_s else None
        super().__init__(message, type="OutcomeRetryable", next_retry_delay=delay)
        self.status_code = status_code
        self.retry_after_s = retry_after_s


class OutcomeRejected(ApplicationError):
    """The order API refused the outcome for good (4xx): a bug or a config error, not retried."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message, type="OutcomeRejected", non_retryable=True)
        self.status_code = status_code


@dataclass(frozen=True)
class PostResult:
    """A successful delivery: the status answered and whether it had been recorded before."""

    status_code: int
    already_recorded: bool
    idempotency_key: str


def outcome_url(url_base: str, gift_id: str) -> str:
    """``{url_base}/internal/fulfillment/{gift_id}``, the gift id escaped as one path segment."""
    return url_base.rstrip("/") + outcome_path(quote(gift_id, safe=""))


def outcome_headers(
    secret: str, body: bytes, idempotency_key: str, timestamp: int
) -> dict[str, str]:
    """The callback's headers: content type, idempotency key, timestamp and signature."""
    return {
        "Content-Type": "application/json",
        IDEMPOTENCY_HEADER: idempotency_key,
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: sign_body(secret, timestamp, body),
    }


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date), capped at an hour."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        current = time.time() if now is None else now
        seconds = when.timestamp() - current
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_S) or None


def _snippet(response: httpx.Response) -> str:
    """The start of the API's answer, one line, for the error message (never our body)."""
    text = response.text[:RESPONSE_SNIPPET_CHARS]
    return " ".join(text.split())


def _classify(response: httpx.Response, key: str, *, retry_unauthorized: bool) -> PostResult:
    """Map the answer to a result or raise the matching error."""
    status = response.status_code
    recorded = status == names.ALREADY_RECORDED_STATUS
    if 200 <= status < 300 or recorded:
        return PostResult(status, already_recorded=recorded, idempotency_key=key)
    if status >= 500 or status in RETRYABLE_STATUSES or (
            status == UNAUTHORIZED and retry_unauthorized):
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        hint = f", retry after {retry_after:g}s" if retry_after else ""
        raise OutcomeRetryable(
            f"order API answered {status} for {key}{hint}",
            status_code=status,
            retry_after_s=retry_after,
        )
    raise OutcomeRejected(
        f"order API refused the outcome of {key}: {status} {_snippet(response)}".rstrip(),
        status_code=status,
    )


def post_outcome(
    url_base: str,
    secret: str,
    gift_id: str,
    outcome: FilmOutcome,
    *,
    timeout_s: float = 10.0,
    clock: Callable[[], float] = time.time,
    retry_unauthorized: bool = False,
) -> PostResult:
    """POST ``outcome`` to the order API once, signed; classify the answer.

    Returns a :class:`PostResult` on 2xx and 409; raises :class:`OutcomeRetryable` or
    :class:`OutcomeRejected` otherwise (a 401 retryable with ``retry_unauthorized``).
    ``clock`` gives the signing time (tests skew it).
    """
    key = outcome.workflow_id
    response = _send(outcome_url(url_base, gift_id), secret, outcome, int(clock()), timeout_s)
    fields = (gift_id, key, outcome.state.value)
    try:
        result = _classify(response, key, retry_unauthorized=retry_unauthorized)
    except (OutcomeRetryable, OutcomeRejected) as exc:
        log.warning(
            "outcome not accepted: gift=%s workflow=%s state=%s status=%s", *fields, exc.status_code
        )
        raise
    verdict = "already recorded" if result.already_recorded else "accepted"
    log.info("outcome %s: gift=%s workflow=%s state=%s", verdict, *fields)
    return result


def _send(
    url: str, secret: str, outcome: FilmOutcome, timestamp: int, timeout_s: float
) -> httpx.Response:
    """One signed POST; transport failures become :class:`OutcomeRetryable`."""
    body = outcome.body()
    key = outcome.workflow_id
    headers = outcome_headers(secret, body, key, timestamp)
    try:
        with httpx.Client(timeout=timeout_s, follow_redirects=False) as client:
            return client.post(url, content=body, headers=headers)
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
        raise OutcomeRejected(f"order API URL is unusable: {exc}") from exc
    except httpx.TransportError as exc:
        name = type(exc).__name__
        raise OutcomeRetryable(f"order API unreachable for {key}: {name}: {exc}") from exc


def write_local_outcome(storage: Storage, key: str, outcome: FilmOutcome) -> str:
    """The local sink: write the outcome as pretty-printed JSON under ``key``; return ``key``.

    Writing again replaces the file, so a retried report stays one file per run.
    """
    text = outcome.model_dump_json(exclude_none=True, indent=2) + "\n"
    storage.put_bytes(key, text.encode(), "application/json")
    return key
