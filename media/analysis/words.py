"""Where words may sit over a picture: clear of what the picture is about.

A poster (:mod:`media.deliver.poster`) and a film's title, closing and interludes over a sharp
photo (:mod:`media.frames.sources`) set their words over the picture itself. Both keep them off
the picture's subject the same way: the subject's box grown by how far a head reaches past
its detected box (:func:`reach`), and the words' block moved below or beside it, smaller if it
must be (:func:`clear_of_subject`). Where that still lays words (or the scrim's band under them)
over a face, a card's photo is framed for its words instead (:func:`framings_for_words`): the
faces in the part of the frame above the words, else the whole photo smaller above them on its
soft ground. Pure: boxes and pixels in, a place out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from media.analysis.camera import Motion, PixelBox, Rect, held_push, within_budget
from media.analysis.detail import reversed_motion, same_framing
from media.analysis.framing import (
    FIT_MARGIN,
    FIT_ZOOM,
    LEAST_MARGIN,
    MAX_UPSCALE,
    MIN_PAN_ROOM_PX,
    PUSH_ZOOM,
    keeps_possible,
    largest_crop,
)
from media.analysis.subjects import Box, Subject, loose_core, padded_core, union
from media.base.spec import Aspect

SUBJECT_REACH = (0.35, 0.15)
"""How far past its detected box a subject reaches, as shares of the box's width and height on
each side: a face box or a pet's salient head leaves out the hair and the ears (the pet
sample's spaniel: its ears hung a third of the box's width outside it)."""
SUBJECT_MARGIN = 0.03  # the words keep this far (share of the picture's side) from the subject
EDGE_MARGIN = 0.04  # and this far from the picture's edges
WORD_SCALES = (1.0, 0.85, 0.7)  # the words shrink to these sizes to fit beside a subject
SCENERY_FOCUS_MAX = 0.3  # share of a photo's area a scenery focus kept clear of words may take


def reach(subject: Box) -> Box:
    """``subject`` with the :data:`SUBJECT_REACH` around it (on the same picture)."""
    dx = SUBJECT_REACH[0] * (subject.x1 - subject.x0)
    dy = SUBJECT_REACH[1] * (subject.y1 - subject.y0)
    return Box(max(0.0, subject.x0 - dx), max(0.0, subject.y0 - dy), min(1.0, subject.x1 + dx),
               min(1.0, subject.y1 + dy))


def words_keep_off(subject: Subject) -> Box | None:
    """What words must not cover in a photo whose subject is ``subject`` (normalized box of
    the photo): its faces (or a pet's core, :func:`media.analysis.subjects.keep_whole`) with their
    :func:`reach`, else the salient region a viewer looks at (the boats) when it is a part of
    the photo (at most :data:`SCENERY_FOCUS_MAX` of it: a landscape's focus spread over most
    of it is no place to keep clear); None where nothing stands out."""
    if subject.faces:
        return reach(union(subject.faces))
    focus = subject.focus
    if subject.source != "saliency" or (focus.x1 - focus.x0) * (focus.y1 - focus.y0) > \
            SCENERY_FOCUS_MAX:
        return None
    return focus


def words_subject(subject: Subject) -> Subject:
    """``subject`` as a card's words keep off it: its possible faces (a profile, a head turned
    away, a small face the detector is not sure of) among its faces, with their cores, since
    words over what may be a face read as over a face (their cores loosened,
    :func:`media.analysis.subjects.loose_core`). A frame still counts them as no one but
    keeps them whole or out (:func:`media.analysis.framing.plan_ken_burns`)."""
    if not subject.possible:
        return subject
    loose = tuple(loose_core(core) for core in subject.possible_cores)
    cores = () if subject.faces and not subject.cores else (*subject.cores, *loose)
    return replace(subject, faces=(*subject.faces, *subject.possible), cores=cores,
                   source="faces", possible=(), possible_cores=())


def _band_centre(lo: float, hi: float, size: float) -> float | None:
    """The centre of the band ``lo``..``hi`` (pixels) when ``size`` fits in it, else None."""
    return (lo + hi) / 2 if hi - lo >= size else None


def clear_of_subject(centre: tuple[float, float], block: tuple[float, float],
                     subject: Box | None, size: tuple[int, int], *,
                     least_covering: bool = False) -> tuple[float, float, float]:
    """Where a block of words goes over a picture of ``size`` (width, height pixels): its
    centre (x, y pixels) and scale. Kept at ``centre``, full size, when it does not cover
    ``subject`` (normalized box of the picture); else below it or in the wider band beside it,
    the first band that fits the block (``block``: width, height pixels) at full size, else at
    one of :data:`WORD_SCALES`. When none does, kept where it was; or with
    ``least_covering`` (a close portrait: the face fills the picture), at the second scale
    where it covers the least of the subject: low over the picture, beside it, or where it
    was. Never above it: over the top of a landscape, without a scrim there, the words read
    worse than over boats or rocks."""
    if subject is None:
        return (*centre, 1.0)
    width, height = size
    (cx, cy), (block_w, block_h) = centre, block
    mx, my = SUBJECT_MARGIN * width, SUBJECT_MARGIN * height
    x0, y0, x1, y1 = subject.to_pixels(width, height)
    if (cy + block_h / 2 <= y0 - my or cy - block_h / 2 >= y1 + my
            or cx + block_w / 2 <= x0 - mx or cx - block_w / 2 >= x1 + mx):
        return (*centre, 1.0)
    below = (y1 + my, (1 - EDGE_MARGIN) * height)
    columns = sorted(((EDGE_MARGIN * width, x0 - mx), (x1 + mx, (1 - EDGE_MARGIN) * width)),
                     key=lambda band: band[0] - band[1])  # the wider band first
    for scale in WORD_SCALES:
        y = _band_centre(*below, block_h * scale)
        if y is not None:
            return cx, y, scale
        for lo, hi in columns:
            x = _band_centre(lo, hi, block_w * scale)
            if x is not None:
                return x, cy, scale
    if not least_covering:
        return (*centre, 1.0)
    small = WORD_SCALES[1]  # smaller than that does not keep it off: it must read
    half_w, half_h = block_w * small / 2, block_h * small / 2
    low = (cx, (1 - EDGE_MARGIN) * height - half_h)
    sides = [((lo + hi) / 2, cy) for lo, hi in columns]
    # each place as the words would really sit: whole inside the picture's edge margins (a
    # side column narrower than the block put it half off the frame, and it was drawn back
    # over the faces)
    places = [(_inside(x, half_w, width), _inside(y, half_h, height))
              for x, y in (low, *sides, centre)]
    # what the words cover of the faces themselves first (a scrim across the eyes and mouth
    # reads worst), then of the reach around them (hair, chin, collar)
    core = _core(subject).to_pixels(width, height)
    options = [(_covered((x, y, half_w, half_h), core),
                _covered((x, y, half_w, half_h), (x0, y0, x1, y1)), k, x, y)
               for k, (x, y) in enumerate(places)]
    *_, x, y = min(options)
    return x, y, small


def _core(kept_off: Box) -> Box:
    """The subject inside ``kept_off`` (a :func:`reach` box): the box without its reach."""
    w = (kept_off.x1 - kept_off.x0) / (1 + 2 * SUBJECT_REACH[0])
    h = (kept_off.y1 - kept_off.y0) / (1 + 2 * SUBJECT_REACH[1])
    cx, cy = (kept_off.x0 + kept_off.x1) / 2, (kept_off.y0 + kept_off.y1) / 2
    return Box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def _inside(centre: float, half: float, side: float) -> float:
    """``centre`` moved so a block ``half`` either side of it stays within the
    :data:`EDGE_MARGIN` of a picture ``side`` long (the middle when it cannot)."""
    lo, hi = EDGE_MARGIN * side + half, (1 - EDGE_MARGIN) * side - half
    return side / 2 if lo > hi else min(max(centre, lo), hi)


def _covered(block: tuple[float, float, float, float],
             box: tuple[float, float, float, float]) -> float:
    """The area (pixels) of ``box`` (x0, y0, x1, y1) that ``block`` (centre x, y, half width,
    half height) covers."""
    x, y, hw, hh = block
    return (max(0.0, min(x + hw, box[2]) - max(x - hw, box[0]))
            * max(0.0, min(y + hh, box[3]) - max(y - hh, box[1])))


# --- a card's photo framed for its words ---------------------------------------------------------

CROP_STEPS = (1.0, 0.92, 0.85, 0.78, 0.7, 0.62, 0.55, 0.5)
"""The crops tried for a card's photo framed for its words, as shares of the largest crop's side
(the widest first: a title over a photo shows as much of it as the faces and words allow)."""
BAND_GAP_MOST = 2.0  # a face framed above the words keeps twice the band's reach first: at
# one reach its shade is still a quarter of the band's, enough to dim a bright face
BAND_GAP_LEAST = 0.5  # a face framed above the words may come this much of the band's reach
# nearer them (its shade there is light) before the photo is fitted smaller instead
FIT_ROOM_MIN = 0.25  # a photo fitted above its words keeps at least this share of the frame's
# height


@dataclass(frozen=True)
class WordsBlock:
    """A card's words on a frame, in the places they may take, best first: where the look
    wants them, low on the text's safe area, high on it; each as the words' place (centre x,
    y pixels, scale) and their ink box there as laid out (x0, y0, x1, y1 pixels; the text's
    layout keeps them inside the safe area). A face keeps ``gap`` pixels above and below the
    ink (the scrim's band shades that far past the words). ``smaller``: the lowest places at
    the smaller :data:`WORD_SCALES`, only for the whole photo fitted above the words when none
    of ``places`` leaves it room (a closing's three long lines over a close-up)."""

    places: tuple[tuple[tuple[float, float, float], tuple[float, float, float, float]], ...]
    gap: float
    smaller: tuple[tuple[tuple[float, float, float], tuple[float, float, float, float]], ...] = ()


def faces_under_words(faces: tuple[tuple[float, float, float, float], ...], motion: Motion,
                      words: tuple[float, float, float, float], gap: float,
                      frame: tuple[int, int]) -> bool:
    """True when a face (``faces``: boxes in the photo's pixels) passes under the ``words``
    (their ink box, frame pixels) or the scrim's band across the frame at their height
    (``gap`` pixels above and below them), at the start, middle or end of ``motion`` on a
    ``frame`` (width, height pixels) frame."""
    width, height = frame
    top, bottom = words[1] - gap, words[3] + gap
    for index in (0, motion.frames // 2, motion.frames - 1):
        rect = motion.rect_at(index)
        k_x, k_y = width / rect.w, height / rect.h
        for x0, y0, x1, y1 in faces:
            sx0, sx1 = (x0 - rect.x) * k_x, (x1 - rect.x) * k_x
            sy0, sy1 = (y0 - rect.y) * k_y, (y1 - rect.y) * k_y
            if sx1 <= 0 or sx0 >= width or sy1 <= 0 or sy0 >= height:
                continue  # off the frame
            if sy1 > top and sy0 < bottom:
                return True
    return False


def framings_for_words(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
                       frames: int, block: WordsBlock, avoid: Sequence[Motion] = ()
                       ) -> Iterator[tuple[Motion, tuple[float, float, float]]]:
    """How a card's photo (``photo_size``: width, height pixels; its ``subject``'s faces) may
    be framed with its words (``block``) so that no face lies under them over ``frames``
    frames of ``aspect``, best first: each a camera move and the words' place (one of
    ``block``'s: the words keep their size); the caller takes the first whose words clear the
    faces' cores. The words where the look wants them, else low on the safe area (else high
    on it, the faces below them); the faces (with a thin margin) in the
    part of the frame above the words and their band (:data:`BAND_GAP_MOST` times its
    reach, else once, else :data:`BAND_GAP_LEAST` of it; or
    only their eyes-to-mouth cores, padded, when the whole faces leave no room, down to no
    band): the widest
    crop that holds them there pushing gently in to a closer one, else tilting across the
    room it has. Last, always, where no crop does (a face filling the photo): the whole
    photo, smaller, above the words on its soft ground (the fitted treatment), the words on
    that ground at the bottom. A crop that would cut a possible face (one the detector is not
    sure of) is left out, as a photo shot's move leaves it out. A framing the same as one of
    ``avoid`` (the photo's earlier showings) is played backwards (a fitted photo pushes in
    from farther, :func:`_refits`), or left out."""
    for motion, at in _word_framings(photo_size, subject, aspect, frames, block):
        last = motion.mode == "fit"  # the fitted photos differ by their words' place
        if not last and not keeps_possible(motion, photo_size, subject):
            continue
        again = (motion, reversed_motion(motion), *(_refits(motion, aspect) if last else ()))
        fresh = [m for m in again if not any(same_framing(m, earlier) for earlier in avoid)]
        if fresh or last:
            yield (fresh or [motion])[0], at


REFIT_ZOOMS = (1.25, 1.4)
"""How much wider than its end a fitted card photo shown so before starts its push instead
(the fitted push's :data:`media.analysis.framing.FIT_ZOOM` is 1.12): a card over the same
photo again (a closing after its title) pushes in from farther, not as before."""


def _refits(motion: Motion, aspect: Aspect) -> Iterator[Motion]:
    """``motion`` (a fitted photo pushing in about one point of the frame, its end set on the
    words) starting each of :data:`REFIT_ZOOMS` times wider than its end instead, each also
    played backwards: the same end, so the photo at its largest still clears the words."""
    start, end = motion.start, motion.end
    ratio = start.w / end.w
    if ratio <= 1.0 + 1e-9:
        return
    cx, cy = (start.x - ratio * end.x) / (1 - ratio), (start.y - ratio * end.y) / (1 - ratio)
    for zoom in REFIT_ZOOMS:
        wider = Rect(cx + zoom * (end.x - cx), cy + zoom * (end.y - cy), end.w * zoom,
                     end.h * zoom)
        pushed = within_budget(Motion(motion.mode, wider, end, motion.frames, motion.move),
                               aspect.width)
        yield pushed
        yield reversed_motion(pushed)


def _word_framings(photo_size: tuple[int, int], subject: Subject, aspect: Aspect,
                   frames: int, block: WordsBlock
                   ) -> Iterator[tuple[Motion, tuple[float, float, float]]]:
    """The framings :func:`framings_for_words` offers, best first, each with the words'
    place; the fitted photo above the words last, always."""
    width, height = photo_size
    faces = _face_guard(subject.faces, width, height)
    bare = union(subject.faces).to_pixels(width, height)  # what a held push keeps at least
    keeps = [(faces, bare, BAND_GAP_MOST), (faces, bare, 1.0), (faces, bare, BAND_GAP_LEAST)]
    if subject.cores:  # then only the eyes-to-mouth, the band's shade reaching the chin
        cores = union(tuple(padded_core(c) for c in subject.cores)).to_pixels(width, height)
        bare = union(subject.cores).to_pixels(width, height)
        keeps += [(cores, bare, 1.0), (cores, bare, BAND_GAP_LEAST), (cores, bare, 0.0)]
    for (guard, bare, share), (at, ink) in itertools.product(keeps, block.places):
        gap = share * block.gap
        low = ink[1] + ink[3] > aspect.height  # low on the frame: the faces above the words
        room = ((0.0, (ink[1] - gap) / aspect.height) if low else
                ((ink[3] + gap) / aspect.height, 1.0))
        rects = _crops_in(photo_size, guard, aspect, room)
        if not rects:
            continue
        (wide, (y_lo, y_hi)), tight = rects[0], rects[-1][0]
        tight = next((r for r, _ in rects if r.w * PUSH_ZOOM <= wide.w + 1e-6), tight)
        if tight != wide:
            yield within_budget(Motion("crop", wide, tight, frames, "zoom_in"),
                                aspect.width), at
        elif y_hi - y_lo >= MIN_PAN_ROOM_PX:
            ends = (replace(wide, y=y_hi), replace(wide, y=y_lo))
            yield within_budget(Motion("crop", *ends, frames, "tilt"), aspect.width), at
        else:
            yield _held(wide, guard, bare, ink, room, frames, aspect), at
    # the whole photo above the words: set lowest at full size, else as small as the words
    # were moved aside at, else lowest and smaller, else wherever they leave the most room
    places = sorted(block.places, key=lambda place: (-place[0][2], -place[1][3]))
    for at, ink in (*places, *block.smaller):
        if ink[1] - block.gap >= (FIT_MARGIN + FIT_ROOM_MIN) * aspect.height:
            yield _fit_above(photo_size, aspect, frames, ink[1] - block.gap), at
    at, ink = max(block.places, key=lambda place: place[1][1])
    yield _fit_above(photo_size, aspect, frames, ink[1] - block.gap), at


def _held(rect: Rect, guard: PixelBox, bare: PixelBox, ink: PixelBox,
          room: tuple[float, float], frames: int, aspect: Aspect) -> Motion:
    """``rect`` held under the words at ``ink`` (frame pixels), pushing slowly in about them
    so that the faces move away from the words (:func:`media.analysis.camera.held_push`):
    with the faces' ``guard`` in the band ``room``, else (the guard reaching the photo's edge)
    their ``bare`` boxes; else still."""
    anchor = ((ink[0] + ink[2]) / 2 / aspect.width, (ink[1] + ink[3]) / 2 / aspect.height)
    return (held_push(rect, [guard], frames, aspect.width, anchor, room)
            or held_push(rect, [bare], frames, aspect.width, anchor, room)
            or Motion("crop", rect, rect, frames, "still"))


def _face_guard(faces: tuple[Box, ...], width: int, height: int
                ) -> tuple[float, float, float, float]:
    """The faces' union with :data:`media.analysis.framing.LEAST_MARGIN` of the largest face
    around it (photo pixels, clipped to the photo)."""
    x0, y0, x1, y1 = union(faces).to_pixels(width, height)
    pad = LEAST_MARGIN * max(max((b.x1 - b.x0) * width, (b.y1 - b.y0) * height) for b in faces)
    return (max(0.0, x0 - pad), max(0.0, y0 - pad), min(float(width), x1 + pad),
            min(float(height), y1 + pad))


def _crops_in(photo_size: tuple[int, int], guard: tuple[float, float, float, float],
              aspect: Aspect, room: tuple[float, float]) -> list[tuple[Rect, tuple[float, float]]]:
    """The crops (of :data:`CROP_STEPS`, widest first, magnified at most
    :data:`media.analysis.framing.MAX_UPSCALE` unless the largest crop is already more) that
    hold ``guard`` (photo pixels) whole in the band ``room`` of the frame (top and bottom, as
    shares of its height), each centred on it across and with it centred in that band as the
    photo's edges allow, with the range of its top (photo pixels) that holds it so."""
    width, height = photo_size
    crop_w, crop_h = largest_crop(width, height, aspect)
    most = max(MAX_UPSCALE, aspect.width / crop_w)
    gx0, gy0, gx1, gy1 = guard
    top, bottom = room
    out: list[tuple[Rect, tuple[float, float]]] = []
    if bottom <= top:
        return out
    for step in CROP_STEPS:
        w, h = crop_w * step, crop_h * step
        if aspect.width / w > most + 1e-6:
            break
        x_lo, x_hi = max(0.0, gx1 - w), min(width - w, gx0)
        y_lo, y_hi = max(0.0, gy1 - bottom * h), min(height - h, gy0 - top * h)
        if x_lo > x_hi + 1e-6 or y_lo > y_hi + 1e-6:
            continue
        x = min(max((gx0 + gx1) / 2 - w / 2, x_lo), x_hi)
        y = min(max((gy0 + gy1) / 2 - (top + bottom) * h / 2, y_lo), y_hi)
        out.append((Rect(x, y, w, h), (y_lo, y_hi)))
    return out


def _fit_above(photo_size: tuple[int, int], aspect: Aspect, frames: int, limit_px: float
               ) -> Motion:
    """The whole photo fitted into the frame above ``limit_px`` (frame rows) within the fitted
    treatment's margin, set on the words (its foot at ``limit_px``: the words read as its
    caption, not as a line far below it), pushing gently in about its centre."""
    width, height = photo_size
    margin = FIT_MARGIN * min(aspect.width, aspect.height)
    bottom = max(limit_px, margin + FIT_ROOM_MIN * aspect.height)
    k_end = min((aspect.width - 2 * margin) / width, (bottom - margin) / height)
    centre = (aspect.width / 2, max((margin + bottom) / 2, bottom - height * k_end / 2))

    def viewport(k: float) -> Rect:
        return Rect(width / 2 - centre[0] / k, height / 2 - centre[1] / k, aspect.width / k,
                    aspect.height / k)
    return within_budget(Motion("fit", viewport(k_end / FIT_ZOOM), viewport(k_end), frames,
                                "zoom_in"), aspect.width)
