"""Customer images (photos, brand logos) are decoded in a child process with CPU, memory and
wall-clock limits.

A picture's bytes can cost far more than their size: a 4 MB progressive JPEG of tens of
thousands of scans costs minutes of CPU, a 430 KB 16-bit PNG a gigabyte of pixels.
:func:`prepare_photo_bounded` runs :func:`media.intake.photos.prepare_photo` (and judges the
working copy showable, :mod:`media.intake.usable`), and
:func:`prepare_logo_bounded` runs :func:`media.intake.logo.prepare_logo`, in
``python -m media.intake.sandbox KIND SRC DEST`` through :mod:`media.base.runner` (own process
group,
``RLIMIT_AS``, ``RLIMIT_CPU``, ``RLIMIT_FSIZE``, a wall-clock timeout), so the worker process
never decodes customer bytes itself and what exceeds the limits is refused as
``image_decode_limit``.

Prep decodes an order's photos through a :class:`PhotoSandbox` instead: a decode server
(``python -m media.intake.sandbox serve``, started through the runner under the same limits)
imports numpy and Pillow once, then forks one grandchild a photo, which lowers its own
``RLIMIT_AS``, ``RLIMIT_CPU`` (its CPU count starts at zero at the fork) and ``RLIMIT_FSIZE`` to
the photo's limits before it opens the file; the server kills it past the photo's wall-clock
timeout, and the worker kills the server's process group (grandchild included) when an answer
is late. The same code decodes the same photo, so the results are byte for byte those of a child
of its own, without an interpreter start and the imports (about 0.15 CPU-s) a photo.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import signal
import sys
import threading
import time
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from media.base import errors
from media.base.errors import MediaRejected
from media.base.runner import (
    Limits,
    ToolError,
    ToolProcess,
    ToolTimeoutError,
    cpu_seconds,
    run_tool,
)

if TYPE_CHECKING:  # numpy and Pillow load in the child only after its thread settings
    from media.intake.logo import LogoInfo
    from media.intake.photos import PhotoInfo

PHOTO_DECODE_TIMEOUT_S = 60.0
"""Wall seconds one photo may take in its child (a 50 Mpx photo takes 2-3 s of CPU; the rest is
room for a busy machine)."""
PHOTO_DECODE_CPU_S = 20
"""CPU seconds one photo may take (SIGXCPU past it)."""
PHOTO_DECODE_ADDRESS_SPACE_BYTES = 1536 * 1024**2
"""Address space of the child (bytes): the interpreter, Pillow and numpy (about 400 MB mapped,
little of it resident) plus the largest photo accepted (50 Mpx) decoded and converted."""
PHOTO_OUTPUT_FILE_BYTES = 64 * 1024**2
"""Largest file the child may write (the working JPEG: 4096 px at quality 92 is ~10 MB)."""
PHOTO_LIMITS = Limits(timeout_s=PHOTO_DECODE_TIMEOUT_S, cpu_s=PHOTO_DECODE_CPU_S,
                      address_space_bytes=PHOTO_DECODE_ADDRESS_SPACE_BYTES,
                      output_file_bytes=PHOTO_OUTPUT_FILE_BYTES)
LOGO_DECODE_TIMEOUT_S = 30.0
"""Wall seconds the brand logo may take in its child (a 16 Mpx logo takes under 1 s of CPU)."""
LOGO_DECODE_CPU_S = 10
"""CPU seconds the logo may take."""
LOGO_DECODE_ADDRESS_SPACE_BYTES = 1024 * 1024**2
"""Address space of the logo's child: the interpreter (about 400 MB mapped) plus the largest
logo accepted (:data:`media.intake.logo.LOGO_MAX_PIXELS`, RGBA) decoded, converted and trimmed."""
LOGO_OUTPUT_FILE_BYTES = 16 * 1024**2
"""Largest file the logo's child may write (the RGBA PNG, 1024 px long edge: a few MB)."""
LOGO_LIMITS = Limits(timeout_s=LOGO_DECODE_TIMEOUT_S, cpu_s=LOGO_DECODE_CPU_S,
                     address_space_bytes=LOGO_DECODE_ADDRESS_SPACE_BYTES,
                     output_file_bytes=LOGO_OUTPUT_FILE_BYTES)
