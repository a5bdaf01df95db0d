"""Verify a rendered film against :mod:`media.base.spec` before it is delivered.

Checks, each named in its problem string: ``container`` (MP4 brand), ``faststart`` (``moov``
before ``mdat``), ``video`` (one stream), ``codec`` (H.264 High), ``size``, ``pix_fmt``,
``color`` (BT.709 primaries/transfer/matrix, limited range), ``fps`` (r and avg 30/1),
``duration`` (within tolerance of the plan), ``audio`` (one AAC LC 48 kHz stereo stream),
``loudness`` (integrated, BS.1770 via pyloudnorm), ``true_peak`` (4x oversampled), ``black``
(ffmpeg blackdetect, outside the first/last 2 s) and ``frozen`` (ffmpeg freezedetect).

Black and frozen stretches are read from what the render measured of every frame it composed
(:mod:`media.frames.signal`), and ``frames`` and ``keyframes`` check that the film is the encode
of exactly those frames: as many frames, and every keyframe (decoded alone, about one in 60
frames) showing the fingerprint of the frame composed there. Decoding the whole picture again
cost a tenth of the encode's CPU (issue 22). Without a signal (a film rendered before signals
were kept) the picture is decoded once, through blackdetect and freezedetect on a 320 px copy
(deblocking skipped, a single-threaded decoder per film, the stage checking both films at
once). The sound is decoded once (loudness and true peak share it) while the picture decodes.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import struct
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from media.base import spec
from media.base.probe import MP4, demuxer_args, ffprobe_json, input_url
from media.base.runner import (
    Limits,
    ToolError,
    ToolProcess,
    ToolTimeoutError,
    ffmpeg_argv,
    ffprobe_argv,
    run_tool,
    start_tool,
)
from media.base.spec import Aspect
from media.frames.signal import (
    BLACK_PICTURE_RATIO,
    BLACK_PIXEL_THRESHOLD,
    FREEZE_NOISE,
    FrameSignal,
    Interval,
    fingerprint,
    luma_sample,
)
from media.song.audio import decode_audio, integrated_lufs, true_peak_dbtp

__all__ = ["FilmReport", "SoundMeasures", "ffprobe_json", "true_peak_dbtp", "verify_film"]

EDGE_EXCLUSION_S = 2.0
"""Black at the very start/end (designed fades) is not counted (seconds)."""
SIGNAL_WIDTH_PX = 320
KEYFRAME_MAX_DIFFERENCE = 4.0
"""Most a keyframe's fingerprint may differ from the composed frame's (mean absolute
difference, luma levels): x264 at CRF 20 keeps block means within about 1, another picture
is tens away."""
LOUDNESS_FLOOR_LUFS = -70.0
FILMS_CHECKED_AT_ONCE = 2
"""The verify stage checks both aspects' films side by side (activities/verify.py)."""
_BLACK_LINE = re.compile(r"black_start:\s*([\d.]+)\s+black_end:\s*([\d.]+)")
_FREEZE_LINE = re.compile(r"lavfi\.freezedetect\.freeze_(start|end):\s*([\d.]+)")


