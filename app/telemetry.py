"""What the worker process tells ops: Prometheus metrics, OpenTelemetry tracing, structured
logs (the stage interceptor and log formatter themselves are in :mod:`activities.observe`)."""

from __future__ import annotations

import logging
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
    Prometheus metrics on ``FILM_METRICS_BIND`` when it is set. Counters carry ``_total``
    (``film_outcomes`` is ``film_outcomes_total``, as Prometheus names counters); every series
    carries ``service_name`` (``OTEL_SERVICE_NAME``, default ``filmworker``) instead of the SDK's
    ``temporal-core-sdk``."""
    prometheus = None
    if settings.metrics_bind:
        prometheus = PrometheusConfig(bind_address=settings.metrics_bind,
                                      counters_total_suffix=True, durations_as_seconds=True,
                                      histogram_bucket_overrides=METRIC_BUCKETS)
    core_logs = LoggingConfig(filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
                              forwarding=LogForwardingConfig(
                                  logger=logging.getLogger(CORE_LOGGER)))
    return Runtime(telemetry=TelemetryConfig(
        logging=core_logs, metrics=prometheus, global_tags={"service_name": settings.service_name},
        attach_service_name=False))


def span_exporter(settings: Settings) -> Any:
    """The OTLP exporter of the standard variables when an
    ``OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`` is set: over gRPC when the protocol variable says
    ``grpc``, else over HTTP (each reads the other ``OTEL_EXPORTER_OTLP_*`` variables itself:
    headers, timeout, compression, certificates). None without an endpoint: spans are not
    exported (never printed into the log stream on stderr)."""
    if settings.otlp_traces_target is None:
        return None
    if settings.otlp_over_grpc:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (
            OTLPSpanExporter as GrpcSpanExporter,
        )

        return GrpcSpanExporter()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def tracing_interceptors(settings: Settings) -> list[Any]:
    """OpenTelemetry tracing of clients and workers when ``FILM_OTEL=1`` (the ``otel`` extra).

    Spans go to the global tracer provider; if nothing configured one, this installs one with
    the standard resource variables (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``) and
    :func:`span_exporter`. The stage activities' progress signals (one every few seconds per
    running activity) are not traced (:class:`app.tracing.FilmTracingInterceptor`).
    """
    if not settings.otel:
        return []
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        from app.tracing import FilmTracingInterceptor
    except ImportError as error:
        raise SystemExit("FILM_OTEL=1 needs the otel extra: pip install 'filmworker[otel]'") \
            from error
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        provider = TracerProvider(
            resource=Resource.create({"service.name": settings.service_name}))
        exporter = span_exporter(settings)
        if exporter is None:
            logging.getLogger("filmworker").warning(
                "FILM_OTEL=1 without OTEL_EXPORTER_OTLP_ENDPOINT: spans are not exported")
        else:
            provider.add_span_processor(BatchSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
    return [FilmTracingInterceptor()]


def configure_logging(settings: Settings) -> None:
    """Structured logs on stderr (``FILM_LOG_FORMAT`` json or kv), secrets masked; the Temporal
    context goes into fields instead of being appended to each message."""
    handler = logging.StreamHandler(sys.stderr)
    secrets = (settings.order_api_secret, settings.aws_secret_access_key)
    handler.setFormatter(StructuredFormatter(settings.log_format, secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    activity.logger.activity_info_on_message = False
    workflow.logger.workflow_info_on_message = False
