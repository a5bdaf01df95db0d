"""Render a :class:`~media.timeline.Timeline` to the delivered films, all aspects in one pass.

One pass over the film's frames: each photo is decoded once and each clip segment is decoded
once (ffmpeg piping raw RGB out), and every composed frame goes to one ffmpeg/libx264 encoder per
aspect as raw rgb24 on stdin. A writer thread per encoder keeps both pipes flowing; a bounded
queue gives back-pressure, and a failing encoder surfaces as :class:`media.runner.ToolError` with
its stderr (never a hang); the wall-clock deadline comes from the runner's limits.

Sources are prepared (photo decoded, subject found, moves planned, sources pre-scaled, cards
drawn, clip decoders started) on a helper thread a little ahead of the frame that needs them.

Clip shots are framed like photos (:mod:`media.clip_framing`, planned from one sample frame);
cards fade their text in (:func:`media.cards.entrance_frame`); a brand ``logo`` is drawn small in
a corner of every shot and larger on the cards (:mod:`media.overlay`). The soundtrack (the song,
or the song with the clips' sound under it, see :mod:`media.soundtrack`) is built beforehand.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from media import spec
from media.cards import CardImage, entrance_frame, render_card_image
from media.clip_framing import ClipFraming, frame_clip, plan_clip_framing
from media.compose import (
    PhotoLayer,
    Prescaled,
    cover_frame,
    layer_weights,
    mix,
    prescale,
    prescale_factor,
)
from media.framing import KEEP_MIN, Motion, Subject, find_subject, plan_ken_burns
from media.overlay import LogoOverlay
from media.parallax import (
    ParallaxLayer,
    ParallaxLayers,
    ScaledLayers,
    scale_layers,
    separate_subject,
)
from media.runner import (
    Limits,
    ToolError,
    ToolProcess,
    ToolTimeoutError,
    ffmpeg_argv,
    ffprobe_argv,
    run_tool,
    start_tool,
)
from media.timeline import KEN_BURNS, PARALLAX, Shot, Timeline

LOOKAHEAD_FRAMES = 45  # prepare a shot's sources this many frames before it appears
QUEUE_FRAMES = 2  # frames buffered per encoder (ffmpeg's input queue buffers more)
CLIP_QUEUE_FRAMES = 3  # decoded clip frames buffered ahead
MAX_ENCODER_THREADS = 4
# Raw frames ffmpeg's input thread may hold ahead of the encoder (its default, 8, is ~50 MB of
# rgb24 1080p per encoder; our own bounded queue already keeps the pipe full).
ENCODER_INPUT_QUEUE = 2
PROGRESS_INTERVAL_S = 0.25
POLL_S = 0.25
ENCODER_ADDRESS_SPACE = 6 * 1024**3
PIPE_BYTES = 1 << 20  # larger pipes: fewer wake-ups per 6 MB frame
IOV_MAX = os.sysconf("SC_IOV_MAX")  # buffers one writev takes
SOCIAL_PORTRAIT_KEEP_MIN = 0.3  # social 9:16 crops down to 30% of a photo (fuller frames)
OPENING_TEXT_DELAY_S = 0.2  # the opening card's text starts after the film's fade-in began
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
# OpenCV threads while frames are composed. The encoders already fill the cores, and OpenCV's
# pool costs CPU to split each resize (22-35% more CPU per 1080p resize on an idle machine);
# render A/B, 6 alternating rounds of the 60 s sample film: Python CPU lower in all 6 by
# 0.4-6 s (mean -3), ffmpeg CPU 0-17 s lower in 5 of 6.
COMPOSE_OPENCV_THREADS = 1


@dataclass(frozen=True)
class RenderStats:
    """What a render did: ``frames`` per aspect, wall seconds, film frames per wall second, and
    the seconds spent composing versus waiting for the encoders."""

    frames: int
    aspects: tuple[str, ...]
    elapsed_s: float
    frames_per_s: float
    compose_s: float
    encoder_wait_s: float
    outputs: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


# --- ffmpeg command lines --------------------------------------------------------------------


def audio_encoder_args() -> list[str]:
    """ffmpeg output options encoding the delivered sound: AAC-LC 192 kb/s, 48 kHz stereo (the
    single-pass encoder and :func:`media.segments.join_segments` share them)."""
    return [*spec.AAC_ENCODER_ARGS, "-ar", str(spec.AUDIO_SAMPLE_RATE),
            "-ac", str(spec.AUDIO_CHANNELS)]


def encoder_threads(aspects: int = len(spec.ASPECTS), cores: int | None = None) -> int:
    """x264 threads for each of a render's ``aspects`` encoders: the usable cores shared between
    them, 1 to :data:`MAX_ENCODER_THREADS`.

    On two cores that is one thread each: the two encoders and the composer already fill the
    cores, so x264's frame threading bought neither wall time nor CPU there (600 frames of a
    render, A/B: 48-52 s either way) and cost ~25 MB per encoder."""
    usable = cores if cores is not None else len(os.sched_getaffinity(0))
    return max(1, min(MAX_ENCODER_THREADS, usable // max(1, aspects)))


def encoder_argv(aspect: spec.Aspect, audio_path: Path | None, out_path: Path,
                 preset: str) -> list[str]:
    """ffmpeg reading raw rgb24 frames of ``aspect`` on stdin plus the song, writing the delivery
    MP4: H.264 High yuv420p with the BT.709 matrix and tags, AAC-LC 48 kHz stereo, +faststart.

    ``audio_path`` None: a video-only MP4 (a segment of the film, joined later by
    :func:`media.segments.join_segments`) with the same video settings. Every encode starts on
    an IDR frame and x264's GOPs are closed by default, so segments join by stream copy."""
    audio_in = ["-i", str(audio_path), "-map", "0:v:0", "-map", "1:a:0"] if audio_path else [
        "-map", "0:v:0"]
    audio_out = [*audio_encoder_args(), "-shortest"] if audio_path else []
    threads = encoder_threads()
    return ffmpeg_argv(
        "-filter_threads", "1",  # scaling one frame to yuv420p is not worth a thread pool
        "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{aspect.width}x{aspect.height}",
        "-r", str(spec.FPS), "-thread_queue_size", str(ENCODER_INPUT_QUEUE), "-i", "pipe:0",
        *audio_in,
        "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
        "-c:v", "libx264", "-profile:v", "high", "-preset", preset, "-crf", "20", "-g", "60",
        "-threads", str(threads), "-x264-params", "sync-lookahead=0",
        "-pix_fmt", spec.PIX_FMT, "-colorspace", spec.COLOR_SPACE,
        "-color_primaries", spec.COLOR_PRIMARIES, "-color_trc", spec.COLOR_TRANSFER,
        "-color_range", spec.COLOR_RANGE, "-r", str(spec.FPS),
        *audio_out,
        "-movflags", "+faststart", str(out_path),
    )


