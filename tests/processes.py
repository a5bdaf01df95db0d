"""Real ``filmworker`` OS processes for the operations tests (pytest-free).

- :class:`ServerProcess`: ``filmworker server`` (the Temporal dev server) on a free port;
- :class:`WorkerProcess`: ``filmworker worker`` in its own process group, tagged through its
  environment so the ffmpeg processes it spawns can be found in ``/proc`` even after it died;
- :func:`filmworker`: run a short command (``submit``, ``replay``, ``healthcheck``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TAG_VARIABLE = "FILMWORKER_PROCESS_TAG"


def filmworker_argv(*args: str) -> list[str]:
    """The ``filmworker`` console script beside this interpreter (``python -m worker`` if the
    package is not installed)."""
    script = Path(sys.executable).parent / "filmworker"
    if script.is_file():
        return [str(script), *args]
    return [sys.executable, "-m", "worker", *args]


def filmworker(*args: str, env: dict[str, str] | None = None, timeout_s: float = 120
               ) -> subprocess.CompletedProcess[str]:
    """Run one short ``filmworker`` command to completion (``env`` replaces this process's
    environment; None inherits it); capture its output."""
    return subprocess.run(filmworker_argv(*args), env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=timeout_s, check=False)


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout_s: float) -> None:
    """Block until something accepts connections on ``127.0.0.1:port``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {timeout_s}s")


class ServerProcess:
    """``filmworker server --port P --no-ui`` in the foreground of a child process; with
    ``db_file`` it keeps its runs in that SQLite file, so it can be stopped and started again
    on the same port with the same runs (an outage drill)."""

    def __init__(self, log_path: Path, db_file: Path | None = None) -> None:
        self.port = free_port()
        self.log_path = log_path
        self.db_file = db_file
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        """``host:port`` for ``TEMPORAL_ADDRESS``."""
        return f"127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60) -> ServerProcess:
        """Start the server and wait until ``filmworker healthcheck --server-only`` passes."""
        db = ["--db", str(self.db_file)] if self.db_file is not None else []
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                filmworker_argv("server", "--port", str(self.port), "--no-ui", *db), cwd=REPO,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        wait_for_port(self.port, timeout_s)
        env = {**os.environ, "TEMPORAL_ADDRESS": self.address}
        while filmworker("healthcheck", "--server-only", env=env).returncode != 0:
            if time.monotonic() > deadline:
                raise TimeoutError(f"dev server not healthy after {timeout_s}s")
            time.sleep(0.5)
        return self

    def stop(self, *, harsh: bool = False) -> None:
        """SIGTERM, then SIGKILL if it lingers (``harsh``: SIGKILL at once, as a crashed host)."""
        if self.process is not None and self.process.poll() is None:
            if harsh:
                self.process.kill()
            else:
                self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


class WorkerProcess:
    """``filmworker worker`` in its own process group, its output in a log file."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.tag = uuid.uuid4().hex
        self.env = {**env, TAG_VARIABLE: self.tag}
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        """OS process id (also its process group id)."""
        assert self.process is not None
        return self.process.pid

    def start(self) -> WorkerProcess:
        """Start the worker; it logs ``worker started`` once both workers poll."""
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(filmworker_argv("worker"), env=self.env, cwd=REPO,
                                            stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        return self

    def log(self) -> str:
        """Everything the worker printed so far."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_started(self, timeout_s: float = 60) -> None:
        """Block until the worker logged that it started (or fail if it exited)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if "worker started" in self.log():
                return
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"worker exited {self.process.returncode}:\n{self.log()}")
            time.sleep(0.2)
        raise TimeoutError(f"worker did not start in {timeout_s}s:\n{self.log()}")

    def kill_group(self) -> None:
        """SIGKILL the worker's whole process group, as a crashed machine would."""
        os.killpg(self.pid, signal.SIGKILL)
        assert self.process is not None
        self.process.wait(timeout=10)

    def terminate(self, timeout_s: float = 60) -> int:
        """SIGTERM the worker (a graceful drain); return its exit code."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout_s)

    def stop(self) -> None:
        """Make sure the worker and its group are gone (test teardown)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def tagged_processes(tag: str, name: str = "ffmpeg") -> list[int]:
    """Live (non-zombie) processes called ``name`` whose environment carries ``tag``: the
    children of one :class:`WorkerProcess`, even after it died and they were re-parented."""
    marker = f"{TAG_VARIABLE}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != name:
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if state != "Z" and marker in environ:
            found.append(int(entry.name))
    return found


def wait_until_gone(tag: str, timeout_s: float) -> list[int]:
    """Wait for the tagged ffmpeg processes to exit; return those still alive at the end."""
    deadline = time.monotonic() + timeout_s
    while (alive := tagged_processes(tag)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive



def render_fixture_order_with_clips(tmp_path: Path, clips: dict[str, Path],
                                    fixture: Path) -> tuple[subprocess.CompletedProcess[str],
                                                            dict[str, Any]]:
    """``filmworker render`` of the ``fixture`` order folder's photos with ``clips`` (file name in
    the folder -> clip file), a 30 s standard film; the finished process and its outcome."""
    folder = tmp_path / "order"
    (folder / "clips").mkdir(parents=True)
    shutil.copytree(fixture / "photos", folder / "photos")
    for name, clip in clips.items():
        shutil.copy(clip, folder / "clips" / name)
    fields = json.loads((fixture / "order.json").read_text("utf-8"))
    fields.update(tier="standard", length_sec=30)
    (folder / "order.json").write_text(json.dumps(fields), encoding="utf-8")
    out = tmp_path / "out"
    done = filmworker("render", str(folder), "--out", str(out), "--no-ui", timeout_s=840)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done, json.loads((out / "outcome.json").read_text(encoding="utf-8"))
