"""Every length a customer can buy (30 to 180 s, integer or fractional) makes a film of exactly
its frames: the plan, the song, and the encoder and muxer that put them together."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from activities.assets import song_brief
from media.base import spec
from media.base.runner import Limits, ffprobe_argv, run_tool, start_tool
from media.frames.encode import FilmSound, encoder_argv
from media.frames.segments import join_segments
from media.song.audio import write_wav
from media.song.compose import plan_song
from tests.helpers import check_structure, planned_film, signature_film
from tests.stages import order_with_media
from workflows.contract import LENGTH_MAX_SEC, LENGTH_MIN_SEC

pytestmark = pytest.mark.render

TINY = spec.Aspect("tiny", 64, 36)  # the real encoder settings on frames that cost nothing
LIMITS = Limits(timeout_s=120.0)
# Every half second of the range, and fractional lengths whose frames round either way.
RANGE = [LENGTH_MIN_SEC + k / 2 for k in range(int((LENGTH_MAX_SEC - LENGTH_MIN_SEC) * 2) + 1)]
FRACTIONAL = [30.01, 30.02, 33.3, 45.55, 90.016, 100.1, 119.99, 179.98, 179.99]


def test_the_range_covers_every_half_second_the_contract_sells() -> None:
    assert RANGE[0] == 30.0 and RANGE[-1] == 180.0 and len(RANGE) == 301


@pytest.mark.parametrize("length", RANGE + FRACTIONAL)
def test_plan_and_song_have_exactly_the_films_frames(length: float) -> None:
    frames = spec.film_frames(length)
    assert planned_film(length=length).total_frames == frames
    brief = song_brief(order_with_media("gift0001", [("p01", "jpg")], length_sec=length))
    song_plan = plan_song(brief, seed=7)
    samples = round(song_plan.length_sec * spec.AUDIO_SAMPLE_RATE)
    assert samples == frames * spec.AUDIO_SAMPLES_PER_FRAME


def _soundtrack(path: Path, frames: int, extra_samples: int = 0) -> Path:
    samples = frames * spec.AUDIO_SAMPLES_PER_FRAME + extra_samples
    noise = np.random.default_rng(frames).standard_normal((samples, 2)) * 0.05
    return write_wav(path, noise.astype(np.float32), spec.AUDIO_SAMPLE_RATE)


def _encode(out: Path, frames: int, sound: FilmSound | None) -> Path:
    frame = bytes(TINY.width * TINY.height * 3 // 2)
    argv = encoder_argv(TINY, sound, out, spec.EncoderSettings(preset="ultrafast"))
    with start_tool(argv, LIMITS, stdin=True) as tool:
        for _ in range(frames):
            tool.stdin.write(frame)
        tool.stdin.close()
        tool.wait()
    return out


def _streams(path: Path) -> dict[str, dict]:
    out = run_tool(ffprobe_argv("-count_packets", "-show_entries",
                                "stream=codec_type,nb_read_packets,duration", "-of", "json",
                                str(path)), LIMITS)
    return {s["codec_type"]: s for s in json.loads(out.stdout)["streams"]}


def _check_exact(path: Path, frames: int) -> None:
    streams = _streams(path)
    assert int(streams["video"]["nb_read_packets"]) == frames
    assert float(streams["video"]["duration"]) == pytest.approx(frames / spec.FPS, abs=1e-3)
    assert float(streams["audio"]["duration"]) == pytest.approx(frames / spec.FPS, abs=1e-3)


# 90 and 120 s lost their last frame under ffmpeg's -shortest (2699 of 2700, 3599 of 3600).
@pytest.mark.parametrize("length", [30, 45, 60, 90, 120, 180, 33.3, 100.1, 179.99])
def test_the_encoder_keeps_every_frame_and_fits_the_sound_to_them(tmp_path: Path,
                                                                  length: float) -> None:
    frames = spec.film_frames(length)
    sound = FilmSound(_soundtrack(tmp_path / "song.wav", frames), frames)
    _check_exact(_encode(tmp_path / "film.mp4", frames, sound), frames)


@pytest.mark.parametrize("extra_samples", [-4000, 4000])
def test_a_soundtrack_a_little_short_or_long_is_padded_or_cut_to_the_picture(
        tmp_path: Path, extra_samples: int) -> None:
    frames = spec.film_frames(90)
    sound = FilmSound(_soundtrack(tmp_path / "song.wav", frames, extra_samples), frames)
    _check_exact(_encode(tmp_path / "film.mp4", frames, sound), frames)


@pytest.mark.parametrize("length", [90, 120])
def test_segments_joined_under_the_soundtrack_keep_every_frame(tmp_path: Path,
                                                               length: int) -> None:
    frames = spec.film_frames(length)
    halves = [frames // 3, frames - frames // 3]
    parts = [_encode(tmp_path / f"part{i}.mp4", n, None) for i, n in enumerate(halves)]
    sound = FilmSound(_soundtrack(tmp_path / "song.wav", frames), frames)
    _check_exact(join_segments(parts, sound, tmp_path / "joined.mp4", LIMITS), frames)


@pytest.mark.parametrize("length", RANGE + FRACTIONAL)
def test_a_signature_plan_has_exactly_the_films_frames(length: float) -> None:
    timeline = signature_film(length=length)
    assert timeline.total_frames == spec.film_frames(length)
    check_structure(timeline)
