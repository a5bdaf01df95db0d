"""The words of an outcome as the contract publishes them (``names.json`` and the outcome's
schema), gathered from where each is raised so that a new one appears with ``make schemas``:

- ``film_url``'s keys: the delivered films' aspects (``16x9``, ``9x16``);
- ``held``: a :class:`workflows.stages.HoldReason`;
- ``failed``: ``<stage>_failed:<error type>`` (the error's class name, or the type of the
  application error a stage raised, e.g. ``verify_failed:FilmSpecMiss``), or
  ``invalid_order:<what>`` for a start that could not become an order (:mod:`workflows.intake`);
- ``succeeded``: no reason, or ``left_out:<id>=<refusal>,...`` naming the customer's files left
  out of the film and why (a refusal reason of ``media/base/errors.py``).

The aspects and the refusal reasons are media's words, which this light package does not import:
they come in as :class:`MediaWords` (``app/contract_files.py`` reads them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from workflows import intake
from workflows.contract import FilmOrder, FilmStage, FilmState
from workflows.film import LEFT_OUT
from workflows.stages import HoldReason

FAILED_SUFFIX = "_failed"
ERROR_TYPE_PATTERN = "[A-Za-z_][A-Za-z0-9_]*"
"""An error type: a Python class name or an application error's type."""
MEDIA_ID_PATTERN = "(?:p[0-9]{2}|c0[1-3])"
"""A photo's or a clip's id, as ``FilmOrder`` admits them."""
DELIVERED_FIELDS = ("film_url", "gift_url", "poster_url", "duration_sec")
"""What a succeeded outcome always carries."""


@dataclass(frozen=True)
class MediaWords:
    """What only media/ knows of an outcome's words."""

    aspects: tuple[str, ...]
    """``film_url``'s keys, one per delivered film (``16x9``, ``9x16``)."""
    refusals: tuple[str, ...]
    """Why a customer's file is left out (``image_corrupt``, ``video_too_long``..)."""


def invalid_order_fields() -> tuple[str, ...]:
    """Every ``<what>`` of ``invalid_order:<what>``: the start as a whole, the codec's refusals,
    or the ``FilmOrder`` field that does not validate."""
    return (intake.ARITY, intake.CODEC, *sorted(intake.CODEC_FIELDS), intake.PLAIN,
            intake.WHOLE_PAYLOAD, intake.UNKNOWN_FIELD, intake.WHOLE_ORDER, intake.WORKFLOW_ID,
            *FilmOrder.model_fields)


def _one_of(words: tuple[str, ...] | list[str]) -> str:
    return "(?:" + "|".join(re.escape(word) for word in words) + ")"


def failed_pattern() -> str:
    """A failed run's reason: a stage's failure or a refused start."""
    stages = _one_of([f"{stage.value}{FAILED_SUFFIX}" for stage in FilmStage])
    return (f"^(?:{stages}:{ERROR_TYPE_PATTERN}"
            f"|{re.escape(intake.INVALID_ORDER)}:{_one_of(invalid_order_fields())})$")


def left_out_pattern(media: MediaWords) -> str:
    """A succeeded run's reason when files were left out: ``left_out:p03=image_corrupt,..``."""
    item = f"{MEDIA_ID_PATTERN}={_one_of(media.refusals)}"
    return f"^{re.escape(LEFT_OUT)}:{item}(?:,{item})*$"


def reasons_document(media: MediaWords) -> dict[str, Any]:
    """The reason codes by state, for ``names.json``."""
    return {
        FilmState.HELD.value: [reason.value for reason in HoldReason],
        FilmState.FAILED.value: {
            "stage_failed": f"<stage>{FAILED_SUFFIX}:<error type>",
            "stage_failed_example": f"{FilmStage.VERIFY.value}{FAILED_SUFFIX}:FilmSpecMiss",
            "invalid_order": f"{intake.INVALID_ORDER}:<what>",
            "invalid_order_what": list(invalid_order_fields()),
            "pattern": failed_pattern(),
        },
        FilmState.SUCCEEDED.value: {
            "left_out": f"{LEFT_OUT}:<id>=<refusal>,...",
            "refusals": list(media.refusals),
            "pattern": left_out_pattern(media),
        },
    }


def outcome_rules(media: MediaWords) -> list[dict[str, Any]]:
    """The outcome schema's rules by state (JSON Schema ``if``/``then``): a held run's reason is
    a hold reason, a failed run's a failure, a succeeded run has its films and at most the files
    it left out as its reason."""

    def when(state: FilmState, then: dict[str, Any]) -> dict[str, Any]:
        return {"if": {"type": "object", "required": ["state"],
                       "properties": {"state": {"const": state.value}}},
                "then": {"type": "object", **then}}

    return [
        when(FilmState.HELD, {"required": ["reason"], "properties": {"reason": {
            "type": "string", "enum": [reason.value for reason in HoldReason]}}}),
        when(FilmState.FAILED, {"required": ["reason"], "properties": {"reason": {
            "type": "string", "pattern": failed_pattern()}}}),
        when(FilmState.SUCCEEDED, {
            "required": list(DELIVERED_FIELDS),
            "properties": {**{name: {} for name in DELIVERED_FIELDS},  # typed at the top
                           "reason": {"type": "string", "pattern": left_out_pattern(media)}}}),
    ]


def film_url_schema(media: MediaWords) -> dict[str, Any]:
    """``film_url``: one absolute URL per delivered aspect, those keys exactly."""
    return {"type": "object", "title": "Film Url",
            "description": "One URL per delivered film, by aspect.",
            "properties": {aspect: {"type": "string", "minLength": 1}
                           for aspect in media.aspects},
            "required": list(media.aspects), "additionalProperties": False}
