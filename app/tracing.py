"""Temporal's OpenTelemetry tracing without a span per progress report (needs the ``otel``
extra; imported only when ``FILM_OTEL=1``).

``TracingInterceptor`` makes a ``SignalWorkflow:`` span where a client sends a signal and a
``HandleSignal:`` span where the workflow takes it. The stage activities signal their percent
(``stage_progress``) every few seconds, so a run's trace was mostly those spans; they are left
untraced here, every other call is traced as before."""

from __future__ import annotations

from temporalio import client, worker
from temporalio.contrib.opentelemetry import TracingInterceptor, TracingWorkflowInboundInterceptor

from workflows.contract import STAGE_PROGRESS_SIGNAL

UNTRACED_SIGNALS = frozenset({STAGE_PROGRESS_SIGNAL})


class _UntracedProgressSignals(client.OutboundInterceptor):
    """Progress signals skip the tracing interceptor (``traced``) and go to ``untraced``."""

    def __init__(self, traced: client.OutboundInterceptor,
                 untraced: client.OutboundInterceptor) -> None:
        super().__init__(traced)
        self._untraced = untraced

    async def signal_workflow(self, input: client.SignalWorkflowInput) -> None:
        if input.signal in UNTRACED_SIGNALS:
            return await self._untraced.signal_workflow(input)
        return await super().signal_workflow(input)


class _WorkflowInbound(TracingWorkflowInboundInterceptor):
    async def handle_signal(self, input: worker.HandleSignalInput) -> None:
        if input.signal in UNTRACED_SIGNALS:
            return await self.next.handle_signal(input)
        return await super().handle_signal(input)


class FilmTracingInterceptor(TracingInterceptor):
    """``TracingInterceptor`` that leaves the progress signals out of the trace."""

    def intercept_client(self, next: client.OutboundInterceptor) -> client.OutboundInterceptor:
        """Trace every client call but the progress signals."""
        return _UntracedProgressSignals(super().intercept_client(next), next)

    def workflow_interceptor_class(
        self, input: worker.WorkflowInterceptorClassInput
    ) -> type[TracingWorkflowInboundInterceptor]:
        """Trace the workflow's handlers but the progress signals'."""
        super().workflow_interceptor_class(input)
        return _WorkflowInbound