SERVER_ANSWER_MARGIN_S = 10.0
"""Wall seconds the worker waits for a decode server's answer past the photo's own timeout (the
server kills a grandchild at the timeout itself); past them the server is taken for lost."""
SERVER_CPU_S = 60
"""CPU seconds a decode server may take itself: its interpreter and imports (about 0.1 s) and a
fork a photo (a few milliseconds); each photo's grandchild counts its own from zero."""
ANSWER_TAIL_BYTES = 64 * 1024
"""Bytes of a grandchild's stdout and of its stderr the server keeps (the tail of each)."""
MAX_ANSWER_LINE_BYTES = 16 * ANSWER_TAIL_BYTES
"""Longest outcome line a server may write (both tails, JSON-escaped); past it, it is lost."""
PHOTO = "photo"
LOGO = "logo"
SERVE = "serve"
_SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
_LIMIT_SIGNALS = frozenset({-signal.SIGXCPU, -signal.SIGKILL, -signal.SIGSEGV,
                            -signal.SIGABRT, -signal.SIGBUS})
"""How a child dies of its limits: CPU (SIGXCPU), or an allocation the address-space limit
refused inside C code (segfault or abort)."""


def prepare_photo_bounded(src: Path, dest_jpeg: Path, limits: Limits = PHOTO_LIMITS
                          ) -> PhotoInfo:
    """:func:`media.intake.photos.prepare_photo` in a child process under ``limits`` (flat
    borders cut away: ``trimmed_from``), the working copy then judged showable there
    (:func:`media.intake.usable.prepare_usable_photo`).

    Raises :class:`MediaRejected` for the customer's file (its own reasons, those of a photo
    that cannot be shown such as ``image_blank``, or ``image_decode_limit`` when the child ran
    out of time, CPU or memory); a child that fails any other way (a bug, a missing file) is our
    fault and raises :class:`ToolError`.
    """
    return _photo_info(_bounded(PHOTO, src, dest_jpeg, limits))


def prepare_logo_bounded(src: Path, dest_png: Path, limits: Limits = LOGO_LIMITS) -> LogoInfo:
    """:func:`media.intake.logo.prepare_logo` in a child process under ``limits``: the brand logo is
    customer bytes like a photo and is never decoded in the worker process.

    Raises :class:`MediaRejected` as :func:`prepare_photo_bounded` does (the logo's own
    reasons, such as ``svg_refused`` or ``image_too_large``, or ``image_decode_limit``).
    """
    from media.intake.logo import LogoInfo

    return LogoInfo(**_bounded(LOGO, src, dest_png, limits))


def _photo_info(info: dict[str, Any]) -> PhotoInfo:
    from media.intake.photos import PhotoInfo

    if info.get("trimmed_from") is not None:
        info["trimmed_from"] = tuple(info["trimmed_from"])
    return PhotoInfo(**info)


def _bounded(kind: str, src: Path, dest: Path, limits: Limits) -> dict[str, Any]:
    """Run the child for ``kind`` on ``src``; the info fields it answered."""
    argv = [sys.executable, "-m", "media.intake.sandbox", kind, str(src), str(dest)]
    try:
        result = run_tool(argv, limits)
    except ToolTimeoutError as exc:
        raise _timed_out(limits) from exc
    except ToolError as exc:
        raise _refusal_or_fault(exc) from exc
    return _parse_answer(result.stdout)


def _timed_out(limits: Limits) -> MediaRejected:
    return MediaRejected(errors.IMAGE_DECODE_LIMIT, f"not decoded in {limits.timeout_s:.0f} s")


def _refusal_or_fault(failure: ToolError) -> Exception:
    """A failed child's exception: ``image_decode_limit`` when its limits ended it (a signal,
    a MemoryError), else the failure itself (a fault of ours)."""
    if failure.returncode in _LIMIT_SIGNALS or "MemoryError" in failure.stderr_tail:
        return MediaRejected(errors.IMAGE_DECODE_LIMIT,
                             f"child ended by signal {failure.returncode}")
    return failure


def _parse_answer(stdout: bytes) -> dict[str, Any]:
    """The child's one JSON line: ``{"info": {...}}`` or ``{"rejected": [reason, detail]}``."""
    answer = json.loads(stdout.decode("utf-8").strip().splitlines()[-1])
    if "rejected" in answer:
        reason, detail = answer["rejected"]
        raise MediaRejected(str(reason), str(detail))
    info: dict[str, Any] = answer["info"]
    return info


def _child(kind: str, src: str, dest: str) -> int:
    """In the child: prepare the photo or logo, print the answer as one JSON line."""
    # imported here, after the thread settings
    if kind == PHOTO:
        from media.intake.usable import prepare_usable_photo as prepare
    elif kind == LOGO:
        from media.intake.logo import prepare_logo as prepare
    else:
        print(f"unknown kind {kind!r}", file=sys.stderr)
        return 2
    try:
        info = prepare(Path(src), Path(dest))
    except MediaRejected as rejection:
        print(json.dumps({"rejected": [rejection.reason, rejection.detail[:300]]}))
        return 0
    print(json.dumps({"info": asdict(info)}))
    return 0


