"""Finish and master a rendered song with Spotify's pedalboard: the produced sound.

Bus (per feel, :data:`EQ`): a high-pass (no rumble), a low-shelf cut of the mud that a phone
cannot play anyway, a broad mid lift, presence (2-6 kHz) and air (> 9 kHz) lifts, a little
stereo width (side gain), bus
compression (glue), then the designed edges (fade-in, the final chord's fall to silence).
Master: gain into a look-ahead peak limiter so the song lands at -14 LUFS integrated with its
true peak under :data:`MASTER_TRUE_PEAK_DBTP` (the AAC overshoot headroom kept), measured with
:mod:`media.song.audio` (BS.1770 via pyloudnorm, 4x oversampled true peak).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pedalboard as pb

from media.base.spec import AAC_OVERSHOOT_HEADROOM_DB, MAX_TRUE_PEAK_DBTP, TARGET_LUFS
from media.song.audio import integrated_lufs, true_peak_dbtp

FADE_IN_S = 0.6
MASTER_TRUE_PEAK_DBTP = MAX_TRUE_PEAK_DBTP - AAC_OVERSHOOT_HEADROOM_DB
LIMITER_CEILING_DBTP = MASTER_TRUE_PEAK_DBTP - 0.5
"""The limiter holds sample peaks here; inter-sample peaks may rise up to ~0.5 dB above."""
LIMITER_MAKEUP_DB = 3.75
"""Make-up gain pedalboard's limiter adds under its compression threshold (measured, dB)."""
LIMITER_LOUDNESS_SLOPE = 0.5
"""LU of loudness gained per dB into the limiter near -14 LUFS (measured, conservative)."""
AIM_ABOVE_LU = 0.3
SIDE_GAIN = {"bright": 1.3, "warm": 1.15, "gentle": 1.0}
"""Stereo width: the side (L-R) signal's gain per feel."""


@dataclass(frozen=True)
class BusEq:
    """The bus EQ of a feel: high-pass (Hz), low shelf (Hz, dB), a broad mid lift (Hz, dB: where
    a phone speaker and the ear carry warmth without edge), presence at 3.5 kHz (dB) and air
    above 9 kHz (dB)."""

    highpass_hz: float
    low_hz: float
    low_db: float
    mid_hz: float
    mid_db: float
    presence_db: float
    air_db: float


EQ = {
    "bright": BusEq(35.0, 180.0, -5.0, 1500.0, 0.0, 6.0, 5.5),
    # Warm and gentle: the low end thinned (a phone cannot play it, and it made the songs dark:
    # centroids of 620-670 Hz) and the warmth moved up into a broad 1.5 kHz lift, with little
    # presence and air, so they are brighter but never edgy.
    "warm": BusEq(70.0, 250.0, -6.0, 1500.0, 5.0, 2.5, 2.0),
    "gentle": BusEq(70.0, 250.0, -6.0, 1500.0, 5.0, 2.0, 1.5),
}


def _bus(feel: str, sample_rate: int) -> pb.Pedalboard:
    eq = EQ[feel]
    return pb.Pedalboard([
        pb.HighpassFilter(cutoff_frequency_hz=eq.highpass_hz),
        pb.LowShelfFilter(cutoff_frequency_hz=eq.low_hz, gain_db=eq.low_db, q=0.7),
        pb.PeakFilter(cutoff_frequency_hz=eq.mid_hz, gain_db=eq.mid_db, q=0.6),
        pb.PeakFilter(cutoff_frequency_hz=3500.0, gain_db=eq.presence_db, q=0.7),
        pb.HighShelfFilter(cutoff_frequency_hz=9000.0, gain_db=eq.air_db, q=0.7),
        pb.Compressor(threshold_db=-20.0, ratio=2.0, attack_ms=20.0, release_ms=180.0),
    ])


def _widen(audio: np.ndarray, side_gain: float) -> np.ndarray:
    mid = (audio[:, 0] + audio[:, 1]) * 0.5
    side = (audio[:, 0] - audio[:, 1]) * (0.5 * side_gain)
    return np.stack([mid + side, mid - side], axis=1).astype(np.float32)


