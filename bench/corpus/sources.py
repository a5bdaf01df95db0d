"""The corpus's source photos and clips: files of the repository (the samples, the test
fixtures, ``tests/fixtures/corpus-sources/``) and scikit-image's bundled data, with their face
labels from ``tests/fixtures/corpus-sources/labels.json`` (the one labels file: see its
``about``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image

from bench.corpus.transforms import Face, Picture

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
LABELS = FIXTURES / "corpus-sources" / "labels.json"
SKIMAGE_PREFIX = "skimage:"
SKIMAGE_SCENES = ("coffee", "rocket", "chelsea", "page", "coins", "moon")
"""scikit-image's bundled pictures used whole (no faces in any; ``page`` is a scanned page,
``moon`` a grey surface)."""
CLIPS = ("tests/fixtures/order/clips/01-rocket-launch.mp4",
         "tests/fixtures/order/clips/02-chelsea.mp4", "samples/birthday/clips/01-hello.mp4")
COPIES = {f"tests/fixtures/order/photos/{name}.jpg": SKIMAGE_PREFIX + name.split("-", 1)[1]
          for name in ("02-chelsea", "03-coffee", "04-rocket")}
"""Sources that are another source's picture re-encoded (the test fixture's photos are
scikit-image's, ``tests/fixtures/order/SOURCES.md``): the same picture under two keys."""
CLIP_PICTURES = {"01-rocket-launch.mp4": SKIMAGE_PREFIX + "rocket",
                 "02-chelsea.mp4": SKIMAGE_PREFIX + "chelsea"}
"""The clips made from a photo (a slow push-in, a pan), by file name: the picture they show."""


def picture_of(key: str) -> str:
    """The picture the source ``key`` is (one key for a source and its re-encoded copies)."""
    return COPIES.get(key, key)


@dataclass(frozen=True)
class Source:
    """One source photo: its key (a path under the repository, a label key, or
    ``skimage:<name>``), what it shows, and its labelled faces (normalized, upright)."""

    key: str
    kind: str
    angle: int
    faces: tuple[dict[str, object], ...]

    @property
    def has_faces(self) -> bool:
        """True when the photo shows at least one labelled face."""
        return bool(self.faces)


def _path(key: str) -> Path:
    return FIXTURES / key if key.startswith("corpus-sources/") else REPO / key


@cache
def labelled_sources() -> tuple[Source, ...]:
    """Every labelled source photo, in the labels file's order, then scikit-image's."""
    data = json.loads(LABELS.read_text(encoding="utf-8"))["sources"]
    out = [Source(key, entry["kind"], entry.get("angle", 0), tuple(entry["faces"]))
           for key, entry in data.items()]
    out += [Source(SKIMAGE_PREFIX + name, "object" if name in ("coffee", "coins") else
                   "pet" if name == "chelsea" else "screen" if name == "page" else "scenery",
                   0, ()) for name in SKIMAGE_SCENES]
    return tuple(out)


def _pixels(key: str) -> np.ndarray:
    if key.startswith(SKIMAGE_PREFIX):
        import skimage.data

        array = getattr(skimage.data, key.removeprefix(SKIMAGE_PREFIX))()
        if array.ndim == 2:
            array = np.stack([array] * 3, axis=-1)
        return np.ascontiguousarray(array[..., :3].astype(np.uint8))
    with Image.open(_path(key)) as image:
        return np.asarray(image.convert("RGB"))


def load_source(source: Source) -> Picture:
    """The source photo upright (turned by its album's ``angle``, clockwise) with its faces in
    pixels."""
    pixels = _pixels(source.key)
    if source.angle:
        pixels = np.ascontiguousarray(np.rot90(pixels, -source.angle // 90))
    height, width = pixels.shape[:2]
    faces = tuple(Face(_scaled(f["box"], width, height), _scaled(f["core"], width, height),
                       bool(f.get("profile", False)), bool(f.get("small", False)))
                  for f in source.faces)
    return Picture(pixels, faces)


def _scaled(box: object, width: int, height: int) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = box  # type: ignore[misc]
    return x0 * width, y0 * height, x1 * width, y1 * height


def clip_path(key: str) -> Path:
    """A bundled clip's file."""
    return REPO / key
