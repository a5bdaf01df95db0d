"""Where a photo lies on a rendered frame: the frame registered back to the photo.

A photo is drawn onto a frame cropped, scaled and moved (a camera move, a layout's cell), then
graded: :func:`register` finds that placement as a homography from the photo's pixels to the
frame's by SIFT features matched with Lowe's ratio test and fitted by RANSAC, and
:func:`shown_region` says which of the frame's pixels really show the photo (they agree with it
once warped, after the grade's gain and offset are fitted), so a layout's cell edge or a card
over it cuts what is shown as the frame's edge does. :func:`core_shown` is the share of a face's
eyes-to-mouth core shown. Pure: numpy and OpenCV, no files.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from media.analysis.crops import matched_points

FEATURES = 1000  # SIFT keypoints kept per picture
RATIO = 0.75  # Lowe's ratio test
MIN_INLIERS = 12  # a placement needs this many matches agreeing on one homography
RANSAC_PX = 4.0  # reprojection tolerance on the frame (pixels)
AGREE_LEVELS = 28.0  # a frame pixel shows the photo when it differs less than this (0..255)
AGREE_WINDOW = 15  # over a box of this many frame pixels (the grade's grain and halation)

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Features:
    """A grey picture's SIFT keypoints (``points``: N x 2 pixels) and descriptors."""

    points: np.ndarray
    descriptors: np.ndarray | None
    size: tuple[int, int]  # width, height in pixels


@dataclass(frozen=True)
class Placement:
    """A photo found on a frame: ``homography`` maps the photo's pixels to the frame's, agreed
    on by ``inliers`` matches."""

    homography: np.ndarray
    inliers: int

    def project(self, points: np.ndarray) -> np.ndarray:
        """Photo pixels (N x 2) to frame pixels (N x 2)."""
        flat = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(flat, self.homography).reshape(-1, 2)

    def scale(self) -> float:
        """Frame pixels per photo pixel at the photo's placement (the mean of both axes)."""
        affine = self.homography[:2, :2] / self.homography[2, 2]
        return float(np.sqrt(abs(np.linalg.det(affine))))


_SIFT = None


def _sift() -> cv2.SIFT:
    global _SIFT
    if _SIFT is None:
        _SIFT = cv2.SIFT_create(nfeatures=FEATURES)
    return _SIFT


def grey(rgb: np.ndarray) -> np.ndarray:
    """An RGB (or already grey) uint8 picture as grey."""
    return rgb if rgb.ndim == 2 else cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)


def features(picture: np.ndarray) -> Features:
    """SIFT keypoints and descriptors of an RGB or grey uint8 ``picture``."""
    image = grey(picture)
    keypoints, descriptors = _sift().detectAndCompute(image, None)
    points = np.array([k.pt for k in keypoints], np.float32).reshape(-1, 2)
    return Features(points, descriptors, (image.shape[1], image.shape[0]))


def register(photo: Features, frame: Features) -> Placement | None:
    """The placement of ``photo`` on ``frame``, or None when fewer than :data:`MIN_INLIERS`
    matches agree on one (the photo is not on the frame)."""
    if photo.descriptors is None or frame.descriptors is None or len(photo.points) < 4 \
            or len(frame.points) < 4:
        return None
    source, target = matched_points((photo.points, photo.descriptors),
                                    (frame.points, frame.descriptors), RATIO)
    if len(source) < MIN_INLIERS:
        return None
    homography, mask = cv2.findHomography(source, target, cv2.RANSAC, RANSAC_PX)
    if homography is None or int(mask.sum()) < MIN_INLIERS:
        return None
    placement = Placement(homography, int(mask.sum()))
    return placement if _plausible(placement) else None


def _plausible(placement: Placement) -> bool:
    """A renderer's placement: scaled, shifted, at most slightly turned or skewed (a fit that
    folds or flips the photo is a false match)."""
    h = placement.homography / placement.homography[2, 2]
    if abs(h[2, 0]) > 1e-3 or abs(h[2, 1]) > 1e-3:
        return False
    a = h[:2, :2]
    det = float(np.linalg.det(a))
    return det > 0 and 0.05 < np.sqrt(det) < 20


def shown_region(photo_grey: np.ndarray, frame_grey: np.ndarray,
                 placement: Placement) -> np.ndarray:
    """A boolean mask over the frame: where it shows the photo as ``placement`` puts it (the
    photo warped there agrees with the frame, after a gain and offset fitted over the warp)."""
    height, width = frame_grey.shape
    warped = cv2.warpPerspective(photo_grey, placement.homography, (width, height),
                                 flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full(photo_grey.shape, 255, np.uint8),
                                 placement.homography, (width, height),
                                 flags=cv2.INTER_NEAREST) > 0
    if inside.sum() < 64:
        return inside
    every = max(1, int(inside.sum()) // 20000)  # the fit needs a sample, not every pixel
    gain, offset = _grade_fit(warped[inside][::every].astype(np.float64),
                              frame_grey[inside][::every].astype(np.float64))
    diff = np.abs(frame_grey.astype(np.float32) - (gain * warped.astype(np.float32) + offset))
    diff = cv2.blur(diff, (AGREE_WINDOW, AGREE_WINDOW))
    return inside & (diff < AGREE_LEVELS)


def _grade_fit(src: np.ndarray, dst: np.ndarray, rounds: int = 3) -> tuple[float, float]:
    """The gain and offset taking the photo's grey levels ``src`` to the frame's ``dst``,
    fitted over the pixels that agree (what covers the photo, or lies past its shown part,
    left out): an offset first, then lines refitted over the closest pixels."""
    gain, offset = 1.0, float(np.median(dst - src))
    for _ in range(rounds):
        residual = np.abs(dst - (gain * src + offset))
        close = residual <= max(AGREE_LEVELS, float(np.percentile(residual, 50)))
        if close.sum() < 64 or src[close].std() < 1:
            break
        gain, offset = (float(v) for v in np.polyfit(src[close], dst[close], 1))
    return gain, offset


def core_shown(core: Box, placement: Placement, shown: np.ndarray) -> float:
    """The share (0..1) of a face's ``core`` (photo pixels) that the frame shows: the core
    projected onto the frame, its pixels counted where ``shown`` (off the frame counts as not
    shown)."""
    x0, y0, x1, y1 = core
    corners = placement.project(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
    area = abs(cv2.contourArea(corners.astype(np.float32)))
    if area < 1:
        return 0.0
    height, width = shown.shape
    left, top = np.floor(corners.min(axis=0)).astype(int)
    right, bottom = np.ceil(corners.max(axis=0)).astype(int)
    left, top = max(left, 0), max(top, 0)
    right, bottom = min(right, width), min(bottom, height)
    if right <= left or bottom <= top:
        return 0.0
    mask = np.zeros((bottom - top, right - left), np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners - [left, top]).astype(np.int32), 1)
    return float((mask.astype(bool) & shown[top:bottom, left:right]).sum() / area)
