"""Faces found the way a phone finds them: tilted, filling the photo or partly outside it, turned
away, small in a group, on an old scan.

The detector is BlazeFace, MediaPipe's short-range face model (``assets/``, its sources and
licence in ``assets/SOURCES.md``), run by OpenCV's DNN module on 128x128 views of the photo:

- the whole photo, padded on every side (a face cut by the photo's edge is still a face), and
  turned both ways (:data:`TILTS`: the model misses faces tilted past about 20 degrees);
- overlapping tiles of half and a quarter of the photo (:data:`TILE_SIDES`): the model is
  made for faces that take a good part of its view, and a group's faces are small.

Each view's detections are mapped back to the photo and merged by a weighted non-maximum
suppression (MediaPipe's own); each candidate is then looked at again up close and upright
(:data:`CLOSE_VIEW`; three looks when one is not sure, a profile's wide and mirrored), which
tells a face from a pet's or a pattern far better than the first look. A :class:`FoundFace`
has the whole face's box and its core, the box from the eyes to the mouth (from the model's
eye and mouth points) that a frame must never cut. Boxes are in pixels of the photo given and
may reach past its edges. The candidates the close looks see but are not sure enough of
(:data:`POSSIBLE_SCORE` to :data:`FACE_SCORE`) are the possible faces
(:func:`find_face_tiers`): never people, only regions a frame keeps whole or leaves out.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from media.base import heap

MODEL = Path(__file__).resolve().parent / "assets" / "face_detection_short_range.tflite"
NET_SIZE = 128  # pixels: the model's square input
# The model's SSD anchors (MediaPipe's short-range options): 16x16 cells of 2 anchors at stride
# 8, then 8x8 cells of 6 (three layers of stride 16, 2 each); centres at cell centres, fixed size
ANCHOR_GRIDS = ((16, 2), (8, 6))
SCORE_CLIP = 100.0  # logits are clipped to +-this before the sigmoid, as MediaPipe does
KEYPOINTS = 6  # right eye, left eye, nose tip, mouth, right ear, left ear (the subject's sides)
RIGHT_EYE, LEFT_EYE, NOSE, MOUTH = 0, 1, 2, 3


@dataclass(frozen=True)
class FoundFace:
    """A face on a photo, in pixels of that photo (boxes may reach past its edges).

    ``box`` (x0, y0, x1, y1) is the whole face, forehead to chin; ``core`` the eyes-to-mouth
    box (outer eye corners, brows to the lower lip) that a frame must keep whole; ``score`` the
    model's confidence (0..1).
    """

    box: tuple[float, float, float, float]
    core: tuple[float, float, float, float]
    score: float


@dataclass(frozen=True)
class _Raw:
    """One detection mapped back to the photo: its box, its six points, its score."""

    box: np.ndarray  # (4,) x0, y0, x1, y1
    points: np.ndarray  # (KEYPOINTS, 2)
    score: float


def _anchors() -> np.ndarray:
    """(896, 2) anchor centres, normalized to the model's input, in the model's output order."""
    centres = []
    for cells, per_cell in ANCHOR_GRIDS:
        ys, xs = np.meshgrid((np.arange(cells) + 0.5) / cells, (np.arange(cells) + 0.5) / cells,
                             indexing="ij")
        grid = np.stack([xs.ravel(), ys.ravel()], axis=1)
        centres.append(np.repeat(grid, per_cell, axis=0))
    return np.concatenate(centres).astype(np.float32)


ANCHORS = _anchors()


def _net() -> cv2.dnn.Net:
    """The model for the calling thread: OpenCV's nets are not safe to share between threads
    (see :func:`media.analysis.subjects._face_detector`)."""
    return _thread_net(threading.get_ident())


@heap.activity_cache(maxsize=16)
def _thread_net(thread: int) -> cv2.dnn.Net:
    return cv2.dnn.readNetFromTFLite(str(MODEL))


def _decode(logits: np.ndarray, regressors: np.ndarray,
            min_score: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The model's outputs for one view as boxes (n, 4: x0, y0, x1, y1), points (n, 6, 2) and
    scores (n,) of the anchors scoring at least ``min_score``; in the view's pixels."""
    logits = np.clip(logits.reshape(-1).astype(np.float64), -SCORE_CLIP, SCORE_CLIP)
    scores = 1 / (1 + np.exp(-logits))
    keep = scores >= min_score
    raw = regressors.reshape(-1, 4 + 2 * KEYPOINTS)[keep]
    centres = ANCHORS[keep] * NET_SIZE
    cx, cy = raw[:, 0] + centres[:, 0], raw[:, 1] + centres[:, 1]
    half_w, half_h = raw[:, 2] / 2, raw[:, 3] / 2
    boxes = np.stack([cx - half_w, cy - half_h, cx + half_w, cy + half_h], axis=1)
    points = raw[:, 4:].reshape(-1, KEYPOINTS, 2) + centres[:, None, :]
    return boxes, points, scores[keep]


