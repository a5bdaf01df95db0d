"""Audio written once: decode, WAV writing, BS.1770 loudness, true peak, and the measures of
how a mix sounds (spectral centroid, shares above 2 and 6 kHz, phone-speaker loss, flatness).

Every other module (song, soundtrack, verify, song import and scoring, the bench) imports these;
none keeps its own copy. Audio arrays are float32 (frames, channels) in -1..1, rates in Hz.
"""

from __future__ import annotations

import math
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyloudnorm
from scipy import signal

from media.base.probe import input_url
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.base.spec import AAC_ENCODER_ARGS, AUDIO_CHANNELS, AUDIO_SAMPLE_RATE

TRUE_PEAK_OVERSAMPLING = 4
"""BS.1770-4 true peak: the signal is oversampled 4x before its absolute maximum is taken."""
PEAK_FLOOR_DBTP = -120.0
"""True peak reported for silence (dBTP) instead of -inf."""
GATE_S = 0.4
"""BS.1770 gating block (seconds); shorter audio has no integrated loudness."""
PHONE_HIGHPASS_HZ = 300.0
"""A phone speaker modelled as a 2-pole high-pass at this frequency (Hz)."""
FLATNESS_BAND_HZ = (60.0, 8000.0)
PRESENCE_SPLIT_HZ = 2000.0
HARSH_SPLIT_HZ = 6000.0
"""Energy above this (Hz) is the edge a soft song keeps little of (sibilance, hiss, sizzle)."""
_PEAK_CHUNK = AUDIO_SAMPLE_RATE * 10


# --------------------------------------------------------------------------- files


def decode_audio(path: Path, rate_hz: int = AUDIO_SAMPLE_RATE, *, start_s: float = 0.0,
                 duration_s: float | None = None, limits: Limits | None = None,
                 extra_input_args: tuple[str, ...] = ()) -> np.ndarray:
    """The first audio stream of ``path`` from ``start_s`` for ``duration_s`` seconds (all when
    None) as float32 (frames, 2) at ``rate_hz`` (ffmpeg resamples and up/down-mixes)."""
    seek = ["-ss", f"{start_s:.3f}"] if start_s > 0 else []
    span = ["-t", f"{duration_s:.3f}"] if duration_s is not None else []
    argv = ffmpeg_argv(*extra_input_args, *seek, *span, "-i", input_url(path), "-map", "0:a:0",
                       "-vn", "-sn", "-dn", "-ac", str(AUDIO_CHANNELS), "-ar", str(rate_hz),
                       "-f", "f32le", "-acodec", "pcm_f32le", "pipe:1")
    raw = run_tool(argv, limits or Limits(timeout_s=120.0)).stdout
    usable = len(raw) // (4 * AUDIO_CHANNELS) * 4 * AUDIO_CHANNELS
    return np.frombuffer(raw[:usable], "<f4").reshape(-1, AUDIO_CHANNELS).copy()


def read_audio(path: Path, rate_hz: int = AUDIO_SAMPLE_RATE, *,
               limits: Limits | None = None) -> np.ndarray:
    """All of ``path``'s audio as :func:`decode_audio` gives it; a 16- or 24-bit stereo PCM WAV
    at ``rate_hz`` (what :func:`write_wav` writes) is read here, the same samples without
    running ffmpeg."""
    pcm = _pcm_wav(path, rate_hz)
    return pcm if pcm is not None else decode_audio(path, rate_hz, limits=limits)


