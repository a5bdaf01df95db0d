"""A fake external song service over real HTTP on 127.0.0.1 (stdlib ThreadingHTTPServer).

It speaks the protocol :class:`services.song_provider.HttpSongProvider` expects:
``POST /songs`` (one job per ``Idempotency-Key``), ``GET /songs/{id}``, ``GET /audio/{id}.wav``.
The audio is synthesized here: a 44.1 kHz mono 16-bit WAV (so the client must resample, upmix
and master it) with a soft chord and a click on every beat at :data:`TEMPO_BPM`, about -24 LUFS.

Modes:

- ``done``: the first status read answers done (with ``beat_times`` when ``with_beats``);
- ``slow``: ``running`` for ``pending_polls`` reads, then done;
- ``hold``: the job is held (content policy);
- ``failed``: the job failed;
- ``wrong_length``: the audio is 1.5 s longer than ordered;
- ``not_audio``: the "audio" is an HTML page;
- ``503_then_ok``: the first ``fail_first`` requests answer 503 (with ``Retry-After:
  retry_after`` when given), then it behaves like ``done``.

Usage::

    with FakeSongProvider("slow", pending_polls=2) as fake:
        provider = HttpSongProvider(fake.url, 5.0, 0.05, 10.0, max_bytes=50_000_000)
"""

from __future__ import annotations

import io
import json
import threading
import wave
from http.server import BaseHTTPRequestHandler
from typing import Any

import numpy as np

from tests.fake_http import BackgroundServer, send_body, send_json

MODES = ("done", "slow", "hold", "failed", "wrong_length", "not_audio", "503_then_ok")
TEMPO_BPM = 120.0
SAMPLE_RATE = 44_100
FIRST_BEAT_S = 0.25


def synth_wav(length_sec: float, sample_rate: int = SAMPLE_RATE) -> bytes:
    """A mono 16-bit WAV of ``length_sec`` s: an A-major chord with a decaying click on each
    beat (:data:`TEMPO_BPM`, first beat at :data:`FIRST_BEAT_S`), peak about -12 dBFS."""
    n = round(length_sec * sample_rate)
    t = np.arange(n) / sample_rate
    chord = sum(np.sin(2 * np.pi * f * t) for f in (220.0, 277.18, 329.63)) / 3
    beat = 60.0 / TEMPO_BPM
    since = (t - FIRST_BEAT_S) % beat
    since[t < FIRST_BEAT_S] = 1.0
    click = np.sin(2 * np.pi * 1000.0 * t) * np.exp(-since / 0.015)
    thump = np.sin(2 * np.pi * 60.0 * t) * np.exp(-since / 0.08)
    audio = 0.08 * chord * (0.6 + 0.4 * np.exp(-since / 0.3)) + 0.12 * click + 0.1 * thump
    pcm = np.round(np.clip(audio, -1, 1) * 32767).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(sample_rate)
        wav.writeframes(pcm.tobytes())
    return out.getvalue()


def beat_times(length_sec: float) -> list[float]:
    """The synthesized song's beats (seconds)."""
    beat = 60.0 / TEMPO_BPM
    return [round(FIRST_BEAT_S + k * beat, 6)
            for k in range(int((length_sec - FIRST_BEAT_S) / beat) + 1)]


class FakeSongProvider(BackgroundServer):
    """The fake service in a background thread; ``url`` is its base URL."""

    def __init__(self, mode: str = "done", *, pending_polls: int = 2, fail_first: int = 1,
                 with_beats: bool = False, retry_after: int | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        self.mode, self.pending_polls, self.with_beats = mode, pending_polls, with_beats
        self.fail_left = fail_first if mode == "503_then_ok" else 0
        self.retry_after = retry_after
        self.jobs: dict[str, dict[str, Any]] = {}
        self.keys: dict[str, str] = {}
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.lock = threading.Lock()
        super().__init__(self._handler())

    # ---------------------------------------------------------------- behaviour

    def _create(self, body: dict[str, Any], key: str) -> dict[str, Any]:
        with self.lock:
            if key in self.keys:
                return self.jobs[self.keys[key]]
            job_id = f"job{len(self.jobs) + 1}"
            self.keys[key] = job_id
            self.jobs[job_id] = {"id": job_id, "status": "queued", "polls": 0,
                                 "length_sec": float(body["length_sec"]), "brief": body["brief"]}
            return self.jobs[job_id]

    def _status(self, job: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            job["polls"] += 1
            if self.mode == "slow" and job["polls"] <= self.pending_polls:
                return {"id": job["id"], "status": "running"}
        if self.mode == "hold":
            return {"id": job["id"], "status": "hold", "reason": "lyrics need review"}
        if self.mode == "failed":
            return {"id": job["id"], "status": "failed", "reason": "renderer crashed"}
        answer = {"id": job["id"], "status": "done", "audio_url": f"/audio/{job['id']}.wav",
                  "key": "A major", "lyrics": ["A song from the fake provider", "La la la"]}
        if self.with_beats:
            answer.update(tempo_bpm=TEMPO_BPM, beat_times=beat_times(job["length_sec"]))
        return answer

    def _audio(self, job: dict[str, Any]) -> tuple[str, bytes]:
        if self.mode == "not_audio":
            return "text/html", b"<html><body>Your song is ready!</body></html>" * 50
        extra = 1.5 if self.mode == "wrong_length" else 0.0
        return "audio/wav", synth_wav(job["length_sec"] + extra)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _failing(self) -> bool:
                fake.requests.append((self.command, self.path, dict(self.headers)))
                with fake.lock:
                    if fake.fail_left > 0:
                        fake.fail_left -= 1
                        after = {} if fake.retry_after is None else {
                            "Retry-After": str(fake.retry_after)}
                        send_json(self, 503, {"error": "busy"}, after)
                        return True
                return False

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                if self._failing():
                    return
                key = self.headers.get("Idempotency-Key")
                if self.path != "/songs" or not key:
                    send_json(self, 400, {"error": "bad request"})
                    return
                job = fake._create(body, key)
                send_json(self, 202, {"id": job["id"], "status": "queued"})

            def do_GET(self) -> None:
                if self._failing():
                    return
                parts = self.path.strip("/").split("/")
                job_id = parts[-1].removesuffix(".wav") if len(parts) == 2 else ""
                job = fake.jobs.get(job_id)
                if job is None:
                    send_json(self, 404, {"error": "no such job"})
                elif parts[0] == "songs":
                    send_json(self, 200, fake._status(job))
                elif parts[0] == "audio":
                    content_type, body = fake._audio(job)
                    send_body(self, 200, body, content_type)
                else:
                    send_json(self, 404, {"error": "not found"})

        return Handler
