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

:func:`repeat_motion` frames a repeat knowing the showings before it: the first framing, in a
motion designer's alternation (the whole photo, a push closer to the faces, the answer to the
shot's move, another crop of a group, ...), that no earlier showing of the photo had and that
keeps every detected face whole.

Pure: a small grey copy of the photo in, normalized boxes, scales and moves out.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

import cv2
import numpy as np

from media.analysis.camera import within_budget
from media.analysis.framing import (
    FIT_MARGIN,
    FIT_ZOOM,
    PUSH_ZOOM,
    Motion,
    MoveRequest,
    Rect,
    face_guard,
    full_bleed,
    held_still,
    holding_scale,
    holds_at,
    keeps_possible,
    largest_crop,
    needs_fit,
    plan_ken_burns,
)
from media.analysis.safe_crops import safe_crops, uncroppable_possible
from media.analysis.scales import WHOLE_STEP, detail_scales, max_detail_scale, whole_scale
from media.analysis.subjects import Box, Subject, keep_whole, union, whole_boxes
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


# --- a repeat's framing: new every time --------------------------------------------------------

NEW_FRAMING_IOU = 0.9
"""A showing is framed as an earlier one when it moves between nearly the same rectangles
(whatever the move is called): both its start and its end overlap the earlier's by more than
this (intersection over union)."""
REVERSE = {"zoom_in": "zoom_out", "zoom_out": "zoom_in", "pan": "tilt", "tilt": "pan",
           "drift_in": "zoom_out", "still": "zoom_in"}
"""The move a repeat answers a showing's move with: a push with a pull, a pan with a tilt."""
BETWEEN_SCALES = (1.25, 2.0)  # closer looks between the detail scales, for long films
LAST_SCALES = (1.12, 1.4)
"""Closer looks a repeat takes once every other framing was shown (a pet filling the 9:16
crop of a square photo, alone in a long film): each still at least :data:`NEW_FRAMING_IOU`
apart from the largest crop and from :data:`BETWEEN_SCALES`' 1.25."""


@dataclass(frozen=True)
class Repeat:
    """A photo shown again alone: its ``size`` (pixels), its ``subject`` (after
    :func:`media.analysis.subjects.keep_whole`), its :func:`texture_map` and where the film's
    animal is in it (``subject_at``, see :func:`showing_frame`)."""

    size: tuple[int, int]
    subject: Subject
    texture: np.ndarray
    subject_at: Box | None = None


def same_framing(a: Motion, b: Motion) -> bool:
    """True when ``a`` moves between nearly the same rectangles as ``b``
    (:data:`NEW_FRAMING_IOU`), whatever either move is called (a pan and a tilt between the
    same two crops are one picture): a viewer sees the same picture again."""
    return _iou(a.start, b.start) > NEW_FRAMING_IOU and _iou(a.end, b.end) > NEW_FRAMING_IOU


def _iou(a: Rect, b: Rect) -> float:
    ix = max(0.0, min(a.x + a.w, b.x + b.w) - max(a.x, b.x))
    iy = max(0.0, min(a.y + a.h, b.y + b.h) - max(a.y, b.y))
    inter = ix * iy
    return inter / max(1e-9, a.w * a.h + b.w * b.h - inter)


def reversed_motion(motion: Motion) -> Motion:
    """``motion`` played backwards (a push becomes a pull, a pan runs the other way): the
    same rectangles, so the same faces held, and the same acceleration budget."""
    move = {"zoom_in": "zoom_out", "zoom_out": "zoom_in", "drift_in": "drift_out"}.get(
        motion.move, motion.move)
    return Motion(motion.mode, motion.end, motion.start, motion.frames, move)


def shows_whole(photo_size: tuple[int, int], subject: Subject, aspect: Aspect) -> bool:
    """True when a showing may fit the whole photo over its backdrop in ``aspect`` and that
    looks new: the whole photo is :data:`media.analysis.scales.WHOLE_STEP` wider than its
    largest crop, and the frame is not the 9:16 film of a photo whose subject fits a crop
    (:func:`media.analysis.framing.full_bleed`: that film is full-bleed)."""
    return (whole_scale(photo_size, aspect) * WHOLE_STEP <= 1.0 + 1e-6
            and not full_bleed(photo_size, subject, aspect))


