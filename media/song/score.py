"""Objective scores of a composed song, and best-of-N composition.

:func:`score_song` measures five components, each mapped to 0..1, and a weighted total:

- **loudness range**: the spread (LU, 95th minus 10th percentile, EBU R 128 LRA style) of the
  3 s short-term K-weighted loudness; a musical range (sections that breathe) scores 1, a flat
  or a wild one less;
- **spectral balance**: the share of energy (dB) in four bands, low 30-250 Hz, low-mid
  250-1000 Hz, mid 1-4 kHz, high 4-11 kHz, against :data:`TARGET_BAND_DB`;
- **pulse clarity**: the onset envelope's normalized autocorrelation (0..1) at the song's beat
  period;
- **clipping**: how far the peak sits above the limiter's ceiling at -14 LUFS (what the
  mastering limiter has to take off); for a delivered song a true peak over the spec's ceiling
  or samples at full scale disqualify it;
- **melodic variety**: distinct pitch classes, the entropy of the melody's intervals and its
  range, from :attr:`ComposedSong.melody`.

A broken song (non-finite samples, silence, wrong length, clipping) is never chosen.

:func:`compose_best` composes ``candidates`` songs with different seeds and arrangement variants.
With more than one candidate it scores cheap previews (rendered at
:data:`PREVIEW_SAMPLE_RATE`, gained to -14 LUFS without the limiter) and fully renders and
masters only the winner, which must pass the delivery checks (else the next best is tried).
Given the caller's pool, the previews are shared with its workers: a preview no worker has taken
yet is played by the calling thread itself, so the pool's cores split them without the caller
ever waiting on queued work (the previews are independent: the chosen song is the same).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from typing import TypeVar

import numpy as np
from scipy import signal

from media.base.spec import AUDIO_SAMPLE_RATE, LUFS_TOLERANCE, MAX_TRUE_PEAK_DBTP, TARGET_LUFS
from media.song.audio import k_weighted_power, true_peak_dbtp
from media.song.beats import (
    ONSET_FRAME_RATE_HZ,
    PULSE_WINDOW_S,
    autocorrelation,
    onset_envelope,
    periodicity,
)
from media.song.compose import (
    LIMITER_CEILING_DBTP,
    ComposedSong,
    SongBrief,
    compose_song,
    plan_song,
    song_seed,
)

Result = TypeVar("Result")
"""What one of the calls shared with a pool returns (:func:`shared_with`)."""
PREVIEW_SAMPLE_RATE = 24_000
"""Candidates are scored on previews at this rate (Hz): the bands scored end at 11 kHz."""
LENGTH_TOLERANCE_S = 0.05
FULL_SCALE = 0.999
"""A sample at or above this magnitude counts as clipped."""
SILENCE_LUFS = -50.0
SILENT_PEAK = 0.001
"""A song whose samples all stay under this (-60 dBFS) is silent."""

BANDS_HZ: tuple[tuple[str, float, float], ...] = (
    ("low", 30.0, 250.0), ("low_mid", 250.0, 1000.0), ("mid", 1000.0, 4000.0),
    ("high", 4000.0, 11000.0),
)
TARGET_BAND_DB: dict[str, float] = {"low": -2.5, "low_mid": -6.0, "mid": -10.0, "high": -17.0}
"""Target share of each band in the total energy (dB), a warm pop/acoustic balance: most
energy in bass and low-mids, falling by about 4 dB per octave above them."""
BALANCE_SCALE_DB = 5.0
"""RMS band deviation (dB) at which the balance score falls to 1/e (a Gaussian in dB)."""

LRA_GOOD_LU = (4.0, 10.0)
"""A loudness range inside this span (LU) scores 1 ..."""
LRA_ZERO_LU = (1.0, 18.0)
"""... falling linearly to 0 at these limits (flat, or wild)."""
LIMITER_ZERO_DB = 12.0
"""Peak reduction (dB) the limiter would need at -14 LUFS for the clipping score to reach 0."""
MELODY_RANGE_GOOD = (7, 17)
"""Melody span (semitones) that scores 1; narrower drones, wider leaps."""

WEIGHTS: dict[str, float] = {"loudness_range": 0.2, "spectral_balance": 0.25,
                             "pulse_clarity": 0.2, "clipping": 0.15, "melodic_variety": 0.2}


@dataclass(frozen=True)
class SongScore:
    """Component scores (0..1), their weighted ``total`` (0 when not ``valid``), the reasons a
    song was rejected, and the raw measurements (dB, LU, LUFS, seconds, counts)."""

    total: float
    valid: bool
    rejected: tuple[str, ...]
    loudness_range: float
    spectral_balance: float
    pulse_clarity: float
    clipping: float
    melodic_variety: float | None
    preview: bool
    measured: dict[str, float] = field(default_factory=dict)
    candidate: dict[str, object] = field(default_factory=dict)
    """What was scored (seed, arrangement variant, key, tempo), when known."""

    def as_dict(self) -> dict[str, object]:
        """Strict-JSON-ready form for the song metadata ops read (a non-finite measurement,
        e.g. the loudness of silence, becomes null)."""
        measured = {k: v if math.isfinite(v) else None for k, v in self.measured.items()}
        return {**asdict(self), "rejected": list(self.rejected), "measured": measured}


# --------------------------------------------------------------------------- components


def _ramp(value: float, zero: float, full: float) -> float:
    """0 at ``zero``, 1 at ``full``, linear between, clipped."""
    return float(min(1.0, max(0.0, (value - zero) / (full - zero))))


def _plateau(value: float, good: tuple[float, float], zero: tuple[float, float]) -> float:
    """1 inside ``good``, falling linearly to 0 at the ``zero`` limits."""
    if value < good[0]:
        return _ramp(value, zero[0], good[0])
    if value > good[1]:
        return _ramp(-value, -zero[1], -good[1])
    return 1.0


def _block_levels(cumulative: np.ndarray, sr: int, block_s: float,
                  step_s: float) -> np.ndarray:
    """Loudness (LUFS) of ``block_s`` blocks every ``step_s`` from cumulative K-power."""
    window, hop = round(block_s * sr), round(step_s * sr)
    if len(cumulative) - 1 < window:
        return np.zeros(0)
    starts = np.arange(0, len(cumulative) - window, hop)
    with np.errstate(divide="ignore"):
        return -0.691 + 10 * np.log10((cumulative[starts + window] - cumulative[starts]) / window)


def _gate(levels: np.ndarray, relative_lu: float) -> np.ndarray:
    """Blocks above -70 LUFS and above the power mean of those less ``relative_lu``."""
    gated = levels[levels > -70.0]
    if len(gated) == 0:
        return gated
    mean = -0.691 + 10 * np.log10(np.mean(10 ** ((gated + 0.691) / 10)))
    return gated[gated > mean - relative_lu]


def loudness_stats(audio: np.ndarray, sr: int) -> tuple[float, float]:
    """(integrated loudness in LUFS, loudness range in LU) from one K-weighting pass.

    Integrated: BS.1770 gating of 400 ms blocks (-inf when silent). Range: 95th minus 10th
    percentile of 3 s short-term loudness every 0.5 s, gated at -70 LUFS and 20 LU below the
    mean (EBU Tech 3342 style; 0 when shorter than 3 s)."""
    cumulative = np.concatenate(([0.0], np.cumsum(k_weighted_power(audio, sr))))
    blocks = _gate(_block_levels(cumulative, sr, 0.4, 0.1), 10.0)
    integrated = (-0.691 + 10 * math.log10(float(np.mean(10 ** ((blocks + 0.691) / 10))))
                  if len(blocks) else -math.inf)
    short_term = _gate(_block_levels(cumulative, sr, 3.0, 0.5), 20.0)
    spread = (float(np.percentile(short_term, 95) - np.percentile(short_term, 10))
              if len(short_term) >= 2 else 0.0)
    return integrated, spread


def band_levels_db(audio: np.ndarray, sr: int) -> dict[str, float]:
    """Share of the 30 Hz..11 kHz energy in each of :data:`BANDS_HZ` (dB, <= 0)."""
    mono = np.asarray(audio, dtype=np.float32).reshape(len(audio), -1).mean(axis=1)
    freqs, psd = signal.welch(mono, sr, nperseg=8192)
    total = float(psd[(freqs >= BANDS_HZ[0][1]) & (freqs < BANDS_HZ[-1][2])].sum()) or 1e-30
    return {name: 10 * math.log10(max(1e-30, float(psd[(freqs >= lo) & (freqs < hi)].sum()))
                                  / total) for name, lo, hi in BANDS_HZ}


def spectral_balance_score(levels: dict[str, float]) -> tuple[float, float]:
    """(score 0..1, RMS deviation in dB) of band levels against :data:`TARGET_BAND_DB`."""
    deviation = math.sqrt(np.mean([(levels[k] - v) ** 2 for k, v in TARGET_BAND_DB.items()]))
    return math.exp(-0.5 * (deviation / BALANCE_SCALE_DB) ** 2), deviation


def pulse_clarity(audio: np.ndarray, sr: int, tempo_bpm: float) -> float:
    """Normalized onset-envelope autocorrelation (0..1) at the beat period of ``tempo_bpm``."""
    if not (math.isfinite(tempo_bpm) and tempo_bpm > 0):
        return 0.0
    r = autocorrelation(onset_envelope(audio, sr, PULSE_WINDOW_S))
    return max(0.0, periodicity(r, 60.0 * ONSET_FRAME_RATE_HZ / tempo_bpm))


def melodic_variety(melody: Sequence[float]) -> tuple[float | None, dict[str, float]]:
    """(score 0..1 or None without a melody, measurements): distinct pitch classes (7 score 1),
    the entropy of the intervals (semitones, normalized by that of 13 equally likely intervals)
    and the span against :data:`MELODY_RANGE_GOOD`."""
    pitches = np.round(np.asarray(melody, dtype=float)).astype(int)
    if len(pitches) < 4:
        return None, {}
    classes = len(set((pitches % 12).tolist()))
    intervals = np.diff(pitches)
    _, counts = np.unique(intervals, return_counts=True)
    p = counts / counts.sum()
    entropy = float(-(p * np.log2(p)).sum() / math.log2(13))
    span = int(pitches.max() - pitches.min())
    score = (0.35 * _ramp(classes, 1, 7) + 0.35 * min(1.0, entropy)
             + 0.3 * _plateau(span, MELODY_RANGE_GOOD, (0, 30)))
    return score, {"melody_notes": float(len(pitches)), "pitch_classes": float(classes),
                   "interval_entropy": round(entropy, 4), "melody_span_st": float(span)}


# --------------------------------------------------------------------------- the score


def _expected_length(song: ComposedSong, length_sec: float | None) -> float | None:
    if length_sec is not None:
        return float(length_sec)
    return float(song.sections[-1][2]) if song.sections else None


def _hard_checks(song: ComposedSong, length_sec: float | None) -> list[str]:
    """Reasons the audio cannot be used at all (shape, non-finite samples, length)."""
    audio = np.asarray(song.audio)
    if audio.ndim != 2 or audio.shape[1] != 2 or len(audio) == 0:
        return [f"not stereo audio: shape {audio.shape}"]
    problems = [] if np.isfinite(audio).all() else ["non-finite samples (NaN or inf)"]
    expected = _expected_length(song, length_sec)
    duration = len(audio) / song.sample_rate
    if expected is not None and abs(duration - expected) > LENGTH_TOLERANCE_S:
        problems.append(f"wrong length: {duration:.3f} s, planned {expected:.3f} s")
    return problems


def _level_checks(audio: np.ndarray, sr: int, lufs: float,
                  preview: bool) -> tuple[float, int, list[str]]:
    """(peak dB, clipped samples, problems). The peak is the sample peak for a preview (not
    yet limited) and the 4x oversampled true peak (dBTP, as the verify stage measures it) for a
    delivered song, which must also sit at -14 LUFS +-1 without full-scale samples."""
    clipped = int(np.count_nonzero(np.abs(audio) >= FULL_SCALE))
    if preview:
        peak = float(np.abs(audio).max())
        peak_db = 20 * math.log10(peak) if peak > 0 else -math.inf
    else:
        peak_db = true_peak_dbtp(audio)
    problems = []
    if not math.isfinite(lufs) or lufs < SILENCE_LUFS:
        problems.append(f"silent: {lufs:.1f} LUFS")
    elif not preview and abs(lufs - TARGET_LUFS) > LUFS_TOLERANCE:
        problems.append(f"loudness {lufs:.2f} LUFS off {TARGET_LUFS} +-{LUFS_TOLERANCE}")
    if not preview and peak_db > MAX_TRUE_PEAK_DBTP:
        problems.append(f"true peak {peak_db:.2f} dBTP over {MAX_TRUE_PEAK_DBTP}")
    if not preview and clipped:
        problems.append(f"{clipped} samples at full scale")
    return peak_db, clipped, problems


def delivery_problems(song: ComposedSong, length_sec: float | None = None) -> list[str]:
    """Cheap checks of a song fresh from the master: stereo, finite, the right length, not
    silent, no full-scale samples, and the loudness and true peak the master measured (with
    :func:`media.song.compose.measure_loudness`) inside the spec. Empty when deliverable."""
    problems = _hard_checks(song, length_sec)
    if problems:
        return problems
    magnitude = np.abs(song.audio)
    clipped = int(np.count_nonzero(magnitude >= FULL_SCALE))
    if clipped:
        problems.append(f"{clipped} samples at full scale")
    if float(magnitude.max()) < SILENT_PEAK:
        problems.append("silent: no sample above -60 dBFS")
    if not abs(song.integrated_lufs - TARGET_LUFS) <= LUFS_TOLERANCE:
        problems.append(f"loudness {song.integrated_lufs} LUFS off {TARGET_LUFS}")
    if not song.true_peak_dbtp <= MAX_TRUE_PEAK_DBTP:
        problems.append(f"true peak {song.true_peak_dbtp} dBTP over {MAX_TRUE_PEAK_DBTP}")
    return problems


def _rejected(reasons: list[str], preview: bool, measured: dict[str, float]) -> SongScore:
    return SongScore(0.0, False, tuple(reasons), 0.0, 0.0, 0.0, 0.0, None, preview, measured)


def score_song(song: ComposedSong, length_sec: float | None = None, *,
               preview: bool = False) -> SongScore:
    """Score a song (see the module doc). ``length_sec`` defaults to the end of its last
    section. ``preview``: the audio is gained to -14 LUFS but not limited yet, so peaks over the
    ceiling are scored (limiter work), not disqualifying."""
    problems = _hard_checks(song, length_sec)
    measured = {"duration_sec": round(len(song.audio) / song.sample_rate, 4)}
    if problems:
        return _rejected(problems, preview, measured)
    audio, sr = np.asarray(song.audio, dtype=np.float32), song.sample_rate
    lufs, lra = loudness_stats(audio, sr)
    peak_db, clipped, problems = _level_checks(audio, sr, lufs, preview)
    measured.update(integrated_lufs=round(lufs, 3), peak_db=round(peak_db, 3),
                    clipped_samples=float(clipped))
    if problems:
        return _rejected(problems, preview, measured)
    levels = band_levels_db(audio, sr)
    balance, deviation = spectral_balance_score(levels)
    pulse = pulse_clarity(audio, sr, song.tempo_bpm)
    limiter_db = max(0.0, peak_db - (lufs - TARGET_LUFS) - LIMITER_CEILING_DBTP)
    variety, melody_facts = melodic_variety(song.melody)
    components = {"loudness_range": _plateau(lra, LRA_GOOD_LU, LRA_ZERO_LU),
                  "spectral_balance": balance, "pulse_clarity": min(1.0, pulse),
                  "clipping": 1.0 - min(1.0, limiter_db / LIMITER_ZERO_DB),
                  "melodic_variety": variety}
    measured.update({"loudness_range_lu": round(lra, 3), "band_deviation_db": round(deviation, 3),
                     "pulse_autocorrelation": round(pulse, 4), "limiter_db": round(limiter_db, 3),
                     **{f"band_{k}_db": round(v, 3) for k, v in levels.items()}, **melody_facts})
    scored = {k: v for k, v in components.items() if v is not None}
    total = sum(WEIGHTS[k] * v for k, v in scored.items()) / sum(WEIGHTS[k] for k in scored)
    return SongScore(round(total, 4), True, (), *(round(components[k], 4) for k in (
        "loudness_range", "spectral_balance", "pulse_clarity", "clipping")),
        None if variety is None else round(variety, 4), preview, measured)


# --------------------------------------------------------------------------- best of N


class NoUsableSongError(RuntimeError):
    """Every candidate failed the checks: a fault of the composer (ours), not the customer's."""


