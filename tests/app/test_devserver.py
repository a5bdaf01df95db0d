"""The embedded dev server keeps stdout for the CLI's result (``--json``): its banner and logs
go to stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Ends as the CLI's commands do (exit_now): the SDK's runtime threads can abort a finalizing
# interpreter (temporalio/sdk-python#300; 1 run in 8 here without it).
RUN_SERVER_A_WHILE = """
import asyncio
from app.cli import exit_now
from app.devserver import start_embedded_server

async def main():
    env = await start_embedded_server()
    await asyncio.sleep(1.5)  # the banner comes a moment after the server answers
    await env.shutdown()

asyncio.run(main())
exit_now(0)
"""


@pytest.mark.e2e
def test_the_embedded_servers_banner_goes_to_stderr_not_stdout() -> None:
    done = subprocess.run([sys.executable, "-c", RUN_SERVER_A_WHILE], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout == ""
    assert "Temporal Server:" in done.stderr
