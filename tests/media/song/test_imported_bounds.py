"""A song service's audio is decoded only as far as the film needs (issue 20, item 5): a header
claiming 30 s over 20 minutes of audio is refused after decoding 30 s and a little, in bounded
time and memory."""

from __future__ import annotations

import resource
import struct
import time
from pathlib import Path

import pytest

from media.song.compose import SongBrief
from media.song.imported import (
    DECODE_OVERRUN_S,
    LENGTH_TOLERANCE_S,
    SongAudioRejected,
    decode_exact,
    import_song,
    probe_audio,
)
from tests.media.lavfi import ffmpeg

pytestmark = pytest.mark.render

CLAIMED_S = 30.0
HELD_S = 20 * 60.0
REFUSAL_BOUND_S = 15.0
MEMORY_GROWTH_BOUND_BYTES = 200 * 1024**2
"""Decoding the whole file took 1 GB of RSS (998 MB peak measured); 30.2 s of float stereo is
12 MB."""
_MATROSKA_DURATION = b"\x44\x89\x88"
"""Segment Info's Duration element ID and an 8-byte float size."""


def honest_matroska(dest: Path, seconds: float) -> Path:
    """``seconds`` of 8 kHz mono PCM in Matroska (nothing to encode: quick to make)."""
    ffmpeg("-f", "lavfi", "-i", f"sine=f=330:r=8000:d={seconds:g}", "-ac", "1",
           "-c:a", "pcm_s16le", str(dest))
    return dest


def lying_matroska(dest: Path, held_s: float, claimed_s: float) -> Path:
    """``held_s`` seconds of PCM in Matroska whose header says ``claimed_s``."""
    real = honest_matroska(dest.with_suffix(".real.mka"), held_s)
    data = bytearray(real.read_bytes())
    at = data.index(_MATROSKA_DURATION) + len(_MATROSKA_DURATION)
    data[at:at + 8] = struct.pack(">d", claimed_s * 1000.0)  # milliseconds (default scale)
    dest.write_bytes(bytes(data))
    return dest


@pytest.fixture(scope="module")
def liar(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lying_matroska(tmp_path_factory.mktemp("song") / "liar.mka", HELD_S, CLAIMED_S)


def brief(length_sec: float) -> SongBrief:
    return SongBrief(occasion_slug="birthday", tone="joyful", gentle=False,
                     recipient_name="Ada", relationship="sister", memory="", story_note="",
                     feeling_words=(), style="gift", length_sec=length_sec)


def test_a_header_claiming_30_s_over_20_minutes_is_refused_after_decoding_30_s(
    liar: Path,
) -> None:
    assert abs(probe_audio(liar, CLAIMED_S).duration_sec - CLAIMED_S) < LENGTH_TOLERANCE_S
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = time.monotonic()
    with pytest.raises(SongAudioRejected, match="holds more than"):
        decode_exact(liar, CLAIMED_S)
    assert time.monotonic() - started < REFUSAL_BOUND_S
    growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss_before
    assert growth < MEMORY_GROWTH_BOUND_BYTES


def test_import_song_refuses_the_lying_file(liar: Path) -> None:
    with pytest.raises(SongAudioRejected):
        import_song(liar, brief(CLAIMED_S), {})


def test_audio_that_stops_short_of_the_tolerance_is_refused(tmp_path: Path) -> None:
    short = lying_matroska(tmp_path / "short.mka", CLAIMED_S - 1.0, CLAIMED_S)
    with pytest.raises(SongAudioRejected, match="holds only"):
        decode_exact(short, CLAIMED_S)


def test_audio_within_the_tolerance_is_trimmed_to_the_exact_length(tmp_path: Path) -> None:
    close = honest_matroska(tmp_path / "close.mka", CLAIMED_S + LENGTH_TOLERANCE_S / 2)
    audio = decode_exact(close, CLAIMED_S)
    assert audio.shape == (round(CLAIMED_S * 48_000), 2)
    assert DECODE_OVERRUN_S > LENGTH_TOLERANCE_S, "run-on audio is seen, not cut at the limit"
