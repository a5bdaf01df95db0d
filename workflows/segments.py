"""How the render stage splits one film over several media workers (pure and deterministic).

The render plan (an activity) reports the film's length, the frames where it may be cut
(:func:`media.plan.timeline.segment_cut_frames`: shot boundaries outside clip shots) and how many
media workers may render its segments at once (``FILM_RENDER_WORKERS``, the worker's config,
recorded in the history as the activity's result). :func:`plan_segments` turns those facts into
frame ranges; the workflow renders one segment per range concurrently and joins them.
"""

from __future__ import annotations

from itertools import pairwise

from workflows.stages import RenderInput, RenderPlan, SegmentInput, WholeFilmInput

MIN_SEGMENT_S = 10
"""Shortest segment worth its own activity (seconds of film). Every segment pays a fixed cost
whatever its length: scheduling, fetching its photos and clips, decoding and preparing its first
shots, starting two encoders, uploading its files, and its share of the join; below about 10 s
of film that overhead eats what rendering in parallel saves."""


def plan_segments(total_frames: int, cut_frames: list[int], workers: int,
                  fps: int) -> list[tuple[int, int]]:
    """Contiguous frame ranges ``(start, stop)`` covering ``[0, total_frames)``, one per segment.

    As many segments as ``workers`` allows, but none shorter than :data:`MIN_SEGMENT_S` on
    average (at least one). Segment ``k``'s end is the cut frame nearest ``k * total / n``;
    a cut chosen twice counts once, so there may be fewer segments when cuts are scarce.
    """
    if total_frames <= 0:
        raise ValueError(f"nothing to render: {total_frames} frames")
    count = max(1, min(workers, total_frames // (MIN_SEGMENT_S * fps)))
    cuts = sorted({c for c in cut_frames if 0 < c < total_frames})
    chosen: set[int] = set()
    for k in range(1, count if cuts else 1):
        target = k * total_frames / count
        chosen.add(min(cuts, key=lambda c: (abs(c - target), c)))
    return list(pairwise([0, *sorted(chosen), total_frames]))


def split_render(render_input: RenderInput, plan: RenderPlan
                 ) -> WholeFilmInput | list[SegmentInput]:
    """What the render stage runs after its plan: the film whole (one segment, nothing to
    join) or one segment input per frame range of :func:`plan_segments` (then a join)."""
    ranges = plan_segments(plan.total_frames, plan.cut_frames, plan.render_workers, plan.fps)
    if len(ranges) == 1:
        return WholeFilmInput(render=render_input, plan=plan)
    return [SegmentInput(render=render_input, plan=plan, index=index, start_frame=start,
                         stop_frame=stop) for index, (start, stop) in enumerate(ranges)]
