"""What phones and scanners do to a photo, with its labelled faces moved along.

Every transform takes and returns a :class:`Picture`: RGB uint8 pixels and the faces on them in
pixels (``box``: the whole face, ``core``: eyes to mouth, see the labels file
``tests/fixtures/corpus-sources/labels.json``). Geometry moves the boxes exactly (a rotation
takes the bounding box of the rotated corners, so a tilted core's box holds all of it); pixel
effects (sepia, fading, grain, dust: the face set's, :mod:`bench.faces.transforms`) leave them.
Deterministic for a given ``numpy`` generator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from bench.faces.transforms import dust, faded, grain, sepia

BoxPx = tuple[float, float, float, float]


@dataclass(frozen=True)
class Face:
    """A labelled face in pixels of the picture it is on (boxes may reach past its edges)."""

    box: BoxPx
    core: BoxPx
    profile: bool = False
    small: bool = False


@dataclass(frozen=True)
class Picture:
    """Pixels (H, W, 3 RGB uint8) and the faces on them."""

    pixels: np.ndarray
    faces: tuple[Face, ...] = ()

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.pixels.shape[1], self.pixels.shape[0]


def _map_box(box: BoxPx, points: np.ndarray) -> BoxPx:
    """The bounding box of ``box``'s four corners mapped by the 2x3 affine ``points``."""
    x0, y0, x1, y1 = box
    corners = np.array([[x0, y0, 1], [x1, y0, 1], [x0, y1, 1], [x1, y1, 1]], np.float64)
    mapped = corners @ points.T
    return (float(mapped[:, 0].min()), float(mapped[:, 1].min()),
            float(mapped[:, 0].max()), float(mapped[:, 1].max()))


def _affine_faces(faces: tuple[Face, ...], matrix: np.ndarray) -> tuple[Face, ...]:
    return tuple(replace(f, box=_map_box(f.box, matrix), core=_map_box(f.core, matrix))
                 for f in faces)


def crop(picture: Picture, box: BoxPx) -> Picture:
    """The part of the picture inside ``box`` (pixels, clipped to the picture)."""
    width, height = picture.size
    x0, y0 = max(0, round(box[0])), max(0, round(box[1]))
    x1, y1 = min(width, round(box[2])), min(height, round(box[3]))
    matrix = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0]])
    return Picture(np.ascontiguousarray(picture.pixels[y0:y1, x0:x1]),
                   _affine_faces(picture.faces, matrix))


def resize(picture: Picture, size: tuple[int, int]) -> Picture:
    """The picture scaled to ``size`` (width, height; area down, cubic up)."""
    width, height = picture.size
    kx, ky = size[0] / width, size[1] / height
    interp = cv2.INTER_AREA if kx * ky < 1 else cv2.INTER_CUBIC
    pixels = cv2.resize(picture.pixels, size, interpolation=interp)
    return Picture(pixels, _affine_faces(picture.faces, np.array([[kx, 0, 0], [0, ky, 0.0]])))


def long_edge(picture: Picture, edge: int) -> Picture:
    """The picture scaled so its long edge is ``edge`` pixels."""
    width, height = picture.size
    k = edge / max(width, height)
    return resize(picture, (max(1, round(width * k)), max(1, round(height * k))))


def rotate(picture: Picture, degrees: float, fill: tuple[int, int, int] = (0, 0, 0)) -> Picture:
    """The picture turned ``degrees`` counter-clockwise about its centre, same size (corners
    fall outside and are filled): a tilted camera."""
    width, height = picture.size
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    pixels = cv2.warpAffine(picture.pixels, matrix, (width, height), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REFLECT_101 if fill is None else
                            cv2.BORDER_CONSTANT, borderValue=fill)
    return Picture(pixels, _affine_faces(picture.faces, matrix))


def turned(picture: Picture, quarter_turns_cw: int) -> Picture:
    """The picture turned by whole quarter turns clockwise (a scan placed sideways)."""
    pixels, faces = picture.pixels, picture.faces
    for _ in range(quarter_turns_cw % 4):
        height = pixels.shape[0]
        pixels = np.ascontiguousarray(np.rot90(pixels, -1))
        # (x, y) -> (height - y, x)
        faces = tuple(replace(f, box=(height - f.box[3], f.box[0], height - f.box[1], f.box[2]),
                              core=(height - f.core[3], f.core[0], height - f.core[1],
                                    f.core[2])) for f in faces)
    return Picture(pixels, faces)


def close_up(picture: Picture, face: Face, fill: float, ratio: float,
             offset: tuple[float, float] = (0.0, 0.0)) -> Picture:
    """A crop of ratio ``ratio`` (width / height) around ``face`` whose box takes ``fill`` of
    the crop's height, its centre moved by ``offset`` (shares of the crop: a face partly out of
    the photo)."""
    x0, y0, x1, y1 = face.box
    height = (y1 - y0) / fill
    width = height * ratio
    cx, cy = (x0 + x1) / 2 + offset[0] * width, (y0 + y1) / 2 + offset[1] * height
    return crop(picture, (cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2))


def old_scan(picture: Picture, rng: np.random.Generator, edge: int = 640) -> Picture:
    """A small scan of a faded sepia print with grain, dust and scratches."""
    small = long_edge(picture, edge)
    aged = faded(sepia(small, float(rng.uniform(0.6, 1.0))), float(rng.uniform(0.55, 0.8)),
                 float(rng.uniform(10, 35)))
    return dust(grain(aged, float(rng.uniform(3, 8)), rng), int(rng.integers(20, 80)),
                int(rng.integers(2, 5)), rng)


def recompressed(picture: Picture, quality: int) -> Picture:
    """The picture through a JPEG of ``quality`` (a messenger's copy)."""
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(picture.pixels, cv2.COLOR_RGB2BGR),
                            [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    decoded = cv2.cvtColor(cv2.imdecode(data, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    return replace(picture, pixels=decoded)


def on_canvas(picture: Picture, size: tuple[int, int], at: tuple[int, int],
              colour: tuple[int, int, int]) -> Picture:
    """The picture pasted at ``at`` (top-left, pixels) on a plain canvas of ``size``: a
    screenshot of a photo in an app."""
    canvas = np.empty((size[1], size[0], 3), np.uint8)
    canvas[:] = colour
    width, height = picture.size
    canvas[at[1]:at[1] + height, at[0]:at[0] + width] = picture.pixels
    matrix = np.array([[1.0, 0.0, at[0]], [0.0, 1.0, at[1]]])
    return Picture(canvas, _affine_faces(picture.faces, matrix))


def plain(size: tuple[int, int], colour: tuple[int, int, int], noise: float,
          rng: np.random.Generator) -> Picture:
    """A blank picture: one colour with ``noise`` levels of sensor noise (a pocket shot is
    nearly black and noisy, a white screenshot clean)."""
    pixels = np.empty((size[1], size[0], 3), np.float32)
    pixels[:] = colour
    if noise:
        pixels += rng.normal(0, noise, pixels.shape)
    return Picture(np.clip(pixels, 0, 255).astype(np.uint8))


def inside(face: Face, size: tuple[int, int]) -> bool:
    """True when the face's core lies wholly inside a picture of ``size``."""
    x0, y0, x1, y1 = face.core
    return x0 >= 0 and y0 >= 0 and x1 <= size[0] and y1 <= size[1]


def tilt_room(face: Face) -> float:
    """The core's diagonal over its width: how much a rotation can grow its box."""
    x0, y0, x1, y1 = face.core
    return math.hypot(x1 - x0, y1 - y0) / max(1e-9, x1 - x0)