def decoder_argv(path: Path, start_s: float, frames: int) -> list[str]:
    """ffmpeg decoding ``frames`` frames of a mezzanine clip from ``start_s`` seconds as raw
    rgb24 on stdout (BT.709 limited-range YUV to full-range RGB), at 30 fps, native size."""
    return ffmpeg_argv(
        "-threads", "2", "-ss", f"{max(0.0, start_s):.3f}", "-i", str(path),
        "-map", "0:v:0", "-an", "-sn", "-dn",
        "-vf", f"fps={spec.FPS},scale=in_color_matrix=bt709:in_range=tv:out_range=pc,"
               "format=rgb24",
        "-frames:v", str(frames), "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1",
    )


def probe_size(path: Path, limits: Limits) -> tuple[int, int]:
    """Width and height (pixels) of the first video stream of ``path``."""
    out = run_tool(ffprobe_argv("-select_streams", "v:0", "-show_entries",
                                "stream=width,height", "-of", "json", str(path)), limits)
    stream = json.loads(out.stdout)["streams"][0]
    return int(stream["width"]), int(stream["height"])


def sample_frame(path: Path, at_s: float, size: tuple[int, int],
                 limits: Limits) -> np.ndarray | None:
    """One decoded frame (uint8 RGB, ``size`` = width, height pixels) of a clip at ``at_s``
    seconds, or None if nothing could be decoded there."""
    out = run_tool(decoder_argv(path, at_s, 1), limits).stdout
    width, height = size
    if len(out) < width * height * 3:
        return None
    return np.frombuffer(out[: width * height * 3], np.uint8).reshape(height, width, 3)


