"""Gate stage: policy checks before any money is spent on rendering.

In order: consent, at least one usable photo, the text within the contract, the word list
(``FILM_TEXT_POLICY_WORDS``), then the external moderation hook (``FILM_MODERATION_URL``, off when
unset). The first failing check holds the run; a moderation service that cannot answer is our
fault (retried, then failed), never a hold.
"""

from __future__ import annotations

from activities.context import StageContext
from services.moderation import moderate, moderation_request
from services.text_policy import abusive_text, customer_text, text_outside_contract
from workflows.stages import GateResult, HoldReason, StageInput, hold


def run_gate(ctx: StageContext, stage_input: StageInput) -> GateResult:
    """Hold the run unless every policy check passes; return notes on what was checked."""
    order, prep = stage_input.order, stage_input.prep
    if not order.consent.accepted:
        raise hold(HoldReason.CONSENT_MISSING, "the customer's consent was not accepted")
    if not prep.photos:
        reasons = ", ".join(f"{r.id}:{r.reason}" for r in prep.rejected) or "none"
        raise hold(HoldReason.NO_USABLE_PHOTOS, f"no usable photo (rejected: {reasons})")
    problem = text_outside_contract(order)
    if problem is not None:
        raise hold(HoldReason.TEXT_POLICY, f"text outside the order contract: {problem}")
    hits = abusive_text(order, ctx.settings.text_policy_words)
    if hits:
        found = ", ".join(f"{hit.field} ({hit.masked_entry})" for hit in hits)
        raise hold(HoldReason.TEXT_POLICY, f"word list matched: {found}")
    notes = [f"consent accepted at {order.consent.at.isoformat()}",
             f"{len(prep.photos)} usable photos, {len(prep.clips)} usable clips",
             "text within the contract and clear of the word list"]
    if ctx.settings.moderation_url:
        request = moderation_request(order, prep, customer_text(order))
        decision = moderate(ctx.settings.moderation_url, request,
                            timeout_s=ctx.settings.moderation_timeout_s)
        if decision.hold:
            raise hold(HoldReason.MODERATION_HOLD, f"moderation hold: {decision.reason}")
        notes.append("moderation allowed")
    notes += [f"left out {r.id}: {r.reason}" for r in prep.rejected]
    return GateResult(notes=notes)
