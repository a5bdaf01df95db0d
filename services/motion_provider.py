"""Where the film's full-motion shots come from: the local camera moves (the default), or an
external image-to-video service over HTTP that brings photos to motion.

:class:`LocalMotionProvider` orders nothing: the render moves every photo itself, as it always
did. :class:`HttpMotionProvider` speaks a small job protocol, one job per photo:

- ``POST {base}/motions``, ``multipart/form-data``: the part ``photo`` is the photo as the film
  shows it (restored, a JPEG at most :data:`UPLOAD_LONG_EDGE_PX` on its long edge and
  :data:`UPLOAD_MAX_BYTES`), the part ``request`` is JSON ``{"photo_id", "duration_s",
  "width", "height", "aspect", "fps"}`` (the clip wanted: its seconds, the photo's own size and
  shape, 30 fps; the render frames the clip for each aspect itself, faces whole). Header
  ``Idempotency-Key: {workflow id}-{photo id}``: a retried activity finds the job it ordered,
  never orders twice. The bytes go in the request because our storage keys are private (a
  local folder, or a bucket without public reads): a short-lived URL would need presigning per
  backend (impossible for ``file://``), would let the service fetch the customer's photo for as
  long as it lives, and would send a photo larger than the one the film shows. Answers
  ``{"id", "status"}``.
- ``GET {base}/motions/{id}`` is polled every ``poll_interval`` s, all of a run's jobs
  together, until each is ``done`` (``video_url``: an MP4, MOV or WebM), ``hold`` or
  ``failed``, for at most ``max_wait`` s per run (the budget of the whole run, not per job).
- The video is streamed to disk under ``max_bytes``, then taken in as a customer's clip is
  (:mod:`media.intake`: its container by its bytes, the probe's checks, normalized to the
  mezzanine: H.264 30 fps CFR BT.709, at most the seconds ordered).

A run orders at most its :class:`MotionBudget` (``FILM_MOTION_PROVIDER_MAX_CLIPS`` clips and
``FILM_MOTION_PROVIDER_MAX_SECONDS`` seconds of generated motion), most wanted photo first; the
photos past it are never sent and keep their local moves (``budget``: not an error).

What each answer does:

- ``hold`` (the service will not animate this photo: its content policy) ends the run held,
  reason ``motion_provider_hold``, as the song provider's hold does; refunded.
- A network error, a timeout of a request, a 5xx, 408 or 429 raises
  :class:`MotionProviderUnavailable` (retryable, with ``Retry-After`` as the next retry's
  delay): the assets stage's retry policy (:data:`workflows.stages.STAGE_RETRY`) runs it
  again and the same idempotency keys find the same jobs. On the stage's last attempt
  (``last_attempt``) the photos still waiting keep their local moves instead: a service that
  stays down never costs the customer the film.
- Everything else keeps that photo's local move and the film is made (a provider failing is
  not a refund): ``failed`` (``failed``), a refused request (``refused_<status>``), an answer
  we cannot read (``bad_answer``), a job not done within the run's wait (``timeout``), a video
  over ``max_bytes`` (``too_large``) and one our intake refuses (its reason, e.g.
  ``unsupported_container``). :attr:`MotionResult.fallbacks` says which photo and why.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import quote, urljoin, urlsplit

import httpx
from PIL import Image
from temporalio.exceptions import ApplicationError

from media.base.errors import MediaRejected
from media.base.probe import sniff_container
from media.intake.clip_checks import probe_clip
from media.intake.clips import MEZZANINE_FPS, normalize_clip
from services.provider_http import provider_request, raise_if_retryable, save_capped
from services.settings import Settings
from services.song_provider import ANSWER_MAX_BYTES, PENDING_STATUSES
from workflows.contract import IDEMPOTENCY_HEADER
from workflows.stages import HoldReason, hold

UPLOAD_LONG_EDGE_PX = 2048
"""Long edge (pixels) of the photo sent: image-to-video services make 720p-1080p video, so a
larger photo would only cost upload time."""
UPLOAD_MAX_BYTES = 8 << 20
"""Largest photo upload (bytes): a 2048 px JPEG at :data:`UPLOAD_JPEG_QUALITY` is 0.3-2 MB."""
UPLOAD_JPEG_QUALITY = 90
NORMALIZE_TIMEOUT_S = 120.0
"""Wall-clock limit (seconds) of one clip's normalize (a 10 s clip takes a few)."""

FAILED = "failed"
TIMEOUT = "timeout"
BAD_ANSWER = "bad_answer"
TOO_LARGE = "too_large"
UNAVAILABLE = "unavailable"
UPLOAD_TOO_LARGE = "upload_too_large"
BUDGET = "budget"


