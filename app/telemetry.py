"""What the worker process tells ops: Prometheus metrics, OpenTelemetry tracing, structured
logs (the stage interceptor and log formatter themselves are in :mod:`activities.observe`)."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from temporalio import activity, workflow
from temporalio.runtime import (
    LogForwardingConfig,
    LoggingConfig,
    PrometheusConfig,
    Runtime,
    TelemetryConfig,
    TelemetryFilter,
)

from activities.observe import STAGE_SECONDS, StructuredFormatter
from services.settings import Settings

# Stage attempts last from milliseconds (gate) to an hour (the worst render).
METRIC_BUCKETS = {STAGE_SECONDS: [0.1, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600]}


CORE_LOGGER = "temporalio.core"
"""The Python logger the SDK's Rust core logs through (``temporalio.core.<target>``)."""


def make_runtime(settings: Settings) -> Runtime:
    """The worker's Temporal runtime: the SDK core's own log lines (poll errors, lost
    completions: warnings and errors) forwarded to the Python logger :data:`CORE_LOGGER`, so
    they come out as the same JSON lines as ours instead of ANSI-coloured console text, and
    Prometheus metrics on ``FILM_METRICS_BIND`` when it is set."""
    prometheus = None
    if settings.metrics_bind:
        prometheus = PrometheusConfig(bind_address=settings.metrics_bind,
                                      counters_total_suffix=True, durations_as_seconds=True,
                                      histogram_bucket_overrides=METRIC_BUCKETS)
    core_logs = LoggingConfig(filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
                              forwarding=LogForwardingConfig(
                                  logger=logging.getLogger(CORE_LOGGER)))
    return Runtime(telemetry=TelemetryConfig(logging=core_logs, metrics=prometheus))


OTLP_ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def span_exporter() -> Any:
    """OTLP over HTTP when an ``OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`` is set (the exporter
    reads the other standard ``OTEL_EXPORTER_OTLP_*`` variables itself: headers, timeout,
    compression, certificates), else the console exporter on stderr."""
    if any(os.environ.get(name) for name in OTLP_ENDPOINT_VARIABLES):
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter

    return ConsoleSpanExporter(out=sys.stderr)


def tracing_interceptors(settings: Settings) -> list[Any]:
    """OpenTelemetry tracing of clients and workers when ``FILM_OTEL=1`` (the ``otel`` extra).

    Spans go to the global tracer provider; if nothing configured one, this installs one with
    the standard resource variables (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``) and
    :func:`span_exporter`.
    """
    if not settings.otel:
        return []
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from temporalio.contrib.opentelemetry import TracingInterceptor
    except ImportError as error:
        raise SystemExit("FILM_OTEL=1 needs the otel extra: pip install 'filmworker[otel]'") \
            from error
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        service = os.environ.get("OTEL_SERVICE_NAME") or "filmworker"
        provider = TracerProvider(resource=Resource.create({"service.name": service}))
        provider.add_span_processor(BatchSpanProcessor(span_exporter()))
        trace.set_tracer_provider(provider)
    return [TracingInterceptor()]


def configure_logging(settings: Settings) -> None:
    """Structured logs on stderr (``FILM_LOG_FORMAT`` json or kv), secrets masked; the Temporal
    context goes into fields instead of being appended to each message."""
    handler = logging.StreamHandler(sys.stderr)
    secrets = (settings.order_api_secret, os.environ.get("AWS_SECRET_ACCESS_KEY"))
    handler.setFormatter(StructuredFormatter(settings.log_format, secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    activity.logger.activity_info_on_message = False
    workflow.logger.workflow_info_on_message = False