def grow_pipe(stream: object) -> None:
    """Best effort: enlarge a pipe's kernel buffer to :data:`PIPE_BYTES` (Linux)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fcntl.fcntl(stream.fileno(), F_SETPIPE_SZ, PIPE_BYTES)  # type: ignore[attr-defined]


# --- encoders --------------------------------------------------------------------------------


def write_frame(fd: int, frame: np.ndarray) -> None:
    """Write ``frame``'s pixels, row after row, to the file descriptor ``fd`` (blocking). A crop
    view whose rows are contiguous (:func:`media.compose.resize_crop` returns one) goes out by
    ``writev`` straight from its rows, without first being copied whole into a contiguous
    array (0.5 ms a 1080p frame)."""
    if frame.size == 0:
        return
    if frame.flags.c_contiguous:
        rows = [frame.reshape(-1)]
    elif frame.ndim > 1 and frame[0].flags.c_contiguous:
        rows = list(frame)
    else:
        rows = [np.ascontiguousarray(frame).reshape(-1)]
    row_bytes, done, offset = rows[0].nbytes, 0, 0  # offset: bytes of rows[done] written
    while done < len(rows):
        batch: list[np.ndarray | memoryview] = list(rows[done:done + IOV_MAX])
        if offset:
            batch[0] = memoryview(rows[done]).cast("B")[offset:]
        full, offset = divmod(offset + os.writev(fd, batch), row_bytes)
        done += full


class EncoderFeed:
    """Feeds frames to one encoder from a writer thread through a bounded queue."""

    def __init__(self, process: ToolProcess, name: str) -> None:
        self.process = process
        self.name = name
        self.error: BaseException | None = None
        self.wait_s = 0.0
        self._stop = threading.Event()
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=QUEUE_FRAMES)
        grow_pipe(process.stdin)
        self._thread = threading.Thread(target=self._write, name=f"encode-{name}", daemon=True)
        self._thread.start()

    def _next(self) -> np.ndarray | None:
        while not self._stop.is_set():
            try:
                return self._queue.get(timeout=POLL_S)
            except queue.Empty:
                continue
        return None

    def _write(self) -> None:
        stdin = self.process.stdin
        try:
            while (frame := self._next()) is not None:
                # Lending the frame's pages with vmsplice(2) instead saved ~1 s of Python CPU
                # per 60 s film but cost the encoders 6-11 s more (A/B, 3 rounds): their read
                # then copies from cache-cold frames, not from pipe pages just written.
                write_frame(stdin.fileno(), frame)
        except (OSError, ValueError) as exc:  # BrokenPipeError: the encoder died
            self.error = exc
        finally:
            with contextlib.suppress(OSError, ValueError):
                stdin.close()

    def put(self, frame: np.ndarray | None) -> None:
        """Queue a frame (None ends the stream); raise if the encoder failed or timed out."""
        started = time.monotonic()
        while True:
            if self.error is not None:
                raise self.failure()
            try:
                self._queue.put(frame, timeout=POLL_S)
                break
            except queue.Full:
                self.process.check_deadline()
        self.wait_s += time.monotonic() - started

    def failure(self) -> ToolError:
        """The encoder's error with its stderr (waits briefly for it to exit)."""
        if not isinstance(self.error, BrokenPipeError):
            self.process.kill()  # it is not exiting on its own
        try:
            self.process.wait()
        except ToolError as exc:
            return exc
        return ToolError(f"encoder {self.name} stopped reading frames", None, str(self.error))

    def abort(self) -> None:
        """Stop the writer thread (the encoder itself is killed by its ``start_tool`` block)."""
        self._stop.set()

    def finish(self) -> None:
        """End the stream, wait for the encoder, and raise its error if it failed."""
        self.put(None)
        while self._thread.is_alive():
            self._thread.join(timeout=POLL_S)
            self.process.check_deadline()
        if self.error is not None:
            raise self.failure()
        self.process.wait()


# --- sources ---------------------------------------------------------------------------------


