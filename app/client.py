"""The Temporal client of every command: ``TEMPORAL_ADDRESS``, the pydantic data converter,
tracing when ``FILM_OTEL=1``."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import Runtime

from app.telemetry import tracing_interceptors
from services.settings import Settings


async def connect(settings: Settings, runtime: Runtime | None = None) -> Client:
    """A client for ``TEMPORAL_ADDRESS`` with the pydantic data converter (and tracing)."""
    return await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace,
                                data_converter=pydantic_data_converter, runtime=runtime,
                                interceptors=tracing_interceptors(settings))
