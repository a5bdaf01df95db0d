"""Where the film's song comes from: the local composer, or an external song service over HTTP.

Both providers hand back :class:`SongAssets`: a mastered 48 kHz stereo WAV of exactly the
ordered length and the metadata the run stores as ``song.json`` (tempo, key, beat and bar
times, sections, lyrics, loudness, every candidate's score and the chosen one, the provider).

:class:`HttpSongProvider` speaks a small job protocol:

- ``POST {base}/songs`` with the brief as JSON and an ``Idempotency-Key`` header (the same key
  on a retried activity, so a song is never ordered twice) answers ``{"id", "status"}``;
- ``GET {base}/songs/{id}`` is polled every ``poll_interval`` s, at most ``max_wait`` s, until
  ``status`` is ``done`` (with ``audio_url`` and optional ``tempo_bpm``, ``key``,
  ``beat_times``, ``bar_times``, ``sections``, ``lyrics``), ``hold`` (the run ends held,
  reason ``song_provider_hold``) or ``failed``;
- the audio is streamed to disk under a size cap, then validated, decoded, mastered and given a
  beat grid by :func:`media.song.imported.import_song`.

Each request is made once. A network error, a timeout, a 5xx, 408 or 429 raises
:class:`SongProviderUnavailable` (retryable, with a ``Retry-After`` as the next retry's delay):
the assets activity's retry policy (:data:`workflows.stages.STAGE_RETRY`) runs it again with
backoff, as the outcome callback's policy does for the report, and the retry orders with the same
idempotency key, so it finds the job it ordered. A failed job, a refused request or unusable
audio raise :class:`SongProviderError` (not retried: the same idempotency key would fetch the
same answer).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from concurrent.futures import Executor
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, urljoin, urlsplit

import httpx
from temporalio.exceptions import ApplicationError

from media.base.spec import AUDIO_CHANNELS, AUDIO_SAMPLE_RATE
from media.song.compose import ComposedSong, SongBrief, song_seed, write_wav
from media.song.imported import SongAudioRejected, import_song
from media.song.score import SongScore, compose_best, score_song
from services.provider_http import (
    provider_request,
    raise_if_retryable,
    save_capped,
)
from services.settings import Settings
from workflows.contract import IDEMPOTENCY_HEADER
from workflows.stages import HoldReason, hold

PENDING_STATUSES = frozenset({"queued", "pending", "running", "processing", "accepted"})
ANSWER_MAX_BYTES = 1 << 20
"""Largest JSON answer (bytes) read from the provider."""


class SongProviderUnavailable(ApplicationError):
    """The provider could not be reached or did not finish in time: the activity's retry policy
    runs it again (after ``retry_after_s`` when the provider said so)."""

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        delay = timedelta(seconds=retry_after_s) if retry_after_s else None
        super().__init__(message, type="SongProviderUnavailable", next_retry_delay=delay)


class SongProviderError(ApplicationError):
    """The provider failed the job, refused the request, or sent unusable audio: not retried."""

    def __init__(self, message: str, kind: str = "SongProviderError") -> None:
        super().__init__(message, type=kind, non_retryable=True)


@dataclass(frozen=True)
class SongAssets:
    """The mastered song on local disk and its metadata (the run's ``song.json``)."""

    wav_path: Path
    metadata: dict[str, Any]


class SongProvider(Protocol):
    """Makes the film's song from the brief. ``candidates`` > 1 asks for a best-of-N choice;
    ``idempotency_key`` is stable across retries of one run (providers that order may use it)."""

    name: str

    def make_song(self, brief: SongBrief, seed: int, candidates: int, scratch_dir: Path, *,
                  idempotency_key: str | None = None, pool: Executor | None = None
                  ) -> SongAssets:
        """Write the mastered song under ``scratch_dir`` and describe it; a provider that
        composes here may share its work with ``pool``'s workers (the caller's, bounded)."""
        ...


def song_metadata(song: ComposedSong, provider: str, scores: list[SongScore],
                  chosen: int | None, **extra: object) -> dict[str, Any]:
    """Everything about the song but its samples: the render stage cuts on ``beat_times``;
    ops read ``candidates`` (every candidate's score) and ``chosen`` to see why."""
    return {
        "tempo_bpm": song.tempo_bpm, "key": song.key, "beat_times": song.beat_times,
        "bar_times": song.bar_times, "sections": song.sections, "lyrics": song.lyrics,
        "lyrics_sung": song.sung,
        "integrated_lufs": song.integrated_lufs, "true_peak_dbtp": song.true_peak_dbtp,
        "duration_sec": len(song.audio) / song.sample_rate, "provider": provider,
        "candidates": [score.as_dict() for score in scores], "chosen": chosen, **extra,
    }


def song_note(metadata: Mapping[str, Any]) -> str:
    """One line for the stage notes: key, tempo, loudness, provider and the choice made."""
    line = (f"song {metadata['key']} at {metadata['tempo_bpm']:.0f} bpm, "
            f"{metadata['integrated_lufs']:.1f} LUFS, true peak {metadata['true_peak_dbtp']:.1f} "
            f"dBTP, {metadata['provider']} provider")
    scores, chosen = metadata.get("candidates") or [], metadata.get("chosen")
    if chosen is not None and len(scores) > 1:
        totals = ", ".join(f"{s['total']:.3f}" + ("" if s["valid"] else " rejected")
                           for s in scores)
        line += f", best of {len(scores)}: candidate {chosen} chosen (scores {totals})"
    return line


class LocalSongProvider:
    """Composes the song here: best of ``candidates`` (:func:`media.song.score.compose_best`)."""

    name = "local"

    def make_song(self, brief: SongBrief, seed: int, candidates: int, scratch_dir: Path, *,
                  idempotency_key: str | None = None, pool: Executor | None = None
                  ) -> SongAssets:
        """Compose, score and master; write ``song.wav`` into ``scratch_dir``. The candidates'
        previews are shared with ``pool``'s workers (the same song with or without)."""
        song, scores, chosen = compose_best(brief, seed, candidates, pool=pool)
        wav = scratch_dir / "song.wav"
        write_wav(wav, song)
        scored_on = "preview (24 kHz, before the limiter)" if candidates > 1 else "final mix"
        return SongAssets(wav, song_metadata(song, self.name, scores, chosen, seed=seed,
                                             scored_on=scored_on))


def brief_payload(brief: SongBrief, seed: int, candidates: int) -> dict[str, Any]:
    """The JSON body of a song order: the brief, our seed and how many candidates we want."""
    return {"brief": {**asdict(brief), "feeling_words": list(brief.feeling_words)},
            "seed": seed, "candidates": candidates, "length_sec": brief.length_sec,
            "sample_rate": AUDIO_SAMPLE_RATE, "channels": AUDIO_CHANNELS}


class HttpSongProvider:
    """Orders the song from an external service (see the module doc for the protocol).

    ``timeout`` is per request, ``poll_interval`` between status reads and ``max_wait`` the
    longest wait for a job (seconds); ``max_bytes`` caps the audio download."""

    name = "http"

    def __init__(self, base_url: str, timeout: float, poll_interval: float, max_wait: float,
                 *, max_bytes: int, token: str | None = None) -> None:
        if urlsplit(base_url).scheme not in ("http", "https"):
            raise ValueError(f"song provider URL must be http(s): {base_url!r}")
        self.base_url = base_url.rstrip("/") + "/"
        self.timeout, self.poll_interval, self.max_wait = timeout, poll_interval, max_wait
        self.max_bytes = max_bytes
        self._auth = {"Authorization": f"Bearer {token}"} if token else {}

    @classmethod
    def from_settings(cls, settings: Settings) -> HttpSongProvider:
        """The provider configured by ``FILM_SONG_PROVIDER_*``."""
        assert settings.song_provider_url is not None
        return cls(settings.song_provider_url, settings.song_provider_timeout_s,
                   settings.song_provider_poll_s, settings.song_provider_max_wait_s,
                   max_bytes=settings.song_provider_max_bytes,
                   token=settings.song_provider_token)

    def make_song(self, brief: SongBrief, seed: int, candidates: int, scratch_dir: Path, *,
                  idempotency_key: str | None = None, pool: Executor | None = None
                  ) -> SongAssets:
        """Order, wait, download, validate and master the provider's song (``pool`` unused:
        the provider composes it)."""
        payload = brief_payload(brief, seed, candidates)
        key = idempotency_key or f"song-{song_seed(json.dumps(payload, sort_keys=True))}"
        with httpx.Client(timeout=self.timeout, follow_redirects=False) as client:
            job = self._submit(client, payload, key)
            job = self._wait(client, job)
            source = self._download(client, self._audio_url(job), scratch_dir / "provider-audio")
        try:
            song, notes = import_song(source, brief, job)
        except SongAudioRejected as exc:
            raise SongProviderError(f"provider audio rejected: {exc}", "SongProviderBadAudio") \
                from exc
        wav = scratch_dir / "song.wav"
        write_wav(wav, song)
        score = score_song(song, brief.length_sec)
        if not score.valid:
            raise SongProviderError(f"provider audio rejected: {'; '.join(score.rejected)}",
                                    "SongProviderBadAudio")
        return SongAssets(wav, song_metadata(song, self.name, [score], 0, provider_job=job["id"],
                                             idempotency_key=key, **notes))

    # ---------------------------------------------------------------- protocol steps

    def _submit(self, client: httpx.Client, payload: dict[str, Any], key: str) -> dict[str, Any]:
        response = self._request(client, "POST", urljoin(self.base_url, "songs"), json=payload,
                                 headers={**self._auth, IDEMPOTENCY_HEADER: key})
        job = self._answer(response)
        if not isinstance(job.get("id"), str | int) or str(job["id"]) == "":
            raise SongProviderError("provider answered without a job id")
        return {**job, "id": str(job["id"])}

    def _wait(self, client: httpx.Client, job: dict[str, Any]) -> dict[str, Any]:
        """Poll until the job is done; hold and failed end here. Bounded by ``max_wait``."""
        deadline = time.monotonic() + self.max_wait
        url = urljoin(self.base_url, f"songs/{quote(job['id'], safe='')}")
        while True:
            status = str(job.get("status", "")).lower()
            if status == "done":
                return job
            if status == "hold":
                raise hold(HoldReason.SONG_PROVIDER_HOLD,
                           f"song provider held the order: {str(job.get('reason', ''))[:200]}")
            if status == "failed":
                raise SongProviderError(f"song provider failed the job {job['id']}: "
                                        f"{str(job.get('reason', ''))[:200]}")
            if status not in PENDING_STATUSES:
                raise SongProviderError(f"song provider answered status {status[:40]!r}")
            if time.monotonic() + self.poll_interval > deadline:
                raise SongProviderUnavailable(f"song job {job['id']} not done after "
                                              f"{self.max_wait:.0f} s")
            time.sleep(self.poll_interval)
            job = {**self._answer(self._request(client, "GET", url, headers=self._auth)),
                   "id": job["id"]}

    def _audio_url(self, job: Mapping[str, Any]) -> str:
        url = urljoin(self.base_url, str(job.get("audio_url") or ""))
        if not job.get("audio_url") or urlsplit(url).scheme not in ("http", "https"):
            raise SongProviderError("provider's done answer has no http(s) audio_url")
        return url

    def _download(self, client: httpx.Client, url: str, dest: Path) -> Path:
        """Stream the audio to ``dest`` (at most ``max_bytes``); failures as :meth:`_request`'s."""
        try:
            with client.stream("GET", url, headers=self._auth_for(url)) as response:
                if response.status_code == 200:
                    return self._save(response, dest)
                raise_if_retryable(response, "audio download", "song provider",
                                   SongProviderUnavailable)
                raise SongProviderError(f"audio download refused: HTTP {response.status_code}")
        except httpx.TransportError as exc:
            raise SongProviderUnavailable(
                f"audio download failed: {type(exc).__name__}: {exc}") from exc

    def _auth_for(self, url: str) -> dict[str, str]:
        """Our token goes to the provider's own origin only, never to a CDN it links to."""
        same = urlsplit(url)[:2] == urlsplit(self.base_url)[:2]
        return self._auth if same else {}

    def _save(self, response: httpx.Response, dest: Path) -> Path:
        def too_large(declared: str | None) -> SongProviderError:
            return SongProviderError(f"audio is {declared} bytes, over {self.max_bytes}"
                                     if declared else f"audio over {self.max_bytes} bytes",
                                     "SongProviderBadAudio")
        return save_capped(response, dest, self.max_bytes, too_large)

    # ---------------------------------------------------------------- HTTP plumbing

    def _request(self, client: httpx.Client, method: str, url: str,
                 **kwargs: Any) -> httpx.Response:
        """One request; a network error, a timeout, a 5xx, 408 or 429 raises
        :class:`SongProviderUnavailable` for the activity's retry policy."""
        return provider_request(client, method, url, "song provider", SongProviderUnavailable,
                                **kwargs)

    @staticmethod
    def _answer(response: httpx.Response) -> dict[str, Any]:
        """The JSON object of a 2xx answer; anything else is a refusal (not retried)."""
        if not 200 <= response.status_code < 300:
            raise SongProviderError(f"song provider refused: HTTP {response.status_code}")
        if len(response.content) > ANSWER_MAX_BYTES:
            raise SongProviderError("song provider answer too large")
        try:
            data = response.json()
        except ValueError as exc:
            raise SongProviderError("song provider answer is not JSON") from exc
        if not isinstance(data, dict):
            raise SongProviderError("song provider answer is not a JSON object")
        return data


def song_provider(settings: Settings) -> SongProvider:
    """The configured provider: HTTP when ``FILM_SONG_PROVIDER_URL`` is set, else local."""
    if settings.song_provider_url:
        return HttpSongProvider.from_settings(settings)
    return LocalSongProvider()
