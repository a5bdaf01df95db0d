"""Measuring blocks of work: wall and CPU seconds (this process and its reaped children) and
peak resident memory, plus a description of the machine the figures were taken on."""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

KIB_PER_MIB = 1024


@dataclass(frozen=True)
class Usage:
    """A snapshot of ``getrusage`` for this process and for its waited-for children."""

    wall: float
    self_cpu: float
    children_cpu: float
    self_maxrss_mib: float
    children_maxrss_mib: float

    @classmethod
    def now(cls) -> Usage:
        """The current snapshot (``ru_maxrss`` is KiB on Linux)."""
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return cls(time.perf_counter(), me.ru_utime + me.ru_stime,
                   kids.ru_utime + kids.ru_stime, me.ru_maxrss / KIB_PER_MIB,
                   kids.ru_maxrss / KIB_PER_MIB)


def _status_kib(pid: int | str, field_name: str) -> int:
    """A ``/proc/PID/status`` memory field in KiB (0 if the process is gone)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    return 0


def _pss_kib(pid: int | str) -> int:
    """Proportional set size in KiB (shared pages split between their sharers; 0 if gone)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="ascii").splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def _comm(pid: int | str) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/comm").read_text(encoding="ascii").strip()
    return ""


def _parts(me: int, rss: dict[int, float]) -> dict[str, float]:
    """``rss`` (pid -> MiB) by process: ``python`` for ``me``, else the command's name and the
    base name of its last argument (its output), numbered when several share one."""
    parts: dict[str, float] = {}
    for pid, mib in rss.items():
        label = "python"
        if pid != me:
            with contextlib.suppress(OSError):
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                last = next((a for a in reversed(argv) if a), b"").decode(errors="replace")
                label = f"{_comm(pid)} {Path(last).name}"
        name, n = label, 1
        while name in parts:
            n += 1
            name = f"{label} #{n}"
        parts[name] = round(mib, 1)
    return parts


def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (Linux ``/proc/PID/task/TID/children``)."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for children in Path(f"/proc/{parent}/task").glob("*/children"):
            with contextlib.suppress(OSError, ValueError):
                kids = [int(k) for k in children.read_text(encoding="ascii").split()]
                found += kids
                todo += kids
    return found


