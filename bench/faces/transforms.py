"""What phones and scanners do to a photo, with its labelled faces moved along.

A :class:`Picture` is RGB uint8 pixels and the faces on them in pixels (``box``: the whole face,
``core``: eyes to mouth; see ``tests/fixtures/faces/labels.json``). Geometry moves the boxes
exactly (a turn takes the bounding box of the turned corners, so a tilted core's box still holds
all of it); pixel effects (sepia, fading, grain, dust, JPEG) leave them. Deterministic for a
given ``numpy`` generator. The order corpus uses the same transforms.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

import cv2
import numpy as np
from PIL import Image

BoxPx = tuple[float, float, float, float]


@dataclass(frozen=True)
class Face:
    """A labelled face in pixels of the picture it is on (boxes may reach past its edges).

    ``optional`` says why a face need not be found (too small, hidden, mostly outside the
    picture); an optional face found is not a false one either. ``core_quad`` is the core's
    four corners (4, 2) moved exactly (``core`` is their bounding box): what a frame must keep.
    """

    box: BoxPx
    core: BoxPx
    profile: bool = False
    optional: str = ""
    core_quad: tuple[tuple[float, float], ...] = ()

    @property
    def quad(self) -> np.ndarray:
        """The core's corners (4, 2), clockwise from the top left."""
        if self.core_quad:
            return np.asarray(self.core_quad, np.float64)
        x0, y0, x1, y1 = self.core
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


@dataclass(frozen=True)
class Picture:
    """Pixels (H, W, 3 RGB uint8) and the faces on them."""

    pixels: np.ndarray
    faces: tuple[Face, ...] = ()

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.pixels.shape[1], self.pixels.shape[0]


def _map_box(box: BoxPx, matrix: np.ndarray) -> BoxPx:
    """The bounding box of ``box``'s four corners mapped by the 2x3 affine ``matrix``."""
    x0, y0, x1, y1 = box
    corners = np.array([[x0, y0, 1], [x1, y0, 1], [x0, y1, 1], [x1, y1, 1]], np.float64)
    mapped = corners @ np.asarray(matrix, np.float64).T
    return (float(mapped[:, 0].min()), float(mapped[:, 1].min()),
            float(mapped[:, 0].max()), float(mapped[:, 1].max()))


def _moved(faces: tuple[Face, ...], matrix: np.ndarray) -> tuple[Face, ...]:
    out = []
    for face in faces:
        quad = face.quad @ matrix[:, :2].T + matrix[:, 2]
        out.append(replace(face, box=_map_box(face.box, matrix),
                           core=(*quad.min(axis=0).tolist(), *quad.max(axis=0).tolist()),
                           core_quad=tuple(map(tuple, quad.tolist()))))
    return tuple(out)


def shifted(face: Face, dx: float, dy: float) -> Face:
    """``face`` moved by (``dx``, ``dy``) pixels."""
    return _moved((face,), np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]]))[0]


def warp(picture: Picture, matrix: np.ndarray, size: tuple[int, int]) -> Picture:
    """The picture through the 2x3 affine ``matrix`` onto a canvas of ``size`` (width,
    height); what falls outside the photo is its edge mirrored (as a phone's crop never shows
    a black corner, the mirror keeps the edge's texture without inventing a face)."""
    scale = np.sqrt(abs(np.linalg.det(np.asarray(matrix)[:, :2])))
    pixels = picture.pixels
    if scale < 0.5:  # average before sampling far down, as a phone's scaler does
        pixels = cv2.resize(pixels, None, fx=2 * scale, fy=2 * scale,
                            interpolation=cv2.INTER_AREA)
        matrix = np.asarray(matrix, np.float64).copy()
        matrix[:, :2] /= 2 * scale
        out = cv2.warpAffine(pixels, matrix, size, flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REFLECT_101)
        matrix[:, :2] *= 2 * scale
    else:
        out = cv2.warpAffine(pixels, np.asarray(matrix, np.float64), size,
                             flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT_101)
    return Picture(out, _moved(picture.faces, np.asarray(matrix, np.float64)))


def crop(picture: Picture, box: BoxPx, size: tuple[int, int]) -> Picture:
    """The part of the picture inside ``box`` (pixels; may reach past the edges), scaled to
    ``size`` (width, height)."""
    x0, y0, x1, y1 = box
    kx, ky = size[0] / (x1 - x0), size[1] / (y1 - y0)
    return warp(picture, np.array([[kx, 0, -x0 * kx], [0, ky, -y0 * ky]]), size)


def turn_about(picture: Picture, centre: tuple[float, float], degrees: float) -> Picture:
    """The picture turned ``degrees`` counter-clockwise about ``centre``, same size: a tilted
    camera, or a print laid askew on the scanner."""
    matrix = cv2.getRotationMatrix2D(centre, degrees, 1.0)
    return warp(picture, matrix, picture.size)


def long_edge(picture: Picture, edge: int) -> Picture:
    """The picture scaled so its long edge is ``edge`` pixels."""
    width, height = picture.size
    k = edge / max(width, height)
    return crop(picture, (0, 0, width, height),
                (max(1, round(width * k)), max(1, round(height * k))))


