"""``filmworker codec-server``: the Temporal UI's remote codec endpoint, so authorised ops can
read encrypted payloads in the browser (the keys never leave this process).

The UI's contract: ``POST {endpoint}/decode`` and ``POST {endpoint}/encode`` with a JSON body
``{"payloads": [{"metadata": {...base64...}, "data": "base64"}]}`` (the proto3 JSON of
``temporal.api.common.v1.Payloads``), answered in the same shape; the browser calls it
cross-origin, so the UI's origin gets CORS headers (preflight included) and the ``X-Namespace``
header is allowed. With a token configured, requests need ``Authorization: Bearer <token>``
(the UI forwards the signed-in user's access token when "pass access token" is set).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from temporalio.api.common.v1 import Payload, Payloads

from workflows.codec import AesGcmCodec, CodecKeyError

log = logging.getLogger("filmworker.codec")
MAX_BODY_BYTES = 16 << 20  # a whole history's payloads at most
ALLOWED_HEADERS = "Content-Type, X-Namespace, Authorization"


def _handler_class(codec: AesGcmCodec, origins: Sequence[str],
                   token: str | None) -> type[BaseHTTPRequestHandler]:
    operations: dict[str, Callable[[Payload], Payload]] = {"encode": codec.seal,
                                                           "decode": codec.open}

    class CodecHandler(BaseHTTPRequestHandler):
        """``/encode`` and ``/decode`` (under any path prefix), CORS preflight."""

        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            log.debug(format, *args)

        def _cors(self) -> None:
            origin = self.headers.get("Origin")
            if origin and (origin in origins or "*" in origins):
                self.send_header("Access-Control-Allow-Origin", origin)
                self.send_header("Access-Control-Allow-Credentials", "true")
                self.send_header("Access-Control-Allow-Methods", "POST, OPTIONS")
                self.send_header("Access-Control-Allow-Headers", ALLOWED_HEADERS)
                self.send_header("Vary", "Origin")

        def _reply(self, status: HTTPStatus, body: bytes = b"",
                   content_type: str = "application/json") -> None:
            self.send_response(status)
            self._cors()
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_OPTIONS(self) -> None:
            self._reply(HTTPStatus.NO_CONTENT)

        def _authorised(self) -> bool:
            if token is None:
                return True
            given = self.headers.get("Authorization", "")
            return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())

        def do_POST(self) -> None:
            operation = operations.get(self.path.split("?")[0].rstrip("/").rsplit("/", 1)[-1])
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(min(length, MAX_BODY_BYTES + 1))
            if operation is None:
                return self._reply(HTTPStatus.NOT_FOUND, b'{"error":"not found"}')
            if not self._authorised():
                return self._reply(HTTPStatus.UNAUTHORIZED, b'{"error":"unauthorized"}')
            if length > MAX_BODY_BYTES:
                return self._reply(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
            try:
                payloads = json_format.Parse(body, Payloads())
                result = Payloads(payloads=[operation(p) for p in payloads.payloads])
            except (json_format.ParseError, CodecKeyError, ValueError) as error:
                log.warning("codec request refused: %s", type(error).__name__)
                return self._reply(HTTPStatus.BAD_REQUEST, b'{"error":"bad payloads"}')
            except Exception as error:  # wrong key material: never echo payload bytes back
                log.warning("codec request failed: %s", type(error).__name__)
                return self._reply(HTTPStatus.BAD_REQUEST, b'{"error":"cannot decode"}')
            self._reply(HTTPStatus.OK, json_format.MessageToJson(result).encode())
            return None

    return CodecHandler


def codec_server(codec: AesGcmCodec, *, host: str = "127.0.0.1", port: int = 8081,
                 origins: Sequence[str] = ("http://localhost:8233",),
                 token: str | None = None) -> ThreadingHTTPServer:
    """A bound (not yet serving) codec server; call ``serve_forever()``."""
    return ThreadingHTTPServer((host, port), _handler_class(codec, tuple(origins), token))
