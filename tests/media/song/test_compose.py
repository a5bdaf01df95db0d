"""The composed song: spec loudness, exact length, a real beat grid, determinism, lyrics."""

from __future__ import annotations

import hashlib
import math
import wave
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyloudnorm as pyln
import pytest
from scipy import signal

from media.base.spec import AUDIO_SAMPLE_RATE, LUFS_TOLERANCE, MAX_TRUE_PEAK_DBTP, TARGET_LUFS
from media.song.compose import (
    ComposedSong,
    SongBrief,
    compose_song,
    measure_loudness,
    plan_song,
    song_seed,
    write_lyrics,
    write_wav,
)

pytestmark = pytest.mark.render

SR = AUDIO_SAMPLE_RATE


def _brief(tone: str = "joyful", gentle: bool = False, length_sec: float = 30.0,
           **changes: object) -> SongBrief:
    brief = SongBrief(
        occasion_slug="memorial" if gentle else "birthday", tone=tone, gentle=gentle,
        recipient_name="Anna", relationship="sister",
        memory="The summer we drove to the coast, singing all the way.", story_note="",
        feeling_words=("grateful", "happy"), style="gift", length_sec=length_sec,
    )
    return replace(brief, **changes)


@pytest.fixture(scope="module")
def joyful() -> ComposedSong:
    return compose_song(_brief(), seed=11)


@pytest.fixture(scope="module")
def joyful_other_seed() -> ComposedSong:
    return compose_song(_brief(), seed=12)


GENTLE_BRIEF = _brief("reflective", gentle=True, length_sec=90.0)


@pytest.fixture(scope="module")
def gentle() -> ComposedSong:
    return compose_song(GENTLE_BRIEF, seed=11)


def _spectral_flux(audio: np.ndarray, hop: int = 240) -> tuple[np.ndarray, np.ndarray]:
    """(frame times in s, positive log-magnitude spectral flux) of the mono mix."""
    _, times, spectrum = signal.stft(audio.mean(axis=1), SR, nperseg=1024, noverlap=1024 - hop,
                                     boundary=None, padded=False)
    magnitude = np.log1p(100 * np.abs(spectrum))
    return times[1:], np.maximum(np.diff(magnitude, axis=1), 0).sum(axis=0)


def _high_band_share(audio: np.ndarray, cutoff_hz: float = 5000.0) -> float:
    freqs, power = signal.welch(audio.mean(axis=1), SR, nperseg=4096)
    return float(power[freqs > cutoff_hz].sum() / power.sum())


@pytest.mark.parametrize("song_name", ["joyful", "gentle"])
def test_mastered_song_meets_loudness_and_true_peak_spec(song_name: str,
                                                         request: pytest.FixtureRequest) -> None:
    song: ComposedSong = request.getfixturevalue(song_name)
    audio = song.audio
    assert audio.dtype == np.float32 and audio.shape[1] == 2 and song.sample_rate == SR
    assert np.isfinite(audio).all()
    assert np.abs(audio).max() < 1.0
    lufs = pyln.Meter(SR).integrated_loudness(audio.astype(np.float64))
    assert abs(lufs - TARGET_LUFS) <= LUFS_TOLERANCE
    assert abs(lufs - song.integrated_lufs) < 0.01
    true_peak = max(20 * math.log10(np.abs(signal.resample_poly(audio[:, ch], 4, 1)).max())
                    for ch in (0, 1))
    assert true_peak <= MAX_TRUE_PEAK_DBTP
    assert song.true_peak_dbtp <= MAX_TRUE_PEAK_DBTP
    assert abs(true_peak - song.true_peak_dbtp) < 0.2


def test_measure_loudness_reads_a_half_scale_stereo_sine_as_minus_six_lufs() -> None:
    t = np.arange(SR * 3) / SR
    tone = 0.5 * np.sin(2 * np.pi * 997 * t)
    lufs, true_peak = measure_loudness(np.stack([tone, tone], axis=1), SR)
    assert lufs == pytest.approx(-6.0, abs=0.3)
    assert true_peak == pytest.approx(20 * math.log10(0.5), abs=0.05)


@pytest.mark.parametrize(("song_name", "length_sec"),
                         [("joyful", 30.0), ("warm", 47.3), ("gentle", 90.0)])
def test_duration_is_exact_to_the_sample(song_name: str, length_sec: float,
                                         request: pytest.FixtureRequest) -> None:
    song: ComposedSong = (compose_song(_brief("warm", length_sec=length_sec), seed=5)
                          if song_name == "warm" else request.getfixturevalue(song_name))
    assert len(song.audio) == round(length_sec * SR)
    assert song.sections[0][1] == 0.0 and song.sections[-1][2] == pytest.approx(length_sec)
    assert song.beat_times[-1] <= length_sec


