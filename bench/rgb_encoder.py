"""The product's encoder reading rgb24 frames, for the benchmarks that pipe RGB (MoviePy, the
mosaic and resample floors): every x264 and output setting of
:func:`media.frames.encode.encoder_argv`, with swscale converting full-range RGB to BT.709
limited-range yuv420p as renders did before they composed I420. The product pipes yuv420p only.
"""

from __future__ import annotations

from pathlib import Path

from media.base import spec, yuv
from media.frames.encode import FilmSound, encoder_argv

RGB_PIX_FMT = "rgb24"
RGB_TO_YUV = "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"
_INPUT_TAGS = ("-color_range", "-colorspace", "-color_primaries", "-color_trc")


def rgb_encoder_argv(aspect: spec.Aspect, sound: FilmSound | None, out_path: Path,
                     settings: spec.EncoderSettings) -> list[str]:
    """:func:`media.frames.encode.encoder_argv` reading rgb24 frames on stdin: the input's
    BT.709 tags dropped (RGB has no matrix), its pixel format rgb24, one scale filter before
    the encoder."""
    argv = encoder_argv(aspect, sound, out_path, settings)
    pipe = argv.index("pipe:0")
    head, tail = argv[:pipe + 1], argv[pipe + 1:]
    for flag in _INPUT_TAGS:
        at = head.index(flag)
        del head[at:at + 2]
    pix = head.index("-pix_fmt")
    if head[pix + 1] != yuv.PIX_FMT:
        raise ValueError(f"the product's encoder reads {head[pix + 1]}, not {yuv.PIX_FMT}")
    head[pix + 1] = RGB_PIX_FMT
    codec = tail.index("-c:v")
    return [*head, *tail[:codec], "-vf", RGB_TO_YUV, *tail[codec:]]
