"""CPU cost of the signature tier's frames against a plain photo shot's: milliseconds per frame
per aspect (parallax, the roll push, and the chorus's warm light, :mod:`media.frames.leak`).

``.venv/bin/python -m bench.premium_frame_cost [--photos samples/birthday/photos] [--pick 1]
[--frames 90] [--repeat 3]``

One real sample photo (``--pick``: its place in the folder, sorted by name; one whose subject
separates, for parallax) is prepared as the render prepares it (:class:`SourcePreparer`) in
three shots of ``--frames`` frames: a plain Ken Burns shot, a parallax shot and a roll-push
shot. The light is measured over the plain shot's frames (``LightOverlay.apply`` on each,
the light on for all of them). Every frame is composed ``--repeat`` times per aspect and the
process CPU time per frame is printed (the best repeat), each as a multiple of the plain
shot's. OpenCV runs on the render's own thread count. CPU time, not wall time: the machine is
shared.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from media.base import spec
from media.cards.spec import CardSpec
from media.frames.leak import LightOverlay
from media.frames.preparer import SourcePreparer
from media.frames.render import COMPOSE_OPENCV_THREADS
from media.frames.sources import FilmSources
from media.frames.stall import StallWatch
from media.plan.montage import LightLeak
from media.plan.timeline import KEN_BURNS, PARALLAX, ROLL, Shot, Timeline, Transition

DEFAULT_PHOTOS = Path("samples/birthday/photos")


def _timeline(frames: int, photo: str) -> Timeline:
    """A film of one plain, one parallax and one roll-push shot of ``photo`` (a card first,
    as the preparer expects a film)."""
    card = CardSpec("opening", ("Bench",))
    shots = [Shot("card", None, 0, 2, 0, 2, Transition(), card=card)]
    for k, motion in enumerate((KEN_BURNS, PARALLAX, ROLL)):
        start = 2 + k * frames
        shots.append(Shot("photo", photo, start, start + frames, start, start + frames,
                          Transition(), motion, move="push_in"))
    total = 2 + 3 * frames
    return Timeline(spec.FPS, total, total / spec.FPS, "gift", False, tuple(shots), 0, 0)


def _cpu_ms(make: Callable[[int], np.ndarray], frames: int, repeat: int) -> float:
    """The best of ``repeat`` passes over ``frames`` frames: CPU milliseconds per frame."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for index in range(frames):
            make(index)
        best = min(best, (time.process_time() - start) * 1000 / frames)
    return best


def main() -> None:
    """Prepare the three shots from the sample photo and print the costs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS)
    parser.add_argument("--pick", type=int, default=1)
    parser.add_argument("--frames", type=int, default=90)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    paths = sorted(p for p in args.photos.iterdir() if p.suffix.lower() in (".jpg", ".png"))
    path = paths[args.pick]
    timeline = _timeline(args.frames, path.stem)
    cv2.setNumThreads(COMPOSE_OPENCV_THREADS)
    preparer = SourcePreparer(timeline, spec.ASPECTS, FilmSources({path.stem: path}),
                              StallWatch(600))
    plain, layered, rolled = (preparer.prepare(i) for i in (1, 2, 3))
    leak = LightLeak(0, args.frames // 2, args.frames + 1, (255, 154, 74), 0.8)
    print(f"photo {path.name}, {args.frames} frames, best of {args.repeat}"
          f"{'; parallax fell back: ' + '; '.join(preparer.notes) if preparer.notes else ''}")
    for aspect in spec.ASPECTS:
        light = LightOverlay([leak], aspect.width, aspect.height)
        base = _cpu_ms(lambda i, a=aspect: plain.frame(a, i), args.frames, args.repeat)
        costs = {
            "parallax": _cpu_ms(lambda i, a=aspect: layered.frame(a, i), args.frames,
                                args.repeat),
            "roll push": _cpu_ms(lambda i, a=aspect: rolled.frame(a, i), args.frames,
                                 args.repeat),
            "plain + light": _cpu_ms(lambda i, a=aspect, lt=light: lt.apply(plain.frame(a, i),
                                                                            i),
                                     args.frames, args.repeat),
        }
        print(f"{aspect.name}: plain {base:6.2f} ms/frame  " + "  ".join(
            f"{name} {ms:6.2f} ms ({ms / base:4.2f}x)" for name, ms in costs.items()))


if __name__ == "__main__":
    main()
