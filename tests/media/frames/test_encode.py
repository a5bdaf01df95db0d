"""Encoders and clip readers: encoder command lines, frames through a pipe, clip decoding and
failing encoders (media.frames.encode)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from bench.exact_floor import raw_writer_argv, x264_options
from media.base import spec, yuv
from media.base.runner import Limits, ToolError, ffmpeg_argv, run_tool
from media.frames.encode import (
    ENCODER_INPUT_QUEUE,
    ClipReader,
    FilmSound,
    audio_encoder_args,
    decoder_argv,
    encoder_argv,
    encoder_threads,
    open_encoders,
    probe_size,
    sample_frame,
    write_frame,
)
from media.frames.stall import StallWatch

pytestmark = pytest.mark.render

ENCODER = spec.EncoderSettings(preset="superfast")
LIMITS = Limits(timeout_s=60)


def _testsrc_clip(path: Path, seconds: float = 2.0) -> Path:
    """A 640x360 30 fps H.264 clip of ffmpeg's colour bars, BT.709 tagged."""
    run_tool(ffmpeg_argv("-f", "lavfi", "-i", "testsrc=size=640x360:rate=30", "-t", str(seconds),
                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                         "-colorspace", "bt709", "-color_primaries", "bt709",
                         "-color_trc", "bt709", "-color_range", "tv", str(path)), LIMITS)
    return path


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (4, 2), (8, 4), (64, 4)])
def test_encoders_share_the_usable_cores(cores: int, threads: int) -> None:
    assert encoder_threads(aspects=2, cores=cores) == threads


def test_encoder_holds_few_raw_frames_and_threads_as_the_cores_allow(tmp_path: Path) -> None:
    argv = encoder_argv(spec.ASPECTS[0], FilmSound(tmp_path / "song.wav", 900), tmp_path / "a.mp4",
                        ENCODER)
    pipe = argv.index("pipe:0")
    assert argv[pipe - 3:pipe - 1] == ["-thread_queue_size", str(ENCODER_INPUT_QUEUE)]
    assert argv[argv.index("-threads") + 1] == str(encoder_threads())
    assert argv[argv.index("-filter_threads") + 1] == "1"


def _written_through_a_pipe(frame: np.ndarray) -> bytes:
    """What :func:`write_frame` puts into a real pipe for ``frame``, read on a thread."""
    read_fd, write_fd = os.pipe()
    chunks: list[bytes] = []

    def drain() -> None:
        while chunk := os.read(read_fd, 1 << 16):
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        write_frame(write_fd, frame)
    finally:
        os.close(write_fd)
        reader.join(timeout=30)
        os.close(read_fd)
    return b"".join(chunks)


@pytest.mark.parametrize("view", ["whole", "crop", "strided"])
def test_a_frame_reaches_the_pipe_row_by_row_whatever_its_memory_layout(view: str) -> None:
    big = np.random.default_rng(7).integers(0, 256, (1100, 1950, 3), dtype=np.uint8)
    frame = {"whole": big[:1080, :1920].copy(), "crop": big[13:1093, 17:1937],
             "strided": big[:1080, ::2][:, :960]}[view]
    assert _written_through_a_pipe(frame) == np.ascontiguousarray(frame).tobytes()


def test_a_frame_written_in_part_by_writev_is_finished_where_it_stopped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real_writev = os.writev

    def short_writev(fd: int, buffers: list) -> int:  # a real write, but of 1000 bytes at most
        return real_writev(fd, [memoryview(buffers[0]).cast("B")[:1000]])

    monkeypatch.setattr(os, "writev", short_writev)
    frame = np.random.default_rng(8).integers(0, 256, (40, 1950, 3), dtype=np.uint8)[:, 7:1927]
    assert _written_through_a_pipe(frame) == np.ascontiguousarray(frame).tobytes()


def test_delivered_sound_is_aac_at_48_khz_stereo_fitted_to_the_picture(tmp_path: Path) -> None:
    args = audio_encoder_args(FilmSound(tmp_path / "song.wav", 900))
    assert args[args.index("-af") + 1] == "apad=whole_len=1440000,atrim=end_sample=1440000"
    assert "-shortest" not in args
    assert args[args.index("-c:a") + 1] == "aac"
    assert args[args.index("-ar") + 1] == str(spec.AUDIO_SAMPLE_RATE) == "48000"
    assert args[args.index("-ac") + 1] == str(spec.AUDIO_CHANNELS) == "2"


