"""Best of three: objective scores, the choice, broken candidates, determinism."""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import pytest
from scipy import signal

from media.base.spec import AUDIO_SAMPLE_RATE, LUFS_TOLERANCE, MAX_TRUE_PEAK_DBTP, TARGET_LUFS
from media.song.compose import (
    ComposedSong,
    SongBrief,
    compose_song,
    melody_line,
    plan_song,
    song_seed,
)
from media.song.score import (
    PREVIEW_SAMPLE_RATE,
    SongScore,
    band_levels_db,
    best_index,
    candidate_seed,
    candidates_for,
    compose_best,
    delivery_problems,
    loudness_stats,
    melodic_variety,
    pulse_clarity,
    score_song,
    spectral_balance_score,
)

pytestmark = pytest.mark.render

SR = AUDIO_SAMPLE_RATE
BRIEF = SongBrief(
    occasion_slug="birthday", tone="joyful", gentle=False, recipient_name="Eileen",
    relationship="From all of us at mission control",
    memory="The night we watched the launch from the roof.", story_note="",
    feeling_words=("proud", "grateful", "bright"), style="gift", length_sec=30.0,
)
SEED = song_seed("gift-score-test", "share-score-test")


@pytest.fixture(scope="module")
def best_of_three() -> tuple[ComposedSong, list[SongScore], int]:
    return compose_best(BRIEF, SEED, 3)


@pytest.fixture(scope="module")
def good_score(best_of_three: tuple[ComposedSong, list[SongScore], int]) -> SongScore:
    return score_song(best_of_three[0], BRIEF.length_sec)


def test_best_of_three_keeps_the_candidate_with_the_best_score(
        best_of_three: tuple[ComposedSong, list[SongScore], int]) -> None:
    song, scores, chosen = best_of_three
    assert len(scores) == 3 and all(score.valid and score.preview for score in scores)
    assert scores[chosen].total == max(score.total for score in scores)
    plan = plan_song(BRIEF, *candidates_for(BRIEF, SEED, 3)[chosen])
    assert (song.key, song.tempo_bpm, song.melody) == (plan.key, round(plan.tempo_bpm, 6),
                                                       melody_line(plan))
    assert song.sample_rate == SR and len(song.audio) == round(BRIEF.length_sec * SR)
    assert abs(song.integrated_lufs - TARGET_LUFS) <= LUFS_TOLERANCE
    assert song.true_peak_dbtp <= MAX_TRUE_PEAK_DBTP
    assert delivery_problems(song, BRIEF.length_sec) == []



def test_best_of_three_shared_with_a_pool_is_sample_identical(
        best_of_three: tuple[ComposedSong, list[SongScore], int]) -> None:
    """The previews played on the pool's workers choose the same song, sample for sample."""
    with ThreadPoolExecutor(2) as pool:
        song, scores, chosen = compose_best(BRIEF, SEED, 3, pool=pool)
    alone, alone_scores, alone_chosen = best_of_three
    assert chosen == alone_chosen and scores == alone_scores
    assert song.audio.tobytes() == alone.audio.tobytes()

def test_candidates_differ_in_seed_and_arrangement() -> None:
    choices = candidates_for(BRIEF, SEED, 3)
    assert choices[0] == (SEED, 0) and candidate_seed(SEED, 0) == SEED
    plans = [plan_song(BRIEF, seed, variant) for seed, variant in choices]
    assert len({plan.seed for plan in plans}) == 3
    assert len({plan.arrangement.name for plan in plans}) == 3
    assert len({melody_line(plan) for plan in plans}) == 3
    assert plan_song(BRIEF, SEED) == plan_song(BRIEF, SEED, 0)
    other = plan_song(BRIEF, SEED, 1)
    assert (other.tempo_bpm, other.key, other.form) == (plans[0].tempo_bpm, plans[0].key,
                                                        plans[0].form)
    assert other.arrangement != plans[0].arrangement


def test_choice_is_deterministic(best_of_three: tuple[ComposedSong, list[SongScore], int]
                                 ) -> None:
    _, scores, chosen = best_of_three
    again = [score_song(compose_song(BRIEF, seed, PREVIEW_SAMPLE_RATE, variant, preview=True),
                        BRIEF.length_sec, preview=True)
             for seed, variant in candidates_for(BRIEF, SEED, 3)]
    assert [replace(score, candidate={}) for score in scores] == again
    assert [score.candidate["seed"] for score in scores] == [
        seed for seed, _ in candidates_for(BRIEF, SEED, 3)]
    assert best_index(again) == chosen


def test_scores_are_recorded_with_every_component(
        best_of_three: tuple[ComposedSong, list[SongScore], int]) -> None:
    _, scores, _ = best_of_three
    for score in scores:
        record = json.loads(json.dumps(score.as_dict()))
        for name in ("loudness_range", "spectral_balance", "pulse_clarity", "clipping",
                     "melodic_variety", "total"):
            assert 0.0 <= record[name] <= 1.0, name
        assert record["valid"] is True and record["rejected"] == []
        for fact in ("loudness_range_lu", "band_low_db", "band_high_db", "pulse_autocorrelation",
                     "limiter_db", "peak_db", "pitch_classes", "interval_entropy"):
            assert math.isfinite(record["measured"][fact]), fact


