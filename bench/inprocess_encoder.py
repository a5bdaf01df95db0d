"""Would encoding in the worker's own process reach the render target? Piped versus in-process.

The product pipes every composed frame to one ffmpeg process per aspect. A pipe costs a copy
into the kernel and another out of it (about 3 MB per frame and aspect), which the strict floor,
reading its frames from a file, does not pay. This bench measures the design that removes it:
libx264 inside the worker process (PyAV, ``pip install av``; not a product dependency), one
encoder thread per aspect fed the composed I420 frames through a bounded queue
(:func:`inprocess_encoders`, a :class:`media.frames.encode.EncoderFactory`).

PyAV brings its own FFmpeg and x264 build, so the comparison is two pairs, each against its
own floor: the product's piped render loop against the strict floor (the product's encoder
reading the raw frames from a file, :func:`bench.exact_floor.encode_from_raw`), and the
in-process render loop against the same libx264 encoding the same raw frames in process
(:func:`encode_raw_inprocess`). Settings come from :func:`media.frames.encode.encoder_argv`
(:func:`codec_settings`), and each round prints both builds' x264 options strings, which must
agree. All four encodes are video only (the soundtrack's AAC costs both sides the same).

``.venv/bin/python -m bench.inprocess_encoder RESULTS_JSON CASE --rounds N`` (the run must have
kept its workdir: ``--workdir``; the case's raw frames are tapped once into a scratch folder,
3.1 MB per frame and aspect).
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.exact_floor import (
    _case_inputs,
    _option_after,
    encode_from_raw,
    floor_encoder_argv,
    options_differences,
    run_dir,
    saved_case,
    scratch_dir,
    tap_frames,
    x264_options,
)
from bench.measure import Measured, measure
from media.base import spec, yuv
from media.frames.encode import FilmSound, encoder_argv
from media.frames.render import render_films
from media.frames.sources import FilmSources
from media.frames.stall import StallWatch

QUEUE_FRAMES = 4  # frames waiting for each in-process encoder (as the product's feed)
# AVCodecContext colour enums for the spec's BT.709 limited range (libavutil/pixfmt.h).
BT709, LIMITED_RANGE = 1, 1


def codec_settings(aspect: spec.Aspect, settings: spec.EncoderSettings) -> dict[str, Any]:
    """The product's libx264 settings for ``aspect`` (read from
    :func:`media.frames.encode.encoder_argv` at ``settings``, so they cannot drift) as PyAV
    takes them: private ``options``, ``gop_size`` and ``thread_count``."""
    argv = encoder_argv(aspect, None, Path("film.mp4"), settings)
    output = argv[argv.index("pipe:0"):]
    flags = ("-preset", "-crf", "-profile:v", "-x264-params", "-g", "-threads")
    given = {flag: _option_after(output, flag) for flag in flags}
    missing = [flag for flag, value in given.items() if value is None]
    if missing:
        raise ValueError(f"encoder_argv names no {missing}")
    return {"options": {"preset": given["-preset"], "crf": given["-crf"],
                        "profile": given["-profile:v"], "x264-params": given["-x264-params"]},
            "gop_size": int(given["-g"] or 0),
            "thread_count": int(given["-threads"] or 0)}


class _Encoder:
    """One aspect's libx264 in this process, writing ``out_path`` (video-only MP4)."""

    def __init__(self, aspect: spec.Aspect, out_path: Path,
                 encoder: spec.EncoderSettings) -> None:
        import av  # the bench's own extra, not a product dependency

        self._av = av
        settings = codec_settings(aspect, encoder)
        self.container = av.open(str(out_path), "w", options={"movflags": "+faststart"})
        self.stream = self.container.add_stream("libx264", rate=spec.FPS)
        self.stream.width, self.stream.height = aspect.width, aspect.height
        self.stream.pix_fmt = yuv.PIX_FMT
        context = self.stream.codec_context
        context.gop_size = settings["gop_size"]
        context.thread_count = settings["thread_count"]
        context.options = settings["options"]
        context.color_range = LIMITED_RANGE
        context.colorspace = context.color_primaries = context.color_trc = BT709

    def encode(self, i420: np.ndarray | None) -> None:
        """Encode one I420 frame (None: flush and close the file)."""
        frame = (None if i420 is None else
                 self._av.VideoFrame.from_ndarray(np.ascontiguousarray(i420), format=yuv.PIX_FMT))
        for packet in self.stream.encode(frame):
            self.container.mux(packet)
        if i420 is None:
            self.container.close()


