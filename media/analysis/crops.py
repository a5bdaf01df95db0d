"""Crops: one photo that shows (mostly) a part of another, at another scale (a close-up cut
from a group shot, a re-framed portrait, a strip of a landscape), which a perceptual hash of
the whole picture (:mod:`media.analysis.dedupe`) does not see.

Each photo gets SIFT features on a gray copy about :data:`FEATURE_SIDE` pixels on its long
edge (:func:`crop_features`); :func:`crop_pairs` matches every pair (Lowe's ratio test), fits a
similarity (rotation, scale, shift) with RANSAC and calls the pair a crop when at least
:data:`MIN_INLIERS` matches agree and they cover at least :data:`MIN_COVER` of one of the two
photos (the crop's side: on the wider photo they may sit in a face of a few pixels). Photos
linked through others (two close-ups of one group photo) are paired too. On the 300-order
corpus (``python -m bench.corpus.crops``): 661 of the 704 pairs of photos cut from one picture
are found (94 %; most of the others are two crops with nothing in common and no third photo
between them, or a face of a few pixels in a small group photo), and 33 pairs of different
source files, 21 of them one picture under two names and 12 two shots of one couple before
the same bar wall.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations

import cv2
import numpy as np

FEATURE_SIDE = 512  # pixels: the long edge of the gray copy the features are found on
MAX_FEATURES = 500  # SIFT keypoints kept per photo (the strongest)
RATIO = 0.75  # Lowe's ratio: a match's distance under this share of the second best's
MIN_INLIERS = 12  # matches that agree on one similarity
MIN_COVER = 0.1  # share of one photo's area the agreeing matches span (their hull)
SCALE_RANGE = (0.04, 25.0)  # a similarity outside this scale is no crop but a degenerate fit
RANSAC_PX = 4.0  # pixels (of the copies) a match may lie off the fitted similarity


@dataclass(frozen=True)
class CropFeatures:
    """A photo's SIFT keypoints (``points``: x, y in pixels of its gray copy of ``shape``
    rows x columns) and their ``descriptors`` (None when it has none)."""

    points: np.ndarray
    descriptors: np.ndarray | None
    shape: tuple[int, int]


def crop_features(gray: np.ndarray) -> CropFeatures:
    """The SIFT features of a uint8 gray image (or RGB), shrunk to :data:`FEATURE_SIDE` pixels
    on its long edge when larger."""
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray[..., :3], cv2.COLOR_RGB2GRAY)
    scale = FEATURE_SIDE / max(gray.shape[:2])
    if scale < 1:
        gray = cv2.resize(gray, (max(1, round(gray.shape[1] * scale)),
                                 max(1, round(gray.shape[0] * scale))),
                          interpolation=cv2.INTER_AREA)
    keypoints, descriptors = cv2.SIFT_create(nfeatures=MAX_FEATURES).detectAndCompute(gray, None)
    points = np.float32([k.pt for k in keypoints]).reshape(-1, 2)
    return CropFeatures(points, descriptors, (gray.shape[0], gray.shape[1]))


def _cover(points: np.ndarray, shape: tuple[int, int]) -> float:
    """Share of an image of ``shape`` that the hull of ``points`` spans."""
    hull = cv2.convexHull(points.astype(np.float32))
    return float(cv2.contourArea(hull)) / (shape[0] * shape[1])


def matched_points(query: tuple[np.ndarray, np.ndarray], train: tuple[np.ndarray, np.ndarray],
                   ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """The points of ``query`` and of ``train`` (each its points, N x 2, and their SIFT
    descriptors) paired by the matches that pass Lowe's ratio test: the nearest under
    ``ratio`` of the second nearest's distance; two arrays of the same length."""
    pairs = cv2.BFMatcher(cv2.NORM_L2).knnMatch(query[1], train[1], k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < ratio * p[1].distance]
    return (query[0][[m.queryIdx for m in good]].reshape(-1, 2),
            train[0][[m.trainIdx for m in good]].reshape(-1, 2))


def shows_crop(a: CropFeatures, b: CropFeatures) -> bool:
    """True when one of the two photos shows a part of the other (or all of it), at any
    scale, turned or not (see the module's docstring for the test)."""
    if a.descriptors is None or b.descriptors is None or min(len(a.points),
                                                              len(b.points)) < MIN_INLIERS:
        return False
    src, dst = matched_points((a.points, a.descriptors), (b.points, b.descriptors), RATIO)
    if len(src) < MIN_INLIERS:
        return False
    fit, mask = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC,
                                            ransacReprojThreshold=RANSAC_PX)
    if fit is None or mask is None:
        return False
    agree = mask.ravel() > 0
    scale = float(np.hypot(fit[0, 0], fit[1, 0]))
    return (int(agree.sum()) >= MIN_INLIERS and SCALE_RANGE[0] <= scale <= SCALE_RANGE[1]
            and max(_cover(src[agree], a.shape), _cover(dst[agree], b.shape)) >= MIN_COVER)


def crop_pairs(features: Mapping[str, CropFeatures],
               known: Iterable[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """Pairs ``(photo id, photo id)`` of which one shows a part of the other
    (:func:`shows_crop`), or that are linked through such pairs and the ``known`` ones (the
    near-duplicates: those are left out of the answer); ``features`` in film order, pairs in
    that order."""
    ids = list(features)
    found = [(a, b) for a, b in combinations(ids, 2)
             if shows_crop(features[a], features[b])]
    group = {i: i for i in ids}

    def root(i: str) -> str:
        while group[i] != i:
            i = group[i]
        return i

    known_pairs = {frozenset(p) for p in known if p[0] in group and p[1] in group}
    for a, b in (*found, *(tuple(p) for p in known_pairs)):
        group[root(a)] = root(b)
    return [(a, b) for a, b in combinations(ids, 2)
            if root(a) == root(b) and frozenset((a, b)) not in known_pairs]