def repeat_motion(photo: Repeat, aspect: Aspect, frames: int, ask: MoveRequest,
                  earlier: Sequence[Motion]) -> Motion:
    """The camera move of a photo shown again alone in ``aspect`` for ``frames`` frames, the
    ``earlier`` showings of it in that aspect being known: the first framing, in the order a
    motion designer alternates them (:func:`_framings`: the whole photo, a push to its faces, the
    answer to the shot's move, a closer push, a pan or tilt the other way, ...), that is new
    (:func:`same_framing` none of ``earlier``) and keeps every detected face whole
    (:func:`_keeps_faces`); failing that the first new one, failing all the first. Those that
    cut a possible face (:func:`media.analysis.framing.keeps_possible`) come after all these
    (the first new one keeping every face whole), then the whole photo where no crop shows a
    possible face whole (:func:`_whole_once_cropped`), before the first; before them all,
    when no family holds a new framing that keeps them, a crop inside what is safe
    (:func:`media.analysis.safe_crops.safe_crops`: a close-up its faces or a profile fill)."""
    first: Motion | None = None
    new: Motion | None = None
    cutting: Motion | None = None
    for motion in _framings(photo, aspect, frames, ask):
        first = first or motion
        if any(same_framing(motion, m) for m in earlier):
            continue
        if not keeps_possible(motion, photo.size, photo.subject):
            cutting = cutting or (motion if _keeps_faces(motion, photo) else None)
            continue
        if _keeps_faces(motion, photo):
            return motion
        if new is None and _keeps_faces(motion, photo, core_only=True):
            new = motion
    assert first is not None
    return (new or _safe_crop(photo, aspect, frames, earlier) or cutting
            or _whole_once_cropped(photo, aspect, frames, earlier) or first)


def _whole_once_cropped(photo: Repeat, aspect: Aspect, frames: int,
                        earlier: Sequence[Motion]) -> Motion | None:
    """The whole photo fitted (:func:`_whole`), framed as none of ``earlier``, for a photo
    whose possible face no crop shows whole
    (:func:`media.analysis.safe_crops.uncroppable_possible`: a tilted close-up's profile
    wider than the 9:16 crop) once no crop is new: full-bleed as its film is, the crops that
    hold that face's core are all one framing (one of them shown: ``earlier`` has a crop),
    and the whole photo shows that face whole."""
    if not any(m.mode == "crop" for m in earlier) or not uncroppable_possible(
            photo.size, photo.subject, aspect):
        return None
    for motion in _whole(photo, aspect, frames, last=True, cropped=True):
        if not any(same_framing(motion, m) for m in earlier):
            return motion
    return None


def _safe_crop(photo: Repeat, aspect: Aspect, frames: int,
               earlier: Sequence[Motion]) -> Motion | None:
    """The first crop inside what is safe (:func:`media.analysis.safe_crops.safe_crops`)
    framed as none of ``earlier`` and keeping the detected faces' cores whole."""
    for motion in safe_crops(photo.size, photo.subject, aspect, frames):
        if not any(same_framing(motion, m) for m in earlier) and _keeps_faces(
                motion, photo, core_only=True):
            return motion
    return None


def _keeps_faces(motion: Motion, photo: Repeat, core_only: bool = False) -> bool:
    """True when no detected face is cut and one at least is whole along ``motion``
    (:data:`FACE_SAMPLES` frames): each face whole (its box, not only its core) or wholly
    out of frame: a repeat never looks at a face cut to its core. With ``core_only``, each
    face's eyes-to-mouth core (:func:`media.analysis.subjects.whole_boxes`) whole or wholly
    out is enough."""
    subject = photo.subject
    if subject.source != "faces" or not subject.faces:
        return True
    boxes = [b.to_pixels(*photo.size)
             for b in (whole_boxes(subject) if core_only else subject.faces)]
    last = max(0, motion.frames - 1)
    for k in range(FACE_SAMPLES):
        rect = motion.rect_at(round(last * k / (FACE_SAMPLES - 1)))
        whole = [rect.contains(box, tol=1.0) for box in boxes]
        if not any(whole) or not all(w or _outside(box, rect) for w, box in zip(
                whole, boxes, strict=True)):
            return False
    return True


