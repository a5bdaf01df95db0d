"""The crops a repeat takes once the usual framings hold nothing new: every viewport that keeps
whole what no frame may cut, moved between the ends of that safe range.

A close-up whose face (or a profile the detector only holds as a possible face) fills its
photo leaves a crop little room: the families of :func:`media.analysis.detail.repeat_motion`
(closer looks, every move, the whole photo) then all plan the same crop, often held still,
and the film showed it again the same way. What is safe is plain geometry: the faces with
their least margin (else their padded eyes-to-mouth cores), each possible face whole (else,
one wider than the crop, its padded core). Every viewport of the aspect's ratio that holds
their union, inside the photo and magnified at most as a closer look may be, is safe, and so
is every frame of a move between two of them (the viewport moves linearly: the safe set is
convex). :func:`safe_crops` offers those moves: a push from the largest crop to each closer
one and back, pans and tilts across the room each scale leaves, then the crop held still at
the ends and the middle of that room.

Pure: boxes (normalized, in a :class:`media.analysis.subjects.Subject`) in, camera moves
(source pixels) out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from media.analysis.camera import SEEN_TRAVEL, Motion, PixelBox, Rect, travel, within_budget
from media.analysis.framing import LEAST_MARGIN, face_guard, held_still, largest_crop
from media.analysis.scales import max_detail_scale
from media.analysis.subjects import Subject, loose_core, padded_core, union
from media.base.spec import Aspect

SAFE_SCALES = (1.0, 1.06, 1.12, 1.2, 1.3, 1.45)
"""How much closer than the largest crop the safe crops look (and the closest that holds
what must stay whole): steps a viewer tells apart (each start or end at most
:data:`media.analysis.detail.NEW_FRAMING_IOU` of the one before)."""


class Hold(NamedTuple):
    """What a safe crop keeps of the faces and of the possible faces (see :data:`HOLDS`)."""

    faces: str
    possible: str


HOLDS = (Hold("whole", "whole"), Hold("cores", "whole"), Hold("cores", "cores"))
"""What safe crops keep, safest first: each face whole with its least margin
(:data:`media.analysis.framing.LEAST_MARGIN`), else its padded eyes-to-mouth core (a
close-up filling its photo: its chin or brow may go, never its eyes or mouth, as a photo
shot frames it); each possible face whole with its core loosened and padded
(:func:`media.analysis.subjects.loose_core`: the model's points on a face it is not sure of
are looser), else that core alone (one wider than the crop); last, only when no crop holds
that, its padded core as the model placed it (:func:`media.analysis.framing.
possible_cores_only`: the least any frame keeps)."""


def must_hold(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
              hold: Hold = HOLDS[0]) -> PixelBox | None:
    """The box (source pixels) every safe crop of ``aspect`` holds whole, keeping the faces
    and the possible faces as ``hold`` says (:data:`HOLDS`; a face or a possible face too
    large for the largest crop is held by its core). None when there is nothing to hold (the
    usual framings have room then)."""
    width, height = photo_size
    crop_w, crop_h = largest_crop(width, height, aspect)

    def fits(box: PixelBox) -> bool:
        return (box[2] - box[0] <= crop_w * (1 + PAD_SLACK)
                and box[3] - box[1] <= crop_h * (1 + PAD_SLACK))

    boxes: list[PixelBox] = []
    guard = face_guard(subject, width, height, LEAST_MARGIN)
    if guard is not None:
        faces = (guard[0], guard[1], guard[2], guard[3])
        cores = [padded_core(c).to_pixels(width, height) for c in subject.cores]
        boxes += [faces] if (hold.faces == "whole" and fits(faces)) or not cores else cores
    for box, core in zip(subject.possible, subject.possible_cores, strict=True):
        loose = padded_core(loose_core(core))
        whole = union((box, loose)).to_pixels(width, height)
        boxes.append(padded_core(core).to_pixels(width, height) if hold.possible == "cores"
                     else whole if fits(whole) else loose.to_pixels(width, height))
    if not boxes:
        return None
    return _within(crop_w, crop_h, (min(b[0] for b in boxes), min(b[1] for b in boxes),
                                    max(b[2] for b in boxes), max(b[3] for b in boxes)))


def uncroppable_possible(photo_size: tuple[int, int], subject: Subject, aspect: Aspect) -> bool:
    """True when a possible face of ``subject``, whole with its loosened core (as
    :data:`HOLDS` first keeps it), is wider or taller than the largest crop of ``aspect``: no
    crop shows that face whole (a tilted close-up's profile in the 9:16 film)."""
    width, height = photo_size
    crop_w, crop_h = largest_crop(width, height, aspect)
    for box, core in zip(subject.possible, subject.possible_cores, strict=True):
        x0, y0, x1, y1 = union((box, padded_core(loose_core(core)))).to_pixels(width, height)
        if x1 - x0 > crop_w * (1 + PAD_SLACK) or y1 - y0 > crop_h * (1 + PAD_SLACK):
            return True
    return False


PAD_SLACK = 0.01
"""A held box at most this share wider (or taller) than the largest crop is held without its
outermost pixels of pad, about its centre (:func:`_within`): the tilted close-up's loosened
core is a pixel wider than its 9:16 crop."""


def _within(crop_w: float, crop_h: float, box: PixelBox) -> PixelBox:
    """``box`` shrunk about its centre to at most ``crop_w`` x ``crop_h`` when it exceeds that
    by no more than :data:`PAD_SLACK`; else as it is."""
    x0, y0, x1, y1 = box
    over_x, over_y = (x1 - x0) - crop_w, (y1 - y0) - crop_h
    if 0.0 < over_x <= crop_w * PAD_SLACK:
        x0, x1 = x0 + over_x / 2, x1 - over_x / 2
    if 0.0 < over_y <= crop_h * PAD_SLACK:
        y0, y1 = y0 + over_y / 2, y1 - over_y / 2
    return x0, y0, x1, y1


def safe_crops(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
               frames: int) -> Iterator[Motion]:
    """Crops of ``aspect`` over ``frames`` frames that hold :func:`must_hold` whole in every
    frame, as :data:`HOLDS` says (the faces whole, then their cores; the possible faces'
    cores as placed only when no crop holds them loosened): pushes from the largest crop to
    each closer :data:`SAFE_SCALES` (as close as the resolution,
    :func:`media.analysis.scales.max_detail_scale`, and the held box allow) and back, pans
    and tilts across each scale's room, each move within the acceleration budget, those
    travelling what a viewer sees (:data:`media.analysis.camera.SEEN_TRAVEL`) first and none
    under half of it; then each scale's crop held still at the ends and the middle of its
    room."""
    levels = [_rooms(photo_size, subject, aspect, hold) for hold in HOLDS]
    whole = bool(levels[0] or levels[1])  # the possible faces whole where a crop can
    for rooms in [levels[0], levels[1]] if whole else levels[2:]:
        yield from _framings(rooms, aspect, frames, (photo_size, subject, whole))


def _framings(rooms: list[Room], aspect: Aspect, frames: int,
              photo: tuple[tuple[int, int], Subject, bool]) -> Iterator[Motion]:
    """The moves and held crops of :func:`safe_crops` over ``rooms`` of ``photo`` (its size,
    subject, and whether its rooms hold the possible faces whole: then so does every held
    crop's push, :func:`media.analysis.framing.held_still`)."""
    photo_size, subject, whole = photo
    if not rooms:
        return
    moves = [within_budget(move, aspect.width) for move in _moves(rooms, frames)]
    yield from (m for m in moves if travel(m) >= SEEN_TRAVEL)
    yield from (m for m in moves if SEEN_TRAVEL / 2 <= travel(m) < SEEN_TRAVEL)
    for (x_lo, x_hi, y_lo, y_hi, w, h) in rooms:
        for x, y in ((x_lo, y_lo), (x_hi, y_hi), ((x_lo + x_hi) / 2, (y_lo + y_hi) / 2),
                     (x_lo, y_hi), (x_hi, y_lo)):
            yield held_still(photo_size, subject, Rect(x, y, w, h), frames, aspect.width,
                             keep_possible=whole)


def _rooms(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
           hold: Hold) -> list[Room]:
    """Where crops of each of :data:`SAFE_SCALES` (and the closest) holding
    :func:`must_hold` (as ``hold`` says) may lie; empty when none does."""
    held = must_hold(photo_size, subject, aspect, hold)
    if held is None:
        return []
    crop_w, crop_h = largest_crop(*photo_size, aspect)
    closest = min(max_detail_scale(photo_size, aspect), crop_w / max(1.0, held[2] - held[0]),
                  crop_h / max(1.0, held[3] - held[1]))
    if closest < 1.0 - 1e-6:
        return []
    scales = sorted({*(s for s in SAFE_SCALES if s < closest - 1e-3), closest})
    return [_room(photo_size, (crop_w / s, crop_h / s), held) for s in scales]


Room = tuple[float, float, float, float, float, float]
"""Where a crop of one size may lie: its x range, its y range, its width and height (source
pixels)."""


def _room(photo_size: tuple[int, int], size: tuple[float, float], held: PixelBox) -> Room:
    """The positions a crop of ``size`` may take holding ``held`` inside the photo."""
    width, height = photo_size
    w, h = size
    x_lo, x_hi = max(0.0, held[2] - w), min(width - w, held[0])
    y_lo, y_hi = max(0.0, held[3] - h), min(height - h, held[1])
    return x_lo, max(x_lo, x_hi), y_lo, max(y_lo, y_hi), w, h


def _centred(room: Room) -> Rect:
    x_lo, x_hi, y_lo, y_hi, w, h = room
    return Rect((x_lo + x_hi) / 2, (y_lo + y_hi) / 2, w, h)


def _moves(rooms: list[Room], frames: int) -> Iterator[Motion]:
    """The pushes from the largest crop (``rooms[0]``) to each closer one and back, then the
    pans and tilts across each room, both ways."""
    widest = _centred(rooms[0])
    for room in rooms[1:]:
        tight = _centred(room)
        yield Motion("crop", widest, tight, frames, "zoom_in")
        yield Motion("crop", tight, widest, frames, "zoom_out")
    for x_lo, x_hi, y_lo, y_hi, w, h in rooms:
        y, x = (y_lo + y_hi) / 2, (x_lo + x_hi) / 2
        for a, b in ((x_lo, x_hi), (x_hi, x_lo)):
            yield Motion("crop", Rect(a, y, w, h), Rect(b, y, w, h), frames, "pan")
        for a, b in ((y_lo, y_hi), (y_hi, y_lo)):
            yield Motion("crop", Rect(x, a, w, h), Rect(x, b, w, h), frames, "tilt")
