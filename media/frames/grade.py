"""The film's colour grade: one look over every photo, clip frame and card backdrop.

A :class:`Grade` is three numbers: ``contrast`` around mid-grey with ``lift`` raising the
blacks (softer), ``warmth`` (red up, blue down, in 0..255 levels at mid-grey) and
``saturation`` (1 keeps the colours, lower mixes them toward their luma). It is applied with
per-channel lookup tables and one blend with the gray image (:func:`apply_grade`), so a photo
is graded once when it is decoded and a clip frame costs a few milliseconds.

``natural`` (birthdays, anniversaries) leaves the pictures as they are; ``gentle`` (memorials,
pet tributes) is softer, warmer and less saturated.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np


@dataclass(frozen=True)
class Grade:
    """A look: ``contrast`` (1 = unchanged), ``lift`` (black level, 0..255), ``warmth``
    (levels added to red and taken from blue at mid-grey), ``saturation`` (1 = unchanged)."""

    contrast: float = 1.0
    lift: float = 0.0
    warmth: float = 0.0
    saturation: float = 1.0

    @property
    def identity(self) -> bool:
        """True when the grade changes nothing."""
        return self == Grade()


GRADES = {
    "natural": Grade(),
    "gentle": Grade(contrast=0.88, lift=10.0, warmth=9.0, saturation=0.80),
}


def grade_named(name: str) -> Grade:
    """The grade called ``name`` (see :data:`GRADES`); unknown names are natural."""
    return GRADES.get(name, GRADES["natural"])


@lru_cache(maxsize=8)
def _luts(grade: Grade) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lookup tables (uint8, 256 entries) of the red, green and blue channels."""
    levels = np.arange(256, dtype=np.float32)
    base = (levels - 128.0) * grade.contrast + 128.0
    base = grade.lift + base * (255.0 - grade.lift) / 255.0
    bell = 1.0 - ((levels - 128.0) / 128.0) ** 2  # warmth fades out at black and white
    tables = (base + grade.warmth * bell, base, base - grade.warmth * bell)
    return tuple(np.clip(t + 0.5, 0, 255).astype(np.uint8) for t in tables)  # type: ignore[return-value]


def apply_grade(image: np.ndarray, grade: Grade) -> np.ndarray:
    """``image`` (uint8 RGB, H x W x 3) graded; the same array when the grade is identity."""
    if grade.identity:
        return image
    red, green, blue = _luts(grade)
    channels = cv2.split(np.ascontiguousarray(image))
    out = cv2.merge([cv2.LUT(channels[0], red), cv2.LUT(channels[1], green),
                     cv2.LUT(channels[2], blue)])
    if grade.saturation != 1.0:
        gray = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
        out = cv2.addWeighted(out, grade.saturation, gray, 1.0 - grade.saturation, 0.0)
    return out