FACE_SAMPLES = 9  # frames of a repeat's move checked for its faces (its ends and between)


def _outside(box: tuple[float, float, float, float], rect: Rect) -> bool:
    return (box[2] <= rect.x or box[0] >= rect.x + rect.w or box[3] <= rect.y
            or box[1] >= rect.y + rect.h)


def _framings(photo: Repeat, aspect: Aspect, frames: int, ask: MoveRequest) -> Iterator[Motion]:
    """Every framing a repeat may take, the families taken in turn (one of each, then the next
    of each): the whole photo; the closer looks (:func:`showing_frame`'s, each scale a family);
    the largest crop with the answer to the shot's move, then every other move; then closer looks
    between the scales (:data:`BETWEEN_SCALES`). Each move comes also played backwards. A
    photo with no face found (nor a pet's head) shows its whole first, every way it may. Last
    the largest crop held still."""
    families = [_whole(photo, aspect, frames)]
    levels = detail_scales(photo.size, aspect, _hold(photo), False)
    families += [_closer(photo, aspect, frames, ask, level) for level in range(1, len(levels))]
    families.insert(min(2, len(families)), _wide(photo, aspect, frames, ask, 1.0))
    families.insert(min(3, len(families)), _group(photo, aspect, frames, ask))
    families += _closer_crops(photo, aspect, frames, ask, BETWEEN_SCALES)

    if not photo.subject.faces:  # nothing found to hold: the whole photo first, as it may
        yield from families.pop(0)  # hold a face the analysis missed
    yield from _taking_turns(families)
    if not _shows_fitted(photo, aspect):
        yield from _whole(photo, aspect, frames, last=True)
    yield from _taking_turns(_closer_crops(photo, aspect, frames, ask, LAST_SCALES))
    yield from _held(photo, aspect, frames, ask)


def _taking_turns(families: list[Iterator[Motion]]) -> Iterator[Motion]:
    """One motion from each of ``families`` in turn, dropping each once it runs out."""
    while families:
        for family in list(families):
            motion = next(family, None)
            if motion is None:
                families.remove(family)
            else:
                yield motion


def _closer_crops(photo: Repeat, aspect: Aspect, frames: int, ask: MoveRequest,
                  scales: Sequence[float]) -> list[Iterator[Motion]]:
    """A :func:`_wide` family for each of ``scales`` the photo's resolution allows and whose
    closer crop still holds its subject (:func:`media.analysis.framing.holds_at`)."""
    return [_wide(photo, aspect, frames, ask, scale) for scale in scales
            if scale <= max_detail_scale(photo.size, aspect) + 1e-6
            and holds_at(photo.size, photo.subject, aspect, scale)]


@functools.lru_cache(maxsize=4096)
def _planned(photo_size: tuple[int, int], subject: Subject, aspect: Aspect, frames: int,
             ask: MoveRequest) -> Motion:
    """:func:`media.analysis.framing.plan_ken_burns`, each candidate planned once: a film's
    every repeat of a photo goes through the candidates the ones before it took."""
    return plan_ken_burns(photo_size, subject, aspect, frames, ask)


def _hold(photo: Repeat) -> tuple[float, float] | None:
    guard = face_guard(photo.subject, *photo.size)
    return (guard[2] - guard[0], guard[3] - guard[1]) if guard else None


def _moves(ask: MoveRequest) -> list[str]:
    """The answer to the shot's move first, then the others."""
    own = ask.move or "zoom_in"
    first = REVERSE.get(own, "zoom_out")
    return [first, *(m for m in ("pan", "tilt", own, "zoom_in", "zoom_out", "drift_in")
                     if m != first)]


