"""Render a :class:`~media.plan.timeline.Timeline` to the delivered films, all aspects in one pass.

The frame loop: every film frame is the visible shots blended by their weights
(:func:`media.frames.blend.layer_weights`, :func:`media.frames.blend.mix`), with a brand ``logo``
drawn small in a corner of every shot (:mod:`media.cards.overlay`), and goes to one encoder per
aspect. Frames are I420 throughout (:mod:`media.base.yuv`: the encoders' own format, each source
converted once); a frame whose shot holds still (the same source frame, the same weights) is not
composed again. The encoders and the clip decoders are in :mod:`media.frames.encode`
(injectable: ``render_films(..., encoders=...)``); each shot's sources (photos decoded, moves
planned, cards drawn, clip decoders started) are prepared by :mod:`media.frames.preparer` on a
helper thread a little ahead of the frame that needs them. The soundtrack (see
:mod:`media.song.soundtrack`) is built beforehand. The render's one wall-clock limit is its
stall limit (:mod:`media.frames.stall`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from media.base import spec
from media.cards.overlay import LogoOverlay
from media.frames.blend import layer_shifts, layer_weights, mix, side_by_side
from media.frames.encode import POLL_S, EncoderFactory, EncoderFeed, FilmSound, open_encoders
from media.frames.leak import LightOverlay
from media.frames.preparer import SourcePreparer
from media.frames.signal import FrameSignal, SignalRecorder
from media.frames.sources import FilmSources, Prepared, shots_in
from media.frames.stall import STALL_S, StallWatch
from media.plan.timeline import Timeline

LOOKAHEAD_FRAMES = 45  # prepare a shot's sources this many frames before it appears
PROGRESS_INTERVAL_S = 0.25
# OpenCV threads while frames are composed. The encoders already fill the cores, and OpenCV's
# pool costs CPU to split each resize, so one thread composes cheaper (the render benchmark's
# A/B, in the notes of issue 22).
COMPOSE_OPENCV_THREADS = 1


@dataclass(frozen=True)
class RenderStats:
    """What a render did: ``frames`` per aspect, wall seconds, film frames per wall second, the
    seconds spent composing versus waiting for the encoders, and what the frames of each aspect
    looked like (``signals``, by aspect name, see :mod:`media.frames.signal`)."""

    frames: int
    aspects: tuple[str, ...]
    elapsed_s: float
    frames_per_s: float
    compose_s: float
    encoder_wait_s: float
    outputs: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    signals: dict[str, FrameSignal] = field(default_factory=dict)



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


def _frame_range(timeline: Timeline, frames: tuple[int, int] | None) -> tuple[int, int]:
    """``frames`` checked (default: the whole film). A range may not start inside a shot that
    plays a clip: clips are decoded sequentially from the shot's first frame."""
    start, stop = frames if frames is not None else (0, timeline.total_frames)
    if not 0 <= start < stop <= timeline.total_frames:
        raise ValueError(f"frames {start}..{stop} outside the film's 0..{timeline.total_frames}")
    for index, shot in enumerate(timeline.shots):
        if shot.plays_clip and shot.visible_in < start < shot.visible_out:
            raise ValueError(f"frame {start} is inside clip shot {index} "
                             f"({shot.visible_in}..{shot.visible_out})")
    return start, stop


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
                 executor: ThreadPoolExecutor, watch: StallWatch,
                 shots: range | None = None) -> None:
        self.timeline = timeline
        self.preparer = preparer
        self.executor = executor
        self.watch = watch
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
        """The prepared shot ``index`` (waits for the helper thread, within the stall limit)."""
        if index not in self.ready:
            future = self.futures.pop(index)
            while True:
                try:
                    self.ready[index] = future.result(timeout=POLL_S)
                    break
                except FutureTimeout:
                    self.watch.check(f"the sources of shot {index}")
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


_Held = dict[str, tuple[np.ndarray, float, np.ndarray]]
"""The last frame of each aspect before and after its logo: (mixed, logo weight, composed)."""


class _FilmFrames:
    """Composes the film frames of ``aspects`` from the prepared shots of ``pipeline``: the
    visible shots blended by their weights, the chorus's warm light (see
    :mod:`media.frames.leak`) and the corner ``logo`` (RGBA) over the part that is shots rather
    than cards."""

    def __init__(self, timeline: Timeline, pipeline: _ShotPipeline,
                 aspects: tuple[spec.Aspect, ...], logo: np.ndarray | None) -> None:
        self.timeline = timeline
        self.pipeline = pipeline
        self.aspects = aspects
        self.logo = LogoOverlay(logo, aspects) if logo is not None else None
        self.lights = {a.name: LightOverlay(timeline.light_leaks, a.width, a.height)
                       if timeline.light_leaks else None for a in aspects}
        self.held: _Held = {}

    def compose(self, aspect: spec.Aspect, frame: int,
                layers: list[tuple[int, float]]) -> np.ndarray:
        """The film frame ``frame`` for ``aspect`` (I420) from the shots ``layers`` (shot index,
        weight). A mix that is the last frame's array again (one shot holding still) reuses the
        last frame's logo too."""
        images = []
        for index, weight in layers:
            shot = self.timeline.shots[index]
            images.append((self.pipeline.get(index).frame(aspect, frame - shot.visible_in),
                           weight))
        shifts = layer_shifts(self.timeline, frame, [index for index, _ in layers])
        if shifts:
            composed = side_by_side([(image, weight, shifts.get(index, 0.0)) for
                                     (image, weight), (index, _) in zip(images, layers,
                                                                        strict=True)],
                                    aspect.width, aspect.height)
        else:
            composed = mix(images, aspect.width, aspect.height)
        light = self.lights[aspect.name]
        if light is not None:
            composed = light.apply(composed, frame)
        if self.logo is not None:
            on_shots = min(1.0, sum(w for i, w in layers
                                    if self.timeline.shots[i].kind != "card"))
            last = self.held.get(aspect.name)
            if last is not None and last[0] is composed and last[1] == on_shots:
                return last[2]
            mixed, composed = composed, self.logo.apply(composed, aspect, on_shots)
            self.held[aspect.name] = (mixed, on_shots, composed)
        return composed


