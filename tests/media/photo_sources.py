"""A test photo saved to disk and described as the planner sees it (shared by the render tests)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from media.analysis.subjects import find_subject
from media.plan.inputs import PhotoSource


def photo_source(tmp: Path, name: str, image: np.ndarray) -> PhotoSource:
    """``image`` (uint8 RGB) saved as ``tmp/name.png`` (:func:`photo_paths`), with its size and
    the height share of its tallest detected face."""
    Image.fromarray(image).save(tmp / f"{name}.png")
    faces = find_subject(image).faces
    return PhotoSource(name, image.shape[1], image.shape[0], False,
                       face_fraction=max((f.y1 - f.y0 for f in faces), default=0.0))


def photo_paths(tmp: Path, photos: list[PhotoSource]) -> dict[str, Path]:
    """Where :func:`photo_source` saved ``photos`` in ``tmp``, by id (what the render reads)."""
    return {p.id: tmp / f"{p.id}.png" for p in photos}
