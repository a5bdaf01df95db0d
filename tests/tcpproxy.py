"""A tiny TCP proxy on loopback for outage drills (pytest-free).

It forwards every connection to a target (e.g. the moto S3 emulator) and can take the target
"off the network" without losing its state:

- ``cut()`` closes the listening socket and every live connection: clients get resets and then
  refused connections; ``restore()`` listens again on the same port;
- ``cut_when(pattern)`` arms an automatic cut: the first client chunk containing ``pattern``
  (say, the path of one upload) is dropped together with its connection and the proxy stays
  cut until ``restore()`` (or for ``for_s`` seconds when given).

Usage::

    with TcpProxy("127.0.0.1", moto_port) as proxy:
        proxy.cut_when(b"/films/slug/9x16.mp4")
        ...  # point clients at proxy.url; once the outage has been noticed:
        proxy.restore()
        assert proxy.cuts
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass

CHUNK_BYTES = 64 * 1024
ACCEPT_POLL_S = 0.1


@dataclass(frozen=True)
class Cut:
    """One outage: when it started (monotonic seconds) and what triggered it."""

    at: float
    trigger: bytes | None


class TcpProxy:
    """Forwards ``host:port`` (a free port by default) to ``target_host:target_port``."""

    def __init__(self, target_host: str, target_port: int, *, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.target = (target_host, target_port)
        self.host, self.port = host, port
        self.cuts: list[Cut] = []
        self.connections = 0
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._live: set[socket.socket] = set()
        self._trigger: tuple[bytes, float | None] | None = None
        self._closed = False

    # --- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> TcpProxy:
        self.restore()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed = True
        self.cut(record=False)

    @property
    def url(self) -> str:
        """``http://host:port`` of the proxy."""
        return f"http://{self.host}:{self.port}"

    def restore(self) -> None:
        """Listen (again, on the same port) and forward new connections."""
        with self._lock:
            if self._listener is not None or self._closed:
                return
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((self.host, self.port))
            listener.listen(64)
            listener.settimeout(ACCEPT_POLL_S)
            self.port = listener.getsockname()[1]
            self._listener = listener
        threading.Thread(target=self._accept_loop, args=(listener,), daemon=True).start()

    def cut(self, *, trigger: bytes | None = None, record: bool = True) -> None:
        """Close the listener and every live connection: the target is unreachable."""
        with self._lock:
            listener, self._listener = self._listener, None
            live, self._live = self._live, set()
            if record:
                self.cuts.append(Cut(time.monotonic(), trigger))
        for sock in [listener, *live]:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    sock.close()

    def cut_when(self, pattern: bytes, for_s: float | None = None) -> None:
        """Cut as soon as a client sends ``pattern`` (once); restore after ``for_s`` seconds
        when given, else when :meth:`restore` is called."""
        with self._lock:
            self._trigger = (pattern, for_s)

    # --- forwarding -------------------------------------------------------------------------

    def _accept_loop(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:  # closed by cut()
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._live.update({client, upstream})
                self.connections += 1
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False),
                             daemon=True).start()

    def _pump(self, source: socket.socket, dest: socket.socket, from_client: bool) -> None:
        tail = b""
        try:
            source.settimeout(None)
            while chunk := source.recv(CHUNK_BYTES):
                if from_client and self._triggered(tail + chunk):
                    return
                tail = chunk[-256:]
                dest.sendall(chunk)
        except OSError:
            pass
        finally:
            with self._lock:
                self._live.difference_update({source, dest})
            for sock in (source, dest):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    sock.close()

    def _triggered(self, data: bytes) -> bool:
        with self._lock:
            trigger = self._trigger
            if trigger is None or trigger[0] not in data:
                return False
            self._trigger = None
        pattern, for_s = trigger
        self.cut(trigger=pattern)
        if for_s is not None:
            timer = threading.Timer(for_s, self.restore)
            timer.daemon = True
            timer.start()
        return True
