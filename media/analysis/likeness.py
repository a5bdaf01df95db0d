"""The same animal in another photo, by feature match (pure; no model weights).

A film about a pet has one subject photo (the order's), but the animal is often in others too:
the dog with her brother at the window, the cat on the sofa. Faces find people in every photo
(:mod:`media.analysis.subjects`); for an animal, the subject photo's compact subject (its core, as
:func:`media.analysis.subjects.keep_whole` keeps it whole) is matched against every other photo:
SIFT keypoints on gray copies :data:`MATCH_LONG_EDGE` pixels long, Lowe's ratio test
(:data:`RATIO`), then a similarity transform (scale, turn, shift) fitted by RANSAC. A photo
shows the subject when at least :data:`MIN_INLIERS` matches agree on one transform: the same
fur, eyes and markings seen again at another size or angle, not merely the same colours (a
golden cocker spaniel and an autumn leaf share their colours, not their keypoints). That
transform also says where the animal is in the other photo (:func:`where_subject`: the subject
photo's core carried over), which a closer showing of it looks at (:mod:`media.analysis.detail`).

Measured on the samples: the pet tribute's Honey (``02-honey``) matches the window photo with
her brother (``01-window``) with 98 inliers, her head at (0.31, 0.24)-(0.53, 0.42) of it (the
upper dog; her brother's head below is not matched); the forest path, stream, dandelions and
leaf with 0-2; on the people samples, a subject region without faces matches no other photo with
more than 4. It finds the animal again in photos of the same outing (the same pose or markings
in view), not from the other side or after a haircut.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from media.analysis.subjects import Box, Subject, _gray_copy, keep_whole

MATCH_LONG_EDGE = 640  # pixels: keypoints are found on gray copies this large
MAX_KEYPOINTS = 1500
RATIO = 0.75  # Lowe's ratio test: a match must be this much closer than the next best
RANSAC_PX = 4.0  # reprojection error (pixels of the copies) of an inlier
MIN_INLIERS = 20  # matches agreeing on one transform that make it the same subject
MIN_KEYPOINTS = 12  # a subject region with fewer keypoints cannot be matched (flat fur, blur)


@dataclass(frozen=True)
class Features:
    """SIFT keypoints of a picture (their positions in pixels of its gray copy) and their
    descriptors (float32, one row each); ``size``, the gray copy's width and height (pixels),
    and ``region``, the normalized box they were found in (None: the whole picture)."""

    points: np.ndarray
    descriptors: np.ndarray
    size: tuple[int, int] = (1, 1)
    region: Box | None = None

    @property
    def count(self) -> int:
        """How many keypoints."""
        return len(self.points)


def _gray(image_rgb: np.ndarray) -> np.ndarray:
    """A gray copy :data:`MATCH_LONG_EDGE` pixels long (never enlarged)."""
    return _gray_copy(image_rgb, MATCH_LONG_EDGE)[0]


def features(image_rgb: np.ndarray, region: Box | None = None) -> Features:
    """The SIFT features of an RGB (or gray) uint8 photo, only inside ``region`` (normalized)
    when given."""
    gray = _gray(image_rgb)
    h, w = gray.shape
    mask = None
    if region is not None:
        mask = np.zeros_like(gray)
        x0, y0, x1, y1 = region.to_pixels(w, h)
        mask[max(0, round(y0)):round(y1), max(0, round(x0)):round(x1)] = 255
    found, descriptors = cv2.SIFT_create(nfeatures=MAX_KEYPOINTS).detectAndCompute(gray, mask)
    points = np.float32([k.pt for k in found]).reshape(-1, 2)
    if descriptors is None:
        descriptors = np.zeros((0, 128), np.float32)
    return Features(points, descriptors, (w, h), region)


def animal_region(subject: Subject) -> Box | None:
    """The region of a subject photo to look for elsewhere: the core of a compact subject
    without faces (a pet's head and body), None for faces (found in every photo already) and
    for scenery."""
    if subject.faces or subject.source != "saliency" or not subject.compact:
        return None
    return keep_whole(subject).faces[0]


def agreeing_matches(query: Features, other: Features) -> int:
    """How many of ``query``'s keypoints find ``other``'s through the ratio test and agree on
    one similarity transform (RANSAC inliers); 0 when too few match to fit one."""
    return _fit(query, other)[0]


def _fit(query: Features, other: Features) -> tuple[int, np.ndarray | None]:
    """The agreeing matches (:func:`agreeing_matches`) and the similarity transform they agree
    on (2x3, from ``query``'s gray copy pixels to ``other``'s; None without one)."""
    if query.count < 2 or other.count < 2:
        return 0, None
    pairs = cv2.BFMatcher(cv2.NORM_L2).knnMatch(query.descriptors, other.descriptors, k=2)
    good = [m for m, n in (p for p in pairs if len(p) == 2) if m.distance < RATIO * n.distance]
    if len(good) < 3:
        return 0, None
    src = query.points[[m.queryIdx for m in good]]
    dst = other.points[[m.trainIdx for m in good]]
    cv2.setRNGSeed(0)  # RANSAC samples from OpenCV's generator: the same answer every run
    transform, inliers = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC,
                                                     ransacReprojThreshold=RANSAC_PX,
                                                     maxIters=2000, confidence=0.995)
    if inliers is None or transform is None:
        return 0, None
    return int(inliers.sum()), transform


def subject_query(image_rgb: np.ndarray, subject: Subject) -> Features | None:
    """The subject photo's features to look for in the others (:func:`animal_region`), None
    when it has no animal subject or too few keypoints on it (:data:`MIN_KEYPOINTS`)."""
    region = animal_region(subject)
    if region is None:
        return None
    query = features(image_rgb, region)
    return query if query.count >= MIN_KEYPOINTS else None


def shows_same_subject(query: Features, image_rgb: np.ndarray) -> bool:
    """Whether a photo shows the subject ``query`` describes (:func:`subject_query`): at least
    :data:`MIN_INLIERS` agreeing matches."""
    return where_subject(query, image_rgb) is not None


def where_subject(query: Features, image_rgb: np.ndarray) -> Box | None:
    """Where in a photo the subject ``query`` describes (:func:`subject_query`) is: its region
    in the subject photo carried over by the transform at least :data:`MIN_INLIERS` matches
    agree on (the same head at its size and place there), clipped to the photo, normalized;
    None when the photo does not show it."""
    other = features(image_rgb)
    inliers, transform = _fit(query, other)
    if inliers < MIN_INLIERS or transform is None:
        return None
    region = query.region or Box(0.0, 0.0, 1.0, 1.0)
    x0, y0, x1, y1 = region.to_pixels(*query.size)
    corners = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) @ transform[:, :2].T
    corners += transform[:, 2]
    (left, top), (right, bottom) = corners.min(axis=0), corners.max(axis=0)
    w, h = other.size
    box = Box(float(np.clip(left / w, 0, 1)), float(np.clip(top / h, 0, 1)),
              float(np.clip(right / w, 0, 1)), float(np.clip(bottom / h, 0, 1)))
    return box if box.x1 > box.x0 and box.y1 > box.y0 else None