def test_the_encoder_reads_yuv420p_tagged_bt709_limited_and_converts_nothing(
        tmp_path: Path) -> None:
    argv = encoder_argv(spec.LANDSCAPE, None, tmp_path / "a.mp4", ENCODER)
    before_input = argv[:argv.index("pipe:0")]
    assert before_input[before_input.index("-pix_fmt") + 1] == yuv.PIX_FMT == "yuv420p"
    for flag, value in (("-color_range", "tv"), ("-colorspace", "bt709"),
                        ("-color_primaries", "bt709"), ("-color_trc", "bt709")):
        assert before_input[before_input.index(flag) + 1] == value
    assert "-vf" not in argv and "-filter:v" not in argv  # no scale, no format conversion


def test_black_i420_frames_encode_to_limited_range_black(tmp_path: Path) -> None:
    aspect = spec.Aspect("small16x9", 320, 180)
    film = tmp_path / "black.mp4"
    with open_encoders((aspect,), None, {aspect.name: film}, ENCODER, StallWatch(60)) as feeds:
        for _ in range(3):
            feeds[aspect.name].put(yuv.black(aspect.width, aspect.height))
        feeds[aspect.name].finish()
    decoded = run_tool(ffmpeg_argv("-i", str(film), "-frames:v", "1", "-f", "rawvideo",
                                   "-pix_fmt", "yuv420p", "pipe:1"), LIMITS).stdout
    y, u, v = yuv.planes(np.frombuffer(decoded, np.uint8).reshape(yuv.frame_shape(320, 180)))
    assert y.min() == y.max() == 16 and u.min() == u.max() == v.min() == v.max() == 128


def test_the_encoder_takes_preset_crf_and_keyframe_interval_from_its_settings(
        tmp_path: Path) -> None:
    argv = encoder_argv(spec.LANDSCAPE, None, tmp_path / "a.mp4", spec.EncoderSettings())
    assert argv[argv.index("-preset") + 1] == spec.X264_PRESET
    assert argv[argv.index("-crf") + 1] == str(spec.X264_CRF)
    assert argv[argv.index("-g") + 1] == str(spec.GOP_FRAMES)
    assert argv[argv.index("-x264-params") + 1] == f"sync-lookahead=0:{spec.X264_PARAMS}"
    chosen = encoder_argv(spec.LANDSCAPE, None, tmp_path / "a.mp4",
                          spec.EncoderSettings(preset="veryfast", params=""))
    assert chosen[chosen.index("-preset") + 1] == "veryfast"
    assert chosen[chosen.index("-x264-params") + 1] == "sync-lookahead=0"


def test_the_faster_preset_keeps_the_macroblock_tree_and_its_lookahead(tmp_path: Path) -> None:
    # superfast alone turns both off, which doubled a film's bytes at the same CRF (issue 43)
    aspect = spec.Aspect("small16x9", 320, 180)
    film = tmp_path / "film.mp4"
    with open_encoders((aspect,), None, {aspect.name: film},
                       spec.EncoderSettings(preset="superfast"),
                       StallWatch(60)) as feeds:
        for _ in range(12):
            feeds[aspect.name].put(yuv.black(aspect.width, aspect.height))
        feeds[aspect.name].finish()
    options = dict(item.split("=", 1) for item in x264_options(film).split() if "=" in item)
    assert (options["mbtree"], options["rc_lookahead"]) == ("1", "10")
    assert (options["me"], options["subme"]) == ("dia", "1")  # superfast's search


def test_segment_encoder_without_audio_maps_only_the_video(tmp_path: Path) -> None:
    argv = encoder_argv(spec.LANDSCAPE, None, tmp_path / "a.mp4", ENCODER)
    assert argv.count("-i") == 1
    assert "-c:a" not in argv and "-shortest" not in argv
    assert argv[argv.index("-s") + 1] == "1920x1080"
    assert argv[-1] == str(tmp_path / "a.mp4")


