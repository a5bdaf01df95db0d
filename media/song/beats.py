"""A beat grid estimated from a finished song's audio: onset envelope, tempo, phase, downbeats.

For songs that arrive without one (an external provider's audio). The song is taken to have one
steady tempo in 4/4: the tempo comes from the autocorrelation of the onset envelope (weighted by
a broad prior around :data:`PREFERRED_BPM` to settle double/half-tempo ambiguity), the phase
from the offset whose beats carry the most onset strength, the downbeat from the strongest of
the four bar positions. Times are seconds from the start of the audio.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from media.song.compose import BEATS_PER_BAR

ONSET_FRAME_RATE_HZ = 100.0
"""Frames per second of the onset envelope (10 ms hop)."""
TEMPO_RANGE_BPM = (60.0, 180.0)
PREFERRED_BPM = 110.0
PRIOR_WIDTH_OCTAVES = 1.0
"""Standard deviation (octaves) of the log-normal tempo prior centred on PREFERRED_BPM."""
MIN_AUDIO_S = 4.0
TEMPO_WINDOW_S = 0.085
"""Analysis window (s) for tempo and downbeats: long enough to resolve bass and chords (a
shorter one lets soft piano songs read as double time)."""
PULSE_WINDOW_S = 0.043
"""Analysis window (s) for scoring pulse clarity: half the tempo window's cost."""
TIMING_WINDOW_S = 0.021
"""Analysis window (s) that places the beats: short, so flux peaks sit close to onsets."""
_BANDS = 40
_LOW_HZ, _HIGH_HZ = 40.0, 11_000.0
_CHUNK_FRAMES = 1024


@dataclass(frozen=True)
class BeatGrid:
    """An estimated grid: tempo (bpm), beat and downbeat times (s), and the confidence 0..1
    (normalized onset autocorrelation at the beat period)."""

    tempo_bpm: float
    beat_times: list[float]
    bar_times: list[float]
    confidence: float


def _band_matrix(n_fft: int, sample_rate: int) -> np.ndarray:
    """(bins, bands) triangular log-spaced filterbank from 40 Hz to 11 kHz (capped at 0.45 fs)."""
    high = min(_HIGH_HZ, 0.45 * sample_rate)
    edges = np.geomspace(_LOW_HZ, high, _BANDS + 2)
    freqs = np.fft.rfftfreq(n_fft, 1.0 / sample_rate)
    rise = (freqs[:, None] - edges[None, :-2]) / (edges[1:-1] - edges[:-2])[None, :]
    fall = (edges[None, 2:] - freqs[:, None]) / (edges[2:] - edges[1:-1])[None, :]
    return np.clip(np.minimum(rise, fall), 0.0, None).astype(np.float32)


