"""What the fake services over real HTTP share: a server on 127.0.0.1 answering in a background
thread, and whole answers (with a length, or chunked) written by a request handler."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self

CHUNK_BYTES = 1 << 16


class BackgroundServer:
    """A ``server_class`` on 127.0.0.1 (an ephemeral port) serving ``handler`` in a daemon
    thread while used as a context manager; ``url`` is its base URL."""

    def __init__(self, handler: type[BaseHTTPRequestHandler],
                 server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer) -> None:
        self._server = server_class(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        """Base URL of the service."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def send_body(handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str,
              headers: dict[str, str] | None = None, *, chunked: bool = False) -> None:
    """Answer ``status`` with ``body``: with its Content-Length, or ``chunked`` without one."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    if not chunked:
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
        return
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for start in range(0, len(body), CHUNK_BYTES):
        chunk = body[start:start + CHUNK_BYTES]
        handler.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    handler.wfile.write(b"0\r\n\r\n")


def send_json(handler: BaseHTTPRequestHandler, status: int, data: object,
              headers: dict[str, str] | None = None) -> None:
    """Answer ``status`` with ``data`` as JSON."""
    send_body(handler, status, json.dumps(data).encode(), "application/json", headers)
