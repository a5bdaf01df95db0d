"""Clip shots prepared for the frame loop: the clip's decoder started on its stretch, and the
clip framed like a photo (:mod:`media.frames.clip_framing`, planned from one sample frame)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from media.analysis.subjects import find_subject
from media.base import spec, yuv
from media.base.runner import Limits, ToolError
from media.frames.clip_framing import (
    ClipFraming,
    clip_backdrop,
    cover_framing,
    frame_clip,
    plan_clip_framing,
)
from media.frames.encode import ClipReader, probe_size, sample_frame
from media.frames.grade import Grade, graded_i420
from media.frames.photo_shots import keep_min
from media.frames.sources import Prepared
from media.frames.stall import StallWatch
from media.plan.timeline import Timeline

BACKDROP_EVERY = 3
"""A fitted clip's blurred backdrop is made from every this many-th frame of the clip and held
in between (a wash of its colours, blurred over a twelfth of the frame's width and dimmed: a
tenth of a second behind the clip at most, where making it took a third of the fitted frame)."""


class PreparedClip(Prepared):
    """A clip shot: one decoder shared by the aspects; its last frame holds if it runs short.
    The decoder gives I420 frames, or RGB ones when the film has a colour grade (graded in RGB,
    then converted). Waiting for a frame is bounded by the render's ``watch``. A fitted
    aspect's backdrop is made anew every :data:`BACKDROP_EVERY` frames of the clip."""

    def __init__(self, reader: ClipReader, watch: StallWatch,
                 framings: dict[str, ClipFraming] | None = None,
                 grade: Grade | None = None) -> None:
        self.reader = reader
        self.watch = watch
        self.framings = framings or {}
        self.grade = grade or Grade()
        self._index = -1
        self._decoded: np.ndarray | None = None
        self._covered: dict[str, np.ndarray] = {}
        self._backs: dict[str, tuple[int, np.ndarray]] = {}  # by aspect: made at, backdrop

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        while self._index < index:
            decoded = self.reader.next(self.watch.deadline)
            self._index += 1
            if decoded is not None:
                if decoded.ndim == 3:  # RGB: graded into the film's planes
                    decoded = graded_i420(decoded, self.grade)
                self._decoded, self._covered = decoded, {}
            elif self._decoded is None:
                raise ToolError("clip decoder produced no frames", None, "")
            else:
                self._index = index  # held: the clip ran out
        assert self._decoded is not None
        if aspect.name not in self._covered:
            framing = self.framings.get(aspect.name)
            if framing is None:
                framing = cover_framing(yuv.frame_size(self._decoded), aspect)
            self._covered[aspect.name] = frame_clip(self._decoded, framing,
                                                    self._backdrop(aspect.name, framing))
        return self._covered[aspect.name]

    def _backdrop(self, name: str, framing: ClipFraming) -> np.ndarray | None:
        """The backdrop of a fitted ``framing`` in aspect ``name`` for the frame decoded last:
        made from it, or from the one :data:`BACKDROP_EVERY` frames back at most; None for a
        crop."""
        if framing.mode != "fit" or self._decoded is None:
            return None
        made = self._backs.get(name)
        if made is None or self._index - made[0] >= BACKDROP_EVERY or self._index < made[0]:
            made = self._backs[name] = (self._index, clip_backdrop(self._decoded, framing))
        return made[1]

    def close(self) -> None:
        self.reader.close()


def tool_limits(watch: StallWatch) -> Limits:
    """A tool's limits while the render waits on it: what is left of the stall limit."""
    return Limits(timeout_s=max(1.0, watch.deadline - time.monotonic()))


class ClipShots:
    """Prepares the clip shots of ``timeline`` in ``aspects`` from the clips at ``paths`` (by
    id), graded by ``grade``; their tools bounded by the render's ``watch``."""

    def __init__(self, timeline: Timeline, aspects: tuple[spec.Aspect, ...],
                 paths: Mapping[str, Path], watch: StallWatch, grade: Grade) -> None:
        self.timeline = timeline
        self.aspects = aspects
        self.paths = paths
        self.watch = watch
        self.grade = grade
        self._sizes: dict[str, tuple[int, int]] = {}

    def prepare(self, index: int) -> PreparedClip:
        """Clip shot ``index``: its decoder started, its framing planned per aspect around the
        subject of a frame from the middle of its stretch (covering the frame without one)."""
        shot = self.timeline.shots[index]
        clip_id = shot.source_id or ""
        path = self.paths[clip_id]
        if clip_id not in self._sizes:
            self._sizes[clip_id] = probe_size(path, tool_limits(self.watch))
        size = self._sizes[clip_id]
        sample = sample_frame(path, shot.clip_start_s + shot.frames / spec.FPS / 2, size,
                              tool_limits(self.watch))
        subject = find_subject(sample) if sample is not None else None
        framings = {a.name: plan_clip_framing(size, subject, a,
                                              keep_min=keep_min(self.timeline, a))
                    for a in self.aspects} if subject is not None else None
        reader = ClipReader(path, shot.clip_start_s, shot.frames, size, tool_limits(self.watch),
                            "rgb24" if not self.grade.identity else yuv.PIX_FMT)
        return PreparedClip(reader, self.watch, framings, self.grade)