class InProcessFeed:
    """:class:`media.frames.encode.EncoderFeed`'s interface over an in-process encoder thread."""

    def __init__(self, aspect: spec.Aspect, out_path: Path,
                 settings: spec.EncoderSettings) -> None:
        self.wait_s = 0.0
        self.error: BaseException | None = None
        self._encoder = _Encoder(aspect, out_path, settings)
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=QUEUE_FRAMES)
        self._thread = threading.Thread(target=self._run, name=f"x264-{aspect.name}",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while (frame := self._queue.get()) is not None:
                self._encoder.encode(frame)
            self._encoder.encode(None)
        except BaseException as exc:  # handed to the render thread by put() and finish()
            self.error = exc

    def put(self, frame: np.ndarray | None) -> None:
        """Queue a frame (None ends the stream)."""
        started = time.monotonic()
        self._queue.put(frame)
        self.wait_s += time.monotonic() - started
        if self.error is not None:
            raise self.error

    def finish(self) -> None:
        """End the stream and wait for the encoder to close its file."""
        self.put(None)
        self._thread.join()
        if self.error is not None:
            raise self.error


@contextlib.contextmanager
def inprocess_encoders(aspects: tuple[spec.Aspect, ...], sound: FilmSound | None,
                       outputs: dict[str, Path], settings: spec.EncoderSettings,
                       watch: StallWatch) -> Iterator[dict[str, InProcessFeed]]:
    """A :class:`media.frames.encode.EncoderFactory` encoding in this process (video only: the bench
    compares like with like, so ``sound`` must be None; the bench waits on it unwatched)."""
    if sound is not None:
        raise ValueError("the in-process encoder of this bench writes video only")
    yield {a.name: InProcessFeed(a, outputs[a.name], settings) for a in aspects}


def encode_raw_inprocess(raws: dict[str, Path], outputs: dict[str, Path],
                         settings: spec.EncoderSettings) -> None:
    """Every aspect's raw I420 frames read from file and encoded at once, in process."""
    def encode(aspect: spec.Aspect) -> None:
        encoder = _Encoder(aspect, outputs[aspect.name], settings)
        shape = yuv.frame_shape(aspect.width, aspect.height)
        buffer = bytearray(int(np.prod(shape)))
        with open(raws[aspect.name], "rb", buffering=0) as raw:
            while raw.readinto(buffer) == len(buffer):
                encoder.encode(np.frombuffer(buffer, np.uint8).reshape(shape))
        encoder.encode(None)

    threads = [threading.Thread(target=encode, args=(a,)) for a in spec.ASPECTS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _measured(call: Callable[[], Any]) -> Measured:
    with measure() as measured:
        call()
    return measured


def compare_rounds(workdir: Path, settings: spec.EncoderSettings,
                   rounds: int) -> list[dict[str, float]]:
    """``rounds`` of the four encodes of the case's film, back to back; wall and CPU seconds
    of each by name, printed with each pair's ratios."""
    timeline, photos, clips, subjects, logo = _case_inputs(run_dir(workdir / "storage"))
    results = []
    with scratch_dir(workdir) as scratch:
        raws = tap_frames(run_dir(workdir / "storage"), scratch)

        def films(tag: str) -> dict[str, Path]:
            return {a.name: scratch / f"{tag}-{a.name}.mp4" for a in spec.ASPECTS}

        def render(encoders: Any, tag: str) -> Callable[[], Any]:
            return lambda: render_films(timeline, FilmSources(photos, clips, subjects, logo),
                                        films(tag), encoder=settings,
                                        **({"encoders": encoders} if encoders else {}))

        runs = {"piped floor": lambda: encode_from_raw(raws, None, films("pf"), settings,
                                                       floor_encoder_argv),
                "piped render": render(None, "pr"),
                "in-process floor": lambda: encode_raw_inprocess(raws, films("if"), settings),
                "in-process render": render(inprocess_encoders, "ir")}
        for number in range(1, rounds + 1):
            measured = {name: _measured(call) for name, call in runs.items()}
            results.append({f"{name} {kind}": getattr(m, kind) for name, m in measured.items()
                            for kind in ("wall_s", "cpu_s")})
            _print_round(number, measured)
        _print_settings(films("pf")[spec.LANDSCAPE.name], films("if")[spec.LANDSCAPE.name])
    return results


def _print_round(number: int, measured: dict[str, Measured]) -> None:
    parts = [f"{name} {m.wall_s:.1f} s ({m.cpu_s:.1f} cpu)" for name, m in measured.items()]
    ratios = []
    for kind in ("piped", "in-process"):
        render, floor = measured[f"{kind} render"], measured[f"{kind} floor"]
        ratios.append(f"{kind} render/floor {render.wall_s / floor.wall_s:.3f}")
    print(f"round {number}: " + ", ".join(parts) + "; " + ", ".join(ratios), flush=True)


def _print_settings(piped: Path, inprocess: Path) -> None:
    differences = options_differences(x264_options(piped), x264_options(inprocess))
    print(f"x264 options, product build vs PyAV's: {differences or 'identical'}")


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: rounds of the piped and in-process pairs on a saved run's case."""
    parser = argparse.ArgumentParser(prog="python -m bench.inprocess_encoder",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a bench/results JSON with a kept workdir")
    parser.add_argument("case", help="case label, e.g. 30s-standard")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    workdir, case = saved_case(args.results, args.case)
    results = compare_rounds(workdir, spec.EncoderSettings(preset=case["preset"]), args.rounds)
    for kind in ("piped", "in-process"):
        ratios = [r[f"{kind} render wall_s"] / r[f"{kind} floor wall_s"] for r in results]
        print(f"{kind}: render loop/its floor {min(ratios):.3f}-{max(ratios):.3f}, "
              f"mean {sum(ratios) / len(ratios):.3f} over {len(ratios)} rounds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
