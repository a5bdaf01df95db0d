"""CPU cost of a layout shot's frame (split, triptych, inset) against a plain photo shot's:
milliseconds per frame per aspect (:mod:`media.frames.split`).

``.venv/bin/python -m bench.split_frame_cost [--photos samples/birthday/photos]
[--pick 0 1 2] [--frames 120] [--repeat 3]``

Three real sample photos (``--pick``: their places in the folder, sorted by name) are prepared
as the render prepares them (:class:`SourcePreparer`): one plain photo shot of the first (a Ken
Burns move, as most photo shots), a split of it with the second (side by side in 16:9, stacked
in 9:16), a triptych of the three (columns, rows) and an inset print of it over the second, all
``--frames`` long. Every frame of each is composed ``--repeat`` times for each aspect and the
process CPU time per frame is printed (the best repeat), with each layout's cost as a multiple
of the plain shot's. OpenCV runs on the render's own thread count. CPU time, not wall time:
the machine is shared.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2

from media.base import spec
from media.cards.spec import CardSpec
from media.frames.preparer import SourcePreparer
from media.frames.render import COMPOSE_OPENCV_THREADS
from media.frames.sources import FilmSources, Prepared
from media.frames.stall import StallWatch
from media.plan.layout_kinds import INSET, SPLIT, TRIPTYCH
from media.plan.timeline import KEN_BURNS, Shot, Timeline, Transition

DEFAULT_PHOTOS = Path("samples/birthday/photos")


def _timeline(frames: int, first: str, second: str, third: str) -> Timeline:
    """A film of one plain shot of ``first`` and one shot of each layout around it (cards
    around them, as the preparer expects a film)."""
    card = CardSpec("opening", ("Bench",))
    layouts = (("", None, None), (SPLIT, second, None), (TRIPTYCH, second, third),
               (INSET, second, None))
    shots = [Shot("card", None, 0, 2, 0, 2, Transition(), card=card)]
    for k, (layout, partner, other) in enumerate(layouts):
        start = 2 + k * frames
        shots.append(Shot("photo", first, start, start + frames, start, start + frames,
                          Transition(), KEN_BURNS, move="push_in", layout=layout,
                          partner_id=partner, second_partner_id=other))
    end = 2 + len(layouts) * frames
    return Timeline(spec.FPS, end, end / spec.FPS, "gift", False, tuple(shots), 0, 0)


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
    parser.add_argument("--pick", type=int, nargs=3, default=(0, 1, 2))
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = sorted(p for p in args.photos.iterdir() if p.suffix.lower() in (".jpg", ".png"))
    ids = {paths[i].stem: paths[i] for i in args.pick}
    first, second, third = list(ids)
    timeline = _timeline(args.frames, first, second, third)
    cv2.setNumThreads(COMPOSE_OPENCV_THREADS)
    preparer = SourcePreparer(timeline, spec.ASPECTS, FilmSources(ids), StallWatch(600))
    shots = [preparer.prepare(i) for i in range(1, 5)]
    print(f"photos {first} (+ {second}, {third}), {args.frames} frames, best of {args.repeat}")
    for aspect in spec.ASPECTS:
        costs = [_cpu_ms_per_frame(shot, aspect, args.frames, args.repeat) for shot in shots]
        plain = costs[0]
        print(f"{aspect.name}: plain {plain:6.2f} ms/frame  " + "  ".join(
            f"{name} {cost:6.2f} ({cost / plain:4.2f}x)"
            for name, cost in zip(("split", "triptych", "inset"), costs[1:], strict=True)))


if __name__ == "__main__":
    main()
