"""Every look's title and closing cards as a reader sees them: frames at 5 fps through the
entrance and the hold, downscaled to a phone (9:16 shown 390 px wide, 16:9 844 px wide), one
contact sheet PNG per look, style and aspect.

``.venv/bin/python -m bench.look_contact_sheet [--out DIR] [--looks a,b] [--styles gift,social]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from media.base import yuv
from media.cards.draw import render_card_image
from media.cards.motion import card_frame
from media.cards.spec import CardSpec
from media.design import looks
from media.design.reading import PHONE_WIDTH_PX
from media.design.values import STYLES

ASPECTS = {"landscape": (1920, 1080), "portrait": (1080, 1920)}
FPS = 5
SAMPLE = {  # occasion line, name, closing lines: a sample order of each look's family
    "celebration": ("Happy Birthday", "Marta",
                    ("Happy Birthday, Marta",
                     "Sixty this year, and still the first one up every trail we walk.",
                     "From your hiking club")),
    "romance": ("Happy Anniversary", "Ana & Tomás",
                ("Happy Anniversary, Ana & Tomás",
                 "Thirty years of lake evenings, slow breakfasts and music in the living room.",
                 "")),
    "memorial": ("Pet Tribute", "Honey",
                 ("Forever in our hearts, Honey",
                  "Thirteen years of muddy paws on the forest path and a warm head on every lap.",
                  "")),
}


def _frames(card: CardSpec, width: int, height: int, length_s: float,
            entrance_at: float | None, exit_at: float | None) -> list[np.ndarray]:
    image = render_card_image(card, width, height)
    out = []
    for k in range(round(length_s * FPS)):
        out.append(yuv.i420_to_rgb(card_frame(image, k / FPS, length_s, entrance_at, exit_at)))
    return out


def sheet(look: str, style: str, aspect: str, columns: int = 6) -> np.ndarray:
    """The contact sheet of ``look`` in ``style`` and ``aspect``: the title's frames, then the
    closing's, each downscaled to the phone width."""
    width, height = ASPECTS[aspect]
    occasion, name, closing = SAMPLE.get(look, SAMPLE["celebration"])
    accent = "#1E88E5" if style == "brand" else None
    opening = CardSpec("opening", (occasion, name), accent, False, style, look=look)
    ending = CardSpec("closing", closing, accent, False, style, look=look)
    frames = (_frames(opening, width, height, 3.6, None, 3.4)
              + _frames(ending, width, height, 4.0, 0.2, None))
    phone = PHONE_WIDTH_PX[aspect]
    small = [cv2.resize(f, (phone, round(height * phone / width)), interpolation=cv2.INTER_AREA)
             for f in frames]
    blank = np.zeros_like(small[0])
    small += [blank] * (-len(small) % columns)
    rows = [np.hstack(small[i:i + columns]) for i in range(0, len(small), columns)]
    return np.vstack(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("/tmp/looks-sheets"))
    parser.add_argument("--looks", default=",".join(looks.look_names()))
    parser.add_argument("--styles", default=",".join(STYLES))
    parser.add_argument("--aspects", default="landscape,portrait")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for look in args.looks.split(","):
        for style in args.styles.split(","):
            for aspect in args.aspects.split(","):
                path = args.out / f"{look}-{style}-{aspect}.png"
                cv2.imwrite(str(path), cv2.cvtColor(sheet(look, style, aspect), cv2.COLOR_RGB2BGR))
                print(path)


if __name__ == "__main__":
    main()
