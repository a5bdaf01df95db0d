"""The gate's pluggable moderation hook: one JSON POST to ``FILM_MODERATION_URL`` (off when unset).

The request carries the order's words and the ids and storage keys of its usable media, never
their bytes (the service reads the keys itself if it needs pixels)::

    {"gift_id", "attempt", "workflow_id", "occasion", "text": {field: text},
     "photos": [{"id", "key", "prepared_key"}], "clips": [{"id", "key", "prepared_key"}]}

with ``Idempotency-Key: {workflow_id}``. The answer is classified as follows:

- 2xx ``{"decision": "allow"}``: the run goes on;
- 2xx ``{"decision": "hold", "reason": "..."}``: the gate holds the run (``moderation_hold``);
- network errors, timeouts, 5xx, 408, 429, or a 2xx that is neither: :class:`ModerationUnavailable`
  (retryable: our side, retried by the stage's policy, then the run fails);
- redirects, other 4xx, an unusable URL: :class:`ModerationRefused` (a configuration error, not
  retried: the run fails).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import httpx
from temporalio.exceptions import ApplicationError

from workflows.contract import FilmOrder
from workflows.stages import PrepResult

RETRYABLE_STATUSES = frozenset({408, 429})
REASON_MAX_CHARS = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


class ModerationUnavailable(ApplicationError):
    """The moderation service could not answer now (network, 5xx, garbled answer): retry."""

    def __init__(self, message: str) -> None:
        super().__init__(message, type="ModerationUnavailable")


class ModerationRefused(ApplicationError):
    """The moderation service refused our request for good (4xx, redirect, bad URL): config."""

    def __init__(self, message: str) -> None:
        super().__init__(message, type="ModerationRefused", non_retryable=True)


@dataclass(frozen=True)
class ModerationDecision:
    """The service's verdict: ``hold`` with its reason, or allow."""

    hold: bool
    reason: str = ""


def moderation_request(order: FilmOrder, prep: PrepResult, text: dict[str, str]
                       ) -> dict[str, Any]:
    """The JSON summary sent to the service: ids, keys and ``text``, never media bytes."""
    photo_keys = {ref.id: ref.key for ref in order.photos}
    clip_keys = {ref.id: ref.key for ref in order.clips}
    return {
        "gift_id": order.gift_id,
        "attempt": order.attempt,
        "workflow_id": order.workflow_id,
        "occasion": order.occasion.slug,
        "text": text,
        "photos": [{"id": p.id, "key": photo_keys.get(p.id), "prepared_key": p.key}
                   for p in prep.photos],
        "clips": [{"id": c.id, "key": clip_keys.get(c.id), "prepared_key": c.key}
                  for c in prep.clips],
    }


def moderate(url: str, request: dict[str, Any], *, timeout_s: float) -> ModerationDecision:
    """POST ``request`` to ``url`` once and classify the answer (see the module docstring)."""
    headers = {"Content-Type": "application/json",
               "Idempotency-Key": str(request.get("workflow_id", ""))}
    try:
        with httpx.Client(timeout=timeout_s, follow_redirects=False) as client:
            response = client.post(url, content=json.dumps(request).encode(), headers=headers)
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
        raise ModerationRefused(f"moderation URL is unusable: {exc}") from exc
    except httpx.TransportError as exc:
        raise ModerationUnavailable(f"moderation unreachable: {type(exc).__name__}: {exc}") \
            from exc
    return _decision(response)


def _decision(response: httpx.Response) -> ModerationDecision:
    status = response.status_code
    if status >= 500 or status in RETRYABLE_STATUSES:
        raise ModerationUnavailable(f"moderation answered {status}")
    if not 200 <= status < 300:
        raise ModerationRefused(f"moderation refused the request: {status}")
    try:
        body = response.json()
    except ValueError as exc:
        raise ModerationUnavailable(f"moderation answered {status} without JSON") from exc
    decision = body.get("decision") if isinstance(body, dict) else None
    if decision == "allow":
        return ModerationDecision(hold=False)
    if decision == "hold":
        return ModerationDecision(hold=True, reason=_clean_reason(body.get("reason")))
    raise ModerationUnavailable(f"moderation answered {status} without a decision")


def _clean_reason(reason: object) -> str:
    """The service's reason as one short line (it ends up in ops messages)."""
    text = " ".join(_CONTROL.sub(" ", reason if isinstance(reason, str) else "").split())
    return text[:REASON_MAX_CHARS] or "no reason given"