@dataclass(frozen=True)
class _View:
    """A 128x128 view of the photo: ``matrix`` (2x3) maps the photo's pixels to the view's;
    past the photo's edges the view is black, or the edges' own pixels drawn on outwards when
    ``edges_continued`` (see :func:`_looked_at`)."""

    matrix: np.ndarray
    edges_continued: bool = False

    @property
    def scale(self) -> float:
        """View pixels per photo pixel."""
        return math.sqrt(abs(float(np.linalg.det(self.matrix[:, :2]))))


def _square_view(centre: tuple[float, float], side: float, degrees: float = 0.0,
                 edges_continued: bool = False) -> _View:
    """The view of the square of ``side`` photo pixels about ``centre``, the photo turned
    ``degrees`` counter-clockwise in it (a face tilted that much clockwise comes out upright),
    its edges continued past it or not (:class:`_View`)."""
    k = NET_SIZE / side
    turn = cv2.getRotationMatrix2D(centre, degrees, k)
    turn[:, 2] += NET_SIZE / 2 - np.asarray(centre)
    return _View(turn, edges_continued)


class _Pyramid:
    """The photo and its halvings (area-averaged), so a view far smaller than the photo is
    sampled from a copy near its scale rather than aliased."""

    def __init__(self, image_rgb: np.ndarray) -> None:
        self.levels = [np.ascontiguousarray(image_rgb[..., :3])]
        while min(self.levels[-1].shape[:2]) >= 2 * NET_SIZE:
            top = self.levels[-1]
            self.levels.append(cv2.resize(top, (top.shape[1] // 2, top.shape[0] // 2),
                                          interpolation=cv2.INTER_AREA))

    def sample(self, view: _View) -> np.ndarray:
        """The view's pixels, as the model's input (1, 3, 128, 128), RGB in -1..1."""
        level = 0
        while level + 1 < len(self.levels) and view.scale * 2 ** (level + 1) <= 1.0:
            level += 1
        matrix = view.matrix.copy()
        matrix[:, :2] *= 2 ** level
        border = cv2.BORDER_REPLICATE if view.edges_continued else cv2.BORDER_CONSTANT
        pixels = cv2.warpAffine(self.levels[level], matrix, (NET_SIZE, NET_SIZE),
                                flags=cv2.INTER_LINEAR, borderMode=border, borderValue=(0, 0, 0))
        return (pixels.astype(np.float32).transpose(2, 0, 1)[None] / 127.5) - 1.0


def _detect_in(pyramid: _Pyramid, view: _View, min_score: float) -> list[_Raw]:
    """The model's detections in ``view``, mapped back to the photo's pixels: points exactly,
    boxes by their centre and size (a box found in a turned view is the face's box upright)."""
    net = _net()
    net.setInput(pyramid.sample(view))
    logits, regressors = net.forward(["classificators", "regressors"])
    boxes, points, scores = _decode(logits, regressors, min_score)
    back = cv2.invertAffineTransform(view.matrix)
    found = []
    for box, pts, score in zip(boxes, points, scores, strict=True):
        centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]) @ back[:, :2].T
        centre += back[:, 2]
        half = np.array([box[2] - box[0], box[3] - box[1]]) / view.scale / 2
        found.append(_Raw(np.concatenate([centre - half, centre + half]),
                          pts @ back[:, :2].T + back[:, 2], float(score)))
    return found


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def _weighted_nms(found: list[_Raw], min_iou: float) -> list[_Raw]:
    """MediaPipe's weighted non-maximum suppression: from the best remaining detection, every
    detection overlapping it by at least ``min_iou`` is merged into one whose box and points are
    their score-weighted mean and whose score is the best one's."""
    remaining = sorted(found, key=lambda raw: -raw.score)
    merged: list[_Raw] = []
    while remaining:
        best = remaining[0]
        group = [raw for raw in remaining if _iou(best.box, raw.box) >= min_iou]
        remaining = [raw for raw in remaining if _iou(best.box, raw.box) < min_iou]
        weights = np.array([raw.score for raw in group])
        weights = weights / weights.sum()
        box = sum(w * raw.box for w, raw in zip(weights, group, strict=True))
        points = sum(w * raw.points for w, raw in zip(weights, group, strict=True))
        merged.append(_Raw(np.asarray(box), np.asarray(points), best.score))
    return merged


