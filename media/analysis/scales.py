"""How much closer than its whole a photo may be looked at, as pure arithmetic (no pixels, no
OpenCV: the planner reads it, :mod:`media.plan.layouts`).

A photo shown alone again must show a new picture: each showing after the first looks
:data:`DETAIL_STEP` closer than the one before (1.6x, then 2.56x: every showing at least 1.5x
from every other, issue 30's visibly different), while the resolution
(:data:`MAX_DETAIL_UPSCALE`) and what a frame must hold (its faces, a pet's head, with their
margin) allow. :mod:`media.analysis.detail` frames the showings; the planner shows a photo alone no
more often than it has scales (:func:`fresh_showings`) and its other repeats beside other
photos.
"""

from __future__ import annotations

from collections.abc import Sequence

from media.base.spec import Aspect

DETAIL_STEP = 1.6  # each closer showing alone looks this much closer than the one before
DETAIL_LEVELS = 3  # the whole photo and at most two closer looks (1.6x, 2.56x)
MAX_DETAIL_UPSCALE = 2.0  # a closer frame never magnifies more (output px per source px)
# A one-photo film also shows its photo whole (fitted over its backdrop) when that frame is at
# least this much wider than the largest crop: a new scale, the way issue 30 counts one.
WHOLE_STEP = 1.5
FIT_MARGIN = 0.06  # a fitted photo's margin (share of the frame's short side, as framing's)


def largest_crop(width: int, height: int, aspect: Aspect) -> tuple[float, float]:
    """Width and height (source pixels) of the largest viewport of ``aspect``'s ratio inside a
    ``width`` x ``height`` photo (as :func:`media.analysis.framing.largest_crop`)."""
    ratio = aspect.width / aspect.height
    if width / height > ratio:
        return height * ratio, float(height)
    return float(width), width / ratio


def max_detail_scale(photo_size: tuple[int, int], aspect: Aspect) -> float:
    """How much closer than the largest crop a frame may look before it magnifies the photo
    more than :data:`MAX_DETAIL_UPSCALE`."""
    crop_w, _ = largest_crop(*photo_size, aspect)
    return max(1.0, MAX_DETAIL_UPSCALE * crop_w / aspect.width)


def whole_scale(photo_size: tuple[int, int], aspect: Aspect) -> float:
    """The scale (relative to the largest crop, under 1: wider) of the frame that shows the
    whole photo fitted with its margin."""
    width, height = photo_size
    margin = FIT_MARGIN * min(aspect.width, aspect.height)
    k = min((aspect.width - 2 * margin) / width, (aspect.height - 2 * margin) / height)
    crop_w, _ = largest_crop(width, height, aspect)
    return crop_w / (aspect.width / k)


def detail_scales(photo_size: tuple[int, int], aspect: Aspect,
                  hold: tuple[float, float] | None = None,
                  whole: bool = False) -> tuple[float, ...]:
    """The frame scales a photo's showings alone use in ``aspect``, each relative to its
    largest crop: 1.0 (the largest crop), then :data:`DETAIL_STEP` times closer each, while the
    resolution (:func:`max_detail_scale`) and ``hold`` (the width and height in source pixels
    a frame must hold: its faces or a pet's head with their margin) allow, at most
    :data:`DETAIL_LEVELS`; with ``whole`` (a one-photo film) last the whole photo fitted, when
    it is :data:`WHOLE_STEP` wider (:func:`whole_scale`)."""
    crop_w, crop_h = largest_crop(*photo_size, aspect)
    most = max_detail_scale(photo_size, aspect)
    if hold is not None:
        most = min(most, crop_w / max(1.0, hold[0]), crop_h / max(1.0, hold[1]))
    scales = [1.0]
    while len(scales) < DETAIL_LEVELS and scales[-1] * DETAIL_STEP <= most + 1e-6:
        scales.append(scales[-1] * DETAIL_STEP)
    if whole and whole_scale(photo_size, aspect) * WHOLE_STEP <= 1.0 + 1e-6:
        scales.append(whole_scale(photo_size, aspect))
    return tuple(scales)


def fresh_showings(photo_size: tuple[int, int], aspects: Sequence[Aspect],
                   hold: tuple[float, float] | None = None, whole: bool = False) -> int:
    """How many showings of a photo alone each show a new picture in every one of
    ``aspects`` (see :func:`detail_scales`; ``hold`` and ``whole`` as there): 1 when the photo
    cannot be looked at closer (a small photo, faces that fill it)."""
    return min(len(detail_scales(photo_size, aspect, hold, whole)) for aspect in aspects)


CROP_FRAMINGS = 3
"""New framings a photo's largest crop allows at the least (the answer to the first showing's
move, another move, one played backwards): what a photo too small to look closer at and shown
full-bleed has (:func:`media.analysis.detail.repeat_motion`; 3 to 9 over the order corpus)."""
CLOSER_FRAMINGS = 5  # ... with a closer look the resolution allows (5 to 40 over the corpus)
WHOLE_FRAMINGS = 10  # ... shown whole over its backdrop too: a ladder of fitted frames (10+)


def repeat_framings(photo_size: tuple[int, int], aspects: Sequence[Aspect]) -> int:
    """How many showings of a photo each framed anew (:func:`media.analysis.detail.
    repeat_motion`) a film may count on in every one of ``aspects``, from its size alone: a
    lower bound (:data:`CROP_FRAMINGS`; :data:`CLOSER_FRAMINGS` when it may be looked at
    :data:`DETAIL_STEP` closer; :data:`WHOLE_FRAMINGS` when it shows whole, never in a
    portrait frame its subject may fill: that film is full-bleed)."""
    counts = []
    for aspect in aspects:
        crop_w, _ = largest_crop(*photo_size, aspect)
        may_bleed = aspect.is_portrait and aspect.width / crop_w <= MAX_DETAIL_UPSCALE
        if whole_scale(photo_size, aspect) * WHOLE_STEP <= 1.0 + 1e-6 and not may_bleed:
            counts.append(WHOLE_FRAMINGS)
        elif max_detail_scale(photo_size, aspect) >= DETAIL_STEP - 1e-6:
            counts.append(CLOSER_FRAMINGS)
        else:
            counts.append(CROP_FRAMINGS)
    return min(counts)
