"""Clip normalization: a probed customer clip becomes the render's mezzanine.

The mezzanine is H.264 High (libx264 veryfast, CRF 18), yuv420p, BT.709 tagged limited range,
30 fps CFR, upright (no rotation metadata), square pixels, long edge at most 1920 (never
upscaled), even dimensions, HDR (PQ/HLG) tone-mapped to SDR, and stereo 48 kHz AAC or no audio.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from media.base import errors
from media.base.errors import MediaRejected
from media.base.probe import MOV, ClipProbe, demuxer_args, ffprobe_json, input_url
from media.base.runner import (
    CPU_LIMIT_EXITS,
    Limits,
    ToolError,
    ToolTimeoutError,
    ffmpeg_argv,
    run_tool,
)
from media.base.spec import AAC_ENCODER_ARGS
from media.intake.clip_analysis import ANALYSIS_FPS
from media.intake.clip_checks import MAX_PIXEL_RATE_PX_S

MEZZANINE_FPS = 30
MEZZANINE_MAX_S = 120.0
"""Longest mezzanine (seconds): the start of a longer clip is kept."""
MIN_MEZZANINE_FRAMES = math.ceil(MEZZANINE_FPS / ANALYSIS_FPS)
"""Fewest frames a usable mezzanine holds: one clip-analysis sample (a one-frame clip has none)."""
WORST_NORMALIZE_PX_PER_S = 200e6
"""Source pixels per wall second a loaded 2-core worker normalizes at worst: measured 330 Mpx
per CPU second on synthetic 4K60 H.264 (so about 660 Mpx/s on two free cores), taken at under a
third of that for high-bitrate real footage and a busy machine."""
WORST_NORMALIZE_PX_PER_CPU_S = 100e6
"""Source pixels per CPU second the normalize is allowed at worst: measured 370 Mpx per CPU
second (decode, 30 fps, scale, with the encode counted apart) on synthetic 4K60 H.264, taken at
under a third. Part of each clip's CPU bound (:func:`normalize_cpu_s`)."""
WORST_ENCODE_CPU_S_PER_S = 4.0
"""CPU seconds per mezzanine second the normalize is allowed for its encode: measured 0.7 for
detailed 1080p30 at veryfast CRF 18, taken at under a sixth."""
NORMALIZE_CPU_BASE_S = 5.0
"""CPU seconds every normalize is allowed on top (start, probing, the muxer)."""
ORDER_CLIP_WORK_MAX_PX = 2 * MAX_PIXEL_RATE_PX_S * MEZZANINE_MAX_S
"""Most source pixels the clips of one order may cost to normalize (see :func:`clip_work_px`):
two clips at the pixel-rate cap for the whole mezzanine length, 10 minutes at
WORST_NORMALIZE_PX_PER_S, inside the prep stage's 30; a third clip at the cap is refused
(``order_clip_work_over_budget``) and the film is made without it."""
MAX_LONG_EDGE_PX = 1920
AUDIO_RATE_HZ = 48_000
TONEMAP_CHAIN = ("zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,"
                 "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p")
# swscale's names for the YCbCr matrix of an SDR source (ffprobe color_space -> scale option).
_SWS_MATRIX = {"bt709": "bt709", "smpte170m": "smpte170m", "bt470bg": "bt470",
               "fcc": "fcc", "smpte240m": "smpte240m", "bt2020nc": "bt2020", "bt2020c": "bt2020"}
_ZIMG_PRIMARIES = frozenset({"bt709", "bt2020", "smpte170m", "smpte240m", "bt470bg",
                             "smpte431", "smpte432"})
