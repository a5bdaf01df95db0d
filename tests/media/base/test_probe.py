"""Sniffing and probing customer clips: containers recognised by their bytes, the headers read
as facts, a clip's frames and their timestamps counted within bounds (media.base.probe). The
limits a clip must meet are intake's (tests/media/intake/test_clip_checks.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from media.base import errors
from media.base.errors import MediaRejected
from media.base.probe import (
    MATROSKA,
    MOV,
    MP4,
    clip_json,
    ffprobe_json,
    measure_video,
    parse_probe,
    sniff_container,
)
from tests.media.lavfi import lavfi_clip, x264


def test_mov_and_mkv_containers_are_recognised(tmp_path: Path) -> None:
    mov = lavfi_clip(tmp_path / "clip.bin", "testsrc2=s=64x48:d=0.2", *x264(), "-f", "mov")
    mkv = lavfi_clip(tmp_path / "clip2.bin", "testsrc2=s=64x48:d=0.2", *x264(), "-f", "matroska")
    assert sniff_container(mov) == MOV
    assert sniff_container(mkv) == MATROSKA
    assert parse_probe(clip_json(mkv, MATROSKA), MATROSKA).codec == "h264"


def _reference_probe(tmp_path: Path) -> dict:
    src = lavfi_clip(tmp_path / "ref.mp4", "testsrc2=s=320x240:r=30:d=1", *x264(), "-c:a", "aac",
                     audio="sine=d=1")
    return ffprobe_json(src)


def test_the_headers_are_read_as_facts_and_their_durations_only_as_hints(
        tmp_path: Path) -> None:
    data = _reference_probe(tmp_path)
    no_duration = json.loads(json.dumps(data))
    no_duration["format"].pop("duration")
    for s in no_duration["streams"]:
        s.pop("duration", None)
    long = json.loads(json.dumps(data))
    long["format"]["duration"] = "600.5"
    for s in long["streams"]:
        s["duration"] = "600.5"
    huge = json.loads(json.dumps(data))
    next(s for s in huge["streams"] if s["codec_type"] == "video").update(
        width=100000, height=100000, avg_frame_rate="0/0", r_frame_rate="0/0")

    facts = parse_probe(data, MP4)
    assert (facts.width, facts.height, facts.fps, facts.has_audio) == (320, 240, 30.0, True)
    assert parse_probe(no_duration, MP4).duration_s == 0.0
    assert parse_probe(long, MP4).duration_s == 600.5  # what the packets say decides
    unchecked = parse_probe(huge, MP4)  # the limits are intake's (media.intake.clip_checks)
    assert (unchecked.width, unchecked.fps) == (100000, 0.0)


@pytest.mark.parametrize(("change", "reason"), [
    ({"codec_name": "none"}, errors.VIDEO_UNDECODABLE),
    ({"codec_type": "data"}, errors.NO_VIDEO_STREAM),
])
def test_a_file_without_a_video_stream_to_decode_cannot_be_described(
        tmp_path: Path, change: dict, reason: str) -> None:
    data = _reference_probe(tmp_path)
    next(s for s in data["streams"] if s["codec_type"] == "video").update(change)
    with pytest.raises(MediaRejected) as caught:
        parse_probe(data, MP4)
    assert caught.value.reason == reason


def test_the_frames_of_a_clip_are_counted_per_second_from_its_first_frame(
    tmp_path: Path,
) -> None:
    src = lavfi_clip(tmp_path / "c.mkv", "testsrc2=s=64x48:r=10:d=2.5", *x264(),
                     "-output_ts_offset", "7", "-f", "matroska")

    timing = measure_video(src, MATROSKA, 0, max_frames=100, max_span_s=60.0)

    assert timing.frames_per_s == (10, 10, 5)
    assert timing.duration_s == pytest.approx(2.5, abs=0.01)


def test_a_count_past_its_bounds_says_it_was_cut_short(tmp_path: Path) -> None:
    src = lavfi_clip(tmp_path / "c.mkv", "testsrc2=s=64x48:r=10:d=2.5", *x264(), "-f",
                     "matroska")

    stopped = measure_video(src, MATROSKA, 0, max_frames=10, max_span_s=60.0)
    spread = measure_video(src, MATROSKA, 0, max_frames=100, max_span_s=1.0)

    assert (stopped.complete, stopped.frames_per_s) == (False, ())
    assert spread.complete and spread.frames_per_s == ()
    assert spread.duration_s == pytest.approx(2.5, abs=0.01)


def test_probe_of_a_missing_file_is_our_fault(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        clip_json(tmp_path / "never-downloaded.mp4", MP4)
