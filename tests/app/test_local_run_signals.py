"""``filmworker render`` stopped as a person or a supervisor stops it: Ctrl-C (SIGINT to the
terminal's whole process group, the dev server included) or SIGTERM to the process, mid-render
with ffmpeg running. It ends within seconds, says one line (the run, where its files are), exits
130 or 143 and leaves no process behind: every process that inherited its environment's tag
(the dev server, ffmpeg, even re-parented) is gone."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from app.cli import ExitCode
from app.local_run import SIGNAL_EXIT_BASE
from app.process_tree import descendants
from tests.processes import REPO, TAG_VARIABLE, filmworker_argv

FIXTURE_ORDER = REPO / "tests" / "fixtures" / "order"
PROGRESS_LINE = re.compile(r"^\S+: +\d+% ")
"""What the progress view prints off a terminal: ``order:  45% running   render ...``."""
END_WITHIN_S = 5.0


def tagged_processes(tag: str) -> dict[int, str]:
    """Live processes (not zombies) whose environment carries ``tag``, by pid: their names."""
    marker = f"{TAG_VARIABLE}={tag}".encode()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z" and marker in (entry / "environ").read_bytes().split(b"\0"):
                found[int(entry.name)] = (entry / "comm").read_text().strip()
        except OSError:
            continue
    return found


def standard_order(tmp_path: Path) -> Path:
    """The fixture order (its photos and clips) as a 30 s standard film."""
    folder = shutil.copytree(FIXTURE_ORDER, tmp_path / "order")
    fields = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    fields.update(tier="standard", length_sec=30)
    (folder / "order.json").write_text(json.dumps(fields), encoding="utf-8")
    return folder


class Lines(threading.Thread):
    """Collects a pipe's lines as they come."""

    def __init__(self, stream: object) -> None:
        super().__init__(daemon=True)
        self.stream, self.lines = stream, []

    def run(self) -> None:
        for line in self.stream:  # type: ignore[attr-defined]
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not any(re.search(pattern, line) for line in self.lines):
            assert time.monotonic() < deadline, f"no {pattern!r} in:\n" + "\n".join(self.lines)
            time.sleep(0.2)


def test_exit_statuses_of_signals_are_the_shells() -> None:
    assert ExitCode.INTERRUPTED == SIGNAL_EXIT_BASE + signal.SIGINT == 130
    assert ExitCode.TERMINATED == SIGNAL_EXIT_BASE + signal.SIGTERM == 143


def test_the_processes_below_one_are_found_children_and_grandchildren() -> None:
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30; wait"])
    try:
        deadline = time.monotonic() + 10
        while len(found := descendants(shell.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(found) == 2
    finally:
        for pid in [*descendants(shell.pid), shell.pid]:
            os.kill(pid, signal.SIGKILL)
        shell.wait(timeout=10)


@pytest.mark.timeout(900)
@pytest.mark.parametrize(("signum", "whole_group", "status"), [
    (signal.SIGTERM, False, ExitCode.TERMINATED),
    (signal.SIGINT, True, ExitCode.INTERRUPTED),
], ids=["sigterm", "ctrl-c"])
def test_a_signal_ends_a_local_render_in_seconds_with_one_line_and_nothing_left_running(
    tmp_path: Path, signum: signal.Signals, whole_group: bool, status: ExitCode,
) -> None:
    tag = uuid.uuid4().hex
    out = tmp_path / "out"
    render = subprocess.Popen(
        filmworker_argv("render", str(standard_order(tmp_path)), "--out", str(out), "--no-ui"),
        env={**os.environ, TAG_VARIABLE: tag}, cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    said = Lines(render.stderr)
    said.start()
    try:
        said.wait_for(r"running\s+render", timeout_s=600)
        deadline = time.monotonic() + 120
        while "ffmpeg" not in tagged_processes(tag).values():
            assert time.monotonic() < deadline, tagged_processes(tag)
            time.sleep(0.1)
        before = tagged_processes(tag)
        heard = len(said.lines)
        sent = time.monotonic()
        if whole_group:  # a terminal's Ctrl-C: the render and its dev server get SIGINT
            os.killpg(render.pid, signum)
        else:
            render.send_signal(signum)
        code = render.wait(timeout=60)
        ended_s = time.monotonic() - sent
        said.join(timeout=10)
        time.sleep(1.0)
        left = tagged_processes(tag)
    finally:
        if render.poll() is None:
            os.killpg(render.pid, signal.SIGKILL)
        for pid in tagged_processes(tag):
            os.kill(pid, signal.SIGKILL)
    after = [line for line in said.lines[heard:] if not PROGRESS_LINE.match(line)]
    print(f"{signal.Signals(signum).name}: exit {code} {ended_s:.2f} s after the signal; "
          f"running before: {sorted(before.values())}; said: {after}")
    assert code == status
    assert ended_s < END_WITHIN_S
    assert left == {}, f"left running: {left}"
    [line] = after
    assert re.fullmatch(
        rf"filmworker: interrupted by {signal.Signals(signum).name}: run film-(\w+)-1 of \S+ "
        rf"stopped; its files are in {re.escape(str(out))}/\.storage/orders/\1/runs/1", line)
    assert said.lines[-1] == line
    assert not any("\x1b[" in text for text in said.lines), "no coloured retry lines"