def best_index(scores: Sequence[SongScore]) -> int | None:
    """Index of the valid score with the highest total (the first on a tie), or None."""
    valid = [i for i, score in enumerate(scores) if score.valid]
    return max(valid, key=lambda i: (scores[i].total, -i)) if valid else None


def ranking(scores: Sequence[SongScore]) -> list[int]:
    """Indices of the valid scores, best first (ties keep candidate order)."""
    return sorted((i for i, s in enumerate(scores) if s.valid), key=lambda i: (-scores[i].total, i))


def candidate_seed(seed: int, index: int) -> int:
    """Seed of candidate ``index``: candidate 0 is the order's own seed (the standard song)."""
    return seed if index == 0 else song_seed(str(seed), "candidate", str(index))


def candidates_for(brief: SongBrief, seed: int, count: int) -> list[tuple[int, int]]:
    """(seed, arrangement variant) of each candidate. Candidate 0 is the default song; each
    other one gets its own seed and the first variant whose arrangement palette no earlier
    candidate has (so three candidates have three arrangements)."""
    chosen = [(seed, 0)]
    palettes = {plan_song(brief, seed).arrangement.name}
    for index in range(1, count):
        own = candidate_seed(seed, index)
        options = [(variant, plan_song(brief, own, variant).arrangement.name)
                   for variant in (1, 2, 3)]
        variant, palette = next((o for o in options if o[1] not in palettes), options[0])
        chosen.append((own, variant))
        palettes.add(palette)
    return chosen