class SoundMeasures:
    """The loudness and true peak of the films verified side by side, measured once per
    distinct sound: the render encodes one soundtrack into both aspects with the same encoder,
    so their audio packets are the same bytes, and what was measured of one is what the other
    would measure (a film whose packets differ, or cannot be read, is measured itself).

    One film's sound is measured at a time: that takes ~0.4 GB for 180 s, and the verify stage
    checks both films at once (the memory order's peak is 1 GiB)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_packets: dict[str, tuple[float, float] | None] = {}
        self.measured = 0
        """How many sounds were decoded and measured."""

    def measure(self, path: Path) -> tuple[float, float] | None:
        """(integrated loudness LUFS, true peak dBTP) of the film's audio; None when it is too
        short to measure (under half a second)."""
        digest = audio_packets_digest(path) or f"file:{path}"
        with self._lock:
            if digest not in self._by_packets:
                self._by_packets[digest] = _loudness(path)
                self.measured += 1
            return self._by_packets[digest]


def audio_packets_digest(path: Path) -> str | None:
    """The MD5 of the film's first audio stream's packets, read without decoding (None when
    they cannot be read: the film is then measured on its own)."""
    try:
        out = run_tool(ffmpeg_argv(*demuxer_args(MP4), "-i", input_url(path), "-map", "0:a:0",
                                   "-c", "copy", "-f", "md5", "-"), Limits(timeout_s=60))
    except ToolTimeoutError:
        raise
    except ToolError:
        return None
    text = out.stdout.decode("ascii", "replace").strip()
    return text if text.startswith("MD5=") else None

@dataclass
class FilmReport:
    """``ok`` when ``problems`` is empty; ``measurements`` holds floats and strings only."""

    ok: bool
    problems: list[str] = field(default_factory=list)
    measurements: dict[str, float | str] = field(default_factory=dict)


def verify_film(path: Path, *, aspect: Aspect, planned_duration_s: float,
                signal: FrameSignal | None = None,
                sound: SoundMeasures | None = None) -> FilmReport:
    """Check one delivered film (``aspect`` frame size, ``planned_duration_s`` seconds).

    ``signal`` is what the render measured of the frames it composed for this film: black and
    frozen stretches are read from it, and the film checked to be their encode. Without it
    the picture is decoded to find them. ``sound`` is shared by the films verified together
    (their sound is measured once when it is the same bytes); without it the film's own.

    A film that cannot be probed is reported (``probe`` problem); a missing ffmpeg or a timeout
    is our fault and raised.
    """
    problems: list[str] = []
    measured: dict[str, float | str] = {}
    problems += _check_boxes(path, measured)
    try:
        data = ffprobe_json(path, input_args=demuxer_args(MP4))
    except ToolTimeoutError:
        raise
    except (ToolError, ValueError) as exc:
        return FilmReport(ok=False, problems=[*problems, f"probe: cannot read the film: {exc}"],
                          measurements=measured)
    streams = [s for s in data.get("streams") or [] if isinstance(s, dict)]
    videos = [s for s in streams if s.get("codec_type") == "video"]
    audios = [s for s in streams if s.get("codec_type") == "audio"]
    duration = _float((data.get("format") or {}).get("duration"))
    problems += _check_video(videos, aspect, measured)
    problems += _check_duration(duration, planned_duration_s, measured)
    problems += _check_audio(audios, measured)
    with contextlib.ExitStack() as stack:
        picture = None
        if len(videos) == 1 and duration > 0:  # the picture decodes while the sound is measured
            video_duration = _float(videos[0].get("duration")) or duration
            argv = (_signal_argv(path, video_duration) if signal is None
                    else _keyframes_argv(path, video_duration))
            picture = stack.enter_context(start_tool(*argv, stdout_stream=signal is not None))
        if len(audios) == 1:
            problems += _check_loudness(path, sound or SoundMeasures(), measured)
        if picture is not None and signal is None:
            black, frozen = _stretches(picture.wait().stderr_tail, video_duration)
            problems += _check_stretches(black, frozen, video_duration, measured)
        elif picture is not None and signal is not None:
            problems += _check_against_signal(path, picture, signal, aspect, video_duration,
                                              measured)
    return FilmReport(ok=not problems, problems=problems, measurements=measured)


# --- container ---------------------------------------------------------------------------------


def top_level_boxes(path: Path, limit: int = 64) -> list[tuple[str, int]]:
    """(type, size in bytes) of the file's top-level ISO-BMFF boxes, in file order."""
    boxes: list[tuple[str, int]] = []
    with open(path, "rb") as fp:
        size = fp.seek(0, 2)
        offset = 0
        while offset + 8 <= size and len(boxes) < limit:
            fp.seek(offset)
            header = fp.read(16)
            box_size, kind = struct.unpack(">I4s", header[:8])
            if box_size == 1 and len(header) == 16:
                box_size = struct.unpack(">Q", header[8:16])[0]
            elif box_size == 0:
                box_size = size - offset
            if box_size < 8:
                break
            boxes.append((kind.decode("latin-1"), box_size))
            offset += box_size
    return boxes


def _check_boxes(path: Path, measured: dict[str, float | str]) -> list[str]:
    """``container``: an MP4 ``ftyp`` first; ``faststart``: ``moov`` before ``mdat``."""
    kinds = [kind for kind, _ in top_level_boxes(path)]
    measured["top_level_boxes"] = ",".join(kinds)
    problems = []
    brand = _major_brand(path) if kinds[:1] == ["ftyp"] else ""
    measured["major_brand"] = brand
    if not brand or brand == "qt  ":
        problems.append(f"container: not an MP4 (top-level boxes {kinds[:4]}, brand {brand!r})")
    if "moov" not in kinds or "mdat" not in kinds:
        problems.append(f"faststart: moov/mdat missing (top-level boxes {kinds[:8]})")
    elif kinds.index("moov") > kinds.index("mdat"):
        problems.append("faststart: moov after mdat (not web-optimized)")
    return problems


