"""What a customer's clip is: :func:`sniff_container` names its container from its magic bytes
only (not its name or declared type); :func:`clip_json` runs ffprobe with that demuxer forced,
local files only, no external references, bounded probing; :func:`parse_probe` reads the streams
as a :class:`ClipProbe`; :func:`measure_video` counts the video frames the demuxer hands the
decoder and their timestamps, believed over the headers or the audio, which can say anything.

Facts only: it refuses a file it cannot describe (not a video container, no video stream,
ffprobe failing on it). The limits a clip must meet are checked in
:mod:`media.intake.clip_checks`.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from media.base import errors
from media.base.errors import MediaRejected
from media.base.runner import (
    CPU_LIMIT_EXITS,
    Limits,
    ToolError,
    ToolProcess,
    ToolTimeoutError,
    ffprobe_argv,
    run_tool,
    start_tool,
)

MP4, MOV, WEBM, MATROSKA = "mp4", "mov", "webm", "matroska"
CONTAINERS: tuple[str, ...] = (MP4, MOV, WEBM, MATROSKA)
FORMAT_WHITELIST = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm"
PROBE_TIMEOUT_S = 20.0
PROBESIZE_BYTES = 20_000_000
ANALYZEDURATION_US = 10_000_000
MAX_DEMUX_STREAMS = 48
"""Streams a demuxer may open while probing: a bound on ffprobe's work (four times the most a
clip may carry, :data:`media.intake.clip_checks.MAX_STREAMS`), not a check."""
MAX_PROBE_JSON_BYTES = 4 * 1024 * 1024
MEASURE_TIMEOUT_S = 30.0
"""Wall seconds to list a clip's video packets (a demux, no decode: 93 MB of 4K in 0.3 s here)."""
HDR_TRANSFERS = frozenset({"smpte2084", "arib-std-b67"})

# Boxes that may open an ISO-BMFF/QuickTime file, and brands that are still images, not video.
_FIRST_BOXES = frozenset({b"ftyp", b"moov", b"mdat", b"free", b"skip", b"wide", b"pnot"})
_IMAGE_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1",
                           b"msf1", b"avif", b"avis", b"jp2 ", b"jpx ", b"crx "})
