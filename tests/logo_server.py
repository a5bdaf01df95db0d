"""A real HTTPS server on 127.0.0.1 for logo-fetch tests, with its own throwaway CA.

:func:`make_tls_material` writes a CA and a leaf certificate for ``logo.example.test`` (EC P-256,
fast to make). :class:`LogoServer` serves routes (path -> handler function) over TLS and records
every request it gets (path and Host header), so a test can assert that a refused fetch never
reached it. Handlers that stall wait on :attr:`LogoServer.stopping`, so shutdown is quick.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.fake_http import send_body

LOGO_HOST = "logo.example.test"

Route = Callable[["LogoHandler"], None]


@dataclass(frozen=True)
class TlsMaterial:
    """Paths of the test CA certificate and of the server's certificate chain and key."""

    ca_cert: Path
    server_cert: Path
    server_key: Path


def make_tls_material(folder: Path, hostname: str = LOGO_HOST) -> TlsMaterial:
    """A fresh CA and a leaf certificate for ``hostname`` signed by it, as PEM files."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "logo test CA")])
    ca_cert = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
        .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False,
            encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()),
                       critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf_cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)]))
        .issuer_name(ca_name).public_key(leaf_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]),
                       critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                       critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    material = TlsMaterial(folder / "ca.pem", folder / "server.pem", folder / "server.key")
    material.ca_cert.write_bytes(ca_cert.public_bytes(pem))
    material.server_cert.write_bytes(leaf_cert.public_bytes(pem))
    material.server_key.write_bytes(leaf_key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return material


class LogoHandler(BaseHTTPRequestHandler):
    """Dispatches GET to the server's routes; unknown paths answer 404."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        self.server.owner.record(self.path, self.headers.get("Host", ""))
        route = self.server.owner.routes.get(self.path)
        if route is None:
            self.send_body(404, b"not found", "text/plain")
        else:
            route(self)

    def send_body(self, status: int, body: bytes, content_type: str,
                  headers: dict[str, str] | None = None) -> None:
        """A complete response with Content-Length."""
        send_body(self, status, body, content_type, headers)

    def redirect(self, location: str, status: int = 302) -> None:
        """Answer with a redirect to ``location``."""
        self.send_body(status, b"", "text/plain", {"Location": location})

    def handle(self) -> None:
        with contextlib.suppress(OSError):  # the client hung up on purpose (caps, timeouts)
            super().handle()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: LogoServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Client-side aborts are the point of several tests: stay quiet."""


class LogoServer:
    """HTTPS on 127.0.0.1 (ephemeral port) serving ``routes``; use as a context manager."""

    def __init__(self, tls: TlsMaterial, routes: dict[str, Route] | None = None) -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        self.requests: list[tuple[str, str]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls.server_cert, tls.server_key)
        self._server = _Server(("127.0.0.1", 0), LogoHandler)
        self._server.owner = self
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        """The listening port."""
        return int(self._server.server_address[1])

    def url(self, path: str, host: str = LOGO_HOST) -> str:
        """``https://{host}:{port}{path}``."""
        return f"https://{host}:{self.port}{path}"

    def record(self, path: str, host: str) -> None:
        """Remember one request (thread-safe)."""
        with self._lock:
            self.requests.append((path, host))

    def paths(self) -> list[str]:
        """Paths requested so far, in order."""
        with self._lock:
            return [path for path, _ in self.requests]

    def __enter__(self) -> LogoServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
