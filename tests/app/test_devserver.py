"""The embedded dev server keeps stdout for the CLI's result (``--json``): its banner and logs
go to stderr."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BANNER = "Temporal Server:"
BANNER_WAIT_S = 120.0  # the server prints it after it answers: seconds on a busy host
# Runs the server until a line arrives on stdin (the test sends it once the banner is out), then
# ends as the CLI's commands do (exit_now): the SDK's runtime threads can abort a finalizing
# interpreter (temporalio/sdk-python#300; 1 run in 8 here without it).
RUN_SERVER_UNTIL_TOLD = """
import asyncio, sys
from app.cli import exit_now
from app.devserver import start_embedded_server

async def main():
    env = await start_embedded_server()
    await asyncio.to_thread(sys.stdin.readline)
    await env.shutdown()

asyncio.run(main())
exit_now(0)
"""


class _Collected:
    """The lines of one stream, read in a thread; ``seen`` is set once ``BANNER`` came."""

    def __init__(self, stream: object, seen: threading.Event) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream, seen), daemon=True)
        self._thread.start()

    def _read(self, stream: object, seen: threading.Event) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.append(line)
            if BANNER in line:
                seen.set()

    def text(self) -> str:
        self._thread.join(timeout=30)
        return "".join(self.lines)


@pytest.mark.e2e
def test_the_embedded_servers_banner_goes_to_stderr_not_stdout() -> None:
    server = subprocess.Popen([sys.executable, "-c", RUN_SERVER_UNTIL_TOLD], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    seen = threading.Event()
    out, err = _Collected(server.stdout, seen), _Collected(server.stderr, seen)
    try:
        banner_came = seen.wait(BANNER_WAIT_S)  # on either stream: waited for, never guessed
    finally:
        with contextlib.suppress(BrokenPipeError):  # told to stop (unless it already ended)
            assert server.stdin is not None
            server.stdin.write("\n")
            server.stdin.close()
        try:
            code = server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert banner_came, f"no banner in {BANNER_WAIT_S:g} s: {err.text()[-2000:]}"
    assert code == 0
    assert out.text() == ""
    assert BANNER in err.text()
