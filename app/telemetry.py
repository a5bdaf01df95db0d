"""What the worker process tells ops: Prometheus metrics, OpenTelemetry tracing, structured
logs (the stage interceptor and log formatter themselves are in :mod:`activities.observe`)."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from temporalio import activity, workflow
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig

from activities.observe import STAGE_SECONDS, StructuredFormatter
from services.settings import Settings

# Stage attempts last from milliseconds (gate) to an hour (the worst render).
METRIC_BUCKETS = {STAGE_SECONDS: [0.1, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600]}


def make_runtime(settings: Settings) -> Runtime | None:
    """A Temporal runtime exporting Prometheus metrics on ``FILM_METRICS_BIND`` (None: off)."""
    if not settings.metrics_bind:
        return None
    prometheus = PrometheusConfig(bind_address=settings.metrics_bind,
                                  durations_as_seconds=True,
                                  histogram_bucket_overrides=METRIC_BUCKETS)
    return Runtime(telemetry=TelemetryConfig(metrics=prometheus))


def tracing_interceptors(settings: Settings) -> list[Any]:
    """OpenTelemetry tracing of clients and workers when ``FILM_OTEL=1`` (the ``otel`` extra).

    Spans go to the global tracer provider; if nothing configured one, spans are printed to
    stderr by the OpenTelemetry SDK's console exporter.
    """
    if not settings.otel:
        return []
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
        from temporalio.contrib.opentelemetry import TracingInterceptor
    except ImportError as error:
        raise SystemExit("FILM_OTEL=1 needs the otel extra: pip install 'filmworker[otel]'") \
            from error
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
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
