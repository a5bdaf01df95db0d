"""The processes this one started, found and ended together: an interrupted local run must not
leave its dev server or an ffmpeg (each in a process group of its own) running.

Read from ``/proc`` on Linux, else from ``ps`` (macOS)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

PROC = Path("/proc")


def parents() -> dict[int, int]:
    """Every live process's parent: ``{pid: ppid}``."""
    if PROC.is_dir():
        table = {}
        for entry in PROC.iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    # after the command's ")" : state, ppid, ...
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                    table[int(entry.name)] = int(fields[1])
        return table
    listed = subprocess.run(["ps", "-A", "-o", "pid=", "-o", "ppid="], capture_output=True,
                            text=True, timeout=10, check=False).stdout
    return {int(pid): int(ppid) for pid, ppid in (line.split() for line in listed.splitlines()
                                                  if len(line.split()) == 2)}


def descendants(pid: int) -> list[int]:
    """The processes below ``pid``: its children, theirs, and so on."""
    table = parents()
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in table.items() if parent in frontier]
        found += children
        frontier = children
    return found


def kill_descendants() -> list[int]:
    """SIGKILL every process below this one, a process group's leader with its whole group
    (ffmpeg runs in a session of its own); the pids it signalled."""
    killed = []
    for pid in descendants(os.getpid()):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    return killed
