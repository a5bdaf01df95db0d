"""The stage activities: their names, task queues, timeouts and retries, their inputs and
outputs, and the hold error type.

Light imports only: the workflow imports this module, and activities import it to implement the
stages. Stage results carry storage keys and small facts, never media bytes.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field
from temporalio.common import RetryPolicy
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from workflows.contract import FilmOrder, FilmOutcome, FilmStage

HOLD_ERROR_TYPE = "CustomerHold"
"""ApplicationError type raised (non-retryable) when the customer's media or policy stops a run."""


def hold(reason: str, message: str) -> ApplicationError:
    """The error that ends a run as held: customer media or policy, never retried. Benign: the
    SDK logs it at debug level without a traceback and does not count it as a failed activity."""
    return ApplicationError(message, reason, type=HOLD_ERROR_TYPE, non_retryable=True,
                            category=ApplicationErrorCategory.BENIGN)


class ActivityName(StrEnum):
    """Registered activity names: one per stage but render, the render stage's parts, the
    outcome report and what forgets the run's working files after it.

    The render stage is ``render_plan``, then either ``render_film`` (the plan allows one
    segment: the film whole, nothing to join) or one ``render_segment`` per segment and
    ``render_join``. No activity is named after the render stage itself.
    """

    PREP = "prep"
    GATE = "gate"
    ASSETS = "assets"
    RENDER_PLAN = "render_plan"
    RENDER_SEGMENT = "render_segment"
    RENDER_JOIN = "render_join"
    RENDER_FILM = "render_film"
    VERIFY = "verify"
    DELIVER = "deliver"
    REPORT_OUTCOME = "report_outcome"
    FORGET_RUN_FILES = "forget_run_files"  # after the report: deleted now, or a FilmRunCleanup
    CLEAN_RUN = "clean_run"  # workflows.cleanup: a run's working files, after their retention
    PLAIN_START = "plain_start"


RENDER_ACTIVITIES: tuple[ActivityName, ...] = (
    ActivityName.RENDER_PLAN, ActivityName.RENDER_SEGMENT, ActivityName.RENDER_JOIN,
    ActivityName.RENDER_FILM)
"""The activities the render stage is split into."""

STAGE_ACTIVITIES: dict[FilmStage, tuple[ActivityName, ...]] = {
    FilmStage.PREP: (ActivityName.PREP,),
    FilmStage.GATE: (ActivityName.GATE,),
    FilmStage.ASSETS: (ActivityName.ASSETS,),
    FilmStage.RENDER: RENDER_ACTIVITIES,
    FilmStage.VERIFY: (ActivityName.VERIFY,),
    FilmStage.DELIVER: (ActivityName.DELIVER,),
}
"""The activities each stage may run: its namesake, or the render stage's parts."""

class TaskQueue(StrEnum):
    """Which of a run's two task queues an activity runs on: the run's own (``main``: light
    orchestration work that must never wait behind a render) or its media queue
    (``{task_queue}-media``: the heavy media work, with its own workers and slots)."""

    MAIN = "main"
    MEDIA = "media"


ACTIVITY_QUEUE: dict[ActivityName, TaskQueue] = {
    ActivityName.PREP: TaskQueue.MEDIA,
    ActivityName.GATE: TaskQueue.MAIN,
    ActivityName.ASSETS: TaskQueue.MEDIA,
    ActivityName.RENDER_PLAN: TaskQueue.MEDIA,
    ActivityName.RENDER_SEGMENT: TaskQueue.MEDIA,
    ActivityName.RENDER_JOIN: TaskQueue.MEDIA,
    ActivityName.RENDER_FILM: TaskQueue.MEDIA,
    ActivityName.VERIFY: TaskQueue.MEDIA,
    ActivityName.DELIVER: TaskQueue.MEDIA,
    ActivityName.REPORT_OUTCOME: TaskQueue.MAIN,
    ActivityName.FORGET_RUN_FILES: TaskQueue.MAIN,
    ActivityName.CLEAN_RUN: TaskQueue.MAIN,
    ActivityName.PLAIN_START: TaskQueue.MAIN,  # a local activity of the orchestration worker
}
"""The queue of every activity: the one place it is said (workers, workflow and ops read it)."""

MEDIA_QUEUE_SUFFIX = "-media"


def activities_on(queue: TaskQueue) -> tuple[ActivityName, ...]:
    """The activities that run on ``queue``, in :class:`ActivityName` order."""
    return tuple(name for name in ActivityName if ACTIVITY_QUEUE[name] is queue)


def media_task_queue(task_queue: str) -> str:
    """The media task queue that belongs to ``task_queue``."""
    return f"{task_queue}{MEDIA_QUEUE_SUFFIX}"


STAGE_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=5),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=2),
    maximum_attempts=3,
    non_retryable_error_types=[HOLD_ERROR_TYPE],
)


