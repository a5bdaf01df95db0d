"""The limits a customer's clip must meet, checked on what the probe learned of it
(:mod:`media.base.probe`): each check raises a :class:`MediaRejected` reason of
:mod:`media.base.errors`, so prep leaves the clip out or holds the run.

:func:`probe_clip` probes a sniffed clip and checks it before any decode: the streams and the
headers first (:func:`check_probe`: cheap, so a huge or absurd clip costs nothing more), then
what its video packets say (:func:`with_timing`: duration, frame rate and pixel rate measured
from the frames, never taken from the headers; issue 31, cases 1, 5 and 8). A new clip check is
one more check here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from media.base import errors, probe
from media.base.errors import MediaRejected
from media.base.probe import ClipProbe, VideoTiming

MAX_STREAMS = 12
"""More streams than this is not a phone or camera clip (iPhones write 5-7 with metadata)."""
MAX_EDGE_PX = 8192
MIN_EDGE_PX = 16
MAX_FPS = 240.0
MAX_ASPECT_RATIO = 4.0
"""Widest (or tallest) displayed shape accepted, long side over short side: 21:9 cinema and
phone panoramas fit; a 3200x16 strip would scale to a zero-height analysis frame and a 16x8192
column to gigabyte analysis frames."""
MAX_PIXEL_RATE_PX_S = 3840 * 2160 * 60
"""Most coded pixels per second accepted (width x height x fps): 4K at 60 fps, what phones
shoot. 8192x8192 at 240 fps is 32 times this and would burn the normalize timeout."""
MAX_DURATION_S = 600.0
"""Longest clip accepted (seconds): the order contract's duration hint maximum."""
MAX_FRAMES = int(MAX_DURATION_S * MAX_FPS)
"""Most video frames a clip may hold: the longest clip at the highest frame rate. The frame
count stops there (``video_too_long``), so a file of tiny packets cannot keep the count going."""
HEADER_RATE_TOLERANCE = 0.01
"""How far (a share) the header's frame rate may be from the measured one and still be taken:
Matroska rounds timestamps to the millisecond, so 60 fps measures 59.99-60.01; past this the
measured rate wins (a header claiming 60 fps over 240 fps timestamps is not believed)."""


def probe_clip(path: Path, container: str) -> ClipProbe:
    """Probe a sniffed clip (``container`` from :func:`media.base.probe.sniff_container`) and
    check it against the intake limits, with its duration, frame rate and frame count measured
    (:func:`media.base.probe.measure_video` within :data:`MAX_FRAMES` and
    :data:`MAX_DURATION_S`, then :func:`with_timing`). Raises :class:`MediaRejected`; a missing
    ``path`` or ffprobe is our fault."""
    facts = check_probe(probe.clip_json(path, container), container)
    timing = probe.measure_video(path, container, facts.video_index, max_frames=MAX_FRAMES,
                                 max_span_s=MAX_DURATION_S)
    return with_timing(facts, timing)


def check_probe(data: dict[str, Any], container: str) -> ClipProbe:
    """The clip ffprobe's JSON ``data`` describes (:func:`media.base.probe.parse_probe`),
    checked against the limits on its streams and headers: at most :data:`MAX_STREAMS`
    streams, a frame size within [:data:`MIN_EDGE_PX`, :data:`MAX_EDGE_PX`], a frame rate
    within :data:`MAX_FPS`, a shape within :data:`MAX_ASPECT_RATIO` and the pixel rate cap."""
    streams = len(probe.stream_list(data))
    if streams > MAX_STREAMS:
        raise MediaRejected(errors.VIDEO_TOO_MANY_STREAMS, f"{streams} streams")
    facts = probe.parse_probe(data, container)
    _check_size(facts)
    _check_rate(facts)
    _check_shape(facts)
    _check_pixel_rate(facts.width, facts.height, facts.fps)
    return facts