class ClipReader:
    """Raw RGB frames of one clip segment, decoded by ffmpeg and read on a helper thread."""

    def __init__(self, path: Path, start_s: float, frames: int, size: tuple[int, int],
                 limits: Limits) -> None:
        self.size = size
        self.frames = frames
        self.error: BaseException | None = None
        self._ended = False
        self._stop = threading.Event()
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=CLIP_QUEUE_FRAMES)
        self._stack = contextlib.ExitStack()
        self._process = self._stack.enter_context(
            start_tool(decoder_argv(path, start_s, frames), limits, stdout_stream=True))
        grow_pipe(self._process.stdout)
        self._thread = threading.Thread(target=self._read, name=f"decode-{path.name}",
                                        daemon=True)
        self._thread.start()

    def _read_frame(self) -> np.ndarray | None:
        width, height = self.size
        buf = bytearray(width * height * 3)
        view, got = memoryview(buf), 0
        stdout = self._process.stdout
        while got < len(buf):
            n = stdout.readinto(view[got:])
            if not n:
                return None
            got += n
        return np.frombuffer(buf, np.uint8).reshape(height, width, 3)

    def _read(self) -> None:
        count = 0
        try:
            while count < self.frames and not self._stop.is_set():
                frame = self._read_frame()
                if frame is None:
                    break
                count += 1
                self._offer(frame)
            if not self._stop.is_set():
                self._process.wait()
                if count == 0:
                    raise ToolError("clip decoder produced no frames", 0, "")
        except BaseException as exc:  # handed to the render thread by next()
            self.error = exc
        finally:
            self._offer(None)

    def _offer(self, item: np.ndarray | None) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=POLL_S)
                return
            except queue.Full:
                continue

    def next(self, deadline: float) -> np.ndarray | None:
        """The next frame, or None at the end of the clip; raises the decoder's error."""
        if self._ended:
            return None
        while True:
            try:
                item = self._queue.get(timeout=POLL_S)
                break
            except queue.Empty:
                if time.monotonic() > deadline:
                    raise ToolTimeoutError("clip decoding timed out", None, "") from None
        if item is None:
            self._ended = True
            if self.error is not None:
                raise self.error
        return item

    def close(self) -> None:
        """Stop reading and kill the decoder if it is still running."""
        self._stop.set()
        self._process.kill()
        self._stack.close()
        self._thread.join(timeout=5)


def load_photo(path: Path) -> np.ndarray:
    """A photo working copy as uint8 RGB (H, W, 3)."""
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


