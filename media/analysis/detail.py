"""How a photo is framed when the film shows it again: closer, on a part with content.

A film with few photos shows each of them several times. A repeat that shows the same picture
again reads as a loop, so every showing of a photo alone after the first looks closer, each
:data:`DETAIL_STEP` closer than the one before (:func:`detail_scales`: 1.6x, then 2.56x, so
every showing is at least 1.5x from every other, issue 30's visibly different), at a part worth
looking at: the faces (all of them, kept whole); the film's animal where a feature match found
it (:func:`media.analysis.likeness.where_subject`: the dog at the window, not the planks of the wall
beside her); a pet's head (a compact salient subject's core); else, for scenery, the most
textured parts of the photo (a detail, never plain sky or blur), apart from each other. What
resolution allows bounds how close a showing may go, and so do the faces (a close frame holds
them all with their margin): a photo allows as many new showings alone as it has scales
(:mod:`media.analysis.scales`); the planner shows its other repeats beside other photos
(:mod:`media.plan.layouts`).

Pure: a small grey copy of the photo in, normalized boxes and scales out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from media.analysis.framing import (
    FIT_MARGIN,
    FIT_ZOOM,
    PUSH_ZOOM,
    Motion,
    Rect,
    face_guard,
    largest_crop,
)
from media.analysis.scales import detail_scales
from media.analysis.subjects import Box, Subject, keep_whole, union
from media.base.spec import Aspect

TEXTURE_LONG_EDGE = 96  # the texture map's size: regions, not pixels, matter
MIN_DETAIL_TEXTURE = 0.35  # a region this much less textured than the photo's best is empty
MIN_TEXTURED_SHARE = 0.3  # ... and so is one with fewer textured cells (a kite's sky, a glare)
REGIONS = 4
TEXTURED_GRADIENT = 24.0  # Sobel magnitude (grey levels) of a textured cell of the small copy
SHARP_LONG_EDGE = 768  # fine detail (what is in focus) is measured on a copy this large
SHARP_SHARE = 0.35  # of the photo's sharpest cells' fine detail: less is out of focus


@dataclass(frozen=True)
class ShowingFrame:
    """How one showing frames its photo: the subject the move keeps and ends on, and how much
    closer than the whole photo's largest crop it looks (1.0: the largest crop; under 1: the
    whole photo fitted, :func:`whole_motion`)."""

    subject: Subject
    frame_scale: float = 1.0


def texture_map(gray: np.ndarray) -> np.ndarray:
    """Which cells of a grey photo, on a grid :data:`TEXTURE_LONG_EDGE` long, are textured
    (1.0) or flat (0.0): a cell's gradient above :data:`TEXTURED_GRADIENT`, and the cell in
    focus (:func:`_in_focus`). Counting cells, not summing gradients, keeps one strong edge (a
    horizon) from passing for a detail."""
    h, w = gray.shape[:2]
    k = TEXTURE_LONG_EDGE / max(h, w)
    small = cv2.resize(gray, (max(1, round(w * k)), max(1, round(h * k))),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)
    textured = np.sqrt(gx * gx + gy * gy) > TEXTURED_GRADIENT
    return (textured & _in_focus(gray, small.shape)).astype(np.float32)


def _in_focus(gray: np.ndarray, cells: tuple[int, ...]) -> np.ndarray:
    """Which cells (a grid of ``cells`` shape over the grey photo) hold fine detail: their mean
    Laplacian on a :data:`SHARP_LONG_EDGE` copy at least :data:`SHARP_SHARE` of the photo's
    sharpest cells' (its 90th percentile). A shallow-focus photo's bokeh has strong edges on
    the coarse grid (soft discs of light), and a closer look at it shows only blur: the pet
    sample's 9:16 looked 2 s at the dandelion field's bokeh, not at the dandelion."""
    h, w = gray.shape[:2]
    k = min(1.0, SHARP_LONG_EDGE / max(h, w))
    mid = cv2.resize(gray, (max(1, round(w * k)), max(1, round(h * k))),
                     interpolation=cv2.INTER_AREA).astype(np.float32)
    detail = cv2.resize(np.abs(cv2.Laplacian(mid, cv2.CV_32F, ksize=3)),
                        (cells[1], cells[0]), interpolation=cv2.INTER_AREA)
    detail = cv2.blur(detail, (3, 3))  # focus is a region's: a flat petal in focus is in focus
    return detail >= SHARP_SHARE * float(np.percentile(detail, 90))


def detail_regions(texture: np.ndarray, size: tuple[float, float],
                   count: int = REGIONS) -> list[Box]:
    """Up to ``count`` boxes of ``size`` (normalized width, height) with the most texture, each
    centred away from the others (no two overlap by more than a quarter), best first; regions
    much emptier than the best (:data:`MIN_DETAIL_TEXTURE`) or with under
    :data:`MIN_TEXTURED_SHARE` of their cells textured are left out (a photo of sky has none:
    its repeats show the whole photo with another move)."""
    h, w = texture.shape
    kw, kh = max(1, round(size[0] * w)), max(1, round(size[1] * h))
    if kw >= w and kh >= h:
        return [Box(0.0, 0.0, 1.0, 1.0)]
    sums = cv2.boxFilter(texture, -1, (kw, kh), normalize=True, borderType=cv2.BORDER_CONSTANT)
    half_w, half_h = kw // 2, kh // 2
    valid = np.zeros_like(sums, bool)
    valid[half_h:max(half_h + 1, h - (kh - half_h) + 1),
          half_w:max(half_w + 1, w - (kw - half_w) + 1)] = True
    scores = np.where(valid, sums, -1.0)
    regions: list[Box] = []
    best = float(scores.max())
    for _ in range(count):
        y, x = np.unravel_index(int(np.argmax(scores)), scores.shape)
        if scores[y, x] < max(MIN_DETAIL_TEXTURE * best, MIN_TEXTURED_SHARE):
            break
        x0, y0 = (x - half_w) / w, (y - half_h) / h
        regions.append(Box(x0, y0, x0 + kw / w, y0 + kh / h))
        rx, ry = 3 * kw // 4, 3 * kh // 4  # centres this close would overlap by over a quarter
        scores[max(0, y - ry):y + ry + 1, max(0, x - rx):x + rx + 1] = -1
    return regions


def showing_frame(subject: Subject, texture: np.ndarray, photo_size: tuple[int, int],
                  aspect: Aspect, showing: int, whole: bool = False,
                  subject_at: Box | None = None) -> ShowingFrame:
    """How showing ``showing`` (0: the first) of a photo alone is framed in ``aspect``: the
    first the whole photo; the next ones at the closer :func:`detail_scales` in turn (as the
    resolution and the faces allow), on what the photo shows (:func:`_closer_subject`): its
    faces (all of them, kept whole); else the film's animal at ``subject_at`` (where a feature
    match found it, see :func:`media.analysis.likeness.where_subject`), kept whole when it fits
    the closer frame with its margin; else a compact salient subject's core (a pet's head,
    :func:`media.analysis.subjects.keep_whole`); a photo with none of them (scenery) on its most
    textured regions in turn (those away from the focus the first showing ended on first).
    With ``whole`` (a one-photo film) the showing after the closest shows the whole photo
    fitted (a ``frame_scale`` under 1, see :func:`whole_motion`). A showing past the last
    scale starts over (the planner keeps such repeats beside other photos instead)."""
    subject = keep_whole(subject)
    guard = face_guard(subject, *photo_size)
    scales = detail_scales(photo_size, aspect,
                           (guard[2] - guard[0], guard[3] - guard[1]) if guard else None, whole)
    level = showing % len(scales)
    if level == 0 or scales[level] < 1.0:
        return ShowingFrame(subject, scales[level])
    scale = scales[level]
    closer = _closer_subject(subject, photo_size, aspect, scale, subject_at)
    if closer is not None:
        return ShowingFrame(closer, scale)
    crop_w, crop_h = largest_crop(*photo_size, aspect)
    width, height = photo_size
    size = (crop_w / scale / width, crop_h / scale / height)
    targets = sorted(detail_regions(texture, size), key=lambda r: _near(r, subject.focus))
    if not targets:
        return ShowingFrame(subject)
    target = targets[(showing // len(scales)) % len(targets)]  # a next round: another region
    return ShowingFrame(replace(subject, focus=target), scale)


def _closer_subject(subject: Subject, photo_size: tuple[int, int], aspect: Aspect,
                    scale: float, subject_at: Box | None) -> Subject | None:
    """What a showing ``scale`` times closer than the largest crop looks at, when the photo
    shows someone (None for scenery, see :func:`showing_frame`):

    - its faces, all of them kept whole (a close frame on a textured part of a photo of people
      cut faces in half: a mouth and a collar, legs at a pool table);
    - else the film's animal at ``subject_at``, where the feature match found her (a textured
      region beside her showed the planks of the wall under the dogs at the window), with the
      rest of the photo's focus when both fit the frame with room for a gentle push (the two
      dogs), else alone: kept whole like a pet's head when she fits so (her margin yields, see
      :func:`media.analysis.framing.plan_ken_burns`), else the focus the move centres on and
      holds; the photo's level line (:func:`media.analysis.subjects.find_horizon`) is no
      longer kept in frame;
    - else a compact subject's core (``subject`` after
      :func:`media.analysis.subjects.keep_whole`: a pet's head).
    """
    if subject.faces and (subject.source == "faces" or subject_at is None):
        return replace(subject, focus=union(subject.faces))
    if subject_at is None:
        return None
    # a close look at the animal is about her: the rail of the window (the photo's level line)
    # kept in frame had pulled the frame onto the planks below her. She stands in like a
    # salient core: her margin yields to the closer frame, never she (framing's
    # _yield_core_margin); the 16:9 tilt that began on her chin, her head cut, ended on her
    # With the rest of the photo's focus when that fits too (her brother beside her): the
    # subject photo is often this one's part, and her head alone would show it again.
    crop_w, crop_h = largest_crop(*photo_size, aspect)
    held = replace(subject, horizon=None, source="saliency")
    for target in (union((subject_at, subject.focus)), subject_at):
        x0, y0, x1, y1 = target.to_pixels(*photo_size)
        if (x1 - x0) * PUSH_ZOOM <= crop_w / scale and (y1 - y0) * PUSH_ZOOM <= crop_h / scale:
            return replace(held, faces=(target,), focus=target)
    return replace(held, faces=(), focus=subject_at)


def whole_motion(photo_size: tuple[int, int], aspect: Aspect, frames: int,
                 zoom: float = FIT_ZOOM) -> Motion:
    """The whole photo fitted in ``aspect`` with its margin over its backdrop, pushing gently
    in by ``zoom`` over ``frames`` (a one-photo film's wide showing, see
    :func:`showing_frame`)."""
    width, height = photo_size
    margin = FIT_MARGIN * min(aspect.width, aspect.height)
    k_end = min((aspect.width - 2 * margin) / width, (aspect.height - 2 * margin) / height)
    rects = []
    for k in (k_end / zoom, k_end):
        w, h = aspect.width / k, aspect.height / k
        rects.append(Rect(width / 2 - w / 2, height / 2 - h / 2, w, h))
    return Motion("fit", rects[0], rects[1], max(1, frames), "zoom_in")


ANOTHER_PART = 0.25  # a region whose centre is this far (share of the photo) from the focus


def _near(region: Box, focus: Box) -> bool:
    """True when ``region`` is centred within :data:`ANOTHER_PART` of ``focus``: a detail
    there would show again what the first showing ended on."""
    (rx, ry), (fx, fy) = region.center, focus.center
    return max(abs(rx - fx), abs(ry - fy)) < ANOTHER_PART
