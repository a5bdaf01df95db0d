"""A beat grid estimated from audio agrees with the beats the audio was made on."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest

from media.song.beats import estimate_beat_grid
from media.song.compose import SongBrief, compose_song
from tests.fake_song_provider import TEMPO_BPM, beat_times, synth_wav


def _nearest_errors(estimated: list[float], truth: list[float]) -> np.ndarray:
    truth_array = np.array(truth)
    return np.array([np.min(np.abs(truth_array - t)) for t in estimated])


def test_click_track_grid_has_its_tempo_and_beats() -> None:
    with wave.open(io.BytesIO(synth_wav(20.0))) as wav:
        rate = wav.getframerate()
        audio = np.frombuffer(wav.readframes(wav.getnframes()), "<i2") / 32768.0
    grid = estimate_beat_grid(audio, rate)
    assert grid.tempo_bpm == pytest.approx(TEMPO_BPM, rel=0.005)
    assert np.median(_nearest_errors(grid.beat_times, beat_times(20.0))) < 0.015
    assert grid.bar_times == grid.beat_times[grid.beat_times.index(grid.bar_times[0])::4]
    assert grid.confidence > 0.5


@pytest.mark.render
def test_gentle_composed_song_grid_matches_the_composer_grid() -> None:
    brief = SongBrief(occasion_slug="memorial", tone="tender", gentle=True,
                      recipient_name="Anna", relationship="sister", memory="", story_note="",
                      feeling_words=("grateful",), style="gift", length_sec=30.0)
    song = compose_song(brief, seed=5)
    grid = estimate_beat_grid(song.audio, song.sample_rate)
    assert grid.tempo_bpm == pytest.approx(song.tempo_bpm, rel=0.005)
    assert np.median(_nearest_errors(grid.beat_times, song.beat_times)) < 0.02
    assert np.median(_nearest_errors(grid.bar_times, song.bar_times)) < 0.03


def test_silence_and_short_audio_have_no_grid() -> None:
    with pytest.raises(ValueError):
        estimate_beat_grid(np.zeros((10 * 48_000, 2), np.float32), 48_000)
    with pytest.raises(ValueError):
        estimate_beat_grid(np.ones((48_000, 2), np.float32), 48_000)