class _ServerLost(RuntimeError):
    """A decode server did not answer: it died, or it was late past its margin."""


class PhotoSandbox:
    """Photos prepared as :func:`prepare_photo_bounded` prepares them, each in a grandchild
    forked from a decode server that imported numpy and Pillow once (see the module's
    docstring). Safe from several threads: each call borrows an idle server or starts one, so
    a prep's two threads start two interpreters in all, not one a photo. A photo whose server
    is lost is prepared again in a child of its own; the next photo gets a new server. Use it
    as a context manager: leaving it kills every server's process group, and a call still at
    work then raises :class:`RuntimeError`."""

    def __init__(self, limits: Limits = PHOTO_LIMITS) -> None:
        self.limits = limits
        self._idle: list[_DecodeServer] = []
        self._live: set[_DecodeServer] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.servers_started = 0
        """How many servers this sandbox started (for tests and benches)."""

    def __enter__(self) -> PhotoSandbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def prepare(self, src: Path, dest_jpeg: Path) -> PhotoInfo:
        """:func:`prepare_photo_bounded` of ``src`` into ``dest_jpeg`` under :attr:`limits`,
        raising as it does."""
        server = self._borrow()
        try:
            outcome = server.decode(PHOTO, src, dest_jpeg, self.limits)
        except _ServerLost as lost:
            self._discard(server)
            if self._closed:  # closed under this call: a cancelled prep
                raise RuntimeError("photo sandbox closed") from lost
            return prepare_photo_bounded(src, dest_jpeg, self.limits)
        except BaseException:  # a cancellation raised into this thread among them
            self._discard(server)
            raise
        self._give_back(server)
        return _photo_info(_judged(outcome, self.limits))

    def server_pids(self) -> list[int]:
        """The process ids (each its group's id too) of the servers alive, idle or at work."""
        with self._lock:
            return [server.pid for server in self._live]

    def close(self) -> None:
        """Kill every server (idle or not) and reap it; later calls start none."""
        with self._lock:
            self._closed, servers = True, list(self._live)
            self._idle.clear()
            self._live.clear()
        for server in servers:
            server.kill()

    def _borrow(self) -> _DecodeServer:
        with self._lock:
            if self._closed:
                raise RuntimeError("photo sandbox closed")
            if self._idle:
                return self._idle.pop()
            self.servers_started += 1
        server = _DecodeServer(self.limits)
        with self._lock:
            self._live.add(server)
        return server

    def _give_back(self, server: _DecodeServer) -> None:
        with self._lock:
            if not self._closed:
                self._idle.append(server)
                return
        server.kill()

    def _discard(self, server: _DecodeServer) -> None:
        with self._lock:
            self._live.discard(server)
        server.kill()


def _judged(outcome: dict[str, Any], limits: Limits) -> dict[str, Any]:
    """The info fields of a grandchild's outcome, or its refusal or failure raised."""
    if outcome["timed_out"]:
        raise _timed_out(limits)
    if outcome["returncode"] != 0:
        raise _refusal_or_fault(ToolError("photo decode failed", outcome["returncode"],
                                          outcome["stderr"]))
    return _parse_answer(outcome["stdout"].encode("utf-8"))


def _server_limits(limits: Limits) -> Limits:
    """The server's own limits: the photo's memory and file size (a grandchild only lowers what
    it inherits), :data:`SERVER_CPU_S` of its own CPU. Its wall clock is each answer's."""
    return Limits(timeout_s=limits.timeout_s, cpu_s=max(SERVER_CPU_S, cpu_seconds(limits)),
                  address_space_bytes=limits.address_space_bytes,
                  output_file_bytes=limits.output_file_bytes)