class MotionProviderUnavailable(ApplicationError):
    """The service could not be reached or answered 5xx, 408 or 429: the assets activity's retry
    policy runs it again (after ``retry_after_s`` when the service said so)."""

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        delay = timedelta(seconds=retry_after_s) if retry_after_s else None
        super().__init__(message, type="MotionProviderUnavailable", next_retry_delay=delay)


class _FallBack(Exception):
    """This photo keeps its local move; ``reason`` says why (see the module doc)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(frozen=True)
class MotionOrder:
    """One photo to bring to motion: ``photo`` as the film shows it (a JPEG on local disk),
    ``seconds`` of clip wanted, and the ``idempotency_key`` a retry orders it again with."""

    photo_id: str
    photo: Path
    seconds: float
    idempotency_key: str


@dataclass(frozen=True)
class MotionBudget:
    """What one run may order: at most ``clips`` clips and ``seconds`` seconds of generated
    motion (the seconds ordered, summed)."""

    clips: int = 6
    seconds: float = 60.0

    def split(self, orders: Sequence[MotionOrder]) -> tuple[list[MotionOrder], list[str]]:
        """The ``orders`` within the budget, most wanted (first) first, and the ids of the
        photos past it (they keep their local moves: :data:`BUDGET`)."""
        within: list[MotionOrder] = []
        seconds = 0.0
        for order in orders:
            if len(within) < self.clips and seconds + order.seconds <= self.seconds:
                within.append(order)
                seconds += order.seconds
        return within, [o.photo_id for o in orders if o not in within]


@dataclass(frozen=True)
class MotionClipFile:
    """A provider's clip of a photo, taken in: the mezzanine at ``path``, ``duration_s``
    seconds of ``width`` x ``height`` pixels, from the service's job ``job``."""

    photo_id: str
    path: Path
    duration_s: float
    width: int
    height: int
    job: str


@dataclass(frozen=True)
class MotionResult:
    """The clips made (by photo id) and the photos that keep their local move, with why."""

    clips: dict[str, MotionClipFile] = field(default_factory=dict)
    fallbacks: dict[str, str] = field(default_factory=dict)

    def notes(self) -> list[str]:
        """The assets stage's notes: one per clip, and ``motion_fallback:p02=failed,...``."""
        notes = [f"motion {c.photo_id}: provider clip {c.duration_s:.1f} s "
                 f"{c.width}x{c.height} (job {c.job})" for c in self.clips.values()]
        if self.fallbacks:
            notes.append("motion_fallback:" + ",".join(
                f"{photo}={reason}" for photo, reason in sorted(self.fallbacks.items())))
        return notes


class MotionProvider(Protocol):
    """Brings photos to motion for the film's full-motion shots."""

    name: str

    def make_motions(self, orders: Sequence[MotionOrder], scratch_dir: Path, *,
                     last_attempt: bool = False) -> MotionResult:
        """A clip for each of ``orders`` it could make (written under ``scratch_dir``), and
        why the others keep their local moves. ``last_attempt``: the stage will not be retried,
        so what would be retried falls back instead."""
        ...


class LocalMotionProvider:
    """The render's own camera moves: nothing is ordered, every photo keeps its local move."""

    name = "local"

    def make_motions(self, orders: Sequence[MotionOrder], scratch_dir: Path, *,
                     last_attempt: bool = False) -> MotionResult:
        """No clips: the local moves are the film's motion."""
        return MotionResult()


T = TypeVar("T")


