"""Sniffing and probing customer clips: containers recognised by their bytes, unusable clips
rejected quickly with a reason, limits on the probed streams (media.base.probe)."""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path

import numpy as np
import pytest

from media.base import errors
from media.base.errors import MediaRejected
from media.base.probe import (
    MATROSKA,
    MOV,
    MP4,
    ffprobe_json,
    parse_probe,
    probe_clip,
    sniff_container,
)
from tests.media.lavfi import ffmpeg, lavfi_clip, x264


def test_mov_and_mkv_containers_are_recognised(tmp_path: Path) -> None:
    mov = lavfi_clip(tmp_path / "clip.bin", "testsrc2=s=64x48:d=0.2", *x264(), "-f", "mov")
    mkv = lavfi_clip(tmp_path / "clip2.bin", "testsrc2=s=64x48:d=0.2", *x264(), "-f", "matroska")
    assert sniff_container(mov) == MOV
    assert sniff_container(mkv) == MATROSKA
    assert probe_clip(mkv, MATROSKA).codec == "h264"


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
    ({"codec_name": "none"}, errors.VIDEO_UNDECODABLE),
    ({"codec_type": "data"}, errors.NO_VIDEO_STREAM),
])
def test_probe_limits_on_the_video_stream(tmp_path: Path, change: dict, reason: str) -> None:
    data = _reference_probe(tmp_path)
    video = next(s for s in data["streams"] if s["codec_type"] == "video")
    video.update(change)
    with pytest.raises(MediaRejected) as caught:
        parse_probe(data, MP4)
    assert caught.value.reason == reason


def test_probe_limits_on_the_file(tmp_path: Path) -> None:
    data = _reference_probe(tmp_path)
    too_many = json.loads(json.dumps(data))
    too_many["streams"] += [dict(data["streams"][1], index=i) for i in range(2, 14)]
    no_duration = json.loads(json.dumps(data))
    no_duration["format"].pop("duration")
    for s in no_duration["streams"]:
        s.pop("duration", None)
    long = json.loads(json.dumps(data))
    long["format"]["duration"] = "600.5"

    for broken, reason in [(too_many, errors.VIDEO_TOO_MANY_STREAMS),
                           (no_duration, errors.VIDEO_UNDECODABLE), (long, errors.VIDEO_TOO_LONG)]:
        with pytest.raises(MediaRejected) as caught:
            parse_probe(broken, MP4)
        assert caught.value.reason == reason
    assert parse_probe(data, MP4).has_audio


def test_probe_of_a_missing_file_is_our_fault(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        probe_clip(tmp_path / "never-downloaded.mp4", MP4)
