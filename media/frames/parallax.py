"""Premium motion: 2.5D parallax. The subject is lifted onto its own layer and moves faster
than the background behind it, as if the camera dollied past a real scene; where the subject
does not come off cleanly, the roll push (:class:`RollPushLayer`) instead.

:func:`matte_cut` runs GrabCut on a copy of the photo :data:`SEG_LONG_EDGE` pixels long,
initialized from the faces (each face box grown to head and shoulders, the body continuing to
the photo's bottom edge) or, without faces, from the saliency map around the focus box. It
measures the separation (:class:`Separation`): foreground share, convergence, and the matte's
score (:func:`matte_quality`, the weakest of: colour separation of the subject from its
surroundings, outline on image edges above chance, solidity, compactness, face cover, and for
subjects without faces how much of the photo's sides it touches). A failed check or a score
under :data:`QUALITY_MIN` (a doubtful matte) returns no cut.

:func:`cut_subject` then scores what the fill will expose (:func:`exposure_score`): the
background's fine detail in the strips beside the subject that a slide of :data:`MAX_SHIFT`
uncovers, in every direction (a smooth fill is invisible beside a wall or the sky, a smear
beside rock, foliage or stray hair the matte left behind). The parallax score is the lower of
the two; under :data:`QUALITY_MIN` there is no parallax (the planner gives the photo the roll
push), above it the score bounds the slide (:func:`bounded_rate`). The planner
(:func:`matte_score`) and the render both cut the same ungraded photo with the same seeded,
deterministic steps, so they agree.

GrabCut runs one iteration at a time within :data:`GRABCUT_BUDGET_S` (its cost depends on the
content: a low-contrast gray photo can take ten times longer than a portrait).

:class:`ParallaxLayers` holds the foreground (RGBA: the soft matte of :func:`soft_matte`, in
which the strands at the cut's edge, hair against the sky, are lifted with the subject by a
two-colour mixing model, their colour estimated without the background behind them) and a
background filled behind everything the foreground holds and a hair's breadth more
(:func:`filled_background`), the photo's own beyond: what the moving subject reveals is never
its ghost, and nothing beside it is blurred before it moves.

:class:`ParallaxLayer` renders a shot: the foreground follows the planned Ken Burns move
(:func:`media.look.framing.plan_ken_burns`, so faces stay in frame and the path stays smooth), the
background the same eased path scaled about its midpoint by a rate chosen so that the subject
slides over the background by at most its matte's score times :data:`MAX_SHIFT` of the frame
(:func:`bounded_rate`); both are float affine warps (sub-pixel), the foreground warped only over
its bounding box and blended by its alpha.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import cv2
import numpy as np

from media.base import yuv
from media.frames.compose import (
    Prescaled,
    PrescaledI420,
    prescale,
    prescale_i420,
    render_crop_i420,
    viewport_matrix,
)
from media.look.camera import Motion, Rect, ease
from media.look.subjects import Box, Subject, saliency_map
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
FEATHER = 0.0009  # alpha feather sigma after edge snapping, as a share of the long edge
GUIDE_RADIUS = 1.5  # guided-filter radius, in low-resolution mask pixels
GUIDE_EPS = 1e-3  # guided-filter regularization (intensity^2): lower follows edges harder
LAYER_LONG_EDGE = 2560  # pixels: layers are built no larger (a 1080p frame shows a 12 MP photo
# at about half size; full-size layers of one photo held ~1 GB at once)
REFINE_LONG_EDGE = 2048  # pixels: the guided filter's working size (float32 planes at 12 MP
# would hold ~0.5 GB at once; at 2048 px, under 1080p crops, the edge looks the same)
FILL_ALPHA = 0.04  # the background is filled wherever the soft matte is above this alpha
FILL_MARGIN = 0.003  # and a hair's breadth around it (share of the long edge), no more: beyond
# it the background is the photo's own (a wider fill showed as a blurred band beside the subject)
MATTE_REACH = 0.035  # the soft matte looks this far outside the cut for hair (share of long
# edge)
MATTE_INSIDE = 0.002  # and this far inside it (the subject's colour is read just inside that)
MATTE_NOISE = 8.0  # colour units added to the spread of the colours (the two-colour model's noise)
MATTE_TRUST = (1.5, 3.0)  # subject-to-background contrast over that spread: no trust .. full
MATTE_MISS_MAX = 0.5  # a pixel this far off the two colours' line (share of their contrast)
# is not a mix of them: the cut's alpha stays there
MATTE_SPECK = 0.15  # alpha above which a lifted pixel outside the cut must hang from the subject
MATTE_STRAND = 0.004  # and be part of a strand thinner than this (share of the long edge): a
# solid region the colours lift outside the cut (a door frame as bright as a face) stays behind
EXPOSE_LONG_EDGE = 768  # pixels: the uncovered background's detail is measured this large
DETAIL_SCALE = 0.005  # detail is what varies within this share of the long edge (about 10 px of
# a 1080p frame): what the smooth fill lacks
DETAIL_SHARE = 0.8  # the strip beside the subject is judged by this quantile of its detail
DETAIL_PLAIN, DETAIL_BUSY = 3.0, 9.0  # detail (luminance RMS, 0..255) where a fill stays
# invisible at the largest slide .. shows even at half of it
FILL_LONG_EDGE = 640  # pixels: the background fill (push-pull) is computed this large, once
FILL_BLUR = 0.004  # the fill's final blur sigma, as a share of its long edge
CLEAN_ALPHA = 250  # alpha (0..255) from which a foreground pixel is pure subject colour
BACKGROUND_RATE = 0.35  # the background moves this share of the subject's move
MAX_SHIFT = 0.015  # largest subject-over-background shift (share of the frame width) of a
# perfect matte; a matte scoring q gets q times this
QUALITY_MIN = PARALLAX_MATTE_MIN  # a matte scoring less is doubtful: no parallax (the planner
# gives such a photo no parallax shot; the render falls back to the roll push if it disagrees)
COLOUR_BINS = 8  # per channel: colour histograms of the subject and its surroundings
RING = 0.05  # the surroundings compared with the subject: this share of the long edge around it
ROLL_DEGREES = 1.5  # the fallback move's roll over the shot
ROLL_PUSH = 0.06  # and its push, on top of the planned move
ROLL_SAFETY = 1.01  # extra zoom: bilinear samples at the turned corners stay inside too
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
PREMULTIPLY_ROWS = 256  # rows of the foreground premultiplied at a time


@dataclass(frozen=True)
class Separation:
    """How well the subject came off the background; ``ok`` says whether to use parallax and
    ``reason`` why not. Shares are 0..1; ``matte`` is the matte's score (see
    :func:`matte_quality`), ``detail`` the background's beside the subject (luminance RMS,
    see :func:`exposure_score`), ``quality`` the parallax score (the matte's, lowered by what
    the fill would expose), which also bounds how far the subject moves over the
    background."""

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


@dataclass(frozen=True)
class ParallaxLayers:
    """The two layers of a photo at its full resolution: ``foreground`` RGBA (alpha feathered,
    zero away from the subject) and ``background`` RGB (subject region filled). ``bbox`` is the
    foreground's extent in photo pixels (x0, y0, x1, y1)."""

    foreground: np.ndarray
    background: np.ndarray
    bbox: tuple[int, int, int, int]
    separation: Separation
    scale: float = 1.0  # layer pixels per photo pixel (see LAYER_LONG_EDGE)