# --- where faces are looked for -----------------------------------------------------------

PAD = 0.1  # the whole-photo views pad the photo by this share of its long edge on every side
TILTS = (0.0, 25.0, -25.0)  # degrees: the whole photo is looked at upright and turned so
CANDIDATE_SCORE = 0.3  # a view's detection at least this confident is looked at again closer
TILE_SIDES = (0.5, 0.25)  # tiles' sides as shares of the photo's long edge (faces too small for
# the whole view are at least about a sixth of a tile's side)
TILE_OVERLAP = 0.33  # share of a tile's side its neighbour overlaps
MIN_TILE = NET_SIZE  # pixels: tiles are never smaller (a face a sixth of one is 20 px)
CLOSE_VIEW = 2.0  # the close look's side over the face box's: the face as a selfie shows it
SURE = 0.9  # a close look at least this confident makes a face at once; a less sure one is
# looked at twice more, tighter and wider (:data:`SECOND_VIEWS`), and the three scores averaged
SECOND_VIEWS = (1.5, 2.8)
PROFILE_SPAN = 0.3  # a close look whose eyes are closer than this share of its box's width
# sees a face in profile (a frontal face's eyes are 0.4-0.5 of it apart). Its tight second look
# cuts the back of the head and scores a profile low (0.5 where the whole face scored 0.8), so
# a profile is looked at again wide and mirrored (:data:`PROFILE_VIEWS`): the model, not
# quite symmetric, sees the face turned the other way afresh
PROFILE_VIEWS = ((2.8, False), (CLOSE_VIEW, True))  # (the side's factor, mirrored)
FACE_SCORE = 0.75  # the (averaged) confidence that makes a face. On the labelled set
# (bench/faces) a pet's face scores up to 0.8 at one look, so one look at 0.75 kept a dog or a
# rabbit in 1 of 5 pet photos (the pet tribute's spaniels among them, whose "face" then left
# the other dog's head to be cut); three looks averaged lost 1 of 205 people's faces and every
# pet's
POSSIBLE_SCORE = 0.5  # the (averaged) confidence from which a candidate short of FACE_SCORE is
# a possible face: a head turned away, an eye hidden (0.55-0.6), a close-up's profile tilted
# past the turned views (0.64-0.73), a face at an old scan's edge. It never counts as a person
# (a pet's face scores as much); it only keeps frames from cutting it (whole or left out)
POSSIBLE_ALONE = 0.4  # on a photo without a face, a possible face's box side is at least this
# share of the photo's short side: a close-up's profile (0.6-0.7 on the corpus); smaller ones
# there were a trail's rocks, a lake's boats, a pet's fur (a face is what the photo is of, or
# it stands among faces: the bar's man turned away is small beside the faces found)
MERGE_IOU = 0.3  # MediaPipe's suppression threshold
MAX_CANDIDATES = 40  # looked at closer, most confident first (a class photo's faces; the
# bound keeps a photo of patterns from costing a look per pattern)
FACE_IN_VIEW_MIN = 1 / 6  # the smallest face the model finds, a share of its view's side