def log_band_energies(audio: np.ndarray, sample_rate: int,
                      window_s: float = TEMPO_WINDOW_S) -> np.ndarray:
    """(frames, 40) log energies of log-spaced bands (40 Hz..11 kHz) of the mono mix in Hann
    windows of about ``window_s`` seconds, one frame per 10 ms, frame ``k`` centred at
    ``k / ONSET_FRAME_RATE_HZ`` seconds. Computed in chunks (bounded memory for 180 s)."""
    data = np.asarray(audio, dtype=np.float32)
    mono = data.mean(axis=1) if data.ndim == 2 else data
    hop = max(1, round(sample_rate / ONSET_FRAME_RATE_HZ))
    n_fft = 1 << round(math.log2(window_s * sample_rate))
    padded = np.pad(mono, (n_fft // 2, n_fft // 2))
    frames = sliding_window_view(padded, n_fft)[::hop]
    window = np.hanning(n_fft).astype(np.float32)
    bank = _band_matrix(n_fft, sample_rate)
    bands = np.empty((len(frames), _BANDS), dtype=np.float32)
    for start in range(0, len(frames), _CHUNK_FRAMES):
        chunk = frames[start:start + _CHUNK_FRAMES] * window
        bands[start:start + len(chunk)] = np.abs(np.fft.rfft(chunk, axis=1)) @ bank
    return np.log1p(1000.0 * bands / n_fft)


def onset_envelope(audio: np.ndarray, sample_rate: int,
                   window_s: float = TEMPO_WINDOW_S) -> np.ndarray:
    """Onset strength per 10 ms frame: positive spectral flux of the log band energies. Value
    ``k`` describes the change around ``(k + 0.5) / ONSET_FRAME_RATE_HZ`` seconds."""
    return _flux(log_band_energies(audio, sample_rate, window_s))


def _flux(energy: np.ndarray) -> np.ndarray:
    return np.maximum(np.diff(energy, axis=0), 0.0).sum(axis=1)


def autocorrelation(envelope: np.ndarray) -> np.ndarray:
    """Autocorrelation of the mean-removed envelope, normalized so lag 0 is 1 (zeros if flat)."""
    x = np.asarray(envelope, dtype=np.float64) - float(np.mean(envelope))
    size = 1 << math.ceil(math.log2(2 * len(x) + 1))
    spectrum = np.fft.rfft(x, size)
    r = np.fft.irfft(spectrum * np.conj(spectrum), size)[: len(x)]
    return r / r[0] if r[0] > 0 else np.zeros(len(x))


def periodicity(r: np.ndarray, lag: float) -> float:
    """Normalized autocorrelation at a fractional ``lag`` (frames), best within +-1 frame."""
    lags = np.array([lag - 1.0, lag - 0.5, lag, lag + 0.5, lag + 1.0])
    lags = lags[(lags >= 0) & (lags <= len(r) - 1)]
    return float(np.interp(lags, np.arange(len(r)), r).max()) if len(lags) else 0.0


def _tempo(r: np.ndarray) -> tuple[float, float]:
    """(bpm, periodicity at its beat period) maximizing periodicity (with the bar's
    harmonics) times the tempo prior, on a 0.05 bpm grid."""
    bpms = np.arange(TEMPO_RANGE_BPM[0], TEMPO_RANGE_BPM[1] + 1e-9, 0.05)
    lags = 60.0 * ONSET_FRAME_RATE_HZ / bpms
    frames = np.arange(len(r))
    salience = sum(weight * np.interp(lags * k, frames, r, right=0.0)
                   for k, weight in ((1, 1.0), (2, 0.5), (4, 0.25)))
    prior = np.exp(-0.5 * (np.log2(bpms / PREFERRED_BPM) / PRIOR_WIDTH_OCTAVES) ** 2)
    best = int(np.argmax(np.maximum(salience, 0.0) * prior))
    return float(bpms[best]), periodicity(r, float(lags[best]))


def _phase(envelope: np.ndarray, period: float) -> float:
    """Offset (frames, 0..period) whose comb of beats collects the most onset strength."""
    count = int((len(envelope) - 1) / period) + 1
    offsets = np.arange(0.0, period, 0.5)
    positions = offsets[:, None] + period * np.arange(count)[None, :]
    index = np.clip(np.round(positions).astype(np.int64), 0, len(envelope) - 1)
    strength = np.where(positions <= len(envelope) - 1, envelope[index], 0.0).sum(axis=1)
    return float(offsets[int(np.argmax(strength))])


def _refine(envelope: np.ndarray, period: float, offset: float) -> tuple[float, float]:
    """(period, offset) in frames fitted by least squares to the onset peaks found within a
    quarter period of each beat of the first estimate (the stronger half of them)."""
    count = int((len(envelope) - 1 - offset) / period) + 1
    reach = max(1, int(period / 4))
    ks, peaks, strengths = [], [], []
    for k in range(count):
        centre = round(offset + k * period)
        low, high = max(0, centre - reach), min(len(envelope), centre + reach + 1)
        if high - low < 3:
            continue
        ks.append(k)
        peaks.append(low + int(np.argmax(envelope[low:high])))
        strengths.append(float(envelope[low:high].max()))
    if len(ks) < 8:
        return period, offset
    keep = np.array(strengths) >= np.median(strengths)
    slope, intercept = np.polyfit(np.array(ks)[keep], np.array(peaks)[keep], 1)
    if abs(slope - period) > 0.02 * period:
        return period, offset
    return float(slope), float(intercept) % float(slope)


def _timing_shift(sharp: np.ndarray, period: float, offset: float) -> float:
    """Frames to move the grid so its beats sit on the sharp envelope's peaks: the median, over
    the stronger half of the beats, of the peak's distance within +-50 ms of each beat."""
    reach = 5
    shifts, strengths = [], []
    for k in range(int((len(sharp) - 1 - offset) / period) + 1):
        centre = round(offset + k * period)
        low, high = max(0, centre - reach), min(len(sharp), centre + reach + 1)
        if high - low == 2 * reach + 1:
            shifts.append(low + int(np.argmax(sharp[low:high])) - centre)
            strengths.append(float(sharp[low:high].max()))
    if not shifts:
        return 0.0
    keep = np.array(strengths) >= np.median(strengths)
    return float(np.median(np.array(shifts)[keep]))


def estimate_beat_grid(audio: np.ndarray, sample_rate: int) -> BeatGrid:
    """Estimate a steady 4/4 beat grid (seconds) from audio (float (n,) or (n, channels)).

    Raises ``ValueError`` for audio shorter than :data:`MIN_AUDIO_S` or without onsets."""
    duration = len(audio) / sample_rate
    if duration < MIN_AUDIO_S:
        raise ValueError(f"audio too short for a beat grid: {duration:.2f} s")
    energy = log_band_energies(audio, sample_rate)
    envelope = _flux(energy)
    if not np.any(envelope > 0):
        raise ValueError("no onsets: cannot estimate a beat grid")
    r = autocorrelation(envelope)
    bpm, _ = _tempo(r)
    period = 60.0 * ONSET_FRAME_RATE_HZ / bpm
    period, offset = _refine(envelope, period, _phase(envelope, period))
    sharp = _flux(log_band_energies(audio, sample_rate, TIMING_WINDOW_S))
    offset += _timing_shift(sharp, period, offset)
    beat_s = period / ONSET_FRAME_RATE_HZ
    first = (offset + 0.5) / ONSET_FRAME_RATE_HZ
    beats = [round(first + k * beat_s, 6) for k in range(int((duration - first) / beat_s) + 1)
             if first + k * beat_s < duration]
    return BeatGrid(round(60.0 / beat_s, 3), beats, _downbeats(energy, beats),
                    round(periodicity(r, period), 4))


def _downbeats(energy: np.ndarray, beats: list[float]) -> list[float]:
    """Every fourth beat, starting at the bar position where the sound changes most (chords
    change on the bar): distance between the mean band energies of the beat after and the
    beat before each beat, summed per position in the bar."""
    frames = [min(len(energy), round(t * ONSET_FRAME_RATE_HZ)) for t in beats]
    change = np.zeros(BEATS_PER_BAR)
    for j in range(1, len(frames) - 1):
        before = energy[frames[j - 1]:frames[j]]
        after = energy[frames[j]:frames[j + 1]]
        if len(before) and len(after):
            change[j % BEATS_PER_BAR] += float(np.linalg.norm(after.mean(0) - before.mean(0)))
    return beats[int(np.argmax(change))::BEATS_PER_BAR]
