"""Reading the cards back as a viewer does: a frame shown at a phone's width, read by tesseract
(Debian's ``tesseract-ocr``; the tests that use it carry the ``ocr`` marker)."""

from __future__ import annotations

import re
import subprocess
import unicodedata

import cv2
import numpy as np

from media.base import spec
from media.design.reading import phone_width_px

PHONE_WIDTH = {a.name: phone_width_px(a.width, a.height) for a in (spec.LANDSCAPE, spec.PORTRAIT)}
"""CSS pixels a phone shows each aspect's film across (landscape, portrait)."""


def folded_words(text: str) -> list[str]:
    """Words as OCR compares them: case and accents folded (the English model reads "Tomás" as
    "Tomas"; a card draws the accent, its glyph coverage is tested elsewhere)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text)
                     if not unicodedata.combining(c))
    return [w.casefold() for w in re.findall(r"\w+", folded)]


def ocr_at_width(rgb: np.ndarray, width: int, rows: tuple[int, int] | None = None) -> list[str]:
    """What tesseract reads in ``rgb`` shown ``width`` pixels wide; with ``rows`` (top,
    bottom pixels of ``rgb``) in that band of it only, full width: the words over a photo, as
    a reader's eye finds them (tesseract's page layout is thrown by a sun or a sky beside
    them, not by the words)."""
    if rows is not None:
        rgb = rgb[max(0, rows[0]):rows[1]]
    height = round(rgb.shape[0] * width / rgb.shape[1])
    small = cv2.resize(rgb, (width, height), interpolation=cv2.INTER_AREA)
    # Enlarged again for tesseract, which wants text taller than a phone's CSS pixels give it:
    # what the phone-sized picture holds, no more (the downscale already lost the rest).
    seen = cv2.resize(small, (2 * width, 2 * height), interpolation=cv2.INTER_CUBIC)
    ok, png = cv2.imencode(".png", cv2.cvtColor(seen, cv2.COLOR_RGB2BGR))
    assert ok
    read: list[str] = []
    for layout in ("6", "11"):  # a block of text, then sparse text: what either reads is read
        done = subprocess.run(["tesseract", "stdin", "stdout", "--psm", layout],
                              input=png.tobytes(), capture_output=True, timeout=60, check=True)
        read += folded_words(done.stdout.decode("utf-8", "replace"))
    return read