class HttpMotionProvider:
    """Orders clips from an external image-to-video service (see the module doc).

    ``timeout`` is per request, ``poll_interval`` between status reads and ``max_wait`` the
    longest the run waits for all its clips (seconds); ``max_bytes`` caps each download and
    ``budget`` what one run orders."""

    name = "http"

    def __init__(self, base_url: str, timeout: float, poll_interval: float, max_wait: float,
                 *, max_bytes: int, budget: MotionBudget = MotionBudget(),
                 token: str | None = None) -> None:
        if urlsplit(base_url).scheme not in ("http", "https"):
            raise ValueError(f"motion provider URL must be http(s): {base_url!r}")
        self.base_url = base_url.rstrip("/") + "/"
        self.timeout, self.poll_interval, self.max_wait = timeout, poll_interval, max_wait
        self.max_bytes, self.budget = max_bytes, budget
        self._auth = {"Authorization": f"Bearer {token}"} if token else {}

    @classmethod
    def from_settings(cls, settings: Settings) -> HttpMotionProvider:
        """The provider configured by ``FILM_MOTION_PROVIDER_*``."""
        assert settings.motion_provider_url is not None
        return cls(settings.motion_provider_url, settings.motion_provider_timeout_s,
                   settings.motion_provider_poll_s, settings.motion_provider_max_wait_s,
                   max_bytes=settings.motion_provider_max_bytes,
                   budget=MotionBudget(settings.motion_provider_max_clips,
                                       settings.motion_provider_max_seconds),
                   token=settings.motion_provider_token)

    def make_motions(self, orders: Sequence[MotionOrder], scratch_dir: Path, *,
                     last_attempt: bool = False) -> MotionResult:
        """Order every clip within the run's budget (the rest: :data:`BUDGET`), wait for them
        together, download and take in each one done."""
        orders, over_budget = self.budget.split(orders)
        result = MotionResult(fallbacks=dict.fromkeys(over_budget, BUDGET))
        if not orders:
            return result
        deadline = time.monotonic() + self.max_wait
        by_id = {order.photo_id: order for order in orders}

        def attempt(photo_id: str, step: Callable[[], T]) -> T | None:
            """``step()``, or None with the photo's fallback recorded."""
            try:
                return step()
            except _FallBack as fallback:
                result.fallbacks[photo_id] = fallback.reason
            except MotionProviderUnavailable:
                if not last_attempt:
                    raise
                result.fallbacks[photo_id] = UNAVAILABLE
            return None

        with httpx.Client(timeout=self.timeout, follow_redirects=False) as client:
            jobs = {}
            for order in orders:
                job = attempt(order.photo_id, lambda o=order: self._submit(client, o))
                if job is not None:
                    jobs[order.photo_id] = job
            done = self._wait(client, jobs, deadline, attempt, result.fallbacks)
            for photo_id, job in done.items():
                clip = attempt(photo_id, lambda p=photo_id, j=job: self._take_in(
                    client, by_id[p], j, scratch_dir))
                if clip is not None:
                    result.clips[photo_id] = clip
        return result

    # ---------------------------------------------------------------- protocol steps

    def _submit(self, client: httpx.Client, order: MotionOrder) -> dict[str, Any]:
        """``POST /motions``: the photo and what clip we want; the job as answered."""
        photo, width, height = upload_photo(order.photo)
        request = {"photo_id": order.photo_id, "duration_s": order.seconds, "width": width,
                   "height": height, "aspect": round(width / height, 4), "fps": MEZZANINE_FPS}
        response = self._request(
            client, "POST", urljoin(self.base_url, "motions"),
            files={"photo": (f"{order.photo_id}.jpg", photo, "image/jpeg")},
            data={"request": json.dumps(request)},
            headers={**self._auth, IDEMPOTENCY_HEADER: order.idempotency_key})
        job = self._answer(response)
        if not isinstance(job.get("id"), str | int) or str(job["id"]) == "":
            raise _FallBack(BAD_ANSWER, "no job id")
        return {**job, "id": str(job["id"])}

    def _wait(self, client: httpx.Client, jobs: dict[str, dict[str, Any]], deadline: float,
              attempt: Callable[[str, Callable[[], Any]], Any],
              fallbacks: dict[str, str]) -> dict[str, dict[str, Any]]:
        """Poll every job until it is done (returned by photo id), fails (a fallback) or the
        run's wait is over (the rest: ``timeout``); a held job ends the run here."""
        pending, done = dict(jobs), {}
        while True:
            for photo_id, job in list(pending.items()):
                status = _status(job)
                if status in PENDING_STATUSES:
                    continue
                del pending[photo_id]
                if status == "done":
                    done[photo_id] = job
                elif status == "hold":
                    raise hold(HoldReason.MOTION_PROVIDER_HOLD,
                               f"motion provider held photo {photo_id}: "
                               f"{str(job.get('reason', ''))[:200]}")
                else:
                    fallbacks[photo_id] = FAILED if status == "failed" else BAD_ANSWER
            if not pending:
                return done
            if time.monotonic() + self.poll_interval > deadline:
                fallbacks.update(dict.fromkeys(pending, TIMEOUT))
                return done
            time.sleep(self.poll_interval)
            for photo_id, job in list(pending.items()):
                polled = attempt(photo_id, lambda j=job: self._poll(client, j))
                if polled is None:
                    del pending[photo_id]
                else:
                    pending[photo_id] = polled

    def _poll(self, client: httpx.Client, job: dict[str, Any]) -> dict[str, Any]:
        url = urljoin(self.base_url, f"motions/{quote(job['id'], safe='')}")
        return {**self._answer(self._request(client, "GET", url, headers=self._auth)),
                "id": job["id"]}

    def _take_in(self, client: httpx.Client, order: MotionOrder, job: Mapping[str, Any],
                 scratch_dir: Path) -> MotionClipFile:
        """Download the done job's video and take it in as a customer's clip: its container by
        its bytes, the intake's checks, the mezzanine (at most the seconds ordered)."""
        url = urljoin(self.base_url, str(job.get("video_url") or ""))
        if not job.get("video_url") or urlsplit(url).scheme not in ("http", "https"):
            raise _FallBack(BAD_ANSWER, "done without an http(s) video_url")
        source = self._download(client, url, scratch_dir / f"{order.photo_id}.provider")
        mezzanine = scratch_dir / f"{order.photo_id}.motion.mp4"
        try:
            probe = probe_clip(source, sniff_container(source))
            info = normalize_clip(source, mezzanine, probe, max_seconds=order.seconds,
                                  timeout_s=NORMALIZE_TIMEOUT_S)
        except MediaRejected as rejected:
            raise _FallBack(rejected.reason, rejected.detail) from rejected
        finally:
            source.unlink(missing_ok=True)
        return MotionClipFile(order.photo_id, mezzanine, info.duration_s, info.width,
                              info.height, str(job["id"]))

    def _download(self, client: httpx.Client, url: str, dest: Path) -> Path:
        """Stream the video to ``dest`` (at most ``max_bytes``); nothing is left there when the
        download fails."""
        try:
            with client.stream("GET", url, headers=self._auth_for(url)) as response:
                if response.status_code != 200:
                    raise_if_retryable(response, "video download", "motion provider",
                                       MotionProviderUnavailable)
                    raise _FallBack(f"refused_{response.status_code}", "video download")
                return self._save(response, dest)
        except httpx.TransportError as exc:
            dest.unlink(missing_ok=True)
            raise MotionProviderUnavailable(
                f"video download failed: {type(exc).__name__}: {exc}") from exc
        except BaseException:
            dest.unlink(missing_ok=True)
            raise

    def _auth_for(self, url: str) -> dict[str, str]:
        """Our token goes to the service's own origin only, never to a CDN it links to."""
        same = urlsplit(url)[:2] == urlsplit(self.base_url)[:2]
        return self._auth if same else {}

    def _save(self, response: httpx.Response, dest: Path) -> Path:
        def too_large(declared: str | None) -> _FallBack:
            return _FallBack(TOO_LARGE, f"{declared} bytes" if declared
                             else f"over {self.max_bytes} bytes")
        return save_capped(response, dest, self.max_bytes, too_large)

    # ---------------------------------------------------------------- HTTP plumbing

    def _request(self, client: httpx.Client, method: str, url: str,
                 **kwargs: Any) -> httpx.Response:
        """One request; a network error, a timeout, a 5xx, 408 or 429 raises
        :class:`MotionProviderUnavailable` for the activity's retry policy."""
        return provider_request(client, method, url, "motion provider",
                                MotionProviderUnavailable, **kwargs)

    @staticmethod
    def _answer(response: httpx.Response) -> dict[str, Any]:
        """The JSON object of a 2xx answer; a refusal or an unreadable answer falls back."""
        if not 200 <= response.status_code < 300:
            raise _FallBack(f"refused_{response.status_code}")
        if len(response.content) > ANSWER_MAX_BYTES:
            raise _FallBack(BAD_ANSWER, "answer too large")
        try:
            data = response.json()
        except ValueError as exc:
            raise _FallBack(BAD_ANSWER, "not JSON") from exc
        if not isinstance(data, dict):
            raise _FallBack(BAD_ANSWER, "not a JSON object")
        return data