def _both_ways(motion: Motion) -> Iterator[Motion]:
    yield motion
    if motion.move != "still":
        yield reversed_motion(motion)


def _shows_fitted(photo: Repeat, aspect: Aspect) -> bool:
    """True when the whole photo fitted is a family of :func:`_framings` from the start: the
    film may show it so and it looks new (:func:`shows_whole`), or no crop holds its faces."""
    width, height = photo.size
    return not full_bleed(photo.size, photo.subject, aspect) and (
        shows_whole(photo.size, photo.subject, aspect)
        or needs_fit(width, height, photo.subject, aspect))


def _whole(photo: Repeat, aspect: Aspect, frames: int, last: bool = False,
           cropped: bool = False) -> Iterator[Motion]:
    """The whole photo fitted over its backdrop (when :func:`_shows_fitted`; with ``last``, a
    photo whose whole is barely wider than its crop, once every crop was shown: a small print
    in a long film is then seen whole on its wash rather than cropped the same way again;
    never in the 9:16 film of a photo it shows full-bleed but, with ``cropped``, once its
    crops are all shown: :func:`_whole_once_cropped`), pulling out to it then pushing in,
    then as a ladder of fitted frames between the whole photo and its faces
    (:func:`fitted_frames`), each step pushed in or pulled out, and slid across."""
    if (full_bleed(photo.size, photo.subject, aspect) and not cropped) or not (
            last or _shows_fitted(photo, aspect)):
        return
    rects = fitted_frames(photo.size, photo.subject, aspect)
    for a, b in sorted(combinations(range(len(rects)), 2), key=lambda p: p[1] - p[0]):
        yield from _both_ways(within_budget(Motion("fit", rects[b], rects[a], frames,
                                                   "zoom_out"), aspect.width))
    for rect in rects:
        yield from (within_budget(m, aspect.width) for m in _slides(photo.size, rect, frames))


FIT_STEP = 1.1  # each fitted frame of the ladder this much closer than the one before
SLIDE = 0.1  # a fitted frame slid across by this share of its width (or height)


def fitted_frames(photo_size: tuple[int, int], subject: Subject, aspect: Aspect
                  ) -> list[Rect]:
    """Viewports (source pixels, ``aspect``'s ratio) from the whole photo fitted with its
    margin (:func:`whole_motion`'s end; first the wider one its push starts from) closer by
    :data:`FIT_STEP` each, while they still show
    the photo wider than its largest crop (so they magnify it less than that crop does, which
    the film shows anyway: a small print's ladder too) and hold its faces' cores (padded, else
    its focus); each on the faces (the focus) as far as the photo's edges allow."""
    width, height = photo_size
    wider, first = (lambda m: (m.start, m.end))(whole_motion(photo_size, aspect, 2))
    held = whole_boxes(subject)  # the faces' cores (a face filling the photo: closer on it)
    guard = union(held).to_pixels(width, height) if held else subject.focus.to_pixels(
        width, height)
    crop_w, _ = largest_crop(width, height, aspect)
    narrowest = max(crop_w * FIT_STEP, guard[2] - guard[0],
                    (guard[3] - guard[1]) * aspect.width / aspect.height)
    rects, w = [wider, first], first.w / FIT_STEP
    centre = ((guard[0] + guard[2]) / 2, (guard[1] + guard[3]) / 2)
    while w >= narrowest:
        h = w * aspect.height / aspect.width
        rects.append(Rect(_along(centre[0], w, width), _along(centre[1], h, height), w, h))
        w /= FIT_STEP
    return rects


def _along(centre: float, side: float, extent: float) -> float:
    """Where a viewport side ``side`` long starts on an axis ``extent`` long, centred on
    ``centre`` inside the photo when it is shorter than the photo, else on the photo."""
    if side >= extent:
        return extent / 2 - side / 2
    return min(max(centre - side / 2, 0.0), extent - side)


