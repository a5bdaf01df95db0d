"""Helpers shared by the test modules (pytest-free): test modules import from here, or from the
servers and builders beside it (``tests/stages.py``, ``tests/processes.py``, ``tests/receiver.py``,
``tests/s3.py``, ``tests/media/lavfi.py``...), never from one another."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from media.base.runner import ToolPaths, use_tools


@contextlib.contextmanager
def tools_at(paths: ToolPaths) -> Iterator[None]:
    """media/ runs the ffmpeg and ffprobe at ``paths`` for the duration of the block."""
    previous = use_tools(paths)
    try:
        yield
    finally:
        use_tools(previous)
