"""The worker's activities: thin named adapters from Temporal to the stage modules."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio import activity

from activities.assets import run_assets
from activities.context import StageContext
from activities.deliver import run_deliver
from activities.gate import run_gate
from activities.intake import run_plain_start
from activities.prep import run_prep
from activities.render import (
    run_render_film,
    run_render_join,
    run_render_plan,
    run_render_segment,
)
from activities.report import keep_run_files, run_clean, run_report
from activities.verify import run_verify
from workflows.cleanup import CleanupInput
from workflows.contract import FilmOrder
from workflows.stages import (
    ActivityName,
    AssetsResult,
    DeliverInput,
    DeliverResult,
    GateResult,
    JoinInput,
    PlainStart,
    PrepResult,
    RenderInput,
    RenderPlan,
    RenderResult,
    ReportInput,
    SegmentInput,
    SegmentResult,
    StageInput,
    TaskQueue,
    VerifyInput,
    VerifyResult,
    WholeFilmInput,
    activities_on,
)


class FilmActivities:
    """One instance per worker process; each method is one registered activity."""

    def __init__(self, ctx: StageContext) -> None:
        self.ctx = ctx

    @activity.defn(name=ActivityName.PREP)
    def prep(self, order: FilmOrder) -> PrepResult:
        """Verify and normalize the order's photos and clips."""
        return run_prep(self.ctx, order)

    @activity.defn(name=ActivityName.GATE)
    def gate(self, stage_input: StageInput) -> GateResult:
        """Apply policy; hold the run when it fails."""
        return run_gate(self.ctx, stage_input)

    @activity.defn(name=ActivityName.ASSETS)
    def assets(self, stage_input: StageInput) -> AssetsResult:
        """Framing facts and the original song."""
        return run_assets(self.ctx, stage_input)

    @activity.defn(name=ActivityName.RENDER_PLAN)
    def render_plan(self, render_input: RenderInput) -> RenderPlan:
        """Plan the timeline and build the soundtrack; say where and how wide it may split."""
        return run_render_plan(self.ctx, render_input)

    @activity.defn(name=ActivityName.RENDER_SEGMENT)
    def render_segment(self, segment: SegmentInput) -> SegmentResult:
        """Encode one frame range of both films, video only."""
        return run_render_segment(self.ctx, segment)

    @activity.defn(name=ActivityName.RENDER_JOIN)
    def render_join(self, join: JoinInput) -> RenderResult:
        """Join the segments under the soundtrack; store films and poster."""
        return run_render_join(self.ctx, join)

    @activity.defn(name=ActivityName.RENDER_FILM)
    def render_film(self, whole: WholeFilmInput) -> RenderResult:
        """Encode both films whole with the soundtrack (one segment: no join); store films
        and poster."""
        return run_render_film(self.ctx, whole)

    @activity.defn(name=ActivityName.VERIFY)
    def verify(self, verify_input: VerifyInput) -> VerifyResult:
        """Check both films against the output spec."""
        return run_verify(self.ctx, verify_input)

    @activity.defn(name=ActivityName.DELIVER)
    def deliver(self, deliver_input: DeliverInput) -> DeliverResult:
        """Upload films, poster and gift page to the delivery keys."""
        return run_deliver(self.ctx, deliver_input)

    @activity.defn(name=ActivityName.REPORT_OUTCOME)
    def report_outcome(self, report_input: ReportInput) -> str:
        """Send the outcome to the order API (or the local sink); nothing else, so a retry of
        anything after it never posts the outcome again."""
        return run_report(self.ctx, report_input)

    @activity.defn(name=ActivityName.FORGET_RUN_FILES)
    async def forget_run_files(self, cleanup: CleanupInput) -> str:
        """After the report: delete the run's working files, or schedule their deletion after
        ``FILM_RUN_RETENTION_DAYS`` (a delayed FilmRunCleanup)."""
        days = self.ctx.settings.run_retention_days
        if days > 0:
            await keep_run_files(activity.client(), cleanup, days, activity.info().task_queue)
            return f"run files kept {days:g} days"
        deleted = await asyncio.to_thread(run_clean, self.ctx, cleanup)
        return f"{deleted} run files deleted"

    @activity.defn(name=ActivityName.CLEAN_RUN)
    def clean_run(self, cleanup: CleanupInput) -> int:
        """Delete a run's working files once their retention is over."""
        return run_clean(self.ctx, cleanup)

    def on_queue(self, queue: TaskQueue) -> list[Callable[..., Any]]:
        """The activities one worker registers: those :data:`workflows.stages.ACTIVITY_QUEUE`
        puts on ``queue`` (each method is named as its activity)."""
        return [getattr(self, name.value) for name in activities_on(queue)]

    @activity.defn(name=ActivityName.PLAIN_START)
    def plain_start(self, start: PlainStart) -> bool:
        """Log and count an unsealed start; say whether the settings refuse it (local)."""
        return run_plain_start(self.ctx, start)

    def main_queue(self) -> list[Callable[..., Any]]:
        """The activities of the orchestration worker (``FILM_TASK_QUEUE``)."""
        return self.on_queue(TaskQueue.MAIN)

    def media_queue(self) -> list[Callable[..., Any]]:
        """The activities of the media worker (``{FILM_TASK_QUEUE}-media``)."""
        return self.on_queue(TaskQueue.MEDIA)