def _describe(song: ComposedSong, seed: int, variant: int) -> dict[str, object]:
    """What a candidate was, for ops: seed, variant, arrangement, key, tempo (bpm)."""
    return {"seed": seed, "variant": variant, "arrangement": song.arrangement, "key": song.key,
            "tempo_bpm": song.tempo_bpm}


def _preview_score(brief: SongBrief, seed: int, variant: int) -> SongScore:
    """Score of a cheap preview of one candidate (see :func:`compose_song`'s ``preview``)."""
    preview = compose_song(brief, seed, PREVIEW_SAMPLE_RATE, variant, preview=True)
    score = score_song(preview, brief.length_sec, preview=True)
    return replace(score, candidate=_describe(preview, seed, variant))


def shared_with(pool: Executor | None, calls: list[Callable[[], Result]]) -> list[Result]:
    """Every call's result, in order: the first played here, the others offered to ``pool``;
    the ones no worker of ``pool`` has started by then are taken back and played here too (last
    first, while the workers take them from the front), so this thread never waits on queued
    work and ``pool`` (shared with other jobs) may be busy without costing any time."""
    if pool is None or len(calls) < 2:
        return [call() for call in calls]
    offered: list[Future[Result]] = [pool.submit(call) for call in calls[1:]]
    results: dict[int, Result] = {0: calls[0]()}
    for index in reversed(range(len(offered))):
        if offered[index].cancel():  # no worker took it: play it here
            results[index + 1] = calls[index + 1]()
    for index, future in enumerate(offered):
        if index + 1 not in results:
            results[index + 1] = future.result()
    return [results[index] for index in range(len(calls))]


