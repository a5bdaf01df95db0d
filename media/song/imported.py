"""A song made elsewhere (an external provider's audio file) turned into one of ours.

:func:`import_song` probes the file with a locked-down ffprobe (local file only, audio demuxers
only), insists on an audio stream of the planned length (within
:data:`LENGTH_TOLERANCE_S`), decodes it to 48 kHz stereo float, trims or pads it to exactly
``round(length_sec * 48000)`` samples, masters it like our own songs
(:func:`media.song.compose.master`:
-14 LUFS, true peak under the ceiling) and takes the beat grid from the provider's facts when
they are sane, else estimates it from the audio (:mod:`media.song.beats`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from media.base.probe import ffprobe_json
from media.base.runner import Limits, ToolError
from media.base.spec import AUDIO_SAMPLE_RATE
from media.song.audio import decode_audio
from media.song.beats import estimate_beat_grid
from media.song.compose import BEATS_PER_BAR, ComposedSong, SongBrief, master, write_lyrics

LENGTH_TOLERANCE_S = 0.1
"""A provider's audio may differ from the planned length by this much (seconds)."""
DECODE_OVERRUN_S = 2 * LENGTH_TOLERANCE_S
"""Seconds decoded past the planned length: enough to tell audio that runs on from audio that
ends within the tolerance, never the rest of a file whose header lies."""
AUDIO_FORMAT_WHITELIST = "wav,w64,mp3,flac,ogg,aac,mov,mp4,m4a,3gp,3g2,mj2,matroska,webm"
END_FADE_S = 0.02
"""Raised-cosine fade (seconds) on a song we had to trim, so the cut does not click."""
MAX_DECODE_S = 120.0


class SongAudioRejected(ValueError):
    """The provider's file is not usable audio of the planned length."""


@dataclass(frozen=True)
class AudioProbe:
    """What ffprobe says about the provider's file: duration (s), codec, rate (Hz), channels."""

    duration_sec: float
    codec: str
    sample_rate: int
    channels: int


def _input_args() -> list[str]:
    return ["-protocol_whitelist", "file", "-format_whitelist", AUDIO_FORMAT_WHITELIST]


def probe_audio(path: Path, length_sec: float) -> AudioProbe:
    """Probe ``path``; raise :class:`SongAudioRejected` unless it holds an audio stream whose
    duration is within :data:`LENGTH_TOLERANCE_S` of ``length_sec``."""
    try:
        data = ffprobe_json(path, input_args=_input_args())
    except (ToolError, ValueError) as exc:
        raise SongAudioRejected(f"not audio: ffprobe cannot read it ({exc})"[:300]) from exc
    streams = [s for s in data.get("streams", []) if s.get("codec_type") == "audio"]
    if not streams:
        raise SongAudioRejected("not audio: no audio stream")
    stream = streams[0]
    duration = _number(stream.get("duration")) or _number(data.get("format", {}).get("duration"))
    if duration is None:
        raise SongAudioRejected("audio without a duration")
    if abs(duration - length_sec) > LENGTH_TOLERANCE_S:
        raise SongAudioRejected(f"wrong length: {duration:.3f} s, ordered {length_sec:.3f} s")
    return AudioProbe(duration, str(stream.get("codec_name", "")),
                      int(_number(stream.get("sample_rate")) or 0),
                      int(_number(stream.get("channels")) or 0))