def _status(job: Mapping[str, Any]) -> str:
    return str(job.get("status", "")).lower()


def upload_photo(path: Path) -> tuple[bytes, int, int]:
    """The photo at ``path`` as sent to the service: a JPEG at most
    :data:`UPLOAD_LONG_EDGE_PX` on its long edge (its colour profile kept), with its width and
    height (pixels). Over :data:`UPLOAD_MAX_BYTES` it keeps its local move."""
    with Image.open(path) as image:
        icc = image.info.get("icc_profile")
        rgb = image.convert("RGB")
    rgb.thumbnail((UPLOAD_LONG_EDGE_PX, UPLOAD_LONG_EDGE_PX), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    rgb.save(out, "JPEG", quality=UPLOAD_JPEG_QUALITY, **({"icc_profile": icc} if icc else {}))
    if out.tell() > UPLOAD_MAX_BYTES:
        raise _FallBack(UPLOAD_TOO_LARGE, f"{out.tell()} bytes")
    return out.getvalue(), rgb.width, rgb.height


def motion_provider(settings: Settings) -> MotionProvider:
    """The configured provider: HTTP when ``FILM_MOTION_PROVIDER_URL`` is set, else local."""
    if settings.motion_provider_url:
        return HttpMotionProvider.from_settings(settings)
    return LocalMotionProvider()
