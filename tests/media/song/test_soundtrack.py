"""The soundtrack: the clips' sound under the song, re-mastered to the spec
(media.song.soundtrack)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import signal

from media.base import spec
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.cards.spec import CardSpec
from media.plan import planner
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from media.song.audio import read_audio
from media.song.compose import MASTER_TRUE_PEAK_DBTP, master, measure_loudness
from media.song.soundtrack import CLIP_UNDER_SONG_DB, build_soundtrack, decode_audio, write_wav

pytestmark = pytest.mark.render

RATE = spec.AUDIO_SAMPLE_RATE
LENGTH_S = 12.0
TONE_HZ = 3000.0
LIMITS = Limits(timeout_s=60)


def _song(path: Path) -> Path:
    """A mastered 'song' with nothing near 3 kHz: low chords over low-passed noise."""
    t = np.arange(round(LENGTH_S * RATE)) / RATE
    rng = np.random.default_rng(5)
    low = signal.sosfilt(signal.butter(6, 600, fs=RATE, output="sos"), rng.normal(0, 0.1, len(t)))
    mono = sum(0.15 * np.sin(2 * np.pi * f * t) for f in (110, 165, 220, 330)) + low
    audio, _, _ = master(np.stack([mono, mono], axis=1), RATE)
    return write_wav(path, audio)


def _clip(path: Path, with_sound: bool) -> ClipSource:
    """A 6 s clip whose sound is a quiet 3 kHz tone (-30 dBFS)."""
    sound = ["-f", "lavfi", "-i", f"sine=frequency={TONE_HZ:g}:sample_rate=48000:d=6"]
    argv = ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=6", *(sound if with_sound else []),
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
    if with_sound:
        argv += ["-af", "volume=-21dB", "-c:a", "aac", "-ac", "2", "-ar", "48000"]
    run_tool(ffmpeg_argv(*argv, str(path)), LIMITS)
    return ClipSource(path.stem, 6.0, 320, 180, with_sound)


def _timeline(clip: ClipSource, tmp: Path) -> Timeline:
    photo = PhotoSource("p1", 1600, 1200, False)
    beats = [i * 0.5 for i in range(int(LENGTH_S * 2))]
    return planner.plan(FilmSpec(
        length_sec=LENGTH_S, photos=[photo], clips=[clip], recipe=MotionRecipe(motion_shots=1),
        subject_photo_id="p1",
        words=FilmWords(opening=CardSpec("opening", ("Happy Birthday", "Anna")),
                        closing=CardSpec("closing", ("With love",))),
        song=SongGrid(beat_times=beats)))


def _band_db(audio: np.ndarray, lo: float, hi: float) -> float:
    """Power (dB) of ``audio`` (mono float) in the band [lo, hi] Hz."""
    freqs, power = signal.welch(audio, RATE, nperseg=8192)
    band = (freqs >= lo) & (freqs <= hi)
    return 10 * np.log10(power[band].sum() + 1e-20)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Timeline, np.ndarray, object]:
    tmp = tmp_path_factory.mktemp("soundtrack")
    song = _song(tmp / "song.wav")
    clip = _clip(tmp / "c01.mp4", with_sound=True)
    timeline = _timeline(clip, tmp)
    info = build_soundtrack(timeline, song, {clip.id: tmp / "c01.mp4"}, {clip.id},
                            tmp / "soundtrack.wav", LIMITS)
    assert info is not None
    return timeline, decode_audio(info.path, limits=LIMITS), info


def test_clip_sound_plays_under_the_song_only_while_the_clip_is_on(mixed) -> None:
    timeline, audio, _ = mixed
    shot = next(s for s in timeline.shots if s.kind == "clip")
    a, b = round(shot.cut_in / 30 * RATE), round(shot.cut_out / 30 * RATE)
    during, before = audio[a + RATE // 4:b - RATE // 4, 0], audio[: a - RATE // 2, 0]
    tone_during = _band_db(during, TONE_HZ - 60, TONE_HZ + 60)
    song_during = _band_db(during, 40, 1000)
    assert tone_during > _band_db(before, TONE_HZ - 60, TONE_HZ + 60) + 30  # there, not before
    # Under the song: clearly quieter than it (about CLIP_UNDER_SONG_DB), yet well audible.
    assert -CLIP_UNDER_SONG_DB - 8 < tone_during - song_during < -CLIP_UNDER_SONG_DB + 6


def test_soundtrack_is_mastered_to_the_spec(mixed) -> None:
    timeline, audio, info = mixed
    assert len(audio) == round(timeline.total_frames / timeline.fps * RATE)
    lufs, true_peak = measure_loudness(audio, RATE)
    assert abs(lufs - spec.TARGET_LUFS) <= 0.5
    assert true_peak <= MASTER_TRUE_PEAK_DBTP + 0.1  # the AAC headroom is kept
    assert info.integrated_lufs == pytest.approx(lufs, abs=0.2)


def test_without_clip_sound_the_song_is_the_soundtrack(tmp_path: Path) -> None:
    clip = _clip(tmp_path / "c01.mp4", with_sound=False)
    timeline = _timeline(clip, tmp_path)
    assert build_soundtrack(timeline, tmp_path / "missing.wav", {clip.id: tmp_path / "c01.mp4"},
                            set(), tmp_path / "soundtrack.wav") is None
    assert not (tmp_path / "soundtrack.wav").exists()


@pytest.mark.parametrize(("bits", "rate"), [(16, RATE), (24, RATE), (24, 44100)])
def test_a_wav_is_read_as_ffmpeg_decodes_it(tmp_path: Path, bits: int, rate: int) -> None:
    rng = np.random.default_rng(2)
    audio = rng.uniform(-1.0, 1.0, (rate + 1, 2)).astype(np.float32)
    audio[:3] = [[1.0, -1.0], [-1.0, 1.0], [1e-7, -1e-7]]  # full scale and the smallest step
    wav = write_wav(tmp_path / f"{bits}-{rate}.wav", audio, rate, bits)
    read, decoded = read_audio(wav, limits=LIMITS), decode_audio(wav, limits=LIMITS)
    assert read.dtype == np.float32 and read.shape == decoded.shape
    assert read.tobytes() == decoded.tobytes()
