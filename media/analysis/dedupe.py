"""Near-duplicate shots: the same picture twice (a burst, a re-sent photo, a clip animated from
a photo), found by a perceptual hash.

:func:`dct_hash` is the classic pHash: the image in gray at 32x32 pixels, its 2-D DCT, and one
bit per low-frequency coefficient (the top-left 8x8 without the DC term) saying whether it is
above their median. Resizing, recompression, small crops and colour changes keep most bits;
different pictures differ in about half of them. :func:`near_duplicates` compares every photo
with every other and with a few frames of every clip, and returns the pairs of ids within
:data:`MAX_DISTANCE` bits; the timeline (pure data) then drops or separates them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

import cv2
import numpy as np

HASH_SIDE = 32  # pixels: the gray copy the DCT is taken of
LOW_FREQ = 8  # the top-left LOW_FREQ x LOW_FREQ coefficients carry the hash (DC excluded)
MAX_DISTANCE = 12  # bits of 63: at most this many differ between near-duplicates
CENTRE_SHARE = 0.8  # a second hash of the centre crop catches a slow zoom into a photo


def dct_hash(image_rgb: np.ndarray) -> int:
    """The 63-bit DCT perceptual hash of an RGB (or gray) uint8 image."""
    gray = image_rgb if image_rgb.ndim == 2 else cv2.cvtColor(image_rgb[..., :3],
                                                               cv2.COLOR_RGB2GRAY)
    small = cv2.resize(gray, (HASH_SIDE, HASH_SIDE), interpolation=cv2.INTER_AREA)
    coeffs = cv2.dct(small.astype(np.float32))[:LOW_FREQ, :LOW_FREQ].flatten()[1:]
    bits = coeffs > np.median(coeffs)
    return int(sum(1 << i for i, bit in enumerate(bits) if bit))


def picture_hashes(image_rgb: np.ndarray) -> tuple[int, int]:
    """Hashes of the whole picture and of its centre (:data:`CENTRE_SHARE` of each side)."""
    h, w = image_rgb.shape[:2]
    dy, dx = round(h * (1 - CENTRE_SHARE) / 2), round(w * (1 - CENTRE_SHARE) / 2)
    return dct_hash(image_rgb), dct_hash(image_rgb[dy:h - dy, dx:w - dx])


def distance(a: int, b: int) -> int:
    """Bits in which two hashes differ (0..63)."""
    return (a ^ b).bit_count()


def _close(a: Sequence[int], b: Sequence[int]) -> bool:
    """True when any hash of one picture is within :data:`MAX_DISTANCE` of any of the other's."""
    return min(distance(x, y) for x in a for y in b) <= MAX_DISTANCE


def near_duplicates(photos: Mapping[str, Sequence[int]],
                    clips: Mapping[str, Sequence[int]] = {}) -> list[tuple[str, str]]:
    """Pairs ``(photo id, photo id)`` and ``(photo id, clip id)`` that show the same picture:
    ``photos`` and ``clips`` map ids to their hashes (:func:`picture_hashes` of the photo, of
    a few clip frames), in film order; pairs in that order."""
    pairs = [(a, b) for a, b in combinations(photos, 2) if _close(photos[a], photos[b])]
    pairs += [(p, c) for p in photos for c in clips if _close(photos[p], clips[c])]
    return pairs
