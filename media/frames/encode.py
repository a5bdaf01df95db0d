"""Encoders and clip readers: the ffmpeg processes a render pipes frames into and out of.

Every composed frame goes to one ffmpeg/libx264 encoder per aspect as raw yuv420p (I420,
BT.709 limited range, :mod:`media.base.yuv`: what x264 encodes, so ffmpeg converts nothing) on stdin
(:func:`encoder_argv`); a writer thread per encoder (:class:`EncoderFeed`) keeps its pipe
flowing through a bounded queue, and a failing encoder surfaces as
:class:`media.base.runner.ToolError` with its stderr (never a hang). A clip segment is decoded once
by
ffmpeg piping raw frames out (:func:`decoder_argv`: I420 as the film's, or RGB where the film's
colour grade needs it), read on a helper thread (:class:`ClipReader`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from media.base import spec, yuv
from media.base.runner import (
    DEFAULT_OUTPUT_FILE_BYTES,
    Limits,
    ToolError,
    ToolProcess,
    ToolTimeoutError,
    ffmpeg_argv,
    ffprobe_argv,
    run_tool,
    start_tool,
)
from media.frames.stall import StallWatch

QUEUE_FRAMES = 2  # frames buffered per encoder (ffmpeg's input queue buffers more)
CLIP_QUEUE_FRAMES = 3  # decoded clip frames buffered ahead
MAX_ENCODER_THREADS = 4
# Raw frames ffmpeg's input thread may hold ahead of the encoder (its default, 8, is ~25 MB of
# yuv420p 1080p per encoder; our own bounded queue already keeps the pipe full).
ENCODER_INPUT_QUEUE = 2
POLL_S = 0.25
ENCODER_ADDRESS_SPACE = 6 * 1024**3
ENCODER_CPU_S = 2 * 3600
"""CPU seconds one encoder may spend: a backstop only. An encoder lives as long as its render, so
its wall clock is bounded by the render's stall limit (:mod:`media.frames.stall`: it must take
every frame, and close its film, within that of the last frame), not by a time of its own."""
PIPE_BYTES = 1 << 20  # larger pipes: fewer wake-ups per 3 MB frame
IOV_MAX = os.sysconf("SC_IOV_MAX")  # buffers one writev takes
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)



@dataclass(frozen=True)
class FilmSound:
    """The sound muxed under a film: the soundtrack WAV (48 kHz) and the film's frame count.

    The picture decides the film's length: the sound is padded with silence or trimmed to
    exactly ``frames`` frames' worth of samples (:func:`audio_encoder_args`). ffmpeg's
    ``-shortest`` instead ends the film where the sound ends, and dropped the last frame of
    some lengths whose sound was exactly as long as the picture (90 s and 120 s: 2699 of 2700
    frames)."""

    path: Path
    frames: int

    @property
    def samples(self) -> int:
        """Samples of sound the film carries."""
        return self.frames * spec.AUDIO_SAMPLES_PER_FRAME


# An encoder command line: (aspect, sound or None, output path, x264 settings) -> argv.
EncoderArgv = Callable[[spec.Aspect, FilmSound | None, Path, spec.EncoderSettings], list[str]]


# --- ffmpeg command lines --------------------------------------------------------------------


def audio_encoder_args(sound: FilmSound) -> list[str]:
    """ffmpeg output options encoding the delivered sound: exactly ``sound.samples`` samples
    (silence-padded or trimmed), AAC-LC 192 kb/s, 48 kHz stereo (the single-pass encoder and
    :func:`media.frames.segments.join_segments` share them)."""
    return ["-af", f"apad=whole_len={sound.samples},atrim=end_sample={sound.samples}",
            *spec.AAC_ENCODER_ARGS, "-ar", str(spec.AUDIO_SAMPLE_RATE),
            "-ac", str(spec.AUDIO_CHANNELS)]


def encoder_threads(aspects: int = len(spec.ASPECTS), cores: int | None = None) -> int:
    """x264 threads for each of a render's ``aspects`` encoders: the usable cores shared between
    them, 1 to :data:`MAX_ENCODER_THREADS`.

    On two cores that is one thread each: the two encoders and the composer already fill the
    cores, so x264's frame threading buys no wall time there and costs memory per encoder."""
    usable = cores if cores is not None else len(os.sched_getaffinity(0))
    return max(1, min(MAX_ENCODER_THREADS, usable // max(1, aspects)))


def x264_params(settings: spec.EncoderSettings) -> str:
    """The ``-x264-params`` of an encoder at ``settings``: no lookahead thread of its own
    (``sync-lookahead=0``: one thread per encoder already fills the cores) and the settings'
    parameters over the preset."""
    return ":".join(p for p in ("sync-lookahead=0", settings.params) if p)


def encoder_argv(aspect: spec.Aspect, sound: FilmSound | None, out_path: Path,
                 settings: spec.EncoderSettings) -> list[str]:
    """ffmpeg reading raw frames of ``aspect`` on stdin plus the sound, writing the delivery MP4:
    H.264 High yuv420p with the BT.709 matrix and tags at x264's ``settings`` (preset, CRF,
    keyframe interval, parameters: :class:`media.base.spec.EncoderSettings`), AAC-LC 48 kHz stereo,
    +faststart.

    The frames are the film's I420 frames (:mod:`media.base.yuv`), tagged BT.709 limited range
    on input and encoded as they are: no scale or format filter. Every frame piped in is in the
    film; the sound is fitted to ``sound.frames`` of them. ``sound`` None: a video-only MP4 (a
    segment of the film, joined later by :func:`media.frames.segments.join_segments`) with the
    same video settings. Every encode starts on an IDR frame and x264's GOPs are closed by
    default, so segments join by stream copy."""
    audio_in = ["-i", str(sound.path), "-map", "0:v:0", "-map", "1:a:0"] if sound else [
        "-map", "0:v:0"]
    audio_out = audio_encoder_args(sound) if sound else []
    threads = encoder_threads()
    return ffmpeg_argv(
        "-filter_threads", "1",  # no filter to run: not worth a thread pool
        "-color_range", spec.COLOR_RANGE, "-colorspace", spec.COLOR_SPACE,
        "-color_primaries", spec.COLOR_PRIMARIES, "-color_trc", spec.COLOR_TRANSFER,
        "-f", "rawvideo", "-pix_fmt", yuv.PIX_FMT, "-s", f"{aspect.width}x{aspect.height}",
        "-r", str(spec.FPS), "-thread_queue_size", str(ENCODER_INPUT_QUEUE), "-i", "pipe:0",
        *audio_in,
        "-c:v", "libx264", "-profile:v", "high", "-preset", settings.preset,
        "-crf", str(settings.crf), "-g", str(settings.gop),
        "-threads", str(threads), "-x264-params", x264_params(settings),
        "-pix_fmt", spec.PIX_FMT, "-colorspace", spec.COLOR_SPACE,
        "-color_primaries", spec.COLOR_PRIMARIES, "-color_trc", spec.COLOR_TRANSFER,
        "-color_range", spec.COLOR_RANGE, "-r", str(spec.FPS),
        *audio_out,
        "-movflags", "+faststart", str(out_path),
    )


def decoder_argv(path: Path, start_s: float, frames: int, pix_fmt: str = "rgb24",
                 size: tuple[int, int] | None = None) -> list[str]:
    """ffmpeg decoding ``frames`` frames of a mezzanine clip from ``start_s`` seconds as raw
    frames on stdout at 30 fps, native size: ``rgb24`` (BT.709 limited-range YUV to full-range
    RGB) or ``yuv420p`` (I420, BT.709 limited range as the film's frames; ``size``, width and
    height, then rounded down to even, the clip scaled to it if it is odd)."""
    if pix_fmt == yuv.PIX_FMT:
        scale = "scale=in_color_matrix=bt709:in_range=tv:out_color_matrix=bt709:out_range=tv"
        if size is not None:
            scale = f"scale={size[0] // 2 * 2}:{size[1] // 2 * 2}:" + scale[len("scale="):]
    elif pix_fmt == "rgb24":
        scale = "scale=in_color_matrix=bt709:in_range=tv:out_range=pc"
    else:
        raise ValueError(f"clips decode to yuv420p or rgb24, not {pix_fmt!r}")
    return ffmpeg_argv(
        "-threads", "2", "-ss", f"{max(0.0, start_s):.3f}", "-i", str(path),
        "-map", "0:v:0", "-an", "-sn", "-dn",
        "-vf", f"fps={spec.FPS},{scale},format={pix_fmt}",
        "-frames:v", str(frames), "-f", "rawvideo", "-pix_fmt", pix_fmt, "pipe:1",
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
    view whose rows are contiguous (:func:`media.frames.compose.resize_crop` returns one) goes out
    by ``writev`` straight from its rows, without first being copied whole into a contiguous
    array."""
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
    """Feeds frames to one encoder from a writer thread through a bounded queue; every wait for
    the encoder is bounded by the render's ``watch``."""

    def __init__(self, process: ToolProcess, name: str, watch: StallWatch) -> None:
        self.process = process
        self.name = name
        self.watch = watch
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
                # Not vmsplice(2): lending the frame's pages saves Python CPU but costs the
                # encoders more, as their read then copies from cache-cold frames, not from
                # pipe pages just written.
                write_frame(stdin.fileno(), frame)
        except (OSError, ValueError) as exc:  # BrokenPipeError: the encoder died
            self.error = exc
        finally:
            with contextlib.suppress(OSError, ValueError):
                stdin.close()

    def put(self, frame: np.ndarray | None) -> None:
        """Queue a frame (None ends the stream); raise if the encoder failed or stalled."""
        started = time.monotonic()
        while True:
            if self.error is not None:
                raise self.failure()
            try:
                self._queue.put(frame, timeout=POLL_S)
                break
            except queue.Full:
                self.process.check_deadline()
                self.watch.check(f"encoder {self.name} to take a frame")
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
        """End the stream, wait for the encoder (within the render's stall limit of the last
        frame), and raise its error if it failed."""
        self.put(None)
        while self._thread.is_alive():
            self._thread.join(timeout=POLL_S)
            self.process.check_deadline()
            self.watch.check(f"encoder {self.name} to take the last frames")
        if self.error is not None:
            raise self.failure()
        self.process.wait(within_s=max(0.0, self.watch.deadline - time.monotonic()))


class EncoderFactory(Protocol):
    """Opens one encoder feed per aspect, by aspect name, for
    :func:`media.frames.render.render_films`
    (the real one is :func:`open_encoders`; a benchmark passes its own, e.g. writing raw
    frames). Waits for an encoder are bounded by the render's ``watch``."""

    def __call__(self, aspects: tuple[spec.Aspect, ...], sound: FilmSound | None,
                 outputs: dict[str, Path], settings: spec.EncoderSettings,
                 watch: StallWatch) -> contextlib.AbstractContextManager[dict[str, EncoderFeed]]:
        ...


@contextlib.contextmanager
def open_encoders(aspects: tuple[spec.Aspect, ...], sound: FilmSound | None,
                  outputs: dict[str, Path], settings: spec.EncoderSettings, watch: StallWatch,
                  *, argv_for: EncoderArgv = encoder_argv,
                  output_file_bytes: int = DEFAULT_OUTPUT_FILE_BYTES,
                  ) -> Iterator[dict[str, EncoderFeed]]:
    """One encoder per aspect (``argv_for``, default :func:`encoder_argv`, at ``settings``,
    writing ``outputs[aspect.name]``) with its feed, by aspect name, each bounded by
    :data:`ENCODER_CPU_S`, ``output_file_bytes`` written and the render's ``watch`` (see
    :class:`EncoderFeed`); on leaving, the feeds stop and the encoders are killed unless they
    were finished (:meth:`EncoderFeed.finish`)."""
    limits = Limits(timeout_s=math.inf, cpu_s=ENCODER_CPU_S,
                    address_space_bytes=ENCODER_ADDRESS_SPACE, output_file_bytes=output_file_bytes)
    with contextlib.ExitStack() as stack:
        feeds: dict[str, EncoderFeed] = {}
        for aspect in aspects:
            process = stack.enter_context(start_tool(
                argv_for(aspect, sound, outputs[aspect.name], settings), limits, stdin=True))
            feeds[aspect.name] = EncoderFeed(process, aspect.name, watch)
            stack.callback(feeds[aspect.name].abort)
        yield feeds


# --- clip readers ----------------------------------------------------------------------------


class ClipReader:
    """Raw frames of one clip segment, decoded by ffmpeg and read on a helper thread: I420
    frames (``pix_fmt`` ``yuv420p``, the size rounded down to even) or RGB (H x W x 3,
    ``rgb24``)."""

    def __init__(self, path: Path, start_s: float, frames: int, size: tuple[int, int],
                 limits: Limits, pix_fmt: str = "rgb24") -> None:
        self.pix_fmt = pix_fmt
        self.size = size if pix_fmt == "rgb24" else (size[0] // 2 * 2, size[1] // 2 * 2)
        self.frames = frames
        self.error: BaseException | None = None
        self._ended = False
        self._stop = threading.Event()
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=CLIP_QUEUE_FRAMES)
        self._stack = contextlib.ExitStack()
        self._process = self._stack.enter_context(
            start_tool(decoder_argv(path, start_s, frames, pix_fmt, size), limits,
                       stdout_stream=True))
        grow_pipe(self._process.stdout)
        self._thread = threading.Thread(target=self._read, name=f"decode-{path.name}",
                                        daemon=True)
        self._thread.start()

    def _read_frame(self) -> np.ndarray | None:
        width, height = self.size
        i420 = self.pix_fmt == yuv.PIX_FMT
        frame = np.empty(width * height * 3 // 2 if i420 else width * height * 3, np.uint8)
        view, got = memoryview(frame), 0  # not a bytearray: its zeroing would be overwritten
        stdout = self._process.stdout
        while got < frame.size:
            n = stdout.readinto(view[got:])
            if not n:
                return None
            got += n
        return (frame.reshape(yuv.frame_shape(width, height)) if i420
                else frame.reshape(height, width, 3))

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