def _broken(song: ComposedSong) -> dict[str, ComposedSong]:
    audio = song.audio
    nan = audio.copy()
    nan[SR, 0] = np.nan
    return {
        "clipped": replace(song, audio=np.clip(audio * 8.0, -1.0, 1.0)),
        "silent": replace(song, audio=np.zeros_like(audio)),
        "wrong length": replace(song, audio=audio[: -SR // 2]),
        "non-finite": replace(song, audio=nan),
    }


@pytest.mark.parametrize(("kind", "reason"), [
    ("clipped", "full scale"), ("silent", "silent"), ("wrong length", "wrong length"),
    ("non-finite", "non-finite"),
])
def test_a_broken_candidate_is_rejected_and_never_chosen(
        kind: str, reason: str, best_of_three: tuple[ComposedSong, list[SongScore], int],
        good_score: SongScore) -> None:
    broken = _broken(best_of_three[0])[kind]
    score = score_song(broken, BRIEF.length_sec)
    assert not score.valid and score.total == 0.0
    assert any(reason in text for text in score.rejected), score.rejected
    json.dumps(score.as_dict(), allow_nan=False)
    assert delivery_problems(broken, BRIEF.length_sec) != []
    assert good_score.valid
    assert best_index([score, good_score, score]) == 1
    assert best_index([score]) is None


def test_clipped_song_is_rejected_for_its_true_peak_too(
        best_of_three: tuple[ComposedSong, list[SongScore], int]) -> None:
    song = best_of_three[0]
    hot = replace(song, audio=song.audio * np.float32(10 ** (2.5 / 20)))
    score = score_song(hot, BRIEF.length_sec)
    assert not score.valid
    assert any("true peak" in text for text in score.rejected)


def _tone(seconds: float, freq: float = 440.0, level: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    mono = level * np.sin(2 * np.pi * freq * t)
    return np.stack([mono, mono], axis=1).astype(np.float32)


def test_loudness_range_is_small_for_a_flat_tone_and_musical_for_sections() -> None:
    flat = _tone(20.0)
    lufs, lra = loudness_stats(flat, SR)
    assert lra < 0.5
    assert lufs == pytest.approx(-0.691 + 10 * math.log10(2 * 0.3**2 / 2), abs=0.6)
    sections = np.concatenate([_tone(8.0, level=0.1), _tone(8.0, level=0.2),
                               _tone(8.0, level=0.1)])
    assert loudness_stats(sections, SR)[1] == pytest.approx(6.0, abs=1.0)


def test_pulse_clarity_hears_a_steady_beat_and_not_noise() -> None:
    rng = np.random.default_rng(1)
    n = 20 * SR
    t = np.arange(n) / SR
    since = t % 0.5
    clicks = (np.sin(2 * np.pi * 1000 * t) * np.exp(-since / 0.01)).astype(np.float32)
    noise = signal.sosfilt(signal.butter(2, 4000, fs=SR, output="sos"),
                           rng.standard_normal(n)).astype(np.float32)
    assert pulse_clarity(np.stack([clicks, clicks], 1), SR, 120.0) > 0.7
    assert pulse_clarity(np.stack([noise, noise], 1), SR, 120.0) < 0.2


def test_spectral_balance_prefers_a_full_mix_to_a_thin_one() -> None:
    rng = np.random.default_rng(2)
    pink = np.cumsum(rng.standard_normal(10 * SR)) * 0.001
    full = signal.sosfilt(signal.butter(1, [40, 6000], "bandpass", fs=SR, output="sos"), pink)
    thin = signal.sosfilt(signal.butter(4, 2000, "highpass", fs=SR, output="sos"), full)
    stereo = [np.stack([x, x], 1).astype(np.float32) for x in (full, thin)]
    full_score, _ = spectral_balance_score(band_levels_db(stereo[0], SR))
    thin_score, _ = spectral_balance_score(band_levels_db(stereo[1], SR))
    assert full_score > 0.6 > thin_score


def test_melodic_variety_prefers_a_moving_tune_to_a_drone() -> None:
    drone, _ = melodic_variety([60.0] * 24)
    tune, facts = melodic_variety([60, 62, 64, 65, 67, 65, 64, 62, 60, 67, 69, 71, 72, 67, 64,
                                   60])
    assert drone is not None and tune is not None
    assert drone < 0.3 < 0.8 < tune
    assert facts["pitch_classes"] == 7
    assert melodic_variety([])[0] is None


def test_standard_composes_one_song_scored_in_full() -> None:
    short = replace(BRIEF, length_sec=12.0)
    song, scores, chosen = compose_best(short, SEED, 1)
    assert chosen == 0 and len(scores) == 1
    assert scores[0].valid and not scores[0].preview
    plan = plan_song(short, SEED)
    assert (song.key, song.melody) == (plan.key, melody_line(plan))
    with pytest.raises(ValueError):
        compose_best(short, SEED, 0)
