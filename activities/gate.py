"""Gate stage: policy checks before any money is spent on rendering."""

from __future__ import annotations

from activities.context import StageContext, hold
from workflows.stages import GateResult, HoldReason, StageInput


def run_gate(ctx: StageContext, stage_input: StageInput) -> GateResult:
    """Hold the run unless consent was given and at least one photo is usable."""
    order, prep = stage_input.order, stage_input.prep
    if not order.consent.accepted:
        raise hold(HoldReason.CONSENT_MISSING, "the customer's consent was not accepted")
    if not prep.photos:
        reasons = ", ".join(f"{r.id}:{r.reason}" for r in prep.rejected) or "none"
        raise hold(HoldReason.NO_USABLE_PHOTOS, f"no usable photo (rejected: {reasons})")
    notes = [f"consent accepted at {order.consent.at.isoformat()}",
             f"{len(prep.photos)} usable photos, {len(prep.clips)} usable clips"]
    notes += [f"left out {r.id}: {r.reason}" for r in prep.rejected]
    return GateResult(notes=notes)