class StageTimeouts:
    """The timeouts of one stage's activities: start-to-close (one attempt), schedule-to-close
    (all attempts and the waits between them; None: unbounded but by the attempts) and
    heartbeat (None: the activity does not heartbeat)."""

    def __init__(self, start_to_close: timedelta | None, heartbeat: timedelta | None,
                 schedule_to_close: timedelta | None = None) -> None:
        self.start_to_close = start_to_close
        self.heartbeat = heartbeat
        self.schedule_to_close = schedule_to_close


# Start-to-close: sized for the worst order (180 s film, 30 photos, three 500 MB clips) on a
# 2-core worker; the render stage has none (see RENDER_STALL). Heartbeat: the stages heartbeat
# every few seconds from a background thread (activities.context.Heartbeater), so 30 s of
# silence means the worker died; the server then retries the stage elsewhere after
# STAGE_RETRY's interval instead of waiting for start-to-close.
STAGE_HEARTBEAT = timedelta(seconds=30)
RENDER_STALL = timedelta(minutes=10)
"""How long a render of frames (``render_film``, ``render_segment``) may go without a frame
composed before it counts as stalled: its heartbeats stop (they go out only while frames
advance) and the server times the attempt out :data:`STAGE_HEARTBEAT` later, then retries it.
A busy host is slow, not broken: its frames come slowly but they come, so the render's limit
follows its progress, never the film's length or the clock."""
RENDER_SAFETY_NET = timedelta(hours=12)
"""Schedule-to-close of every render stage activity, all attempts included: a net for a render
that keeps composing frames and never ends, far above any film's render on a busy host (the
sample orders' 30-35 s films render whole, every stage, in about a minute on an idle 2-core
worker). No start-to-close: a slow attempt is ended by its stall, never by the clock."""
STAGE_TIMEOUTS: dict[FilmStage, StageTimeouts] = {
    FilmStage.PREP: StageTimeouts(timedelta(minutes=30), STAGE_HEARTBEAT),
    FilmStage.GATE: StageTimeouts(timedelta(minutes=2), None),
    FilmStage.ASSETS: StageTimeouts(timedelta(minutes=30), STAGE_HEARTBEAT),
    FilmStage.RENDER: StageTimeouts(None, STAGE_HEARTBEAT, RENDER_SAFETY_NET),
    FilmStage.VERIFY: StageTimeouts(timedelta(minutes=15), STAGE_HEARTBEAT),
    FilmStage.DELIVER: StageTimeouts(timedelta(minutes=15), STAGE_HEARTBEAT),
}

# The callback must reach the order API: retried with backoff for up to a day.
REPORT_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=10),
    maximum_attempts=0,
    non_retryable_error_types=["OutcomeRejected"],
)
REPORT_SCHEDULE_TO_CLOSE = timedelta(days=1)
REPORT_START_TO_CLOSE = timedelta(seconds=60)


_STAGE_BY_ACTIVITY: dict[str, FilmStage] = {
    name: stage for stage, names in STAGE_ACTIVITIES.items() for name in names}


MEDIA_STAGES = frozenset(stage for stage, names in STAGE_ACTIVITIES.items()
                         if all(ACTIVITY_QUEUE[name] is TaskQueue.MEDIA for name in names))
"""Stages that run wholly on the media queue (all but the gate)."""


def stage_of(activity_name: str) -> str:
    """The stage an activity works for (``render`` for the render stage's parts); any other
    activity (the outcome report) is named as itself."""
    stage = _STAGE_BY_ACTIVITY.get(activity_name)
    return stage.value if stage else activity_name


class HoldReason(StrEnum):
    """Internal reason codes for held runs (ops only; the public API withholds them)."""

    NO_USABLE_PHOTOS = "no_usable_photos"
    CONSENT_MISSING = "consent_missing"
    TEXT_POLICY = "text_policy"
    MODERATION_HOLD = "moderation_hold"
    SONG_PROVIDER_HOLD = "song_provider_hold"
    MOTION_PROVIDER_HOLD = "motion_provider_hold"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Rejection(_Model):
    """One customer file left out of the film, and why."""

    id: str
    reason: str


class PreparedPhoto(_Model):
    """A verified, upright sRGB working copy of one photo."""

    id: str
    key: str
    width: int
    height: int
    low_res: bool
    trimmed_from: tuple[float, float, float, float] | None = None
    """When intake cut flat borders away (a screenshot's bars, a scan's margin): the working
    copy's box in shares of the upright photo ``(left, top, right, bottom)``."""


class ClipScores(_Model):
    """What prep's low-resolution pass over a mezzanine found (see
    :mod:`media.intake.clip_analysis`), for the render's plan: the clip's quality every
    ``step_s`` seconds (``scores``, about 0..1, rounded to 4 places) and the perceptual hashes
    of a few of its frames (``hashes``: is the clip a photo's twin?). Numbers only: a few
    hundred floats for the longest mezzanine."""

    step_s: float
    scores: tuple[float, ...]
    hashes: tuple[int, ...]