def smallest_face_found(width: int, height: int) -> float:
    """About the smallest face side (pixels) found on a ``width`` x ``height`` photo: a sixth
    (:data:`FACE_IN_VIEW_MIN`) of its closest view, a tile (:data:`TILE_SIDES`, none under
    :data:`MIN_TILE`), else the whole photo padded (:data:`PAD`)."""
    long_edge = max(width, height)
    tiles = [share * long_edge for share in TILE_SIDES if share * long_edge >= MIN_TILE]
    return FACE_IN_VIEW_MIN * min(tiles, default=(1 + 2 * PAD) * long_edge)


def _tile_views(width: int, height: int) -> list[_View]:
    """Overlapping square tiles over the photo at each of :data:`TILE_SIDES`."""
    views = []
    for share in TILE_SIDES:
        side = share * max(width, height)
        if side < MIN_TILE:
            continue
        step = side * (1 - TILE_OVERLAP)
        for cy in _tile_centres(height, side, step):
            for cx in _tile_centres(width, side, step):
                views.append(_square_view((cx, cy), side))
    return views


def _tile_centres(length: float, side: float, step: float) -> list[float]:
    """Centres of tiles of ``side`` every ``step`` covering ``length`` (one, centred, when a
    tile covers it all)."""
    if side >= length:
        return [length / 2]
    count = math.ceil((length - side) / step) + 1
    stride = (length - side) / (count - 1)
    return [side / 2 + i * stride for i in range(count)]


def _whole_views(width: int, height: int) -> list[_View]:
    """The whole photo, padded by :data:`PAD`, at each of :data:`TILTS`."""
    side = max(width, height) * (1 + 2 * PAD)
    return [_square_view((width / 2, height / 2), side, tilt) for tilt in TILTS]


def _roll(points: np.ndarray) -> float:
    """The face's roll in degrees (counter-clockwise positive in the view's turn convention)
    from its eye points: 0 when the eyes are level."""
    (rx, ry), (lx, ly) = points[RIGHT_EYE], points[LEFT_EYE]
    return math.degrees(math.atan2(ly - ry, lx - rx))


def _mirrored(view: _View) -> _View:
    """``view`` flipped left to right."""
    matrix = view.matrix.copy()
    matrix[0] = -matrix[0]
    matrix[0, 2] += NET_SIZE
    return _View(matrix, view.edges_continued)


def _close_look(pyramid: _Pyramid, candidate: _Raw, factor: float = CLOSE_VIEW,
                mirrored: bool = False, edges_continued: bool = False
                ) -> tuple[_Raw, _View] | None:
    """The model's look at ``candidate`` up close (a view ``factor`` times its box's side) and
    upright (turned by its eyes' roll), ``mirrored`` or not, the photo's edges continued or
    not: the detection nearest the view's centre, with the view, or None."""
    x0, y0, x1, y1 = candidate.box
    side = max(x1 - x0, y1 - y0)
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    view = _square_view(centre, side * factor, _roll(candidate.points), edges_continued)
    if mirrored:
        view = _mirrored(view)
    near = [raw for raw in _detect_in(pyramid, view, CANDIDATE_SCORE)
            if math.dist(((raw.box[0] + raw.box[2]) / 2, (raw.box[1] + raw.box[3]) / 2),
                         centre) < 0.4 * side]
    return (max(near, key=lambda raw: raw.score), view) if near else None


def _looked_at(pyramid: _Pyramid, candidate: _Raw, edges_continued: bool = False
               ) -> tuple[tuple[_Raw, _View], float] | None:
    """The close look at ``candidate`` and its (averaged) confidence: the first look's when it
    is :data:`SURE`, else the mean of the three looks (:data:`SECOND_VIEWS`, a profile's
    :data:`PROFILE_VIEWS`); None when the close look sees nothing there. The looks see black
    past the photo's edges, or those edges drawn on outwards (``edges_continued``)."""
    look = _close_look(pyramid, candidate, edges_continued=edges_continued)
    if look is None or look[0].score >= SURE:
        return (look, look[0].score) if look is not None else None
    views = PROFILE_VIEWS if _in_profile(look[0]) else tuple((f, False) for f in SECOND_VIEWS)
    scores = [look[0].score]
    for factor, mirrored in views:
        other = _close_look(pyramid, candidate, factor, mirrored, edges_continued)
        scores.append(other[0].score if other is not None else 0.0)
    return look, sum(scores) / len(scores)


