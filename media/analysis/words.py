"""Where words may sit over a picture: clear of what the picture is about.

A poster (:mod:`media.deliver.poster`) and a film's title, closing and interludes over a sharp
photo (:mod:`media.frames.sources`) set their words over the picture itself. Both keep them off
the picture's subject the same way: the subject's box grown by how far a head reaches past
its detected box (:func:`reach`), and the words' block moved below or beside it, smaller if it
must be (:func:`clear_of_subject`). Pure: boxes and pixels in, a place out.
"""

from __future__ import annotations

from media.analysis.subjects import Box, Subject, union

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
