"""normalize_clip on tiny clips generated with ffmpeg's lavfi: upright, 30 fps CFR, BT.709 SDR
mezzanines that end with their video, playlists refused, the decode bounded in CPU seconds by
the clip's counted work (media.intake.clips)."""

from __future__ import annotations

import dataclasses
import resource
import time
from pathlib import Path

import numpy as np
import pytest

from media.base import errors
from media.base.errors import MediaRejected
from media.base.probe import MP4, WEBM, ClipProbe, ffprobe_json, sniff_container
from media.base.runner import Limits, ToolMissingError, ToolPaths, ffmpeg_argv, run_tool
from media.intake import clips
from media.intake.clip_checks import probe_clip
from media.intake.clips import normalize_clip, normalize_cpu_s
from tests.helpers import assert_no_connection, listening_socket, tools_at
from tests.media.lavfi import (
    audio_outlasting_video,
    ffmpeg,
    lavfi_clip,
    mkv_starting_at,
    webm_without_duration,
    x264,
)

pytestmark = pytest.mark.render


def first_frame(path: Path, *, autorotate: bool = True) -> np.ndarray:
    """The first frame as an RGB array (height, width, 3)."""
    video = next(s for s in ffprobe_json(path)["streams"] if s["codec_type"] == "video")
    width, height = video["width"], video["height"]
    rotation = next((sd.get("rotation", 0) for sd in video.get("side_data_list", [])), 0)
    if autorotate and rotation in (90, -90, 270, -270):
        width, height = height, width
    args = [] if autorotate else ["-noautorotate"]
    out = run_tool(ffmpeg_argv(*args, "-i", str(path), "-frames:v", "1", "-f", "rawvideo",
                               "-pix_fmt", "rgb24", "pipe:1"), Limits(timeout_s=30)).stdout
    return np.frombuffer(out, np.uint8).reshape(height, width, 3)


def streams(path: Path, kind: str) -> list[dict]:
    return [s for s in ffprobe_json(path)["streams"] if s["codec_type"] == kind]


def prepare(src: Path, dest: Path, **kwargs: object) -> tuple[ClipProbe, dict, dict | None]:
    """sniff + probe + normalize; returns the probe and the mezzanine's video/audio streams."""
    probe = probe_clip(src, sniff_container(src))
    info = normalize_clip(src, dest, probe, **kwargs)
    video = streams(dest, "video")
    audio = streams(dest, "audio")
    assert len(video) == 1 and (info.width, info.height) == (video[0]["width"],
                                                             video[0]["height"])
    assert info.has_audio == bool(audio)
    return probe, video[0], audio[0] if audio else None


def assert_mezzanine_video(video: dict) -> None:
    assert video["codec_name"] == "h264" and video["profile"] == "High"
    assert video["pix_fmt"] == "yuv420p"
    assert (video["color_primaries"], video["color_transfer"], video["color_space"],
            video["color_range"]) == ("bt709", "bt709", "bt709", "tv")
    assert video["r_frame_rate"] == "30/1" and video["avg_frame_rate"] == "30/1"
    assert video.get("sample_aspect_ratio", "1:1") == "1:1"
    assert video["width"] % 2 == 0 and video["height"] % 2 == 0
    assert not any("rotation" in sd for sd in video.get("side_data_list", []))


# --- normalization -----------------------------------------------------------------------------

RED_CORNER = "color=black:s=320x240:r=30:d=1,drawbox=x=0:y=0:w=80:h=60:color=red:t=fill"


@pytest.mark.parametrize(("ccw_degrees", "clockwise", "np_turns"), [(90, 270, 1), (-90, 90, -1)])
def test_rotated_clip_becomes_upright(tmp_path: Path, ccw_degrees: int, clockwise: int,
                                      np_turns: int) -> None:
    coded = lavfi_clip(tmp_path / "coded.mp4", RED_CORNER, *x264())
    rotated = tmp_path / "rotated.mp4"
    ffmpeg("-display_rotation", str(ccw_degrees), "-i", str(coded), "-c", "copy", str(rotated))

    probe, video, _ = prepare(rotated, tmp_path / "out.mp4")

    assert (probe.rotation, probe.width, probe.height) == (clockwise, 240, 320)
    assert (video["width"], video["height"]) == (240, 320)
    assert_mezzanine_video(video)
    expected = np.rot90(first_frame(coded), np_turns).astype(int)
    assert np.abs(first_frame(tmp_path / "out.mp4").astype(int) - expected).mean() < 8


def test_vfr_clip_becomes_30_fps_cfr(tmp_path: Path) -> None:
    src = lavfi_clip(tmp_path / "vfr.mp4", "testsrc2=s=320x240:r=60:d=2",
                     "-vf", "select='lt(mod(n,7),3)+between(n,40,60)'", "-fps_mode", "vfr",
                     *x264())

    probe, video, _ = prepare(src, tmp_path / "out.mp4")

    assert probe.is_vfr
    assert_mezzanine_video(video)
    assert abs(int(video["nb_frames"]) - 30 * float(video["duration"])) <= 1