def _major_brand(path: Path) -> str:
    with open(path, "rb") as fp:
        return fp.read(12)[8:12].decode("latin-1")


# --- streams -----------------------------------------------------------------------------------


def _float(value: object) -> float:
    try:
        number = float(str(value))
    except ValueError:
        return 0.0
    return number if math.isfinite(number) else 0.0


def _check_video(videos: list[dict[str, Any]], aspect: Aspect,
                 measured: dict[str, float | str]) -> list[str]:
    if len(videos) != 1:
        return [f"video: expected 1 video stream, found {len(videos)}"]
    video = videos[0]
    width, height = int(video.get("width") or 0), int(video.get("height") or 0)
    measured.update(width=float(width), height=float(height),
                    video_codec=str(video.get("codec_name")), profile=str(video.get("profile")),
                    pix_fmt=str(video.get("pix_fmt")),
                    r_frame_rate=str(video.get("r_frame_rate")),
                    avg_frame_rate=str(video.get("avg_frame_rate")))
    problems = []
    if (video.get("codec_name"), video.get("profile")) != (spec.VIDEO_CODEC, spec.VIDEO_PROFILE):
        problems.append(f"codec: {video.get('codec_name')} {video.get('profile')}, expected "
                        f"{spec.VIDEO_CODEC} {spec.VIDEO_PROFILE}")
    if (width, height) != (aspect.width, aspect.height):
        problems.append(f"size: {width}x{height}, expected {aspect.width}x{aspect.height}")
    if video.get("pix_fmt") != spec.PIX_FMT:
        problems.append(f"pix_fmt: {video.get('pix_fmt')}, expected {spec.PIX_FMT}")
    problems += _check_color(video)
    rates = (video.get("r_frame_rate"), video.get("avg_frame_rate"))
    if rates != (f"{spec.FPS}/1", f"{spec.FPS}/1"):
        problems.append(f"fps: r_frame_rate {rates[0]}, avg_frame_rate {rates[1]}, expected "
                        f"{spec.FPS}/1")
    return problems


def _check_color(video: dict[str, Any]) -> list[str]:
    expected = {"color_primaries": spec.COLOR_PRIMARIES, "color_transfer": spec.COLOR_TRANSFER,
                "color_space": spec.COLOR_SPACE, "color_range": spec.COLOR_RANGE}
    wrong = [f"{key}={video.get(key)}" for key, value in expected.items()
             if video.get(key) != value]
    if not wrong:
        return []
    return [f"color: {', '.join(wrong)}, expected {spec.COLOR_PRIMARIES} {spec.COLOR_RANGE}"]


def _check_duration(duration: float, planned: float, measured: dict[str, float | str]) -> list[str]:
    measured["duration_s"] = round(duration, 3)
    if abs(duration - planned) <= spec.DURATION_TOLERANCE_S:
        return []
    return [f"duration: {duration:.2f} s, planned {planned:.2f} s "
            f"(tolerance {spec.DURATION_TOLERANCE_S} s)"]


def _check_audio(audios: list[dict[str, Any]], measured: dict[str, float | str]) -> list[str]:
    if len(audios) != 1:
        return [f"audio: expected 1 audio stream, found {len(audios)}"]
    audio = audios[0]
    got = (audio.get("codec_name"), audio.get("profile"), _float(audio.get("sample_rate")),
           int(audio.get("channels") or 0))
    measured.update(audio_codec=f"{got[0]} {got[1]}", sample_rate_hz=got[2],
                    audio_channels=float(got[3]))
    want = (spec.AUDIO_CODEC, spec.AUDIO_PROFILE, float(spec.AUDIO_SAMPLE_RATE),
            spec.AUDIO_CHANNELS)
    if got == want:
        return []
    return [f"audio: {got[0]} {got[1]} {got[2]:.0f} Hz {got[3]} ch, expected {want[0]} "
            f"{want[1]} {want[2]:.0f} Hz {want[3]} ch"]


# --- loudness ----------------------------------------------------------------------------------


