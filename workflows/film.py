"""FilmRender: prep -> gate -> assets -> render -> verify -> deliver, then report the outcome.

Orchestration only: no I/O, no media code. Held runs (customer media or policy) and failed runs
(our faults after retries) are both reported to the order API before the workflow ends.

The media stages run on the media task queue, ``{task_queue}-media``, derived from the run's own
task queue, so heavy work has its own workers and slots and cannot starve orchestration (the
gate and the outcome report stay on the main queue).

The render stage is split over the media workers: ``render_plan`` plans the film and says where
it may be cut and how many workers may render it, the workflow splits it
(:func:`workflows.segments.plan_segments`), renders the segments concurrently and
``render_join`` joins them; a film the plan keeps whole (one render worker, or a short film) is
rendered by ``render_film`` with its soundtrack, nothing to join.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.cleanup import (
        CLEAN_RUN_TIMEOUT,
        FORGET_RUN_FILES_RETRY,
        FORGET_RUN_FILES_SCHEDULE_TO_CLOSE,
        CleanupInput,
    )
    from workflows.codec import (
        CLEAR_METADATA,
        ENCODING,
        UNOPENED_ENCODING,
        UNOPENED_KEY,
        UNOPENED_METADATA,
    )
    from workflows.contract import (
        PROGRESS_QUERY,
        STAGE_PROGRESS_SIGNAL,
        WORKFLOW_TYPE,
        FilmOrder,
        FilmOutcome,
        FilmStage,
        FilmState,
        Progress,
        StageProgress,
    )
    from workflows.intake import (
        ARITY,
        CODEC,
        CODEC_FIELDS,
        PLAIN,
        UNDECODABLE,
        RefusedOrder,
        read_order,
        refuse_start,
    )
    from workflows.progress import STAGE_START_PERCENT, RunProgress
    from workflows.search import FILM_STAGE, FILM_STATE
    from workflows.segments import split_render
    from workflows.stages import (
        ACTIVITY_QUEUE,
        HOLD_ERROR_TYPE,
        REPORT_RETRY,
        REPORT_SCHEDULE_TO_CLOSE,
        REPORT_START_TO_CLOSE,
        STAGE_RETRY,
        STAGE_TIMEOUTS,
        ActivityName,
        AssetsResult,
        DeliverInput,
        DeliverResult,
        GateResult,
        JoinInput,
        PlainStart,
        PrepResult,
        Rejection,
        RenderInput,
        RenderPlan,
        RenderResult,
        ReportInput,
        SegmentResult,
        StageInput,
        TaskQueue,
        VerifyInput,
        VerifyResult,
        WholeFilmInput,
        media_task_queue,
    )

OUTCOMES_METRIC = "film_outcomes"
"""Counter of finished runs; Prometheus shows it as ``film_outcomes_total`` (the exporter adds
``_total`` to every counter)."""

PLAIN_START_TIMEOUT = timedelta(seconds=10)

LEFT_OUT = "left_out"
"""Reason prefix of a succeeded run made without some of the customer's files."""


def left_out_reason(rejected: list[Rejection]) -> str | None:
    """``left_out:c01=video_aspect_unsupported,p03=image_corrupt`` (None when nothing was)."""
    if not rejected:
        return None
    return f"{LEFT_OUT}:" + ",".join(f"{r.id}={r.reason}" for r in rejected)


def _reason_code(reason: str | None) -> str:
    """A reason as a metric label: ``left_out:c01=..,p03=..`` counts as ``left_out`` (which
    files, and why, are in the outcome and the log line)."""
    if reason is None:
        return ""
    return LEFT_OUT if reason.startswith(f"{LEFT_OUT}:") else reason


def _log_fields(order: FilmOrder, stage: FilmStage) -> dict[str, Any]:
    """Structured log fields of this run: ids and stage only, never customer text."""
    return {"gift_id": order.gift_id, "stage": stage.value}


class _RunEnded(Exception):
    """Internal: a stage ended the run as held or failed."""

    def __init__(self, state: FilmState, reason: str) -> None:
        super().__init__(reason)
        self.state = state
        self.reason = reason


