"""Scratches and dust on a scanned print: found at the working scale, told apart from real detail
(whiskers, wood grain, catchlights) by shape and by the smoothness of their surround.
:mod:`media.intake.restore` inpaints what :func:`find_defects` marks."""

from __future__ import annotations

import cv2
import numpy as np

from media.intake.measure import WORK_LONG_EDGE, estimate_noise, gray, shrink

SCRATCH_MIN_CONTRAST = 32.0  # mean top-hat response (8-bit levels above the surround)
SCRATCH_NOISE_K = 5.0  # ... and at least this many noise sigmas
SCRATCH_MAX_WIDTH_FRACTION = 1 / 300  # widest scratch, as a fraction of the long edge
SCRATCH_MEAN_WIDTH = 1.5  # a scratch's area is at most this many widths times its length
SCRATCH_MIN_LENGTH_FRACTION = 0.2  # shortest scratch, as a fraction of the short edge
SCRATCH_BEND = 2.0  # a scratch's minimum-area rectangle is at most this many widths thick
SCRATCH_SAG = 0.05  # ... or this fraction of its length (a gentle arc)
SURROUND_RATIO = 3.0  # a defect's contrast must exceed its surround's texture this many times
DUST_MAX_FRACTION = 1 / 250  # largest dust speck (side), as a fraction of the long edge
DUST_MIN_CONTRAST = 48.0  # dust must stand out more than a scratch (8-bit levels)
SCRATCH_MIN_COUNT = 2  # a single line is more likely a wire or an edge than damage
DUST_MIN_AREA = 4  # pixels (working scale): smaller specks are taken for real detail
SCRATCH_RUN_WIDTHS = 4  # a line's run, in scratch widths, that keeps it apart from what it crosses
DUST_SURROUND_RATIO = 6.0  # a speck's contrast must exceed its surround's texture this much
TRACE_MIN_CONTRAST = 10.0  # along a found scratch's line, what still counts as that scratch
TRACE_NOISE_K = 2.5  # ... (8-bit levels above the surround, and noise sigmas)


def find_defects(image: np.ndarray) -> tuple[np.ndarray, dict[str, float]]:
    """Scratches and dust in an RGB uint8 photo: a uint8 mask (255 = defect) at the working
    scale (long edge <= :data:`WORK_LONG_EDGE`), and counts (scratches, specks, area share).

    Candidates are the components of a white and a black top-hat of the luminance above a
    contrast threshold (absolute, and relative to the noise). A scratch is long, thin and nearly
    straight; a speck is small. Both must lie on a smooth surround (local deviation of the
    median-filtered luminance small against their own contrast), which rejects whiskers on fur,
    wood grain and textures. The mask is empty unless :data:`SCRATCH_MIN_COUNT` scratches say
    the photo is a damaged print; specks alone look too much like catchlights, stars and pores
    to be removed on their own evidence.
    """
    work, _ = shrink(image, WORK_LONG_EDGE)
    luma = gray(work)
    width = max(2, round(max(luma.shape) * SCRATCH_MAX_WIDTH_FRACTION))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * width + 1, 2 * width + 1))
    noise = estimate_noise(work)
    threshold = max(SCRATCH_MIN_CONTRAST, SCRATCH_NOISE_K * noise)
    texture = _surround_texture(luma, width)
    mask = np.zeros(luma.shape, np.uint8)
    specks = np.zeros(luma.shape, np.uint8)
    counts = {"scratches": 0.0, "specks": 0.0}
    bright = cv2.morphologyEx(luma, cv2.MORPH_TOPHAT, kernel)
    dark = cv2.morphologyEx(luma, cv2.MORPH_BLACKHAT, kernel)
    for op, response in ((cv2.MORPH_TOPHAT, bright), (cv2.MORPH_BLACKHAT, dark)):
        binary = (response > threshold).astype(np.uint8)
        labels, scratch_ids, speck_ids = _classify(binary, response, texture, width)
        counts["scratches"] += len(scratch_ids)
        counts["specks"] += len(speck_ids)
        mask[np.isin(labels, scratch_ids)] = 255
        specks[np.isin(labels, speck_ids)] = 255
        if op == cv2.MORPH_TOPHAT:  # a bright scratch touching other bright detail
            labels, scratch_ids, _ = _classify(
                cv2.morphologyEx(binary, cv2.MORPH_OPEN, _vertical_run(width)), response,
                texture, width)
            fresh = [i for i in scratch_ids if not mask[labels == i].any()
                     and _off_the_sides(labels == i, width)]
            counts["scratches"] += len(fresh)
            mask[np.isin(labels, fresh)] = 255
    if counts["scratches"] < SCRATCH_MIN_COUNT:  # not a damaged print: lines are detail
        mask[:] = 0
    else:
        trace = max(TRACE_MIN_CONTRAST, TRACE_NOISE_K * noise)
        mask |= traced_scratches(mask, np.maximum(bright, dark), trace, width)
        mask |= specks
    counts["area"] = float(np.count_nonzero(mask)) / mask.size
    return mask, counts