class RssSampler:
    """Samples the resident memory of this process and its descendants (ffmpeg) in a thread.

    ``ru_maxrss`` of RUSAGE_CHILDREN cannot tell ffmpeg's own peak on Linux: a child spawned
    from a big Python process is charged the parent's RSS at fork time. So this also records
    what ``getrusage`` cannot: the peak of the whole tree (this process plus all descendants
    alive at once, summed) and the largest single descendant's high-water mark (``VmHWM``,
    which restarts at exec). Sampling every ``interval_s`` can miss a spike shorter than that.

    Summed RSS counts pages shared between processes once per sharer, so the tree's PSS
    (proportional set size: the physical memory the tree really holds) is kept too. A child
    caught between fork and exec still shows its parent's pages and is left out.

    Sampling is not free: reading a 900 MB process's ``smaps_rollup`` walks its page tables
    (~5 ms a sample, ~4 CPU-s over a 60 s film's render). ``cpu_s`` adds it up, so that
    :func:`measure` can keep it out of the measured work's CPU.
    """

    def __init__(self, interval_s: float = 0.2) -> None:
        self.interval_s = interval_s
        self.peak_tree_mib = 0.0
        self.peak_child_mib = 0.0
        self.peak_tree_pss_mib = 0.0
        self.cpu_s = 0.0
        self._window_tree_mib = 0.0
        self._window_child_mib = 0.0
        self._window_pss_mib = 0.0
        self._window_parts: dict[str, float] = {}
        self.window_parts: dict[str, float] = {}
        """RSS (MiB) of each process at the tree's peak in the window :meth:`window` closed
        last: ``python`` (this process) and each descendant by its command and output (an
        encoder ``ffmpeg 16x9.mp4``, a clip decoder ``ffmpeg pipe:1``)."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rss-sampler", daemon=True)

    def sample(self) -> None:
        """Take one sample now (its CPU time is added to :attr:`cpu_s`)."""
        started = time.thread_time()
        me = os.getpid()
        mine = _comm(me)
        kids = [k for k in _descendants(me) if _comm(k) != mine]
        rss = {k: _status_kib(k, "VmRSS") / 1024 for k in [me, *kids]}
        tree = sum(rss.values())
        pss = (_pss_kib(me) + sum(_pss_kib(k) for k in kids)) / 1024
        child = max((_status_kib(k, "VmHWM") for k in kids), default=0) / 1024
        with self._lock:
            if tree > self._window_tree_mib:  # who held the memory at the window's peak
                self._window_parts = _parts(me, rss)
            self.peak_tree_mib = max(self.peak_tree_mib, tree)
            self.peak_child_mib = max(self.peak_child_mib, child)
            self.peak_tree_pss_mib = max(self.peak_tree_pss_mib, pss)
            self._window_tree_mib = max(self._window_tree_mib, tree)
            self._window_child_mib = max(self._window_child_mib, child)
            self._window_pss_mib = max(self._window_pss_mib, pss)
            self.cpu_s += time.thread_time() - started

    def window(self) -> tuple[float, float, float]:
        """Peaks (tree RSS MiB, largest child MiB, tree PSS MiB) since the previous call;
        starts a new window."""
        self.sample()
        with self._lock:
            peaks = (self._window_tree_mib, self._window_child_mib, self._window_pss_mib)
            self._window_tree_mib = self._window_child_mib = self._window_pss_mib = 0.0
            self.window_parts, self._window_parts = self._window_parts, {}
        return peaks

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def __enter__(self) -> RssSampler:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sample()


@dataclass
class Measured:
    """What one block of work cost: wall seconds, CPU seconds of this process and of the child
    processes that ended during the block (ffmpeg), and memory.

    ``maxrss_*`` are the ``getrusage`` high-water marks after the block (process-wide: they
    never go down; the children's figure includes the Python parent's size at fork, see
    :class:`RssSampler`). ``peak_tree_mib`` / ``peak_child_mib`` are the sampled peaks during
    the block when a sampler was given: this process plus its descendants (RSS summed, and
    PSS, which counts shared pages once), and the largest single descendant.
    """

    wall_s: float = 0.0
    cpu_self_s: float = 0.0
    cpu_children_s: float = 0.0
    maxrss_self_mib: float = 0.0
    maxrss_children_mib: float = 0.0
    peak_tree_mib: float | None = None
    peak_child_mib: float | None = None
    peak_tree_pss_mib: float | None = None
    peak_parts: dict[str, float] = field(default_factory=dict)
    """RSS (MiB) per process at the sampled tree peak (see :attr:`RssSampler.window_parts`)."""
    sampler_cpu_s: float = 0.0
    """CPU seconds the memory sampler spent during the block, not counted in ``cpu_self_s``."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def cpu_s(self) -> float:
        """CPU seconds including children."""
        return self.cpu_self_s + self.cpu_children_s

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (with ``cpu_s``)."""
        return {**asdict(self), "cpu_s": self.cpu_s}


@contextlib.contextmanager
def measure(sampler: RssSampler | None = None) -> Iterator[Measured]:
    """Measure the block; the yielded :class:`Measured` is filled in when the block ends."""
    result = Measured()
    if sampler is not None:
        sampler.window()
    sampler_before = sampler.cpu_s if sampler is not None else 0.0
    before = Usage.now()
    try:
        yield result
    finally:
        after = Usage.now()
        result.wall_s = after.wall - before.wall
        result.cpu_self_s = after.self_cpu - before.self_cpu
        result.cpu_children_s = after.children_cpu - before.children_cpu
        result.maxrss_self_mib = after.self_maxrss_mib
        result.maxrss_children_mib = after.children_maxrss_mib
        if sampler is not None:
            (result.peak_tree_mib, result.peak_child_mib,
             result.peak_tree_pss_mib) = sampler.window()
            result.peak_parts = sampler.window_parts
            result.sampler_cpu_s = sampler.cpu_s - sampler_before
            result.cpu_self_s -= result.sampler_cpu_s


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def _ffmpeg_version() -> str:
    from media.base.runner import tool_path

    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run([tool_path("ffmpeg"), "-hide_banner", "-version"],
                             capture_output=True, text=True, timeout=30, check=False).stdout
        return " ".join(out.split()[:3]) if out else "unknown"
    return "unknown"


def _memory_gib() -> float | None:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024**2, 1)
    return None


def machine() -> dict[str, Any]:
    """Cores (total and usable by this process), CPU model, memory, load, tool versions."""
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu_count": os.cpu_count(),
        "cpus_usable": affinity,
        "cpu_model": _cpu_model(),
        "memory_gib": _memory_gib(),
        "loadavg_start": list(os.getloadavg()),
        "python": sys.version.split()[0],
        "ffmpeg": _ffmpeg_version(),
        "platform": platform.platform(),
    }


def moviepy_version() -> str | None:
    """The installed MoviePy version, or None when the ``bench`` extra is not installed."""
    from importlib import metadata

    try:
        return metadata.version("moviepy")
    except metadata.PackageNotFoundError:
        return None