@workflow.defn(dynamic=True)
class FilmRender:
    """One paid render of one gift attempt.

    Registered as the worker's dynamic workflow, serving the type ``FilmRender`` only: the SDK
    then hands every start argument over raw, whatever their number, so a start with none or
    two of them ends as ``invalid_order:arity`` instead of a workflow task that fails on the
    call for ever (a named workflow's run method is called with the converted arguments).
    """

    def __init__(self) -> None:
        self._progress = RunProgress(workflow.now())
        self._left_out: str | None = None

    @workflow.query(name=PROGRESS_QUERY)
    def progress(self) -> Progress:
        """State, stage, percent (whole run and running stage), last update time."""
        return self._progress.snapshot()

    @workflow.signal(name=STAGE_PROGRESS_SIGNAL)
    def stage_progress(self, report: StageProgress) -> None:
        """A stage activity's percent: moves the stage and run percents, never backwards."""
        self._progress.report(report, workflow.now())

    @workflow.run
    async def run(self, args: Sequence[RawValue]) -> FilmOutcome:
        """Validate the start payload, run the six stages, then report and return the outcome.

        The payload is taken raw (a :class:`FilmOrder` as JSON): one outside the contract (no
        or two arguments, a payload the codec could not open, an unsealed one refused while
        keys are set, one that does not validate) ends the run ``failed`` with
        ``invalid_order:<field>`` and is reported like any other.
        """
        info = workflow.info()
        if info.workflow_type != WORKFLOW_TYPE:
            raise ApplicationError(f"this worker runs {WORKFLOW_TYPE} only",
                                   type="UnknownWorkflowType", non_retryable=True)
        order = await self._read_start(args, info.workflow_id)
        if isinstance(order, RefusedOrder):
            return await self._refuse(order)
        try:
            delivered, duration = await self._run_stages(order)
            self._set(FilmState.SUCCEEDED, self._progress.stage, 100)
            outcome = FilmOutcome(
                workflow_id=order.workflow_id, attempt=order.attempt, charge_id=order.charge_id,
                state=FilmState.SUCCEEDED, stage=FilmStage.DELIVER,
                film_url=delivered.film_url, gift_url=delivered.gift_url,
                poster_url=delivered.poster_url, duration_sec=duration, reason=self._left_out,
            )
        except _RunEnded as ended:
            self._set(ended.state, self._progress.stage, self._progress.percent)
            outcome = FilmOutcome(
                workflow_id=order.workflow_id, attempt=order.attempt, charge_id=order.charge_id,
                state=ended.state, stage=self._progress.stage, reason=ended.reason,
            )
        workflow.set_current_details(self._details(order, outcome.reason))
        return await self._report(order.gift_id, outcome)

    async def _read_start(self, args: Sequence[RawValue],
                          workflow_id: str) -> FilmOrder | RefusedOrder:
        """The order of the start arguments, or why they are refused."""
        if len(args) != 1:
            return refuse_start(ARITY, workflow_id)
        metadata = args[0].payload.metadata
        if metadata.get("encoding") == ENCODING:  # sealed, and this worker holds no keys
            return refuse_start(UNOPENED_KEY.decode(), workflow_id)
        if metadata.get("encoding") == UNOPENED_ENCODING:
            reason = metadata.get(UNOPENED_METADATA, b"").decode(errors="replace")
            return refuse_start(reason if reason in CODEC_FIELDS else CODEC, workflow_id)
        if CLEAR_METADATA in metadata:
            refuse = await workflow.execute_local_activity(
                ActivityName.PLAIN_START, PlainStart(workflow_id=workflow_id), result_type=bool,
                start_to_close_timeout=PLAIN_START_TIMEOUT)
            if refuse:
                return refuse_start(PLAIN, workflow_id)
        return read_order(self._decoded(args[0]), workflow_id)

    @staticmethod
    def _decoded(payload: RawValue) -> object:
        """The start payload as plain JSON values, or UNDECODABLE."""
        try:
            return workflow.payload_converter().from_payload(payload.payload)
        except Exception:  # any converter failure is the same refusal: invalid_order:payload
            return UNDECODABLE

    async def _refuse(self, refused: RefusedOrder) -> FilmOutcome:
        """End a run whose payload is outside the contract: failed at prep, reported when the
        gift id is known, else the workflow fails (visible to ops, never silent)."""
        self._set(FilmState.FAILED, FilmStage.PREP, 0)
        workflow.set_current_details(f"**failed** before prep: payload outside the contract; "
                                     f"reason `{refused.reason}`")
        outcome = FilmOutcome(
            workflow_id=workflow.info().workflow_id, attempt=refused.attempt,
            charge_id=refused.charge_id, state=FilmState.FAILED, stage=FilmStage.PREP,
            reason=refused.reason,
        )
        if refused.gift_id is None:
            self._record_outcome("", outcome)
            raise ApplicationError(f"{refused.reason}; no gift id to report it under",
                                   type="InvalidOrder", non_retryable=True)
        return await self._report(refused.gift_id, outcome)

    async def _report(self, gift_id: str, outcome: FilmOutcome) -> FilmOutcome:
        """Log, count and report ``outcome`` to the order API, then forget the run's working
        files; returns it."""
        self._record_outcome(gift_id, outcome)
        await workflow.execute_activity(
            ActivityName.REPORT_OUTCOME,
            ReportInput(gift_id=gift_id, outcome=outcome),
            schedule_to_close_timeout=REPORT_SCHEDULE_TO_CLOSE,
            start_to_close_timeout=REPORT_START_TO_CLOSE,
            retry_policy=REPORT_RETRY,
        )
        await self._forget_run_files(gift_id, outcome.attempt)
        return outcome

    @staticmethod
    async def _forget_run_files(gift_id: str, attempt: int) -> None:
        """Delete the run's working files now, or have them deleted after their retention: an
        activity apart from the report, so a storage error here is retried without posting the
        outcome again. Past its retries the files are left to the storage's lifecycle rule and
        the run keeps its outcome (an attempt outside the contract wrote nothing)."""
        if attempt < 1:
            return
        try:
            await workflow.execute_activity(
                ActivityName.FORGET_RUN_FILES, CleanupInput(gift_id=gift_id, attempt=attempt),
                start_to_close_timeout=CLEAN_RUN_TIMEOUT,
                schedule_to_close_timeout=FORGET_RUN_FILES_SCHEDULE_TO_CLOSE,
                retry_policy=FORGET_RUN_FILES_RETRY,
            )
        except ActivityError as error:
            cause = error.cause
            kind = cause.type if isinstance(cause, ApplicationError) else type(cause).__name__
            workflow.logger.warning("run files not deleted: left to the storage's lifecycle rule",
                                    extra={"gift_id": gift_id, "reason": kind or ""})

    async def _run_stages(self, order: FilmOrder) -> tuple[DeliverResult, float]:
        prep = await self._stage_call(order, FilmStage.PREP, ActivityName.PREP, order,
                                      PrepResult)
        self._left_out = left_out_reason(prep.rejected)
        stage_input = StageInput(order=order, prep=prep)
        await self._stage_call(order, FilmStage.GATE, ActivityName.GATE, stage_input, GateResult)
        assets = await self._stage_call(order, FilmStage.ASSETS, ActivityName.ASSETS,
                                        stage_input, AssetsResult)
        rendered = await self._render(order, RenderInput(order=order, prep=prep, assets=assets))
        await self._stage_call(order, FilmStage.VERIFY, ActivityName.VERIFY,
                               VerifyInput(order=order, render=rendered), VerifyResult)
        delivered = await self._stage_call(
            order, FilmStage.DELIVER, ActivityName.DELIVER,
            DeliverInput(order=order, render=rendered, assets=assets), DeliverResult,
        )
        return delivered, rendered.duration_sec

    async def _render(self, order: FilmOrder, render_input: RenderInput) -> RenderResult:
        """The render stage: plan, then the film whole when the plan makes it one segment, else
        the segments at once and their join."""
        stage = FilmStage.RENDER
        plan: RenderPlan = await self._stage_call(order, stage, ActivityName.RENDER_PLAN,
                                                  render_input, RenderPlan)
        split = split_render(render_input, plan)
        if isinstance(split, WholeFilmInput):
            return await self._activity(order, stage, ActivityName.RENDER_FILM, split,
                                        RenderResult, "render film")
        self._progress.count(ActivityName.RENDER_SEGMENT, workflow.now(), parts=len(split))
        tasks = [asyncio.ensure_future(self._activity(
            order, stage, ActivityName.RENDER_SEGMENT, segment, SegmentResult,
            f"render segment {segment.index + 1}/{len(split)}")) for segment in split]
        try:
            segments = list(await asyncio.gather(*tasks))
        except _RunEnded:
            for task in tasks:  # the run ends: free the workers of the other segments
                task.cancel()
            raise
        return await self._activity(order, stage, ActivityName.RENDER_JOIN,
                                    JoinInput(render=render_input, plan=plan, segments=segments),
                                    RenderResult, "render join")

    async def _stage_call(self, order: FilmOrder, stage: FilmStage, name: ActivityName,
                          arg: Any, result_type: type[Any]) -> Any:
        """Enter ``stage`` (progress, details, log), then run its first activity ``name``."""
        self._set(FilmState.RUNNING, stage, STAGE_START_PERCENT[stage])
        workflow.set_current_details(self._details(order, None))
        workflow.logger.info("stage scheduled", extra=_log_fields(order, stage))
        return await self._activity(order, stage, name, arg, result_type, stage.value)

    async def _activity(self, order: FilmOrder, stage: FilmStage, name: ActivityName, arg: Any,
                        result_type: type[Any], what: str) -> Any:
        """Run one activity of ``stage`` with the stage's timeouts, retries and task queue;
        a final failure ends the run (held or failed, see :meth:`_classify`)."""
        timeouts = STAGE_TIMEOUTS[stage]
        self._progress.count(name, workflow.now())
        try:
            return await workflow.execute_activity(
                name,
                arg,
                result_type=result_type,
                task_queue=self._task_queue_for(name),
                start_to_close_timeout=timeouts.start_to_close,
                schedule_to_close_timeout=timeouts.schedule_to_close,
                heartbeat_timeout=timeouts.heartbeat,
                retry_policy=STAGE_RETRY,
                summary=f"{what} for gift {order.gift_id}",
            )
        except ActivityError as error:
            raise self._classify(stage, error) from error

    @staticmethod
    def _task_queue_for(name: ActivityName) -> str | None:
        """The media queue for media activities (None: this run's own queue)."""
        if ACTIVITY_QUEUE[name] is not TaskQueue.MEDIA:
            return None
        return media_task_queue(workflow.info().task_queue)

    @staticmethod
    def _record_outcome(gift_id: str, outcome: FilmOutcome) -> None:
        """Log the outcome and count it (metrics are not recorded while replaying)."""
        fields = {"gift_id": gift_id, "stage": outcome.stage.value, "state": outcome.state.value,
                  "reason": outcome.reason or ""}
        workflow.logger.info("run ended", extra=fields)
        workflow.metric_meter().create_counter(
            OUTCOMES_METRIC, "Finished runs by state, stage and reason code"
        ).add(1, {"state": outcome.state.value, "stage": outcome.stage.value,
                  "reason": _reason_code(outcome.reason)})

    @staticmethod
    def _classify(stage: FilmStage, error: ActivityError) -> _RunEnded:
        cause = error.cause
        if isinstance(cause, ApplicationError) and cause.type == HOLD_ERROR_TYPE:
            reason = str(cause.details[0]) if cause.details else cause.message
            return _RunEnded(FilmState.HELD, reason)
        kind = cause.type if isinstance(cause, ApplicationError) and cause.type else "error"
        return _RunEnded(FilmState.FAILED, f"{stage.value}_failed:{kind}")

    def _set(self, state: FilmState, stage: FilmStage, percent: int) -> None:
        self._progress.enter(state, stage, percent, workflow.now())
        workflow.upsert_search_attributes(
            [FILM_STATE.value_set(state.value), FILM_STAGE.value_set(stage.value)]
        )

    def _details(self, order: FilmOrder, reason: str | None) -> str:
        progress = self._progress
        line = (f"**{progress.state.value}** at stage `{progress.stage.value}` "
                f"({progress.percent}%) - "
                f"gift `{order.gift_id}` attempt {order.attempt}, tier {order.tier.value}, "
                f"{order.length_sec:g}s, {len(order.photos)} photos, {len(order.clips)} clips")
        return f"{line}; reason `{reason}`" if reason else line
