"""The logo fetch's transport: an httpcore network backend that dials only the vetted address
(:class:`PinnedBackend`) and streams whose every read, write and TLS handshake ends by one
deadline (:class:`DeadlineStream`). See :mod:`services.logo_fetch` for why the fetch pins."""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable

import httpcore

__all__ = ["DeadlineStream", "PinnedBackend", "clamped_timeout"]


def clamped_timeout(timeout: float | None, deadline: float) -> float:
    """``timeout`` shortened to what is left of the deadline."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise httpcore.ReadTimeout("logo fetch deadline passed")
    return remaining if timeout is None else min(timeout, remaining)


class DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every read, write and TLS handshake ends by the deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, timeout=clamped_timeout(timeout, self._deadline))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout=clamped_timeout(timeout, self._deadline))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        stream = self._inner.start_tls(ssl_context, server_hostname=server_hostname,
                                       timeout=clamped_timeout(timeout, self._deadline))
        return DeadlineStream(stream, self._deadline)

    def get_extra_info(self, info: str) -> object:
        return self._inner.get_extra_info(info)


class PinnedBackend(httpcore.NetworkBackend):
    """Dials only the vetted address, and only on behalf of the vetted hostname."""

    def __init__(self, host: str, address: str, deadline: float) -> None:
        self._host = host
        self._address = address
        self._deadline = deadline
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[object] | None = None) -> httpcore.NetworkStream:
        if host.strip("[]") != self._host:
            raise httpcore.ConnectError(f"refusing to dial unvetted host {host!r}")
        stream = self._inner.connect_tcp(self._address, port,
                                         timeout=clamped_timeout(timeout, self._deadline),
                                         local_address=local_address,
                                         socket_options=socket_options)  # type: ignore[arg-type]
        return DeadlineStream(stream, self._deadline)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[object] | None = None
                            ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are never dialled for a logo")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)
