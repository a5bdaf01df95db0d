"""The exact floor (bench.exact_floor) follows issue 22's definition: the encode alone of the
film's frames from raw yuv420p with the product's exact x264 settings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.exact_floor import (
    FLOOR_PIX_FMT,
    file_encoder_argv,
    floor_encoder_argv,
    options_differences,
    piped_pix_fmt,
    tap_writer_argv,
    x264_options,
)
from media.base import spec
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.frames.encode import encoder_argv

ENCODER = spec.EncoderSettings()  # the deployed default (no FILM_ENCODER_PRESET)
FRAMES = spec.GOP_FRAMES + 15  # more than one GOP, so keyframe placement is compared too
LIMITS = Limits(timeout_s=300)


def _piped_frames(aspect: spec.Aspect, path: Path) -> Path:
    """``FRAMES`` moving test-pattern frames of ``aspect`` in the format the product's encoder
    reads on its pipe, as one raw file."""
    run_tool(ffmpeg_argv("-f", "lavfi", "-i",
                         f"testsrc2=size={aspect.width}x{aspect.height}:rate={spec.FPS}",
                         "-frames:v", str(FRAMES), "-f", "rawvideo",
                         "-pix_fmt", piped_pix_fmt(ENCODER), str(path)), LIMITS)
    return path


def _video_md5(film: Path) -> str:
    """MD5 of the film's encoded video stream (the H.264 bitstream itself, not decoded)."""
    out = run_tool(ffmpeg_argv("-i", str(film), "-map", "0:v:0", "-c", "copy", "-f", "md5",
                               "-"), LIMITS).stdout
    return out.decode().strip() if isinstance(out, bytes) else str(out).strip()


@pytest.fixture(scope="module")
def encodes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same frames encoded by the product's encoder (from its piped format) and by the
    floor (tapped to raw yuv420p first, then encoded from the file)."""
    tmp = tmp_path_factory.mktemp("floor")
    aspect = spec.LANDSCAPE
    source = _piped_frames(aspect, tmp / "piped.raw")
    product = tmp / "product.mp4"
    run_tool(file_encoder_argv(aspect, source, None, product, ENCODER),  # type: ignore[arg-type]
             LIMITS)
    tapped = tmp / "tapped.yuv"
    tap = tap_writer_argv(aspect, None, tapped, ENCODER)
    tap[tap.index("pipe:0")] = str(source)
    run_tool(tap, LIMITS)
    floor = tmp / "floor.mp4"
    run_tool(file_encoder_argv(aspect, tapped, None, floor, ENCODER,  # type: ignore[arg-type]
                               floor_encoder_argv), LIMITS)
    return {"source": source, "tapped": tapped, "product": product, "floor": floor}


def test_tap_writes_raw_yuv420p_of_every_frame(encodes: dict[str, Path]) -> None:
    aspect = spec.LANDSCAPE
    assert encodes["tapped"].stat().st_size == aspect.width * aspect.height * 3 // 2 * FRAMES


def test_floor_encode_of_the_tapped_frames_is_bit_identical_to_the_product_encode(
        encodes: dict[str, Path]) -> None:
    """Same frames into x264, same settings: the same H.264 bitstream. So the tap's conversion
    is exactly the product encoder's, and the floor's encoder differs only in its input."""
    assert _video_md5(encodes["floor"]) == _video_md5(encodes["product"])


def test_floor_and_product_log_the_same_x264_settings(encodes: dict[str, Path]) -> None:
    ours, theirs = x264_options(encodes["floor"]), x264_options(encodes["product"])
    assert options_differences(ours, theirs) == {}
    argv = encoder_argv(spec.LANDSCAPE, None, Path("x.mp4"), ENCODER)
    keyint = argv[argv.index("-g") + 1]
    crf = float(argv[argv.index("-crf") + 1])
    threads = argv[argv.index("-threads") + 1]
    assert re.search(rf"(^| )keyint={keyint}( |$)", ours)
    assert re.search(rf"(^| )crf={crf:.1f}( |$)", ours)
    assert (int(keyint), crf) == (spec.GOP_FRAMES, spec.X264_CRF)  # the output spec's, once
    assert re.search(rf"(^| )threads={threads}( |$)", ours)
    for setting in ("bframes", "rc_lookahead", "subme", "ref"):  # the preset's choices
        assert re.search(rf"(^| ){setting}=", ours)


def test_floor_encoder_reads_yuv420p_and_converts_nothing() -> None:
    argv = floor_encoder_argv(spec.PORTRAIT, None, Path("x.mp4"), ENCODER)
    head = argv[:argv.index("pipe:0")]
    assert head[head.index("-pix_fmt") + 1] == FLOOR_PIX_FMT
    assert "-vf" not in argv and "-filter_complex" not in argv


def test_options_differences_names_what_changed() -> None:
    assert options_differences("crf=20.0 keyint=60 threads=1", "crf=23.0 keyint=60") == {
        "crf": ("20.0", "23.0"), "threads": ("1", None)}


def test_tap_copies_the_renders_yuv420p_frames_without_converting() -> None:
    argv = tap_writer_argv(spec.PORTRAIT, None, Path("x.yuv"), ENCODER)
    assert piped_pix_fmt(ENCODER) == FLOOR_PIX_FMT
    assert "-vf" not in argv
    assert argv[argv.index("x.yuv") - 4:argv.index("x.yuv")] == ["-c:v", "copy", "-f",
                                                                    "rawvideo"]
