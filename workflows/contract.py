"""The contract between the order API and the film render worker.

Importable by the order API service on its own: pydantic and the standard library only (plus
temporalio for the optional :func:`start_render` helper, imported lazily). Every limit and
price here is the order API spec's; nothing else in the worker repeats them.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
import unicodedata
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictBool,
    StringConstraints,
    model_serializer,
    model_validator,
)

from workflows import keys
from workflows.keys import RunKeys

if TYPE_CHECKING:
    from temporalio.client import Client, WorkflowHandle
    from temporalio.common import SearchAttributeKey

# --- Names -------------------------------------------------------------------------------------

TASK_QUEUE = "film-render"
WORKFLOW_TYPE = "FilmRender"
PROGRESS_QUERY = "progress"
STAGE_PROGRESS_SIGNAL = "stage_progress"
"""Signal the stage activities send the run with their percent (internal to the worker)."""
WORKFLOW_ID_PREFIX = "film-"
WORKFLOW_ID_TEMPLATE = WORKFLOW_ID_PREFIX + "{gift_id}-{attempt}"
ID_REUSE_POLICY = "REJECT_DUPLICATE"
"""``WorkflowIDReusePolicy`` member of a start: a closed run's id is never started again (the
API increments ``attempt`` for a new render)."""
ID_CONFLICT_POLICY = "USE_EXISTING"
"""``WorkflowIDConflictPolicy`` member of a start: a repeated start attaches to the live run."""


def workflow_id(gift_id: str, attempt: int) -> str:
    """The workflow id of one render attempt of one gift: ``film-{gift_id}-{attempt}``."""
    return WORKFLOW_ID_TEMPLATE.format(gift_id=gift_id, attempt=attempt)


# --- Limits and prices (the order API spec) -----------------------------------------------------

NAME_MAX_CHARS = 80
STORY_MAX_CHARS = 500
FEELING_WORDS_MAX = 6
FEELING_WORD_MAX_CHARS = 30
LENGTH_MIN_SEC = 30
LENGTH_MAX_SEC = 180
PHOTOS_MIN = 1
PHOTOS_MAX = 30
CLIPS_MAX = 3
CLIP_DURATION_HINT_MAX_SEC = 600
PHOTO_MAX_BYTES = 4 * 1024 * 1024
CLIP_MAX_BYTES = 500 * 1024 * 1024
URL_MAX_CHARS = 2048
ATTEMPT_MAX = 1000


class Tier(StrEnum):
    """Render tier; its price and recipe live in :data:`TIER_PRICE_CENTS` and the settings."""

    STANDARD = "standard"
    SIGNATURE = "signature"


TIER_PRICE_CENTS: dict[Tier, int] = {Tier.STANDARD: 1200, Tier.SIGNATURE: 2500}


class Style(StrEnum):
    """Film style chosen on the order."""

    GIFT = "gift"
    BRAND = "brand"
    SOCIAL = "social"


class FilmState(StrEnum):
    """Fulfillment run state, exactly the spec's words."""

    RUNNING = "running"
    HELD = "held"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class FilmStage(StrEnum):
    """Fulfillment stage, exactly the spec's words, in pipeline order."""

    PREP = "prep"
    GATE = "gate"
    ASSETS = "assets"
    RENDER = "render"
    VERIFY = "verify"
    DELIVER = "deliver"


# --- Input --------------------------------------------------------------------------------------


# Customer text is cleaned, not refused: a stray control character must never make a start fail.
# Line breaks (CR LF, CR, LF, VT, FF, NEL, U+2028/9) and tabs become a space in single-line fields
# and LF in multi-line ones; every other C0 (U+0000-U+001F), DEL and C1 (U+0080-U+009F)
# control character is removed. Limits apply to the cleaned text.
_LINE_BREAK = re.compile(r"\r\n|[\n\r\x0b\x0c\x85\u2028\u2029]")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
_SPACES = re.compile(r" {2,}")


def single_line_text(value: object) -> object:
    """A single-line field's text with control characters stripped (line breaks -> one space).

    Non-strings pass through unchanged for pydantic to refuse.
    """
    if not isinstance(value, str):
        return value
    return _SPACES.sub(" ", _CONTROL.sub("", _LINE_BREAK.sub(" ", value).replace("\t", " ")))