def traced_scratches(scratches: np.ndarray, response: np.ndarray, contrast: float,
                     width: int) -> np.ndarray:
    """The rest of each scratch of ``scratches`` (a uint8 mask): along the straight line
    fitted to it, across the whole photo, on each row (or column, for a line nearer
    horizontal) the one pixel within ``width`` of the line where the top-hat ``response``
    peaks, when it reaches ``contrast``. A scratch is found where it stands out (over a dark
    coat) and runs on where it barely does (a white line over a pale sky, through hair),
    which the finder's stricter test leaves on the print; the mask grows by the line alone."""
    traced = np.zeros_like(scratches)
    count, labels = cv2.connectedComponents(scratches, connectivity=8)
    height, width_px = scratches.shape
    offsets = np.arange(-width, width + 1)
    for label in range(1, count):
        ys, xs = np.nonzero(labels == label)
        vx, vy, x0, y0 = (float(v) for v in cv2.fitLine(
            np.column_stack([xs, ys]).astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel())
        upright = abs(vy) >= abs(vx)
        along = np.arange(height if upright else width_px)
        across = np.round((x0 + (along - y0) * vx / vy) if upright
                          else (y0 + (along - x0) * vy / vx)).astype(int)
        last = (width_px if upright else height) - 1
        cross = np.clip(across[:, None] + offsets[None, :], 0, last)
        rows, cols = (along[:, None], cross) if upright else (cross, along[:, None])
        values = response[np.broadcast_to(rows, cross.shape), np.broadcast_to(cols, cross.shape)]
        peak = values.argmax(axis=1)
        hit = values[along, peak] >= contrast
        line = cross[along, peak]
        if upright:
            traced[along[hit], line[hit]] = 255
        else:
            traced[line[hit], along[hit]] = 255
    return traced


def _surround_texture(luma: np.ndarray, width: int) -> np.ndarray:
    """Local standard deviation (8-bit levels) of the luminance with thin lines and specks
    removed by a median filter: how busy the surround of a candidate is."""
    base = cv2.medianBlur(luma, 2 * width + 1).astype(np.float32)
    size = (4 * width + 1, 4 * width + 1)
    mean = cv2.blur(base, size)
    var = cv2.blur(base * base, size) - mean * mean
    return np.sqrt(np.maximum(var, 0.0))


def _off_the_sides(component: np.ndarray, width: int) -> bool:
    """True when the ``component`` (a boolean mask) keeps two scratch widths off the photo's
    left and right edges: a line hugging them is the scan's border, not damage."""
    columns = np.flatnonzero(component.any(axis=0))
    return bool(columns.size) and columns[0] >= 2 * width and (
        columns[-1] < component.shape[1] - 2 * width)


def _vertical_run(width: int) -> np.ndarray:
    """A vertical run :data:`SCRATCH_RUN_WIDTHS` widths long: opened by it, the candidates
    keep only their near-vertical lines, apart from the detail a scratch crosses (a collar, a
    can, another scratch) that joins them into one component too wide to look like a line.
    Bright and vertical only: a print's long scratches run along the film and show white
    where the emulsion is gone, while dark lines are more often a tower's struts or a mast
    against the sky, and horizontal ones horizons, wires and shelves."""
    return np.ones((SCRATCH_RUN_WIDTHS * width + 1, 1), np.uint8)


def _classify(binary: np.ndarray, response: np.ndarray, texture: np.ndarray,
              width: int) -> tuple[np.ndarray, list[int], list[int]]:
    """Label the candidates ``binary`` (1 where ``response`` passed the threshold) and pick
    (labels, scratch labels, speck labels)."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(binary, connectivity=8)
    if count <= 1:
        return labels, [], []
    flat = labels.ravel()
    area = np.maximum(stats[:, cv2.CC_STAT_AREA], 1).astype(np.float64)
    contrast = np.bincount(flat, response.ravel().astype(np.float64), count) / area
    busy = np.bincount(flat, texture.ravel().astype(np.float64), count) / area
    bw, bh = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    diag = np.hypot(bw, bh)
    smooth = busy * SURROUND_RATIO <= contrast
    short_edge, long_edge = min(labels.shape), max(labels.shape)
    idx = np.arange(1, count)
    long_thin = idx[smooth[idx] & (diag[idx] >= SCRATCH_MIN_LENGTH_FRACTION * short_edge)
                    & (area[idx] <= SCRATCH_MEAN_WIDTH * width * diag[idx])]
    scratches = [int(i) for i in long_thin if _is_straight(labels, stats[i], int(i), width)]
    speck_side = max(2.0 * width + 1, long_edge * DUST_MAX_FRACTION)
    isolated = busy * DUST_SURROUND_RATIO <= contrast
    specks = idx[isolated[idx] & (np.maximum(bw, bh)[idx] <= speck_side)
                 & (area[idx] >= DUST_MIN_AREA) & (contrast[idx] >= DUST_MIN_CONTRAST)]
    return labels, scratches, [int(i) for i in specks]


def _is_straight(labels: np.ndarray, stat: np.ndarray, label: int, width: int) -> bool:
    """True when the component's minimum-area rectangle is thin: its short side at most
    :data:`SCRATCH_BEND` widths or :data:`SCRATCH_SAG` of its long side (gentle arcs)."""
    x, y, w, h = (int(v) for v in stat[:4])
    pts = np.argwhere(labels[y:y + h, x:x + w] == label)[:, ::-1].astype(np.float32)
    _, (rw, rh), _ = cv2.minAreaRect(pts)
    return min(rw, rh) <= max(SCRATCH_BEND * width, SCRATCH_SAG * max(rw, rh))