def _loudness(path: Path) -> tuple[float, float] | None:
    """(LUFS, dBTP) of the film's decoded audio; None when under half a second."""
    samples = decode_audio(path)
    if len(samples) < spec.AUDIO_SAMPLE_RATE // 2:
        return None
    return integrated_lufs(samples, spec.AUDIO_SAMPLE_RATE), true_peak_dbtp(samples)


def _check_loudness(path: Path, sound: SoundMeasures,
                    measured: dict[str, float | str]) -> list[str]:
    loudness = sound.measure(path)
    if loudness is None:
        return ["loudness: audio too short to measure"]
    lufs, peak = loudness
    lufs = max(LOUDNESS_FLOOR_LUFS, lufs) if math.isfinite(lufs) else LOUDNESS_FLOOR_LUFS
    measured.update(integrated_lufs=round(float(lufs), 2), true_peak_dbtp=round(peak, 2))
    problems = []
    if abs(lufs - spec.TARGET_LUFS) > spec.LUFS_TOLERANCE:
        problems.append(f"loudness: integrated {lufs:.1f} LUFS, expected {spec.TARGET_LUFS} "
                        f"± {spec.LUFS_TOLERANCE}")
    if peak > spec.MAX_TRUE_PEAK_DBTP:
        problems.append(f"true_peak: {peak:.1f} dBTP, max {spec.MAX_TRUE_PEAK_DBTP}")
    return problems


# --- black and frozen stretches ----------------------------------------------------------------


