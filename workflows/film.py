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
from temporalio.common import RawValue, RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
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
    from workflows.search import FILM_STAGE, FILM_STATE
    from workflows.segments import plan_segments
    from workflows.stages import (
        HOLD_ERROR_TYPE,
        STAGE_ACTIVITIES,
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
        SegmentInput,
        SegmentResult,
        StageInput,
        VerifyInput,
        VerifyResult,
        WholeFilmInput,
    )

# Percent of the whole run done when each stage starts (render dominates the wall time).
STAGE_START_PERCENT: dict[FilmStage, int] = {
    FilmStage.PREP: 0,
    FilmStage.GATE: 10,
    FilmStage.ASSETS: 12,
    FilmStage.RENDER: 30,
    FilmStage.VERIFY: 85,
    FilmStage.DELIVER: 92,
}
RUNNING_PERCENT_CAP = 99  # 100 means delivered

# Share of its stage each activity covers (percent of the stage; others: the whole stage).
ACTIVITY_SPAN: dict[str, tuple[int, int]] = {
    ActivityName.RENDER_PLAN: (0, 10),
    ActivityName.RENDER_FILM: (10, 100),
    ActivityName.RENDER_SEGMENT: (10, 95),
    ActivityName.RENDER_JOIN: (95, 100),
}


def stage_span(stage: FilmStage) -> tuple[int, int]:
    """Percent of the whole run at the start and at the end of ``stage``."""
    stages = list(STAGE_START_PERCENT)
    later = stages[stages.index(stage) + 1:]
    return STAGE_START_PERCENT[stage], (STAGE_START_PERCENT[later[0]] if later else 100)


STAGE_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=5),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=2),
    maximum_attempts=3,
    non_retryable_error_types=[HOLD_ERROR_TYPE],
)


class StageTimeouts:
    """Start-to-close and heartbeat timeouts of one stage activity."""

    def __init__(self, start_to_close: timedelta, heartbeat: timedelta | None) -> None:
        self.start_to_close = start_to_close
        self.heartbeat = heartbeat


# Start-to-close: sized for the worst order (180 s film, 30 photos, three 500 MB clips) on a
# 2-core worker. Heartbeat: the stages heartbeat every few seconds from a background thread
# (activities.context.Heartbeater), so 30 s of silence means the worker died; the server then
# retries the stage elsewhere after STAGE_RETRY's interval instead of waiting for start-to-close.
STAGE_HEARTBEAT = timedelta(seconds=30)
STAGE_TIMEOUTS: dict[FilmStage, StageTimeouts] = {
    FilmStage.PREP: StageTimeouts(timedelta(minutes=30), STAGE_HEARTBEAT),
    FilmStage.GATE: StageTimeouts(timedelta(minutes=2), None),
    FilmStage.ASSETS: StageTimeouts(timedelta(minutes=30), STAGE_HEARTBEAT),
    FilmStage.RENDER: StageTimeouts(timedelta(minutes=60), STAGE_HEARTBEAT),
    FilmStage.VERIFY: StageTimeouts(timedelta(minutes=15), STAGE_HEARTBEAT),
    FilmStage.DELIVER: StageTimeouts(timedelta(minutes=15), STAGE_HEARTBEAT),
}

# Heavy media work runs on its own task queue; gate and report stay on the main one.
MEDIA_STAGES = frozenset(
    {FilmStage.PREP, FilmStage.ASSETS, FilmStage.RENDER, FilmStage.VERIFY, FilmStage.DELIVER}
)
MEDIA_ACTIVITIES = frozenset(name for stage in MEDIA_STAGES for name in STAGE_ACTIVITIES[stage])
"""Activities the media worker runs: the media stages and the render stage's parts."""
MEDIA_QUEUE_SUFFIX = "-media"


def media_task_queue(task_queue: str) -> str:
    """The media task queue that belongs to ``task_queue``."""
    return f"{task_queue}{MEDIA_QUEUE_SUFFIX}"


