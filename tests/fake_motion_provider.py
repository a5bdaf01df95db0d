"""A fake image-to-video service over real HTTP on 127.0.0.1 (stdlib ThreadingHTTPServer).

It speaks the protocol :class:`services.motion_provider.HttpMotionProvider` expects:
``POST /motions`` (multipart: the ``photo`` JPEG and the ``request`` JSON; one job per
``Idempotency-Key``), ``GET /motions/{id}``, ``GET /videos/{id}.mp4``. The video is made here
with ffmpeg from the uploaded photo, so the whole path is real: a slow zoom into the photo at
24 fps (the client must normalize it to 30), as long as asked, with a magenta band across its
middle (:data:`MARKER_RGB`, :data:`MARKER_BAND`) that a test finds again in the film's frames
whatever the crop (:func:`marker_share`).

Modes, for every photo or per photo id (``modes={"p02": "failed"}``):

- ``done``: the first status read answers done;
- ``slow``: ``running`` for ``pending_polls`` reads, then done;
- ``hold``: the job is held (content policy);
- ``failed``: the job failed;
- ``oversized``: the video is padded to :data:`OVERSIZED_BYTES` and sent without a length;
- ``not_a_video``: the "video" is an HTML page;
- ``unavailable``: the first ``fail_first`` requests (any photo's) answer ``status`` (503 by
  default, or 429...) with ``Retry-After: retry_after`` when given, then it behaves as done.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from media.base.runner import ffmpeg_argv
from tests.fake_http import BackgroundServer, send_body, send_json

MODES = ("done", "slow", "hold", "failed", "oversized", "not_a_video", "unavailable")
MARKER_RGB = (255, 0, 255)
MARKER_BAND = (0.45, 0.55)
"""The marker's rows, shares of the video's height: a full-width band, so every crop of the
clip in either aspect (and the clip fitted over its blur) keeps some of it."""
VIDEO_FPS = 24
VIDEO_LONG_EDGE_PX = 640
OVERSIZED_BYTES = 3 << 20


def marker_share(frame_rgb: np.ndarray) -> float:
    """Share of ``frame_rgb``'s pixels (uint8 RGB) that are the fake's magenta marker."""
    r, g, b = (frame_rgb[..., k].astype(np.int16) for k in range(3))
    return float(np.mean((r > 170) & (b > 170) & (g < 90)))


def zoom_video(photo: Path, seconds: float, dest: Path) -> Path:
    """A ``seconds`` s H.264 MP4 of a slow zoom into ``photo`` at :data:`VIDEO_FPS` fps, at most
    :data:`VIDEO_LONG_EDGE_PX` on its long edge, with the marker band drawn over it."""
    frames = max(1, round(seconds * VIDEO_FPS))
    top, bottom = MARKER_BAND
    with Image.open(photo) as image:
        k = VIDEO_LONG_EDGE_PX / max(image.size)
        width, height = (2 * round(side * k / 2) for side in image.size)
    chain = (f"zoompan=z='1+0.15*on/{frames}':x='iw/2-iw/zoom/2':y='ih/2-ih/zoom/2':d=1:"
             f"s={width}x{height}:fps={VIDEO_FPS},setsar=1,"
             f"drawbox=x=0:y=ih*{top}:w=iw:h=ih*{bottom - top}:color=0xFF00FF@1:t=fill,"
             "format=yuv420p")
    subprocess.run(ffmpeg_argv("-loop", "1", "-framerate", str(VIDEO_FPS), "-i", str(photo),
                               "-vf", chain, "-frames:v", str(frames), "-c:v", "libx264",
                               "-preset", "ultrafast", "-movflags", "+faststart", str(dest)),
                   check=True, timeout=120)
    return dest


def multipart_parts(content_type: str, body: bytes) -> dict[str, bytes]:
    """The parts of a ``multipart/form-data`` body by their name."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    return {str(part.get_param("name", header="content-disposition")):
            part.get_payload(decode=True) or b"" for part in message.iter_parts()}


