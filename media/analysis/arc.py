"""What a photo looks like, in the few numbers the timeline orders shots by.

:func:`photo_traits` reads a small copy of a photo (JPEG DCT scaling, about 128 pixels) and,
with the subject found for framing, returns how close the shot is (face height as a fraction of
the photo's height), how bright, warm and colourful it is. The timeline opens on the subject,
alternates close and wide, portrait and landscape, and ends on the warmest, brightest photo.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from media.analysis.subjects import Subject

THUMB_PX = 128


@dataclass(frozen=True)
class PhotoTraits:
    """``face_fraction``: height of the largest face over the photo's height (0: no face);
    ``brightness``: mean luma 0..1; ``warmth``: mean (R - B) / 255, -1..1; ``saturation``:
    mean HSV-style chroma 0..1."""

    face_fraction: float = 0.0
    brightness: float = 0.5
    warmth: float = 0.0
    saturation: float = 0.0


def _thumbnail(path: Path) -> np.ndarray:
    """A small RGB float copy (0..1) of the photo, decoded cheaply (JPEG draft mode)."""
    with Image.open(path) as image:
        image.draft("RGB", (THUMB_PX, THUMB_PX))
        image = image.convert("RGB")
        image.thumbnail((THUMB_PX, THUMB_PX))
        return np.asarray(image, np.float32) / 255.0


def look(rgb: np.ndarray) -> tuple[float, float, float]:
    """(brightness, warmth, saturation) of an RGB image (float 0..1 or uint8)."""
    data = np.asarray(rgb, np.float32)
    if data.dtype != np.float32 or data.max() > 1.0:
        data = data / 255.0
    luma = data @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)
    warmth = data[..., 0] - data[..., 2]
    chroma = data.max(axis=-1) - data.min(axis=-1)
    return float(luma.mean()), float(warmth.mean()), float(chroma.mean())


def photo_traits(path: Path, subject: Subject | None = None) -> PhotoTraits:
    """The traits of the photo at ``path`` (``subject`` from
    :func:`media.analysis.subjects.find_subject`
    gives the face size; without it the photo counts as faceless)."""
    brightness, warmth, saturation = look(_thumbnail(path))
    faces = subject.faces if subject is not None else ()
    face = max((b.y1 - b.y0 for b in faces), default=0.0)
    return PhotoTraits(round(face, 4), round(brightness, 4), round(warmth, 4),
                       round(saturation, 4))
