"""A camera move over one photo as data, and how it reads: the viewport rectangles and the
eased path between them (:class:`Motion`), how far it travels (:func:`travel`), how much of it
a viewer sees clear of the shot's transitions (:func:`steady_share`), and the acceleration
budget every move keeps (:func:`within_budget`).

Rectangles are in source pixels; frames are output frames; travel is a share of the frame.
:mod:`media.analysis.framing` plans the moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from media.base.spec import FPS

MAX_ACCEL_PX = 0.16  # output pixels per frame^2: peak acceleration of any image point
MIN_MOVE_PX = 6.0  # output pixels: a move must carry some image point at least this far
SEEN_TRAVEL = 0.06  # a move's scale change or pan a viewer sees, as a share of the frame
# The ends of a shot play under its transitions (and the ease is slow there): on the rendered
# films a move's steady middle showed about 0.8 of its planned travel. A move plans
# SEEN_TRAVEL over its shot's steady share (see steady_share), this share when it is not known,
# with TRAVEL_HEADROOM: where a dissolve's new picture takes over (and so where its steady part
# starts) varies by a few frames with the two pictures; moves planned to exactly 6 % measured
# 5.8-6.4 % on the rendered samples.
STEADY_SHARE = 0.8
TRAVEL_HEADROOM = 1.1
MIN_TRAVEL = SEEN_TRAVEL * TRAVEL_HEADROOM / STEADY_SHARE
# A viewer takes in a new picture before reading its motion: the steady part starts this long
# after the picture takes over (at a cut, or halfway through a dissolve), and never under the
# dissolve; it ends as long before the next picture takes over. (bench/showings.py, sampling at
# 5 fps, leaves out each showing's first and last view: 0.2-0.4 s after the cut, 0.3 s on average.)
SETTLE_S = 0.3
EASE_MIX = 0.6  # 0 = linear, 1 = full cosine ease-in-out


PixelBox = tuple[float, float, float, float]
"""A box in source pixels: (x0, y0, x1, y1)."""


@dataclass(frozen=True)
class Rect:
    """A viewport rectangle in source pixels (float): top-left corner, width and height."""

    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        """Centre x (source pixels)."""
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        """Centre y (source pixels)."""
        return self.y + self.h / 2

    def lerp(self, other: Rect, t: float) -> Rect:
        """Linear interpolation toward ``other`` (t in 0..1)."""
        return Rect(self.x + (other.x - self.x) * t, self.y + (other.y - self.y) * t,
                    self.w + (other.w - self.w) * t, self.h + (other.h - self.h) * t)

    def contains(self, box: tuple[float, float, float, float], tol: float = 1e-6) -> bool:
        """True if the pixel box (x0, y0, x1, y1) lies inside this rectangle."""
        x0, y0, x1, y1 = box
        return (x0 >= self.x - tol and y0 >= self.y - tol and x1 <= self.x + self.w + tol
                and y1 <= self.y + self.h + tol)


@dataclass(frozen=True)
class Motion:
    """A camera move over one photo for one aspect, lasting ``frames`` output frames.

    ``start`` and ``end`` are viewport rectangles in source pixels with the output's ratio;
    frame ``i`` shows :meth:`rect_at` ``(i)``. ``mode`` is ``crop`` (viewport inside the photo) or
    ``fit`` (viewport larger than the photo, the rest shows a blurred backdrop).
    """

    mode: str
    start: Rect
    end: Rect
    frames: int
    move: str = "push"

    def rect_at(self, frame: int) -> Rect:
        """The viewport at ``frame`` (0-based output frame within the shot)."""
        if self.frames <= 1:
            return self.start
        u = min(max(frame / (self.frames - 1), 0.0), 1.0)
        return self.start.lerp(self.end, ease(u))


def steady_share(frames: int, lead: int, tail: int, fps: int = FPS) -> float:
    """The share of a ``frames``-long move's travel, with the move's ease, that a viewer sees
    clear of the shot's transitions: its first ``lead`` and last ``tail`` frames play under a
    dissolve (0 at a cut), and a new picture is taken in for :data:`SETTLE_S` after it takes
    over (at the cut, or halfway through the dissolve) before its motion reads; at least 0.3 (a
    shot all transition still moves)."""
    if frames <= 2:
        return STEADY_SHARE
    settle = SETTLE_S * fps
    lead_seen, tail_seen = (max(t, t / 2 + settle) for t in (max(0, lead), max(0, tail)))
    u0 = min(1.0, lead_seen / (frames - 1))
    u1 = max(u0, 1.0 - tail_seen / (frames - 1))
    return max(0.3, ease(u1) - ease(u0))


def ease(u: float) -> float:
    """Ease-in-out used by every move: a blend of linear and cosine (u and result in 0..1).

    Mostly constant speed, with the start and end softened; its second derivative is bounded by
    ``EASE_MIX * pi^2 / 2``.
    """
    return (1 - EASE_MIX) * u + EASE_MIX * (1 - math.cos(math.pi * u)) / 2


def peak_acceleration(motion: Motion, out_width: int) -> float:
    """Largest second difference (output pixels per frame^2) of any tracked image point: the
    corners and centre of the mid-shot viewport, followed through the whole move."""
    if motion.frames < 3:
        return 0.0
    u = np.arange(motion.frames) / (motion.frames - 1)  # every frame's eased share, at once
    t = (1 - EASE_MIX) * u + EASE_MIX * (1 - np.cos(np.pi * u)) / 2
    start, end = motion.start, motion.end
    xy = np.stack([start.x + (end.x - start.x) * t, start.y + (end.y - start.y) * t], axis=1)
    scale = out_width / (start.w + (end.w - start.w) * t)
    mid = motion.rect_at(motion.frames // 2)
    points = np.array([[mid.x, mid.y], [mid.x + mid.w, mid.y], [mid.x, mid.y + mid.h],
                       [mid.x + mid.w, mid.y + mid.h], [mid.cx, mid.cy]])
    out = (points[None, :, :] - xy[:, None, :]) * scale[:, None, None]
    accel = out[2:] - 2 * out[1:-1] + out[:-2]
    return float(np.abs(accel).max())


def within_budget(motion: Motion, out_width: int) -> Motion:
    """Shrink the move until it respects :data:`MAX_ACCEL_PX`: a pan or a tilt toward its end
    (the focus it was planned to end on stays where it is: a long pan across a wide photo
    becomes a shorter one onto the subject, not one that stops halfway), any other move toward
    its midpoint.

    Both ends stay convex combinations of the planned ones, so faces and photo edges remain
    respected.
    """
    start, end = motion.start, motion.end
    toward = 1.0 if motion.move in ("pan", "tilt") else 0.5
    for _ in range(60):
        if peak_acceleration(motion, out_width) <= MAX_ACCEL_PX:
            return motion
        anchor = start.lerp(end, toward)
        start, end = anchor.lerp(start, 0.85), anchor.lerp(end, 0.85)
        motion = Motion(motion.mode, start, end, motion.frames, motion.move)
    anchor = start.lerp(end, toward)
    return Motion(motion.mode, anchor, anchor, motion.frames, motion.move)


def travel(motion: Motion) -> float:
    """How far the camera travels over the move, as a share of the frame: the larger of the
    scale change (log of the viewport widths' ratio) and the distance the viewport's centre
    moves (in viewport widths). What a viewer reads as motion; issue 30 asks for 6 %."""
    start, end = motion.start, motion.end
    scale = abs(math.log(end.w / start.w)) if start.w > 0 and end.w > 0 else 0.0
    shift = math.hypot(end.cx - start.cx, end.cy - start.cy) / max(1e-9, (start.w + end.w) / 2)
    return max(scale, shift)


def motion_extent(motion: Motion, out_width: int) -> float:
    """How far (output pixels) the farthest tracked image point travels during the move."""
    start, end = motion.start, motion.end
    points = [(start.x, start.y), (start.x + start.w, start.y + start.h), (start.cx, start.cy)]
    return max(max(abs((px - start.x) * out_width / start.w - (px - end.x) * out_width / end.w),
                   abs((py - start.y) * out_width / start.w - (py - end.y) * out_width / end.w))
               for px, py in points)


HELD_PUSH_MOST = 1.04
"""How much closer a framing no move holds ends than it starts (:func:`held_push`): a push slow
enough to read as a held look, yet a picture that never freezes: a crop held still longer than
:data:`media.base.spec.MAX_FROZEN_S` is a frozen film, refunded."""
HELD_PUSH_LEAST_PX = 16.0
"""Output pixels the least :func:`held_push` carries the frame's farthest point: the slow ends
of its ease still change the picture visibly within any :data:`media.base.spec.MAX_FROZEN_S`."""


def held_push(rect: Rect, keep: list[PixelBox],
              frames: int, out_width: int, anchor: tuple[float, float] | None = None,
              band: tuple[float, float] = (0.0, 1.0)) -> Motion | None:
    """``rect`` held for ``frames`` output frames, pushing slowly in (at most
    :data:`HELD_PUSH_MOST` closer) about the frame point ``anchor`` (shares of the frame's width
    and height; the held boxes' centre by default), or as near it as keeps every ``keep`` box
    (source pixels) ``rect`` holds whole inside the frame's rows ``band`` (top and bottom,
    shares of its height). Every frame lies inside ``rect``, so whatever ``rect`` leaves out
    stays out. None when no such push carries a point of the frame
    :data:`HELD_PUSH_LEAST_PX`."""
    held = [box for box in keep if rect.contains(box, 0.5)] or [
        (rect.cx, rect.cy, rect.cx, rect.cy)]
    x0, y0 = min(b[0] for b in held), min(b[1] for b in held)
    x1, y1 = max(b[2] for b in held), max(b[3] for b in held)
    if anchor is None:
        anchor = (((x0 + x1) / 2 - rect.x) / rect.w, ((y0 + y1) / 2 - rect.y) / rect.h)
    u, v = (min(1.0, max(0.0, share)) for share in anchor)
    top, bottom = band
    steps = 8
    for step in range(steps + 1):
        zoom = HELD_PUSH_MOST - (HELD_PUSH_MOST - 1.0) * step / steps
        w, h = rect.w / zoom, rect.h / zoom
        xs = (max(rect.x, x1 - w), min(rect.x + rect.w - w, x0))
        ys = (max(rect.y, y1 - bottom * h), min(rect.y + rect.h - h, y0 - top * h))
        if xs[0] > xs[1] + 0.5 or ys[0] > ys[1] + 0.5:
            continue
        fixed = (rect.x + u * rect.w - u * w, rect.y + v * rect.h - v * h)
        end = Rect(min(max(fixed[0], xs[0]), xs[1]), min(max(fixed[1], ys[0]), ys[1]), w, h)
        motion = within_budget(Motion("crop", rect, end, frames, "zoom_in"), out_width)
        if motion_extent(motion, out_width) >= HELD_PUSH_LEAST_PX:
            return motion
        break  # a smaller push only moves less
    return None