class Prepared:
    """A shot's frames in every aspect (see :meth:`frame`)."""

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) for ``aspect``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release processes and memory."""


class PreparedCard(Prepared):
    """A card whose text fades and rises in from frame ``delay`` (frames into the shot)."""

    def __init__(self, images: dict[str, CardImage], delay: int) -> None:
        self.images = images
        self.delay = delay

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        return entrance_frame(self.images[aspect.name], (index - self.delay) / spec.FPS)


class PreparedPhoto(Prepared):
    """A photo shot: one :class:`PhotoLayer` (or :class:`ParallaxLayer`) per aspect."""

    def __init__(self, layers: dict[str, PhotoLayer | ParallaxLayer]) -> None:
        self.layers = layers

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        return self.layers[aspect.name].frame(index)


class PreparedClip(Prepared):
    """A clip shot: one decoder shared by the aspects; its last frame holds if it runs short."""

    def __init__(self, reader: ClipReader, deadline: float,
                 framings: dict[str, ClipFraming] | None = None) -> None:
        self.reader = reader
        self.deadline = deadline
        self.framings = framings or {}
        self._index = -1
        self._decoded: np.ndarray | None = None
        self._covered: dict[str, np.ndarray] = {}

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        while self._index < index:
            decoded = self.reader.next(self.deadline)
            self._index += 1
            if decoded is not None:
                self._decoded, self._covered = decoded, {}
            elif self._decoded is None:
                raise ToolError("clip decoder produced no frames", None, "")
            else:
                self._index = index  # held: the clip ran out
        assert self._decoded is not None
        if aspect.name not in self._covered:
            framing = self.framings.get(aspect.name)
            self._covered[aspect.name] = (
                frame_clip(self._decoded, framing) if framing is not None
                else cover_frame(self._decoded, aspect.width, aspect.height))
        return self._covered[aspect.name]

    def close(self) -> None:
        self.reader.close()


@dataclass
class _Photo:
    """A decoded photo kept while shots still need it, with its pre-scaled copies."""

    image: np.ndarray
    subject: Subject
    uses: int
    scaled: dict[float, Prescaled] = field(default_factory=dict)
    layers: ParallaxLayers | None = None
    separated: str | None = None  # None: not tried yet; "" ok; else why parallax fell back
    scaled_layers: dict[float, ScaledLayers] = field(default_factory=dict)

    def prescaled(self, factor: float) -> Prescaled:
        """The photo pre-scaled by ``factor`` (computed once, then shared)."""
        if factor not in self.scaled:
            self.scaled[factor] = prescale(self.image, factor)
        return self.scaled[factor]

    def parallax(self, factor: float) -> ScaledLayers | None:
        """The photo's parallax layers pre-scaled by ``factor`` (subject separated once per
        photo), or None when the separation was poor (see :attr:`separated`)."""
        if self.separated is None:
            self.layers, verdict = separate_subject(self.image, self.subject)
            self.separated = verdict.reason if self.layers is None else ""
        if self.layers is None:
            return None
        if factor not in self.scaled_layers:
            self.scaled_layers[factor] = scale_layers(self.layers, factor)
        return self.scaled_layers[factor]


def card_photo(timeline: Timeline, index: int) -> str | None:
    """The photo behind card ``index``: the first photo shot for the opening card, the last
    one for the closing card."""
    ids = [s.source_id for s in timeline.shots if s.kind == "photo"]
    if not ids:
        return None
    return ids[0] if index == 0 else ids[-1]


def shot_photo(timeline: Timeline, index: int) -> str | None:
    """The photo shot ``index`` shows (its own, or the one behind a card), if any."""
    shot = timeline.shots[index]
    if shot.kind == "photo":
        return shot.source_id
    return card_photo(timeline, index) if shot.kind == "card" else None


def shots_in(timeline: Timeline, frames: tuple[int, int]) -> range:
    """Indices of the shots visible in the frames ``[start, stop)`` (shots are in film order)."""
    start, stop = frames
    visible = [i for i, s in enumerate(timeline.shots)
               if s.visible_in < stop and s.visible_out > start]
    return range(visible[0], visible[-1] + 1) if visible else range(0)


def sources_for(timeline: Timeline,
                frames: tuple[int, int] | None = None) -> tuple[set[str], set[str]]:
    """Ids of the photos and the clips that rendering ``frames`` (default: the whole film)
    reads: what a worker rendering one segment must fetch."""
    shots = shots_in(timeline, frames or (0, timeline.total_frames))
    photos = {p for i in shots if (p := shot_photo(timeline, i)) is not None}
    clips = {timeline.shots[i].source_id or "" for i in shots
             if timeline.shots[i].kind == "clip"}
    return photos, clips


class SourcePreparer:
    """Builds :class:`Prepared` shots (on a helper thread) and keeps photos while needed."""

    def __init__(self, timeline: Timeline, aspects: tuple[spec.Aspect, ...],
                 photo_paths: dict[str, Path], clip_paths: dict[str, Path], deadline: float,
                 subjects: Mapping[str, Subject] | None = None,
                 logo: np.ndarray | None = None, shots: range | None = None) -> None:
        self.timeline = timeline
        self.shots = shots if shots is not None else range(len(timeline.shots))
        self.subjects = dict(subjects or {})
        self.logo = logo
        self.aspects = aspects
        self.photo_paths = photo_paths
        self.clip_paths = clip_paths
        self.deadline = deadline
        self._photos: dict[str, _Photo] = {}
        self.notes: list[str] = []  # what a reader of the render should know (fallbacks)
        self._uses = self._count_uses()
        self._lock = threading.Lock()
        self._clip_sizes: dict[str, tuple[int, int]] = {}

    def _card_photo(self, index: int) -> str | None:
        return card_photo(self.timeline, index)

    def _count_uses(self) -> dict[str, int]:
        """Uses of each photo by the shots rendered (a photo is freed after its last one)."""
        uses: dict[str, int] = {}
        for i in self.shots:
            photo = shot_photo(self.timeline, i)
            if photo is not None:
                uses[photo] = uses.get(photo, 0) + 1
        return uses

    def _limits(self) -> Limits:
        return Limits(timeout_s=max(1.0, self.deadline - time.monotonic()))

    def _acquire(self, photo_id: str) -> _Photo:
        with self._lock:
            photo = self._photos.get(photo_id)
            if photo is None:
                image = load_photo(self.photo_paths[photo_id])
                subject = self.subjects.get(photo_id) or find_subject(image)
                photo = _Photo(image, subject, self._uses.get(photo_id, 1))
                self._photos[photo_id] = photo
            return photo

    def _release(self, photo_id: str) -> None:
        with self._lock:
            photo = self._photos.get(photo_id)
            if photo is not None:
                photo.uses -= 1
                if photo.uses <= 0:
                    del self._photos[photo_id]

    def prepare(self, index: int) -> Prepared:
        """Everything shot ``index`` needs to produce its frames."""
        shot = self.timeline.shots[index]
        if shot.kind == "photo":
            return self._prepare_photo(shot)
        if shot.kind == "clip":
            return self._prepare_clip(shot)
        return self._prepare_card(shot, index)

    def _prepare_photo(self, shot: Shot) -> PreparedPhoto:
        photo_id = shot.source_id or ""
        photo = self._acquire(photo_id)
        try:
            height, width = photo.image.shape[:2]
            layers: dict[str, PhotoLayer | ParallaxLayer] = {}
            for aspect in self.aspects:
                motion = plan_ken_burns((width, height), photo.subject, aspect, shot.frames,
                                        choice=shot.motion_choice,
                                        full=shot.motion in (KEN_BURNS, PARALLAX),
                                        keep_min=self._keep_min(aspect))
                factor = round(prescale_factor(motion, aspect.width), 4)
                layers[aspect.name] = self._photo_layer(photo, photo_id, shot, motion, factor,
                                                        aspect)
            return PreparedPhoto(layers)
        finally:
            self._release(photo_id)

    def _photo_layer(self, photo: _Photo, photo_id: str, shot: Shot, motion: Motion,
                     factor: float, aspect: spec.Aspect) -> PhotoLayer | ParallaxLayer:
        """A parallax layer for a premium shot whose subject separates well and whose move is a
        crop; otherwise (the fallback) the standard Ken Burns layer."""
        if shot.motion == PARALLAX and motion.mode == "crop":
            scaled = photo.parallax(factor)
            if scaled is not None:
                return ParallaxLayer(scaled, motion, aspect.width, aspect.height)
            self._note(f"parallax fell back to Ken Burns for {photo_id}: {photo.separated}")
        elif shot.motion == PARALLAX:
            self._note(f"parallax fell back to Ken Burns for {photo_id} in {aspect.name}: "
                       "the photo is fitted, not cropped")
        return PhotoLayer(photo.prescaled(factor), motion, aspect.width, aspect.height)

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    def _keep_min(self, aspect: spec.Aspect) -> float:
        """Smallest share of a photo or clip a crop may keep: social 9:16 frames fuller."""
        if self.timeline.style == "social" and aspect.is_portrait:
            return SOCIAL_PORTRAIT_KEEP_MIN
        return KEEP_MIN

    def _prepare_clip(self, shot: Shot) -> PreparedClip:
        clip_id = shot.source_id or ""
        path = self.clip_paths[clip_id]
        if clip_id not in self._clip_sizes:
            self._clip_sizes[clip_id] = probe_size(path, self._limits())
        size = self._clip_sizes[clip_id]
        sample = sample_frame(path, shot.clip_start_s + shot.frames / spec.FPS / 2, size,
                              self._limits())
        subject = find_subject(sample) if sample is not None else None
        framings = {a.name: plan_clip_framing(size, subject, a, keep_min=self._keep_min(a))
                    for a in self.aspects} if subject is not None else None
        reader = ClipReader(path, shot.clip_start_s, shot.frames, size, self._limits())
        return PreparedClip(reader, self.deadline, framings)

    def _prepare_card(self, shot: Shot, index: int) -> PreparedCard:
        if shot.card is None:
            raise ValueError(f"card shot {index} has no card")
        photo_id = self._card_photo(index)
        photo = self._acquire(photo_id) if photo_id else None
        try:
            images = {}
            for aspect in self.aspects:
                back = (cover_frame(photo.image, aspect.width, aspect.height)
                        if photo is not None else None)
                images[aspect.name] = render_card_image(shot.card, aspect.width, aspect.height,
                                                        back, self.logo)
            delay = (round(OPENING_TEXT_DELAY_S * spec.FPS) if index == 0
                     else shot.cut_in - shot.visible_in)
            return PreparedCard(images, delay)
        finally:
            if photo_id:
                self._release(photo_id)


# --- the render loop -------------------------------------------------------------------------


class _OpenCvThreads:
    """OpenCV's thread count (process-wide) held at a value while any render runs: the first
    render in sets it, the last one out restores what it was."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._lock = threading.Lock()
        self._users = 0
        self._saved = 0

    def __enter__(self) -> None:
        with self._lock:
            if self._users == 0:
                self._saved = cv2.getNumThreads()
                cv2.setNumThreads(self.count)
            self._users += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                cv2.setNumThreads(self._saved)


