"""Which part of a customer's clip is worth showing: a cheap low-resolution analysis pass.

One ffmpeg decode per clip, gray, about :data:`ANALYSIS_WIDTH_PX` pixels wide at
:data:`ANALYSIS_FPS` frames per second (a few hundred kilobytes for a minute of video). Each
sample gets a quality score in 0..1 (:func:`frame_scores`) from:

* sharpness: variance of the Laplacian (soft, out-of-focus and black frames score low);
* exposure: mean level near mid-grey with few crushed or blown pixels;
* motion: mean absolute difference to the previous sample: a static stretch scores low, moderate
  movement high, chaos lower again;
* shake: jerk of the global translation (phase correlation between samples) is penalized;
* faces: a frontal face in the sample is a bonus.

:func:`media.analysis.clip_window.best_window` then slides a window of the shot's length over the
scores and returns the in-point (seconds) of the best one (pure data, for the planner). Everything
but :func:`decode_samples` is pure numpy/OpenCV on arrays.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from media.analysis.dedupe import picture_hashes
from media.analysis.subjects import detect_faces
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.intake.clip_checks import MAX_ASPECT_RATIO

ANALYSIS_WIDTH_PX = 160
ANALYSIS_FPS = 5.0
MAX_ANALYSIS_HEIGHT_PX = 2 * round(ANALYSIS_WIDTH_PX * MAX_ASPECT_RATIO / 2)
"""Tallest analysis sample (pixels): the tallest shape prep accepts, ANALYSIS_WIDTH_PX wide."""
MAX_ANALYSIS_S = 180.0  # seconds of a clip looked at (mezzanines are capped well below)
ANALYSIS_TIMEOUT_S = 60.0 + MAX_ANALYSIS_S  # a busy 2-core worker decodes 1080p near real time
SHARP_REF = 250.0  # Laplacian variance (gray levels^2 at 160 px) that counts as fully sharp
STILL_DIFF = 0.012  # mean abs difference (0..1) below which a sample counts as static
CHAOS_DIFF = 0.14  # above this the motion score starts falling
MIN_SHIFT_RESPONSE = 0.15  # phase-correlation peak below which a shift is not trusted
SHAKE_REF_PX = 3.0  # jerk of the global shift (analysis px per sample^2) counted as full shake
FACE_EVERY = 5  # faces are searched on every 5th sample (about once a second)
WEIGHTS = {"sharp": 0.35, "exposure": 0.25, "motion": 0.30, "faces": 0.10, "shake": 0.35}


@dataclass(frozen=True)
class ClipAnalysis:
    """Per-sample measurements of one clip, ``step_s`` seconds apart (sample ``i`` at
    ``i * step_s``). ``sharpness`` is Laplacian variance, ``mean``/``clipped`` the mean level
    and the fraction of crushed/blown pixels (0..1), ``motion`` the mean absolute difference to
    the previous sample (0..1), ``shake`` the global-shift jerk (analysis pixels), ``faces`` the
    number of faces found (-1: not searched); ``hashes`` perceptual hashes of the first, middle
    and last samples (see :func:`media.analysis.dedupe.picture_hashes`: is the clip a photo's
    twin?)."""

    step_s: float
    sharpness: tuple[float, ...]
    mean: tuple[float, ...]
    clipped: tuple[float, ...]
    motion: tuple[float, ...]
    shake: tuple[float, ...]
    faces: tuple[int, ...]
    hashes: tuple[int, ...] = ()

    @property
    def count(self) -> int:
        """Number of samples."""
        return len(self.sharpness)


def analysis_size(size: tuple[int, int], width: int = ANALYSIS_WIDTH_PX) -> tuple[int, int]:
    """(width, height) pixels of the analysis samples of a clip of ``size`` (width, height):
    ``width`` wide, the clip's shape, an even height within [2, MAX_ANALYSIS_HEIGHT_PX] (a
    shape prep would refuse is squeezed, never a zero or gigabyte frame)."""
    height = 2 * round(width * size[1] / max(1, size[0]) / 2)
    return width, min(MAX_ANALYSIS_HEIGHT_PX, max(2, height))


def analysis_argv(path: Path, size: tuple[int, int], fps: float = ANALYSIS_FPS,
                  max_s: float = MAX_ANALYSIS_S) -> list[str]:
    """ffmpeg decoding ``path`` to raw 8-bit gray frames of ``size`` (width, height pixels) at
    ``fps`` frames per second, for at most ``max_s`` seconds, on stdout."""
    # Deblocking is skipped: it is a third of the decode and invisible at 160 px.
    width, height = size
    return ffmpeg_argv("-threads", "2", "-skip_loop_filter", "all", "-t", f"{max_s:.3f}",
                       "-i", str(path),
                       "-map", "0:v:0", "-an", "-sn", "-dn",
                       "-vf", f"fps={fps:g},scale={width}:{height}:flags=area,format=gray",
                       "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1")


def decode_samples(path: Path, size: tuple[int, int], limits: Limits | None = None, *,
                   width: int = ANALYSIS_WIDTH_PX, fps: float = ANALYSIS_FPS) -> np.ndarray:
    """Gray samples of a clip of ``size`` (width, height pixels) as uint8 (n, h, w), ``width``
    pixels wide (see :func:`analysis_size`), ``fps`` per second (one ffmpeg decode through
    :mod:`media.base.runner`); n may be 0 for a clip too short to sample."""
    width, height = analysis_size(size, width)
    limits = limits or Limits(timeout_s=ANALYSIS_TIMEOUT_S)
    out = run_tool(analysis_argv(path, (width, height), fps), limits).stdout
    n = len(out) // (width * height)
    return np.frombuffer(out[: n * width * height], np.uint8).reshape(n, height, width)


def _global_shifts(frames: np.ndarray) -> np.ndarray:
    """Translation (dx, dy analysis pixels) of each sample relative to the previous one."""
    if len(frames) < 2:
        return np.zeros((len(frames), 2))
    h, w = frames.shape[1:]
    window = cv2.createHanningWindow((w, h), cv2.CV_32F)
    shifts = [(0.0, 0.0)]
    for a, b in itertools.pairwise(frames):
        (dx, dy), response = cv2.phaseCorrelate(a.astype(np.float32), b.astype(np.float32),
                                                window)
        # A weak peak is no measurement (flat or changing content), not a jump.
        shifts.append((dx, dy) if response >= MIN_SHIFT_RESPONSE else shifts[-1])
    return np.asarray(shifts, np.float64)


def analyse_frames(frames: np.ndarray, step_s: float) -> ClipAnalysis:
    """Measure gray samples (uint8, (n, h, w)) taken ``step_s`` seconds apart."""
    if frames.ndim != 3 or len(frames) == 0:
        raise ValueError(f"need (n, h, w) gray samples, got shape {frames.shape}")
    sharp, mean, clipped, faces = [], [], [], []
    for i, frame in enumerate(frames):
        sharp.append(float(cv2.Laplacian(frame, cv2.CV_32F).var()))
        mean.append(float(frame.mean()) / 255.0)
        clipped.append(float(np.mean((frame < 8) | (frame > 247))))
        faces.append(len(detect_faces(cv2.resize(frame, None, fx=2, fy=2)))
                     if i % FACE_EVERY == 0 else -1)
    f32 = frames.astype(np.float32)
    diffs = np.abs(np.diff(f32, axis=0)).mean(axis=(1, 2)) / 255.0 if len(frames) > 1 else []
    motion = [float(diffs[0]) if len(diffs) else 0.0, *map(float, diffs)]
    velocity = _global_shifts(frames)
    jerk = np.zeros(len(frames))
    if len(frames) > 2:
        jerk[2:] = np.hypot(*(velocity[2:] - velocity[1:-1]).T)
    picked = sorted({0, len(frames) // 2, len(frames) - 1})
    hashes = tuple(h for i in picked for h in picture_hashes(frames[i]))
    return ClipAnalysis(step_s, tuple(sharp), tuple(mean), tuple(clipped), tuple(motion),
                        tuple(float(j) for j in jerk), tuple(faces), hashes)


def analyse_clip(path: Path, size: tuple[int, int], limits: Limits | None = None) -> ClipAnalysis:
    """Decode ``path`` (``size`` = width, height pixels) once at low resolution and measure it;
    a clip with no sample gets an empty analysis (the planner then starts its shots mid-clip)."""
    step_s = 1.0 / ANALYSIS_FPS
    frames = decode_samples(path, size, limits)
    if len(frames) == 0:
        return ClipAnalysis(step_s, (), (), (), (), (), ())
    return analyse_frames(frames, step_s)


@dataclass(frozen=True)
class ScoredClip:
    """What the planner reads of a clip's analysis: its quality every ``step_s`` seconds
    (``scores``, :func:`frame_scores` rounded to :data:`SCORE_DECIMALS` places) and the
    perceptual hashes of a few of its frames (``hashes``, :attr:`ClipAnalysis.hashes`)."""

    step_s: float
    scores: tuple[float, ...]
    hashes: tuple[int, ...]


SCORE_DECIMALS = 4  # a score's places: the same whether prep or the render's plan scored it


def scored_clip(path: Path, size: tuple[int, int], limits: Limits | None = None) -> ScoredClip:
    """:func:`analyse_clip` of ``path`` (``size`` = width, height pixels) as the planner reads
    it (see :class:`ScoredClip`)."""
    analysis = analyse_clip(path, size, limits)
    return ScoredClip(analysis.step_s,
                      tuple(round(float(v), SCORE_DECIMALS) for v in frame_scores(analysis)),
                      analysis.hashes)


def _motion_score(diff: np.ndarray) -> np.ndarray:
    """0 for a static sample, 1 for moderate movement, falling again for chaos."""
    rise = np.clip(diff / STILL_DIFF - 0.25, 0.0, 1.0)
    fall = 1.0 - np.clip((diff - CHAOS_DIFF) / (2 * CHAOS_DIFF), 0.0, 0.7)
    return rise * fall


def _spread_faces(faces: np.ndarray) -> np.ndarray:
    """Face presence (0/1) for every sample, from the samples that were searched."""
    searched = np.flatnonzero(faces >= 0)
    if len(searched) == 0:
        return np.zeros(len(faces))
    nearest = searched[np.abs(np.arange(len(faces))[:, None] - searched[None, :]).argmin(axis=1)]
    return (faces[nearest] > 0).astype(np.float64)


def frame_scores(analysis: ClipAnalysis) -> np.ndarray:
    """Quality of every sample (float64, about 0..1; shaky samples can go below 0)."""
    sharp = np.clip(np.log1p(np.asarray(analysis.sharpness)) / math.log1p(SHARP_REF), 0.0, 1.0)
    level = np.asarray(analysis.mean)
    exposure = np.clip(1.0 - ((level - 0.45) / 0.45) ** 2
                       - 1.5 * np.asarray(analysis.clipped), 0.0, 1.0)
    motion = _motion_score(np.asarray(analysis.motion))
    shake = np.clip(np.asarray(analysis.shake) / SHAKE_REF_PX, 0.0, 1.0)
    faces = _spread_faces(np.asarray(analysis.faces))
    w = WEIGHTS
    return (w["sharp"] * sharp + w["exposure"] * exposure + w["motion"] * motion
            + w["faces"] * faces - w["shake"] * shake)