@pytest.mark.parametrize(("layout", "rate"), [("mono", 44100), ("5.1", 48000)])
def test_audio_becomes_stereo_48k_aac(tmp_path: Path, layout: str, rate: int) -> None:
    src = lavfi_clip(tmp_path / "audio.mp4", "testsrc2=s=320x240:r=25:d=2", *x264(),
                     "-c:a", "aac", "-ac", "1" if layout == "mono" else "6",
                     audio=f"sine=f=440:r={rate}:d=2")

    probe, video, audio = prepare(src, tmp_path / "out.mp4")

    assert probe.has_audio and probe.audio_channels == (1 if layout == "mono" else 6)
    assert_mezzanine_video(video)
    assert audio is not None
    assert (audio["codec_name"], audio["profile"], audio["sample_rate"], audio["channels"]) == (
        "aac", "LC", "48000", 2)


def test_no_audio_stays_no_audio_and_max_seconds_cuts_with_progress(tmp_path: Path) -> None:
    src = lavfi_clip(tmp_path / "silent.mp4", "testsrc2=s=320x240:r=30:d=3", *x264())

    progress: list[float] = []

    probe, video, audio = prepare(src, tmp_path / "out.mp4", max_seconds=1.0,
                                  on_progress=progress.append)

    assert not probe.has_audio and audio is None
    assert_mezzanine_video(video)
    assert abs(float(video["duration"]) - 1.0) < 0.05
    assert progress and 0.5 < max(progress) <= 1.1


@pytest.mark.parametrize("transfer", ["arib-std-b67", "smpte2084"])
def test_hdr_hevc_is_tone_mapped_to_sdr_bt709(tmp_path: Path, transfer: str) -> None:
    src = lavfi_clip(tmp_path / "hdr.mp4", "testsrc2=s=320x240:r=30:d=1",
                     "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
                     "-pix_fmt", "yuv420p10le", "-color_trc", transfer, "-color_primaries",
                     "bt2020", "-colorspace", "bt2020nc", "-tag:v", "hvc1")

    probe, video, _ = prepare(src, tmp_path / "out.mp4")

    assert probe.is_hdr and probe.bit_depth == 10 and probe.codec == "hevc"
    assert_mezzanine_video(video)
    assert 20 < first_frame(tmp_path / "out.mp4").mean() < 235  # a picture, not black or white


def test_webm_vp9_with_opus_is_accepted(tmp_path: Path) -> None:
    src = lavfi_clip(tmp_path / "clip.webm", "testsrc2=s=320x240:r=30:d=1",
                     "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
                     "-c:a", "libopus", audio="sine=f=440:r=48000:d=1")

    assert sniff_container(src) == WEBM
    probe, video, audio = prepare(src, tmp_path / "out.mp4")

    assert probe.codec == "vp9" and probe.container == WEBM
    assert_mezzanine_video(video)
    assert audio is not None and audio["channels"] == 2


def test_large_and_anamorphic_clips_are_fitted_with_square_pixels(tmp_path: Path) -> None:
    big = lavfi_clip(tmp_path / "big.mp4", "testsrc2=s=2560x1440:r=30:d=0.2", *x264())
    wide = lavfi_clip(tmp_path / "sar.mp4", "testsrc2=s=320x240:r=30:d=0.2,setsar=4/3", *x264())

    _, big_video, _ = prepare(big, tmp_path / "big.out.mp4")
    _, wide_video, _ = prepare(wide, tmp_path / "sar.out.mp4")

    assert (big_video["width"], big_video["height"]) == (1920, 1080)
    assert (wide_video["width"], wide_video["height"]) == (426, 240)
    assert_mezzanine_video(big_video)
    assert_mezzanine_video(wide_video)


# --- rejections --------------------------------------------------------------------------------


def hls_playlist(port: int) -> bytes:
    return (f"#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\n"
            f"http://127.0.0.1:{port}/x.ts\n#EXTINF:10.0,\nfile:///etc/hostname\n#EXTINF:10.0,\n"
            f"http://169.254.169.254/latest/meta-data/\n#EXT-X-ENDLIST\n").encode()


def ffconcat_list(port: int) -> bytes:
    return (f"ffconcat version 1.0\nfile 'http://127.0.0.1:{port}/x.mp4'\n"
            f"file '/etc/hostname'\n").encode()


@pytest.mark.parametrize(("name", "make"), [("playlist.mp4", hls_playlist),
                                            ("list.mov", ffconcat_list)])