def _possible_look(pyramid: _Pyramid, candidate: _Raw,
                   looked: tuple[tuple[_Raw, _View], float] | None
                   ) -> tuple[_Raw, _View] | None:
    """The look that makes ``candidate``, short of a face by its close looks (``looked``), a
    possible face, or None: those looks when they score at least :data:`POSSIBLE_SCORE`; else,
    when the photo's edge cuts it (:func:`_cut_by_photo`), the same looks with the photo's edges
    drawn on past it, when they do. Those see more than the photo shows, so they make a
    possible face, never a face."""
    if looked is not None and looked[1] >= POSSIBLE_SCORE:
        return looked[0]
    if not _cut_by_photo(pyramid, candidate):
        return None
    continued = _looked_at(pyramid, candidate, edges_continued=True)
    return continued[0] if continued is not None and continued[1] >= POSSIBLE_SCORE else None


def _cut_by_photo(pyramid: _Pyramid, candidate: _Raw) -> bool:
    """True when ``candidate``'s box reaches past the photo's edge: a face cut there shows the
    model a hard black band through it in the close looks (a blurred close-up's averaged 0.32
    so, not even a possible face, and 0.74 with the photo's edges drawn on outwards)."""
    height, width = pyramid.levels[0].shape[:2]
    x0, y0, x1, y1 = candidate.box
    return x0 < 0 or y0 < 0 or x1 > width or y1 > height


def _in_profile(raw: _Raw) -> bool:
    """True when the detection's eyes are close together for its box: a face in profile."""
    span = float(np.linalg.norm(raw.points[LEFT_EYE] - raw.points[RIGHT_EYE]))
    return span < PROFILE_SPAN * float(raw.box[2] - raw.box[0])


# --- a face's boxes from the model's box and points -----------------------------------------

FOREHEAD = 0.1  # the model's box starts on the forehead: the whole face reaches this share of
# its height higher
FACE_SIDES = 0.05  # ... and this share of its width wider on each side (the ears' edge)
# The core from the eye and mouth points, in shares of the eye span: chosen on the labelled set
# (bench/faces) so the found core holds 98 % of the labelled core on average (93 % at the 10th
# percentile) at 1.4 times its area: a frame that keeps it keeps the eyes and the mouth
CORE_EYE_SIDE = 0.5  # past each eye's centre (the outer corners, a tilt's slack)
CORE_ABOVE_EYES = 0.35  # above the eyes (the lids and the brows' lower edge)
CORE_BELOW_MOUTH = 0.3  # below the mouth's centre (the lower lip)
CORE_MIN_SPAN = 0.4  # the eye span used is at least this share of the box's width (a profile)


def _mapped_box(corners: np.ndarray, matrix: np.ndarray) -> tuple[float, float, float, float]:
    """The bounding box of ``corners`` (n, 2) mapped by the 2x3 ``matrix``."""
    mapped = corners @ matrix[:, :2].T + matrix[:, 2]
    low, high = mapped.min(axis=0), mapped.max(axis=0)
    return float(low[0]), float(low[1]), float(high[0]), float(high[1])


def _rect_corners(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x0, y1], [x1, y1]])


def _found_face(raw: _Raw, view: _View) -> FoundFace:
    """The :class:`FoundFace` of a detection made in the upright close ``view``: its whole face
    and its core built where the face is upright, their corners turned back to the photo."""
    to_view, back = view.matrix, cv2.invertAffineTransform(view.matrix)
    centre = np.array([(raw.box[0] + raw.box[2]) / 2, (raw.box[1] + raw.box[3]) / 2])
    cx, cy = centre @ to_view[:, :2].T + to_view[:, 2]
    half_w = (raw.box[2] - raw.box[0]) * view.scale / 2
    half_h = (raw.box[3] - raw.box[1]) * view.scale / 2
    top = cy - half_h - FOREHEAD * 2 * half_h
    whole = _rect_corners(cx - half_w * (1 + 2 * FACE_SIDES), top,
                          cx + half_w * (1 + 2 * FACE_SIDES), cy + half_h)
    points = raw.points @ to_view[:, :2].T + to_view[:, 2]
    eyes, mouth = points[[RIGHT_EYE, LEFT_EYE]], points[MOUTH]
    span = max(float(np.linalg.norm(eyes[1] - eyes[0])), CORE_MIN_SPAN * 2 * half_w)
    core = _rect_corners(float(eyes[:, 0].min()) - CORE_EYE_SIDE * span,
                         float(eyes[:, 1].min()) - CORE_ABOVE_EYES * span,
                         float(eyes[:, 0].max()) + CORE_EYE_SIDE * span,
                         float(mouth[1]) + CORE_BELOW_MOUTH * span)
    return FoundFace(_mapped_box(whole, back), _mapped_box(core, back), raw.score)


