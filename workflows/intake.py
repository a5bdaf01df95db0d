"""Reading a start payload into a :class:`FilmOrder`, or into a classified refusal.

The workflow takes its input raw and validates it here, so a payload outside the contract (a
field too long, a field the contract does not know, JSON that is not an object) ends the run
``failed`` with reason ``invalid_order:<field>`` and is reported like any other outcome, instead
of failing the workflow task for ever. Pure and deterministic: no I/O, safe in the sandbox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import TypeAdapter, ValidationError

from workflows.contract import ATTEMPT_MAX, WORKFLOW_ID_PREFIX, FilmOrder, Opaque, Token

INVALID_ORDER = "invalid_order"
"""Reason prefix of a start payload that does not validate: ``invalid_order:<field>``."""
WHOLE_PAYLOAD = "payload"
"""The field named when the payload as a whole is wrong (not JSON, not an object)."""
WHOLE_ORDER = "order"
"""The field named when a rule across fields fails (e.g. brand fields without style brand)."""
UNKNOWN_FIELD = "unknown_field"
"""The field named for a key the contract does not know (never echoed: it is client text)."""
WORKFLOW_ID = "workflow_id"
"""The field named when a ``film-{gift_id}-{attempt}`` workflow id names another gift or
attempt than the payload: the run's identity (the callback's URL, body and Idempotency-Key) is
its workflow id, so such a start is refused and reported as the workflow id's run, never as the
payload's. (A workflow id of another shape, such as a history file's name on replay, carries no
identity: the payload's is used.)"""

ARITY = "arity"
"""The field named when the start has no argument or more than one."""
CODEC = "codec"
"""The field named for a payload the worker's codec could not open (an unknown key id:
``codec_key``; a bad tag or sealed bytes that are not a payload: ``codec_seal``)."""
CODEC_FIELDS = frozenset({"codec_key", "codec_seal"})
PLAIN = "plain"
"""The field named for an unsealed start refused while payload keys are set."""

UNDECODABLE = object()
"""Stands for a payload the data converter could not decode."""

_TOKEN = TypeAdapter(Token)
_OPAQUE = TypeAdapter(Opaque)
_ATTEMPT_DIGITS = re.compile(r"[1-9][0-9]*")


@dataclass(frozen=True)
class RefusedOrder:
    """A start payload outside the contract, with what could be salvaged to report it.

    ``gift_id`` and ``attempt`` are the workflow id's (``film-{gift_id}-{attempt}``), the
    payload's only when the workflow id carries none; ``gift_id`` is None when neither carries
    a valid one (the outcome cannot be reported then); ``attempt`` is 0 and ``charge_id``
    empty when unknown.
    """

    reason: str
    gift_id: str | None
    attempt: int
    charge_id: str


def read_order(payload: object, workflow_id: str) -> FilmOrder | RefusedOrder:
    """The order in ``payload`` (the decoded start argument), or why it is refused."""
    if payload is UNDECODABLE or not isinstance(payload, dict):
        return _refused(WHOLE_PAYLOAD, {}, workflow_id)
    try:
        order = FilmOrder.model_validate(payload)
    except ValidationError as error:
        return _refused(invalid_field(error), payload, workflow_id)
    if ids_from_workflow_id(workflow_id) not in ((None, None), (order.gift_id, order.attempt)):
        return _refused(WORKFLOW_ID, payload, workflow_id)
    return order


def refuse_start(field: str, workflow_id: str) -> RefusedOrder:
    """A start refused before its payload is read (``field``: :data:`ARITY`, a codec field,
    :data:`PLAIN`); ids come from the workflow id only."""
    return _refused(field, {}, workflow_id)


def invalid_field(error: ValidationError) -> str:
    """The top-level FilmOrder field named by the first error of ``error``."""
    first = error.errors()[0]
    location = first.get("loc", ())
    if not location:
        return WHOLE_ORDER
    field = str(location[0])
    if first.get("type") == "extra_forbidden" or field not in FilmOrder.model_fields:
        return UNKNOWN_FIELD
    return field


def _refused(field: str, payload: dict[object, object], workflow_id: str) -> RefusedOrder:
    gift_id, attempt = ids_from_workflow_id(workflow_id)
    if gift_id is None:
        gift_id = _valid(_TOKEN, payload.get("gift_id"))
    if attempt is None:
        raw_attempt = payload.get("attempt")
        valid = type(raw_attempt) is int and 0 < raw_attempt <= ATTEMPT_MAX
        attempt = raw_attempt if valid else 0
    return RefusedOrder(reason=f"{INVALID_ORDER}:{field}", gift_id=gift_id, attempt=attempt,
                        charge_id=_valid(_OPAQUE, payload.get("charge_id")) or "")


def ids_from_workflow_id(workflow_id: str) -> tuple[str | None, int | None]:
    """Gift id and attempt carried by a ``film-{gift_id}-{attempt}`` workflow id (None each
    when the id does not have that shape)."""
    gift_id, _, attempt = workflow_id.removeprefix(WORKFLOW_ID_PREFIX).rpartition("-")
    if not workflow_id.startswith(WORKFLOW_ID_PREFIX) or not _valid_attempt(attempt):
        return None, None
    if _valid(_TOKEN, gift_id) is None:
        return None, None
    return gift_id, int(attempt)


def _valid_attempt(digits: str) -> bool:
    """True when ``digits`` is an attempt number the contract allows (ASCII, 1..ATTEMPT_MAX)."""
    if not _ATTEMPT_DIGITS.fullmatch(digits) or len(digits) > len(str(ATTEMPT_MAX)):
        return False
    return int(digits) <= ATTEMPT_MAX


def _valid(adapter: TypeAdapter[str], value: object) -> str | None:
    """``value`` when it is a string ``adapter`` accepts, else None."""
    if not isinstance(value, str):
        return None
    try:
        return adapter.validate_python(value)
    except ValidationError:
        return None
