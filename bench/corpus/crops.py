"""How well :mod:`media.analysis.crops` finds a photo cut from another, on the corpus's
orders: every pair of an order's usable photos, against the ground truth (photos of one
order with the same ``source``, or copies of one, are cut from one picture), per pair of
kinds, and its cost.

    FILM_CORPUS_CACHE=/tmp/corpus-cache python -m bench.corpus.crops [--orders 300]

A pair of one source whose two photos show no common part (two close-ups of different faces
of one group photo) is counted in its kind's row, found only through a third photo.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps

from bench.corpus.generate import default_cache
from bench.corpus.orders import corpus_root
from bench.corpus.sources import picture_of
from media.analysis.crops import FEATURE_SIDE, crop_features, crop_pairs


def _gray(path: Path) -> np.ndarray:
    """The photo upright, gray, at about :data:`FEATURE_SIDE` pixels (JPEG draft decoding)."""
    with Image.open(path) as image:
        image.draft("L", (FEATURE_SIDE, FEATURE_SIDE))
        return np.asarray(ImageOps.exif_transpose(image).convert("L"))


def measure(folder: Path) -> tuple[Counter[str], Counter[str], Counter[str], float]:
    """One order folder: pairs of one source per kind pair, those found, pairs found across
    sources (per kind pair), and the seconds taken (decoding, features, matching)."""
    truth = json.loads((folder / "truth.json").read_text())
    by_file = {p["file"]: p for p in truth["photos"]}
    start = time.perf_counter()
    photos = {}
    for path in sorted((folder / "photos").iterdir()):
        photo = by_file[path.name.split("-", 1)[1]]
        if not (photo["blank"] or photo["near_blank"] or photo["degenerate"]):
            photos[path.name] = (photo, crop_features(_gray(path)))
    found = {frozenset(p) for p in crop_pairs({k: v[1] for k, v in photos.items()})}
    seconds = time.perf_counter() - start
    same, hit, false = Counter[str](), Counter[str](), Counter[str]()
    for a, b in combinations(photos, 2):
        pa, pb = photos[a][0], photos[b][0]
        kinds = "/".join(sorted((pa["kind"], pb["kind"])))
        if pa["source"] and picture_of(pa["source"]) == picture_of(pb["source"]):
            same[kinds] += 1
            hit[kinds] += frozenset((a, b)) in found
        elif frozenset((a, b)) in found:
            false[kinds] += 1
            print(f"  {folder.name}: {a} ~ {b} ({pa['source']} / {pb['source']})",
                  file=sys.stderr)
    return same, hit, false, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=300)
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args(argv)
    cache = args.cache or default_cache()
    folders = sorted((corpus_root(cache) / "orders").iterdir())[:args.orders]
    same, hit, false = Counter[str](), Counter[str](), Counter[str]()
    times = []
    for folder in folders:
        s, h, f, seconds = measure(folder)
        same, hit, false = same + s, hit + h, false + f
        times.append(seconds)
    for kinds in sorted(same | false):
        print(f"{kinds:34s} same source {same[kinds]:4d}  found {hit[kinds]:4d}  "
              f"other pictures found {false[kinds]:3d}")
    total, found, wrong = same.total(), hit.total(), false.total()
    print(f"recall {found}/{total} = {found / max(1, total):.1%}; precision "
          f"{found}/{found + wrong} = {found / max(1, found + wrong):.1%}; "
          f"{1000 * float(np.mean(times)):.0f} ms per order (max "
          f"{1000 * max(times):.0f}, {len(times)} orders)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
