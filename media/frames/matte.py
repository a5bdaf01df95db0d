"""The subject cut from its photo for parallax, and the verdict on the cut.

:func:`matte_cut` runs GrabCut on a copy of the photo :data:`SEG_LONG_EDGE` pixels long,
initialized from the faces (each face box grown to head and shoulders, the body continuing to
the photo's bottom edge) or, without faces, from the saliency map around the focus box. It
measures the separation (:class:`Separation`): foreground share, convergence, and the matte's
score (:func:`matte_quality`, the weakest of: colour separation of the subject from its
surroundings, outline on image edges above chance, solidity, compactness, face cover, and for
subjects without faces how much of the photo's sides it touches). A failed check or a score
under :data:`QUALITY_MIN` (a doubtful matte) returns no cut. What the slide would expose beside
the subject is judged after (:func:`media.frames.parallax.cut_subject`).

GrabCut runs one iteration at a time within :data:`GRABCUT_BUDGET_S` (its cost depends on the
content: a low-contrast gray photo can take ten times longer than a portrait); it is seeded, so
the planner and the render cut the same photo the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from media.analysis.subjects import Box, Subject, saliency_map
from media.plan.inputs import PARALLAX_MATTE_MIN

SEG_LONG_EDGE = 320  # pixels: GrabCut runs on a copy this large
GRABCUT_MAX_ITERATIONS = 6
GRABCUT_BUDGET_S = 1.5  # CPU seconds of this thread: no iteration starts past this
CONVERGED_CHANGE = 0.02  # last iteration flipped less than this share of the foreground
HEAD_WIDTH = 2.6  # head-and-shoulders box width, in face widths
HEAD_ABOVE = 0.6  # hair above the face box, in face heights
NECK_BELOW = 1.0  # sure foreground below the face box (neck, collar), in face heights
BORDER_BG = 0.03  # image border strip taken as background, as a share of the short edge
AREA_MIN, AREA_MAX = 0.03, 0.6  # sane foreground share of the photo
EDGE_AGREEMENT_MIN = 0.45  # share of the outline lying on an image edge
COMPACTNESS_MIN = 0.9  # share of the foreground in its largest piece (before clean-up)
SOLIDITY_MIN = 0.45  # foreground area over its convex hull's
FACE_COVER_MIN = 0.85  # share of each face core inside the foreground
CLOSE_GAP = 0.15  # notches narrower than this share of the face (or focus) width are closed
SALIENCY_FG = 0.45  # saliency (0..1) above which a pixel is probably the subject
QUALITY_MIN = PARALLAX_MATTE_MIN  # a matte scoring less is doubtful: no parallax (the planner
# gives such a photo no parallax shot; the render falls back to the roll push if it disagrees)
COLOUR_BINS = 8  # per channel: colour histograms of the subject and its surroundings
RING = 0.05  # the surroundings compared with the subject: this share of the long edge around it
BORDER_TOUCH_MAX = 0.1  # a subject without faces may touch the photo's sides and top this much
# Ramps (doubtful, good) that map each measure of a separation onto 0..1 (see matte_quality).
QUALITY_RAMPS = {
    "separation": (0.3, 0.45),  # 1 - colour overlap of subject and surroundings
    "edge_lift": (0.5, 0.8),  # outline on image edges, above what chance gives
    "solidity": (SOLIDITY_MIN, 0.8),
    "compactness": (COMPACTNESS_MIN, 0.98),
    "face_cover": (FACE_COVER_MIN, 0.95),
    "border": (BORDER_TOUCH_MAX, 0.0),  # falling: less touching is better
}


@dataclass(frozen=True)
class Separation:
    """How well the subject came off the background; ``ok`` says whether to use parallax and
    ``reason`` why not. Shares are 0..1; ``matte`` is the matte's score (see
    :func:`matte_quality`), ``detail`` the background's beside the subject (luminance RMS,
    see :func:`media.frames.parallax.exposure_score`), ``quality`` the parallax score (the
    matte's, lowered by what the fill would expose), which also bounds how far the subject
    moves over the background."""

    ok: bool
    reason: str
    area: float = 0.0
    edge_agreement: float = 0.0
    compactness: float = 0.0
    solidity: float = 0.0
    face_cover: float = 1.0
    iterations: int = 0
    last_change: float = 1.0
    edge_lift: float = 0.0
    separation: float = 0.0
    border: float = 0.0
    quality: float = 0.0
    matte: float = 0.0
    detail: float = 0.0


def _small(image: np.ndarray) -> tuple[np.ndarray, float]:
    h, w = image.shape[:2]
    k = min(1.0, SEG_LONG_EDGE / max(h, w))
    if k >= 1.0:
        return image, 1.0
    size = (max(1, round(w * k)), max(1, round(h * k)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), k


def _face_seed(mask: np.ndarray, faces: tuple[Box, ...]) -> None:
    """Mark faces (sure foreground cores) and their head, shoulders and body below (probable
    foreground) in a GrabCut mask of probable background."""
    h, w = mask.shape
    for face in faces:
        x0, y0, x1, y1 = face.to_pixels(w, h)
        fw, fh = x1 - x0, y1 - y0
        cx = (x0 + x1) / 2
        hx0, hx1 = cx - HEAD_WIDTH * fw / 2, cx + HEAD_WIDTH * fw / 2
        head = (x0 - 0.15 * fw, y0 - HEAD_ABOVE * fh, x1 + 0.15 * fw, y1 + 0.3 * fh)
        body = (hx0, y1 + 0.3 * fh, hx1, h)
        for bx0, by0, bx1, by1 in (head, body):
            mask[max(0, round(by0)):max(0, round(by1)),
                 max(0, round(bx0)):max(0, round(bx1))] = cv2.GC_PR_FGD
    for face in faces:  # cores last: the face and the neck below it are sure foreground
        x0, y0, x1, y1 = face.to_pixels(w, h)
        fw, fh = x1 - x0, y1 - y0
        cx = (x0 + x1) / 2
        mask[round(y0 + 0.2 * fh):round(y1 - 0.15 * fh),
             round(x0 + 0.2 * fw):round(x1 - 0.2 * fw)] = cv2.GC_FGD
        mask[round(y1 - 0.15 * fh):min(h, round(y1 + NECK_BELOW * fh)),
             max(0, round(cx - 0.25 * fw)):round(cx + 0.25 * fw)] = cv2.GC_FGD


def _saliency_seed(mask: np.ndarray, image: np.ndarray, focus: Box) -> None:
    """Mark the salient part of the focus box as probable foreground."""
    h, w = mask.shape
    sal = cv2.resize(saliency_map(image), (w, h), interpolation=cv2.INTER_LINEAR)
    x0, y0, x1, y1 = (round(v) for v in focus.to_pixels(w, h))
    inside = np.zeros_like(mask, bool)
    inside[y0:y1, x0:x1] = True
    mask[inside & (sal >= SALIENCY_FG)] = cv2.GC_PR_FGD


def _seed_mask(image: np.ndarray, subject: Subject) -> np.ndarray:
    """The GrabCut initialization: probable background with the subject seeded, and the border
    strip sure background wherever the seed left it background (a body running off the bottom
    edge, or hair off the top, stays foreground)."""
    h, w = image.shape[:2]
    mask = np.full((h, w), cv2.GC_PR_BGD, np.uint8)
    if subject.faces:
        _face_seed(mask, subject.faces)
    else:
        _saliency_seed(mask, image, subject.focus)
    b = max(2, round(BORDER_BG * min(h, w)))
    border = np.zeros((h, w), bool)
    border[:b], border[-b:], border[:, :b], border[:, -b:] = True, True, True, True
    mask[border & (mask == cv2.GC_PR_BGD)] = cv2.GC_BGD
    return mask


def _grabcut(image: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, int, float]:
    """Run GrabCut one iteration at a time until the foreground stops changing: the binary
    foreground, the iterations run, and the share of the foreground the last one flipped."""
    started = time.thread_time()
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    bgr = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
    cv2.setRNGSeed(0)  # GrabCut's k-means seeds from the thread's RNG: the same matte every run
    cv2.grabCut(bgr, mask, None, bgd, fgd, 1, cv2.GC_INIT_WITH_MASK)
    fg = np.isin(mask, (cv2.GC_FGD, cv2.GC_PR_FGD))
    change, iterations = 1.0, 1
    while iterations < GRABCUT_MAX_ITERATIONS and time.thread_time() - started < GRABCUT_BUDGET_S:
        cv2.grabCut(bgr, mask, None, bgd, fgd, 1, cv2.GC_EVAL)
        iterations += 1
        now = np.isin(mask, (cv2.GC_FGD, cv2.GC_PR_FGD))
        change = float(np.count_nonzero(now != fg)) / max(1, int(np.count_nonzero(now)))
        fg = now
        if change < CONVERGED_CHANGE / 4:
            break
    return fg, iterations, change


def _edge_agreement(gray: np.ndarray, fg: np.ndarray) -> tuple[float, float]:
    """Share of the mask's outline (away from the photo border) within 2 px of a Canny edge,
    and the same above chance (0 when the outline lies on edges no more often than any pixel of
    a busy photo does, 1 when all of it does)."""
    median = float(np.median(gray))
    edges = cv2.Canny(cv2.GaussianBlur(gray, (0, 0), 1.0), 0.4 * median + 10, 0.9 * median + 30)
    near = cv2.dilate(edges, np.ones((5, 5), np.uint8)) > 0
    u8 = fg.astype(np.uint8)
    outline = cv2.morphologyEx(u8, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    outline[:2, :] = outline[-2:, :] = False
    outline[:, :2] = outline[:, -2:] = False
    total = int(np.count_nonzero(outline))
    if not total:
        return 0.0, 0.0
    agreement = float(np.count_nonzero(outline & near)) / total
    chance = float(near.mean())
    return agreement, max(0.0, (agreement - chance) / max(1e-6, 1.0 - chance))


def _colour_separation(image: np.ndarray, piece: np.ndarray) -> float:
    """1 minus the overlap (Bhattacharyya coefficient) of the colour histograms of the
    subject and of a ring of :data:`RING` around it: how cleanly its colours set it apart (a
    boat among boats, a rock face among rocks score low)."""
    u8 = piece.astype(np.uint8)
    grow = max(3, round(RING * max(piece.shape)) | 1)
    ring = cv2.dilate(u8, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow))) > u8
    if not ring.any() or not piece.any():
        return 0.0
    step = 256 // COLOUR_BINS

    def histogram(pixels: np.ndarray) -> np.ndarray:
        q = (pixels // step).astype(np.int32)
        index = (q[:, 0] * COLOUR_BINS + q[:, 1]) * COLOUR_BINS + q[:, 2]
        counts = np.bincount(index, minlength=COLOUR_BINS ** 3).astype(np.float64)
        return counts / counts.sum()

    overlap = float(np.sqrt(histogram(image[piece]) * histogram(image[ring])).sum())
    return max(0.0, 1.0 - overlap)


def _border_touch(piece: np.ndarray) -> float:
    """The largest share of the photo's left, right or top edge the subject covers (a body
    running off the bottom is normal; a region cut by the sides is scenery, not a subject)."""
    return float(max(piece[:, :2].mean(), piece[:, -2:].mean(), piece[:2].mean()))


def ramp(value: float, doubtful: float, good: float) -> float:
    """0 at ``doubtful``, 1 at ``good``, linear between (either may be the larger)."""
    if good == doubtful:
        return 1.0 if value >= good else 0.0
    return min(1.0, max(0.0, (value - doubtful) / (good - doubtful)))


def matte_quality(measures: dict[str, float]) -> float:
    """The matte's score (0..1): its weakest measure, each mapped through
    :data:`QUALITY_RAMPS`. Under :data:`QUALITY_MIN` the matte is doubtful."""
    return min(ramp(measures[name], *QUALITY_RAMPS[name]) for name in QUALITY_RAMPS)


def _largest_piece(fg: np.ndarray) -> tuple[np.ndarray, float]:
    """The largest connected piece of ``fg`` with its holes filled, and its share of ``fg``."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(fg.astype(np.uint8), 8)
    if count <= 1:
        return np.zeros_like(fg), 0.0
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    piece = (labels == biggest).astype(np.uint8)
    contours, _ = cv2.findContours(piece, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(piece)
    cv2.drawContours(filled, contours, -1, 1, thickness=-1)
    return filled > 0, float(stats[biggest, cv2.CC_STAT_AREA]) / max(1, int(fg.sum()))


def _close_gaps(piece: np.ndarray, subject: Subject) -> np.ndarray:
    """Close notches narrower than :data:`CLOSE_GAP` of the subject's size (under a chin,
    between an arm and the body): background seen through them would move with the wrong
    layer."""
    w = piece.shape[1]
    if subject.faces:
        size = max(b.x1 - b.x0 for b in subject.faces) * w
    else:
        size = (subject.focus.x1 - subject.focus.x0) * w
    k = max(3, round(CLOSE_GAP * size) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    closed = cv2.morphologyEx(piece.astype(np.uint8), cv2.MORPH_CLOSE, kernel) > 0
    return _largest_piece(closed)[0]


def _solidity(piece: np.ndarray) -> float:
    contours, _ = cv2.findContours(piece.astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return 0.0
    hull = cv2.convexHull(np.vstack(contours))
    return float(piece.sum()) / max(1.0, cv2.contourArea(hull))


def _face_cover(piece: np.ndarray, faces: tuple[Box, ...]) -> float:
    """The smallest share of a face's core (its inner box) inside the foreground."""
    h, w = piece.shape
    cover = 1.0
    for face in faces:
        x0, y0, x1, y1 = face.to_pixels(w, h)
        fw, fh = x1 - x0, y1 - y0
        core = piece[round(y0 + 0.2 * fh):round(y1 - 0.2 * fh),
                     round(x0 + 0.2 * fw):round(x1 - 0.2 * fw)]
        if core.size:
            cover = min(cover, float(core.mean()))
    return cover


def judge(fg: np.ndarray, image: np.ndarray, subject: Subject, iterations: int,
          change: float) -> tuple[Separation, np.ndarray]:
    """Measure a GrabCut foreground of the RGB ``image`` it was cut from; returns the verdict
    (the hard checks, then the matte's score, see :func:`matte_quality`) and the cleaned mask
    (largest piece, holes filled)."""
    piece, compactness = _largest_piece(fg)
    piece = _close_gaps(piece, subject)
    area = float(piece.mean())
    agreement, lift = _edge_agreement(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), piece)
    solidity = _solidity(piece) if area > 0 else 0.0
    cover = _face_cover(piece, subject.faces)
    measures = {"separation": _colour_separation(image, piece), "edge_lift": lift,
                "solidity": solidity, "compactness": compactness, "face_cover": cover,
                "border": 0.0 if subject.faces else _border_touch(piece)}
    quality = matte_quality(measures)
    checks = (
        (AREA_MIN <= area <= AREA_MAX, f"foreground share {area:.2f} outside "
                                       f"{AREA_MIN}..{AREA_MAX}"),
        (change < CONVERGED_CHANGE, f"GrabCut did not converge ({change:.3f} still changing)"),
        (agreement >= EDGE_AGREEMENT_MIN, f"outline off the image edges ({agreement:.2f})"),
        (quality >= QUALITY_MIN, "doubtful matte (score {:.2f}: {})".format(
            quality, ", ".join(f"{k} {v:.2f}" for k, v in measures.items()))),
    )
    failed = [reason for ok, reason in checks if not ok]
    verdict = Separation(not failed, "; ".join(failed), round(area, 4), round(agreement, 4),
                         round(compactness, 4), round(solidity, 4), round(cover, 4),
                         iterations, round(change, 4), round(lift, 4),
                         round(measures["separation"], 4), round(measures["border"], 4),
                         round(quality, 4), round(quality, 4))
    return verdict, piece


def matte_cut(image_rgb: np.ndarray, subject: Subject) -> tuple[np.ndarray | None, Separation]:
    """The subject's low-resolution foreground mask (bool, :data:`SEG_LONG_EDGE` pixels on its
    long edge) cut from an RGB uint8 photo by GrabCut and the matte's verdict (see
    :func:`judge`); None with the reason when there is no subject to separate or the
    separation measures poorly. Says nothing yet of what the background shows once the
    subject moves (:func:`media.frames.parallax.cut_subject`)."""
    if subject.source == "centre":
        return None, Separation(False, "no subject found")
    small, _ = _small(image_rgb)
    seed = _seed_mask(small, subject)
    if not np.isin(seed, (cv2.GC_FGD, cv2.GC_PR_FGD)).any():
        return None, Separation(False, "nothing salient to seed the subject")
    if not np.isin(seed, (cv2.GC_BGD, cv2.GC_PR_BGD)).any():  # GrabCut needs both to start
        return None, Separation(False, "the subject fills the photo: no background to cut "
                                       "it from")
    fg, iterations, change = _grabcut(small, seed)
    verdict, piece = judge(fg, small, subject, iterations, change)
    return (piece if verdict.ok else None), verdict
