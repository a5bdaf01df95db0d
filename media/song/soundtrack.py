"""The film's soundtrack: the song with each clip's own sound mixed under it, re-mastered.

For every clip shot whose clip has audio, the segment the picture shows is decoded (ffmpeg
through :mod:`media.base.runner`, 48 kHz stereo float), levelled to :data:`CLIP_UNDER_SONG_DB` below
the song's integrated loudness, given short raised-cosine fades at its edges and added at its
place on the timeline; the song dips by :data:`SONG_DIP_DB` under it so the moment is heard.
The sum is mastered like the song (:func:`media.song.compose.master`: -14 LUFS, true peak below the
spec's ceiling less the AAC headroom) and written as a 24-bit WAV the encoders read.

:func:`mix_soundtrack` is the pure part (arrays in, array out); :func:`build_soundtrack` does
the decoding and writing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.signal import oaconvolve

from media.base import spec
from media.base.runner import Limits
from media.plan.timeline import Timeline
from media.song.audio import decode_audio, integrated_lufs, read_audio, write_wav
from media.song.mix import master

CLIP_UNDER_SONG_DB = 12.0  # clip sound sits this far (LU) below the song's loudness
SONG_DIP_DB = 2.0  # the song dips this much while a clip's sound plays
MAX_CLIP_GAIN_DB = 18.0  # quiet clips are lifted at most this much (noise stays noise)
EDGE_FADE_S = 0.25  # raised-cosine fade at each end of a clip segment (seconds)
DIP_RAMP_S = 0.4  # the song's dip eases in and out over this long (seconds)
RATE = spec.AUDIO_SAMPLE_RATE


@dataclass(frozen=True)
class ClipSound:
    """One clip segment's sound: ``audio`` float32 (n, 2) at 48 kHz placed at ``at_s`` seconds
    into the film (before levelling)."""

    clip_id: str
    at_s: float
    audio: np.ndarray


@dataclass(frozen=True)
class SoundtrackInfo:
    """What :func:`build_soundtrack` wrote: its loudness (LUFS), true peak (dBTP), and the clip
    segments mixed in with the gain each got (dB)."""

    path: Path
    integrated_lufs: float
    true_peak_dbtp: float
    clip_gains_db: dict[str, float]


def clip_segments(timeline: Timeline, with_audio: set[str]) -> list[tuple[str, float, float,
                                                                            float]]:
    """(clip id, film seconds, clip in-point seconds, seconds) of every clip shot whose clip has
    sound: the whole stretch the clip is visible, transitions included."""
    out = []
    for shot in timeline.shots:
        if shot.kind == "clip" and shot.source_id in with_audio:
            out.append((shot.source_id, shot.visible_in / timeline.fps, shot.clip_start_s,
                        shot.frames / timeline.fps))
    return out


def _edge_fades(n: int, fade: int) -> np.ndarray:
    """Gain (n,) rising over the first ``fade`` samples and falling over the last (cosine)."""
    gain = np.ones(n, np.float32)
    fade = min(fade, n // 2)
    if fade > 0:
        ramp = (0.5 - 0.5 * np.cos(np.linspace(0.0, math.pi, fade, dtype=np.float32)))
        gain[:fade] = ramp
        gain[n - fade:] = np.minimum(gain[n - fade:], ramp[::-1])
    return gain


def _dip(n: int, spans: list[tuple[int, int]], depth_db: float) -> np.ndarray:
    """Song gain (n,): 1 outside ``spans`` (sample ranges), ``-depth_db`` inside, eased."""
    target = np.zeros(n, np.float32)
    for a, b in spans:
        target[max(0, a):min(n, b)] = 1.0
    ramp = max(1, int(DIP_RAMP_S * RATE))
    kernel = np.ones(ramp, np.float32) / ramp
    smooth = oaconvolve(target, kernel, mode="same")  # np.convolve's "same", O(n log ramp)
    return (10 ** (-depth_db * smooth / 20)).astype(np.float32)


def mix_soundtrack(song: np.ndarray, sounds: list[ClipSound]) -> tuple[np.ndarray,
                                                                       dict[str, float]]:
    """The song (float (n, 2), 48 kHz) with ``sounds`` levelled, faded and added under it.

    Returns the unmastered mix and the gain (dB) applied to each clip's sound (by clip id and
    occurrence, e.g. ``c01#0``)."""
    mix = np.array(song, np.float32, copy=True)
    n = len(mix)
    song_lufs = integrated_lufs(mix, RATE)
    gains: dict[str, float] = {}
    spans: list[tuple[int, int]] = []
    placed: list[tuple[int, np.ndarray]] = []
    for index, sound in enumerate(sounds):
        start = round(sound.at_s * RATE)
        audio = sound.audio[: max(0, n - start)]
        level = integrated_lufs(audio, RATE)
        if not math.isfinite(level) or not math.isfinite(song_lufs) or start >= n:
            continue
        gain_db = min(MAX_CLIP_GAIN_DB, song_lufs - CLIP_UNDER_SONG_DB - level)
        gains[f"{sound.clip_id}#{index}"] = round(gain_db, 2)
        shaped = audio * (10 ** (gain_db / 20)) * _edge_fades(len(audio),
                                                                int(EDGE_FADE_S * RATE))[:, None]
        placed.append((start, shaped.astype(np.float32)))
        spans.append((start, start + len(audio)))
    if spans:
        mix *= _dip(n, spans, SONG_DIP_DB)[:, None]
    for start, shaped in placed:
        mix[start:start + len(shaped)] += shaped
    return mix, gains


def build_soundtrack(timeline: Timeline, song_path: Path, clip_paths: dict[str, Path],
                     with_audio: set[str], out_wav: Path,
                     limits: Limits | None = None) -> SoundtrackInfo | None:
    """Mix the sound of the timeline's clip shots (clips in ``with_audio``) under the song at
    ``song_path`` and write the re-mastered soundtrack to ``out_wav`` (24-bit, 48 kHz stereo,
    the film's length). Returns None (nothing written) when no clip shot has sound: the mastered
    song is then the soundtrack as it is."""
    segments = clip_segments(timeline, with_audio)
    if not segments:
        return None
    song = read_audio(song_path, RATE, limits=limits)
    total = round(timeline.total_frames / timeline.fps * RATE)
    song = np.pad(song, ((0, max(0, total - len(song))), (0, 0)))[:total]
    sounds = [ClipSound(clip_id, at_s, decode_audio(clip_paths[clip_id], RATE, start_s=in_s,
                                                    duration_s=seconds, limits=limits))
              for clip_id, at_s, in_s, seconds in segments]
    mix, gains = mix_soundtrack(song, sounds)
    audio, lufs, peak = master(mix, RATE)
    write_wav(out_wav, audio, RATE)
    return SoundtrackInfo(out_wav, round(lufs, 2), round(peak, 2), gains)