_compose_threads = _OpenCvThreads(COMPOSE_OPENCV_THREADS)


def _aspects_for(outputs: dict[str, Path]) -> tuple[spec.Aspect, ...]:
    by_name = {a.name: a for a in spec.ASPECTS}
    unknown = sorted(set(outputs) - set(by_name))
    if unknown:
        raise ValueError(f"unknown aspects {unknown}; expected {sorted(by_name)}")
    return tuple(by_name[name] for name in outputs)


def _check_sources(timeline: Timeline, photo_paths: dict[str, Path],
                   clip_paths: dict[str, Path], frames: tuple[int, int]) -> None:
    """Every photo and clip the frames use has a path."""
    photos, clips = sources_for(timeline, frames)
    for kind, ids, paths in (("photo", photos, photo_paths), ("clip", clips, clip_paths)):
        for missing in sorted(ids - set(paths)):
            raise ValueError(f"no path for {kind} {missing!r}")


def _frame_range(timeline: Timeline, frames: tuple[int, int] | None) -> tuple[int, int]:
    """``frames`` checked (default: the whole film). A range may not start inside a clip
    shot: clips are decoded sequentially from the shot's first frame."""
    start, stop = frames if frames is not None else (0, timeline.total_frames)
    if not 0 <= start < stop <= timeline.total_frames:
        raise ValueError(f"frames {start}..{stop} outside the film's 0..{timeline.total_frames}")
    for index, shot in enumerate(timeline.shots):
        if shot.kind == "clip" and shot.visible_in < start < shot.visible_out:
            raise ValueError(f"frame {start} is inside clip shot {index} "
                             f"({shot.visible_in}..{shot.visible_out})")
    return start, stop


