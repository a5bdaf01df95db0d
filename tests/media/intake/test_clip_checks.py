"""A clip's limits checked on what the probe learned of it (media.intake.clip_checks): unusable
clips rejected quickly with a reason, limits on the probed streams, a clip's length and rate
measured by its video frames and their timestamps, never by its headers or its audio."""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path

import numpy as np
import pytest

from media.base import errors
from media.base.errors import MediaRejected
from media.base.probe import MATROSKA, MP4, WEBM, VideoTiming, ffprobe_json, sniff_container
from media.intake.clip_checks import (
    MAX_FRAMES,
    MAX_PIXEL_RATE_PX_S,
    check_probe,
    probe_clip,
    with_timing,
)
from tests.media.lavfi import (
    audio_outlasting_video,
    ffmpeg,
    lavfi_clip,
    matroska_header_lie,
    mkv_starting_at,
    webm_without_duration,
    x264,
)


def audio_only(tmp_path: Path) -> Path:
    return lavfi_clip(tmp_path / "voice.m4a", "sine=f=440:d=1", "-c:a", "aac")


def audio_with_cover_art(tmp_path: Path) -> Path:
    cover = lavfi_clip(tmp_path / "cover.png", "color=red:s=64x64", "-frames:v", "1")
    dest = tmp_path / "song.m4a"
    ffmpeg("-f", "lavfi", "-i", "sine=f=440:d=1", "-i", str(cover), "-map", "0", "-map", "1",
           "-c:a", "aac", "-c:v", "png", "-disposition:v", "attached_pic", str(dest))
    return dest


def huge_raw_frames(tmp_path: Path) -> Path:
    """A QuickTime rawvideo clip whose sample description claims 9000x9000 pixels."""
    src = lavfi_clip(tmp_path / "raw.mov", "testsrc=s=32x32:r=10:d=0.2", "-c:v", "rawvideo",
                     "-pix_fmt", "rgb24")
    data = bytearray(src.read_bytes())
    entry = data.find(b"raw ") - 4
    struct.pack_into(">HH", data, entry + 32, 9000, 9000)
    src.write_bytes(bytes(data))
    return src


def moov_at_end_cut_in_half(tmp_path: Path) -> Path:
    src = lavfi_clip(tmp_path / "whole.mp4", "testsrc2=s=320x240:r=30:d=2", *x264())
    data = src.read_bytes()
    assert data.find(b"mdat") < data.find(b"moov")
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])
    return cut


def eleven_minutes(tmp_path: Path) -> Path:
    return lavfi_clip(tmp_path / "long.mp4", "color=gray:s=16x16:r=1:d=660", *x264())


def avi(tmp_path: Path) -> Path:
    return lavfi_clip(tmp_path / "clip.mp4", "testsrc2=s=64x48:d=0.2", "-c:v", "mpeg4",
                      "-f", "avi")


def raw_bytes(data: bytes):
    def make(tmp_path: Path) -> Path:
        path = tmp_path / "upload.mp4"
        path.write_bytes(data)
        return path
    return make


@pytest.mark.parametrize(("make", "reason"), [
    (raw_bytes(b""), errors.NOT_A_VIDEO),
    (raw_bytes(np.random.default_rng(3).bytes(8192)), errors.UNSUPPORTED_CONTAINER),
    (raw_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 64), errors.NOT_A_VIDEO),
    (raw_bytes(b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + b"\0" * 64), errors.NOT_A_VIDEO),
    (raw_bytes(b"\0\0\0\x18ftypisom\0\0\0\0isommp42" + b"\xff" * 64), errors.UNSUPPORTED_CONTAINER),
    (raw_bytes(b"\x1a\x45\xdf\xa3\x88\x42\x82\x84avi \0\0\0\0"), errors.UNSUPPORTED_CONTAINER),
    (avi, errors.UNSUPPORTED_CONTAINER),
    (audio_only, errors.NO_VIDEO_STREAM),
    (audio_with_cover_art, errors.NO_VIDEO_STREAM),
    (huge_raw_frames, errors.VIDEO_TOO_LARGE),
    (moov_at_end_cut_in_half, errors.VIDEO_UNDECODABLE),
    (eleven_minutes, errors.VIDEO_TOO_LONG),
], ids=["zero_bytes", "random_bytes", "jpeg", "heic", "bad_box_after_ftyp", "ebml_not_webm",
        "avi", "audio_only_m4a", "m4a_cover_art", "claims_9000x9000", "truncated_moov_at_end",
        "eleven_minutes"])
