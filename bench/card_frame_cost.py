"""CPU cost of a card's frame: milliseconds per frame per aspect, side by side with a photo
shot's frame and with a card as the film drew it before its words went over the moving photo.

``.venv/bin/python -m bench.card_frame_cost [--order samples/birthday] [--frames 120]
[--repeat 3]``

The order's title and closing (:func:`activities.order_plan.cards_for`) over its subject photo
are prepared as the render prepares them (:class:`SourcePreparer`): each card's words over the
photo shown sharp and moving (:class:`media.frames.card_shots.PreparedWordsOver`: the photo layer's
frame, the scrim, the words), a plain photo shot of the same photo (a Ken Burns move, as most
photo shots), and the same cards drawn the way the film drew them before: the words over a
darkened, blurred still of the photo pushed in (:func:`media.cards.draw.render_card_image`,
:func:`media.cards.motion.card_frame`). All ``--frames`` long. Every frame of each is composed
``--repeat`` times for each aspect, in turn, and the process CPU time per frame is printed (the
best repeat), with each card's cost as a multiple of the photo shot's and of the old card's.
The one-time preparation (drawing the words, the scrim) is printed apart. OpenCV runs on the
render's own thread count. CPU time, not wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2

from activities.order_plan import cards_for
from app.order_folder import read_order_folder
from media.analysis.subjects import find_subject
from media.base import spec
from media.cards.draw import render_card_image
from media.frames.card_shots import PreparedCard
from media.frames.compose import subject_cover
from media.frames.preparer import SourcePreparer
from media.frames.render import COMPOSE_OPENCV_THREADS
from media.frames.sources import FilmSources, Prepared, load_photo
from media.frames.stall import StallWatch
from media.plan.timeline import KEN_BURNS, Shot, Timeline, Transition

DEFAULT_ORDER = Path("samples/birthday")


def _timeline(frames: int, photo: str, opening, closing) -> Timeline:
    """A film of the title over ``photo``, a photo shot of it, and the closing over it."""
    shots = (Shot("card", photo, 0, frames, 0, frames, Transition(), KEN_BURNS, card=opening,
                  move="push_in"),
             Shot("photo", photo, frames, 2 * frames, frames, 2 * frames, Transition(),
                  KEN_BURNS, move="push_in"),
             Shot("card", photo, 2 * frames, 3 * frames, 2 * frames, 3 * frames, Transition(),
                  KEN_BURNS, card=closing, move="pull_out"))
    return Timeline(spec.FPS, 3 * frames, 3 * frames / spec.FPS, "gift", False, shots, 0, 0,
                    subject_photo_id=photo)


def _cpu_ms_per_frame(shots: dict[str, Prepared], aspect: spec.Aspect, frames: int,
                      repeat: int) -> dict[str, float]:
    """For each shot the best of ``repeat`` passes over every frame (the shots' passes taken
    in turn, so a busy spell of the machine falls on all of them): process CPU milliseconds
    per frame."""
    best = dict.fromkeys(shots, float("inf"))
    for _ in range(repeat):
        for name, prepared in shots.items():
            start = time.process_time()
            for index in range(frames):
                prepared.frame(aspect, index)
            best[name] = min(best[name], (time.process_time() - start) * 1000 / frames)
    return best


def _old_card(card, photo_path: Path, delay: int | None, frames: int) -> PreparedCard:
    """The card as the film drew it before: its words over a darkened, blurred still of the
    photo (cover-fitted on its subject), pushed in."""
    image = load_photo(photo_path)
    subject = find_subject(image)
    images = {a.name: render_card_image(card, a.width, a.height,
                                        subject_cover(image, subject, a.width, a.height))
              for a in spec.ASPECTS}
    return PreparedCard(images, delay, frames)


def main() -> None:
    """Prepare the shots from the order's subject photo and print the costs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--order", type=Path, default=DEFAULT_ORDER)
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    order, _ = read_order_folder(args.order)
    opening, closing = cards_for(order)
    names = sorted(p.name for p in (args.order / "photos").iterdir())
    paths = {ref.id: args.order / "photos" / name
             for ref, name in zip(order.photos, names, strict=True)}
    photo = order.subject_photo_id or next(iter(paths))
    cv2.setNumThreads(COMPOSE_OPENCV_THREADS)
    timeline = _timeline(args.frames, photo, opening, closing)
    preparer = SourcePreparer(timeline, spec.ASPECTS, FilmSources(paths), StallWatch(600))
    start = time.process_time()
    shots = {"title over the photo": preparer.prepare(0), "photo shot": preparer.prepare(1),
             "closing over the photo": preparer.prepare(2)}
    print(f"prepared the three shots in {time.process_time() - start:.2f} CPU s")
    shots["title before"] = _old_card(opening, paths[photo], None, args.frames)
    shots["closing before"] = _old_card(closing, paths[photo], 0, args.frames)
    for aspect in spec.ASPECTS:
        cost = _cpu_ms_per_frame(shots, aspect, args.frames, args.repeat)
        photo_ms = cost["photo shot"]
        for name, ms in cost.items():
            print(f"{aspect.name} {name}: {ms:.2f} CPU ms/frame ({ms / photo_ms:.2f}x the photo "
                  "shot)")
        for kind in ("title", "closing"):
            ratio = cost[f"{kind} over the photo"] / cost[f"{kind} before"]
            print(f"{aspect.name} {kind}: over the photo costs {ratio:.2f}x the card before")


if __name__ == "__main__":
    main()