def test_playlists_are_refused_without_any_network_access(tmp_path: Path, name: str,
                                                          make) -> None:
    with listening_socket() as server:
        src = tmp_path / name
        src.write_bytes(make(server.getsockname()[1]))

        started = time.monotonic()
        with pytest.raises(MediaRejected) as sniffed:
            sniff_container(src)
        # Defence in depth: even forced through the mov/matroska demuxers nothing is fetched.
        for container in (MP4, WEBM):
            with pytest.raises(MediaRejected) as probed:
                probe_clip(src, container)
            assert probed.value.reason == errors.VIDEO_UNDECODABLE
        fake = ClipProbe(320, 240, 0, 10.0, 30.0, False, False, 0, "", "yuv420p", 8, "h264")
        with pytest.raises(MediaRejected) as normalized:
            normalize_clip(src, tmp_path / "out.mp4", fake)

        assert sniffed.value.reason == errors.UNSUPPORTED_CONTAINER
        assert normalized.value.reason == errors.VIDEO_UNDECODABLE
        assert time.monotonic() - started < 20  # hang guard, not a speed check
        assert_no_connection(server)


def test_timeout_on_a_customer_clip_is_a_rejection(tmp_path: Path) -> None:
    src = lavfi_clip(tmp_path / "clip.mp4", "testsrc2=s=320x240:r=30:d=2", *x264())
    probe = probe_clip(src, MP4)
    with pytest.raises(MediaRejected) as caught:
        normalize_clip(src, tmp_path / "out.mp4", probe, timeout_s=0.001)
    assert caught.value.reason == errors.VIDEO_TIMEOUT
    assert not (tmp_path / "out.mp4").exists()


def test_missing_ffmpeg_is_our_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = lavfi_clip(tmp_path / "clip.mp4", "testsrc2=s=64x48:d=0.2", *x264())
    probe = probe_clip(src, MP4)
    monkeypatch.setattr("media.base.runner._packaged_binary", lambda name: None)

    with tools_at(ToolPaths()):
        with pytest.raises(ToolMissingError):
            probe_clip(src, MP4)
        with pytest.raises(ToolMissingError):
            normalize_clip(src, tmp_path / "out.mp4", probe)

    with tools_at(ToolPaths(ffprobe=str(tmp_path / "no-such-ffprobe"))), \
            pytest.raises(OSError):
        probe_clip(src, MP4)


def test_the_mezzanine_of_a_clip_whose_audio_outlasts_its_video_ends_with_its_video(
    tmp_path: Path,
) -> None:
    src = audio_outlasting_video(tmp_path / "clip.mp4", video_s=2.0, audio_s=100.0)

    probe, video, audio = prepare(src, tmp_path / "out.mp4")
    info = normalize_clip(src, tmp_path / "again.mp4", probe)

    assert info.duration_s == pytest.approx(2.0, abs=0.05) and info.has_audio
    assert int(video["nb_frames"]) == 60
    assert audio is not None and float(audio["duration"]) <= 2.1
    assert float(ffprobe_json(tmp_path / "out.mp4")["format"]["duration"]) <= 2.1


@pytest.mark.parametrize("make", [webm_without_duration, mkv_starting_at],
                         ids=["webm_without_duration", "mkv_starting_at_10000_s"])
def test_clips_people_record_become_mezzanines_of_their_length(tmp_path: Path, make) -> None:
    src = make(tmp_path / "recorded.bin", seconds=3.0)

    _, video, _ = prepare(src, tmp_path / "out.mp4")

    assert_mezzanine_video(video)
    assert int(video["nb_frames"]) == 90
    assert float(video["start_time"]) < 0.1


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_the_cpu_bound_of_a_normalize_leaves_an_honest_clip_three_times_its_cost(
    tmp_path: Path,
) -> None:
    src = lavfi_clip(tmp_path / "clip.mp4", "testsrc2=s=1920x1080:r=30:d=3", *x264())
    probe = probe_clip(src, MP4)

    before = children_cpu_s()
    normalize_clip(src, tmp_path / "out.mp4", probe)
    spent = children_cpu_s() - before

    assert spent * 3 < normalize_cpu_s(probe), (spent, normalize_cpu_s(probe))


def test_a_decode_costing_far_more_than_its_counted_frames_is_stopped_by_cpu_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    src = lavfi_clip(tmp_path / "clip.mp4", "testsrc2=s=1920x1080:r=30:d=5", *x264())
    honest = probe_clip(src, MP4)
    # What a lie past the packet count would look like: frames far smaller than decoded.
    lying = dataclasses.replace(honest, width=16, height=16)
    monkeypatch.setattr(clips, "NORMALIZE_CPU_BASE_S", 0.0)
    monkeypatch.setattr(clips, "WORST_ENCODE_CPU_S_PER_S", 0.0)
    assert normalize_cpu_s(lying) == 1

    started = time.monotonic()
    with pytest.raises(MediaRejected) as caught:
        normalize_clip(src, tmp_path / "out.mp4", lying)

    assert caught.value.reason == errors.VIDEO_TIMEOUT
    assert "CPU time limit" in caught.value.detail
    assert time.monotonic() - started < 20  # hang guard
    assert not (tmp_path / "out.mp4").exists()