# --- separation ------------------------------------------------------------------------------


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


def _ramp(value: float, doubtful: float, good: float) -> float:
    """0 at ``doubtful``, 1 at ``good``, linear between (either may be the larger)."""
    if good == doubtful:
        return 1.0 if value >= good else 0.0
    return min(1.0, max(0.0, (value - doubtful) / (good - doubtful)))


def matte_quality(measures: dict[str, float]) -> float:
    """The matte's score (0..1): its weakest measure, each mapped through
    :data:`QUALITY_RAMPS`. Under :data:`QUALITY_MIN` the matte is doubtful."""
    return min(_ramp(measures[name], *QUALITY_RAMPS[name]) for name in QUALITY_RAMPS)


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
    subject moves (:func:`cut_subject`)."""
    if subject.source == "centre":
        return None, Separation(False, "no subject found")
    small, _ = _small(image_rgb)
    seed = _seed_mask(small, subject)
    if not np.isin(seed, (cv2.GC_FGD, cv2.GC_PR_FGD)).any():
        return None, Separation(False, "nothing salient to seed the subject")
    fg, iterations, change = _grabcut(small, seed)
    verdict, piece = judge(fg, small, subject, iterations, change)
    return (piece if verdict.ok else None), verdict


def cut_subject(image_rgb: np.ndarray, subject: Subject) -> tuple[np.ndarray | None,
                                                                  Separation]:
    """The subject's cut (:func:`matte_cut`) and the parallax verdict: its ``quality`` is the
    lower of the matte's score (``matte``) and what the fill will expose
    (:func:`exposure_score`, by the background's ``detail`` beside the subject), the score
    that bounds the slide; None with the reason when either is under :data:`QUALITY_MIN`.
    What the planner reads (:func:`matte_score`) and what the render lifts layers from
    (:func:`layers_from_cut`): both cut the same ungraded photo, so they agree."""
    piece, verdict = matte_cut(image_rgb, subject)
    if piece is None:
        return None, verdict
    exposure, detail = exposure_score(image_rgb, piece)
    quality = min(verdict.quality, exposure)
    verdict = replace(verdict, detail=round(detail, 2), quality=round(quality, 4))
    if quality < QUALITY_MIN:
        return None, replace(verdict, ok=False, reason=(
            f"busy background beside the subject: the fill would show (detail {detail:.1f} "
            f"over {DETAIL_PLAIN:g}..{DETAIL_BUSY:g}, score {quality:.2f})"))
    return piece, verdict


def matte_score(image_rgb: np.ndarray, subject: Subject) -> float:
    """The photo's usable matte score (0..1, see :func:`matte_quality`) for the planner: the
    score of its subject's cut when every check passes, else 0 (no parallax)."""
    _, verdict = cut_subject(image_rgb, subject)
    return verdict.quality if verdict.ok else 0.0


def layers_from_cut(image_rgb: np.ndarray, piece: np.ndarray,
                    verdict: Separation) -> ParallaxLayers:
    """The two layers of an RGB uint8 photo (the graded picture the film shows) from its cut
    ``piece`` (:func:`cut_subject`), built at most :data:`LAYER_LONG_EDGE` pixels long."""
    h, w = image_rgb.shape[:2]
    k = min(1.0, LAYER_LONG_EDGE / max(h, w))
    work = image_rgb if k >= 1.0 else cv2.resize(
        image_rgb, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    return build_layers(work, piece, verdict, scale=k)


def separate_subject(image_rgb: np.ndarray, subject: Subject) -> tuple[ParallaxLayers | None,
                                                                       Separation]:
    """Lift the subject of an RGB uint8 photo onto its own layer (see module doc): its cut
    (:func:`cut_subject`) and the layers from it (:func:`layers_from_cut`).

    Returns the layers at the photo's resolution, or None with the reason when there is no
    subject to separate or the separation measures poorly.
    """
    piece, verdict = cut_subject(image_rgb, subject)
    if piece is None:
        return None, verdict
    return layers_from_cut(image_rgb, piece, verdict), verdict


# --- the soft matte: what hangs from the subject goes with it -----------------------------------


def _ramps(values: np.ndarray, doubtful: float, good: float) -> np.ndarray:
    """:func:`_ramp` on an array (float32)."""
    return np.clip((values - doubtful) / (good - doubtful), 0.0, 1.0).astype(np.float32)


def prior_alpha(work: np.ndarray, piece: np.ndarray) -> np.ndarray:
    """The cut ``piece`` (bool, low resolution) as an alpha of the RGB ``work`` copy (float32
    0..1): upsampled, snapped to the photo's own edges by a guided filter (He et al. 2010;
    luminance guide, radius a little over one mask pixel) and lightly feathered
    (:data:`FEATHER`)."""
    wh, ww = work.shape[:2]
    scale = ww / piece.shape[1]
    prior = cv2.resize(piece.astype(np.uint8) * 255, (ww, wh),
                       interpolation=cv2.INTER_LINEAR).astype(np.float32) / 255
    guide = cv2.cvtColor(work, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255
    alpha = guided_filter(guide, prior, max(2, round(GUIDE_RADIUS * scale)), GUIDE_EPS)
    del prior, guide
    alpha = cv2.GaussianBlur(alpha, (0, 0), max(0.7, FEATHER * max(wh, ww)))
    return np.clip(alpha, 0.0, 1.0, out=alpha)


def _local_spread(image: np.ndarray, known: np.ndarray, sigma: float) -> np.ndarray:
    """How much the ``known`` colours of ``image`` (float32 RGB) vary around each pixel: the RMS
    distance (colour units) to their Gaussian-weighted mean within ``sigma`` pixels, carried
    over the unknown pixels nearby; worked at a quarter of the size (a smooth field)."""
    h, w = known.shape
    small = (max(1, w // 4), max(1, h // 4))
    weight = known.astype(np.float32)
    colour = cv2.resize(image * weight[..., None], small, interpolation=cv2.INTER_AREA)
    power = cv2.resize(np.einsum("ijk,ijk->ij", image, image) * weight, small,
                       interpolation=cv2.INTER_AREA)
    share = cv2.resize(weight, small, interpolation=cv2.INTER_AREA)
    s = max(1.0, sigma / 4)
    total = cv2.GaussianBlur(share, (0, 0), s) + 1e-6
    mean = cv2.GaussianBlur(colour, (0, 0), s) / total[..., None]
    variance = cv2.GaussianBlur(power, (0, 0), s) / total - np.einsum("ijk,ijk->ij", mean, mean)
    spread = np.sqrt(np.maximum(variance, 0.0))
    return cv2.resize(spread, (w, h), interpolation=cv2.INTER_LINEAR)


@dataclass(frozen=True)
class SoftMatte:
    """A subject's alpha at a working size with its own colours at the soft edge: ``alpha``
    (float32 0..1, the whole picture) and, over ``roi`` (x0, y0, x1, y1), ``colour`` (float32
    RGB: the subject's colour where the alpha is partial, estimated without the background
    behind it); ``colour`` is None when the cut had no edge to refine."""

    alpha: np.ndarray
    colour: np.ndarray | None
    roi: tuple[int, int, int, int]


def soft_matte(work: np.ndarray, piece: np.ndarray) -> SoftMatte:
    """The subject's soft matte on the RGB uint8 ``work`` copy from its cut ``piece``.

    The guided-filter alpha (:func:`prior_alpha`) is hard at the scale of the cut, so fine
    structures beyond it (hair, fur, a strand against the sky) would stay in the background
    and show as a ghost once the subject moves. In a band around the cut (:data:`MATTE_REACH`
    outside, :data:`MATTE_INSIDE` inside) each pixel is explained as a mix of the subject's
    colour and the background's there (both carried in from the pixels beyond the band by
    :func:`push_pull_fill`): its alpha is its position on the line between the two (Bayesian
    matting with one sample each, Chuang et al. 2001). That alpha is trusted as far as the two
    colours stand apart against how much each varies around there (:func:`_local_spread`) and
    the pixel lies on that line; elsewhere the guided-filter alpha stays. What the model lifts
    outside the cut stays only where it is a strand (thinner than :data:`MATTE_STRAND`) hanging
    from the subject (a speck of the same colour in the background, or a bright door frame
    beside a face, stays behind). Deterministic: filters only."""
    prior = prior_alpha(work, piece)
    wh, ww = prior.shape
    long = max(wh, ww)
    reach, inside = max(2.0, MATTE_REACH * long), max(1.0, MATTE_INSIDE * long)
    hard = (prior >= 0.5).astype(np.uint8)
    band = (cv2.distanceTransform(1 - hard, cv2.DIST_L2, 3) <= reach) \
        & (cv2.distanceTransform(hard, cv2.DIST_L2, 3) <= inside)
    ys, xs = np.nonzero(band)
    if not xs.size:
        return SoftMatte(prior, None, (0, 0, 0, 0))
    pad = int(2 * reach) + 2
    x0, y0 = max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad)
    x1, y1 = min(ww, int(xs.max()) + 1 + pad), min(wh, int(ys.max()) + 1 + pad)
    del ys, xs
    image = work[y0:y1, x0:x1].astype(np.float32)
    unsure, subject = band[y0:y1, x0:x1], hard[y0:y1, x0:x1] > 0
    known_fore, known_back = subject & ~unsure, ~subject & ~unsure
    local = prior[y0:y1, x0:x1]
    if not known_fore.any() or not known_back.any():
        return SoftMatte(prior, None, (0, 0, 0, 0))
    fore, back = push_pull_fill(image, known_fore), push_pull_fill(image, known_back)
    spread = _local_spread(image, known_back, reach)
    step = fore - back
    contrast2 = np.einsum("ijk,ijk->ij", step, step)
    mix = np.einsum("ijk,ijk->ij", image - back, step) / (contrast2 + 1.0)
    np.clip(mix, 0.0, 1.0, out=mix)
    off = image - back - mix[..., None] * step
    miss = np.sqrt(np.einsum("ijk,ijk->ij", off, off))
    del off
    contrast = np.sqrt(contrast2)
    trust = _ramps(contrast / (spread + MATTE_NOISE), *MATTE_TRUST) \
        * _ramps(miss / (contrast + 1.0), MATTE_MISS_MAX, MATTE_MISS_MAX / 2)
    alpha = np.where(unsure, trust * mix + (1.0 - trust) * local, local).astype(np.float32)
    outside = unsure & ~subject
    lifted = ((alpha > MATTE_SPECK) & outside).astype(np.uint8)
    thick = max(3, round(2 * MATTE_STRAND * long) | 1)
    solid = cv2.morphologyEx(lifted, cv2.MORPH_OPEN, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (thick, thick))) > 0  # a region, not a strand: the cut's call
    _, labels = cv2.connectedComponents(((lifted > 0) & ~solid | subject).astype(np.uint8),
                                        connectivity=8)
    loose = outside & (solid | ~np.isin(labels, np.unique(labels[subject])))
    alpha[loose] = np.minimum(alpha[loose], local[loose])
    full = prior
    full[y0:y1, x0:x1] = alpha
    # The subject's own colour at its soft edge: the mix solved for it where the alpha is high
    # enough to trust the division, its colour carried in from inside elsewhere.
    exact = (image - (1.0 - alpha[..., None]) * back) / np.maximum(alpha, 0.05)[..., None]
    weight = _ramps(alpha, 0.3, 0.8)[..., None]
    colour = np.clip(weight * exact + (1.0 - weight) * fore, 0.0, 255.0)
    return SoftMatte(full, colour.astype(np.float32), (x0, y0, x1, y1))


# --- what the moving subject uncovers ----------------------------------------------------------


def covered(present: np.ndarray) -> np.ndarray:
    """What the background fill replaces (bool): every pixel where the soft matte gives any
    subject (``present``: alpha over :data:`FILL_ALPHA`), grown by :data:`FILL_MARGIN` of the
    long edge."""
    grow = max(3, round(2 * FILL_MARGIN * max(present.shape)) | 1)
    return cv2.dilate(present.astype(np.uint8),
                      cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow, grow))) > 0


def background_detail(image_rgb: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """The background's fine detail around each pixel not ``hidden`` (float32, luminance units
    0..255; 0 where hidden): the RMS of its luminance less its local mean over
    :data:`DETAIL_SCALE` of the long edge, both taken over the visible pixels only (the
    subject's own edge does not count). A smooth fill is invisible where this is low (sky, a
    plain wall, a blurred background) and shows as a smear where it is high (rock, foliage,
    a crowd, stray hair)."""
    gray = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    seen = (~hidden).astype(np.float32)
    sigma = max(1.0, DETAIL_SCALE * max(gray.shape))

    def mean(values: np.ndarray) -> np.ndarray:
        return cv2.GaussianBlur(values * seen, (0, 0), sigma) / np.maximum(
            cv2.GaussianBlur(seen, (0, 0), sigma), 1e-3)

    fine = (gray - mean(gray)) * seen
    return np.sqrt(mean(fine * fine)) * seen


def uncovered_detail(detail: np.ndarray, hidden: np.ndarray, band: float) -> float:
    """The worst detail beside what the subject uncovers: for each of eight directions the
    background strip ``band`` pixels wide next to ``hidden`` on that side (where the fill will
    show once the subject slides the other way by that much: a pan uncovers both sides, one at
    each end of the shot, a push all round), its :data:`DETAIL_SHARE` quantile; the largest."""
    h, w = hidden.shape
    mask = hidden.astype(np.uint8)
    worst = 0.0
    for k in range(8):
        angle = math.tau * k / 8
        shift = np.float32([[1, 0, -band * math.cos(angle)], [0, 1, -band * math.sin(angle)]])
        moved = cv2.warpAffine(mask, shift, (w, h), flags=cv2.INTER_NEAREST) > 0
        strip = moved & ~hidden
        if np.count_nonzero(strip) >= 8:
            worst = max(worst, float(np.quantile(detail[strip], DETAIL_SHARE)))
    return worst


def exposure_score(image_rgb: np.ndarray, piece: np.ndarray) -> tuple[float, float]:
    """How clean the fill stays where the subject slides off it (0..1) and the detail it is
    judged by (see :func:`uncovered_detail`), measured on a copy :data:`EXPOSE_LONG_EDGE`
    pixels long with the soft matte the layers use (:func:`soft_matte`): 1 up to
    :data:`DETAIL_PLAIN`, 0 from :data:`DETAIL_BUSY`. The band is the largest slide
    (:data:`MAX_SHIFT` of the long edge); the score then bounds the slide
    (:func:`bounded_rate`), so a busy background gets a small one or none."""
    h, w = image_rgb.shape[:2]
    k = min(1.0, EXPOSE_LONG_EDGE / max(h, w))
    work = image_rgb if k >= 1.0 else cv2.resize(
        image_rgb, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    hidden = covered(soft_matte(work, piece).alpha > FILL_ALPHA)
    detail = uncovered_detail(background_detail(work, hidden), hidden,
                              max(2.0, MAX_SHIFT * max(work.shape[:2])))
    return _ramp(detail, DETAIL_BUSY, DETAIL_PLAIN), detail


# --- layers ----------------------------------------------------------------------------------


def build_layers(image_rgb: np.ndarray, piece: np.ndarray, separation: Separation,
                 scale: float = 1.0) -> ParallaxLayers:
    """Full-resolution foreground (RGBA: the soft matte, its edge in the subject's own colours)
    and filled background from a low-resolution foreground mask ``piece`` (bool, same ratio
    as the photo)."""
    alpha, colour = layer_matte(image_rgb, piece)
    foreground = np.dstack([colour, alpha])
    del colour
    background = filled_background(image_rgb, alpha)
    ys, xs = np.nonzero(alpha)
    bbox = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1) if xs.size \
        else (0, 0, 0, 0)
    if scale != 1.0:  # bbox in photo pixels, rounded outwards
        bbox = (math.floor(bbox[0] / scale), math.floor(bbox[1] / scale),
                math.ceil(bbox[2] / scale), math.ceil(bbox[3] / scale))
    return ParallaxLayers(foreground, background, bbox, separation, scale)


def layer_matte(image_rgb: np.ndarray, piece: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The foreground's alpha (uint8) and colours (RGB uint8) at the photo's size: the soft
    matte (:func:`soft_matte`) worked on a copy at most :data:`REFINE_LONG_EDGE` pixels long,
    its alpha scaled to the photo; where the alpha is under :data:`CLEAN_ALPHA` the colour is
    the subject's own (the matte's estimate), so the edge carries no background along when the
    subject moves (no halo, no smear)."""
    h, w = image_rgb.shape[:2]
    k = min(1.0, REFINE_LONG_EDGE / max(h, w))
    work = image_rgb if k >= 1.0 else cv2.resize(
        image_rgb, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    matte = soft_matte(work, piece)
    del work
    alpha_u8 = np.clip(matte.alpha * 255 + 0.5, 0, 255).astype(np.uint8)
    if alpha_u8.shape != (h, w):
        alpha_u8 = cv2.resize(alpha_u8, (w, h), interpolation=cv2.INTER_LINEAR)
    colour = image_rgb.copy()
    if matte.colour is None:
        return alpha_u8, colour
    x0, y0, x1, y1 = matte.roi
    sx, sy = w / matte.alpha.shape[1], h / matte.alpha.shape[0]
    fx0, fy0 = math.floor(x0 * sx), math.floor(y0 * sy)
    fx1, fy1 = min(w, math.ceil(x1 * sx)), min(h, math.ceil(y1 * sy))
    estimate = cv2.resize(np.clip(matte.colour + 0.5, 0, 255).astype(np.uint8),
                          (fx1 - fx0, fy1 - fy0), interpolation=cv2.INTER_LINEAR)
    edge = (alpha_u8[fy0:fy1, fx0:fx1] > 0) & (alpha_u8[fy0:fy1, fx0:fx1] < CLEAN_ALPHA)
    colour[fy0:fy1, fx0:fx1][edge] = estimate[edge]
    return alpha_u8, colour


def guided_filter(guide: np.ndarray, src: np.ndarray, radius: int, eps: float) -> np.ndarray:
    """Edge-preserving smoothing of ``src`` steered by ``guide`` (both float32 0..1, same size;
    ``radius`` pixels, ``eps`` the regularization in squared intensity units)."""
    size = (2 * radius + 1, 2 * radius + 1)

    def box(x: np.ndarray) -> np.ndarray:
        return cv2.boxFilter(x, cv2.CV_32F, size, borderType=cv2.BORDER_REFLECT)

    # In place where it can be: each float32 plane of a 2048 px photo is 12 MB.
    mean_i, mean_p = box(guide), box(src)
    a = box(guide * src)
    a -= mean_i * mean_p  # the covariance
    var = box(guide * guide)
    var -= mean_i * mean_i
    var += eps
    a /= var
    del var
    b = mean_p
    b -= a * mean_i
    del mean_i
    out = box(a)
    out *= guide
    out += box(b)
    return out


def push_pull_fill(image: np.ndarray, known: np.ndarray) -> np.ndarray:
    """``image`` (float32 H x W x 3) with its unknown pixels (``known`` 0) filled smoothly from
    the known ones around them: known colours are averaged down an image pyramid and the
    coarser levels fill in what each finer level lacks (no streaks along isophotes, unlike
    Telea's method on a tall hole)."""
    weights = [known.astype(np.float32)]
    sums = [image * weights[0][..., None]]
    while min(weights[-1].shape) > 4:
        weights.append(cv2.pyrDown(weights[-1]))
        sums.append(cv2.pyrDown(sums[-1]))
    colour = sums[-1] / np.maximum(weights[-1], 1e-6)[..., None]
    for total, weight in zip(reversed(sums[:-1]), reversed(weights[:-1]), strict=True):
        up = cv2.pyrUp(colour, dstsize=(weight.shape[1], weight.shape[0]))
        trust = np.clip(weight * 4.0, 0.0, 1.0)[..., None]  # a few known pixels suffice
        colour = trust * (total / np.maximum(weight, 1e-6)[..., None]) + (1.0 - trust) * up
    return colour


def filled_background(image_rgb: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The photo with everything the foreground covers (:func:`covered`: any alpha over
    :data:`FILL_ALPHA`, grown by a hair's breadth) replaced by a smooth fill from around it
    (:func:`push_pull_fill` at :data:`FILL_LONG_EDGE`, computed once per photo), blended in
    through a soft edge outside it: what the moving subject reveals is never the subject's
    ghost, and beyond the subject the background is the photo's own (no blurred band beside
    it even before it moves)."""
    h, w = image_rgb.shape[:2]
    k = min(1.0, FILL_LONG_EDGE / max(h, w))
    size = (max(1, round(w * k)), max(1, round(h * k)))
    small = cv2.resize(image_rgb, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    hole = covered(alpha > round(FILL_ALPHA * 255))
    hole_small = cv2.dilate((cv2.resize(hole.astype(np.uint8), size,
                                        interpolation=cv2.INTER_AREA) > 0).astype(np.uint8),
                            np.ones((3, 3), np.uint8))  # no pixel of the subject feeds the fill
    fill = push_pull_fill(small, 1 - hole_small)
    fill = cv2.GaussianBlur(fill, (0, 0), max(1.0, FILL_BLUR * max(size)))
    fill_up = cv2.resize(np.clip(fill + 0.5, 0, 255).astype(np.uint8), (w, h),
                         interpolation=cv2.INTER_LINEAR)
    del fill, small
    weight = hole.astype(np.float32)
    del hole
    soft = cv2.GaussianBlur(weight, (0, 0), max(1.0, FILL_MARGIN * max(h, w) / 2))
    np.maximum(weight, soft, out=weight)
    del soft
    return cv2.blendLinear(fill_up, image_rgb, weight, 1.0 - weight)


# --- rendering -------------------------------------------------------------------------------


def background_motion(motion: Motion, rate: float = BACKGROUND_RATE) -> Motion:
    """The background's move: ``motion``'s eased path scaled by ``rate`` about its midpoint
    (convex combinations of the planned viewports, so it stays inside the photo)."""
    lo, hi = (1.0 - rate) / 2, (1.0 + rate) / 2
    return Motion(motion.mode, motion.start.lerp(motion.end, lo),
                  motion.start.lerp(motion.end, hi), motion.frames, motion.move)


@dataclass(frozen=True)
class ScaledLayers:
    """:class:`ParallaxLayers` pre-scaled for one output size (see
    :func:`media.frames.compose.prescale_factor`) and converted once to the film's planes (see
    :mod:`media.base.yuv`), ready for "over" compositing with premultiplied alpha: per plane the
    foreground's value times its alpha and the alpha's complement (uint8; chroma ones are
    2x2 averages of the premultiplied values, so a frame costs cheap warps, a multiply and an
    add per plane) and the background."""

    premultiplied: PrescaledI420
    transparency: PrescaledI420  # 255 - alpha: y at luma size, u and v (equal) at chroma size
    background: PrescaledI420
    bbox: tuple[float, float, float, float]  # foreground extent, original photo pixels
    quality: float = 1.0  # the matte's score (see matte_quality)


def _premultiplied_planes(foreground: np.ndarray) -> list[np.ndarray]:
    """Y, U and V of an RGBA ``foreground`` times its alpha (uint8, rounded), worked in strips
    of :data:`PREMULTIPLY_ROWS` rows: whole, the float temporaries of a large layer were the
    render's memory peak."""
    height, width = foreground.shape[:2]
    out = [np.empty((height, width), np.uint8) for _ in range(3)]
    for top in range(0, height, PREMULTIPLY_ROWS):
        rows = slice(top, top + PREMULTIPLY_ROWS)
        weight = foreground[rows, :, 3].astype(np.float32) / 255.0
        planes = yuv.rgb_to_yuv444(foreground[rows])
        for plane, dst in enumerate(out):
            dst[rows] = np.clip(planes[..., plane] * weight + 0.5, 0, 255).astype(np.uint8)
    return out


def scale_layers(layers: ParallaxLayers, factor: float) -> ScaledLayers:
    """Both layers area-downscaled to ``factor`` of the photo's size (no change if the layers
    are that small already) and converted to planes; the foreground is premultiplied first
    (its Y, U and V, black being zero), so its downscaled edge does not pick up a fringe."""
    alpha = np.ascontiguousarray(layers.foreground[..., 3])
    k = factor / layers.scale  # vs the layer's size

    def scaled(plane: np.ndarray, chroma: bool) -> Prescaled:
        done = prescale(plane, k * (0.5 if chroma else 1.0), margin=False)  # chroma: half
        return Prescaled(done.image, done.sx * layers.scale, done.sy * layers.scale)

    premultiplied = _premultiplied_planes(layers.foreground)
    clear = 255 - alpha
    back = prescale_i420(layers.background, k, margin=False)
    background = PrescaledI420(*(Prescaled(p.image, p.sx * layers.scale, p.sy * layers.scale)
                                 for p in back.planes))
    return ScaledLayers(
        PrescaledI420(scaled(premultiplied[0], False), scaled(premultiplied[1], True),
                      scaled(premultiplied[2], True)),
        PrescaledI420(scaled(clear, False), *(2 * (scaled(clear, True),))),
        background, tuple(float(v) for v in layers.bbox), layers.separation.quality)


def relative_shift(motion: Motion, back: Motion, bbox: tuple[float, float, float, float],
                   out_w: int) -> float:
    """The largest distance (output pixels) between where the foreground and the background
    draw one photo point of ``bbox`` (its corners and centre), at the shot's ends and middle:
    how far the subject slides over what is behind it."""
    x0, y0, x1, y1 = bbox
    points = ((x0, y0), (x1, y0), (x0, y1), (x1, y1), ((x0 + x1) / 2, (y0 + y1) / 2))
    worst = 0.0
    for index in (0, motion.frames // 2, motion.frames - 1):
        fore, rear = motion.rect_at(index), back.rect_at(index)
        kf, kb = out_w / fore.w, out_w / rear.w
        for px, py in points:
            dx = (px - fore.x) * kf - (px - rear.x) * kb
            dy = (py - fore.y) * kf - (py - rear.y) * kb
            worst = max(worst, math.hypot(dx, dy))
    return worst


def bounded_rate(motion: Motion, bbox: tuple[float, float, float, float], out_w: int,
                 quality: float, rate: float = BACKGROUND_RATE) -> float:
    """The background's rate (see :func:`background_motion`) for a matte scoring ``quality``:
    ``rate`` unless the subject would then slide more than ``quality`` times
    :data:`MAX_SHIFT` of the frame over the background; then the background follows the
    subject more closely, so the sliver the subject uncovers stays thin (the relative shift is
    about proportional to ``1 - rate``)."""
    allowed = max(0.0, quality) * MAX_SHIFT * out_w
    shift = relative_shift(motion, background_motion(motion, rate), bbox, out_w)
    if shift <= allowed or shift <= 0.0:
        return rate
    return 1.0 - (1.0 - rate) * allowed / shift


class ParallaxLayer:
    """One parallax shot in one aspect: the foreground on ``motion``, the background on
    :func:`background_motion` at a rate bounded by the matte's quality (see
    :func:`bounded_rate`), composited with the feathered alpha."""

    def __init__(self, layers: ScaledLayers, motion: Motion, out_w: int, out_h: int,
                 rate: float = BACKGROUND_RATE) -> None:
        self.layers = layers
        self.motion = motion
        self.rate = bounded_rate(motion, layers.bbox, out_w, layers.quality, rate)
        self.back_motion = background_motion(motion, self.rate)
        self.out_w, self.out_h = out_w, out_h

    def _roi(self, index: int) -> tuple[int, int, int, int]:
        """Output pixels (x0, y0, x1, y1) the foreground can touch at frame ``index``: even,
        so the chroma planes' region is exactly half of it."""
        rect = self.motion.rect_at(index)
        k = self.out_w / rect.w
        x0, y0, x1, y1 = self.layers.bbox
        ix0 = max(0, math.floor((x0 - rect.x) * k) - 1)
        iy0 = max(0, math.floor((y0 - rect.y) * k) - 1)
        ix1 = min(self.out_w, math.ceil((x1 - rect.x) * k) + 1)
        iy1 = min(self.out_h, math.ceil((y1 - rect.y) * k) + 1)
        return ix0 - ix0 % 2, iy0 - iy0 % 2, ix1 + ix1 % 2, iy1 + iy1 % 2

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) as a new I420 frame (see
        :mod:`media.base.yuv`): the background, then the foreground "over" it, plane by plane (out
        = back * (1 - alpha) + fore * alpha)."""
        out = render_crop_i420(self.layers.background, self.back_motion.rect_at(index),
                               self.out_w, self.out_h)
        ix0, iy0, ix1, iy1 = self._roi(index)
        if ix1 <= ix0 or iy1 <= iy0:
            return out
        rect = self.motion.rect_at(index)
        for k, fore_src, clear_src, plane in zip(
                (1, 2, 2), self.layers.premultiplied.planes, self.layers.transparency.planes,
                yuv.planes(out), strict=True):
            size, offset = ((ix1 - ix0) // k, (iy1 - iy0) // k), (ix0 // k, iy0 // k)
            plane_size = (self.out_w // k, self.out_h // k)
            fore = self._warp(fore_src, rect, size, offset, 0, plane_size)
            clear = self._warp(clear_src, rect, size, offset, 255, plane_size)
            region = plane[offset[1]:offset[1] + size[1], offset[0]:offset[0] + size[0]]
            region[:] = cv2.add(cv2.multiply(region, clear, scale=1.0 / 255.0), fore)
        return out

    def _warp(self, src: Prescaled, rect: Rect, size: tuple[int, int],
              offset: tuple[int, int], outside: int, plane_size: tuple[int, int]
              ) -> np.ndarray:
        """``src`` through viewport ``rect`` over the region at ``offset`` of ``size`` (pixels
        of a plane ``plane_size`` large); ``outside`` fills what lies beyond the photo."""
        matrix = viewport_matrix(rect, src, *plane_size, offset=offset)
        return cv2.warpAffine(src.image, matrix, size, flags=cv2.INTER_LINEAR
                              | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=outside)


# --- the fallback premium move ----------------------------------------------------------------


def roll_zoom(angle: float, out_w: int, out_h: int) -> float:
    """The zoom (>= 1) at which a frame ``out_w`` x ``out_h`` turned by ``angle`` radians shows
    only what the unturned frame showed: no corner ever leaves the planned viewport."""
    ratio = max(out_w / out_h, out_h / out_w)
    return math.cos(abs(angle)) + ratio * math.sin(abs(angle))


class RollPushLayer:
    """The premium move when the matte is doubtful (see :func:`matte_quality`): the planned
    move, plus an eased roll of up to :data:`ROLL_DEGREES` and a push of :data:`ROLL_PUSH`
    more, about the frame's centre; the frame always stays inside the planned viewport (see
    :func:`roll_zoom`), so the photo's edges never show. The roll turns the way the move pans.
    One float affine warp per plane per frame."""

    def __init__(self, src: PrescaledI420, motion: Motion, out_w: int, out_h: int) -> None:
        self.src = src
        self.motion = motion
        self.out_w, self.out_h = out_w, out_h
        self.direction = 1.0 if motion.end.cx >= motion.start.cx else -1.0
        self.base_zoom = roll_zoom(math.radians(ROLL_DEGREES), out_w, out_h) * ROLL_SAFETY

    def turn_at(self, index: int) -> tuple[float, float]:
        """(angle in radians, zoom) added to the planned viewport at frame ``index``."""
        u = min(max(index / max(1, self.motion.frames - 1), 0.0), 1.0)
        eased = ease(u)
        angle = self.direction * math.radians(ROLL_DEGREES) * eased
        return angle, self.base_zoom * (1.0 + ROLL_PUSH * eased)

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) as a new I420 frame."""
        rect = self.motion.rect_at(index)
        angle, zoom = self.turn_at(index)
        out = np.empty(yuv.frame_shape(self.out_w, self.out_h), np.uint8)
        for src, dst in zip(self.src.planes, yuv.planes(out), strict=True):
            rows, cols = dst.shape
            view = viewport_matrix(rect, src, cols, rows)
            matrix = _compose_affine(view, _turn_matrix(angle, zoom, cols, rows))
            cv2.warpAffine(src.image, matrix, (cols, rows), dst=dst, flags=cv2.INTER_LINEAR
                           | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        return out


def _turn_matrix(angle: float, zoom: float, width: int, height: int) -> np.ndarray:
    """Inverse affine (output pixel -> unturned output pixel) of a turn by ``angle`` and a zoom
    by ``zoom`` about the centre of a ``width`` x ``height`` plane."""
    cx, cy = width / 2 - 0.5, height / 2 - 0.5
    c, s = math.cos(angle) / zoom, math.sin(angle) / zoom
    return np.array([[c, -s, cx - c * cx + s * cy], [s, c, cy - s * cx - c * cy]], np.float64)


def _compose_affine(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """The 2x3 affine ``outer(inner(p))``."""
    return np.hstack([outer[:, :2] @ inner[:, :2], outer[:, :2] @ inner[:, 2:] + outer[:, 2:]])