@pytest.mark.parametrize("length_sec", [30.0, 47.3, 90.0, 180.0])
@pytest.mark.parametrize(("tone", "gentle", "low", "high"), [
    ("joyful", False, 100, 124), ("celebratory", False, 100, 124), ("warm", False, 80, 96),
    ("tender", True, 60, 76), ("reflective", True, 60, 76),
])
def test_tempo_follows_tone_and_whole_bars_fill_the_length(
        length_sec: float, tone: str, gentle: bool, low: float, high: float) -> None:
    for seed in range(4):
        plan = plan_song(_brief(tone, gentle, length_sec), seed)
        assert low <= plan.tempo_bpm <= high
        assert plan.n_bars * plan.bar_s + plan.tail_s == pytest.approx(length_sec, abs=1e-9)
        assert 2.0 <= plan.tail_s <= 5.0


def test_beat_grid_is_regular_and_starts_at_zero(joyful: ComposedSong) -> None:
    beat = 60.0 / joyful.tempo_bpm
    beats = np.array(joyful.beat_times)
    assert beats[0] == 0.0
    assert np.allclose(np.diff(beats), beat, atol=1e-5)
    assert joyful.bar_times == joyful.beat_times[::4]
    assert 30.0 - beat < beats[-1] <= 30.0
    starts = [start for _, start, _ in joyful.sections]
    ends = [end for _, _, end in joyful.sections]
    assert starts[1:] == ends[:-1]
    assert all(any(abs(s - b) < 1e-5 for b in joyful.bar_times) for s in starts)
    assert next(name for name, _, _ in joyful.sections) == "intro"
    assert joyful.sections[-1][0] == "ending"


def test_audio_onsets_fall_on_the_beat_grid(joyful: ComposedSong) -> None:
    times, flux = _spectral_flux(joyful.audio)
    beat = 60.0 / joyful.tempo_bpm

    def strongest_near(t: float, window: float = 0.02) -> float:
        near = (times > t - window) & (times < t + window)
        return float(flux[near].max())

    beats = [b for b in joyful.beat_times if 1.0 < b < 26.0]
    on = np.array([strongest_near(b) for b in beats])
    off = np.array([max(strongest_near(b + beat / 3), strongest_near(b + 2 * beat / 3))
                    for b in beats])
    assert np.median(on) > 3.0 * np.median(off)
    assert np.mean(on > off) > 0.9


def test_same_brief_and_seed_give_bit_identical_audio(joyful: ComposedSong) -> None:
    again = compose_song(_brief(), seed=11)
    assert np.array_equal(again.audio, joyful.audio)
    assert (again.tempo_bpm, again.key, again.beat_times, again.lyrics) == (
        joyful.tempo_bpm, joyful.key, joyful.beat_times, joyful.lyrics)


def test_different_seeds_give_different_songs(joyful: ComposedSong,
                                              joyful_other_seed: ComposedSong) -> None:
    first, second = plan_song(_brief(), 11), plan_song(_brief(), 12)
    assert (first.key, first.tempo_bpm, first.chords, first.verse_motif) != (
        second.key, second.tempo_bpm, second.chords, second.verse_motif)
    a = joyful.audio.mean(axis=1).astype(np.float64)
    b = joyful_other_seed.audio.mean(axis=1).astype(np.float64)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.3
    keys_or_tempi = {(plan_song(_brief(), seed).key, plan_song(_brief(), seed).tempo_bpm)
                     for seed in range(8)}
    assert len(keys_or_tempi) >= 4


def test_gentle_song_is_slower_with_less_high_frequency_percussion(
        joyful: ComposedSong, gentle: ComposedSong) -> None:
    assert gentle.tempo_bpm < 77 < 99 < joyful.tempo_bpm
    assert _high_band_share(gentle.audio) < 0.5 * _high_band_share(joyful.audio)
    _, gentle_flux = _spectral_flux(gentle.audio)
    _, joyful_flux = _spectral_flux(joyful.audio)
    assert np.percentile(gentle_flux, 99) < 0.5 * np.percentile(joyful_flux, 99)


