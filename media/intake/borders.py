"""A photo's flat borders: the bars of a phone screenshot of a photo (black or white above and
below the picture), a scan's white margin, a forwarded photo's frame. They are found at intake
and cut away, so every later stage works on the picture itself.

A border is rows (or columns) at an edge that are one flat colour, a little noise allowed (and
a phone's status bar or buttons on a few of them), ending at a sharp, straight boundary: within
a few pixels most of the row differs from the bar, by a clear step. A dark night sky or a white
wall at the edge drifts away from its colour slowly or ends raggedly, and stays picture. Judged
on the photo in averaged blocks (the noise of a sensor or a JPEG averaged out), numpy and
Pillow only (the sandbox's decoding child runs it).
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

PixelBox = tuple[int, int, int, int]
"""``(left, top, right, bottom)`` in pixels, right and bottom exclusive (Pillow's crop box)."""

JUDGE_LONG_EDGE_PX = 1024
"""Long edge (pixels) the borders are judged at, at most; each judged pixel the mean of a block
of at least :data:`MIN_BLOCK_PX` square. The box found is as precise as one block."""
MIN_BLOCK_PX = 2
MIN_BAR_SHARE = 0.02
"""Thinnest bar cut (share of the photo's side across it): thinner flat edges are left alone."""
MIN_SIDES = 2
"""Fewest sides with a bar for any to be cut: a screenshot's bars come above and below, a scan's
margin and a frame all round; one flat side alone (a blown-out sky over a sea's straight
horizon) is taken for picture."""
MIN_TOLERANCE = 6
"""Fewest levels (8-bit, the largest channel difference) a bar's pixel may differ from the
bar's colour and still be bar; more where the bar itself is noisy (:func:`_tolerance`)."""
MAX_TOLERANCE = 24
"""Most levels of a bar's noise allowed: past it an edge is texture, not a flat colour."""
FLAT_OUTLIER_SHARE = 0.02
"""Share of a bar's row that may lie beyond the tolerance (dust, a JPEG block's ringing)."""
MARK_SHARE = 0.3
"""Share of a row of a bar that a phone's marks on it may cover (the status bar's clock and
icons, an app's buttons): such a row is still bar ..."""
MAX_MARKED_SHARE = 0.25
"""... while at most this share of the bar's rows are marked; the boundary is sought past its
last flat row."""
SWITCH_SHARE = 0.5
"""Share of a row that leaves the bar's colour at the boundary, all at once: a straight edge
(a skyline or a shirt's shoulders leaving a dark sky at scattered rows is not one)."""
EDGE_SETTLE_ROWS = 2
"""Judged rows past the last flat one within which the boundary must be (a JPEG's blur of a
sharp edge); a sky drifting from its colour over tens of rows never switches within them."""
MIN_STEP = 8
"""Levels the picture's rows past the boundary differ from the bar (their median) at least, and
at least twice the last flat row's median difference: a step, not a drift past the tolerance."""


def picture_box(image: Image.Image) -> PixelBox | None:
    """The box (pixels) of the picture inside ``image``'s flat borders, or ``None`` when it has
    none worth cutting (bars at least :data:`MIN_BAR_SHARE` of their side, each ending at a
    sharp, straight boundary, on fewer than :data:`MIN_SIDES` sides) or is flat all over (a
    blank photo stays as it is)."""
    block = max(MIN_BLOCK_PX, math.ceil(max(image.size) / JUDGE_LONG_EDGE_PX))
    pixels = np.asarray(image.convert("RGB").reduce(block))
    height, width = pixels.shape[:2]
    top, bottom = _bar_rows(pixels), _bar_rows(pixels[::-1])
    if top is None or bottom is None or top + bottom >= height:
        return None
    columns = pixels[top:height - bottom].transpose(1, 0, 2)
    left, right = _bar_rows(columns), _bar_rows(columns[::-1])
    if left is None or right is None or left + right >= width or \
            sum(bar > 0 for bar in (top, bottom, left, right)) < MIN_SIDES:
        return None
    full_w, full_h = image.size
    return (min(full_w, left * block), min(full_h, top * block),
            max(0, full_w - right * block), max(0, full_h - bottom * block))


def _bar_rows(pixels: np.ndarray) -> int | None:
    """Judged rows to cut at the top of ``pixels`` (H x W x 3 uint8): a flat bar with the row of
    its blend with the picture, 0 when there is none; ``None`` when every row is flat."""
    height = pixels.shape[0]
    min_rows = max(1, math.ceil(MIN_BAR_SHARE * height))
    colour = np.median(pixels[0], axis=0)
    deviation = np.abs(pixels.astype(np.int16) - colour.astype(np.int16)).max(axis=2)
    tolerance = _tolerance(deviation[:min_rows])
    if tolerance is None:
        return 0
    beyond = (deviation > tolerance).mean(axis=1)
    bar = beyond <= MARK_SHARE
    if bar.all():
        return None
    flat = beyond[:int(np.argmin(bar))] <= FLAT_OUTLIER_SHARE  # the bar's rows: flat or marked
    if not flat.any():
        return 0
    depth = int(np.flatnonzero(flat)[-1]) + 1  # past the bar's last flat row
    if depth < min_rows or (~flat[:depth]).mean() > MAX_MARKED_SHARE:
        return 0
    boundary = _boundary(deviation, beyond, depth)
    return 0 if boundary is None else min(height, boundary + 1)


def _tolerance(edge: np.ndarray) -> float | None:
    """Levels a bar's pixel may differ from its colour, from the outermost rows' differences
    ``edge`` (their noise, twice over: a typical row's 90th percentile, which a status bar's
    marks leave alone); ``None`` when they are no flat colour at all."""
    noise = float(np.median(np.percentile(edge, 90, axis=1)))
    tolerance = max(MIN_TOLERANCE, 2 * noise + 2)
    return tolerance if tolerance <= MAX_TOLERANCE else None


def _boundary(deviation: np.ndarray, beyond: np.ndarray, depth: int) -> int | None:
    """The row where the picture starts, if the bar ends at ``depth`` at a sharp, straight
    boundary: a row within :data:`EDGE_SETTLE_ROWS` that mostly leaves the bar's colour, the
    rows after it too, by a clear step (:data:`MIN_STEP`)."""
    window = beyond[depth:depth + EDGE_SETTLE_ROWS + 1]
    switched = np.flatnonzero(window >= SWITCH_SHARE)
    if switched.size == 0:
        return None
    start = depth + int(switched[0])
    after = deviation[start:start + 2 * EDGE_SETTLE_ROWS + 1]
    if after.shape[0] <= EDGE_SETTLE_ROWS or (beyond[start:start + after.shape[0]]
                                              < SWITCH_SHARE).any():
        return None
    step = float(np.median(after))
    last_flat = float(np.median(deviation[depth - 1]))
    return start if step >= max(MIN_STEP, 2 * last_flat) else None