# The callback must reach the order API: retried with backoff for up to a day.
REPORT_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=10),
    maximum_attempts=0,
    non_retryable_error_types=["OutcomeRejected"],
)
REPORT_SCHEDULE_TO_CLOSE = timedelta(days=1)
PLAIN_START_TIMEOUT = timedelta(seconds=10)
PLAIN_START_PATCH = "plain-start-policy"
"""Runs started before the plain-start check replay without its local activity."""
REPORT_START_TO_CLOSE = timedelta(seconds=60)


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
        self._state = FilmState.RUNNING
        self._stage = FilmStage.PREP
        self._percent = 0
        self._stage_percent = 0
        self._updated_at = workflow.now()
        # The activity whose progress counts now, how many run at once, their percents.
        self._counting: str | None = None
        self._counted_parts = 1
        self._part_percent: dict[str, int] = {}
        self._left_out: str | None = None

    @workflow.query(name=PROGRESS_QUERY)
    def progress(self) -> Progress:
        """State, stage, percent (whole run and running stage), last update time."""
        return Progress(state=self._state, stage=self._stage, percent=self._percent,
                        stage_percent=self._stage_percent, updated_at=self._updated_at)

    @workflow.signal(name=STAGE_PROGRESS_SIGNAL)
    def stage_progress(self, report: StageProgress) -> None:
        """A stage activity's percent: moves the stage and run percents, never backwards.
        Late reports of an activity that no longer counts are ignored."""
        if report.activity != self._counting or self._state is not FilmState.RUNNING:
            return
        self._part_percent[report.part] = max(report.percent,
                                              self._part_percent.get(report.part, 0))
        low, high = ACTIVITY_SPAN.get(report.activity, (0, 100))
        done = sum(self._part_percent.values()) / self._counted_parts
        self._advance(round(low + (high - low) * done / 100))

    def _advance(self, stage_percent: int) -> None:
        """Move the stage's percent (and the run's, inside the stage's share) forward only."""
        stage_percent = min(100, stage_percent)
        run_low, run_high = stage_span(self._stage)
        run_percent = min(RUNNING_PERCENT_CAP,
                          round(run_low + (run_high - run_low) * stage_percent / 100))
        if stage_percent > self._stage_percent or run_percent > self._percent:
            self._stage_percent = max(self._stage_percent, stage_percent)
            self._percent = max(self._percent, run_percent)
            self._updated_at = workflow.now()

    def _count_progress_of(self, name: str, parts: int = 1) -> None:
        """From now on, progress reports of activity ``name`` (``parts`` at once) count."""
        if self._counting != name:
            self._counting, self._counted_parts, self._part_percent = name, parts, {}
        self._advance(ACTIVITY_SPAN.get(name, (0, 100))[0])

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
            self._set(FilmState.SUCCEEDED, self._stage, 100)
            outcome = FilmOutcome(
                workflow_id=order.workflow_id, attempt=order.attempt, charge_id=order.charge_id,
                state=FilmState.SUCCEEDED, stage=FilmStage.DELIVER,
                film_url=delivered.film_url, gift_url=delivered.gift_url,
                poster_url=delivered.poster_url, duration_sec=duration, reason=self._left_out,
            )
        except _RunEnded as ended:
            self._set(ended.state, self._stage, self._percent)
            outcome = FilmOutcome(
                workflow_id=order.workflow_id, attempt=order.attempt, charge_id=order.charge_id,
                state=ended.state, stage=self._stage, reason=ended.reason,
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
        if CLEAR_METADATA in metadata and workflow.patched(PLAIN_START_PATCH):
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
        """Log, count and report ``outcome`` to the order API; returns it."""
        self._record_outcome(gift_id, outcome)
        await workflow.execute_activity(
            ActivityName.REPORT_OUTCOME,
            ReportInput(gift_id=gift_id, outcome=outcome),
            schedule_to_close_timeout=REPORT_SCHEDULE_TO_CLOSE,
            start_to_close_timeout=REPORT_START_TO_CLOSE,
            retry_policy=REPORT_RETRY,
        )
        return outcome

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
        ranges = plan_segments(plan.total_frames, plan.cut_frames, plan.render_workers,
                               plan.fps)
        if len(ranges) == 1:
            return await self._activity(order, stage, ActivityName.RENDER_FILM,
                                        WholeFilmInput(render=render_input, plan=plan),
                                        RenderResult, "render film")
        self._count_progress_of(ActivityName.RENDER_SEGMENT, parts=len(ranges))
        tasks = [asyncio.ensure_future(self._activity(
            order, stage, ActivityName.RENDER_SEGMENT,
            SegmentInput(render=render_input, plan=plan, index=index, start_frame=start,
                         stop_frame=stop),
            SegmentResult, f"render segment {index + 1}/{len(ranges)}"))
            for index, (start, stop) in enumerate(ranges)]
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
        self._count_progress_of(name)
        try:
            return await workflow.execute_activity(
                name,
                arg,
                result_type=result_type,
                task_queue=self._task_queue_for(stage),
                start_to_close_timeout=timeouts.start_to_close,
                heartbeat_timeout=timeouts.heartbeat,
                retry_policy=STAGE_RETRY,
                summary=f"{what} for gift {order.gift_id}",
            )
        except ActivityError as error:
            raise self._classify(stage, error) from error

    @staticmethod
    def _task_queue_for(stage: FilmStage) -> str | None:
        """The media queue for media stages (None: this run's own queue)."""
        if stage not in MEDIA_STAGES:
            return None
        return media_task_queue(workflow.info().task_queue)

    @staticmethod
    def _record_outcome(gift_id: str, outcome: FilmOutcome) -> None:
        """Log the outcome and count it (metrics are not recorded while replaying)."""
        fields = {"gift_id": gift_id, "stage": outcome.stage.value, "state": outcome.state.value,
                  "reason": outcome.reason or ""}
        workflow.logger.info("run ended", extra=fields)
        workflow.metric_meter().create_counter(
            "film_outcomes_total", "Finished runs by state, stage and reason code"
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
        if stage is not self._stage:
            self._stage_percent = 0
        if state is FilmState.SUCCEEDED:
            self._stage_percent = 100
        self._state, self._stage, self._percent = state, stage, percent
        self._updated_at = workflow.now()
        workflow.upsert_search_attributes(
            [FILM_STATE.value_set(state.value), FILM_STAGE.value_set(stage.value)]
        )

    def _details(self, order: FilmOrder, reason: str | None) -> str:
        line = (f"**{self._state.value}** at stage `{self._stage.value}` ({self._percent}%) - "
                f"gift `{order.gift_id}` attempt {order.attempt}, tier {order.tier.value}, "
                f"{order.length_sec:g}s, {len(order.photos)} photos, {len(order.clips)} clips")
        return f"{line}; reason `{reason}`" if reason else line
