"""What matters in a photo: faces, else the salient region (a pet, an object), else the centre.

:func:`find_subject` finds frontal faces (OpenCV Haar cascade) and a focus box (faces, else
spectral residual saliency, else the centre). A salient focus is either a compact subject (a
pet's head, an animal close-up, an object: :func:`salient_mass_is_compact`) or scenery whose
salient mass is wide (a trail, a ridge, a lake); :func:`keep_whole` makes the core of a compact
subject count as a face, so crops keep it whole, while scenery is cropped freely and the camera
pans across it toward the focus. All boxes are normalized (0..1 of the photo's width and
height). :mod:`media.analysis.framing` plans the camera over them.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from scipy import ndimage

from media.analysis.faces import FoundFace, find_face_tiers, smallest_face_found
from media.base import heap

FACE_CASCADE = "haarcascade_frontalface_alt2.xml"
DETECT_LONG_EDGE = 640  # pixels: faces are searched on a gray copy this large
FACE_MIN_FRACTION = 0.05  # smallest face side, as a fraction of the detection copy's short edge
FACE_MIN_NEIGHBORS = 5
FACE_SCALE_STEP = 1.15  # ratio between the cascade's search scales
# A companion: a face beside a found one that the strict pass missed (turned, squinting, in
# shade). A finer, looser pass of two cascades must agree on it, at the found face's height and
# size; people photographed together stand together.
COMPANION_CASCADES = (("haarcascade_frontalface_default.xml", 3),
                      ("haarcascade_frontalface_alt.xml", 2))
COMPANION_SCALE_STEP = 1.05
COMPANION_AGREE_IOU = 0.4
COMPANION_SIZE = (0.6, 1.6)  # its side over the found face's
COMPANION_BAND = 1.5  # its centre at most this many face heights above or below the found one
COMPANION_SEARCH_SLACK = 1.3  # the search for companions reaches this far past those bounds
# A "face" found under a found face, at its chin and not smaller, is a body part (an arm with a
# tattoo, a hand, a shirt's print): nobody's face is at another's neck, closer to the camera.
BODY_GAP = (-0.15, 0.6)  # its top, below the face's chin, in the face's heights
POSSIBLE_BODY_GAP = (-0.15, 1.0)  # as far down for a possible face: the chest, less sure still
SALIENT_CORE = 0.6  # share of a salient region's sides kept whole like a face
# A compact subject (see salient_mass_is_compact), measured on the saliency map and the photo:
COMPACT_LIFT = 2.0  # saliency mass share in the core over the core's area share: at least this
COMPACT_ELONGATION = 1.6  # width over height of the salient mass (pixels): at most this
COMPACT_SOFT_MAX = 0.35  # share of the photo without detail (defocused or flat): at most this
SOFT_DETAIL = 0.1  # a pixel without detail has under this share of the photo's 95th-pct detail
# The focus map (see focus_map), measured on a copy FOCUS_MAP_EDGE pixels on its long edge:
FOCUS_MAP_EDGE = 96
FOCUS_SALIENCY_WEIGHT = 0.4  # spectral residual saliency: what stands out in structure
FOCUS_RARITY_WEIGHT = 0.6  # colour rarity: a kite in the sky, a path through a green forest
FOCUS_SOFT_FLOOR = 0.3  # weight of a pixel without detail (defocused, flat), 1 for the sharpest
# A photo with a plane of focus (a sharp leaf on bokeh, a bird on a trunk before a blurred
# garden): its subject is what is in focus, so its out-of-focus pixels weigh almost nothing and
# the weight grows with the square of sharpness (a red blurred leaf was more colour-rare than
# the sharp brown one). Measured by :func:`focus_depth` on a FOCUS_DEPTH_EDGE-pixel copy:
FOCUS_DEPTH_EDGE = 4 * FOCUS_MAP_EDGE  # the sharpness map's own grey copy (sharpness_map)
FOCUS_SHARP_FLOOR = 0.02  # weight of a pixel without detail in a photo with a plane of focus
FOCUS_SHARP_POWER = 2.0  # ... and the power of its sharpness
FOCUS_DEPTH_CONTRAST = (5.0, 10.0)  # sharpest detail (99th pct) over the median: none, full
FOCUS_DEPTH_MIN_DETAIL = 40.0  # 99th pct detail (Laplacian, grey levels) under this: soft all
# over (an old scan, night, fog), no plane of focus: saliency weighted as for any photo
FOCUS_CENTRE_SIGMA = 0.4  # centre prior: a Gaussian this wide (share of the photo), at half weight
FOCUS_BLOB_LEVEL = 0.5  # a focus blob is where the map is at least this share of its peak
FOCUS_GROW_LEVEL = 0.3  # a compact subject's blob grows over its surroundings down to this level
FOCUS_EDGE_PENALTY = 0.5  # a blob touching the photo's edge (sky, a cut-off branch) weighs less
RARITY_BINS = 16  # bins per chroma axis (a*, b* over -48..48) of the colour rarity histogram


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in normalized coordinates (0..1 of width and height)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def to_pixels(self, width: float, height: float) -> tuple[float, float, float, float]:
        """The box in pixels of an image ``width`` x ``height``: (x0, y0, x1, y1)."""
        return self.x0 * width, self.y0 * height, self.x1 * width, self.y1 * height

    @property
    def center(self) -> tuple[float, float]:
        """Centre (x, y), normalized."""
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2


@dataclass(frozen=True)
class Subject:
    """What matters in a photo: detected faces, and the focus box the camera moves toward.

    ``faces`` are whole faces (forehead to chin), largest first, clipped to the photo;
    ``cores`` the eyes-to-mouth box of each (same order), what a frame must never cut, or empty
    (subjects stored before cores existed; a compact subject kept whole stands in a face
    without one). ``source`` says where the focus came from: ``faces``, ``saliency`` or ``centre``.
    ``compact`` (meaningful for ``saliency``) says the salient mass is a compact subject that
    must stay whole (a pet's head, an object), not scenery; subjects stored before the measure
    existed count as compact, the cautious reading. ``possible`` are the possible faces
    (:class:`media.analysis.faces.FaceTiers`: a head turned away, a tilted profile, the
    detector not sure enough) and ``possible_cores`` their eyes-to-mouth boxes (same order):
    never people (not in ``faces``, the focus, counts or the subject's choice), only regions a
    frame keeps whole or leaves out (:func:`possible_boxes`).
    """

    faces: tuple[Box, ...]
    focus: Box
    source: str
    compact: bool = True
    horizon: float | None = None
    """Height (0..1) of the photo's horizon or dominant level line, if it has one
    (:func:`find_horizon`): crops keep it in frame."""
    cores: tuple[Box, ...] = ()
    possible: tuple[Box, ...] = ()
    possible_cores: tuple[Box, ...] = ()


# --- subject detection -----------------------------------------------------------------------


def _face_detector(cascade: str = FACE_CASCADE) -> cv2.CascadeClassifier:
    """The ``cascade`` classifier of the calling thread: OpenCV's classifier is not safe to
    share between threads (a film's two posters and a card's words over its photo looked for
    faces at once, and detectMultiScale failed in getScaleData: the render failed)."""
    return _thread_face_detector(cascade, threading.get_ident())


@heap.activity_cache(maxsize=16)  # a few cascades, for each of a render's threads
def _thread_face_detector(cascade: str, thread: int) -> cv2.CascadeClassifier:
    detector = cv2.CascadeClassifier(cv2.data.haarcascades + cascade)
    if detector.empty():
        raise RuntimeError(f"cannot load {cascade} from {cv2.data.haarcascades}")
    return detector


def _gray_copy(image_rgb: np.ndarray, long_edge: int) -> tuple[np.ndarray, float]:
    """A gray copy with its long edge at most ``long_edge`` pixels, and the scale used."""
    gray = image_rgb if image_rgb.ndim == 2 else cv2.cvtColor(image_rgb[..., :3],
                                                               cv2.COLOR_RGB2GRAY)
    h, w = gray.shape
    scale = min(1.0, long_edge / max(h, w))
    if scale < 1.0:
        gray = cv2.resize(gray, (max(1, round(w * scale)), max(1, round(h * scale))),
                          interpolation=cv2.INTER_AREA)
    return gray, scale


def detect_faces(image_rgb: np.ndarray, cascade: str = FACE_CASCADE,
                 min_neighbors: int = FACE_MIN_NEIGHBORS) -> tuple[Box, ...]:
    """Frontal faces (``cascade``: an OpenCV Haar cascade file, people by default) in an RGB
    (or gray) uint8 image, as normalized boxes, largest first."""
    return _faces_on(_detection_gray(image_rgb), cascade, min_neighbors)


def _faces_on(gray: np.ndarray, cascade: str = FACE_CASCADE,
              min_neighbors: int = FACE_MIN_NEIGHBORS) -> tuple[Box, ...]:
    """:func:`detect_faces` on the detection copy ``gray`` (:func:`_detection_gray`)."""
    return _largest_first(_cascade_boxes(gray, cascade, min_neighbors, FACE_SCALE_STEP))


def _detection_gray(image_rgb: np.ndarray) -> np.ndarray:
    """The equalized gray copy faces are searched on (:data:`DETECT_LONG_EDGE`)."""
    gray, _ = _gray_copy(image_rgb, DETECT_LONG_EDGE)
    return cv2.equalizeHist(gray)


def _cascade_boxes(gray: np.ndarray, cascade: str, min_neighbors: int, scale_step: float,
                   sizes: tuple[int, int] | None = None) -> list[Box]:
    """The cascade's detections on ``gray`` as normalized boxes; only those of sides within
    ``sizes`` (least, largest; pixels) when given."""
    h, w = gray.shape
    side = max(20, round(FACE_MIN_FRACTION * min(h, w)))
    low, high = sizes if sizes is not None else (side, 0)
    low = max(side, low)
    found = _face_detector(cascade).detectMultiScale(gray, scaleFactor=scale_step,
                                                     minNeighbors=min_neighbors,
                                                     minSize=(low, low), maxSize=(high, high))
    return [Box(float(x / w), float(y / h), float((x + fw) / w), float((y + fh) / h))
            for x, y, fw, fh in found]


def _companion_sizes(shape: tuple[int, ...], faces: tuple[Box, ...]) -> tuple[int, int]:
    """The sides (least, largest; pixels, on a detection copy of ``shape``) a companion of
    ``faces`` can have (see :func:`_beside`), widened by :data:`COMPANION_SEARCH_SLACK` so the
    cascade groups the windows it would group over every scale. The fine pass over every scale
    cost a second a photo; a companion is only ever kept at a found face's size. (Cropping to
    the faces' rows as well would shift the cascade's window grid and change what it finds.)"""
    width = shape[1]
    sides = [(f.x1 - f.x0) * width for f in faces]
    return (math.floor(COMPANION_SIZE[0] * min(sides) / COMPANION_SEARCH_SLACK),
            math.ceil(COMPANION_SIZE[1] * max(sides) * COMPANION_SEARCH_SLACK))


def _largest_first(boxes: list[Box]) -> tuple[Box, ...]:
    return tuple(sorted(boxes, key=lambda b: -(b.x1 - b.x0) * (b.y1 - b.y0)))


def _iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0))
    iy = max(0.0, min(a.y1, b.y1) - max(a.y0, b.y0))
    inter = ix * iy
    union_area = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter
    return inter / union_area if union_area > 0 else 0.0


def _beside(candidate: Box, face: Box) -> bool:
    """``candidate`` is another face standing beside ``face``: at its height, of its size, not
    overlapping it."""
    side = (candidate.x1 - candidate.x0) / max(1e-9, face.x1 - face.x0)
    height = face.y1 - face.y0
    (cx, cy), (fx, fy) = candidate.center, face.center
    return (COMPANION_SIZE[0] <= side <= COMPANION_SIZE[1]
            and abs(cy - fy) <= COMPANION_BAND * height and abs(cx - fx) > face.x1 - face.x0)


def _under_chin(candidate: Box, face: Box, body_gap: tuple[float, float] = BODY_GAP) -> bool:
    """``candidate`` lies where ``face``'s neck and chest are: its centre within the face's
    width, its top ``body_gap`` face heights below the face's chin, and it is at least as
    large as the face (a child held at the chin is smaller)."""
    height = face.y1 - face.y0
    gap = (candidate.y0 - face.y1) / max(1e-9, height)
    return (face.x0 <= candidate.center[0] <= face.x1 and body_gap[0] <= gap <= body_gap[1]
            and candidate.x1 - candidate.x0 >= face.x1 - face.x0)


def drop_bodies(faces: tuple[Box, ...]) -> tuple[Box, ...]:
    """``faces`` without the boxes that lie under another one's chin (see :func:`_under_chin`):
    the cascades take an arm or a print for a face, and a crop kept wide for it loses the
    real faces' frame."""
    return tuple(box for box in faces
                 if not any(_under_chin(box, other) for other in faces if other is not box))


def companion_faces(image_rgb: np.ndarray, faces: tuple[Box, ...]) -> tuple[Box, ...]:
    """Faces beside ``faces`` (found by :func:`detect_faces`) that the strict pass missed: two
    looser cascades (:data:`COMPANION_CASCADES`) agree on each, beside a found face (see
    :func:`_beside`). Empty without ``faces``."""
    if not faces:
        return ()
    return _companions(_detection_gray(image_rgb), faces)


def _companions(gray: np.ndarray, faces: tuple[Box, ...]) -> tuple[Box, ...]:
    """:func:`companion_faces` on the detection copy ``gray`` (:func:`_detection_gray`)."""
    sizes = _companion_sizes(gray.shape, faces)
    first, second = (_cascade_boxes(gray, cascade, neighbours, COMPANION_SCALE_STEP, sizes)
                     for cascade, neighbours in COMPANION_CASCADES)
    found: list[Box] = []
    for box in first:
        agreed = any(_iou(box, other) >= COMPANION_AGREE_IOU for other in second)
        new = all(_iou(box, known) < COMPANION_AGREE_IOU for known in (*faces, *found))
        if agreed and new and any(_beside(box, face) for face in faces):
            found.append(box)
    return tuple(found)


def saliency_map(image_rgb: np.ndarray, width: int = 64) -> np.ndarray:
    """Spectral-residual saliency (Hou & Zhang 2007) on a ``width``-pixel-wide gray copy.

    Returns a float32 map (same ratio as the image, about ``width`` pixels wide), max 1.
    """
    gray, _ = _gray_copy(image_rgb, 4 * width)
    h, w = gray.shape
    small = cv2.resize(gray, (width, max(8, round(width * h / w))), interpolation=cv2.INTER_AREA)
    spectrum = np.fft.fft2(small.astype(np.float64))
    log_amp = np.log(np.abs(spectrum) + 1e-6)
    residual = log_amp - ndimage.uniform_filter(log_amp, size=3, mode="nearest")
    sal = np.abs(np.fft.ifft2(np.exp(residual + 1j * np.angle(spectrum)))) ** 2
    sal = ndimage.gaussian_filter(sal, sigma=2.5)
    peak = float(sal.max())
    return (sal / peak).astype(np.float32) if peak > 0 else sal.astype(np.float32)


@dataclass(frozen=True)
class SalientMass:
    """The salient region of a photo: ``box`` (weighted centroid +- 1.5 std, normalized),
    ``lift`` (share of the saliency mass inside the box's :data:`SALIENT_CORE` core divided by
    the core's share of the photo's area: 1 is mass spread evenly, higher is concentrated) and
    ``elongation`` (the mass's spread across over its spread down, in pixels: a shoreline or a
    ridge is a wide band, a head or an object a blob)."""

    box: Box
    lift: float
    elongation: float


def salient_mass(image_rgb: np.ndarray) -> SalientMass | None:
    """The :class:`SalientMass` of an RGB (or gray) uint8 image, or None when nothing stands
    out (a flat saliency map)."""
    sal = saliency_map(image_rgb)
    if float(sal.mean()) > 0.5:  # no clear peak: nothing stands out
        return None
    weights = sal.astype(np.float64) ** 2
    total = weights.sum()
    if total <= 0:
        return None
    h, w = sal.shape
    ys, xs = (np.arange(h) + 0.5) / h, (np.arange(w) + 0.5) / w
    wy, wx = weights.sum(axis=1) / total, weights.sum(axis=0) / total
    my, mx = float(ys @ wy), float(xs @ wx)
    sy = math.sqrt(max(float(((ys - my) ** 2) @ wy), 1e-6))
    sx = math.sqrt(max(float(((xs - mx) ** 2) @ wx), 1e-6))
    box = Box(max(0.0, mx - 1.5 * sx), max(0.0, my - 1.5 * sy),
              min(1.0, mx + 1.5 * sx), min(1.0, my + 1.5 * sy))
    core = _core(box)
    in_x = (xs >= core.x0) & (xs <= core.x1)
    in_y = (ys >= core.y0) & (ys <= core.y1)
    area = float(in_x.mean() * in_y.mean())
    share = float(weights[np.ix_(in_y, in_x)].sum() / total)
    height, width = image_rgb.shape[:2]
    elongation = (sx * width) / (sy * height)
    return SalientMass(box, share / area if area > 0 else 0.0, elongation)


def soft_share(image_rgb: np.ndarray) -> float:
    """Share (0..1) of the photo without detail: defocused background, sky, still water.

    Detail is the local mean of the absolute Laplacian on a 256-pixel gray copy; a pixel has
    none below :data:`SOFT_DETAIL` of the photo's 95th-percentile detail.
    """
    gray, _ = _gray_copy(image_rgb, 256)
    detail = np.abs(cv2.Laplacian(gray.astype(np.float32), cv2.CV_32F, ksize=3))
    detail = cv2.GaussianBlur(detail, (0, 0), 4)
    top = float(np.percentile(detail, 95))
    return float((detail < SOFT_DETAIL * top).mean()) if top > 0 else 1.0


def salient_mass_is_compact(mass: SalientMass, soft: float) -> bool:
    """Whether a salient region is a compact subject that must stay whole (a pet's head, an
    animal close-up, an object) rather than scenery whose salient mass is wide.

    A compact subject fills a detailed photo (at most :data:`COMPACT_SOFT_MAX` of it ``soft``,
    see :func:`soft_share`: a small detail in a wide defocused or empty field is a scene with a
    detail in it), its saliency is concentrated (``lift`` at least :data:`COMPACT_LIFT`) and
    blob-shaped (``elongation`` at most :data:`COMPACT_ELONGATION`: a shoreline, a ridge or a
    row of boats is a band). OpenCV's cat-face cascades were tried as a further hint and left
    out: on skimage's cat they fire on the chin, and they fire on leaves and dandelions.
    """
    return (soft <= COMPACT_SOFT_MAX and mass.lift >= COMPACT_LIFT
            and mass.elongation <= COMPACT_ELONGATION)


def _core(box: Box) -> Box:
    """The central :data:`SALIENT_CORE` of ``box`` (same centre)."""
    (cx, cy) = box.center
    half_w, half_h = SALIENT_CORE * (box.x1 - box.x0) / 2, SALIENT_CORE * (box.y1 - box.y0) / 2
    return Box(cx - half_w, cy - half_h, cx + half_w, cy + half_h)


def _around_core(core: Box) -> Box:
    """The box whose :func:`_core` is ``core`` (same centre), clipped to the photo."""
    (cx, cy) = core.center
    half_w = (core.x1 - core.x0) / SALIENT_CORE / 2
    half_h = (core.y1 - core.y0) / SALIENT_CORE / 2
    return Box(max(0.0, cx - half_w), max(0.0, cy - half_h), min(1.0, cx + half_w),
               min(1.0, cy + half_h))


def union(boxes: tuple[Box, ...]) -> Box:
    return Box(min(b.x0 for b in boxes), min(b.y0 for b in boxes),
               max(b.x1 for b in boxes), max(b.y1 for b in boxes))


def _map_size(image_rgb: np.ndarray, long_edge: int) -> tuple[int, int]:
    """(width, height) of a copy of ``image_rgb`` with its long edge ``long_edge`` pixels."""
    h, w = image_rgb.shape[:2]
    if w >= h:
        return long_edge, max(8, round(long_edge * h / w))
    return max(8, round(long_edge * w / h)), long_edge


def sharpness_map(image_rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Local sharpness (absolute Laplacian, 0..1 of its 99th percentile) at ``size`` (width,
    height): a subject is in focus, a bokeh background or the sky is not."""
    return _sharpness(_detail(image_rgb, 4 * max(size)), size)


def _detail(image_rgb: np.ndarray, long_edge: int) -> np.ndarray:
    """The absolute Laplacian of a grey copy at most ``long_edge`` pixels on its long edge."""
    gray, _ = _gray_copy(image_rgb, long_edge)
    return np.abs(cv2.Laplacian(gray.astype(np.float32), cv2.CV_32F, ksize=3))


def _sharpness(detail: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """:func:`sharpness_map` from the photo's ``detail`` (:func:`_detail`)."""
    detail = cv2.GaussianBlur(cv2.resize(detail, size, interpolation=cv2.INTER_AREA), (0, 0), 1.5)
    top = float(np.percentile(detail, 99))
    return np.clip(detail / top, 0.0, 1.0) if top > 0 else np.zeros_like(detail)


def colour_rarity_map(image_rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """How rare each pixel's chroma (CIE a*, b*) is in the photo (self-information of its
    histogram bin, 0..1) at ``size`` (width, height): a kite in a blue sky, a bird's breast
    against bark, a brown path in a green forest. Lightness is left out, so bright sky through
    leaves or a highlight is not rare; a photo of one chroma (gray) is rare nowhere."""
    if image_rgb.ndim == 2:
        return np.zeros((size[1], size[0]), np.float32)
    small = cv2.resize(image_rgb[..., :3], size, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small.astype(np.float32) / 255, cv2.COLOR_RGB2LAB)
    bins = RARITY_BINS
    a = np.clip(((lab[..., 1] + 48) / 96 * bins).astype(int), 0, bins - 1)
    b = np.clip(((lab[..., 2] + 48) / 96 * bins).astype(int), 0, bins - 1)
    code = a * bins + b
    hist = np.bincount(code.ravel(), minlength=bins * bins).astype(np.float32)
    hist = cv2.GaussianBlur((hist / hist.sum()).reshape(bins, bins), (0, 0), 0.7).ravel()
    rarity = cv2.GaussianBlur(-np.log(hist[code] + 1e-4).astype(np.float32), (0, 0), 1.0)
    span = float(rarity.max() - rarity.min())
    return (rarity - rarity.min()) / span if span > 1e-3 else np.zeros_like(rarity)


def focus_depth(image_rgb: np.ndarray) -> float:
    """How clearly a photo has a plane of focus, 0..1: 0 for a photo sharp all over (a forest,
    a street) or soft all over (the sharpest detail, the absolute Laplacian's 99th percentile
    on a :data:`FOCUS_DEPTH_EDGE`-pixel grey copy, under :data:`FOCUS_DEPTH_MIN_DETAIL` grey
    levels: an old scan, night, fog), rising to 1 as that sharpest detail stands over the
    median detail between the two ratios of :data:`FOCUS_DEPTH_CONTRAST` (a sharp subject on
    bokeh or on a plain sky)."""
    return _depth(_detail(image_rgb, FOCUS_DEPTH_EDGE))


def _depth(detail: np.ndarray) -> float:
    """:func:`focus_depth` from the photo's ``detail`` (:func:`_detail`)."""
    detail = cv2.GaussianBlur(detail, (0, 0), 3)
    top = float(np.percentile(detail, 99))
    if top < FOCUS_DEPTH_MIN_DETAIL:
        return 0.0
    contrast = top / max(float(np.median(detail)), 0.1)
    low, high = FOCUS_DEPTH_CONTRAST
    return float(np.clip((contrast - low) / (high - low), 0.0, 1.0))


def focus_map(image_rgb: np.ndarray) -> np.ndarray:
    """Where the eye goes in a photo, about :data:`FOCUS_MAP_EDGE` pixels on its long edge.

    Spectral residual saliency and colour rarity (weighted :data:`FOCUS_SALIENCY_WEIGHT` and
    :data:`FOCUS_RARITY_WEIGHT`), times sharpness and a mild centre prior. A pixel without
    detail keeps :data:`FOCUS_SOFT_FLOOR` of its weight; in a photo with a plane of focus
    (:func:`focus_depth`) only :data:`FOCUS_SHARP_FLOOR`, sharpness raised to
    :data:`FOCUS_SHARP_POWER` (in between as the depth grows): what the photographer focused
    on wins over a more colourful blur.
    """
    size = _map_size(image_rgb, FOCUS_MAP_EDGE)
    sal = cv2.resize(saliency_map(image_rgb), size, interpolation=cv2.INTER_LINEAR)
    cue = FOCUS_SALIENCY_WEIGHT * sal + FOCUS_RARITY_WEIGHT * colour_rarity_map(image_rgb, size)
    detail = _detail(image_rgb, FOCUS_DEPTH_EDGE)  # one grey copy for the depth and sharpness
    depth = _depth(detail)
    floor = FOCUS_SOFT_FLOOR + depth * (FOCUS_SHARP_FLOOR - FOCUS_SOFT_FLOOR)
    sharp = _sharpness(detail, size) ** (1 + depth * (FOCUS_SHARP_POWER - 1))
    w, h = size
    ys, xs = (np.arange(h) + 0.5) / h, (np.arange(w) + 0.5) / w
    prior = np.exp(-((xs[None] - 0.5) ** 2 + (ys[:, None] - 0.5) ** 2)
                   / (2 * FOCUS_CENTRE_SIGMA ** 2))
    weight = (floor + (1 - floor) * sharp) * (0.5 + 0.5 * prior)
    return cv2.GaussianBlur((cue * weight).astype(np.float32), (0, 0), 1.0)


def focus_blob(image_rgb: np.ndarray, grow: float | None = None) -> Box | None:
    """The box of the strongest blob of :func:`focus_map` (normalized), or None on a flat map.

    Blobs are the connected regions at least :data:`FOCUS_BLOB_LEVEL` of the map's peak; each
    scores its summed map over the square root of its area (a small sharp kite beats a wide
    band of cloud), a blob touching the photo's edge :data:`FOCUS_EDGE_PENALTY` of that. The
    strongest one is the focus: not the weighted centroid of everything, which fell between a
    bird and the bark or between a kite and the clouds.
    """
    fmap = focus_map(image_rgb)
    peak = float(fmap.max())
    if peak <= 0:
        return None
    h, w = fmap.shape
    mask = fmap >= FOCUS_BLOB_LEVEL * peak
    labels, count = ndimage.label(mask, structure=np.ones((3, 3)))
    index = np.arange(1, count + 1)
    scores = ndimage.sum(fmap, labels, index) / np.sqrt(ndimage.sum(mask, labels, index))
    slices = ndimage.find_objects(labels)
    for i, (rows, cols) in enumerate(slices):
        if rows.start == 0 or cols.start == 0 or rows.stop == h or cols.stop == w:
            scores[i] *= FOCUS_EDGE_PENALTY
    best = int(np.argmax(scores)) + 1
    if grow is not None:  # the regions at ``grow`` of the peak that the blob lies in
        wider, _ = ndimage.label(fmap >= grow * peak, structure=np.ones((3, 3)))
        best_mask = np.isin(wider, np.unique(wider[labels == best]))
    else:
        best_mask = labels == best
    rows, cols = ndimage.find_objects(best_mask.astype(np.int32))[0]
    return Box(cols.start / w, rows.start / h, cols.stop / w, rows.stop / h)


FACES_LONG_EDGE = 1280  # pixels: faces are searched on a copy at most this large (a face of
# 20 px there is 60 px on a 12 MP phone photo)


def subject_faces(image_rgb: np.ndarray) -> tuple[tuple[Box, Box], ...]:
    """The faces of an RGB uint8 photo as (whole face, eyes-to-mouth core) boxes, normalized
    and clipped to the photo, largest first: :func:`media.analysis.faces.find_faces` on a copy at
    most :data:`FACES_LONG_EDGE` pixels long. (The frontal Haar cascade's faces, given as
    further candidates, found no face on the labelled set that the model's views missed.)"""
    return subject_face_tiers(image_rgb)[0]


FacePairs = tuple[tuple[Box, Box], ...]


def subject_face_tiers(image_rgb: np.ndarray) -> tuple[FacePairs, FacePairs]:
    """:func:`subject_faces` and the possible faces beside them
    (:func:`media.analysis.faces.find_face_tiers`), both as :func:`subject_faces` gives them."""
    height, width = image_rgb.shape[:2]
    scale = min(1.0, FACES_LONG_EDGE / max(height, width))
    copy = image_rgb[..., :3] if image_rgb.ndim == 3 else cv2.cvtColor(image_rgb,
                                                                       cv2.COLOR_GRAY2RGB)
    if scale < 1.0:
        copy = cv2.resize(copy, (max(1, round(width * scale)), max(1, round(height * scale))),
                          interpolation=cv2.INTER_AREA)
    h, w = copy.shape[:2]
    tiers = find_face_tiers(np.ascontiguousarray(copy))

    def pairs(faces: tuple[FoundFace, ...]) -> FacePairs:
        found = [(_clipped(face.box, w, h), _clipped(face.core, w, h)) for face in faces]
        return tuple(sorted(found, key=lambda pair: -_area(pair[0])))
    faces = pairs(tiers.faces)
    # a possible face under a face's chin is its arm or chest (a tattoo, a print), as a face
    # found there is (drop_bodies): kept whole, it had the photo fitted small
    possible = tuple(pair for pair in pairs(tiers.possible)
                     if not any(_under_chin(pair[0], face, POSSIBLE_BODY_GAP)
                                for face, _ in faces))
    return faces, possible


def _clipped(box: tuple[float, float, float, float], width: int, height: int) -> Box:
    """A box in pixels of a ``width`` x ``height`` photo, normalized and clipped to it."""
    x0, y0, x1, y1 = box
    return Box(min(1.0, max(0.0, x0 / width)), min(1.0, max(0.0, y0 / height)),
               min(1.0, max(0.0, x1 / width)), min(1.0, max(0.0, y1 / height)))


def _area(box: Box) -> float:
    return (box.x1 - box.x0) * (box.y1 - box.y0)


def find_subject(image_rgb: np.ndarray) -> Subject:
    """Faces and focus box of an RGB uint8 image (H, W, 3); all boxes normalized 0..1.

    Faces are :func:`subject_faces` (whole faces and their cores); without faces the focus is
    :func:`focus_blob`, and whether it is a compact subject is read on the photo's whole
    salient mass (:func:`salient_mass_is_compact`). The possible faces beside the faces are
    recorded apart (:attr:`Subject.possible`), whatever the focus.
    """
    gray, _ = _gray_copy(image_rgb, 256)
    found, possible = subject_face_tiers(image_rgb)
    return replace(_subject(image_rgb, gray, found), possible=tuple(f for f, _ in possible),
                   possible_cores=tuple(core for _, core in possible))


def _subject(image_rgb: np.ndarray, gray: np.ndarray, found: FacePairs) -> Subject:
    """The :class:`Subject` of :func:`find_subject` from its ``found`` faces."""
    horizon = find_horizon(gray)
    if found:
        faces = tuple(face for face, _ in found)
        return Subject(faces, union(faces), "faces", horizon=horizon,
                       cores=tuple(core for _, core in found))
    if float(gray.std()) >= 4.0:
        mass = salient_mass(image_rgb)
        if mass is not None:
            compact = salient_mass_is_compact(mass, soft_share(image_rgb))
            blob = focus_blob(image_rgb, FOCUS_GROW_LEVEL if compact else None)
            if blob is not None:
                return Subject((), _around_core(blob) if compact else blob, "saliency", compact,
                               horizon)
    return Subject((), Box(0.3, 0.3, 0.7, 0.7), "centre", horizon=horizon)


HORIZON_EDGE = 48.0  # Sobel magnitude (about 12 grey levels a pixel) of a level edge
HORIZON_SHARE = 0.7  # ... when this share of the photo's columns has one there
HORIZON_MARGIN = 0.06  # rows this close to the top or bottom are the photo's border, not a line


def find_horizon(gray: np.ndarray) -> float | None:
    """The height (0..1) of a horizon or dominant level line in a small grey photo: the row
    (within one pixel) where most columns (:data:`HORIZON_SHARE`) cross a near-horizontal edge
    (a lake's far shore, the sea, a ridge against the sky); None when no row does."""
    g = gray.astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    level = (np.abs(gy) > HORIZON_EDGE) & (np.abs(gy) > 2 * np.abs(gx))
    h = level.shape[0]
    band = ndimage.maximum_filter1d(level, size=3, axis=0)  # a line may wander a pixel
    share = band.mean(axis=1)
    lo, hi = round(HORIZON_MARGIN * h), h - round(HORIZON_MARGIN * h)
    if hi <= lo:
        return None
    row = lo + int(np.argmax(share[lo:hi]))
    return round(row / h, 4) if share[row] >= HORIZON_SHARE else None


def keep_whole(subject: Subject) -> Subject:
    """``subject`` with, when no face was found but a compact salient subject was (a pet, an
    object: ``subject.compact``), the core of that region (:data:`SALIENT_CORE` of its width
    and height) standing in for a face: crops and moves keep it whole (a cat's eyes are never
    cut). Scenery is returned as is: crops may cut it anywhere and pan toward its focus."""
    if subject.faces or subject.source != "saliency" or not subject.compact:
        return subject
    return replace(subject, faces=(_core(subject.focus),))


CORE_PAD = 0.2  # a found core's sides pushed out by this share of its size: on tilted and
# small faces it runs up to about a sixth off the labelled one (bench/faces: 97.5 % of it kept
# on average); what a frame that holds a core alone keeps


def padded_core(core: Box, pad: float = CORE_PAD) -> Box:
    """``core`` with ``pad`` of its size added on every side, within the photo."""
    pad_w, pad_h = pad * (core.x1 - core.x0), pad * (core.y1 - core.y0)
    return Box(max(0.0, core.x0 - pad_w), max(0.0, core.y0 - pad_h), min(1.0, core.x1 + pad_w),
               min(1.0, core.y1 + pad_h))


POSSIBLE_CORE_LOOSENESS = 0.1  # a possible face's core pushed out by this share of its size
# before it is padded as a face's core is: the model's points on a face it is not sure of are
# looser (the corpus's close-up profiles: their labelled cores 93 % and 85 % inside the
# padded core, 100 % and 94 % inside the loosened one padded)


def loose_core(core: Box) -> Box:
    """A possible face's ``core`` pushed out by :data:`POSSIBLE_CORE_LOOSENESS` of its size on
    every side, within the photo: what a card's words keep off as a face's core (then padded
    as one, :func:`padded_core`)."""
    return padded_core(core, POSSIBLE_CORE_LOOSENESS)


def possible_boxes(subject: Subject) -> tuple[Box, ...]:
    """What a frame keeps whole or leaves wholly out, never cuts: each possible face
    (:attr:`Subject.possible`), its whole box with its core (:func:`padded_core`): the model's
    points on a face it is not sure of are less sure than its box (a tilted profile's core
    reached past the box's side)."""
    return tuple(union((box, padded_core(core)))
                 for box, core in zip(subject.possible, subject.possible_cores, strict=True))


def whole_boxes(subject: Subject) -> tuple[Box, ...]:
    """What no frame may cut: the faces' eyes-to-mouth cores (:func:`padded_core`; the whole
    faces of a subject stored without cores), else a compact subject's core
    (:func:`keep_whole`)."""
    if subject.source == "faces":
        return tuple(padded_core(core) for core in subject.cores) or subject.faces
    return keep_whole(subject).faces


def subject_from_dict(data: dict[str, Any]) -> Subject:
    """Rebuild a :class:`Subject` from ``dataclasses.asdict`` output (e.g. stored JSON)."""
    return Subject(faces=tuple(Box(**face) for face in data["faces"]), focus=Box(**data["focus"]),
                   source=data["source"], compact=bool(data.get("compact", True)),
                   horizon=data.get("horizon"),
                   cores=tuple(Box(**core) for core in data.get("cores", ())),
                   possible=tuple(Box(**box) for box in data.get("possible", ())),
                   possible_cores=tuple(Box(**core) for core in data.get("possible_cores", ())))


UNSEEN_FACE_SHARE = 0.1
"""A photo on which a face this share of the long edge may go unfound (:func:`may_hide_faces`):
one the film magnifies to fill a tenth of the frame or more, as big as a group photo's faces."""


def may_hide_faces(width: int, height: int) -> bool:
    """True when a face the film would show big may have gone unfound on a ``width`` x
    ``height`` photo (:func:`media.analysis.faces.smallest_face_found` at least
    :data:`UNSEEN_FACE_SHARE` of its long edge): a print under 256 px, looked at only whole (the
    163 px beach print's man, 11 px, went unfound and filled a ninth of the frame). Such a photo
    is held to show a possible face: no dissolve lays it over a face."""
    return smallest_face_found(width, height) >= UNSEEN_FACE_SHARE * max(width, height)
