"""What the song and motion providers' HTTP clients share: one request whose network errors and
retryable answers (a 5xx, 408 or 429) raise the provider's retryable error, with the service's
``Retry-After`` as the next retry's delay, and a download capped in bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from services.outcome import parse_retry_after

RETRYABLE_STATUSES = frozenset({408, 429})
"""Besides every 5xx: the answers a provider is retried after."""

Unavailable = Callable[[str, float | None], Exception]
"""A provider's retryable error, made from its message and the delay the service asked for."""


def raise_if_retryable(response: httpx.Response, what: str, provider: str,
                       unavailable: Unavailable) -> None:
    """Raise ``unavailable`` for a 5xx, 408 or 429 answer to ``what`` from ``provider``."""
    status = response.status_code
    if status >= 500 or status in RETRYABLE_STATUSES:
        raise unavailable(f"{provider} unavailable: {what}: HTTP {status}",
                          parse_retry_after(response.headers.get("Retry-After")))


def provider_request(client: httpx.Client, method: str, url: str, provider: str,
                     unavailable: Unavailable, **kwargs: Any) -> httpx.Response:
    """One request to ``provider``; a network error, a timeout or a retryable answer raises
    ``unavailable`` for the activity's retry policy."""
    what = f"{method} {urlsplit(url).path}"
    try:
        response = client.request(method, url, **kwargs)
    except httpx.TransportError as exc:
        raise unavailable(f"{provider} unavailable: {what}: {type(exc).__name__}: {exc}",
                          None) from exc
    raise_if_retryable(response, what, provider, unavailable)
    return response


def save_capped(response: httpx.Response, dest: Path, max_bytes: int,
                too_large: Callable[[str | None], Exception]) -> Path:
    """Stream ``response``'s body to ``dest``; over ``max_bytes`` raises ``too_large`` (given
    the declared length when the headers say so, else None)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise too_large(declared)
    size = 0
    with dest.open("wb") as out:
        for chunk in response.iter_bytes(1 << 16):
            size += len(chunk)
            if size > max_bytes:
                raise too_large(None)
            out.write(chunk)
    return dest