def with_timing(facts: ClipProbe, timing: VideoTiming) -> ClipProbe:
    """``facts`` with the measured duration, frame rate and frame count, checked against the
    limits: a count within MAX_FRAMES of frames shown over more than an instant, the duration
    within MAX_DURATION_S, the rate within MAX_FPS and the pixel rate cap. The header's frame
    rate is kept only within HEADER_RATE_TOLERANCE of the measured one."""
    _check_timing(timing)
    fps = timing.fps
    if abs(facts.fps - fps) <= HEADER_RATE_TOLERANCE * fps:
        fps = facts.fps
    if fps > MAX_FPS:
        raise MediaRejected(errors.VIDEO_FRAME_RATE,
                            f"{fps:.1f} fps measured ({facts.fps:.1f} in the header)")
    _check_pixel_rate(facts.width, facts.height, fps)
    return dataclasses.replace(facts, duration_s=timing.duration_s, fps=fps,
                               frames_per_s=timing.frames_per_s,
                               hidden_frames=timing.hidden_frames)


def _check_timing(timing: VideoTiming) -> None:
    """Refuse a count that stopped at MAX_FRAMES or spans more than MAX_DURATION_S, and a
    clip that shows no frame or shows them all at one instant."""
    if not timing.complete:
        raise MediaRejected(errors.VIDEO_TOO_LONG, f"more than {MAX_FRAMES} frames")
    if timing.duration_s > MAX_DURATION_S:
        raise MediaRejected(errors.VIDEO_TOO_LONG, f"{timing.duration_s:.1f} s of video")
    if not timing.frames_per_s:
        raise MediaRejected(errors.VIDEO_UNDECODABLE,
                            f"{timing.frames} video frames, none shown")
    if timing.duration_s <= 0:
        raise MediaRejected(errors.VIDEO_TOO_SHORT, f"{timing.frames} frames at one instant")


def _check_size(facts: ClipProbe) -> None:
    """Refuse a clip without a frame size, or with an edge outside [MIN_EDGE_PX, MAX_EDGE_PX]."""
    width, height = facts.width, facts.height
    if not width or not height:
        raise MediaRejected(errors.VIDEO_UNDECODABLE, "no frame size")
    if max(width, height) > MAX_EDGE_PX:
        raise MediaRejected(errors.VIDEO_TOO_LARGE, f"{width}x{height}")
    if min(width, height) < MIN_EDGE_PX:
        raise MediaRejected(errors.VIDEO_TOO_SMALL, f"{width}x{height}")


def _check_rate(facts: ClipProbe) -> None:
    """Refuse a clip whose headers name no frame rate, or one over MAX_FPS."""
    if facts.fps <= 0.0:
        raise MediaRejected(errors.VIDEO_UNDECODABLE, "no frame rate")
    if facts.fps > MAX_FPS:
        raise MediaRejected(errors.VIDEO_FRAME_RATE, f"{facts.fps:.1f} fps")


def _check_shape(facts: ClipProbe) -> None:
    """Refuse a displayed shape (pixels, after the sample aspect ratio) beyond
    MAX_ASPECT_RATIO either way."""
    ratio = facts.sample_aspect_ratio
    stretch = ratio if facts.rotation not in (90, 270) else 1.0 / ratio
    aspect = facts.width * stretch / facts.height
    if max(aspect, 1.0 / aspect) > MAX_ASPECT_RATIO:
        raise MediaRejected(errors.VIDEO_ASPECT,
                            f"{facts.width}x{facts.height} displayed {aspect:.3g}:1")


def _check_pixel_rate(width: int, height: int, fps: float) -> None:
    """Refuse more than MAX_PIXEL_RATE_PX_S pixels per second to decode."""
    rate = width * height * fps
    if rate > MAX_PIXEL_RATE_PX_S:
        raise MediaRejected(errors.VIDEO_PIXEL_RATE,
                            f"{width}x{height} at {fps:.1f} fps = {rate / 1e6:.0f} Mpx/s")
