"""Observability of the worker: stage metrics and structured, customer-text-free logs.

- :class:`StageObserver` is a worker interceptor: every activity logs ``stage started`` and
  ``stage finished`` lines carrying gift id, workflow id, stage, activity and attempt, and
  records ``film_stage_seconds`` (by stage and result; the render stage's plan, segments and
  join all count as ``render``, Temporal's own ``activity_type`` label tells them apart) and,
  for a render or a render segment, ``film_render_fps`` through ``activity.metric_meter()``
  (exported wherever the worker's runtime sends metrics).
- :class:`StructuredFormatter` writes one JSON object (or logfmt ``key=value`` line, both
  rendered by structlog) per record with the Temporal context the SDK loggers attach, and masks
  configured secrets.

Logs carry ids, stage names, reason codes and exception types only: never the order's names,
memories or notes, and never a secret. Exception messages of our own errors hold no customer text.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any

from structlog.processors import (
    EventRenamer,
    JSONRenderer,
    LogfmtRenderer,
    TimeStamper,
    format_exc_info,
)
from structlog.stdlib import ProcessorFormatter, add_log_level, add_logger_name
from structlog.typing import EventDict
from temporalio import activity
from temporalio.exceptions import ApplicationError, CancelledError
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

from media.base.spec import FPS
from workflows.stages import HOLD_ERROR_TYPE, ActivityName, stage_of

log = logging.getLogger("filmworker.stage")

STAGE_SECONDS = "film_stage_seconds"
RENDER_FPS = "film_render_fps"
RENDERING_ACTIVITIES = frozenset({ActivityName.RENDER_SEGMENT, ActivityName.RENDER_FILM})
"""Activities that compose and encode frames (their results give the render's speed)."""
_WORKFLOW_ID = re.compile(r"^film-(?P<gift_id>[A-Za-z0-9_-]+)-(?P<attempt>\d+)$")
# What the SDK's loggers append to a message when it also goes into the record's fields.
_APPENDED_CONTEXT = re.compile(r" \(\{'[a-z_]+': .*\}\)$", re.DOTALL)
# Fields copied from the SDK's ``temporal_activity`` / ``temporal_workflow`` extras.
_CONTEXT_FIELDS = ("workflow_id", "run_id", "workflow_run_id", "activity_type", "attempt",
                   "task_queue")
_RECORD_FIELDS = ("gift_id", "workflow_id", "run_id", "stage", "activity", "attempt",
                  "task_queue", "state",
                  "reason", "result", "duration_s", "fps", "error_type",
                  "refused", "operation", "namespace", "subject", "payloads")


def _gift_id(arg: Any) -> str | None:
    """The gift id of an activity input (an order, a stage, render part or report input)."""
    for candidate in (arg, getattr(arg, "order", None),
                      getattr(getattr(arg, "render", None), "order", None)):
        gift_id = getattr(candidate, "gift_id", None)
        if isinstance(gift_id, str):
            return gift_id
    return None


def _result_of(error: BaseException) -> str:
    """``held``, ``cancelled`` or ``error``: how an activity attempt ended, for metrics."""
    if isinstance(error, ApplicationError) and error.type == HOLD_ERROR_TYPE:
        return "held"
    if isinstance(error, asyncio.CancelledError | CancelledError):
        return "cancelled"
    return "error"


class _StageInbound(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        info = activity.info()
        stage = stage_of(info.activity_type)
        fields = {"gift_id": _gift_id(input.args[0]) if input.args else None, "stage": stage,
                  "activity": info.activity_type, "workflow_id": info.workflow_id,
                  "run_id": info.workflow_run_id, "attempt": info.attempt,
                  "task_queue": info.task_queue}
        log.info("stage started", extra=fields)
        started = time.monotonic()
        try:
            result = await self.next.execute_activity(input)
        except BaseException as error:
            outcome = _result_of(error)
            elapsed = time.monotonic() - started
            _record_stage(stage, outcome, elapsed)
            # a hold is the customer's media or policy, not a fault: info, like a success
            level = logging.INFO if outcome == "held" else logging.WARNING
            log.log(level, "stage finished", extra={**fields, "result": outcome,
                                                    "duration_s": round(elapsed, 3),
                                                    "error_type": _error_type(error)})
            raise
        elapsed = time.monotonic() - started
        _record_stage(stage, "ok", elapsed)
        extra: dict[str, Any] = {**fields, "result": "ok", "duration_s": round(elapsed, 3)}
        if info.activity_type in RENDERING_ACTIVITIES and elapsed > 0:
            extra["fps"] = _record_render_fps(result, elapsed)
        log.info("stage finished", extra=extra)
        return result


def _error_type(error: BaseException) -> str:
    """The error's type name (the ApplicationError type when it has one), never its message."""
    if isinstance(error, ApplicationError) and error.type:
        return error.type
    return type(error).__name__


def _record_stage(stage: str, result: str, elapsed_s: float) -> None:
    activity.metric_meter().create_histogram_float(
        STAGE_SECONDS, "Wall seconds of one stage activity attempt", "s"
    ).record(elapsed_s, {"stage": stage, "result": result})


def _record_render_fps(result: Any, elapsed_s: float) -> float | None:
    """Film frames rendered per wall second (both aspects are encoded together): a whole
    render's (its ``duration_sec``) or one segment's (its ``frames``)."""
    frames = getattr(result, "frames", None)
    duration = getattr(result, "duration_sec", None)
    if not isinstance(frames, int):
        if not isinstance(duration, int | float):
            return None
        frames = duration * FPS
    fps = frames / elapsed_s
    activity.metric_meter().create_gauge_float(
        RENDER_FPS, "Film frames rendered per wall second by the last render", "frames/s"
    ).set(fps)
    return round(fps, 2)


class StageObserver(Interceptor):
    """Worker interceptor: stage logs and stage metrics for every activity."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        """Wrap activity execution."""
        return _StageInbound(next)


# --- Log formatting ------------------------------------------------------------------------------


def _context_fields(record: logging.LogRecord) -> dict[str, Any]:
    """Ids the Temporal SDK attached to ``record`` (activity or workflow context)."""
    fields: dict[str, Any] = {}
    for key in ("temporal_activity", "temporal_workflow"):
        context = getattr(record, key, None)
        if isinstance(context, dict):
            fields.update({k: context[k] for k in _CONTEXT_FIELDS if k in context})
    if "workflow_run_id" in fields:
        fields["run_id"] = fields.pop("workflow_run_id")
    if "activity_type" in fields:
        activity_type = fields.pop("activity_type")
        fields.setdefault("stage", stage_of(activity_type))
        fields.setdefault("activity", activity_type)
    match = _WORKFLOW_ID.match(str(fields.get("workflow_id", "")))
    if match:
        fields.setdefault("gift_id", match["gift_id"])
    return fields


def _film_fields(_: Any, __: str, event: EventDict) -> EventDict:
    """The record's film fields: the Temporal ids the SDK attached (its copy appended to the
    message dropped), our extras that are set, the error's type, the traceback as ``exc``."""
    record: logging.LogRecord = event["_record"]
    context = _context_fields(record)
    if context:
        event["event"] = _APPENDED_CONTEXT.sub("", event["event"])
    event.update(context)
    event.update({key: value for key in _RECORD_FIELDS
                  if (value := getattr(record, key, None)) is not None})
    if record.exc_info and record.exc_info[1] is not None:
        event["error_type"] = _error_type(record.exc_info[1])
    if "exception" in event:
        event["exc"] = event.pop("exception")
    return event


class StructuredFormatter(ProcessorFormatter):
    """One line per record, rendered by structlog: a JSON object (``json``) or logfmt
    ``key=value`` pairs (``kv``) with ``ts``, ``level``, ``logger``, ``msg`` and the film's
    fields; any configured secret replaced by ``***``."""

    def __init__(self, style: str = "json", secrets: Iterable[str | None] = ()) -> None:
        renderer = (JSONRenderer(default=str, ensure_ascii=False) if style == "json"
                    else LogfmtRenderer(key_order=["ts", "level", "logger", "msg"]))
        super().__init__(
            foreign_pre_chain=[TimeStamper(fmt="iso", utc=True, key="ts"), add_log_level,
                               add_logger_name, format_exc_info, _film_fields,
                               EventRenamer("msg")],
            processors=[ProcessorFormatter.remove_processors_meta, renderer])
        self.secrets: Sequence[str] = [s for s in secrets if s and len(s) >= 4]

    def format(self, record: logging.LogRecord) -> str:
        """The rendered line, with any configured secret replaced by ``***``."""
        line = super().format(record)
        for secret in self.secrets:
            line = line.replace(secret, "***")
        return line