def signal_decoder_threads(cores: int | None = None) -> int:
    """Decoder threads for one film's picture: the usable cores shared by the films checked
    at once (on two cores, one each: frame threading there costs more CPU than it saves, and
    the films' decoders already fill the cores)."""
    usable = cores if cores is not None else len(os.sched_getaffinity(0))
    return max(1, usable // FILMS_CHECKED_AT_ONCE)


def _signal_argv(path: Path, duration_s: float) -> tuple[list[str], Limits]:
    """ffmpeg decoding the picture once, downscaled, through blackdetect and freezedetect
    (their findings on stderr), and its limits."""
    graph = (f"scale={SIGNAL_WIDTH_PX}:-2:flags=fast_bilinear,"
             f"blackdetect=d=0.2:pix_th={BLACK_PIXEL_THRESHOLD}:pic_th={BLACK_PICTURE_RATIO},"
             f"freezedetect=n={FREEZE_NOISE}:d={spec.MAX_FROZEN_S / 2}")
    # Deblocking is skipped: black and frozen stretches do not depend on it at 320 px, and it
    # is a third of an H.264 decode.
    argv = ffmpeg_argv("-loglevel", "info", "-nostats", "-threads",
                       str(signal_decoder_threads()), "-skip_loop_filter", "all",
                       "-i", input_url(path), "-map", "0:v:0", "-an", "-vf", graph,
                       "-f", "null", "-")
    return argv, Limits(timeout_s=60 + 2 * duration_s)


def _stretches(log: str, duration_s: float) -> tuple[list[Interval], list[Interval]]:
    black = [(float(a), float(b)) for a, b in _BLACK_LINE.findall(log)]
    return black, _freeze_intervals(log, duration_s)


def _freeze_intervals(log: str, duration_s: float) -> list[Interval]:
    """Pair freezedetect's start/end lines; a freeze still running at the end ends there."""
    intervals: list[Interval] = []
    start: float | None = None
    for kind, value in _FREEZE_LINE.findall(log):
        if kind == "start":
            start = float(value)
        elif start is not None:
            intervals.append((start, float(value)))
            start = None
    if start is not None:
        intervals.append((start, duration_s))
    return intervals


def _clipped(intervals: list[Interval], low: float, high: float) -> list[Interval]:
    return [(max(a, low), min(b, high)) for a, b in intervals if min(b, high) > max(a, low)]


def _longest(intervals: list[Interval]) -> tuple[float, float, float]:
    """(length, start, end) of the longest interval, zeros when there is none."""
    return max(((b - a, a, b) for a, b in intervals), default=(0.0, 0.0, 0.0))


def _check_stretches(black: list[Interval], frozen: list[Interval], duration_s: float,
                     measured: dict[str, float | str]) -> list[str]:
    """``black`` (outside the first and last :data:`EDGE_EXCLUSION_S`) and ``frozen``
    stretches (seconds) against the spec's limits."""
    black_len, black_start, black_end = _longest(
        _clipped(black, EDGE_EXCLUSION_S, duration_s - EDGE_EXCLUSION_S))
    frozen_len, frozen_start, frozen_end = _longest(frozen)
    measured.update(longest_black_s=round(black_len, 2), longest_frozen_s=round(frozen_len, 2))
    problems = []
    if black_len > spec.MAX_BLACK_S:
        problems.append(f"black: {black_len:.1f} s black at {black_start:.1f}-{black_end:.1f} s "
                        f"(max {spec.MAX_BLACK_S} s)")
    if frozen_len > spec.MAX_FROZEN_S:
        problems.append(f"frozen: {frozen_len:.1f} s frozen at {frozen_start:.1f}-"
                        f"{frozen_end:.1f} s (max {spec.MAX_FROZEN_S} s)")
    return problems


# --- the film against the frames the render composed -------------------------------------------


def _keyframes_argv(path: Path, duration_s: float) -> tuple[list[str], Limits]:
    """ffmpeg decoding the keyframes alone, their luma planes as raw frames on stdout."""
    argv = ffmpeg_argv("-skip_frame", "nokey", "-i", input_url(path), "-map", "0:v:0", "-an",
                       "-fps_mode", "passthrough", "-vf", "extractplanes=y", "-f", "rawvideo",
                       "pipe:1")
    return argv, Limits(timeout_s=60 + duration_s)


def video_packets(path: Path) -> tuple[int, list[int]]:
    """How many frames the film's video holds and the frame numbers (presentation order, from
    0) of its keyframes, from its packets alone (nothing decoded)."""
    out = run_tool(ffprobe_argv(*demuxer_args(MP4), "-select_streams", "v:0", "-show_entries",
                                "packet=pts_time,flags", "-of", "csv=p=0", input_url(path)),
                   Limits(timeout_s=60)).stdout.decode("ascii", "replace")
    times = []
    for line in out.splitlines():
        pts, _, flags = line.partition(",")
        with contextlib.suppress(ValueError):
            times.append((float(pts), "K" in flags))
    if not times:
        return 0, []
    first = min(t for t, _ in times)
    return len(times), sorted(round((t - first) * spec.FPS) for t, key in times if key)


def _keyframe_prints(keyframes: ToolProcess, aspect: Aspect) -> list[np.ndarray]:
    """The fingerprint of every keyframe the decoder pipes (read one frame at a time), once
    it has exited cleanly."""
    frame = np.empty((aspect.height, aspect.width), np.uint8)
    view = memoryview(frame).cast("B")
    prints = []
    while keyframes.read_into(view) == len(view):
        prints.append(fingerprint(luma_sample(frame)))
    keyframes.wait()
    return prints


def _check_against_signal(path: Path, keyframes: ToolProcess, signal: FrameSignal,
                          aspect: Aspect, duration_s: float,
                          measured: dict[str, float | str]) -> list[str]:
    """``frames``, ``keyframes``, ``black`` and ``frozen`` from the render's ``signal``."""
    seen = _keyframe_prints(keyframes, aspect)
    frames, indices = video_packets(path)
    measured.update(frames=float(frames), frames_composed=float(signal.frames),
                    keyframes_checked=float(len(seen)))
    problems = []
    if frames != signal.frames:
        problems.append(f"frames: the film has {frames} frames, the render composed "
                        f"{signal.frames}")
    if len(seen) != len(indices) or not indices:
        problems.append(f"keyframes: decoded {len(seen)}, the film marks {len(indices)}")
    elif indices[-1] >= signal.frames:
        problems.append(f"keyframes: one at frame {indices[-1]}, past the {signal.frames} "
                        f"composed")
    else:
        worst = max(float(cv2.absdiff(print_, signal.fingerprints[index]).mean())
                    for print_, index in zip(seen, indices, strict=True))
        measured["keyframe_max_difference"] = round(worst, 2)
        if worst > KEYFRAME_MAX_DIFFERENCE:
            problems.append(f"keyframes: a keyframe differs from the frame composed there by "
                            f"{worst:.1f} levels (max {KEYFRAME_MAX_DIFFERENCE})")
    black = signal.black_intervals(spec.FPS)
    frozen = signal.frozen_intervals(spec.FPS, spec.MAX_FROZEN_S / 2)
    return problems + _check_stretches(black, frozen, duration_s, measured)