def multi_line_text(value: object) -> object:
    """A multi-line field's text with control characters stripped; line breaks become LF."""
    if not isinstance(value, str):
        return value
    return _CONTROL.sub("", _LINE_BREAK.sub("\n", value).replace("\t", " "))


_INVISIBLE_CATEGORIES = frozenset({"Cf", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories that draw nothing on their own: format (zero-width, bidi marks), spaces,
combining marks."""


def visible_text(value: str) -> str:
    """``value`` unchanged when it has at least one visible character; a name made only of
    zero-width, bidi or combining characters draws as nothing and is refused."""
    if not any(unicodedata.category(char) not in _INVISIBLE_CATEGORIES for char in value):
        raise ValueError("text has no visible character")
    return value


Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=NAME_MAX_CHARS),
    BeforeValidator(single_line_text),
    AfterValidator(visible_text),
]
Story = Annotated[
    str, StringConstraints(max_length=STORY_MAX_CHARS), BeforeValidator(multi_line_text)
]
FeelingWord = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=FEELING_WORD_MAX_CHARS),
    BeforeValidator(single_line_text),
    AfterValidator(visible_text),
]
Label = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
Opaque = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"^[\x21-\x7e]+$")]
# Server ids and slugs: unguessable tokens, and safe inside storage keys and URLs.
Token = Annotated[str, StringConstraints(min_length=6, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
StorageKey = Annotated[str, StringConstraints(min_length=1, max_length=512)]

_STRICT = ConfigDict(extra="forbid", frozen=True)


class Occasion(BaseModel):
    """The occasion as the order API's catalog describes it."""

    model_config = _STRICT

    slug: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,47}$")]
    name: Label
    short_name: Label
    tone: Label
    gentle: bool = False
    sub_type: Label | None = None


LOGO_URL_PATTERN = r"^https://(?:[^\s/?#\[\]]+|\[[0-9A-Fa-f:.]+\](?::[0-9]+)?)(?:/[^\s]*)?$"
"""An https URL with a host (a name, or an IPv6 literal in brackets) and no whitespace:
``http:``, ``https://[::1/logo.png`` (an unclosed bracket) and ``https://a]/x`` are refused here
and in the published schema. Where it points is checked by the fetch (``services.logo_fetch``);
a logo it cannot fetch is left out of the film, never a failed run."""


class Brand(BaseModel):
    """Brand style fields: a public https logo URL and an accent colour."""

    model_config = _STRICT

    logo_url: Annotated[str, StringConstraints(max_length=URL_MAX_CHARS,
                                               pattern=LOGO_URL_PATTERN)] | None = None
    color: Annotated[str, StringConstraints(pattern=r"^#[0-9A-Fa-f]{6}$")] | None = None


class PhotoRef(BaseModel):
    """A stored photo: its slot id, storage key and declared mime type (a hint only)."""

    model_config = _STRICT

    id: Annotated[str, StringConstraints(pattern=r"^p[0-9]{2}$")]
    key: StorageKey
    mime: Literal["image/jpeg", "image/png", "image/webp"]


class ClipRef(BaseModel):
    """A stored clip; duration and size hints are re-probed, never trusted."""

    model_config = _STRICT

    id: Literal["c01", "c02", "c03"]
    key: StorageKey
    mime: Literal["video/mp4", "video/quicktime", "video/webm"]
    duration_hint: Annotated[float, Field(gt=0, le=CLIP_DURATION_HINT_MAX_SEC)] | None = None
    width_hint: Annotated[int, Field(gt=0, le=100_000)] | None = None
    height_hint: Annotated[int, Field(gt=0, le=100_000)] | None = None


class Consent(BaseModel):
    """The customer's attestation recorded on the render call."""

    model_config = _STRICT

    accepted: StrictBool
    """JSON ``true`` or ``false`` only (the spec's literal true; ``"yes"`` or ``1`` is no
    consent). ``false`` validates, and the gate holds the run (``consent_missing``)."""
    at: datetime


class FilmOrder(BaseModel):
    """One paid render, as the order API hands it to the worker. Media arrive as storage keys."""

    model_config = _STRICT

    gift_id: Token
    attempt: Annotated[int, Field(ge=1, le=ATTEMPT_MAX)]
    charge_id: Opaque
    share_slug: Token
    tier: Tier = Tier.SIGNATURE
    style: Style = Style.GIFT
    occasion: Occasion
    recipient_name: Name
    relationship: Name
    memory: Story = ""
    story_note: Story = ""
    feeling_words: Annotated[list[FeelingWord], Field(max_length=FEELING_WORDS_MAX)] = []
    length_sec: Annotated[float, Field(ge=LENGTH_MIN_SEC, le=LENGTH_MAX_SEC)]
    brand: Brand | None = None
    photos: Annotated[list[PhotoRef], Field(min_length=PHOTOS_MIN, max_length=PHOTOS_MAX)]
    subject_photo_id: str | None = None
    clips: Annotated[list[ClipRef], Field(max_length=CLIPS_MAX)] = []
    consent: Consent

    @model_validator(mode="after")
    def _consistent(self) -> FilmOrder:
        self._check_ids_and_keys()
        if self.brand is not None and self.style is not Style.BRAND:
            raise ValueError("brand fields are only allowed with style 'brand'")
        if self.subject_photo_id is not None and self.subject_photo_id not in {
            p.id for p in self.photos
        }:
            raise ValueError("subject_photo_id must name one of the order's photos")
        return self

    def _check_ids_and_keys(self) -> None:
        for refs, folder in ((self.photos, "photos"), (self.clips, "clips")):
            ids = [ref.id for ref in refs]
            if len(set(ids)) != len(ids):
                raise ValueError(f"duplicate {folder} ids")
            for ref in refs:
                if not keys.media_key_pattern(self.gift_id, folder, ref.id).match(ref.key):
                    expected = keys.media_key("{gift_id}", folder, ref.id, "<ext>")
                    raise ValueError(f"{ref.id}: key must be {expected}")

    @property
    def workflow_id(self) -> str:
        """This order's workflow id."""
        return workflow_id(self.gift_id, self.attempt)

    @property
    def run_keys(self) -> RunKeys:
        """Storage keys of this attempt's working files."""
        return RunKeys(self.gift_id, self.attempt)

    @property
    def run_prefix(self) -> str:
        """Storage prefix of this attempt's working files."""
        return keys.run_prefix(self.gift_id, self.attempt)

    @property
    def delivery_prefix(self) -> str:
        """Storage prefix of the delivered films and gift page."""
        return keys.film_prefix(self.share_slug)

    def delivery_key(self, name: str) -> str:
        """Storage key of delivered file ``name`` (``16x9.mp4``, ``index.html``..)."""
        return keys.film_key(self.share_slug, name)


# --- Progress and outcome ----------------------------------------------------------------------


class Progress(BaseModel):
    """Answer of the ``progress`` query, for the API's poll and for ops. ``percent`` is of the
    whole run, ``stage_percent`` of the running stage; both only grow during a run (they move
    with the stage activities' own progress, reported every few seconds)."""

    state: FilmState
    stage: FilmStage
    percent: Annotated[int, Field(ge=0, le=100)]
    stage_percent: Annotated[int, Field(ge=0, le=100)] = 0
    updated_at: datetime


class StageProgress(BaseModel):
    """Internal: a running stage activity's percent, signalled to its run
    (:data:`STAGE_PROGRESS_SIGNAL`). ``part`` is the activity id, so the parallel segments
    of one render add up instead of overwriting each other."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    activity: str
    part: str
    percent: Annotated[int, Field(ge=0, le=100)]


class FilmOutcome(BaseModel):
    """The outcome body POSTed to the order API, and the workflow's result. ``reason`` is
    internal, for ops only. A field without a value is left out, never sent as null: the
    callback's body and the workflow's result are the same JSON."""

    model_config = ConfigDict(extra="forbid")

    workflow_id: str
    attempt: int
    charge_id: str
    state: FilmState
    stage: FilmStage
    reason: str | None = None
    film_url: dict[str, str] | None = None
    gift_url: str | None = None
    poster_url: str | None = None
    duration_sec: float | None = None

    @model_serializer(mode="wrap")
    def _without_absent_fields(self, to_dict: SerializerFunctionWrapHandler):
        # No return annotation: pydantic would take it for the schema of the whole model.
        return {name: value for name, value in to_dict(self).items() if value is not None}

    def body(self) -> bytes:
        """The exact bytes sent and signed."""
        return self.model_dump_json().encode()


OUTCOME_PATH_TEMPLATE = "/internal/fulfillment/{gift_id}"
OUTCOME_METHOD = "POST"


def outcome_path(gift_id: str) -> str:
    """Path of the order API's fulfillment callback, below ``FILM_ORDER_API_URL``."""
    return OUTCOME_PATH_TEMPLATE.format(gift_id=gift_id)


# --- Callback signing --------------------------------------------------------------------------

SIGNATURE_HEADER = "X-Film-Signature"
TIMESTAMP_HEADER = "X-Film-Timestamp"
IDEMPOTENCY_HEADER = "Idempotency-Key"
MAX_CLOCK_SKEW_S = 300
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
"""Unix seconds in ASCII digits (``str.isdigit`` also takes Arabic-Indic and superscript ones)."""


def sign_body(secret: str, timestamp: int, body: bytes) -> str:
    """``v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"v1={mac.hexdigest()}"


def verify_signature(
    secret: str,
    timestamp_header: str,
    signature_header: str,
    body: bytes,
    *,
    now: float | None = None,
) -> bool:
    """True when the signature matches and the timestamp is within 300 s of ``now``; False (never
    an exception) for any malformed header, non-ASCII digits included."""
    if not _TIMESTAMP.fullmatch(timestamp_header) or not signature_header.isascii():
        return False
    timestamp = int(timestamp_header)
    current = time.time() if now is None else now
    if abs(current - timestamp) > MAX_CLOCK_SKEW_S:
        return False
    return hmac.compare_digest(sign_body(secret, timestamp, body), signature_header)


# --- Starting a render (for the order API) ------------------------------------------------------


async def connect_starter() -> Client:
    """The order API's client, connected as the workers are: the ``temporalio.envconfig``
    profile with the ``TEMPORAL_*`` variables over it (address, namespace, API key, TLS), and
    the pydantic data converter sealed with ``FILM_PAYLOAD_KEYS`` (:mod:`workflows.codec`)."""
    from temporalio.client import Client
    from temporalio.envconfig import ClientConfigProfile

    from workflows.codec import codec_from_env, film_data_converter

    config = ClientConfigProfile.load().to_client_connect_config()
    config.setdefault("target_host", "localhost:7233")
    config.setdefault("namespace", "default")
    return await Client.connect(**config, data_converter=film_data_converter(codec_from_env()))


def start_search_attributes(gift_id: str, tier: str) -> list[tuple[SearchAttributeKey[str], str]]:
    """The search attributes a start sets, with their values (``contract/names.json``)."""
    from workflows.search import FILM_STAGE, FILM_STATE, FILM_TIER, GIFT_ID

    return [(GIFT_ID, gift_id), (FILM_STATE, FilmState.RUNNING.value),
            (FILM_STAGE, FilmStage.PREP.value), (FILM_TIER, tier)]


async def start_render(
    client: Client, order: FilmOrder, *, task_queue: str = TASK_QUEUE
) -> WorkflowHandle[object, FilmOutcome]:
    """Start the render of ``order``, or attach to its live run on a repeated call.

    ``client`` must use the workers' data converter and payload keys
    (:func:`connect_starter`, or ``workflows.codec.film_data_converter``).

    Raises whatever the client raises when the workflow cannot be started: the API answers
    ``502 trigger_failed`` then and refunds.
    """
    from temporalio.common import (  # lazy: the API can import this module without temporalio
        SearchAttributePair,
        TypedSearchAttributes,
        WorkflowIDConflictPolicy,
        WorkflowIDReusePolicy,
    )

    attributes = TypedSearchAttributes(
        [SearchAttributePair(key, value)
         for key, value in start_search_attributes(order.gift_id, order.tier.value)]
    )
    return await client.start_workflow(
        WORKFLOW_TYPE,
        order,
        id=order.workflow_id,
        task_queue=task_queue,
        id_reuse_policy=WorkflowIDReusePolicy[ID_REUSE_POLICY],
        id_conflict_policy=WorkflowIDConflictPolicy[ID_CONFLICT_POLICY],
        result_type=FilmOutcome,
        search_attributes=attributes,
        static_summary=f"{order.tier.value} film for gift {order.gift_id} "
        f"(attempt {order.attempt}, {order.length_sec:g}s, {order.occasion.slug})",
    )
