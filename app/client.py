"""The Temporal client of every command: where and how to connect from ``temporalio.envconfig``
(a profile of ``temporal.toml``, overridden by ``TEMPORAL_ADDRESS``, ``TEMPORAL_NAMESPACE``,
``TEMPORAL_API_KEY``, ``TEMPORAL_TLS_*``), the pydantic data converter with the settings'
payload codec (``FILM_PAYLOAD_KEYS``), tracing when ``FILM_OTEL=1``."""

from __future__ import annotations

import re
from typing import Any

from temporalio.client import Client
from temporalio.envconfig import ClientConfigProfile, ClientConnectConfig
from temporalio.runtime import Runtime

from app.telemetry import tracing_interceptors
from services.settings import Settings
from workflows.codec import film_data_converter

DEFAULT_ADDRESS = "localhost:7233"
DEFAULT_NAMESPACE = "default"


def connect_config(settings: Settings) -> ClientConnectConfig:
    """Target, namespace, API key, TLS and gRPC metadata of the configured profile
    (``TEMPORAL_PROFILE``, default ``default``; ``TEMPORAL_CONFIG_FILE`` or the usual
    ``temporal.toml``), the environment over it; explicit ``Settings`` values win."""
    try:
        config = ClientConfigProfile.load().to_client_connect_config()
    except Exception as error:  # the SDK's ConfigError: no such profile, unreadable file
        raise TemporalConfigError(f"Temporal connection profile: {error}") from error
    if settings.temporal_address:
        config["target_host"] = settings.temporal_address
    if settings.temporal_namespace:
        config["namespace"] = settings.temporal_namespace
    config.setdefault("target_host", DEFAULT_ADDRESS)
    config.setdefault("namespace", DEFAULT_NAMESPACE)
    return config


def target_address(settings: Settings) -> str:
    """``host:port`` of the configured server, for messages (no secrets)."""
    try:
        return connect_config(settings)["target_host"]
    except Exception:  # a broken profile file: connect() says what is wrong with it
        return settings.temporal_address or DEFAULT_ADDRESS


class TemporalConfigError(ValueError):
    """The connection profile cannot be loaded (``TEMPORAL_PROFILE`` names no profile of the
    config file, or ``TEMPORAL_CONFIG_FILE`` is unreadable): one line, for the command line."""


class TemporalUnreachable(ConnectionError):
    """The configured Temporal server did not answer (one line, for the command line)."""


def _short_reason(error: Exception) -> str:
    """The useful part of the SDK's connection error (``Connection refused``, TLS...)."""
    text = str(error)
    found = re.search(r'message: "([^"]+)"', text)
    return found.group(1) if found else text.removeprefix("Failed client connect: ")[:200]


async def connect(settings: Settings, runtime: Runtime | None = None) -> Client:
    """A client for the configured server with the film data converter (and tracing).
    Raises :class:`TemporalUnreachable` when the server cannot be reached."""
    options: dict[str, Any] = dict(connect_config(settings))
    try:
        return await Client.connect(**options,
                                    data_converter=film_data_converter(settings.payload_codec()),
                                    runtime=runtime, interceptors=tracing_interceptors(settings))
    except RuntimeError as error:
        if not str(error).startswith("Failed client connect"):
            raise
        raise TemporalUnreachable(
            f"cannot reach Temporal at {options['target_host']}: {_short_reason(error)}"
        ) from error