@dataclass(frozen=True)
class RenderRequest:
    """What of a film to render and who hears of it. ``frames`` (start inclusive, stop
    exclusive; None: the whole film) renders one segment, to be joined by
    :func:`media.frames.segments.join_segments`. ``on_progress`` receives the fraction done
    (0..1) a few times per second. ``on_frame`` receives every composed frame (film frame index,
    aspect name, I420 array) on the render thread, before it goes to the encoder: it must return
    at once and never write to the array, which the render may show again (a hold).
    ``stall_s`` is the render's stall limit (:mod:`media.frames.stall`)."""

    frames: tuple[int, int] | None = None
    on_progress: Callable[[float], None] | None = None
    on_frame: Callable[[int, str, np.ndarray], None] | None = None
    stall_s: float = STALL_S


def render_films(timeline: Timeline, sources: FilmSources, outputs: dict[str, Path],
                 request: RenderRequest | None = None,
                 encoder: spec.EncoderSettings | None = None,
                 encoders: EncoderFactory = open_encoders) -> RenderStats:
    """Render ``timeline`` from ``sources`` to every aspect in ``outputs`` (aspect name -> MP4
    path) in one pass, as ``request`` asks (default: the whole film).

    ``sources.audio`` is the mastered song (48 kHz stereo WAV, the film's length: padded with
    silence or trimmed to exactly the rendered frames), used as given; None writes video-only
    files. Every frame is a function of its index except inside clip shots, which are decoded
    sequentially, so a segment (``request.frames``) may not start inside one (ValueError; see
    :func:`media.plan.timeline.segment_cut_frames`). ``sources.subjects`` (found earlier, e.g.
    by the assets stage) saves detecting them again. ``sources.logo`` (RGBA uint8, straight
    alpha) is drawn small in a corner of every shot inside the safe area (bottom-right of 16:9,
    top-centre of 9:16 below the platform UI band) and larger on the cards. ``encoder`` is
    x264's settings (default the output spec's, :class:`media.base.spec.EncoderSettings`);
    ``encoders`` opens the encoder feeds (default :func:`media.frames.encode.open_encoders`, the
    delivery encoders).

    A render has no wall-clock limit of its own: one that finishes no frame for
    ``request.stall_s`` seconds (:mod:`media.frames.stall`) has its tools killed and raises
    :class:`media.base.runner.ToolTimeoutError`; each tool keeps its own limits. An encoder or
    decoder failure raises :class:`media.base.runner.ToolError` with the tool's stderr.
    """
    request = request or RenderRequest()
    aspects = _aspects_for(outputs)
    start, stop = _frame_range(timeline, request.frames)
    sources.check(timeline, (start, stop))
    started = time.monotonic()
    watch = StallWatch(request.stall_s)
    shots = shots_in(timeline, (start, stop))
    preparer = SourcePreparer(timeline, aspects, sources, watch, shots)
    pipeline = _ShotPipeline(timeline, preparer,
                             ThreadPoolExecutor(max_workers=1, thread_name_prefix="prepare"),
                             watch, shots)
    recorders = {a.name: SignalRecorder() for a in aspects}
    progress = _Throttle(request.on_progress)
    try:
        sound = FilmSound(sources.audio, stop - start) if sources.audio is not None else None
        with _compose_threads, encoders(aspects, sound, outputs,
                                        encoder or spec.EncoderSettings(), watch) as feeds:
            compose_s = _compose_frames(_FilmFrames(timeline, pipeline, aspects, sources.logo),
                                        (start, stop), feeds, recorders, watch, progress,
                                        request.on_frame)
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
                       (*(("brand logo drawn",) if sources.logo is not None else ()),
                        *preparer.notes),
                       {name: recorder.result() for name, recorder in recorders.items()})


def _compose_frames(film: _FilmFrames, frames: tuple[int, int],
                    feeds: Mapping[str, EncoderFeed], recorders: Mapping[str, SignalRecorder],
                    watch: StallWatch, progress: _Throttle,
                    on_frame: Callable[[int, str, np.ndarray], None] | None) -> float:
    """Every frame of ``frames`` composed in each aspect, recorded, shown to ``on_frame`` and
    fed to its encoder, the ``watch`` told as each is finished and ``progress`` as it goes.
    Returns the seconds spent composing."""
    start, stop = frames
    compose_s = 0.0
    for frame in range(start, stop):
        t0 = time.monotonic()
        film.pipeline.advance(frame)
        layers = layer_weights(film.timeline, frame)
        composed = {a.name: film.compose(a, frame, layers) for a in film.aspects}
        compose_s += time.monotonic() - t0
        for name, image in composed.items():
            recorders[name].add(image)
            if on_frame is not None:
                on_frame(frame, name, image)
            feeds[name].put(image)
        watch.beat()
        progress(0.99 * (frame + 1 - start) / (stop - start))
    return compose_s