class _QuietServer(ThreadingHTTPServer):
    """A client hanging up mid-answer (a download refused as too large) is not an error."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeMotionProvider(BackgroundServer):
    """The fake service in a background thread; ``url`` is its base URL."""

    def __init__(self, mode: str = "done", *, modes: dict[str, str] | None = None,
                 pending_polls: int = 2, fail_first: int = 1, status: int = 503,
                 retry_after: int | None = None) -> None:
        for name in (mode, *(modes or {}).values()):
            if name not in MODES:
                raise ValueError(f"unknown mode {name!r}")
        self.mode, self.modes, self.pending_polls = mode, modes or {}, pending_polls
        self.fail_left = fail_first if mode == "unavailable" else 0
        self.status, self.retry_after = status, retry_after
        self.jobs: dict[str, dict[str, Any]] = {}
        self.keys: dict[str, str] = {}
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.lock = threading.Lock()
        self._dir = tempfile.TemporaryDirectory(prefix="fake-motion-")
        super().__init__(self._handler(), _QuietServer)

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self._dir.cleanup()

    def mode_of(self, photo_id: str) -> str:
        """The mode the job of ``photo_id`` plays."""
        return self.modes.get(photo_id, self.mode)

    @property
    def ordered(self) -> list[str]:
        """The photo ids ordered, one per job, in order."""
        return [job["photo_id"] for job in self.jobs.values()]

    # ---------------------------------------------------------------- behaviour

    def _create(self, parts: dict[str, bytes], key: str) -> dict[str, Any]:
        request = json.loads(parts["request"])
        with self.lock:
            if key in self.keys:
                return self.jobs[self.keys[key]]
            job_id = f"m{len(self.jobs) + 1}"
            photo = Path(self._dir.name) / f"{job_id}.jpg"
            photo.write_bytes(parts["photo"])
            self.keys[key] = job_id
            self.jobs[job_id] = {"id": job_id, "polls": 0, "photo": photo,
                                 "photo_id": request["photo_id"], "request": request}
            return self.jobs[job_id]

    def _status(self, job: dict[str, Any]) -> dict[str, Any]:
        mode = self.mode_of(job["photo_id"])
        with self.lock:
            job["polls"] += 1
            if mode == "slow" and job["polls"] <= self.pending_polls:
                return {"id": job["id"], "status": "running"}
        if mode == "hold":
            return {"id": job["id"], "status": "hold", "reason": "a face needs consent"}
        if mode == "failed":
            return {"id": job["id"], "status": "failed", "reason": "model crashed"}
        return {"id": job["id"], "status": "done", "video_url": f"/videos/{job['id']}.mp4"}

    def _video(self, job: dict[str, Any]) -> tuple[str, bytes]:
        mode = self.mode_of(job["photo_id"])
        if mode == "not_a_video":
            return "text/html", b"<html><body>Your video is ready!</body></html>" * 50
        video = Path(self._dir.name) / f"{job['id']}.mp4"
        if not video.exists():
            zoom_video(job["photo"], float(job["request"]["duration_s"]), video)
        data = video.read_bytes()
        if mode == "oversized":
            data += b"\0" * max(0, OVERSIZED_BYTES - len(data))
        return "video/mp4", data

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _failing(self) -> bool:
                fake.requests.append((self.command, self.path, dict(self.headers)))
                with fake.lock:
                    if fake.fail_left > 0:
                        fake.fail_left -= 1
                        after = {} if fake.retry_after is None else {
                            "Retry-After": str(fake.retry_after)}
                        send_json(self, fake.status, {"error": "busy"}, after)
                        return True
                return False

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if self._failing():
                    return
                key = self.headers.get("Idempotency-Key")
                parts = multipart_parts(self.headers.get("Content-Type", ""), body)
                if self.path != "/motions" or not key or not {"photo", "request"} <= set(parts):
                    send_json(self, 400, {"error": "bad request"})
                    return
                job = fake._create(parts, key)
                send_json(self, 202, {"id": job["id"], "status": "queued"})

            def do_GET(self) -> None:
                if self._failing():
                    return
                parts = self.path.strip("/").split("/")
                job_id = parts[-1].removesuffix(".mp4") if len(parts) == 2 else ""
                job = fake.jobs.get(job_id)
                if job is None:
                    send_json(self, 404, {"error": "no such job"})
                elif parts[0] == "motions":
                    send_json(self, 200, fake._status(job))
                elif parts[0] == "videos":
                    content_type, body = fake._video(job)
                    oversized = fake.mode_of(job["photo_id"]) == "oversized"
                    send_body(self, 200, body, content_type, chunked=oversized)
                else:
                    send_json(self, 404, {"error": "not found"})

        return Handler
