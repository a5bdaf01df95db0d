"""An original song composed from an order's brief and played on sampled instruments.

Pipeline: :func:`media.song.plan.plan_song` (tempo, key, form, harmony, motifs and the
arrangement palette, from the brief and a seed) -> :func:`media.song.arrangement.arrange`
(voice-led chords, bass line, melody from a recurring motif, drums; notes in seconds and MIDI)
-> :func:`media.song.synth.render_notes` (a General MIDI SoundFont through FluidSynth: a lead
on a choir/voice patch, piano, guitars, strings, a real drum kit) -> :func:`media.song.mix.mix_song`
(pedalboard EQ, width, bus compression, edges) -> :func:`media.song.mix.master` (-14 LUFS, true
peak under -1 dBTP after AAC). The words (:func:`media.song.lyrics.write_lyrics`) travel with
the song but are not sung by the local composer (:attr:`ComposedSong.sung` is False).

This module is the public face: the types, :func:`compose_song` and the beat grid; the names the
rest of the code imports from here are re-exported from the rooms that own them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from media.base.spec import AUDIO_SAMPLE_RATE
from media.song import audio as audio_io
from media.song.arrangement import arrange, melody_line
from media.song.lyrics import write_lyrics
from media.song.mix import (
    LIMITER_CEILING_DBTP,
    MASTER_TRUE_PEAK_DBTP,
    master,
    mix_song,
    normalize,
)
from media.song.plan import BEATS_PER_BAR, SongBrief, SongPlan, plan_song, song_seed
from media.song.synth import load_fluidsynth, render_notes, use_soundfont

__all__ = ["BEATS_PER_BAR", "LIMITER_CEILING_DBTP", "MASTER_TRUE_PEAK_DBTP", "ComposedSong",
           "SongBrief", "SongPlan", "beat_grid", "compose_song", "load_fluidsynth", "master",
           "measure_loudness",
           "plan_song", "song_seed", "use_soundfont", "write_lyrics", "write_wav"]

measure_loudness = audio_io.measure_loudness


@dataclass(frozen=True)
class ComposedSong:
    """A mastered song with its musical facts. Times are seconds, loudness LUFS / dBTP."""

    audio: np.ndarray
    sample_rate: int
    tempo_bpm: float
    key: str
    beat_times: list[float]
    bar_times: list[float]
    sections: list[tuple[str, float, float]]
    lyrics: list[str]
    integrated_lufs: float
    true_peak_dbtp: float
    melody: tuple[float, ...] = ()
    """MIDI pitches of the lead melody in order (empty when not known, e.g. a provider's song)."""
    sung: bool = False
    """True when ``lyrics`` are sung in the audio (a song service's vocal); the local composer
    plays the lead on a choir patch, so its words are a dedication, not the song's words."""
    arrangement: str = ""
    """The palette that plays it, e.g. ``"pop piano"`` (empty when not known)."""


def beat_grid(plan: SongPlan) -> tuple[list[float], list[float]]:
    """(beat times, downbeat times) in seconds from 0.0 up to the end of the song."""
    count = math.floor(plan.length_sec / plan.beat_s - 1e-9) + 1
    beats = [round(i * plan.beat_s, 6) for i in range(count)]
    return beats, beats[::BEATS_PER_BAR]


def _sections(plan: SongPlan) -> list[tuple[str, float, float]]:
    out = []
    for name, start, bars in plan.form:
        end = plan.length_sec if name == "ending" else (start + bars) * plan.bar_s
        out.append((name, round(start * plan.bar_s, 6), round(end, 6)))
    return out


def compose_song(brief: SongBrief, seed: int, sample_rate: int = AUDIO_SAMPLE_RATE,
                 variant: int = 0, preview: bool = False) -> ComposedSong:
    """Compose, play and master a song of exactly ``brief.length_sec`` seconds
    (``round(length_sec * sample_rate)`` frames, stereo float32 at ``sample_rate`` Hz), at -14
    LUFS integrated with the true peak under -1 dBTP after AAC. Deterministic for (brief, seed,
    variant: see :func:`plan_song`). ``preview`` skips the limiter (a cheap stand-in for
    scoring candidates: static gain to -14 LUFS, ``true_peak_dbtp`` is the sample peak)."""
    plan = plan_song(brief, seed, variant)
    n = round(plan.length_sec * sample_rate)
    dry = render_notes(arrange(plan), plan.arrangement, plan.feel, n, sample_rate)
    ending_s = plan.n_bars * plan.bar_s + 0.35 * plan.tail_s
    mix = mix_song(dry, sample_rate, plan.feel, ending_s)
    del dry
    audio, lufs, true_peak = (normalize if preview else master)(mix, sample_rate)
    beats, bars = beat_grid(plan)
    return ComposedSong(
        audio=audio, sample_rate=sample_rate, tempo_bpm=round(plan.tempo_bpm, 6), key=plan.key,
        beat_times=beats, bar_times=bars, sections=_sections(plan), lyrics=write_lyrics(brief),
        integrated_lufs=round(lufs, 3), true_peak_dbtp=round(true_peak, 3),
        melody=melody_line(plan), sung=False, arrangement=plan.arrangement.name,
    )


def write_wav(path: Path, song: ComposedSong, bits: int = 24) -> None:
    """Write the song as a 24-bit (or 16-bit) PCM stereo WAV at its sample rate (Hz)."""
    audio_io.write_wav(path, song.audio, song.sample_rate, bits)