_IMAGE_MAGIC: tuple[bytes, ...] = (b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a")
_EBML_MAGIC = b"\x1a\x45\xdf\xa3"
_EBML_DOCTYPE_ID = 0x4282
_MAX_TOP_LEVEL_BOXES = 256
_SNIFF_BYTES = 4096


@dataclass(frozen=True)
class ClipProbe:
    """What ffprobe says about a clip, in display terms.

    ``width``/``height`` are the displayed pixel dimensions, i.e. after ``rotation`` (swapped for
    90/270). ``rotation`` is the clockwise turn (degrees: 0, 90, 180, 270) a player applies, as
    in the legacy ``rotate`` tag (an iPhone portrait clip is 90; ffprobe reports -90).
    """

    width: int
    height: int
    rotation: int
    duration_s: float
    fps: float
    """Average frame rate (frames per second)."""
    is_vfr: bool
    has_audio: bool
    audio_channels: int
    color_transfer: str
    pix_fmt: str
    bit_depth: int
    codec: str
    container: str = MP4
    video_index: int = 0
    audio_index: int | None = None
    color_primaries: str = ""
    color_space: str = ""
    color_range: str = ""
    sample_aspect_ratio: float = 1.0
    frames_per_s: tuple[int, ...] = ()
    """Video frames shown in each whole second from the first one's timestamp (from
    :func:`measure_video`); empty when the probe was not measured."""
    hidden_frames: int = 0
    """Video frames decoded but never shown (before an edit list's start, or untimed)."""

    @property
    def frames(self) -> int:
        """Video frames to decode (else the header's rate times the duration)."""
        if not self.frames_per_s:
            return round(self.fps * self.duration_s)
        return sum(self.frames_per_s) + self.hidden_frames

    def frames_within(self, seconds: float) -> int:
        """Video frames to decode for the first ``seconds`` shown (whole seconds, rounded up):
        the hidden ones come first."""
        if not self.frames_per_s:
            return round(self.fps * min(seconds, self.duration_s))
        return sum(self.frames_per_s[:max(1, math.ceil(seconds))]) + self.hidden_frames

    @property
    def is_hdr(self) -> bool:
        """PQ (``smpte2084``) or HLG (``arib-std-b67``) transfer."""
        return self.color_transfer in HDR_TRANSFERS


def sniff_container(path: Path) -> str:
    """``mp4``, ``mov``, ``webm`` or ``matroska``, from the file's magic bytes and box/element
    structure only. Raises :class:`MediaRejected` (``not_a_video`` for an empty file or a still
    image, ``unsupported_container`` for anything else: HLS/ffconcat text, AVI, MPEG-TS, ...)."""
    with open(path, "rb") as fp:
        head = fp.read(_SNIFF_BYTES)
        if not head:
            raise MediaRejected(errors.NOT_A_VIDEO, "empty file")
        if head.startswith(_EBML_MAGIC):
            return _sniff_ebml(head)
        if head[4:8] in _FIRST_BOXES:
            size = fp.seek(0, 2)
            return _sniff_isobmff(fp, size)
    if head.startswith(_IMAGE_MAGIC):
        raise MediaRejected(errors.NOT_A_VIDEO, "a still image")
    raise MediaRejected(errors.UNSUPPORTED_CONTAINER, f"unrecognised magic {head[:8]!r}")


def _sniff_isobmff(fp: IO[bytes], size: int) -> str:
    """Walk the top-level boxes: the headers up to the first ``moov``/``mdat`` must be sane (junk
    after it, such as a vendor trailer, ends the walk); the ``ftyp`` brand picks mov/mp4."""
    brand: bytes | None = None
    offset, count, seen_media = 0, 0, False
    while offset < size and count < _MAX_TOP_LEVEL_BOXES:
        fp.seek(offset)
        header = fp.read(16)
        try:
            box_size, kind = _box_header(header, size - offset)
        except MediaRejected:
            if seen_media:
                break
            raise
        if kind == b"ftyp":
            if count or not 16 <= box_size <= 4096:
                raise MediaRejected(errors.UNSUPPORTED_CONTAINER, "malformed ftyp box")
            brand = header[8:12]
            if brand in _IMAGE_BRANDS:
                raise MediaRejected(errors.NOT_A_VIDEO, f"still-image brand {brand!r}")
        seen_media = seen_media or kind in (b"moov", b"mdat", b"moof")
        offset += box_size
        count += 1
    return MOV if brand in (None, b"qt  ") else MP4


def _box_header(header: bytes, remaining: int) -> tuple[int, bytes]:
    """(size in bytes, type) of one box; raises on a header no muxer would write."""
    if len(header) < 8:
        raise MediaRejected(errors.UNSUPPORTED_CONTAINER, "trailing bytes after the last box")
    box_size, kind = struct.unpack(">I4s", header[:8])
    if not all(0x20 <= c <= 0x7E for c in kind):
        raise MediaRejected(errors.UNSUPPORTED_CONTAINER, f"bad box type {kind!r}")
    if box_size == 1:
        if len(header) < 16:
            raise MediaRejected(errors.UNSUPPORTED_CONTAINER, "short 64-bit box header")
        box_size = struct.unpack(">Q", header[8:16])[0]
    elif box_size == 0:
        box_size = remaining
    if box_size < 8:
        raise MediaRejected(errors.UNSUPPORTED_CONTAINER, f"bad box size {box_size}")
    return box_size, kind


def _sniff_ebml(head: bytes) -> str:
    """Read the EBML header's DocType: ``webm`` or ``matroska``."""
    try:
        doctype = _ebml_doctype(head)
    except (IndexError, ValueError) as exc:
        raise MediaRejected(errors.UNSUPPORTED_CONTAINER, f"bad EBML header: {exc}") from exc
    if doctype in (WEBM, MATROSKA):
        return doctype
    raise MediaRejected(errors.UNSUPPORTED_CONTAINER, f"EBML DocType {doctype!r}")


def _ebml_doctype(head: bytes) -> str | None:
    header_size, pos = _ebml_vint(head, len(_EBML_MAGIC), keep_marker=False)
    end = min(len(head), pos + header_size)
    while pos < end:
        element_id, pos = _ebml_vint(head, pos, keep_marker=True)
        element_size, pos = _ebml_vint(head, pos, keep_marker=False)
        if element_id == _EBML_DOCTYPE_ID:
            return head[pos:pos + element_size].rstrip(b"\0").decode("ascii", "replace")
        pos += element_size
    return None


def _ebml_vint(data: bytes, pos: int, *, keep_marker: bool) -> tuple[int, int]:
    """One EBML variable-length integer at ``pos``: (value, next position)."""
    first = data[pos]
    length = 9 - first.bit_length() if first else 0
    if not 1 <= length <= 8 or pos + length > len(data):
        raise ValueError(f"bad vint at {pos}")
    value = first if keep_marker else first & (0xFF >> length)
    for byte in data[pos + 1:pos + length]:
        value = (value << 8) | byte
    return value, pos + length


def demuxer_args(container: str) -> list[str]:
    """Input options that pin ffmpeg/ffprobe to one demuxer, local files, and bounded probing."""
    if container not in CONTAINERS:
        raise ValueError(f"unknown container {container!r}")
    demuxer = "mov" if container in (MP4, MOV) else "matroska"
    args = ["-f", demuxer, "-protocol_whitelist", "file", "-format_whitelist", FORMAT_WHITELIST,
            "-probesize", str(PROBESIZE_BYTES), "-analyzeduration", str(ANALYZEDURATION_US),
            "-max_streams", str(MAX_DEMUX_STREAMS)]
    if demuxer == "mov":
        args += ["-enable_drefs", "0", "-use_absolute_path", "0"]
    return args


def input_url(path: Path) -> str:
    """``file:`` URL of a local path, so a name can never read as an option or a protocol."""
    return f"file:{path.resolve()}"


def ffprobe_json(path: Path, *, input_args: Sequence[str] = (),
                 timeout_s: float = PROBE_TIMEOUT_S) -> dict[str, Any]:
    """``ffprobe -show_streams -show_format`` as a dict. Raises :class:`ToolError` (or its
    :class:`ToolTimeoutError`) on failure and ``ValueError`` on oversized or invalid output."""
    argv = ffprobe_argv(*input_args, "-show_streams", "-show_format", "-of", "json",
                        input_url(path))
    result = run_tool(argv, Limits(timeout_s=timeout_s, address_space_bytes=2 * 1024**3))
    if len(result.stdout) > MAX_PROBE_JSON_BYTES:
        raise ValueError(f"ffprobe printed {len(result.stdout)} bytes")
    data = json.loads(result.stdout or b"{}")
    if not isinstance(data, dict):
        raise ValueError("ffprobe output is not an object")
    return data


def clip_json(path: Path, container: str) -> dict[str, Any]:
    """ffprobe's streams and format of a sniffed clip (``container`` from
    :func:`sniff_container`): its demuxer pinned, local files only, bounded probing. ffprobe
    failing, timing out or printing garbage on it is the clip's (``video_undecodable``,
    ``video_timeout``); a missing ``path`` or ffprobe is our fault."""
    if not path.is_file():
        raise FileNotFoundError(path)
    with _customer_faults("ffprobe"):
        return ffprobe_json(path, input_args=demuxer_args(container))


@contextlib.contextmanager
def _customer_faults(what: str) -> Iterator[None]:
    """A tool's timeout, CPU limit, failure or garbled output on a customer's clip, as the
    clip's rejection (``video_timeout``, ``video_undecodable``)."""
    try:
        yield
    except ToolTimeoutError as exc:
        raise MediaRejected(errors.VIDEO_TIMEOUT, f"{what} timed out") from exc
    except ToolError as exc:
        if exc.returncode in CPU_LIMIT_EXITS:
            raise MediaRejected(errors.VIDEO_TIMEOUT, f"{what} CPU time limit") from exc
        raise MediaRejected(errors.VIDEO_UNDECODABLE, exc.stderr_tail[-300:].strip()) from exc
    except ValueError as exc:
        raise MediaRejected(errors.VIDEO_UNDECODABLE, str(exc)) from exc


@dataclass(frozen=True)
class VideoTiming:
    """What a clip's video packets say: how many frames, over how many seconds.

    ``duration_s`` runs from the first shown frame's timestamp to the last one's plus one
    typical frame interval (the span over the frames, not the packets' own durations, which a
    muxer fills from the header's frame rate); ``frames_per_s`` counts the shown frames of each
    whole second from the first timestamp to the last one; ``hidden_frames`` those the decoder
    gets but never shows (flagged discard: before an MP4 edit list's start, as a phone's trim
    without re-encoding leaves them; or without any timestamp). ``complete``: False when the
    count stopped at its ``max_frames``; ``frames_per_s`` is empty (every frame in
    ``hidden_frames``) when none was shown or they span more than its ``max_span_s``."""

    frames_per_s: tuple[int, ...]
    duration_s: float
    hidden_frames: int = 0
    complete: bool = True

    @property
    def frames(self) -> int:
        """Video frames to decode, shown or not."""
        return sum(self.frames_per_s) + self.hidden_frames

    @property
    def fps(self) -> float:
        """Mean frame rate (frames shown per second) over the clip."""
        return sum(self.frames_per_s) / self.duration_s


def measure_video(path: Path, container: str, video_index: int, *, max_frames: int,
                  max_span_s: float, timeout_s: float = MEASURE_TIMEOUT_S) -> VideoTiming:
    """Count the frames of video stream ``video_index`` and their timestamps by listing its
    packets (a demux: no decode, so cheap; each packet is one frame for the decoder).

    The count stops past ``max_frames`` (a file of tiny packets cannot keep it going) and
    counts no span over ``max_span_s`` seconds per second (see :class:`VideoTiming`). Raises
    :class:`MediaRejected` (``video_undecodable``; ``video_timeout`` past ``timeout_s`` wall
    seconds or its CPU limit) when the listing fails."""
    argv = ffprobe_argv(*demuxer_args(container), "-select_streams", str(video_index),
                        "-show_entries", "packet=pts_time,dts_time,duration_time,flags",
                        "-of", "csv=p=0", input_url(path))
    tally = _PacketTally(max_frames)
    with _customer_faults("the packet listing"), \
            start_tool(argv, Limits(timeout_s=timeout_s, address_space_bytes=2 * 1024**3),
                       stdout_stream=True) as tool:
        if _read_packets(tool, tally):
            tool.wait()
    return tally.timing(max_span_s)


def _read_packets(tool: ToolProcess, tally: _PacketTally) -> bool:
    """Feed ``tool``'s packet lines to ``tally`` until its output ends (True) or it is full."""
    block = memoryview(bytearray(64 * 1024))
    rest = b""
    while True:
        got = tool.read_into(block)
        *lines, rest = (rest + bytes(block[:got])).split(b"\n")
        if not all(tally.add(line) for line in lines):
            return False
        if got < len(block):
            return tally.add(rest)


class _PacketTally:
    """Frames and timestamps of one video stream, one ``pts,dts,duration,flags`` line at a
    time, up to ``max_frames`` frames."""

    def __init__(self, max_frames: int) -> None:
        self.max_frames = max_frames
        self.frames = 0
        self.times: list[float] = []
        self.last_duration = 0.0

    def add(self, line: bytes) -> bool:
        """Count one packet line; False once the count is past ``max_frames``."""
        if not line.strip():
            return True
        self.frames += 1
        if self.frames > self.max_frames:
            return False
        pts_field, dts_field, duration_field, flags = (line.split(b",") + [b""] * 4)[:4]
        pts, dts = _seconds(pts_field), _seconds(dts_field)
        stamp = pts if pts is not None else dts
        if stamp is not None and b"D" not in flags:
            self.times.append(stamp)
            self.last_duration = _seconds(duration_field) or 0.0
        return True

    def timing(self, max_span_s: float) -> VideoTiming:
        """What was counted, per second over at most ``max_span_s`` seconds."""
        if self.frames > self.max_frames:
            return VideoTiming((), 0.0, self.frames, complete=False)
        if not self.times:
            return VideoTiming((), 0.0, self.frames)
        first, last = min(self.times), max(self.times)
        step = (last - first) / (len(self.times) - 1) if len(self.times) > 1 \
            else self.last_duration
        duration = round(last - first + step, 6)  # ffprobe prints microseconds
        if duration > max_span_s:  # no bucket per second of a span of any length
            return VideoTiming((), duration, self.frames)
        buckets = [0] * (int(last - first) + 1)
        for stamp in self.times:
            buckets[int(stamp - first)] += 1
        return VideoTiming(frames_per_s=tuple(buckets), duration_s=duration,
                           hidden_frames=self.frames - len(self.times))


def _seconds(field: bytes) -> float | None:
    try:
        value = float(field)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def stream_list(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The streams (dicts) of ffprobe's JSON ``data``."""
    return [s for s in data.get("streams") or [] if isinstance(s, dict)]


def parse_probe(data: dict[str, Any], container: str) -> ClipProbe:
    """The clip ffprobe's JSON ``data`` describes, as a :class:`ClipProbe` of its default (else
    first) real video stream and decodable audio stream: the displayed size (0 when the header
    names none), the average frame rate (0.0 for none), its duration (0.0 when the headers name
    none). Its ``duration_s`` and ``fps`` are the headers', to be replaced by what the packets
    say (:func:`measure_video`). Raises :class:`MediaRejected` for a file without a video
    stream it could decode (``no_video_stream``, ``video_undecodable``)."""
    video, audio = _pick_video(stream_list(data)), _pick_audio(stream_list(data))
    rotation = _rotation(video)
    width, height = int(video.get("width") or 0), int(video.get("height") or 0)
    if rotation in (90, 270):
        width, height = height, width
    average, nominal = _ratio(video.get("avg_frame_rate")), _ratio(video.get("r_frame_rate"))
    pix_fmt = str(video.get("pix_fmt") or "")
    return ClipProbe(
        width=width, height=height, rotation=rotation,
        duration_s=_header_duration(data, video), fps=average or nominal or 0.0,
        is_vfr=bool(average and nominal
                    and abs(average - nominal) > 0.01 * max(average, nominal)),
        has_audio=audio is not None,
        audio_channels=int(audio.get("channels") or 0) if audio else 0,
        color_transfer=str(video.get("color_transfer") or ""), pix_fmt=pix_fmt,
        bit_depth=_bit_depth(pix_fmt, video), codec=str(video.get("codec_name")),
        container=container, video_index=int(video["index"]),
        audio_index=int(audio["index"]) if audio else None,
        color_primaries=str(video.get("color_primaries") or ""),
        color_space=str(video.get("color_space") or ""),
        color_range=str(video.get("color_range") or ""),
        sample_aspect_ratio=_ratio(video.get("sample_aspect_ratio"), ":") or 1.0,
    )


def _usable_codec(stream: dict[str, Any]) -> bool:
    return str(stream.get("codec_name") or "none") not in ("none", "unknown")


def _pick_video(streams: list[dict[str, Any]]) -> dict[str, Any]:
    """The default (else first) real video stream: cover art is not a video."""
    videos = [s for s in streams if s.get("codec_type") == "video"
              and not (s.get("disposition") or {}).get("attached_pic")]
    if not videos:
        raise MediaRejected(errors.NO_VIDEO_STREAM)
    decodable = [s for s in videos if _usable_codec(s)]
    if not decodable:
        raise MediaRejected(errors.VIDEO_UNDECODABLE, "no decoder for the video codec")
    defaults = [s for s in decodable if (s.get("disposition") or {}).get("default")]
    return (defaults or decodable)[0]


def _pick_audio(streams: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The default (else first) decodable audio stream with channels, or ``None``."""
    audios = [s for s in streams if s.get("codec_type") == "audio" and _usable_codec(s)
              and int(s.get("channels") or 0) > 0]
    defaults = [s for s in audios if (s.get("disposition") or {}).get("default")]
    return (defaults or audios or [None])[0]


def _rotation(video: dict[str, Any]) -> int:
    """Clockwise display rotation (0/90/180/270) from the display matrix (ffprobe reports it
    counter-clockwise) or, failing that, the legacy clockwise ``rotate`` tag."""
    for side_data in video.get("side_data_list") or []:
        if isinstance(side_data, dict) and "rotation" in side_data:
            return _quarter_turns(-float(side_data["rotation"]))
    tag = (video.get("tags") or {}).get("rotate")
    try:
        return _quarter_turns(float(tag)) if tag is not None else 0
    except ValueError:
        return 0


def _quarter_turns(degrees: float) -> int:
    if not math.isfinite(degrees):
        return 0
    return round(degrees / 90.0) % 4 * 90


def _ratio(text: object, separator: str = "/") -> float | None:
    """``"30000/1001"`` as 29.97; ``None`` for ``0/0``, ``N/A`` or garbage."""
    numerator, _, denominator = str(text or "").partition(separator)
    try:
        value = float(numerator) / float(denominator) if denominator else float(numerator)
    except (ValueError, ZeroDivisionError):
        return None
    return value if math.isfinite(value) and value > 0 else None


def _header_duration(data: dict[str, Any], video: dict[str, Any]) -> float:
    """The video stream's duration in its header (else the container's) in seconds, 0.0 for
    none: a WebM from a browser's MediaRecorder has none. Only a hint: the packets decide."""
    return _ratio(video.get("duration")) or _ratio((data.get("format") or {}).get("duration")) \
        or 0.0


def _bit_depth(pix_fmt: str, video: dict[str, Any]) -> int:
    """Bits per component: from the pixel format name (``yuv420p10le`` -> 10), else 8."""
    match = re.search(r"p(\d{2})(?:le|be)?$", pix_fmt)
    if match:
        return int(match.group(1))
    raw = str(video.get("bits_per_raw_sample") or "")
    return int(raw) if raw.isdigit() and 8 <= int(raw) <= 16 else 8
