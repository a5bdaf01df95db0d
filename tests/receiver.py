"""A reference order-API receiver for the outcome callback, over real HTTP (pytest-free).

It implements ``POST /internal/fulfillment/{gift_id}`` the way the order API must:

- verify ``X-Film-Timestamp`` / ``X-Film-Signature`` over the raw body with the shared secret,
  refusing a tampered body, a wrong signature or a timestamp more than 300 s away (401);
- validate the body as a :class:`FilmOutcome` whose ``workflow_id`` is the ``Idempotency-Key``
  and ``film-{gift_id}-{attempt}`` (400 / 422 otherwise);
- record each idempotency key once: a repeat answers 409 and is not recorded again.

For outage drills: ``fail_next(n, status=503)`` answers the next ``n`` requests with ``status``,
``delay_next(n, seconds)`` stalls them, and ``refuse_connections()`` / ``accept_connections()``
(or ``with receiver.outage():``) close and reopen the listening socket on the same port.

Usage::

    with OrderApiReceiver(secret="s3cret") as receiver:
        post_outcome(receiver.url, "s3cret", gift_id, outcome)
        headers, body = receiver.accepted[0]
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from pydantic import ValidationError

from workflows.contract import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    FilmOutcome,
    verify_signature,
    workflow_id,
)

PATH_PATTERN = re.compile(r"^/internal/fulfillment/(?P<gift_id>[A-Za-z0-9_-]{1,64})$")
MAX_BODY_BYTES = 64 * 1024
DEFAULT_SECRET = "test-order-api-secret"
POLL_INTERVAL_S = 0.05  # how fast stop() returns


@dataclass(frozen=True)
class Rejection:
    """A request the receiver did not record: its status and why."""

    status: int
    reason: str
    path: str


class _Refusal(Exception):
    """Internal: answer ``status`` with ``reason``."""

    def __init__(self, status: int, reason: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.headers = headers or {}


class OrderApiReceiver:
    """The order API's fulfillment callback endpoint, running in a background thread."""

    def __init__(
        self,
        secret: str = DEFAULT_SECRET,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.secret = secret
        self.clock = clock
        self._host, self._port = host, port
        self._lock = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._failures: list[tuple[int, dict[str, str]]] = []
        self._delays: list[float] = []
        self._keys: set[str] = set()
        self.accepted: list[tuple[httpx.Headers, dict[str, Any]]] = []
        self.rejected: list[Rejection] = []
        self.requests = 0

    # --- lifecycle ------------------------------------------------------------------------------

    def start(self) -> OrderApiReceiver:
        """Start listening (on the same port as before after a stop)."""
        if self._server is not None:
            return self
        server = ThreadingHTTPServer((self._host, self._port), self._handler_class())
        server.daemon_threads = True
        server.block_on_close = False
        self._port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and close the socket: connections are refused until ``start``."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> OrderApiReceiver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """Base URL to configure as ``FILM_ORDER_API_URL``."""
        return f"http://{self._host}:{self._port}"

    # --- failure modes --------------------------------------------------------------------------

    def fail_next(self, n: int = 1, status: int = 503, retry_after: str | None = None) -> None:
        """Answer the next ``n`` requests with ``status`` (and ``Retry-After`` when given)."""
        headers = {"Retry-After": retry_after} if retry_after else {}
        with self._lock:
            self._failures.extend([(status, headers)] * n)

    def delay_next(self, n: int = 1, seconds: float = 1.0) -> None:
        """Stall the next ``n`` requests for ``seconds`` before handling them."""
        with self._lock:
            self._delays.extend([seconds] * n)

    def refuse_connections(self) -> None:
        """Simulate an outage: close the listening socket."""
        self.stop()

    def accept_connections(self) -> None:
        """End the outage: listen again on the same port."""
        self.start()

    @contextlib.contextmanager
    def outage(self) -> Iterator[None]:
        """Refuse connections for the duration of the block."""
        self.refuse_connections()
        try:
            yield
        finally:
            self.accept_connections()

    # --- observation ----------------------------------------------------------------------------

    def wait_for_accepted(self, count: int = 1, timeout_s: float = 30.0) -> list[dict[str, Any]]:
        """Block until ``count`` outcomes are recorded; return their bodies."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.accepted) >= count, timeout_s):
                raise TimeoutError(f"{len(self.accepted)} of {count} outcomes after {timeout_s}s")
            return [body for _headers, body in self.accepted]

    def bodies(self) -> list[dict[str, Any]]:
        """The recorded outcome bodies, in arrival order."""
        with self._lock:
            return [body for _headers, body in self.accepted]

    # --- request handling -----------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                receiver._serve(self)

            def do_GET(self) -> None:
                receiver._serve(self)

            def log_message(self, format: str, *args: Any) -> None:
                """Silent: never print request bodies or headers."""

        return Handler

    def _serve(self, request: BaseHTTPRequestHandler) -> None:
        try:
            status, payload = self._handle(request)
            extra: dict[str, str] = {}
        except _Refusal as refusal:
            with self._lock:
                self.rejected.append(Rejection(refusal.status, refusal.reason, request.path))
            status, payload, extra = refusal.status, {"error": refusal.reason}, refusal.headers
        self._respond(request, status, payload, extra)

    def _handle(self, request: BaseHTTPRequestHandler) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests += 1
            delay = self._delays.pop(0) if self._delays else 0.0
            failure = self._failures.pop(0) if self._failures else None
        if delay:
            time.sleep(delay)
        if failure is not None:
            raise _Refusal(failure[0], "injected_failure", failure[1])
        match = PATH_PATTERN.match(request.path)
        if match is None:
            raise _Refusal(404, "not_found")
        if request.command != "POST":
            raise _Refusal(405, "method_not_allowed")
        body = self._read_body(request)
        self._verify(request, body)
        outcome = self._parse(request, body, match["gift_id"])
        return self._record(request, outcome)

    @staticmethod
    def _read_body(request: BaseHTTPRequestHandler) -> bytes:
        length = request.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise _Refusal(411, "length_required")
        if int(length) > MAX_BODY_BYTES:
            raise _Refusal(413, "body_too_large")
        return request.rfile.read(int(length))

    def _verify(self, request: BaseHTTPRequestHandler, body: bytes) -> None:
        timestamp = request.headers.get(TIMESTAMP_HEADER, "")
        signature = request.headers.get(SIGNATURE_HEADER, "")
        if not verify_signature(self.secret, timestamp, signature, body, now=self.clock()):
            raise _Refusal(401, "invalid_signature")

    @staticmethod
    def _parse(request: BaseHTTPRequestHandler, body: bytes, gift_id: str) -> FilmOutcome:
        if not (request.headers.get("Content-Type") or "").startswith("application/json"):
            raise _Refusal(415, "unsupported_media_type")
        try:
            outcome = FilmOutcome.model_validate_json(body)
        except ValidationError as exc:
            invalid_json = any(err["type"] == "json_invalid" for err in exc.errors())
            raise _Refusal(400 if invalid_json else 422, "invalid_body") from exc
        key = request.headers.get(IDEMPOTENCY_HEADER)
        if not key:
            raise _Refusal(400, "missing_idempotency_key")
        if key != outcome.workflow_id or key != workflow_id(gift_id, outcome.attempt):
            raise _Refusal(422, "workflow_id_mismatch")
        return outcome

    def _record(
        self, request: BaseHTTPRequestHandler, outcome: FilmOutcome
    ) -> tuple[int, dict[str, Any]]:
        key = outcome.workflow_id
        with self._lock:
            if key in self._keys:
                raise _Refusal(409, "already_recorded")
            self._keys.add(key)
            headers = httpx.Headers(list(request.headers.items()))
            self.accepted.append((headers, outcome.model_dump(mode="json", exclude_none=True)))
            self._lock.notify_all()
        return 200, {"recorded": key}

    @staticmethod
    def _respond(
        request: BaseHTTPRequestHandler,
        status: int,
        payload: dict[str, Any],
        headers: dict[str, str],
    ) -> None:
        data = json.dumps(payload).encode()
        with contextlib.suppress(ConnectionError):  # the client gave up (e.g. its timeout)
            request.send_response(status)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                request.send_header(name, value)
            request.end_headers()
            request.wfile.write(data)
