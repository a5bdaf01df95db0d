"""``filmworker codec-server``: the Temporal UI's remote codec endpoint, so authorised ops can
read encrypted payloads in the browser (the keys never leave this process).

The UI's contract (and the ``temporal`` CLI's ``--codec-endpoint``): ``POST {endpoint}/decode``
and ``POST {endpoint}/encode`` with a JSON body ``{"payloads": [{"metadata": {...base64...},
"data": "base64"}]}`` (the proto3 JSON of ``temporal.api.common.v1.Payloads``; ``{}`` is no
payload at all, as the CLI sends a query without arguments), answered in the same shape; the
browser calls it cross-origin, so the UI's origin gets CORS headers (preflight included) and the
``X-Namespace`` header is allowed. ``*`` among the origins allows any other origin without
credentials (``Access-Control-Allow-Origin: *``, no cookies: only a bearer token opens it); a
listed origin is echoed with credentials allowed. With tokens configured, requests need
``Authorization: Bearer <token>`` (the UI forwards the signed-in user's access token when "pass
access token" is set; the CLI sends ``--codec-auth``). ``GET /health`` answers
``{"status": "ok"}`` without a token (no data, for probes).

A Starlette app on uvicorn, built to hold against a client that is not authorised:

- the token is checked on the headers, before one byte of the body is read; a refused request
  is answered at once and its connection closed (``Connection: close``), so its body is never
  buffered;
- a body is at most :data:`MAX_BODY_BYTES` (``Content-Length`` checked first, a chunked body
  counted as it streams) and at most :data:`MAX_PAYLOADS` payloads; uvicorn's h11 parser
  answers 400 to a negative or non-numeric ``Content-Length``;
- timeouts: request headers within :data:`HEADER_TIMEOUT_S` of the connection (or of the last
  response), the body within :data:`BODY_TIMEOUT_S`, idle keep-alive connections closed after
  :data:`KEEP_ALIVE_S`;
- bounded work: at most :data:`MAX_CONCURRENT_CODINGS` bodies are read and coded at once (the
  rest wait up to :data:`QUEUE_WAIT_S`, then 503);
- at most :data:`MAX_CONNECTIONS` connections: a new one beyond them closes the connection that
  has waited longest without a request (a client that opened it and sent nothing, or an idle
  keep-alive), so connections that send nothing cannot keep an authorised request out;
- base64 is strict (standard alphabet, padding, nothing else): ``"!!!"`` is refused;
- one audit line per ``/decode`` and ``/encode`` (namespace, token subject, payload count,
  result; never the data).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hmac
import json
import logging
import socket
from collections.abc import Callable, Mapping, Sequence

import uvicorn
from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from temporalio.api.common.v1 import Payload, Payloads
from uvicorn.protocols.http.h11_impl import H11Protocol

from workflows.codec import AesGcmCodec

log = logging.getLogger("filmworker.codec")
audit = logging.getLogger("filmworker.codec.audit")

MAX_BODY_BYTES = 16 << 20  # a whole history's payloads at most
MAX_PAYLOADS = 10_000
HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 30.0
KEEP_ALIVE_S = 5
MAX_CONCURRENT_CODINGS = 2
QUEUE_WAIT_S = 10.0
MAX_CONNECTIONS = 256
ANY_ORIGIN = "*"
ALLOWED_METHODS = "POST, OPTIONS"
ALLOWED_HEADERS = "Content-Type, X-Namespace, Authorization"
DEFAULT_SUBJECT = "ops"
"""The audit subject of ``FILM_CODEC_TOKEN`` (named tokens: ``FILM_CODEC_TOKENS``)."""
OPEN_SUBJECT = "anonymous"
"""The audit subject when no token is configured (the server is open, or behind a proxy)."""


class BadPayloads(ValueError):
    """The body is not ``{"payloads": [...]}`` with strict base64 (never says what it held)."""


def parse_tokens(token: str | None, named: str | None) -> dict[str, str]:
    """``{token: subject}`` from ``FILM_CODEC_TOKEN`` (subject ``ops``) and
    ``FILM_CODEC_TOKENS`` (``subject:token,subject2:token2``)."""
    tokens: dict[str, str] = {}
    if token:
        tokens[token] = DEFAULT_SUBJECT
    for entry in filter(None, (part.strip() for part in (named or "").split(","))):
        subject, sep, value = entry.partition(":")
        if not sep or not subject or not value:
            raise ValueError("FILM_CODEC_TOKENS: entries are subject:token")
        tokens[value] = subject
    return tokens


def _strict_b64(value: object) -> bytes:
    if not isinstance(value, str):
        raise BadPayloads("base64 fields are strings")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as error:
        raise BadPayloads("not base64") from error


def parse_payloads(body: bytes) -> list[Payload]:
    """The payloads of the UI's JSON body, base64 checked strictly."""
    try:
        document = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise BadPayloads("not JSON") from error
    if not isinstance(document, dict):
        raise BadPayloads("not a JSON object")
    items = document.get("payloads") or []  # proto3 JSON leaves an empty list out: {}
    if not isinstance(items, list) or len(items) > MAX_PAYLOADS:
        raise BadPayloads("no payloads list, or too many")
    payloads = []
    for item in items:
        if not isinstance(item, dict) or set(item) - {"metadata", "data"}:
            raise BadPayloads("a payload is {metadata, data}")
        metadata = item.get("metadata", {})
        if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
            raise BadPayloads("metadata is an object")
        payloads.append(Payload(metadata={k: _strict_b64(v) for k, v in metadata.items()},
                                data=_strict_b64(item.get("data", ""))))
    return payloads


