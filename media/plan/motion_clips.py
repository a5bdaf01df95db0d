"""The motion provider's clips in the plan (pure): which photos the assets stage asks an
image-to-video service to bring to motion, how long a clip it asks for, and which shot of the
film shows each clip.

The clips are ordered for the photos the tier's full moves go to first
(:func:`media.plan.shots.build_shots`: the subject's and the faces' photos, then the others
spread evenly), at most the recipe's full moves and the run's budget (:func:`motion_photos`),
each as long as the longest shot the look holds a photo for (:func:`motion_clip_seconds`).
Unlike a local full move, a clip is ordered for a low-resolution photo too: the service makes
its own frames, and the render frames them as it frames a customer's clip
(:mod:`media.frames.clip_framing`). The planner shows each clip in its photo's first shot
alone in both aspects (never a layout's cell) that the clip lasts through
(:func:`motion_clip_slots`); a photo whose every shot is longer keeps its local moves.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from media.plan.inputs import MotionClipSource, PhotoSource
from media.plan.pacing import Pacing
from media.plan.shot_order import SUBJECT_HOLD, Slot, even_pick, pick_subject, shows_subject

MOTION_CLIP_MAX_S = 10.0
"""The longest clip ordered (seconds): what image-to-video services make in one go."""
MOTION_CLIP_MIN_S = 2.0
"""The shortest clip ordered (seconds), even for a film that cuts faster."""


def motion_clip_seconds(pacing: Pacing) -> float:
    """Seconds of the clip ordered for a photo of a film of ``pacing``: the longest it holds a
    photo before any repeats (``hold_s``, a subject's or a face's shot :data:`SUBJECT_HOLD`
    longer) with the transitions it is seen through, in whole seconds, within
    [:data:`MOTION_CLIP_MIN_S`, :data:`MOTION_CLIP_MAX_S`]."""
    longest = pacing.hold_s * SUBJECT_HOLD + pacing.transition_s
    return min(MOTION_CLIP_MAX_S, max(MOTION_CLIP_MIN_S, float(math.ceil(longest))))


def motion_photos(photos: Sequence[PhotoSource], subject_id: str | None,
                  count: int) -> list[str]:
    """The ids of at most ``count`` of ``photos`` (in the order's order) to order clips for,
    most wanted first: the subject photo (``subject_id``, else the largest face,
    :func:`media.plan.shot_order.pick_subject`) and the photos with faces, then the others
    spread evenly over the film."""
    subject = pick_subject(photos, subject_id)
    ordered = sorted(photos, key=lambda p: p.id != subject)
    heroes = [p.id for p in ordered if shows_subject(p, subject)]
    others = [p.id for p in ordered if p.id not in heroes]
    rest = max(0, count - len(heroes))
    return heroes[:count] + [others[j] for j in even_pick(min(rest, len(others)), len(others))]


def motion_clip_slots(slots: Sequence[Slot], visible_s: Sequence[float], paired: set[int],
                      clips: Sequence[MotionClipSource]) -> set[int]:
    """The slots shown with a provider's clip: each clip's photo's first slot that shows it
    alone in both aspects (not in ``paired``, the layouts) and is on screen (``visible_s``,
    seconds with its transitions) no longer than the clip lasts."""
    seconds: Mapping[str, float] = {c.photo_id: c.duration_s for c in clips}
    chosen: dict[str, int] = {}
    for i, slot in enumerate(slots):
        photo = slot.source_id
        if (slot.kind == "photo" and photo in seconds and photo not in chosen
                and i not in paired and visible_s[i] <= seconds[photo]):
            chosen[photo] = i
    return set(chosen.values())