def compose_best(brief: SongBrief, seed: int, candidates: int,
                 sample_rate: int = AUDIO_SAMPLE_RATE, pool: Executor | None = None
                 ) -> tuple[ComposedSong, list[SongScore], int]:
    """Compose ``candidates`` songs (seeds and arrangement variants from
    :func:`candidates_for`) and keep the best valid one: (mastered song, every candidate's
    score, chosen index). One candidate is composed and scored in full; several are scored on
    previews and only the winner is rendered in full and checked (:func:`delivery_problems`;
    on a failure the next best is rendered). The previews are shared with ``pool``'s workers
    when one is given (:func:`shared_with`). Deterministic for (brief, seed, candidates), with
    or without a pool."""
    if candidates < 1:
        raise ValueError(f"candidates must be >= 1, got {candidates}")
    if candidates == 1:
        song = compose_song(brief, seed, sample_rate)
        score = replace(score_song(song, brief.length_sec), candidate=_describe(song, seed, 0))
        if not score.valid:
            raise NoUsableSongError(f"composed song rejected: {'; '.join(score.rejected)}")
        return song, [score], 0
    choices = candidates_for(brief, seed, candidates)
    scores = shared_with(pool, [partial(_preview_score, brief, own, variant)
                                for own, variant in choices])
    problems: list[str] = []
    for index in ranking(scores):
        own, variant = choices[index]
        song = compose_song(brief, own, sample_rate, variant)
        rejected = delivery_problems(song, brief.length_sec)
        if not rejected:
            return song, scores, index
        problems.append(f"candidate {index}: {'; '.join(rejected)}")
    raise NoUsableSongError("no usable candidate: " + (" | ".join(problems) or "all rejected"))