def _default_timeout(timeline: Timeline) -> float:
    """A generous wall-clock budget (seconds): 10x real time plus a minute."""
    return 60.0 + 10.0 * timeline.total_frames / timeline.fps


class _Throttle:
    """Calls ``callback`` with a fraction at most every :data:`PROGRESS_INTERVAL_S` seconds."""

    def __init__(self, callback: Callable[[float], None] | None) -> None:
        self.callback = callback
        self.last = 0.0

    def __call__(self, fraction: float, force: bool = False) -> None:
        now = time.monotonic()
        if self.callback is not None and (force or now - self.last >= PROGRESS_INTERVAL_S):
            self.last = now
            self.callback(min(1.0, max(0.0, fraction)))


class _ShotPipeline:
    """Prepared shots in flight: submitted ahead, fetched when visible, closed when done."""

    def __init__(self, timeline: Timeline, preparer: SourcePreparer,
                 executor: ThreadPoolExecutor, deadline: float,
                 shots: range | None = None) -> None:
        self.timeline = timeline
        self.preparer = preparer
        self.executor = executor
        self.deadline = deadline
        self.futures: dict[int, Future[Prepared]] = {}
        self.ready: dict[int, Prepared] = {}
        shots = shots if shots is not None else range(len(timeline.shots))
        self.next_submit = shots.start  # the first shot visible in the rendered frames
        self.end = shots.stop  # shots from here on are not rendered
        self.closed = False

    def advance(self, frame: int) -> None:
        """Submit shots appearing within the look-ahead; close shots that have ended."""
        shots = self.timeline.shots
        while (self.next_submit < self.end
               and shots[self.next_submit].visible_in <= frame + LOOKAHEAD_FRAMES):
            self.futures[self.next_submit] = self.executor.submit(self.preparer.prepare,
                                                                  self.next_submit)
            self.next_submit += 1
        for index in [i for i in self.ready if shots[i].visible_out <= frame]:
            self.ready.pop(index).close()

    def get(self, index: int) -> Prepared:
        """The prepared shot ``index`` (waits for the helper thread, within the deadline)."""
        if index not in self.ready:
            future = self.futures.pop(index)
            while True:
                try:
                    self.ready[index] = future.result(timeout=POLL_S)
                    break
                except FutureTimeout:
                    if time.monotonic() > self.deadline:
                        raise ToolTimeoutError("preparing sources timed out", None,
                                               "") from None
        return self.ready[index]

    def close(self) -> None:
        """Close everything, including shots still being prepared (idempotent)."""
        if self.closed:
            return
        self.closed = True
        for future in self.futures.values():
            future.cancel()
        self.executor.shutdown(wait=True, cancel_futures=True)
        for future in self.futures.values():
            if future.done() and not future.cancelled() and future.exception() is None:
                future.result().close()
        for prepared in self.ready.values():
            prepared.close()
        self.ready.clear()


def _compose(timeline: Timeline, pipeline: _ShotPipeline, aspect: spec.Aspect,
             frame: int, layers: list[tuple[int, float]],
             logo: LogoOverlay | None = None) -> np.ndarray:
    """The film frame ``frame`` for ``aspect``: the visible shots blended by their weights, and
    the corner logo over the part that is shots rather than cards."""
    images = []
    for index, weight in layers:
        shot = timeline.shots[index]
        images.append((pipeline.get(index).frame(aspect, frame - shot.visible_in), weight))
    composed = mix(images, aspect.width, aspect.height)
    if logo is not None:
        on_shots = sum(w for i, w in layers if timeline.shots[i].kind != "card")
        composed = logo.apply(composed, aspect, on_shots)
    return composed