def test_decoder_never_seeks_before_the_start(tmp_path: Path) -> None:
    argv = decoder_argv(tmp_path / "c.mp4", -0.4, 12)
    assert argv[argv.index("-ss") + 1] == "0.000"
    assert argv[argv.index("-frames:v") + 1] == "12"


def test_clip_size_and_a_sample_frame_are_read_from_the_clip(tmp_path: Path) -> None:
    clip = _testsrc_clip(tmp_path / "c.mp4")
    size = probe_size(clip, LIMITS)
    assert size == (640, 360)
    frame = sample_frame(clip, 1.0, size, LIMITS)
    assert frame is not None and frame.shape == (360, 640, 3)
    assert frame.std() > 40  # colour bars, not a flat frame
    assert sample_frame(clip, 30.0, size, LIMITS) is None  # past the end


def test_clip_reader_gives_the_frames_asked_for_then_none(tmp_path: Path) -> None:
    reader = ClipReader(_testsrc_clip(tmp_path / "c.mp4"), 0.5, 10, (640, 360), LIMITS)
    try:
        frames = [reader.next(time.monotonic() + 30) for _ in range(11)]
    finally:
        reader.close()
    assert all(f is not None and f.shape == (360, 640, 3) for f in frames[:10])
    assert frames[10] is None


def test_clip_reader_decodes_i420_as_the_clip_holds_it(tmp_path: Path) -> None:
    clip = _testsrc_clip(tmp_path / "c.mp4")
    frames = {}
    for pix_fmt in ("yuv420p", "rgb24"):
        reader = ClipReader(clip, 0.5, 3, (640, 360), LIMITS, pix_fmt)
        try:
            frames[pix_fmt] = [reader.next(time.monotonic() + 30) for _ in range(3)]
        finally:
            reader.close()
    plain = run_tool(ffmpeg_argv("-ss", "0.500", "-i", str(clip), "-frames:v", "3", "-f",
                                 "rawvideo", "-pix_fmt", "yuv420p", "pipe:1"), LIMITS).stdout
    assert b"".join(f.tobytes() for f in frames["yuv420p"]) == plain  # the clip's own planes
    for planar, rgb in zip(frames["yuv420p"], frames["rgb24"], strict=True):
        assert planar is not None and rgb is not None
        assert planar.shape == yuv.frame_shape(640, 360)
        # RGB was a detour (chroma upsampled, then averaged again): close, not equal
        assert yuv.psnr(planar, yuv.rgb_to_i420(rgb)) >= 35


def test_clip_reader_raises_when_nothing_decodes(tmp_path: Path) -> None:
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not a video at all")
    reader = ClipReader(broken, 0.0, 5, (640, 360), LIMITS)
    try:
        with pytest.raises(ToolError):
            reader.next(time.monotonic() + 30)
    finally:
        reader.close()


def test_encoder_factory_uses_the_command_line_it_is_given(tmp_path: Path) -> None:
    aspect = spec.LANDSCAPE
    outputs = {aspect.name: tmp_path / "a.yuv"}
    frame = np.full(yuv.frame_shape(aspect.width, aspect.height), 77, np.uint8)
    with open_encoders((aspect,), None, outputs, ENCODER, StallWatch(60),
                       argv_for=raw_writer_argv) as feeds:
        for _ in range(2):
            feeds[aspect.name].put(frame)
        feeds[aspect.name].finish()
    assert outputs[aspect.name].read_bytes() == frame.tobytes() * 2


def test_encoder_past_its_output_bytes_fails_with_its_error(tmp_path: Path) -> None:
    aspect = spec.LANDSCAPE
    frame = yuv.black(aspect.width, aspect.height)
    with pytest.raises(ToolError), open_encoders(
            (aspect,), None, {aspect.name: tmp_path / "a.yuv"}, ENCODER, StallWatch(60),
            argv_for=raw_writer_argv, output_file_bytes=frame.nbytes // 2) as feeds:
        for _ in range(4):
            feeds[aspect.name].put(frame)
        feeds[aspect.name].finish()
