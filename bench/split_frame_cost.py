"""CPU cost of a split shot's frame against a plain photo shot's: milliseconds per frame per
aspect (:mod:`media.frames.split`).

``.venv/bin/python -m bench.split_frame_cost [--photos samples/birthday/photos] [--pick 0 1]
[--frames 120] [--repeat 3]``

Two real sample photos (``--pick``: their places in the folder, sorted by name) are prepared
as the render prepares them (:class:`SourcePreparer`): one plain photo shot (a Ken Burns move,
as most photo shots) and one split shot of the same photo with a partner (side by side in
16:9, stacked in 9:16), both ``--frames`` long. Every frame of each is composed ``--repeat``
times for each aspect and the process CPU time per frame is printed (the best repeat), with
the split's cost as a multiple of the plain shot's. OpenCV runs on the render's own thread
count. CPU time, not wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2

from media.base import spec
from media.cards.spec import CardSpec
from media.frames.render import COMPOSE_OPENCV_THREADS
from media.frames.sources import Prepared, SourcePreparer
from media.plan.layouts import SPLIT
from media.plan.timeline import KEN_BURNS, Shot, Timeline, Transition

DEFAULT_PHOTOS = Path("samples/birthday/photos")


def _timeline(frames: int, first: str, second: str) -> Timeline:
    """A film of one plain shot of ``first`` and one split shot of ``first`` beside ``second``
    (cards around them, as the preparer expects a film)."""
    card = CardSpec("opening", ("Bench",))
    shots = (Shot("card", None, 0, 2, 0, 2, Transition(), card=card),
             Shot("photo", first, 2, 2 + frames, 2, 2 + frames, Transition(), KEN_BURNS,
                  move="push_in"),
             Shot("photo", first, 2 + frames, 2 + 2 * frames, 2 + frames, 2 + 2 * frames,
                  Transition(), KEN_BURNS, move="push_in", layout=SPLIT, partner_id=second))
    return Timeline(spec.FPS, 2 + 2 * frames, (2 + 2 * frames) / spec.FPS, "gift", False,
                    shots, 0, 0)


def _cpu_ms_per_frame(prepared: Prepared, aspect: spec.Aspect, frames: int,
                      repeat: int) -> float:
    """The best of ``repeat`` passes over every frame: process CPU milliseconds per frame."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for index in range(frames):
            prepared.frame(aspect, index)
        best = min(best, (time.process_time() - start) * 1000 / frames)
    return best


def main() -> None:
    """Prepare the two shots from the sample photos and print the costs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS)
    parser.add_argument("--pick", type=int, nargs=2, default=(0, 1))
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = sorted(p for p in args.photos.iterdir() if p.suffix.lower() in (".jpg", ".png"))
    ids = {paths[i].stem: paths[i] for i in args.pick}
    first, second = list(ids)
    timeline = _timeline(args.frames, first, second)
    cv2.setNumThreads(COMPOSE_OPENCV_THREADS)
    preparer = SourcePreparer(timeline, spec.ASPECTS, ids, {}, time.monotonic() + 600)
    plain, split = preparer.prepare(1), preparer.prepare(2)
    print(f"photos {first} (+ {second}), {args.frames} frames, best of {args.repeat}")
    for aspect in spec.ASPECTS:
        a = _cpu_ms_per_frame(plain, aspect, args.frames, args.repeat)
        b = _cpu_ms_per_frame(split, aspect, args.frames, args.repeat)
        print(f"{aspect.name}: plain {a:6.2f} ms/frame  split {b:6.2f} ms/frame  "
              f"split/plain {b / a:4.2f}x")


if __name__ == "__main__":
    main()
