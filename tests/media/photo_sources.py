"""A test photo saved to disk and described as the planner sees it (shared by the render tests)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from media.look.subjects import find_subject
from media.plan.inputs import PhotoSource


def photo_source(tmp: Path, name: str, image: np.ndarray) -> PhotoSource:
    """``image`` (uint8 RGB) saved as ``tmp/name.png``, with its size and the height share of
    its tallest detected face."""
    path = tmp / f"{name}.png"
    Image.fromarray(image).save(path)
    faces = find_subject(image).faces
    return PhotoSource(name, path, image.shape[1], image.shape[0], False,
                       face_fraction=max((f.y1 - f.y0 for f in faces), default=0.0))
