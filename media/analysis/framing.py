"""Where to look in a photo, and how the virtual camera moves over it (Ken Burns).

Subjects (faces, else the salient region, else the centre) come from :mod:`media.analysis.subjects`.
:func:`plan_ken_burns` turns a photo size, its subject and an output aspect into a
:class:`Motion`: a start and an end viewport rectangle in source pixels, eased in between.
Three modes:

* ``crop``: the viewport has the output's ratio and stays inside the photo; every detected face
  (with a margin it may yield down to none) stays inside it on every frame, or, when no crop
  holds the whole faces, their eyes-to-mouth cores (:func:`held_by_cores`: a close-up filling
  its photo is framed full, never fitted small for its forehead's sake); the move is bounded so
  that image points never accelerate faster than :data:`MAX_ACCEL_PX` output pixels per frame
  squared. A portrait frame is always a crop when the faces' cores (or the focus) fit one
  magnified at most :data:`SUBJECT_CROP_MAX_UPSCALE` (the 9:16 film is full-bleed).
* ``fill``: a photo much wider than the frame (a landscape photo in 9:16, a panorama in 16:9)
  whose subject fits a crop is cropped (``crop``, panning toward the subject); when the subject
  (a wide group) or the photo's resolution does not allow a full crop, the viewport spans the
  photo's full height and only as much of its width as the faces (and
  :data:`FILL_MAX_UPSCALE`) need: the photo fills the frame's width, the backdrop shows above
  and below, and the camera pans across toward the subject.
* ``fit``: the whole photo is shown, fitted inside the frame over a blurred, darkened copy of
  itself (a tall photo in 16:9 whose crop would cut a face's core, or keep too little of it or
  magnify it more than that). The viewport is then larger than the photo; the area outside the
  photo shows the backdrop.

A crop held still (a layout's cell no move fits, :func:`whole_faces_rect`) keeps every core
whole, or the biggest faces whole and the others wholly out: never half a face.

All boxes in :class:`Subject` are normalized (0..1 of the photo's width and height). The
move itself, its ease and how it reads are :mod:`media.analysis.camera`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

from media.analysis.camera import (
    MIN_TRAVEL,
    SEEN_TRAVEL,
    STEADY_SHARE,
    TRAVEL_HEADROOM,
    Motion,
    Rect,
    held_push,
    motion_extent,
    travel,
    within_budget,
)
from media.analysis.subjects import (
    CORE_PAD,
    Box,
    Subject,
    padded_core,
    possible_boxes,
    union,
    whole_boxes,
)
from media.base.spec import Aspect

FACE_MARGIN = 0.2  # padding around a face (fraction of its size) that must stay in view
# ... which a move may yield, down to this, when the full margin leaves it no room to travel (a
# face filling most of the frame's height): a close face framed full and moving reads better
# than the whole photo as a small print over its blurred copy
FACE_MARGIN_MIN = 0.06


class Yield(NamedTuple):
    """One step of what a crop move keeps (see :data:`YIELDS`): the faces' ``margin``, whether
    a push stops at the subject's focus box (``keep_focus``), and whether it stays centred as
    the faces allow instead of moving toward the focus (``centred``)."""

    margin: float
    keep_focus: bool
    centred: bool


# What a crop move keeps, step by step until it travels far enough: the faces' margin; whether a
# push stops at the subject's focus box (a salient region is kept whole by its core, which
# stands in for a face, see media.analysis.subjects.keep_whole: its box is only where to look); and
# whether a push also moves toward the focus (on a short shot, that drift spends the
# acceleration budget the zoom needs: the push then stays centred as the faces allow)
YIELDS = tuple(Yield(*step) for step in (
    (FACE_MARGIN, True, False), (FACE_MARGIN, False, False), (FACE_MARGIN, False, True),
    (0.14, False, True), (0.1, False, True), (FACE_MARGIN_MIN, False, True),
    (0.0, False, True)))
CORE_PADS = (CORE_PAD,)  # the pads a core held alone may take, the largest that fits first.
# Measured on the labelled set planned in films (bench/faces/whole, every other photo, sizes x4):
# (0.2,) cuts a labelled core in 24 of 168 films (faces the detector missed) and leaves 78
# 9:16 views fitted whose bare cores would fit; (0.2, 0.1): 32 films and 45 views; (0.2, 0.1,
# 0): 48 films and none. A cut face costs more than a band of backdrop.
LEAST_MARGIN = FACE_MARGIN_MIN  # what a whole face keeps at least; its core (padded, see
# media.analysis.subjects.padded_core) may go edge to edge (YIELDS' last step)
SUBJECT_KEEP_MIN = 0.28  # ... when the subject fits the crop (a 9:16 portrait in 16:9 keeps 0.32)
SUBJECT_CROP_MAX_UPSCALE = 2.0  # ... and the crop is magnified at most this much
KEEP_MIN = 0.4  # smallest fraction of the photo's area a crop may keep before we fit instead
FIT_ZOOM = 1.12  # a fitted photo's push (the backdrop stays in view; no crop to bound it)
FIT_MARGIN = 0.06  # margin around a fitted photo, as a fraction of the frame's short side
FULL_ZOOM = 1.18  # zoom ratio between the wide and the tight viewport of a full move
STRONG_ZOOM = 1.3  # ... of a shot of the film's subject: its moves are the strongest
PUSH_ZOOM = 1.09  # zoom ratio of a push (8.6 % planned, about 7 % seen: see MIN_TRAVEL)
MAX_UPSCALE = 1.6  # a tight crop is never magnified more than this (output px per source px)
MAX_PUSH_ZOOM = 1.22  # a push (or a fit's) on a short shot zooms up to this to be seen
FILL_MAX_UPSCALE = 3.0  # a filled wide photo is never magnified more (output px per source px)
FILL_PUSH_ZOOM = 1.08  # a filled photo with no room to pan pushes in from this much wider
MIN_PAN_ROOM_PX = 24.0  # source pixels of room an axis needs to carry a pan or a tilt
MOVES = ("zoom_in", "zoom_out", "pan", "drift_in", "tilt")
NUDGE_MOST = 0.12  # of the crop's side: the most a move is shifted to leave a possible face out
NUDGE_CLEARANCE_PX = 1.0  # source pixels between a nudged crop's edge and the face it leaves out


@dataclass(frozen=True)
class MoveRequest:
    """What a shot asks of its camera move (:func:`plan_ken_burns`).

    ``full``: a Ken Burns ``move`` (else the one ``choice`` picks) among :data:`MOVES`;
    otherwise a gentle push (:data:`PUSH_ZOOM`). ``strong``: a shot of the film's subject
    (zooms :data:`STRONG_ZOOM` instead of :data:`FULL_ZOOM`). ``frame_scale`` > 1 looks that
    much closer than the largest crop (a repeat's detail, see :mod:`media.analysis.detail`).
    ``steady``: the share of the move's travel a viewer sees clear of the shot's transitions
    (:func:`media.analysis.camera.steady_share`). ``keep_min``: the smallest fraction of the photo
    a crop may keep before the fitted treatment is used instead (lower: fuller, tighter
    frames); ``subject_keep_min``: how little of it a crop on a fitting subject may keep (see
    :func:`needs_fit`)."""

    choice: int = 0
    full: bool = True
    move: str | None = None
    frame_scale: float = 1.0
    strong: bool = False
    steady: float = STEADY_SHARE
    keep_min: float = KEEP_MIN
    subject_keep_min: float = SUBJECT_KEEP_MIN


class Reach(NamedTuple):
    """How far a crop move goes: its ``zoom`` ratio between the wide and the tight viewport,
    how much closer than the largest crop its wide end looks (``frame_scale``), the
    travel it must reach (``min_travel``, a share of the frame), and the least margin its
    faces may yield to (``least_margin``: none for faces' cores)."""

    zoom: float
    frame_scale: float
    min_travel: float
    least_margin: float = LEAST_MARGIN


def face_guard(subject: Subject, width: int, height: int,
               margin: float = FACE_MARGIN) -> tuple[float, ...] | None:
    """The union of the faces plus ``margin`` (a share of the largest face's size), in source
    pixels clipped to the photo, as (x0, y0, x1, y1); None without faces. Every crop viewport
    contains it (with :data:`FACE_MARGIN`, or a margin a move yielded, see
    :data:`FACE_MARGIN_MIN`)."""
    if not subject.faces:
        return None
    x0, y0, x1, y1 = union(subject.faces).to_pixels(width, height)
    biggest = max(max((b.x1 - b.x0) * width, (b.y1 - b.y0) * height) for b in subject.faces)
    pad = margin * biggest
    return (max(0.0, x0 - pad), max(0.0, y0 - pad), min(float(width), x1 + pad),
            min(float(height), y1 + pad))


def largest_crop(width: int, height: int, aspect: Aspect) -> tuple[float, float]:
    """Width and height (source pixels) of the largest viewport of ``aspect``'s ratio that fits
    inside a ``width`` x ``height`` photo."""
    ratio = aspect.width / aspect.height
    if width / height > ratio:
        return height * ratio, float(height)
    return float(width), width / ratio


def full_bleed(photo_size: tuple[int, int], subject: Subject, aspect: Aspect) -> bool:
    """True when ``aspect`` is the portrait film and ``subject`` (its faces, else its focus)
    fits the photo's largest crop magnified at most :data:`SUBJECT_CROP_MAX_UPSCALE`: that
    film then shows the photo full-bleed (a crop), never fitted over its backdrop."""
    if not aspect.is_portrait:
        return False
    crop_w, crop_h = largest_crop(*photo_size, aspect)
    if aspect.width / crop_w > SUBJECT_CROP_MAX_UPSCALE:
        return False
    x0, y0, x1, y1 = (union(subject.faces) if subject.faces else subject.focus).to_pixels(
        *photo_size)
    return x1 - x0 <= crop_w + 1e-6 and y1 - y0 <= crop_h + 1e-6


def needs_fit(width: int, height: int, subject: Subject, aspect: Aspect,
              keep_min: float = KEEP_MIN, subject_keep_min: float = SUBJECT_KEEP_MIN,
              margin: float = LEAST_MARGIN) -> bool:
    """True when a crop would cut a face (with the least ``margin`` a move yields it), or keep
    less than ``keep_min`` of the photo (down to :data:`SUBJECT_KEEP_MIN` when the subject's
    focus fits a crop magnified at most :data:`SUBJECT_CROP_MAX_UPSCALE`: a tall photo in a
    wide frame is then cropped full width on its subject, not fitted small over its blur). In a
    portrait frame a subject that fits such a crop is always cropped (the 9:16 film is
    full-bleed whenever it can be)."""
    cw, ch = largest_crop(width, height, aspect)
    guard = face_guard(subject, width, height, margin)
    if guard is not None and (guard[2] - guard[0] > cw + 1e-6 or guard[3] - guard[1] > ch + 1e-6):
        return True
    keep = cw * ch / (width * height)
    if keep >= keep_min:
        return False
    fx0, fy0, fx1, fy1 = subject.focus.to_pixels(width, height)
    focus_fits = fx1 - fx0 <= cw + 1e-6 and fy1 - fy0 <= ch + 1e-6
    sharp = aspect.width / cw <= SUBJECT_CROP_MAX_UPSCALE
    if aspect.is_portrait and guard is not None:  # full-bleed when the faces fit
        return not sharp
    return not (focus_fits and sharp and (aspect.is_portrait
                                          or keep >= min(keep_min, subject_keep_min)))


def _axis_range(size: float, extent: float, guard: tuple[float, float] | None) -> tuple[float,
                                                                                          float]:
    """Allowed positions of a viewport side ``size`` on an axis of ``extent`` source pixels that
    keep the guard interval inside (the guard always fits by construction)."""
    lo, hi = 0.0, max(0.0, extent - size)
    if guard is not None:
        lo, hi = max(lo, guard[1] - size), min(hi, guard[0])
    if lo > hi:
        mid = (lo + hi) / 2
        return mid, mid
    return lo, hi


def _place(size: tuple[float, float], centre: tuple[float, float], photo: tuple[int, int],
           guard: tuple[float, ...] | None, horizon: float | None = None) -> Rect:
    """A viewport of ``size`` centred as near ``centre`` as the photo edges, the faces and the
    horizon (source pixels, kept in frame off its edges) allow."""
    w, h = size
    gx = (guard[0], guard[2]) if guard else None
    xr = _axis_range(w, photo[0], gx)
    yr = _axis_range(h, photo[1], _vertical_guard(guard, horizon, h, photo[1]))
    x = min(max(centre[0] - w / 2, xr[0]), xr[1])
    y = min(max(centre[1] - h / 2, yr[0]), yr[1])
    return Rect(float(x), float(y), float(w), float(h))


HORIZON_BAND = 0.1  # a horizon stays in frame, this share of its height from top and bottom


def _vertical_guard(guard: tuple[float, ...] | None, horizon: float | None, height: float,
                    photo_height: float) -> tuple[float, float] | None:
    """What a viewport ``height`` tall must hold vertically: the faces, and the horizon with
    :data:`HORIZON_BAND` around it (within the photo) when both fit (faces win)."""
    faces = (guard[1], guard[3]) if guard else None
    if horizon is None:
        return faces
    band = (max(0.0, horizon - HORIZON_BAND * height),
            min(photo_height, horizon + HORIZON_BAND * height))
    if faces is None:
        return band
    both = (min(band[0], faces[0]), max(band[1], faces[1]))
    return both if both[1] - both[0] <= height else faces


def _tight_zoom(photo: tuple[int, int], wide: tuple[float, float], aspect: Aspect,
                guard: tuple[float, ...] | None, zoom: float,
                focus: tuple[float, float] | None = None, seen: float = PUSH_ZOOM) -> float:
    """The zoom ratio (>= 1) allowed by faces, by the subject's ``focus`` (width, height in
    source pixels: a push never crops into a subject the wide frame holds) and by the photo's
    resolution (:data:`MAX_UPSCALE`; a small photo still zooms ``seen``, what its move needs
    to be seen, at most :data:`MAX_PUSH_ZOOM`: that much softer at the tight end)."""
    if guard is not None:
        zoom = min(zoom, wide[0] / max(1.0, guard[2] - guard[0]),
                   wide[1] / max(1.0, guard[3] - guard[1]))
    if focus is not None and focus[0] <= wide[0] and focus[1] <= wide[1]:
        zoom = min(zoom, wide[0] / max(1.0, focus[0]), wide[1] / max(1.0, focus[1]))
    floor = max(PUSH_ZOOM, min(seen, MAX_PUSH_ZOOM))
    return max(1.0, min(zoom, max(floor, wide[0] * MAX_UPSCALE / aspect.width)))


def _crop_rects(photo: tuple[int, int], subject: Subject, aspect: Aspect, move: str,
                reach: Reach, step: Yield) -> tuple[Rect, Rect]:
    """Start and end viewports of a crop move (before the acceleration budget), the wide one
    ``reach.frame_scale`` times closer than the largest crop, the faces kept with
    ``step.margin`` (see :func:`face_guard`), a push stopping at the subject's focus box with
    ``step.keep_focus``, its tight end on the focus (``step.centred``: as near the wide end's
    centre as the faces allow; the zoom a viewer must see: see :func:`_tight_zoom`)."""
    width, height = photo
    guard = face_guard(subject, width, height, step.margin)
    crop_w, crop_h = largest_crop(width, height, aspect)
    wide = (crop_w / reach.frame_scale, crop_h / reach.frame_scale)
    horizon = subject.horizon * height if subject.horizon is not None else None
    fx, fy = subject.focus.center
    focus = (fx * width, fy * height)
    box = subject.focus
    z = _tight_zoom(photo, wide, aspect, guard, reach.zoom,
                    ((box.x1 - box.x0) * width, (box.y1 - box.y0) * height) if step.keep_focus
                    else None, _seen_zoom(reach.min_travel))
    tight = (wide[0] / z, wide[1] / z)
    if move in ("pan", "tilt"):
        return _pan_rects(photo, tight, focus, guard, vertical=move == "tilt", horizon=horizon)
    wide_rect = _place(wide, focus, photo, guard, horizon)
    if move == "drift_in":
        away = (width - focus[0], height - focus[1])
        wide_rect = _place(wide, away, photo, guard, horizon)
    tight_rect = _place(tight, (wide_rect.cx, wide_rect.cy) if step.centred else focus, photo,
                        guard, horizon)
    if move == "zoom_out":
        return tight_rect, wide_rect
    return wide_rect, tight_rect


def _pan_rects(photo: tuple[int, int], size: tuple[float, float], focus: tuple[float, float],
               guard: tuple[float, ...] | None, vertical: bool = False,
               horizon: float | None = None) -> tuple[Rect, Rect]:
    """Pan (``vertical``: tilt) ending on the focus side, along the asked axis when it has
    :data:`MIN_PAN_ROOM_PX` of room, else along the axis with the most room; the horizon
    (source pixels) stays in frame, off its edges."""
    xr = _axis_range(size[0], photo[0], (guard[0], guard[2]) if guard else None)
    yr = _axis_range(size[1], photo[1], _vertical_guard(guard, horizon, size[1], photo[1]))
    end = _place(size, focus, photo, guard, horizon)
    x_room, y_room = xr[1] - xr[0], yr[1] - yr[0]
    asked = y_room if vertical else x_room
    horizontal = (not vertical) if asked >= MIN_PAN_ROOM_PX else x_room >= y_room
    if horizontal:
        far = xr[0] if abs(end.x - xr[1]) < abs(end.x - xr[0]) else xr[1]
        far = far if abs(far - end.x) > 1e-6 else (xr[0] + xr[1]) / 2
        return Rect(far, end.y, *size), end
    far = yr[0] if abs(end.y - yr[1]) < abs(end.y - yr[0]) else yr[1]
    far = far if abs(far - end.y) > 1e-6 else (yr[0] + yr[1]) / 2
    return Rect(end.x, far, *size), end


def _fit_rects(photo: tuple[int, int], aspect: Aspect, zoom_in: bool, zoom: float) -> tuple[
        Rect, Rect]:
    """Viewports (larger than the photo) that show all of it with a margin, pushing gently."""
    width, height = photo
    margin = FIT_MARGIN * min(aspect.width, aspect.height)
    k_end = min((aspect.width - 2 * margin) / width, (aspect.height - 2 * margin) / height)
    k_start = k_end / zoom  # output px per source px
    rects = []
    for k in (k_start, k_end):
        w, h = aspect.width / k, aspect.height / k
        rects.append(Rect(width / 2 - w / 2, height / 2 - h / 2, w, h))
    return (rects[0], rects[1]) if zoom_in else (rects[1], rects[0])


def _move_order(choice: int, full: bool, move: str | None = None) -> list[str]:
    """The asked ``move`` (else the one ``choice`` picks) first, then the others as fallbacks;
    a gentle move (not ``full``) zooms in or out, or pans or tilts when asked to."""
    push = "zoom_in" if choice % 2 == 0 else "zoom_out"
    if move is not None:
        push = "zoom_out" if move == "zoom_out" else "zoom_in"
        first = move if full or move in ("pan", "tilt") else push
    else:
        first = MOVES[choice % 4] if full else push
    return [first, *[m for m in MOVES if m != first]]


def plan_ken_burns(photo_size: tuple[int, int], subject: Subject, aspect: Aspect, frames: int,
                   ask: MoveRequest = MoveRequest()) -> Motion:
    """The camera move of :func:`_plan_move` that keeps every possible face
    (:attr:`media.analysis.subjects.Subject.possible`) whole or wholly out of frame
    (:func:`keeps_possible`): the move planned without them when it does; else the move
    holding them like faces (never a 9:16 fitted or filled where the move without them is a
    crop: that film is full-bleed whenever its subject fits one); else the crop :func:`_still`
    that keeps them whole or out; else (a profile wider than the 9:16 crop, too wide to leave
    out) the same two holding only their padded cores (:func:`possible_cores_only`) when
    they keep those whole (leaving out a core no crop holds only freezes the frame); else the
    move without them shifted just clear of them (:func:`nudged_clear`); else,
    for a closer look (``ask.frame_scale`` > 1), all of this from the largest crop; else the
    move planned without them. A possible face counts as no one: the analysis's
    faces, focus and source stay as they are."""
    bare = replace(subject, possible=(), possible_cores=())
    plain = _plan_move(photo_size, bare, aspect, frames, ask)
    if keeps_possible(plain, photo_size, subject):
        return plain
    kept = _keeping_possible(photo_size, subject, aspect, frames, ask, plain)
    if kept is None:
        kept = nudged_clear(plain, photo_size, subject)
    if kept is None and ask.frame_scale > 1.0:  # a closer look that cuts them: the largest
        # crop's instead, when that keeps them
        wide = replace(ask, frame_scale=1.0)
        kept = _keeping_possible(photo_size, subject, aspect, frames, wide,
                                 _plan_move(photo_size, bare, aspect, frames, wide))
    return kept or plain


def nudged_clear(motion: Motion, photo_size: tuple[int, int], subject: Subject) -> Motion | None:
    """``motion`` shifted, both ends alike (the same move), by the least that leaves the most
    of the possible faces it cuts wholly out of frame (a face on a poster behind a close-up,
    cut by the 9:16 crop's edge), still holding whole every face and core it held whole; None
    when no shift of at most :data:`NUDGE_MOST` of the crop's side clears one, or when it is
    not a crop."""
    if motion.mode != "crop":
        return None
    width, height = photo_size
    held = [box for box in (*(f.to_pixels(width, height) for f in subject.faces),
                            *(b.to_pixels(width, height) for b in whole_boxes(subject)))
            if motion.start.contains(box, 0.5) and motion.end.contains(box, 0.5)]
    possible = [box.to_pixels(width, height) for box in possible_boxes(subject)]

    def cut(move: Motion) -> int:
        return sum(not _whole_or_out(box, move.start, move.end) for box in possible)

    best, fewest = None, cut(motion)
    for dx, dy in sorted(_clearing_shifts(motion, possible), key=lambda d: abs(d[0]) + abs(d[1])):
        moved = replace(motion, start=_shifted(motion.start, dx, dy),
                        end=_shifted(motion.end, dx, dy))
        left_cut = cut(moved)
        if (left_cut < fewest and _crop_ok(moved, photo_size, None)
                and all(moved.start.contains(b, 0.5) and moved.end.contains(b, 0.5)
                        for b in held)):
            best, fewest = moved, left_cut
    return best


def _clearing_shifts(motion: Motion, boxes: list[tuple[float, float, float, float]]
                     ) -> list[tuple[float, float]]:
    """The shifts (dx, dy source pixels) that put one of ``boxes`` wholly beyond a side of
    both of ``motion``'s ends (the boxes it already clears too), each at most
    :data:`NUDGE_MOST` of the crop's side."""
    start, end = motion.start, motion.end
    clear = NUDGE_CLEARANCE_PX
    shifts = []
    for x0, y0, x1, y1 in boxes:
        shifts += [(x0 - clear - max(start.x + start.w, end.x + end.w), 0.0),
                   (x1 + clear - min(start.x, end.x), 0.0),
                   (0.0, y0 - clear - max(start.y + start.h, end.y + end.h)),
                   (0.0, y1 + clear - min(start.y, end.y))]
    most_x, most_y = NUDGE_MOST * max(start.w, end.w), NUDGE_MOST * max(start.h, end.h)
    return [(dx, dy) for dx, dy in shifts if abs(dx) <= most_x and abs(dy) <= most_y]


def _shifted(rect: Rect, dx: float, dy: float) -> Rect:
    return Rect(rect.x + dx, rect.y + dy, rect.w, rect.h)


def _keeping_possible(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
                      frames: int, ask: MoveRequest, plain: Motion) -> Motion | None:
    """The move of :func:`plan_ken_burns` that keeps ``subject``'s possible faces whole or
    out, else their padded cores whole; None when none does (``plain``: the move without
    them)."""
    kept = _whole_or_out_move(photo_size, subject, aspect, frames, ask, plain)
    if kept is not None:
        return kept
    cores = possible_cores_only(subject)
    kept = _whole_or_out_move(photo_size, cores, aspect, frames, ask, plain)
    boxes = [box.to_pixels(*photo_size) for box in cores.possible]
    if kept is not None and all(kept.start.contains(box, 0.5) and kept.end.contains(box, 0.5)
                                for box in boxes):
        return kept
    return None


def _whole_or_out_move(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
                       frames: int, ask: MoveRequest, plain: Motion) -> Motion | None:
    """The move holding ``subject``'s possible faces like faces, else the still crop keeping
    them whole or out (see :func:`plan_ken_burns`, whose move without them is ``plain``);
    None when neither does."""
    held = _plan_move(photo_size, holding_possible(subject), aspect, frames, ask)
    if keeps_possible(held, photo_size, subject) and not (
            aspect.is_portrait and held.mode != "crop" and plain.mode == "crop"):
        return held
    scale = max(1.0, min(ask.frame_scale, holding_scale(photo_size, subject, aspect)))
    still = _still(photo_size, subject, aspect, frames, scale)
    return still if keeps_possible(still, photo_size, subject) else None


def possible_cores_only(subject: Subject) -> Subject:
    """``subject`` whose possible faces are their padded eyes-to-mouth cores alone
    (:func:`media.analysis.subjects.padded_core`), without the rest of their heads: what a
    frame keeps whole of a possible face too wide for it (a close-up's profile wider than the
    9:16 crop), rather than cut its eyes and mouth or nose. Not loosened as the words keep off
    them (:func:`media.analysis.subjects.loose_core`): so loosened, the tilted close-up's
    profile no longer fit the 9:16 crop."""
    return replace(subject, possible=tuple(padded_core(c) for c in subject.possible_cores))


def holding_possible(subject: Subject) -> Subject:
    """``subject`` with its possible faces (:func:`media.analysis.subjects.possible_boxes`)
    among the faces a crop holds (their own cores too when its faces have cores), held as
    faces are (a pet's core too): framing's view alone, never the analysis's (they count as
    no one)."""
    boxes = possible_boxes(subject)
    cores = (*subject.cores, *boxes) if subject.source == "faces" and subject.cores else ()
    return replace(subject, faces=(*subject.faces, *boxes), cores=cores, source="faces",
                   possible=(), possible_cores=())


def keeps_possible(motion: Motion, photo_size: tuple[int, int], subject: Subject) -> bool:
    """True when every frame of ``motion`` holds each possible face of ``subject`` whole or
    shows none of it: at both ends wholly inside, or wholly beyond the same side (the
    viewport moves linearly between its ends, so every frame does too)."""
    return all(_whole_or_out(box.to_pixels(*photo_size), motion.start, motion.end)
               for box in possible_boxes(subject))


def _whole_or_out(box: tuple[float, float, float, float], start: Rect, end: Rect) -> bool:
    x0, y0, x1, y1 = box
    tol = 0.5  # pixels
    beyond = (lambda r: r.x + r.w <= x0 + tol, lambda r: r.x >= x1 - tol,
              lambda r: r.y + r.h <= y0 + tol, lambda r: r.y >= y1 - tol)
    return (start.contains(box, tol) and end.contains(box, tol)) or any(
        side(start) and side(end) for side in beyond)


def _plan_move(photo_size: tuple[int, int], subject: Subject, aspect: Aspect, frames: int,
               ask: MoveRequest = MoveRequest()) -> Motion:
    """Plan the camera move over a ``photo_size`` (width, height pixels) photo for ``frames``
    output frames of ``aspect``, as the shot ``ask``s (see :class:`MoveRequest`).

    A full move is one of :data:`MOVES` (zoom in toward the focus, zoom out from it, pan or
    tilt ending on it, drift in); a gentle one pushes toward (or away from) the focus. A photo
    wider than the frame whose crop keeps less than ``ask.keep_min`` of it is filled (see
    :func:`_plan_fill`), not fitted. A frame closer than the largest crop is as close as the
    faces allow, as a crop. Faces stay inside every frame's viewport; crops never leave the
    photo; the move is bounded to :data:`media.analysis.camera.MAX_ACCEL_PX` output px/frame^2.
    When the chosen move cannot travel :data:`media.analysis.camera.MIN_TRAVEL` (a face filling the
    frame), another move is used, failing all the one that travels farthest, or the fitted
    treatment if that barely moves. The move plans :data:`media.analysis.camera.SEEN_TRAVEL` over
    the share of it a viewer sees (``ask.steady``; pushes and fits zoom up to
    :data:`MAX_PUSH_ZOOM` for it).
    """
    width, height = photo_size
    frames = max(1, int(frames))
    min_travel = SEEN_TRAVEL * TRAVEL_HEADROOM / max(0.3, min(1.0, ask.steady))
    seen_zoom = min(MAX_PUSH_ZOOM, _seen_zoom(min_travel))
    zoom = max((STRONG_ZOOM if ask.strong else FULL_ZOOM) if ask.full else PUSH_ZOOM, seen_zoom)
    moves = _move_order(ask.choice, ask.full, ask.move)
    subject = _yield_core_margin(photo_size, subject, aspect, ask.frame_scale)
    fit = _plan_fit(photo_size, aspect, frames, moves[0], max(FIT_ZOOM, seen_zoom))
    frame_scale = min(ask.frame_scale, holding_scale(photo_size, subject, aspect))
    if frame_scale > 1.0 + 1e-6:
        return _plan_crop(photo_size, subject, aspect, frames, moves,
                          None if aspect.is_portrait else fit,
                          Reach(zoom, frame_scale, min_travel))
    subject, least = held_by_cores(photo_size, subject, aspect)
    reach = Reach(zoom, 1.0, min_travel, least)
    if not needs_fit(width, height, subject, aspect, ask.keep_min, ask.subject_keep_min,
                     reach.least_margin):
        planned = _plan_crop(photo_size, subject, aspect, frames, moves,
                             None if aspect.is_portrait or reach.least_margin == 0.0 else fit,
                             reach)  # full-bleed 9:16, a close-up framed full
    elif width * aspect.height > height * aspect.width:  # wider than the frame: fill
        planned = _plan_fill(photo_size, subject, aspect, frames, min_travel) or _plan_crop(
            photo_size, subject, aspect, frames, moves, fit, reach)
    else:
        planned = fit
    if planned.mode == "fit" and subject.faces and subject.source == "saliency":
        # a salient core (see keep_whole) may widen a crop into a fill, never shrink the
        # photo into a fitted card: plan again around the focus alone
        return _plan_move(photo_size, replace(subject, faces=()), aspect, frames,
                          replace(ask, frame_scale=1.0))
    return planned


def _seen_zoom(min_travel: float) -> float:
    """The zoom ratio whose scale change is ``min_travel`` (see :func:`travel`), a hair over so
    that rounding never leaves it short."""
    return math.exp(min_travel + 1e-9)


def holding_scale(photo_size: tuple[int, int], subject: Subject, aspect: Aspect) -> float:
    """How much closer than the largest crop a frame may look and still hold every face with
    its margin (infinite without faces)."""
    guard = face_guard(subject, *photo_size)
    if guard is None:
        return float("inf")
    crop_w, crop_h = largest_crop(*photo_size, aspect)
    return min(crop_w / max(1.0, guard[2] - guard[0]), crop_h / max(1.0, guard[3] - guard[1]))


def holds_at(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
             frame_scale: float) -> bool:
    """True when a crop ``frame_scale`` times closer than the largest holds ``subject`` as
    :func:`_plan_move` frames it there: every face with its margin, a compact salient core
    (a pet's head) with its margin yielded to the closer frame (:func:`_yield_core_margin`)."""
    yielded = _yield_core_margin(photo_size, subject, aspect, frame_scale)
    return holding_scale(photo_size, yielded, aspect) >= frame_scale - 1e-6


def _yield_core_margin(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
                       frame_scale: float = 1.0) -> Subject:
    """``subject`` with a compact salient core (the stand-in face of
    :func:`media.analysis.subjects.keep_whole`, or the film's animal a closer showing looks at,
    :mod:`media.analysis.detail`) that a crop of ``aspect`` ``frame_scale`` times closer than the
    largest holds with room for a gentle push (:data:`PUSH_ZOOM`), but not with its
    :data:`FACE_MARGIN`: the stand-in shrinks so that its guard (stand-in plus margin) is the
    crop's size over :data:`FULL_ZOOM` on each axis, and never smaller than the core. The
    margin yields, the core never does (the guard still contains all of it) and the crop keeps
    room to move. Any other subject is returned as is."""
    if subject.source != "saliency" or len(subject.faces) != 1:
        return subject
    width, height = photo_size
    crop_w, crop_h = (side / max(1.0, frame_scale) for side in largest_crop(width, height, aspect))
    guard = face_guard(subject, width, height)
    core = subject.faces[0]
    core_w, core_h = (core.x1 - core.x0) * width, (core.y1 - core.y0) * height
    if guard is None or core_w * PUSH_ZOOM > crop_w or core_h * PUSH_ZOOM > crop_h or (
            guard[2] - guard[0] <= crop_w and guard[3] - guard[1] <= crop_h):
        return subject
    pad = 2 * FACE_MARGIN * max(core_w, core_h)
    shrink = min(max(core_w, crop_w / FULL_ZOOM) / (core_w + pad),
                 max(core_h, crop_h / FULL_ZOOM) / (core_h + pad))
    shrink = max(shrink, core_w / (core_w + pad), core_h / (core_h + pad))
    (cx, cy), half_w, half_h = core.center, shrink * (core.x1 - core.x0) / 2, shrink * (
        core.y1 - core.y0) / 2
    stand_in = Box(cx - half_w, cy - half_h, cx + half_w, cy + half_h)
    return replace(subject, faces=(stand_in,))


def _plan_crop(photo_size: tuple[int, int], subject: Subject, aspect: Aspect, frames: int,
               moves: list[str], fit: Motion | None, reach: Reach) -> Motion:
    """The first of ``moves`` that keeps the faces in and travels ``reach.min_travel``, as a
    crop ``reach.frame_scale`` times closer than the largest: with the faces' full
    :data:`FACE_MARGIN` and a push moving toward the focus and stopping at its box if one can,
    else yielding those step by step (:data:`YIELDS`) until one can. Failing all, the crop that
    travels farthest, unless it barely moves (under half of ``min_travel``) while ``fit`` moves
    twice as far: then ``fit``, as when no crop holds the faces at all. Without ``fit`` (the
    9:16 film, full-bleed whenever a crop holds the faces) the crop that travels farthest; a
    still crop on the faces when no move holds them."""
    min_travel = reach.min_travel
    best: Motion | None = None
    for step in [s for s in YIELDS if s.margin >= reach.least_margin] if subject.faces else \
            YIELDS[:3]:
        guard = face_guard(subject, *photo_size, step.margin)
        for move in moves:
            start, end = _crop_rects(photo_size, subject, aspect, move, reach, step)
            motion = within_budget(Motion("crop", start, end, frames, move), aspect.width)
            if not _crop_ok(motion, photo_size, guard):
                continue
            if travel(motion) >= min_travel - 1e-9 or frames < 3:
                return motion
            if best is None or travel(motion) > travel(best) + 1e-9:
                best = motion
    if fit is None:
        return best or _still(photo_size, subject, aspect, frames, reach.frame_scale)
    if best is None or (travel(best) < min_travel / 2 and motion_extent(
            fit, aspect.width) > 2 * motion_extent(best, aspect.width)):
        return fit
    return best


def _still(photo_size: tuple[int, int], subject: Subject, aspect: Aspect, frames: int,
           frame_scale: float = 1.0) -> Motion:
    """The crop ``frame_scale`` times closer than the largest where it keeps the faces whole
    (:func:`whole_faces_rect`), pushing slowly in on them (:func:`held_push`), else held
    still."""
    crop_w, crop_h = (side / frame_scale for side in largest_crop(*photo_size, aspect))
    rect = whole_faces_rect(photo_size, subject, (crop_w, crop_h))
    return held_still(photo_size, subject, rect, frames, aspect.width)


def held_still(photo_size: tuple[int, int], subject: Subject, rect: Rect, frames: int,
               out_width: int, keep_possible: bool = False) -> Motion:
    """``rect`` held for ``frames``: pushing slowly in on what it holds of ``subject`` (its
    faces and possible faces, their cores bare and padded, each whole when ``rect`` holds it
    whole; else, unless ``keep_possible`` (every possible face whole or out), their cores
    alone, padded, else bare (a held picture is a frozen film, refunded; a pad is not a face):
    :func:`media.analysis.camera.held_push`), else still where no push keeps them."""
    cores = (*subject.cores, *subject.possible_cores)
    padded = (*cores, *(padded_core(c) for c in cores))
    whole = (*subject.faces, *padded, *possible_boxes(subject))
    for boxes in (whole,) if keep_possible else (whole, padded, cores):
        keep = [box.to_pixels(*photo_size) for box in boxes]
        if (motion := held_push(rect, keep, frames, out_width)) is not None:
            return motion
    return Motion("crop", rect, rect, frames, "still")


def whole_faces_rect(photo_size: tuple[int, int], subject: Subject,
                     size: tuple[float, float]) -> Rect:
    """A viewport of ``size`` (width, height source pixels, at most the photo's) inside a
    ``photo_size`` photo that cuts no face: every face's core whole (its eyes-to-mouth box,
    :attr:`media.analysis.subjects.Subject.cores`, else the face), centred on them as near as
    the photo's edges allow; when they do not all fit, the biggest faces that fit whole and
    every other face wholly outside, never half of one; the focus's centre without faces. The
    possible faces (:func:`media.analysis.subjects.possible_boxes`) whole with the faces, else
    wholly outside, where a viewport can; the cores without their pad when no viewport holds
    them padded."""
    width, height = photo_size
    cores = [c.to_pixels(width, height)
             for c in ([padded_core(c) for c in subject.cores]
                       if subject.source == "faces" and subject.cores else subject.faces)]
    possible = [b.to_pixels(width, height) for b in possible_boxes(subject)]
    fx, fy = subject.focus.center
    tries = [((*cores[:kept], *possible), cores[kept:]) for kept in range(len(cores), 0, -1)]
    tries += [(cores[:kept], (*cores[kept:], *possible)) for kept in range(len(cores), 0, -1)]
    tries += [(cores[:kept], cores[kept:]) for kept in range(len(cores), 0, -1)]
    bare = [c.to_pixels(width, height) for c in subject.cores] if subject.source == "faces" else []
    tries += [(bare[:kept], bare[kept:]) for kept in range(len(bare), 0, -1)]  # no pad: a
    # close-up's core whose pad reaches past the photo's edges in a cell a hair narrower
    if not cores:  # the possible faces whole, else out with the focus's centre held
        tries += [(possible, []), ([(fx * width, fy * height) * 2], possible)]
    for kept, out in tries:
        rect = _apart(photo_size, size, list(kept), list(out)) if kept else None
        if rect is not None:
            return rect
    return _place(size, (fx * width, fy * height), photo_size, None)


def _apart(photo_size: tuple[int, int], size: tuple[float, float],
           kept: list[tuple[float, float, float, float]],
           out: list[tuple[float, float, float, float]]) -> Rect | None:
    """The viewport of ``size`` holding every ``kept`` box whole and no part of the ``out``
    boxes (source pixels), nearest the kept boxes' centre; None when there is none."""
    w, h = size
    x0, y0 = min(b[0] for b in kept), min(b[1] for b in kept)
    x1, y1 = max(b[2] for b in kept), max(b[3] for b in kept)
    xs = _positions(w, photo_size[0], (x0, x1), [(b[0], b[2]) for b in out])
    ys = _positions(h, photo_size[1], (y0, y1), [(b[1], b[3]) for b in out])
    centre = ((x0 + x1) / 2 - w / 2, (y0 + y1) / 2 - h / 2)
    fits = [Rect(x, y, w, h) for x in xs for y in ys
            if all(x + w <= b[0] + 1e-6 or x >= b[2] - 1e-6 or y + h <= b[1] + 1e-6
                   or y >= b[3] - 1e-6 for b in out)]
    return min(fits, key=lambda r: abs(r.x - centre[0]) + abs(r.y - centre[1]), default=None)


def _positions(side: float, extent: float, held: tuple[float, float],
               out: list[tuple[float, float]]) -> list[float]:
    """Where a viewport side ``side`` long may start on an axis ``extent`` long holding the
    interval ``held``: the ends of that range, its middle nearest ``held``'s centre, and
    just clear of each ``out`` interval on either side."""
    lo, hi = max(0.0, held[1] - side), min(extent - side, held[0])
    if lo > hi + 1e-6:
        return []
    middle = min(max((held[0] + held[1]) / 2 - side / 2, lo), hi)
    edges = [b[0] - side for b in out] + [b[1] for b in out]
    return [lo, hi, middle, *(e for e in edges if lo - 1e-6 <= e <= hi + 1e-6)]


def held_by_cores(photo_size: tuple[int, int], subject: Subject,
                  aspect: Aspect) -> tuple[Subject, float]:
    """``subject`` as a crop of ``aspect`` holds it, and the least margin its faces may yield
    to: as it is with :data:`LEAST_MARGIN` when the largest crop holds its whole faces so; else
    as it is, edge to edge (no margin), when it holds them so; else, when it holds their
    eyes-to-mouth cores (:attr:`media.analysis.subjects.Subject.cores`, each
    :data:`media.analysis.subjects.CORE_PAD` larger, else less: :data:`CORE_PADS`) magnified at
    most
    :data:`SUBJECT_CROP_MAX_UPSCALE`, the cores standing in for the faces, edge to edge (a
    close-up filling its photo is framed full, its forehead or chin may be cut, never its eyes
    or mouth); else as it is (fitted, or filling the frame's width). A compact salient core
    (a pet's head standing in for a face, :func:`media.analysis.subjects.keep_whole`) that the
    portrait film's largest crop holds only without its margin is held so too: that film is
    full-bleed whenever a crop magnified at most :data:`SUBJECT_CROP_MAX_UPSCALE` holds it."""
    crop_w, crop_h = largest_crop(*photo_size, aspect)
    if subject.source == "saliency" and subject.faces and aspect.is_portrait:
        if (aspect.width / crop_w <= SUBJECT_CROP_MAX_UPSCALE + 1e-6
                and not _holds(face_guard(subject, *photo_size, LEAST_MARGIN), crop_w, crop_h)
                and _holds(face_guard(subject, *photo_size, 0.0), crop_w, crop_h)):
            return subject, 0.0
        return subject, LEAST_MARGIN
    if subject.source != "faces" or not subject.cores:
        return subject, LEAST_MARGIN
    if _holds(face_guard(subject, *photo_size, LEAST_MARGIN), crop_w, crop_h):
        return subject, LEAST_MARGIN
    if aspect.width / crop_w > SUBJECT_CROP_MAX_UPSCALE + 1e-6:
        return subject, LEAST_MARGIN
    if _holds(face_guard(subject, *photo_size, 0.0), crop_w, crop_h):
        return subject, 0.0
    for pad in CORE_PADS:
        padded = tuple(padded_core(core, pad) for core in subject.cores)
        cores = replace(subject, faces=padded, focus=union(padded))
        if _holds(face_guard(cores, *photo_size, 0.0), crop_w, crop_h):
            return cores, 0.0
    return subject, LEAST_MARGIN


def _holds(guard: tuple[float, ...] | None, crop_w: float, crop_h: float) -> bool:
    """True when a crop ``crop_w`` x ``crop_h`` holds ``guard`` (no guard: it does)."""
    return guard is None or (guard[2] - guard[0] <= crop_w + 1e-6
                             and guard[3] - guard[1] <= crop_h + 1e-6)


def fill_width(photo_size: tuple[int, int], subject: Subject, aspect: Aspect) -> float:
    """Width (source pixels) of the narrowest full-height viewport of a photo wider than the
    frame that holds every face (with margin) and magnifies at most :data:`FILL_MAX_UPSCALE`;
    at least the crop's width, at most the photo's (the viewport of ``aspect``'s ratio is then
    taller than the photo)."""
    width, height = photo_size
    crop_w, _ = largest_crop(width, height, aspect)
    need = max(crop_w, aspect.width / FILL_MAX_UPSCALE)
    guard = face_guard(subject, width, height)
    if guard is not None:
        need = max(need, guard[2] - guard[0])
    return min(need, float(width))


def _plan_fill(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
               frames: int, min_travel: float = MIN_TRAVEL) -> Motion | None:
    """A photo wider than the frame filling its width: None when a full crop holds the faces
    (the caller then crops); else a ``fill`` viewport (:func:`fill_width` wide, centred on
    the photo's height) panning across toward the subject, faces always inside."""
    width, height = photo_size
    view_w = fill_width(photo_size, subject, aspect)
    if view_w <= largest_crop(width, height, aspect)[0] * (1 + 1e-6):
        return None
    view_h = view_w * aspect.height / aspect.width
    guard = face_guard(subject, width, height)
    lo, hi = _axis_range(view_w, width, (guard[0], guard[2]) if guard else None)
    focus_x = subject.focus.center[0] * width
    end_x = min(max(focus_x - view_w / 2, lo), hi)
    start_x = lo if abs(end_x - hi) < abs(end_x - lo) else hi
    y = height / 2 - view_h / 2
    start, end = Rect(start_x, y, view_w, view_h), Rect(end_x, y, view_w, view_h)
    if abs(start_x - end_x) / view_w < min_travel:  # no room to pan far enough: push in
        zoom = max(FILL_PUSH_ZOOM, min(MAX_PUSH_ZOOM, _seen_zoom(min_travel)))
        wider = Rect(end.cx - view_w * zoom / 2, end.cy - view_h * zoom / 2,
                     view_w * zoom, view_h * zoom)
        return within_budget(Motion("fill", wider, end, frames, "zoom_in"), aspect.width)
    return within_budget(Motion("fill", start, end, frames, "pan"), aspect.width)


def _plan_fit(photo_size: tuple[int, int], aspect: Aspect, frames: int, move: str,
              zoom: float) -> Motion:
    """The fitted treatment: the whole photo over its backdrop, gently pushing in or out."""
    start, end = _fit_rects(photo_size, aspect, move != "zoom_out", zoom)
    return within_budget(Motion("fit", start, end, frames, move), aspect.width)


def _crop_ok(motion: Motion, photo_size: tuple[int, int],
             guard: tuple[float, ...] | None) -> bool:
    """Both ends inside the photo and containing the face guard; the move is linear between
    them, so every frame is too."""
    whole = Rect(0.0, 0.0, float(photo_size[0]), float(photo_size[1]))
    for rect in (motion.start, motion.end):
        if not whole.contains((rect.x, rect.y, rect.x + rect.w, rect.y + rect.h), tol=1e-3):
            return False
        if guard is not None and not rect.contains(tuple(guard), tol=1e-3):
            return False
    return True