def test_unusable_clips_are_rejected_quickly(tmp_path: Path, make, reason: str) -> None:
    src = make(tmp_path)

    started = time.monotonic()
    with pytest.raises(MediaRejected) as caught:
        probe_clip(src, sniff_container(src))

    assert caught.value.reason == reason, caught.value
    assert time.monotonic() - started < 20  # hang guard, not a speed check


def _reference_probe(tmp_path: Path) -> dict:
    src = lavfi_clip(tmp_path / "ref.mp4", "testsrc2=s=320x240:r=30:d=1", *x264(), "-c:a", "aac",
                     audio="sine=d=1")
    return ffprobe_json(src)


@pytest.mark.parametrize(("change", "reason"), [
    ({"width": 100000, "height": 100000}, errors.VIDEO_TOO_LARGE),
    ({"width": 8, "height": 8}, errors.VIDEO_TOO_SMALL),
    ({"r_frame_rate": "480/1", "avg_frame_rate": "480/1"}, errors.VIDEO_FRAME_RATE),
    ({"avg_frame_rate": "0/0", "r_frame_rate": "0/0"}, errors.VIDEO_UNDECODABLE),
])
def test_probe_limits_on_the_video_stream(tmp_path: Path, change: dict, reason: str) -> None:
    data = _reference_probe(tmp_path)
    video = next(s for s in data["streams"] if s["codec_type"] == "video")
    video.update(change)
    with pytest.raises(MediaRejected) as caught:
        check_probe(data, MP4)
    assert caught.value.reason == reason


def test_a_clip_with_more_streams_than_a_camera_writes_is_refused(tmp_path: Path) -> None:
    data = _reference_probe(tmp_path)
    too_many = json.loads(json.dumps(data))
    too_many["streams"] += [dict(data["streams"][1], index=i) for i in range(2, 14)]

    with pytest.raises(MediaRejected) as caught:
        check_probe(too_many, MP4)
    assert caught.value.reason == errors.VIDEO_TOO_MANY_STREAMS
    assert check_probe(data, MP4).has_audio


def one_second_at(fps: float, frames: int) -> VideoTiming:
    return VideoTiming(frames_per_s=(frames,), duration_s=frames / fps)


def test_the_measured_timing_replaces_the_header_and_a_close_header_rate_is_kept(
    tmp_path: Path,
) -> None:
    header = check_probe(_reference_probe(tmp_path), MP4)  # 320x240, 30 fps, 1 s
    assert header.fps == 30.0

    rounded = with_timing(header, VideoTiming(frames_per_s=(30, 30), duration_s=2.001))
    assert (rounded.fps, rounded.duration_s, rounded.frames) == (30.0, 2.001, 60)
    faster = with_timing(header, one_second_at(120.0, 120))
    assert (faster.fps, faster.frames) == (120.0, 120)
    with pytest.raises(MediaRejected) as caught:
        with_timing(header, one_second_at(480.0, 480))
    assert caught.value.reason == errors.VIDEO_FRAME_RATE
    with pytest.raises(MediaRejected) as caught:
        with_timing(header, VideoTiming(frames_per_s=(1,) * 601, duration_s=600.5))
    assert caught.value.reason == errors.VIDEO_TOO_LONG


def test_a_count_cut_short_or_showing_nothing_is_refused(tmp_path: Path) -> None:
    header = check_probe(_reference_probe(tmp_path), MP4)
    cases = [(VideoTiming((), 0.0, MAX_FRAMES + 1, complete=False), errors.VIDEO_TOO_LONG),
             (VideoTiming((), 1e6, 30), errors.VIDEO_TOO_LONG),
             (VideoTiming((), 0.0, 30), errors.VIDEO_UNDECODABLE),
             (VideoTiming((30,), 0.0), errors.VIDEO_TOO_SHORT)]
    for timing, reason in cases:
        with pytest.raises(MediaRejected) as caught:
            with_timing(header, timing)
        assert caught.value.reason == reason, timing