_ZIMG_MATRIX = frozenset({"bt709", "bt2020nc", "bt2020c", "smpte170m", "bt470bg"})
# ffmpeg stderr lines that blame the input file rather than our side (disk, encoder, options).
_INPUT_FAULTS = re.compile(
    r"invalid data found|moov atom not found|error while decoding|decode_slice|corrupt|"
    r"error reading header|ebml|invalid nal|could not find codec parameters|truncat|"
    r"partial file|does not contain any stream|error splitting the input|"
    r"no decoder|decoding error|invalid frame dimensions",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ClipInfo:
    """The mezzanine as written: duration in seconds, frame size in pixels."""

    duration_s: float
    width: int
    height: int
    has_audio: bool


def clip_work_px(probe: ClipProbe, max_seconds: float = MEZZANINE_MAX_S) -> float:
    """Source pixels decoded to normalize ``probe``'s clip: width x height x the video frames
    counted in the seconds the mezzanine keeps (what the packets say, not the headers)."""
    return float(probe.width * probe.height * probe.frames_within(max_seconds))


def normalize_cpu_s(probe: ClipProbe, max_seconds: float = MEZZANINE_MAX_S) -> int:
    """CPU seconds the normalize of ``probe``'s clip may spend (all ffmpeg threads): its counted
    work at WORST_NORMALIZE_PX_PER_CPU_S, its encode at WORST_ENCODE_CPU_S_PER_S, plus
    NORMALIZE_CPU_BASE_S. A clip whose decode costs far more than its frames said (a stream
    that changes to a larger size, packets that hide frames) is stopped there, as
    ``video_timeout``, before it spends the order's clip budget or the stage's time."""
    seconds = min(max_seconds, probe.duration_s)
    return math.ceil(NORMALIZE_CPU_BASE_S + WORST_ENCODE_CPU_S_PER_S * seconds
                     + clip_work_px(probe, max_seconds) / WORST_NORMALIZE_PX_PER_CPU_S)


def normalize_clip(src: Path, dest_mp4: Path, probe: ClipProbe, *,
                   max_seconds: float = MEZZANINE_MAX_S,
                   on_progress: Callable[[float], None] | None = None,
                   timeout_s: float | None = None) -> ClipInfo:
    """Encode the first ``max_seconds`` of ``src`` into the mezzanine at ``dest_mp4``.

    ``probe`` comes from :func:`media.intake.clip_checks.probe_clip` on the same file; the
    mezzanine ends with its video (``probe.duration_s``, measured), however long the audio runs.
    ``on_progress`` gets the output position in seconds. ``timeout_s`` (wall clock) defaults to
    30 s plus 4 s per output second, the CPU seconds are :func:`normalize_cpu_s`; running past
    either rejects the clip as ``video_timeout``. Raises :class:`MediaRejected` for the
    customer's file, :class:`ToolError` and others for ours.
    """
    if max_seconds <= 0:
        raise ValueError(f"max_seconds must be positive, got {max_seconds}")
    expected_s = min(max_seconds, probe.duration_s)
    limit = timeout_s if timeout_s is not None else 30.0 + 4.0 * expected_s
    limits = Limits(timeout_s=limit, cpu_s=normalize_cpu_s(probe, max_seconds))
    partial = dest_mp4.with_name(f".{dest_mp4.name}.part")
    try:
        _encode(src, partial, probe, expected_s, limits, on_progress)
        info = _inspect(partial)
        os.replace(partial, dest_mp4)
    finally:
        partial.unlink(missing_ok=True)
    return info


def mezzanine_argv(src: Path, dest: Path, probe: ClipProbe, seconds: float) -> list[str]:
    """The ffmpeg command line for one mezzanine (``seconds`` of output at most)."""
    argv = [*demuxer_args(probe.container), "-i", input_url(src),
            "-map", f"0:{probe.video_index}"]
    if probe.audio_index is not None:
        argv += ["-map", f"0:{probe.audio_index}"]
    argv += ["-t", f"{seconds:.3f}", "-vf", video_filters(probe), *_video_codec_args()]
    argv += _audio_args(probe)
    argv += ["-sn", "-dn", "-map_metadata", "-1", "-map_chapters", "-1",
             "-movflags", "+faststart", "-max_muxing_queue_size", "1024",
             "-progress", "pipe:1", "-nostats", "-f", "mp4", input_url(dest)]
    return ffmpeg_argv(*argv)


def video_filters(probe: ClipProbe) -> str:
    """The -vf chain, after ffmpeg's automatic rotation: 30 fps CFR, fit, BT.709 SDR, 1:1 SAR."""
    steps = [f"fps={MEZZANINE_FPS}"]
    if probe.is_hdr:
        steps += [_fit_scale(), _linearize(probe) + TONEMAP_CHAIN.removeprefix("zscale=")]
    else:
        steps += [_fit_scale(_sdr_scale_options(probe)), "format=yuv420p"]
    steps.append("setsar=1")
    return ",".join(steps)


def _fit_scale(extra: str = "") -> str:
    """Square pixels, long edge at most MAX_LONG_EDGE_PX (never upscaled), even sides."""
    fit = f"min(1,{MAX_LONG_EDGE_PX}/max(iw*sar,ih))"
    width = f"max(2,2*trunc(iw*sar*{fit}/2))"
    height = f"max(2,2*trunc(ih*{fit}/2))"
    return f"scale=w='{width}':h='{height}':flags=lanczos{extra}"


def _sdr_scale_options(probe: ClipProbe) -> str:
    """Convert the source's YCbCr matrix and range to BT.709 limited range."""
    matrix = _SWS_MATRIX.get(probe.color_space)
    if matrix is None:  # untagged: the usual convention by frame size
        matrix = "bt709" if min(probe.width, probe.height) >= 720 else "smpte170m"
    full = probe.color_range == "pc" or probe.pix_fmt.startswith("yuvj")
    in_range = "full" if full else "limited"
    return (f":in_color_matrix={matrix}:out_color_matrix=bt709"
            f":in_range={in_range}:out_range=limited")


def _linearize(probe: ClipProbe) -> str:
    """First zscale of the tone-map chain, with the source's HDR signal spelled out."""
    primaries = probe.color_primaries if probe.color_primaries in _ZIMG_PRIMARIES else "bt2020"
    matrix = probe.color_space if probe.color_space in _ZIMG_MATRIX else "bt2020nc"
    in_range = "pc" if probe.color_range == "pc" else "tv"
    return (f"zscale=tin={probe.color_transfer}:pin={primaries}:min={matrix}:rin={in_range}:")


def _video_codec_args() -> list[str]:
    return ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-profile:v", "high",
            "-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709",
            "-colorspace", "bt709", "-color_range", "tv", "-fps_mode", "cfr",
            "-r", str(MEZZANINE_FPS)]