def _number(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def decode_exact(path: Path, length_sec: float, sample_rate: int = AUDIO_SAMPLE_RATE
                 ) -> np.ndarray:
    """The first audio stream as float32 (n, 2) at ``sample_rate`` Hz, trimmed (with a short
    fade) or zero-padded to exactly ``round(length_sec * sample_rate)`` samples.

    At most ``length_sec + DECODE_OVERRUN_S`` seconds are decoded, whatever the file's header
    claims (a header saying 30 s over 20 minutes of audio would cost a gigabyte); audio that
    runs on, or stops short, by more than :data:`LENGTH_TOLERANCE_S` is refused.
    """
    try:
        audio = decode_audio(path, sample_rate, duration_s=length_sec + DECODE_OVERRUN_S,
                             limits=Limits(timeout_s=MAX_DECODE_S),
                             extra_input_args=tuple(_input_args()))
    except ToolError as exc:
        raise SongAudioRejected(f"cannot decode the audio ({exc})"[:300]) from exc
    decoded_s = len(audio) / sample_rate
    if abs(decoded_s - length_sec) > LENGTH_TOLERANCE_S:
        held = "more than" if decoded_s > length_sec else "only"
        raise SongAudioRejected(f"the audio holds {held} {decoded_s:.3f} s, "
                                f"ordered {length_sec:.3f} s")
    target = round(length_sec * sample_rate)
    if not np.isfinite(audio).all():
        raise SongAudioRejected("decoded audio has non-finite samples")
    if len(audio) >= target:
        out = np.array(audio[:target], dtype=np.float32)
        if len(audio) > target:
            fade = min(target, int(END_FADE_S * sample_rate))
            ramp = 0.5 + 0.5 * np.cos(np.pi * np.arange(1, fade + 1) / fade)
            out[target - fade:] *= ramp.astype(np.float32)[:, None]
        return out
    return np.pad(audio, ((0, target - len(audio)), (0, 0))).astype(np.float32)


def _times(value: object, length_sec: float) -> list[float] | None:
    """Strictly increasing finite times inside [0, length_sec], or None if not that."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) < 2:
        return None
    times = [_number(t) for t in value]
    if any(t is None or not 0.0 <= t <= length_sec for t in times):
        return None
    clean = [float(t) for t in times if t is not None]
    return clean if all(b > a for a, b in pairwise(clean)) else None


def _tempo(value: object) -> float | None:
    """A provider's tempo (bpm) if plausible (20..300), else None."""
    tempo = _number(value)
    return tempo if tempo is not None and 20.0 <= tempo <= 300.0 else None


def _grid(audio: np.ndarray, facts: Mapping[str, Any], length_sec: float
          ) -> tuple[float, list[float], list[float], str, float | None]:
    """(tempo bpm, beats, bars, source, confidence): the provider's grid when sane, else ours."""
    beats = _times(facts.get("beat_times"), length_sec)
    if beats is not None:
        bars = _times(facts.get("bar_times"), length_sec) or beats[::BEATS_PER_BAR]
        tempo = _tempo(facts.get("tempo_bpm")) or 60.0 / float(np.median(np.diff(beats)))
        return tempo, beats, bars, "provider", None
    grid = estimate_beat_grid(audio, AUDIO_SAMPLE_RATE)
    tempo = _tempo(facts.get("tempo_bpm")) or grid.tempo_bpm
    return tempo, grid.beat_times, grid.bar_times, "estimated", grid.confidence


def _sections(value: object, length_sec: float) -> list[tuple[str, float, float]]:
    """The provider's (name, start s, end s) sections when they tile the song, else one."""
    whole = [("song", 0.0, round(length_sec, 6))]
    if not isinstance(value, Sequence) or isinstance(value, str) or not value:
        return whole
    out = []
    for item in value:
        if not isinstance(item, Sequence) or isinstance(item, str) or len(item) != 3:
            return whole
        start, end = _number(item[1]), _number(item[2])
        if start is None or end is None or not 0 <= start < end <= length_sec + 1e-6:
            return whole
        out.append((str(item[0])[:40], start, end))
    return out


def _lyrics(value: object, brief: SongBrief) -> list[str]:
    if isinstance(value, Sequence) and not isinstance(value, str) and value and all(
            isinstance(line, str) and line.strip() for line in value):
        return [line.strip()[:200] for line in value][:16]
    return write_lyrics(brief)


def import_song(path: Path, brief: SongBrief, facts: Mapping[str, Any]
                ) -> tuple[ComposedSong, dict[str, object]]:
    """The provider's file as a mastered song of exactly ``brief.length_sec`` seconds, and
    notes for the metadata (probe facts, where the beat grid came from). ``facts`` is the
    provider's JSON answer (optional ``tempo_bpm``, ``key``, ``beat_times``, ``bar_times``,
    ``sections``, ``lyrics``). Raises :class:`SongAudioRejected`."""
    length = float(brief.length_sec)
    probe = probe_audio(path, length)
    audio, lufs, true_peak = master(decode_exact(path, length), AUDIO_SAMPLE_RATE)
    if not math.isfinite(lufs):
        raise SongAudioRejected("silent audio")
    tempo, beats, bars, source, confidence = _grid(audio, facts, length)
    song = ComposedSong(
        audio=audio, sample_rate=AUDIO_SAMPLE_RATE, tempo_bpm=round(tempo, 6),
        key=str(facts.get("key") or "unknown")[:40], beat_times=beats, bar_times=bars,
        sections=_sections(facts.get("sections"), length), lyrics=_lyrics(facts.get("lyrics"),
                                                                           brief),
        integrated_lufs=round(lufs, 3), true_peak_dbtp=round(true_peak, 3),
        sung=_lyrics(facts.get("lyrics"), brief) != write_lyrics(brief),
    )
    notes: dict[str, object] = {"source_codec": probe.codec,
                                "source_sample_rate": probe.sample_rate,
                                "source_channels": probe.channels,
                                "source_duration_sec": round(probe.duration_sec, 4),
                                "beat_source": source, "beat_confidence": confidence}
    return song, notes