def _slides(photo_size: tuple[int, int], rect: Rect, frames: int) -> Iterator[Motion]:
    """``rect`` reached by sliding :data:`SLIDE` across from each side, along the axes where
    the photo overflows the frame (a crop's pan or tilt over a fitted print)."""
    width, height = photo_size
    for axis, (side, extent) in enumerate(((rect.w, width), (rect.h, height))):
        for sign in (-1, 1):
            shift = sign * SLIDE * side
            start = (Rect(rect.x + shift, rect.y, rect.w, rect.h) if axis == 0
                     else Rect(rect.x, rect.y + shift, rect.w, rect.h))
            lo, hi = (start.x, start.x + start.w) if axis == 0 else (start.y, start.y + start.h)
            if side < extent and (lo < 0 or hi > extent):
                continue  # a crop axis: the slide would leave the photo
            yield Motion("fit", start, rect, frames, "pan" if axis == 0 else "tilt")


def _held(photo: Repeat, aspect: Aspect, frames: int, ask: MoveRequest) -> Iterator[Motion]:
    """The largest crop held still on the subject, when nothing else is new (a photo whose
    subject leaves a crop no room to move, and whose film is full-bleed)."""
    motion = _planned(photo.size, photo.subject, aspect, frames, ask)
    if motion.mode == "crop":
        yield held_still(photo.size, photo.subject, motion.end, frames, aspect.width)


def _group(photo: Repeat, aspect: Aspect, frames: int, ask: MoveRequest) -> Iterator[Motion]:
    """A different crop of a group: closer on some of its faces (each side's, then each face
    alone, the biggest first), the others wholly out of frame (:func:`_keeps_faces` decides)."""
    subject = photo.subject
    if subject.source != "faces" or len(subject.faces) < 2:
        return
    order = sorted(range(len(subject.faces)), key=lambda k: subject.faces[k].center[0])
    half = len(order) // 2
    biggest = sorted(order, key=lambda k: -((subject.faces[k].x1 - subject.faces[k].x0)
                                            * (subject.faces[k].y1 - subject.faces[k].y0)))
    for part in (order[:half], order[half:], *([k] for k in biggest)):
        faces = tuple(subject.faces[k] for k in part)
        cores = tuple(subject.cores[k] for k in part) if len(subject.cores) == len(
            subject.faces) else ()
        some = replace(subject, faces=faces, cores=cores, focus=union(faces))
        scale = min(holding_scale(photo.size, some, aspect),
                    max_detail_scale(photo.size, aspect)) / FIT_STEP
        if scale <= 1.0:
            continue
        for move in _moves(ask):
            yield from _both_ways(_planned(
                photo.size, some, aspect, frames,
                replace(ask, move=move, full=True, frame_scale=scale)))


def _wide(photo: Repeat, aspect: Aspect, frames: int, ask: MoveRequest,
          scale: float) -> Iterator[Motion]:
    """Crops ``scale`` times closer than the largest, on the photo's own subject, with every
    move in turn (:func:`_moves`), each also backwards."""
    for move in _moves(ask):
        yield from _both_ways(_planned(
            photo.size, photo.subject, aspect, frames,
            replace(ask, move=move, full=True, frame_scale=scale)))


def _closer(photo: Repeat, aspect: Aspect, frames: int, ask: MoveRequest,
            level: int) -> Iterator[Motion]:
    """The closer look of :func:`showing_frame` at ``level`` (on the faces, the animal, a
    pet's head, else the most textured regions in turn), with every move in turn."""
    levels = len(detail_scales(photo.size, aspect, _hold(photo), False))
    for turn in range(REGIONS):
        frame = showing_frame(photo.subject, photo.texture, photo.size, aspect,
                              level + turn * levels, subject_at=photo.subject_at)
        if frame.frame_scale <= 1.0:
            return
        for move in _moves(ask):
            yield from _both_ways(_planned(
                photo.size, frame.subject, aspect, frames,
                replace(ask, move=move, full=True, frame_scale=frame.frame_scale)))
        if photo.subject.faces:
            return  # the faces are the one thing to look closer at