def close_up(picture: Picture, face: Face, fill: float, ratio: float, edge: int,
             offset: tuple[float, float] = (0.0, 0.0), degrees: float = 0.0) -> Picture:
    """A photo of ``ratio`` (width / height), ``edge`` pixels on its long edge, around
    ``face``, whose box takes ``fill`` of its height; the face turned ``degrees``
    counter-clockwise first (a tilted close-up), the crop's centre moved by ``offset`` (shares
    of the crop: a face partly out of the photo)."""
    x0, y0, x1, y1 = face.box
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    turned = turn_about(picture, centre, degrees) if degrees else picture
    height = (y1 - y0) / fill
    width = height * ratio
    cx, cy = centre[0] + offset[0] * width, centre[1] + offset[1] * height
    size = (edge, round(edge / ratio)) if ratio >= 1 else (round(edge * ratio), edge)
    return crop(turned, (cx - width / 2, cy - height / 2, cx + width / 2, cy + height / 2), size)


class Printed(Protocol):
    """A picture (a dataclass) with RGB uint8 ``pixels``: what the print effects below age,
    here and in the order corpus (:mod:`bench.corpus.transforms`)."""

    pixels: np.ndarray

    @property
    def size(self) -> tuple[int, int]: ...


P = TypeVar("P", bound=Printed)


def sepia(picture: P, strength: float = 1.0) -> P:
    """An old print's brown tone, mixed in by ``strength`` (0..1)."""
    rgb = picture.pixels.astype(np.float32)
    matrix = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]],
                      np.float32)
    toned = np.clip(rgb @ matrix.T, 0, 255)
    return replace(picture, pixels=(rgb * (1 - strength) + toned * strength).astype(np.uint8))


def faded(picture: P, contrast: float, lift: float) -> P:
    """Contrast squeezed to ``contrast`` and the blacks lifted by ``lift`` levels."""
    out = (picture.pixels.astype(np.float32) - 128) * contrast + 128 + lift
    return replace(picture, pixels=np.clip(out, 0, 255).astype(np.uint8))


def grain(picture: P, sigma: float, rng: np.random.Generator) -> P:
    """Film grain (or a sensor's noise): Gaussian, ``sigma`` levels."""
    noise = rng.normal(0, sigma, picture.pixels.shape[:2])[..., None]
    out = picture.pixels.astype(np.float32) + noise
    return replace(picture, pixels=np.clip(out, 0, 255).astype(np.uint8))


def dust(picture: P, specks: int, scratches: int, rng: np.random.Generator) -> P:
    """Dust specks and thin scratches, as a scanner sees a print."""
    pixels = picture.pixels.copy()
    width, height = picture.size
    for _ in range(specks):
        centre = (int(rng.integers(0, width)), int(rng.integers(0, height)))
        value = int(rng.choice([15, 240]))
        cv2.circle(pixels, centre, int(rng.integers(1, 3)), (value, value, value), -1)
    for _ in range(scratches):
        x = int(rng.integers(0, width))
        cv2.line(pixels, (x, 0), (x + int(rng.integers(-20, 20)), height - 1),
                 (235, 235, 230), 1)
    return replace(picture, pixels=pixels)


def old_scan(picture: Picture, rng: np.random.Generator, edge: int) -> Picture:
    """A small scan (``edge`` pixels on its long edge) of a faded sepia print with grain, dust
    and scratches."""
    small = long_edge(picture, edge)
    aged = faded(sepia(small, float(rng.uniform(0.6, 1.0))), float(rng.uniform(0.5, 0.8)),
                 float(rng.uniform(10, 35)))
    return dust(grain(aged, float(rng.uniform(3, 9)), rng), int(rng.integers(20, 80)),
                int(rng.integers(1, 5)), rng)


def quarter_turned(picture: Picture, turns_cw: int) -> Picture:
    """The picture turned by whole quarter turns clockwise."""
    width, height = picture.size
    matrix = {1: [[0, -1, height], [1, 0, 0]], 2: [[-1, 0, width], [0, -1, height]],
              3: [[0, 1, 0], [-1, 0, width]]}.get(turns_cw % 4)
    if matrix is None:
        return picture
    pixels = np.ascontiguousarray(np.rot90(picture.pixels, -(turns_cw % 4)))
    return Picture(pixels, _moved(picture.faces, np.array(matrix, np.float64)))


EXIF_ORIENTATION = 0x0112
ORIENTATION_OF_TURN = {1: 8, 3: 6}  # the sensor's image, the upright one turned this many
# quarters clockwise: the EXIF tag that says to turn it back (8: a quarter counter-clockwise)


def phone_jpeg(picture: Picture, turns_cw: int, quality: int = 90) -> bytes:
    """The JPEG a phone writes of an upright ``picture`` held sideways: the pixels as the
    sensor read them (the picture turned ``turns_cw`` quarter turns clockwise: 1 or 3) and the
    EXIF orientation that turns them upright again."""
    sensor = quarter_turned(picture, turns_cw).pixels
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = ORIENTATION_OF_TURN[turns_cw]
    out = io.BytesIO()
    Image.fromarray(sensor).save(out, "JPEG", quality=quality, exif=exif)
    return out.getvalue()


def require(picture: Picture, min_side: float, min_inside: float) -> Picture:
    """The picture with each face marked optional when its box is under ``min_side`` pixels
    high or less than ``min_inside`` of its box lies inside the picture."""
    width, height = picture.size
    faces = []
    for face in picture.faces:
        x0, y0, x1, y1 = face.box
        seen = (max(0.0, min(x1, width) - max(x0, 0.0))
                * max(0.0, min(y1, height) - max(y0, 0.0)))
        inside = seen / max(1e-9, (x1 - x0) * (y1 - y0))
        why = face.optional or (f"under {min_side:g} px" if y1 - y0 < min_side else
                                "mostly outside the photo" if inside < min_inside else "")
        faces.append(replace(face, optional=why))
    return replace(picture, faces=tuple(faces))