def test_song_fades_in_and_rings_out_to_silence(joyful: ComposedSong,
                                                gentle: ComposedSong) -> None:
    def rms(x: np.ndarray) -> float:
        return float(np.sqrt(np.mean(x**2)) + 1e-12)

    briefs = (_brief(), GENTLE_BRIEF)
    for song, brief in zip((joyful, gentle), briefs, strict=True):
        mono = song.audio.mean(axis=1).astype(np.float64)
        plan = plan_song(brief, 11)
        final_downbeat = round(plan.n_bars * plan.bar_s * SR)
        assert np.all(song.audio[0] == 0.0) and np.all(song.audio[-1] == 0.0)
        assert rms(mono[: SR // 100]) < 0.1 * rms(mono[SR : 2 * SR])
        assert 20 * math.log10(rms(mono[-SR // 20:])) < -60
        ring = mono[final_downbeat: final_downbeat + SR // 2]
        assert 20 * math.log10(rms(ring)) > -35
        assert abs(float(mono.mean())) < 1e-3


def test_arrangement_changes_with_tone() -> None:
    joyful = plan_song(_brief(), 11)
    romantic = plan_song(_brief("romantic", occasion_slug="anniversary"), 11)
    gentle = plan_song(GENTLE_BRIEF, 11)
    assert joyful.drums and romantic.drums and not gentle.drums
    programs = {plan.feel: {p.program for p in plan.arrangement.parts.values()}
                for plan in (joyful, romantic, gentle)}
    assert len({frozenset(v) for v in programs.values()}) == 3
    assert all(plan.arrangement.parts["lead"].program in (52, 53)
               for plan in (joyful, romantic, gentle)), "the lead is a voice"
    variants = {plan_song(_brief(), 11, v).arrangement.name for v in range(3)}
    assert len(variants) == 3, "arrangement variants use different palettes"


def test_lyrics_mention_the_recipient_and_the_brief(joyful: ComposedSong) -> None:
    assert 4 <= len(joyful.lyrics) <= 8
    text = " ".join(joyful.lyrics)
    assert "Anna" in text and "sister" in text
    assert "summer we drove to the coast" in text
    assert "grateful" in text.lower()


@pytest.mark.parametrize("name", ["Мария", "王小明", "Zoë O'Neil", "محمد", "😀 Bo", ""])
def test_lyrics_survive_any_unicode_or_empty_brief(name: str) -> None:
    brief = _brief(recipient_name=name, relationship="", memory="", story_note="",
                   feeling_words=())
    lines = write_lyrics(brief)
    assert 4 <= len(lines) <= 8 and all(line.strip() for line in lines)
    if name:
        assert any(name in line for line in lines)
    cjk = _brief(recipient_name=name, memory="我们一起去海边。然后回家", relationship="妈妈",
                 feeling_words=("幸福", "温暖"), gentle=True, occasion_slug="pet-tribute")
    gentle_lines = write_lyrics(cjk)
    assert any("我们一起去海边" in line for line in gentle_lines)
    assert any("幸福" in line for line in gentle_lines)


def test_song_seed_is_a_stable_sha256_of_the_parts() -> None:
    expected = int.from_bytes(hashlib.sha256(b"gift-1\x1fshare-a").digest()[:8], "big")
    assert song_seed("gift-1", "share-a") == expected & (2**63 - 1)
    assert song_seed("gift-1", "share-a") != song_seed("gift-1", "share-b")
    assert song_seed("ab", "c") != song_seed("a", "bc")


def test_write_wav_writes_stereo_pcm_at_the_song_rate(joyful: ComposedSong, tmp_path: Path) -> None:
    path = tmp_path / "song.wav"
    write_wav(path, joyful)
    with wave.open(str(path)) as wav:
        assert (wav.getnchannels(), wav.getframerate(), wav.getnframes()) == (2, SR, 30 * SR)
        assert wav.getsampwidth() in (2, 3)
        raw = np.frombuffer(wav.readframes(SR), dtype=np.uint8).reshape(-1, 3)
    ints = raw[:, 0].astype(np.int32) | raw[:, 1].astype(np.int32) << 8 | raw[:, 2].astype(
        np.int32) << 16
    ints = np.where(ints >= 1 << 23, ints - (1 << 24), ints).reshape(-1, 2)
    assert np.allclose(ints / (2**23 - 1), joyful.audio[:SR], atol=2e-6)


def test_length_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        plan_song(_brief(length_sec=2.0), 1)
    with pytest.raises(ValueError):
        plan_song(_brief(length_sec=float("nan")), 1)


@pytest.mark.parametrize("song_name", ["joyful", "gentle"])
def test_loudness_and_true_peak_hold_after_the_films_aac(song_name: str, tmp_path: Path,
                                                         request: pytest.FixtureRequest) -> None:
    from media.song.audio import aac_round_trip, sound_character

    song: ComposedSong = request.getfixturevalue(song_name)
    heard = sound_character(aac_round_trip(song.audio, song.sample_rate, tmp_path), SR)
    assert abs(heard.lufs - TARGET_LUFS) <= LUFS_TOLERANCE
    assert heard.true_peak_dbtp <= MAX_TRUE_PEAK_DBTP
    assert heard.flatness < 0.05, "music, not hiss"
    assert heard.side_to_mid > 0.05, "a stereo mix"


def test_the_local_composer_does_not_claim_to_sing_its_words(joyful: ComposedSong) -> None:
    assert joyful.sung is False and joyful.arrangement