@pytest.mark.render
def test_a_clip_whose_audio_outlasts_its_video_is_measured_by_its_video_frames(
    tmp_path: Path,
) -> None:
    src = audio_outlasting_video(tmp_path / "clip.mp4", video_s=2.0, audio_s=100.0)
    assert float(ffprobe_json(src)["format"]["duration"]) == pytest.approx(100.0, abs=0.1)

    probe = probe_clip(src, sniff_container(src))

    assert probe.duration_s == pytest.approx(2.0, abs=0.01)
    assert (probe.frames, probe.fps, probe.has_audio) == (60, 30.0, True)


def test_a_webm_without_a_duration_element_is_measured_by_its_frames(tmp_path: Path) -> None:
    src = webm_without_duration(tmp_path / "recorded.webm", seconds=3.0)
    assert "duration" not in ffprobe_json(src)["format"]

    probe = probe_clip(src, sniff_container(src))

    assert (probe.container, probe.frames, probe.fps) == (WEBM, 90, 30.0)
    assert probe.duration_s == pytest.approx(3.0, abs=0.01)


def test_an_mkv_whose_timestamps_start_at_10000_s_is_measured_from_its_first_frame(
    tmp_path: Path,
) -> None:
    src = mkv_starting_at(tmp_path / "late.mkv", start_s=10_000.0, seconds=3.0)
    assert float(ffprobe_json(src)["format"]["duration"]) > 10_000

    probe = probe_clip(src, sniff_container(src))

    assert probe.duration_s == pytest.approx(3.0, abs=0.01)
    assert probe.frames_per_s == (30, 30, 30)


@pytest.mark.render
def test_a_matroska_header_claiming_60_fps_over_240_fps_frames_does_not_pass_the_cap(
    tmp_path: Path,
) -> None:
    src = matroska_header_lie(tmp_path / "liar.mkv", size="2560x1440", fps=240, seconds=1.0,
                              claimed_fps=60, claimed_s=0.25)
    claims = ffprobe_json(src)
    assert (claims["streams"][0]["avg_frame_rate"], claims["format"]["duration"]) == \
        ("60/1", "0.250000")
    assert 2560 * 1440 * 60 <= MAX_PIXEL_RATE_PX_S < 2560 * 1440 * 240

    with pytest.raises(MediaRejected) as caught:
        probe_clip(src, sniff_container(src))

    assert caught.value.reason == errors.VIDEO_PIXEL_RATE
    assert "240.0 fps" in caught.value.detail


def test_a_clip_trimmed_by_an_edit_list_is_measured_by_the_frames_it_shows(
    tmp_path: Path,
) -> None:
    """A phone's trim without re-encoding keeps the frames before the cut for the decoder,
    flagged discard: they cost a decode but are never shown."""
    whole = lavfi_clip(tmp_path / "whole.mp4", "testsrc2=s=320x240:r=30:d=10", *x264("-g", "150"))
    trimmed = tmp_path / "trimmed.mp4"
    ffmpeg("-ss", "3.5", "-i", str(whole), "-t", "2", "-c", "copy", str(trimmed))

    probe = probe_clip(trimmed, sniff_container(trimmed))

    assert probe.duration_s == pytest.approx(2.0, abs=0.01)
    assert (probe.frames_per_s, probe.fps) == ((30, 30), 30.0)
    assert probe.hidden_frames == 105  # from the key frame at 0 s to the cut at 3.5 s
    assert probe.frames == probe.frames_within(120) == 165


def test_a_timestamp_leap_of_a_million_seconds_is_refused_as_too_long_without_counting_it(
    tmp_path: Path,
) -> None:
    src = lavfi_clip(tmp_path / "leap.mkv", "testsrc2=s=64x48:r=10:d=3", *x264(),
                     "-output_ts_offset", "1000000", "-cluster_time_limit", "500",
                     "-f", "matroska")
    data = bytearray(src.read_bytes())
    first_cluster = data.find(b"\x1f\x43\xb6\x75")
    timestamp = data.find(b"\xe7\x84", first_cluster)  # its Timestamp: 4 bytes, milliseconds
    data[timestamp + 2:timestamp + 6] = bytes(4)  # the first cluster now starts at 0 s
    src.write_bytes(bytes(data))

    started = time.monotonic()
    with pytest.raises(MediaRejected) as caught:
        probe_clip(src, MATROSKA)

    assert caught.value.reason == errors.VIDEO_TOO_LONG
    assert time.monotonic() - started < 20  # hang guard