def _pcm_wav(path: Path, rate_hz: int) -> np.ndarray | None:
    """A plain PCM WAV's samples as float32 (frames, 2), scaled as ffmpeg's decoder and
    resampler do (exact: every sample is a power-of-two fraction); None for anything else."""
    try:
        with wave.open(str(path), "rb") as wav:
            width = wav.getsampwidth()
            if (wav.getnchannels(), wav.getframerate()) != (AUDIO_CHANNELS, rate_hz) \
                    or width not in (2, 3):
                return None
            raw = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError, OSError):
        return None
    count = len(raw) // (width * AUDIO_CHANNELS) * AUDIO_CHANNELS
    # Each sample read as the 4 bytes starting at it, shifted up: the next sample's bytes
    # fall off the top and the sample sits top-aligned in 32 bits, as ffmpeg converts it.
    words = np.ndarray((count,), "<i4", raw + b"\0" * 4, 0, (width,))
    ints = (words << (8 * (4 - width))).reshape(-1, AUDIO_CHANNELS)
    return ints.astype(np.float32) * np.float32(1 / 2**31)


def write_wav(path: Path, audio: np.ndarray, sample_rate: int = AUDIO_SAMPLE_RATE,
              bits: int = 24) -> Path:
    """Write float audio (frames, channels) in -1..1 as 24- or 16-bit PCM WAV; returns ``path``."""
    if bits not in (16, 24):
        raise ValueError("bits must be 16 or 24")
    data = np.clip(np.asarray(audio, np.float64), -1.0, 1.0)
    data = data.reshape(len(data), -1)
    ints = np.ascontiguousarray(np.round(data * (2 ** (bits - 1) - 1)).astype("<i4"))
    payload = (ints.view(np.uint8).reshape(-1, 4)[:, :3].tobytes() if bits == 24
               else ints.astype("<i2").tobytes())
    with wave.open(str(path), "wb") as out:
        out.setnchannels(data.shape[1])
        out.setsampwidth(bits // 8)
        out.setframerate(sample_rate)
        out.writeframes(payload)
    return path


def aac_round_trip(audio: np.ndarray, sample_rate: int, scratch: Path) -> np.ndarray:
    """``audio`` encoded as the films' AAC (:data:`media.base.spec.AAC_ENCODER_ARGS`) and decoded
    again at 48 kHz: what a viewer hears. ``scratch`` is a folder for the two temporary files."""
    wav, m4a = scratch / "round_trip.wav", scratch / "round_trip.m4a"
    write_wav(wav, audio, sample_rate)
    run_tool(ffmpeg_argv("-y", "-i", str(wav), *AAC_ENCODER_ARGS, "-ar",
                         str(AUDIO_SAMPLE_RATE), str(m4a)), Limits(timeout_s=300.0))
    return decode_audio(m4a)


# --------------------------------------------------------------------------- loudness and peak


def integrated_lufs(audio: np.ndarray, sample_rate: int) -> float:
    """Integrated loudness (LUFS, ITU-R BS.1770-4 via pyloudnorm); -inf when silent or shorter
    than one 0.4 s gating block."""
    data = np.asarray(audio, np.float64).reshape(len(audio), -1)
    if len(data) <= int(GATE_S * sample_rate) or not np.any(data):
        return -math.inf
    return float(pyloudnorm.Meter(sample_rate).integrated_loudness(data))


def true_peak_dbtp(audio: np.ndarray) -> float:
    """Highest 4x-oversampled absolute sample (dBTP), computed in 10 s chunks;
    :data:`PEAK_FLOOR_DBTP` for silence (the sample rate does not change the measure)."""
    samples = np.asarray(audio, np.float32).reshape(len(audio), -1)
    peak, pad, frames = 0.0, 64, len(samples)
    for start in range(0, frames, _PEAK_CHUNK):
        low, high = max(0, start - pad), min(frames, start + _PEAK_CHUNK + pad)
        upsampled = signal.resample_poly(samples[low:high], TRUE_PEAK_OVERSAMPLING, 1, axis=0)
        first = (start - low) * TRUE_PEAK_OVERSAMPLING
        core = upsampled[first:first + min(_PEAK_CHUNK, frames - start) * TRUE_PEAK_OVERSAMPLING]
        peak = max(peak, float(np.abs(core).max(initial=0.0)),
                   float(np.abs(samples[start:start + _PEAK_CHUNK]).max(initial=0.0)))
    return max(PEAK_FLOOR_DBTP, 20 * math.log10(peak)) if peak > 0 else PEAK_FLOOR_DBTP


def measure_loudness(audio: np.ndarray, sample_rate: int) -> tuple[float, float]:
    """(integrated loudness in LUFS, true peak in dBTP) of float audio (frames, channels)."""
    return integrated_lufs(audio, sample_rate), true_peak_dbtp(audio)


def k_weighted_power(audio: np.ndarray, sample_rate: int) -> np.ndarray:
    """Per-frame K-weighted power summed over channels (the BS.1770 pre-filter, pyloudnorm's
    coefficients), for short-term loudness and loudness range."""
    meter = pyloudnorm.Meter(sample_rate)
    power = np.zeros(len(audio))
    for channel in np.asarray(audio).reshape(len(audio), -1).T:
        y = channel.astype(np.float64)
        for stage in meter._filters.values():
            y = signal.lfilter(stage.b, stage.a, y)
        power += y * y
    return power


# --------------------------------------------------------------------------- how it sounds


@dataclass(frozen=True)
class SoundCharacter:
    """How a mix sounds, in numbers: median spectral centroid (Hz) of the sounding frames, shares
    of the energy above 2 kHz (presence) and above 6 kHz (edge), 0..1, loudness lost through a
    phone speaker (LU, 300 Hz 2-pole high-pass), median spectral flatness in 60 Hz-8 kHz (0 tonal
    .. 1 white noise), stereo side-to-mid energy ratio (0 mono), integrated loudness (LUFS) and
    true peak (dBTP)."""

    centroid_hz: float
    share_above_2k: float
    share_above_6k: float
    phone_loss_lu: float
    flatness: float
    side_to_mid: float
    lufs: float
    true_peak_dbtp: float


def _frame_spectra(mono: np.ndarray, sample_rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies Hz, power spectra of the frames within 40 dB of the loudest), 4096-point."""
    freqs, _, spec = signal.stft(mono, sample_rate, nperseg=4096, noverlap=2048)
    power = np.abs(spec) ** 2
    energy = power.sum(axis=0)
    if not np.any(energy):
        return freqs, power[:, :0]
    return freqs, power[:, energy > energy.max() * 1e-4]


def sound_character(audio: np.ndarray, sample_rate: int) -> SoundCharacter:
    """Measure :class:`SoundCharacter` of float audio (frames, channels)."""
    data = np.asarray(audio, np.float32).reshape(len(audio), -1)
    mono = data.mean(axis=1)
    freqs, power = _frame_spectra(mono, sample_rate)
    centroid = (freqs[:, None] * power).sum(axis=0) / np.maximum(power.sum(axis=0), 1e-30)
    total = power.sum()
    band = (freqs >= FLATNESS_BAND_HZ[0]) & (freqs <= FLATNESS_BAND_HZ[1])
    inband = power[band] + 1e-20
    flatness = np.exp(np.log(inband).mean(axis=0)) / inband.mean(axis=0)
    phone = signal.butter(2, PHONE_HIGHPASS_HZ, "highpass", fs=sample_rate, output="sos")
    lufs = integrated_lufs(data, sample_rate)
    phone_lufs = integrated_lufs(signal.sosfilt(phone, data, axis=0), sample_rate)
    side = (data[:, 0] - data[:, -1]) / 2
    return SoundCharacter(
        centroid_hz=float(np.median(centroid)) if centroid.size else 0.0,
        share_above_2k=float(power[freqs >= PRESENCE_SPLIT_HZ].sum() / total) if total else 0.0,
        share_above_6k=float(power[freqs >= HARSH_SPLIT_HZ].sum() / total) if total else 0.0,
        phone_loss_lu=lufs - phone_lufs,
        flatness=float(np.median(flatness)) if flatness.size else 0.0,
        side_to_mid=float(np.sum(side**2) / max(np.sum(mono**2), 1e-30)),
        lufs=lufs, true_peak_dbtp=true_peak_dbtp(data),
    )
