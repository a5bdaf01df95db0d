"""A throwaway certificate authority (``cryptography``) and a TLS-terminating proxy on loopback
in front of the dev server, which speaks plaintext only: the client side is real TLS (mutual,
when asked), the gRPC bytes pass through untouched.

Usage::

    pki = ThrowawayPki.create(tmp_path)
    with TlsProxy(pki, "127.0.0.1", dev_server_port, require_client_cert=True) as proxy:
        ...  # TEMPORAL_ADDRESS=proxy.address, TEMPORAL_TLS_* = pki's files
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

SERVER_NAME = "temporal.test"


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> Path:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                       serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return path


def _issue(ca_key: ec.EllipticCurvePrivateKey, ca_name: x509.Name, subject: str,
           usage: x509.ObjectIdentifier, sans: list[x509.GeneralName]
           ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(ca_name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


@dataclass(frozen=True)
class ThrowawayPki:
    """PEM files of a CA, a server certificate for :data:`SERVER_NAME` and 127.0.0.1, and a
    client certificate, all signed by the CA."""

    ca_cert: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path

    @classmethod
    def create(cls, directory: Path) -> ThrowawayPki:
        """Generate the CA and both certificates into ``directory``."""
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = _name("filmworker test CA")
        now = datetime.datetime.now(datetime.UTC)
        ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
              .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(minutes=5))
              .not_valid_after(now + datetime.timedelta(days=1))
              .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
              .add_extension(x509.KeyUsage(False, False, False, False, False, True, True,
                                           False, False), critical=True)
              .sign(ca_key, hashes.SHA256()))
        server, server_key = _issue(ca_key, ca_name, SERVER_NAME, ExtendedKeyUsageOID.SERVER_AUTH,
                                    [x509.DNSName(SERVER_NAME),
                                     x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
        client, client_key = _issue(ca_key, ca_name, "filmworker", ExtendedKeyUsageOID.CLIENT_AUTH,
                                    [])
        pem = serialization.Encoding.PEM
        (directory / "ca.pem").write_bytes(ca.public_bytes(pem))
        (directory / "server.pem").write_bytes(server.public_bytes(pem))
        (directory / "client.pem").write_bytes(client.public_bytes(pem))
        return cls(ca_cert=directory / "ca.pem", server_cert=directory / "server.pem",
                   server_key=_write_key(directory / "server.key", server_key),
                   client_cert=directory / "client.pem",
                   client_key=_write_key(directory / "client.key", client_key))

    def server_context(self, *, require_client_cert: bool) -> ssl.SSLContext:
        """The proxy's TLS: HTTP/2 by ALPN (gRPC), client certificates from our CA if asked."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.server_cert, self.server_key)
        context.set_alpn_protocols(["h2"])
        if require_client_cert:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(self.ca_cert)
        return context


class TlsProxy:
    """TLS on ``127.0.0.1:<free port>``, plaintext to ``target_host:target_port``; counts the
    completed handshakes (``handshakes``)."""

    def __init__(self, pki: ThrowawayPki, target_host: str, target_port: int, *,
                 require_client_cert: bool = True) -> None:
        self.target = (target_host, target_port)
        self.context = pki.server_context(require_client_cert=require_client_cert)
        self.port = 0
        self.handshakes = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    @property
    def address(self) -> str:
        """``host:port`` for ``TEMPORAL_ADDRESS``."""
        return f"127.0.0.1:{self.port}"

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while chunk := await reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        with contextlib.suppress(Exception):
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.handshakes += 1
        target_reader, target_writer = await asyncio.open_connection(*self.target)
        await asyncio.gather(self._pipe(reader, target_writer), self._pipe(target_reader, writer))

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.context)
        self.port = self._server.sockets[0].getsockname()[1]

    def __enter__(self) -> TlsProxy:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