def _edges(audio: np.ndarray, sample_rate: int, ending_s: float) -> np.ndarray:
    """Short sine fade-in; from ``ending_s`` a cosine fall to exact silence at the end."""
    n = len(audio)
    gain = np.ones(n, np.float32)
    fade_in = min(n, int(FADE_IN_S * sample_rate))
    gain[:fade_in] = np.sin(0.5 * np.pi * np.arange(fade_in) / fade_in) ** 2
    start = min(n - 1, round(ending_s * sample_rate))
    tail = n - start
    if tail > 1:
        gain[start:] *= (np.cos(0.5 * np.pi * np.arange(1, tail + 1) / tail) ** 2)
    gain[-1] = 0.0
    return audio * gain[:, None]


def mix_song(dry: np.ndarray, sample_rate: int, feel: str, ending_s: float) -> np.ndarray:
    """The finished (unmastered) mix of a rendered song: EQ, width, compression, edges.
    ``ending_s`` is where the final fall to silence starts (seconds)."""
    wide = _widen(np.asarray(dry, np.float32), SIDE_GAIN[feel])
    bussed = _bus(feel, sample_rate)(wide.T.copy(), sample_rate).T
    return _edges(np.ascontiguousarray(bussed, np.float32), sample_rate, ending_s)


def _limit(mix: np.ndarray, sample_rate: int, gain_db: float) -> np.ndarray:
    """``mix`` gained by ``gain_db`` with its peaks held at :data:`LIMITER_CEILING_DBTP`
    (pedalboard's limiter works at 0 dBFS, so the ceiling is moved there and back)."""
    into = mix * np.float32(10 ** ((gain_db - LIMITER_CEILING_DBTP) / 20))
    limited = pb.Limiter(threshold_db=0.0, release_ms=80.0)(into.T.copy(), sample_rate).T
    return np.ascontiguousarray(limited * np.float32(10 ** (LIMITER_CEILING_DBTP / 20)))


def master(mix: np.ndarray, sample_rate: int) -> tuple[np.ndarray, float, float]:
    """Master a float (frames, channels) mix at ``sample_rate`` Hz: -14 LUFS integrated, true
    peak under :data:`MASTER_TRUE_PEAK_DBTP`. Returns (audio float32, LUFS, dBTP); silence comes
    back unchanged.

    pedalboard's limiter also compresses 4:1 from 10 dB under its threshold and adds make-up
    gain, so loudness grows about half as fast as the gain into it: the gain is aimed a little
    high (at most three passes) and the result trimmed down to the target (a trim down only
    lowers the peaks)."""
    audio = np.asarray(mix, np.float32)
    lufs = integrated_lufs(audio, sample_rate)
    if not math.isfinite(lufs):
        return audio.copy(), -math.inf, -math.inf
    gain_db = TARGET_LUFS - lufs - LIMITER_MAKEUP_DB + AIM_ABOVE_LU
    for _ in range(3):
        out = _limit(audio, sample_rate, gain_db)
        lufs = integrated_lufs(out, sample_rate)
        if lufs >= TARGET_LUFS:
            break
        gain_db += (TARGET_LUFS - lufs) / LIMITER_LOUDNESS_SLOPE + AIM_ABOVE_LU
    if lufs > TARGET_LUFS:
        out = out * np.float32(10 ** ((TARGET_LUFS - lufs) / 20))
        lufs = TARGET_LUFS
    peak = true_peak_dbtp(out)
    if peak > MASTER_TRUE_PEAK_DBTP - 0.1:
        out = out * np.float32(10 ** ((MASTER_TRUE_PEAK_DBTP - 0.3 - peak) / 20))
        lufs, peak = integrated_lufs(out, sample_rate), true_peak_dbtp(out)
    return out.astype(np.float32), lufs, peak


def normalize(mix: np.ndarray, sample_rate: int) -> tuple[np.ndarray, float, float]:
    """Static gain to -14 LUFS, no limiter (a cheap preview): (audio, LUFS, sample peak dBFS,
    which may be over 0)."""
    lufs = integrated_lufs(mix, sample_rate)
    if not math.isfinite(lufs):
        return np.asarray(mix, np.float32), -math.inf, -math.inf
    audio = (mix * np.float32(10 ** ((TARGET_LUFS - lufs) / 20))).astype(np.float32)
    peak = float(np.abs(audio).max())
    return audio, TARGET_LUFS, 20 * math.log10(peak) if peak > 0 else -math.inf
