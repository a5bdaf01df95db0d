"""CPU cost of the title and closing cards' frames: milliseconds per card frame per aspect.

``.venv/bin/python -m bench.card_frame_cost [--workdir DIR] [--length 30] [--tier standard]
[--repeat 3]``

The cards are the sample order's own (its timeline and photos, as the render prepares them):
the case is run once through render into ``--workdir`` (kept there, reused by later runs).
Each card's every frame is then made for each aspect, ``--repeat`` times, and the process CPU
time (all threads) per frame is printed for each frame function the module has:
:func:`media.cards.motion.card_frame` and, where present, ``card_frame_rgb`` (the RGB path).
The one-time preparation (drawing the card, and converting it) is timed apart. OpenCV runs on
the render's own thread count (:data:`media.frames.render.COMPOSE_OPENCV_THREADS`). Use CPU time,
not
wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from media.base import spec
from media.cards import motion as card_motion
from media.frames.render import COMPOSE_OPENCV_THREADS
from media.frames.sources import PreparedCard, SourcePreparer
from media.plan.timeline import timeline_from_dict


def _artifacts(workdir: Path, length: int, tier: str) -> Path:
    artifacts = workdir / "artifacts"
    if not (artifacts / "timeline.json").exists():
        from bench.cases import CaseSpec, run_case

        run_case(CaseSpec(length, tier, stop_after="render"), workdir)
    return artifacts


def _cards(artifacts: Path) -> list[tuple[int, PreparedCard]]:
    timeline = timeline_from_dict(json.loads((artifacts / "timeline.json").read_text("utf-8")))
    photos = {p.stem: p for p in (artifacts / "photos").glob("*.jpg")}
    preparer = SourcePreparer(timeline, spec.ASPECTS, photos, {}, time.monotonic() + 600)
    cards = []
    for index, shot in enumerate(timeline.shots):
        if shot.kind == "card":
            prepared = preparer.prepare(index)
            assert isinstance(prepared, PreparedCard)
            cards.append((index, prepared))
    return cards


def _cpu_ms(call: Callable[[], Any], count: int) -> float:
    start = time.process_time()
    call()
    return (time.process_time() - start) * 1000 / count


def _frames_cpu_ms(frame_of: Callable[..., np.ndarray], image: Any, frames: int,
                   entrance: float | None, repeat: int) -> float:
    """CPU ms per frame of making every one of a card's ``frames`` ``repeat`` times."""
    def run() -> None:
        for _ in range(repeat):
            for i in range(frames):
                frame_of(image, i / spec.FPS, frames / spec.FPS, entrance)
    return _cpu_ms(run, frames * repeat)


def main() -> None:
    """Print the CPU milliseconds per card frame per aspect of each card of the sample."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/card_frame_cost"))
    parser.add_argument("--length", type=int, default=30)
    parser.add_argument("--tier", default="standard")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cards = _cards(_artifacts(args.workdir, args.length, args.tier))
    cv2.setNumThreads(COMPOSE_OPENCV_THREADS)
    functions = {"card_frame": card_motion.card_frame}
    if hasattr(card_motion, "card_frame_rgb"):
        functions["card_frame_rgb"] = card_motion.card_frame_rgb
    totals: dict[str, list[float]] = {name: [0.0, 0] for name in functions}  # type: ignore[misc]
    for index, card in cards:
        entrance = None if card.delay is None else card.delay / spec.FPS
        for aspect in spec.ASPECTS:
            image = card.images[aspect.name]
            if hasattr(type(image), "i420"):  # (hasattr on the instance would convert)
                prep = _cpu_ms(lambda image=image: image.i420, 1)
                print(f"card {index} {aspect.name}: one-time I420 conversion {prep:.1f} ms")
            for name, frame_of in functions.items():
                ms = _frames_cpu_ms(frame_of, image, card.frames, entrance, args.repeat)
                totals[name][0] += ms * card.frames
                totals[name][1] += card.frames
                print(f"card {index} {aspect.name} {name}: {ms:.2f} CPU ms/frame "
                      f"({card.frames} frames x {args.repeat})")
    for name, (ms_sum, frames) in totals.items():
        print(f"{name}: {ms_sum / frames:.2f} CPU ms per card frame per aspect "
              f"({int(frames)} card frames), {ms_sum / 1000:.2f} CPU s per film")


if __name__ == "__main__":
    main()
