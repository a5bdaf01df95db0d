"""The face detector's labelled set: hand-labelled source photos (``tests/fixtures/faces/
labels.json``) and the kinds of photo made from them with known geometry, so the labels move
with the pixels.

Kinds: ``photo`` (the sources as they are), ``close-up`` (the face fills 50-90 % of the photo's
height), ``tilted close-up`` (and turned 10-30 degrees either way), ``partly outside`` (a side or
the chin cut by the photo's edge), ``tilted photo`` (the whole photo turned 15-30 degrees),
``small faces`` (mosaics of group photos whose faces are 20-40 px), ``old scan`` (small, sepia,
faded, grain, dust), ``exif turned`` (a phone's sideways JPEG with its EXIF orientation, through
intake's upright turn) and ``no face`` (pets, scenery, objects, textures, blank photos).
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image

from bench.faces import transforms as tf
from bench.faces.transforms import Face, Picture

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "tests" / "fixtures" / "faces" / "labels.json"
KINDS = ("photo", "close-up", "tilted close-up", "partly outside", "tilted photo",
         "small faces", "old scan", "exif turned", "no face")
MIN_FACE_PX = 16  # a face box lower than this in a made photo is optional
MIN_INSIDE = 0.5  # ... and so is one with less than this share of its box in the photo
CLOSE_UP_SOURCE_PX = 60  # close-ups are made of faces at least this high (less is mush)
CLOSE_UP_EDGE = 960  # pixels: a close-up's long edge
SKIMAGE_TEXTURES = ("brick", "grass", "gravel", "moon", "rocket", "hubble_deep_field")


@dataclass(frozen=True)
class Case:
    """One photo of the labelled set: its kind, a name saying how it was made, and the
    picture with its faces."""

    kind: str
    name: str
    picture: Picture

    @property
    def required(self) -> tuple[Face, ...]:
        """The faces a detector must find."""
        return tuple(face for face in self.picture.faces if not face.optional)


@dataclass(frozen=True)
class Source:
    """A labelled source photo, upright, with its faces in pixels."""

    key: str
    kind: str
    picture: Picture


def _checked_bytes(key: str, sha256: str) -> bytes:
    data = (REPO / key).read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(f"{key} is not the labelled file (sha256 differs)")
    return data


@cache
def _labels() -> dict[str, dict[str, object]]:
    return json.loads(LABELS.read_text(encoding="utf-8"))["photos"]


@cache
def labelled_source(key: str) -> Source:
    """The labelled photo ``key`` (a path under the repository), upright (turned by its
    ``angle``), faces in pixels; its bytes checked against the labels' sha256."""
    entry = _labels()[key]
    with Image.open(io.BytesIO(_checked_bytes(key, str(entry["sha256"])))) as image:
        pixels = np.asarray(image.convert("RGB"))
    if entry["angle"]:
        pixels = np.ascontiguousarray(np.rot90(pixels, -int(entry["angle"]) // 90))
    height, width = pixels.shape[:2]
    faces = tuple(Face(_pixels(f["box"], width, height), _pixels(f["core"], width, height),
                       bool(f.get("profile", False)), f.get("optional", ""))
                  for f in entry["faces"])  # type: ignore[attr-defined]
    return Source(key, str(entry["kind"]), Picture(pixels, faces))


def sources() -> tuple[Source, ...]:
    """Every labelled photo (see :func:`labelled_source`), in the labels file's order."""
    return tuple(labelled_source(key) for key in _labels())


def _pixels(box: list[float], width: int, height: int) -> tf.BoxPx:
    return box[0] * width, box[1] * height, box[2] * width, box[3] * height


def _people() -> list[Source]:
    return [source for source in sources() if source.picture.faces]


def _close_up_faces() -> list[tuple[Source, Face]]:
    return [(source, face) for source in _people() for face in source.picture.faces
            if not face.optional and face.box[3] - face.box[1] >= CLOSE_UP_SOURCE_PX]


def _case(kind: str, name: str, picture: Picture) -> Case:
    return Case(kind, name, tf.require(picture, MIN_FACE_PX, MIN_INSIDE))


def _short(key: str) -> str:
    return Path(key).stem


def close_ups(rng: np.random.Generator) -> list[Case]:
    """Each large labelled face filling 50-90 % of a photo's height, at three shapes."""
    out = []
    for i, (source, face) in enumerate(_close_up_faces()):
        fill, ratio = (0.5, 0.7, 0.9)[i % 3], (0.75, 1.0, 4 / 3)[i // 3 % 3]
        picture = tf.close_up(source.picture, face, fill, ratio, CLOSE_UP_EDGE)
        out.append(_case("close-up", f"{_short(source.key)} face {i} fill {fill}", picture))
    return out


def tilted_close_ups(rng: np.random.Generator) -> list[Case]:
    """Close-ups turned 10, 20 or 30 degrees, either way."""
    out = []
    for i, (source, face) in enumerate(_close_up_faces()):
        degrees = (10.0, 20.0, 30.0)[i % 3] * (1 if i % 2 else -1)
        fill = float(rng.uniform(0.5, 0.8))
        picture = tf.close_up(source.picture, face, fill, (0.75, 1.0)[i % 2], CLOSE_UP_EDGE,
                              degrees=degrees)
        out.append(_case("tilted close-up", f"{_short(source.key)} face {i} {degrees:+.0f} deg",
                         picture))
    return out


def partly_outside(rng: np.random.Generator) -> list[Case]:
    """Close-ups whose face is cut by the photo's edge: its left or right side, or its chin."""
    out = []
    cuts = {"left": (0.3, 0.0), "right": (-0.3, 0.0), "chin": (0.0, -0.25)}
    for i, (source, face) in enumerate(_close_up_faces()):
        cut = tuple(cuts)[i % 3]
        fill = float(rng.uniform(0.6, 0.8))
        picture = tf.close_up(source.picture, face, fill, 0.75 if cut == "chin" else 1.0,
                              CLOSE_UP_EDGE, offset=cuts[cut])
        out.append(_case("partly outside", f"{_short(source.key)} face {i} {cut} cut", picture))
    return out


def tilted_photos(rng: np.random.Generator) -> list[Case]:
    """Each labelled photo turned 15-30 degrees about its centre, either way."""
    out = []
    for i, source in enumerate(_people()):
        width, height = source.picture.size
        degrees = float(rng.uniform(15, 30)) * (1 if i % 2 else -1)
        picture = tf.turn_about(source.picture, (width / 2, height / 2), degrees)
        out.append(_case("tilted photo", f"{_short(source.key)} {degrees:+.0f} deg", picture))
    return out


SMALL_FACE_SHARE = 0.2  # mosaics are made of photos whose faces are at most this share of
# their height (a close-up scaled to 30 px faces is a thumbnail, not a group)


def small_faces(rng: np.random.Generator) -> list[Case]:
    """Mosaics of 2x2 and 3x3 labelled photos of people, each scaled so its largest face is
    20-40 px high: a group's small faces in a photo of 640-960 px."""
    people = [source for source in _people()
              if max(f.box[3] - f.box[1] for f in source.picture.faces)
              <= SMALL_FACE_SHARE * source.picture.size[1]]
    out = []
    for i, grid in enumerate((2, 3, 2, 3, 2, 3)):
        chosen = [people[int(k)] for k in rng.choice(len(people), grid * grid,
                                                       replace=grid * grid > len(people))]
        out.append(_case("small faces", f"mosaic {i} of {grid}x{grid}",
                         _mosaic(chosen, grid, rng)))
    return out


def _mosaic(chosen: list[Source], grid: int, rng: np.random.Generator) -> Picture:
    cell = 320  # pixels: each photo fitted into a cell this wide and high
    canvas = np.full((grid * cell, grid * cell, 3), 235, np.uint8)
    faces: list[Face] = []
    for n, source in enumerate(chosen):
        largest = max(f.box[3] - f.box[1] for f in source.picture.faces if not f.optional)
        width, height = source.picture.size
        k = min(float(rng.uniform(20, 40)) / largest, cell / max(width, height))
        small = tf.crop(source.picture, (0, 0, width, height),
                        (max(1, round(width * k)), max(1, round(height * k))))
        x, y = (n % grid) * cell, (n // grid) * cell
        h, w = small.pixels.shape[:2]
        canvas[y:y + h, x:x + w] = small.pixels
        faces += [tf.shifted(face, x, y) for face in small.faces]
    return Picture(canvas, tuple(faces))


def old_scans(rng: np.random.Generator) -> list[Case]:
    """Each labelled photo as a small scan (400-640 px) of an aged sepia print, some laid a
    little askew."""
    out = []
    for i, source in enumerate(_people()):
        picture = source.picture
        if i % 3 == 0:
            width, height = picture.size
            picture = tf.turn_about(picture, (width / 2, height / 2), float(rng.uniform(-4, 4)))
        picture = tf.old_scan(picture, rng, int(rng.integers(400, 641)))
        out.append(_case("old scan", f"{_short(source.key)} scan", picture))
    return out


def exif_turned(rng: np.random.Generator) -> list[Case]:
    """Each labelled photo as a phone's sideways JPEG with its EXIF orientation, through
    intake's preparation of a customer's photo (decoded in a child, turned upright)."""
    from media.intake.sandbox import prepare_photo_bounded

    out = []
    for i, source in enumerate(_people()):
        with tempfile.TemporaryDirectory() as scratch:
            phone, upright = Path(scratch) / "phone.jpg", Path(scratch) / "upright.jpg"
            phone.write_bytes(tf.phone_jpeg(source.picture, (1, 3)[i % 2]))
            prepare_photo_bounded(phone, upright)
            with Image.open(upright) as image:
                pixels = np.asarray(image.convert("RGB"))
        if pixels.shape[:2] != source.picture.pixels.shape[:2]:
            raise ValueError(f"{source.key}: the upright turn did not restore the photo")
        out.append(_case("exif turned", f"{_short(source.key)} sideways",
                         Picture(pixels, source.picture.faces)))
    return out


def no_faces(rng: np.random.Generator) -> list[Case]:
    """Pets, scenery, objects and textures without a face, and blank photos."""
    import skimage.data

    out = [_case("no face", f"{source.kind} {_short(source.key)}", source.picture)
           for source in sources() if not source.picture.faces]
    for name in SKIMAGE_TEXTURES:
        array = getattr(skimage.data, name)()
        rgb = np.stack([array] * 3, axis=-1) if array.ndim == 2 else array[..., :3]
        out.append(_case("no face", f"texture {name}", Picture(np.ascontiguousarray(rgb))))
    for name, colour, noise in (("pocket", (12, 10, 14), 6.0), ("white screen", (250, 250, 250),
                                0.0), ("grey wall", (128, 120, 110), 3.0)):
        pixels = np.full((900, 1200, 3), colour, np.float32) + rng.normal(0, noise, (900, 1200, 1))
        out.append(_case("no face", f"blank {name}",
                         Picture(np.clip(pixels, 0, 255).astype(np.uint8))))
    return out


def photos(rng: np.random.Generator) -> list[Case]:
    """The labelled photos as they are."""
    return [_case("photo", _short(source.key), source.picture) for source in _people()]


MAKERS = {"photo": photos, "close-up": close_ups, "tilted close-up": tilted_close_ups,
          "partly outside": partly_outside, "tilted photo": tilted_photos,
          "small faces": small_faces, "old scan": old_scans, "exif turned": exif_turned,
          "no face": no_faces}


def labelled_set(seed: int = 42, kinds: tuple[str, ...] = KINDS) -> list[Case]:
    """Every case of ``kinds``, deterministic for ``seed`` (each kind from its own generator,
    so one kind's cases do not depend on which others are made)."""
    out = []
    for kind in kinds:
        out += MAKERS[kind](np.random.default_rng([seed, KINDS.index(kind)]))
    return out