@contextlib.contextmanager
def open_encoders(aspects: tuple[spec.Aspect, ...], audio_path: Path | None,
                  outputs: dict[str, Path], preset: str,
                  timeout_s: float) -> Iterator[dict[str, EncoderFeed]]:
    """One encoder per aspect (:func:`encoder_argv`, writing ``outputs[aspect.name]``) with its
    feed, by aspect name; on leaving, the feeds stop and the encoders are killed unless they
    were finished (:meth:`EncoderFeed.finish`)."""
    with contextlib.ExitStack() as stack:
        feeds: dict[str, EncoderFeed] = {}
        for aspect in aspects:
            limits = Limits(timeout_s=timeout_s, address_space_bytes=ENCODER_ADDRESS_SPACE)
            process = stack.enter_context(start_tool(
                encoder_argv(aspect, audio_path, outputs[aspect.name], preset), limits,
                stdin=True))
            feeds[aspect.name] = EncoderFeed(process, aspect.name)
            stack.callback(feeds[aspect.name].abort)
        yield feeds


def render_films(timeline: Timeline, photo_paths: dict[str, Path], clip_paths: dict[str, Path],
                 audio_path: Path | None, outputs: dict[str, Path], *,
                 frames: tuple[int, int] | None = None,
                 on_progress: Callable[[float], None] | None = None,
                 encoder_preset: str = "veryfast", timeout_s: float | None = None,
                 subjects: Mapping[str, Subject] | None = None,
                 logo: np.ndarray | None = None) -> RenderStats:
    """Render ``timeline`` to every aspect in ``outputs`` (aspect name -> MP4 path) in one pass.

    ``audio_path`` is the mastered song (48 kHz stereo WAV, the film's length); None writes
    video-only files. ``frames`` (start inclusive, stop exclusive; default the whole film)
    renders one segment of the film, to be joined by :func:`media.segments.join_segments`:
    every frame is a function of its index except inside clip shots, which are decoded
    sequentially, so a segment may not start inside one (ValueError; see
    :func:`media.timeline.segment_cut_frames`). ``on_progress``
    receives the fraction done (0..1) a few times per second. ``subjects`` (photo id -> subject
    found earlier, e.g. by the assets stage) saves detecting them again. ``logo`` (RGBA uint8,
    straight alpha) is drawn small in a corner of every shot inside the safe area (bottom-right
    of 16:9, top-centre of 9:16 below the platform UI band) and larger on the cards; the
    soundtrack at ``audio_path`` is used as given. ``timeout_s`` bounds
    the whole render (wall-clock seconds; default 10x the film's length plus a minute): tools
    are killed
    and :class:`media.runner.ToolTimeoutError` raised past it. An encoder or decoder failure
    raises :class:`media.runner.ToolError` with the tool's stderr.
    """
    aspects = _aspects_for(outputs)
    start, stop = _frame_range(timeline, frames)
    shots = shots_in(timeline, (start, stop))
    _check_sources(timeline, photo_paths, clip_paths, (start, stop))
    started = time.monotonic()
    budget = timeout_s if timeout_s is not None else _default_timeout(timeline)
    deadline = started + budget
    progress = _Throttle(on_progress)
    preparer = SourcePreparer(timeline, aspects, photo_paths, clip_paths, deadline,
                              subjects, logo, shots)
    overlay = LogoOverlay(logo, aspects) if logo is not None else None
    pipeline = _ShotPipeline(timeline, preparer,
                             ThreadPoolExecutor(max_workers=1, thread_name_prefix="prepare"),
                             deadline, shots)
    compose_s = 0.0
    try:
        with _compose_threads, open_encoders(aspects, audio_path, outputs, encoder_preset,
                                             budget) as feeds:
            for frame in range(start, stop):
                t0 = time.monotonic()
                if t0 > deadline:
                    raise ToolTimeoutError(f"render timed out after {budget:.0f}s", None, "")
                pipeline.advance(frame)
                layers = layer_weights(timeline, frame)
                composed = {a.name: _compose(timeline, pipeline, a, frame, layers, overlay)
                            for a in aspects}
                compose_s += time.monotonic() - t0
                for name, image in composed.items():
                    feeds[name].put(image)
                progress(0.99 * (frame + 1 - start) / (stop - start))
            pipeline.close()
            for feed in feeds.values():
                feed.finish()
            wait_s = sum(feed.wait_s for feed in feeds.values())
    finally:
        pipeline.close()
    progress(1.0, force=True)
    elapsed = time.monotonic() - started
    return RenderStats(stop - start, tuple(a.name for a in aspects), elapsed,
                       (stop - start) / elapsed if elapsed > 0 else 0.0, compose_s,
                       wait_s, {k: str(v) for k, v in outputs.items()},
                       (*(("brand logo drawn",) if logo is not None else ()), *preparer.notes))