class _DecodeServer:
    """One ``python -m media.intake.sandbox serve``: a request line in, an outcome line out."""

    def __init__(self, limits: Limits) -> None:
        argv = [sys.executable, "-m", "media.intake.sandbox", SERVE]
        self._process = ToolProcess(argv, _server_limits(limits), stdin=True, on_progress=None,
                                    stdout_stream=True)
        self._pending = bytearray()

    @property
    def pid(self) -> int:
        """The server's process id, also its process group's."""
        return self._process.pid

    def decode(self, kind: str, src: Path, dest: Path, limits: Limits) -> dict[str, Any]:
        """The outcome of one grandchild on ``src`` under ``limits``: ``returncode``,
        ``timed_out``, ``stdout`` and ``stderr`` (their tails). Raises :class:`_ServerLost`."""
        request = {"kind": kind, "src": str(src), "dest": str(dest),
                   "timeout_s": limits.timeout_s, "cpu_s": cpu_seconds(limits),
                   "address_space_bytes": limits.address_space_bytes,
                   "output_file_bytes": limits.output_file_bytes}
        try:
            self._process.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            self._process.stdin.flush()
        except OSError as exc:  # BrokenPipeError: the server is gone
            raise _ServerLost(f"server not listening: {exc}") from exc
        line = self._read_line(time.monotonic() + limits.timeout_s + SERVER_ANSWER_MARGIN_S)
        try:
            outcome: dict[str, Any] = json.loads(line)
        except ValueError as exc:
            raise _ServerLost(f"server answered {line[:200]!r}") from exc
        return outcome

    def _read_line(self, deadline: float) -> bytes:
        fd = self._process.stdout.fileno()
        poller = select.poll()  # not select(): a busy worker's descriptors may pass 1024
        poller.register(fd, select.POLLIN)
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _ServerLost("server answered late")
            if not poller.poll(left * 1000):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise _ServerLost("server exited")
            self._pending += chunk
            if len(self._pending) > MAX_ANSWER_LINE_BYTES:
                raise _ServerLost("server answered too much")
        line, _, rest = bytes(self._pending).partition(b"\n")
        self._pending = bytearray(rest)
        return line

    def kill(self) -> None:
        """Kill the server's process group (a grandchild at work with it) and reap it."""
        # The group outlives a server already dead (its grandchild may still run), and its id
        # is not reused while a member lives.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGKILL)
        self._process.kill()


# --- in the server --------------------------------------------------------------------------


def _serve() -> int:
    """In the server: import what a photo's decode needs once, then answer each request line on
    stdin with its grandchild's outcome line on stdout, until stdin closes."""
    import media.intake.usable  # noqa: F401  (imported once, for every grandchild)

    for line in sys.stdin.buffer:
        outcome = _in_grandchild(json.loads(line))
        sys.stdout.write(json.dumps(outcome) + "\n")
        sys.stdout.flush()
    return 0


def _in_grandchild(request: dict[str, Any]) -> dict[str, Any]:
    """Fork a grandchild for ``request``; its outcome (see :meth:`_DecodeServer.decode`)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        _grandchild(request, out_w, err_w)  # never returns
    os.close(out_w)
    os.close(err_w)
    try:
        return _collect(pid, out_r, err_r, float(request["timeout_s"]))
    finally:
        os.close(out_r)
        os.close(err_r)


def _grandchild(request: dict[str, Any], out_fd: int, err_fd: int) -> None:
    """In the grandchild: stdout and stderr to the server's pipes, the photo's limits on itself
    (before the file is opened), the photo prepared; exits, never returns."""
    code = 1
    try:
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.close(out_fd)
        os.close(err_fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        cpu = int(request["cpu_s"])
        resource.setrlimit(resource.RLIMIT_AS, (int(request["address_space_bytes"]),) * 2)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(request["output_file_bytes"]),) * 2)
        code = _child(request["kind"], request["src"], request["dest"])
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def _collect(pid: int, out_fd: int, err_fd: int, timeout_s: float) -> dict[str, Any]:
    """Read the grandchild's stdout and stderr until it closes them or ``timeout_s`` pass (then
    kill it); reap it. Its outcome."""
    deadline = time.monotonic() + timeout_s
    tails = {out_fd: bytearray(), err_fd: bytearray()}
    open_fds = [out_fd, err_fd]
    while open_fds and time.monotonic() < deadline:
        for fd in select.select(open_fds, [], [], max(0.0, deadline - time.monotonic()))[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                open_fds.remove(fd)
            tails[fd] += chunk
            del tails[fd][:-ANSWER_TAIL_BYTES]
    timed_out = bool(open_fds) or not _exited_by(pid, deadline)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    returncode = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return {"returncode": returncode, "timed_out": timed_out,
            "stdout": tails[out_fd].decode("utf-8", "replace"),
            "stderr": tails[err_fd].decode("utf-8", "replace")}


def _exited_by(pid: int, deadline: float) -> bool:
    """Whether the grandchild ``pid`` (its pipes closed) has exited by ``deadline``; not
    reaped."""
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.002)
    return True


if __name__ == "__main__":
    # The child's own process setup, not a setting read: its BLAS libraries take their thread
    # counts from its environment when numpy loads, so one thread keeps it inside its limits.
    os.environ.update(_SINGLE_THREADED)
    if sys.argv[1:2] == [SERVE]:
        sys.exit(_serve())
    sys.exit(_child(*sys.argv[1:4]))