@dataclass(frozen=True)
class FaceTiers:
    """What :func:`find_face_tiers` finds: the ``faces`` (confident enough to be people) and
    the ``possible`` faces (:data:`POSSIBLE_SCORE` to :data:`FACE_SCORE`, none over a face or
    a more confident possible one; on a photo without a face only large ones,
    :data:`POSSIBLE_ALONE`), each most confident first."""

    faces: tuple[FoundFace, ...]
    possible: tuple[FoundFace, ...]


def find_faces(image_rgb: np.ndarray) -> tuple[FoundFace, ...]:
    """The faces on an RGB uint8 photo (H, W, 3), most confident first, in its pixels.

    Candidates come from the whole photo (padded, upright and turned) and from tiles; each is
    looked at again up close and upright, and kept when the model is sure enough there
    (:func:`_looked_at`, :data:`FACE_SCORE`).
    """
    return find_face_tiers(image_rgb).faces


def find_face_tiers(image_rgb: np.ndarray) -> FaceTiers:
    """:func:`find_faces` and the possible faces beside them (see :class:`FaceTiers`), from the
    same looks: the possible tier costs no further look."""
    height, width = image_rgb.shape[:2]
    pyramid = _Pyramid(image_rgb)
    found: list[_Raw] = []
    for view in (*_whole_views(width, height), *_tile_views(width, height)):
        found += _detect_in(pyramid, view, CANDIDATE_SCORE)
    candidates = _weighted_nms(found, MERGE_IOU)[:MAX_CANDIDATES]
    faces: list[tuple[_Raw, _View]] = []
    possible: list[tuple[_Raw, _View]] = []
    for candidate in candidates:
        looked = _looked_at(pyramid, candidate)
        if looked is not None and looked[1] >= FACE_SCORE:
            faces.append(looked[0])
        elif (unsure := _possible_look(pyramid, candidate, looked)) is not None:
            possible.append(unsure)
    sure = _distinct([_found_face(raw, view) for raw, view in faces])
    least = 0.0 if sure else POSSIBLE_ALONE * min(width, height)
    unsure = [face for face in (_found_face(raw, view) for raw, view in possible)
              if max(face.box[2] - face.box[0], face.box[3] - face.box[1]) >= least]
    return FaceTiers(sure, _beside(sure, unsure))


def _beside(faces: tuple[FoundFace, ...], possible: list[FoundFace]) -> tuple[FoundFace, ...]:
    """``possible`` without those whose core's centre lies in a face's box or a more
    confident possible one's (the same head seen twice), most confident first."""
    kept: list[FoundFace] = []
    for face in sorted(possible, key=lambda f: -f.score):
        cx, cy = (face.core[0] + face.core[2]) / 2, (face.core[1] + face.core[3]) / 2
        if not any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3]
                   for b in (other.box for other in (*faces, *kept))):
            kept.append(face)
    return tuple(kept)


def _distinct(faces: list[FoundFace]) -> tuple[FoundFace, ...]:
    """``faces`` without those whose core overlaps a more confident one's (the same face
    found from two candidates), most confident first."""
    kept: list[FoundFace] = []
    for face in sorted(faces, key=lambda f: -f.score):
        if all(_iou(np.asarray(face.core), np.asarray(other.core)) < MERGE_IOU
               for other in kept):
            kept.append(face)
    return tuple(kept)