def _audio_args(probe: ClipProbe) -> list[str]:
    """Stereo 48 kHz AAC (downmixed or duplicated), in sync from t=0; none stays none."""
    if probe.audio_index is None:
        return ["-an"]
    return ["-af", f"aresample={AUDIO_RATE_HZ}:async=1:first_pts=0", *AAC_ENCODER_ARGS,
            "-ar", str(AUDIO_RATE_HZ), "-ac", "2"]


def _encode(src: Path, dest: Path, probe: ClipProbe, seconds: float, limits: Limits,
            on_progress: Callable[[float], None] | None) -> None:
    """Run ffmpeg; a timeout or an input-side failure is the customer's, anything else ours."""
    try:
        run_tool(mezzanine_argv(src, dest, probe, seconds), limits, on_progress=on_progress)
    except ToolTimeoutError as exc:
        raise MediaRejected(errors.VIDEO_TIMEOUT, f"not normalized in {limits.timeout_s:.0f} s") \
            from exc
    except ToolError as exc:
        if exc.returncode in CPU_LIMIT_EXITS:  # its CPU-seconds bound, spent on this file
            raise MediaRejected(errors.VIDEO_TIMEOUT, "CPU time limit") from exc
        if _INPUT_FAULTS.search(exc.stderr_tail):
            raise MediaRejected(errors.VIDEO_UNDECODABLE, exc.stderr_tail[-300:].strip()) \
                from exc
        raise


def _inspect(mezzanine: Path) -> ClipInfo:
    """Read back what was written; an empty result means the source held no decodable frame.
    The duration is the video's (its frames at MEZZANINE_FPS), never the audio's."""
    data = ffprobe_json(mezzanine, input_args=demuxer_args(MOV))
    streams = data.get("streams") or []
    video = next((s for s in streams if s.get("codec_type") == "video"), None)
    frames = int(video.get("nb_frames") or 0) if video is not None else 0
    duration = frames / MEZZANINE_FPS
    if video is None or frames == 0:
        raise MediaRejected(errors.VIDEO_UNDECODABLE, "no frame could be decoded")
    if frames < MIN_MEZZANINE_FRAMES:
        raise MediaRejected(errors.VIDEO_TOO_SHORT,
                            f"{frames} frames, fewer than {MIN_MEZZANINE_FRAMES}")
    return ClipInfo(duration_s=duration, width=int(video["width"]), height=int(video["height"]),
                    has_audio=any(s.get("codec_type") == "audio" for s in streams))
