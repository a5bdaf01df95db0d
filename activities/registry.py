"""The worker's activities: thin named adapters from Temporal to the stage modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from temporalio import activity

from activities.assets import run_assets
from activities.context import StageContext
from activities.deliver import run_deliver
from activities.gate import run_gate
from activities.prep import run_prep
from activities.render import run_render
from activities.report import run_report
from activities.verify import run_verify
from workflows.contract import FilmOrder
from workflows.stages import (
    ActivityName,
    AssetsResult,
    DeliverInput,
    DeliverResult,
    GateResult,
    PrepResult,
    RenderInput,
    RenderResult,
    ReportInput,
    StageInput,
    VerifyInput,
    VerifyResult,
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

    @activity.defn(name=ActivityName.RENDER)
    def render(self, render_input: RenderInput) -> RenderResult:
        """Plan the timeline and encode both films."""
        return run_render(self.ctx, render_input)

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
        """Send the outcome to the order API (or the local sink)."""
        return run_report(self.ctx, report_input)

    def all(self) -> list[Callable[..., Any]]:
        """Every activity of this instance, for ``Worker(activities=...)``."""
        return [self.prep, self.gate, self.assets, self.render, self.verify, self.deliver,
                self.report_outcome]