def _encode_json(payloads: list[Payload]) -> bytes:
    return json_format.MessageToJson(Payloads(payloads=payloads), indent=None).encode()


class _Refused(Exception):
    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status, self.error = status, error


def codec_app(codec: AesGcmCodec, *, origins: Sequence[str] = ("http://localhost:8233",),
              tokens: Mapping[str, str] | None = None) -> Starlette:
    """The codec endpoint as an ASGI app (see the module); ``tokens`` maps token -> subject,
    empty or None: no token required."""
    allowed = tuple(origins)
    tokens = dict(tokens or {})
    operations: dict[str, Callable[[Payload], Payload]] = {"encode": codec.seal,
                                                           "decode": codec.open}
    codings = asyncio.Semaphore(MAX_CONCURRENT_CODINGS)

    def cors(request: Request) -> dict[str, str]:
        origin = request.headers.get("origin")
        methods = {"Access-Control-Allow-Methods": ALLOWED_METHODS,
                   "Access-Control-Allow-Headers": ALLOWED_HEADERS, "Vary": "Origin"}
        if origin and origin in allowed:
            return {"Access-Control-Allow-Origin": origin,
                    "Access-Control-Allow-Credentials": "true", **methods}
        if origin and ANY_ORIGIN in allowed:  # never with credentials: no cookie opens it
            return {"Access-Control-Allow-Origin": ANY_ORIGIN, **methods}
        return {}

    def subject_of(request: Request) -> str | None:
        if not tokens:
            return OPEN_SUBJECT
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not value:
            return None
        found = None
        for token, subject in tokens.items():  # compare with every token: constant time
            if hmac.compare_digest(value.encode(), token.encode()):
                found = subject
        return found

    async def read_body(request: Request) -> bytes:
        body = bytearray()
        async with asyncio.timeout(BODY_TIMEOUT_S):
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_BODY_BYTES:
                    raise _Refused(413, "body too large")
        return bytes(body)

    async def code(request: Request) -> Response:
        name = request.path_params["operation"]
        operation = operations.get(name)
        headers = cors(request)
        namespace = request.headers.get("x-namespace", "")[:200]
        subject = subject_of(request)
        count = 0
        try:
            if operation is None:
                raise _Refused(404, "not found")
            if subject is None:
                raise _Refused(401, "unauthorized")
            declared = request.headers.get("content-length")
            if declared is not None and int(declared) > MAX_BODY_BYTES:  # h11 checked it
                raise _Refused(413, "body too large")
            try:
                async with asyncio.timeout(QUEUE_WAIT_S):
                    await codings.acquire()
            except TimeoutError as error:
                raise _Refused(503, "busy") from error
            try:
                body = await read_body(request)
                payloads = await asyncio.to_thread(parse_payloads, body)
                count = len(payloads)
                del body
                coded = await asyncio.to_thread(lambda: [operation(p) for p in payloads])
                answer = await asyncio.to_thread(_encode_json, coded)
            finally:
                codings.release()
        except _Refused as refused:
            _audit(name, namespace, subject, count, refused.error)
            return JSONResponse({"error": refused.error}, refused.status,
                                headers={**headers, "Connection": "close"})
        except TimeoutError:
            _audit(name, namespace, subject, count, "body timeout")
            return JSONResponse({"error": "body timeout"}, 408,
                                headers={**headers, "Connection": "close"})
        except ClientDisconnect:
            _audit(name, namespace, subject, count, "client gone")
            return Response(status_code=400, headers={"Connection": "close"})
        except BadPayloads:
            _audit(name, namespace, subject, count, "bad payloads")
            return JSONResponse({"error": "bad payloads"}, 400, headers=headers)
        except Exception as error:  # wrong key material: never echo payload bytes back
            _audit(name, namespace, subject, count, f"cannot {name}: {type(error).__name__}")
            return JSONResponse({"error": f"cannot {name}"}, 400, headers=headers)
        _audit(name, namespace, subject, count, "ok")
        return Response(answer, 200, headers=headers, media_type="application/json")

    async def preflight(request: Request) -> Response:
        return Response(status_code=204, headers=cors(request))

    async def health(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    return Starlette(routes=[
        Route("/health", health, methods=["GET"]),
        Route("/{prefix:path}/{operation}", code, methods=["POST"]),
        Route("/{operation}", code, methods=["POST"]),
        Route("/{rest:path}", preflight, methods=["OPTIONS"]),
    ])


def _audit(operation: str, namespace: str, subject: str | None, count: int,
           result: str) -> None:
    """One line per coding request: who, where, how many; never the data."""
    audit.info("codec %s", operation, extra={
        "operation": operation, "namespace": namespace, "subject": subject or "(refused)",
        "payloads": count, "result": result})


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request headers have not arrived
    within :data:`HEADER_TIMEOUT_S` of the connection or of the last response (uvicorn itself
    only times out an idle keep-alive connection, not one that dribbles its headers), and
    keeping at most :data:`MAX_CONNECTIONS` open: a connection beyond them closes the one that
    has waited longest for a request (uvicorn's ``limit_concurrency`` would answer 503 to every
    request, authorised ones included, while idle connections hold the places)."""

    _header_timer: asyncio.TimerHandle | None = None
    _waiting_since = 0.0
    """When this connection started waiting for a request (loop time)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._waiting_since = self.loop.time()
        self._arm_header_timer()
        self._make_room()

    def _waiting_for_a_request(self) -> bool:
        return (self.cycle is None or self.cycle.response_complete) and \
            not self.transport.is_closing()

    def _make_room(self) -> None:
        """Past :data:`MAX_CONNECTIONS`, close the connection that has waited longest for a
        request; this one if every other is serving one."""
        open_connections = [c for c in self.connections if not c.transport.is_closing()]
        if len(open_connections) <= MAX_CONNECTIONS:
            return
        waiting = [c for c in open_connections if isinstance(c, GuardedH11Protocol)
                   and c is not self and c._waiting_for_a_request()]
        oldest = min(waiting, key=lambda c: c._waiting_since, default=self)
        oldest.transport.close()

    def _arm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        waiting_after = self.cycle
        self._header_timer = self.loop.call_later(
            HEADER_TIMEOUT_S, self._header_timeout, waiting_after)

    def _header_timeout(self, waiting_after: object) -> None:
        if self.cycle is waiting_after and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._waiting_since = self.loop.time()
            self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        super().connection_lost(exc)


class CodecServer:
    """The codec app on uvicorn, bound to its socket (``port`` is known before serving)."""

    def __init__(self, app: Starlette, host: str, port: int) -> None:
        self.socket = socket.create_server((host, port), reuse_port=False)
        self.port: int = self.socket.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(
            app, http=GuardedH11Protocol, lifespan="off", log_config=None,
            access_log=False, timeout_keep_alive=KEEP_ALIVE_S, server_header=False))

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` (or SIGINT/SIGTERM in the main thread)."""
        self.server.run(sockets=[self.socket])

    def shutdown(self) -> None:
        """Ask the serving thread to stop; the socket closes with it."""
        self.server.should_exit = True

    def server_close(self) -> None:
        with contextlib.suppress(OSError):
            self.socket.close()


def codec_server(codec: AesGcmCodec, *, host: str = "127.0.0.1", port: int = 8081,
                 origins: Sequence[str] = ("http://localhost:8233",),
                 token: str | None = None,
                 tokens: Mapping[str, str] | None = None) -> CodecServer:
    """A bound (not yet serving) codec server; call ``serve_forever()``. ``token`` is
    ``FILM_CODEC_TOKEN`` (subject ``ops``), ``tokens`` more of them by subject's token."""
    all_tokens = {**({token: DEFAULT_SUBJECT} if token else {}), **(tokens or {})}
    return CodecServer(codec_app(codec, origins=origins, tokens=all_tokens), host, port)