class PreparedClip(_Model):
    """A normalized mezzanine of one clip (H.264, 30 fps CFR, upright, BT.709); ``scores``,
    prep's analysis of it (None from a prep that did not analyse: the plan then analyses the
    clip itself)."""

    id: str
    key: str
    duration_sec: float
    width: int
    height: int
    has_audio: bool
    scores: ClipScores | None = None


class PrepResult(_Model):
    """What prep made of the order's media."""

    photos: list[PreparedPhoto]
    clips: list[PreparedClip]
    rejected: list[Rejection]


class StageInput(_Model):
    """Input of every stage after prep: the order and prep's result."""

    order: FilmOrder
    prep: PrepResult


class GateResult(_Model):
    """The gate passed; notes say what it checked."""

    notes: list[str]


class MotionClip(_Model):
    """A photo brought to motion by the motion provider, normalized like a customer's clip
    (H.264, 30 fps CFR, upright, BT.709): ``duration_sec`` seconds, ``width`` x ``height``
    pixels; the film shows it in that photo's full-motion shot."""

    key: str
    duration_sec: float
    width: int
    height: int


class AssetsResult(_Model):
    """Keys of the assets the render stage reads."""

    song_key: str
    song_meta_key: str
    framing_key: str
    photo_keys: dict[str, str]
    lyrics: list[str]
    notes: list[str]
    logo_key: str | None = None
    """The brand logo (RGBA PNG) when style is brand and it could be fetched."""
    lyrics_sung: bool = False
    """True only when the song sings ``lyrics`` (a song service's vocal); the local composer's
    lines are a dedication."""
    motion_clips: dict[str, MotionClip] = Field(default_factory=dict)
    """The motion provider's clips by photo id (none with the local moves, the default)."""


class RenderInput(_Model):
    """Input of the render stage."""

    order: FilmOrder
    prep: PrepResult
    assets: AssetsResult


class RenderResult(_Model):
    """Keys of the encoded films (by aspect name), the poster and the timeline plan, and of what
    the films' frames looked like as they were composed (``signal_keys`` by aspect name, see
    :mod:`media.frames.signal`; empty from renders before they were kept: verify then decodes
    the films)."""

    film_keys: dict[str, str]
    poster_key: str
    timeline_key: str
    duration_sec: float
    signal_keys: dict[str, str] = Field(default_factory=dict)
    poster_layouts: dict[str, dict[str, list[float] | None]] = Field(default_factory=dict)
    """Each aspect's poster layout by aspect name (where its words and subject sit, normalized
    ``[x0, y0, x1, y1]`` boxes, see :class:`media.deliver.layout.PosterLayout`): the gift page
    places its play button and controls from it. Empty from renders before it was kept."""


class RenderPlan(_Model):
    """The render stage's plan, stored for its segments: the timeline and the soundtrack (keys),
    the film's length, where it may be cut, and how many media workers may render it at once."""

    timeline_key: str
    soundtrack_key: str
    total_frames: int
    fps: int
    duration_sec: float
    cut_frames: list[int]
    """Frames where a segment may start (shot boundaries outside clip shots), ascending."""
    render_workers: int
    """``FILM_RENDER_WORKERS`` of the worker that planned: config reaches the workflow here."""


class SegmentInput(_Model):
    """One segment to render: frames ``[start_frame, stop_frame)`` of the planned film."""

    render: RenderInput
    plan: RenderPlan
    index: int
    start_frame: int
    stop_frame: int


class SegmentResult(_Model):
    """Keys of one rendered segment's video-only files and frame signals (by aspect name) and
    its frame count."""

    index: int
    film_keys: dict[str, str]
    frames: int
    signal_keys: dict[str, str] = Field(default_factory=dict)


class JoinInput(_Model):
    """The segments to join, in film order, under the plan's soundtrack."""

    render: RenderInput
    plan: RenderPlan
    segments: list[SegmentResult]


class WholeFilmInput(_Model):
    """The planned film to render in one pass, both aspects with the plan's soundtrack."""

    render: RenderInput
    plan: RenderPlan


class VerifyInput(_Model):
    """Input of the verify stage."""

    order: FilmOrder
    render: RenderResult


class VerifyResult(_Model):
    """Both films met the output spec; measurements per aspect."""

    measurements: dict[str, dict[str, float | str]]


class DeliverInput(_Model):
    """Input of the deliver stage."""

    order: FilmOrder
    render: RenderResult
    assets: AssetsResult


class DeliverResult(_Model):
    """Public URLs of what was delivered."""

    film_url: dict[str, str]
    gift_url: str
    poster_url: str


class PlainStart(_Model):
    """A start that arrived unsealed while payload keys are set (the ``plain_start`` local
    activity logs and counts it and says whether ``FILM_REFUSE_PLAIN_STARTS`` refuses it)."""

    workflow_id: str


class ReportInput(_Model):
    """The outcome to report for one order."""

    gift_id: str
    outcome: FilmOutcome

