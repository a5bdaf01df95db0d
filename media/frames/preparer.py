"""The render's shots prepared ahead of the frame loop, each kind by its own module.

:class:`SourcePreparer` turns shot ``index`` into a :class:`media.frames.sources.Prepared` (its
frames in every aspect): photo shots and layouts by :mod:`media.frames.photo_shots`, cards by
:mod:`media.frames.card_shots`, clips by :mod:`media.frames.clip_shots`, and so are the photo
shots that play the motion provider's clip of their photo (``provider``: framed as a
customer's clip is). The frame loop runs it on a helper thread a little ahead of the frame
that needs a shot (:mod:`media.frames.render`).
"""

from __future__ import annotations

from media.base import heap, spec
from media.frames.card_shots import CardShots
from media.frames.clip_shots import ClipShots
from media.frames.grade import grade_named
from media.frames.photo_shots import PhotoShots
from media.frames.photo_store import PhotoStore
from media.frames.sources import FilmSources, Prepared, shot_photos
from media.frames.stall import StallWatch
from media.plan.timeline import PARALLAX, PROVIDER, Timeline


class SourcePreparer:
    """Builds the :class:`media.frames.sources.Prepared` shots of ``timeline`` in ``aspects``
    from ``sources``, for the shots in ``shots`` (default: all), their tools bounded by the
    render's ``watch`` (default: a watch of its own, started now). ``notes`` gathers what a
    reader of the render should know (a premium move that fell back)."""

    def __init__(self, timeline: Timeline, aspects: tuple[spec.Aspect, ...],
                 sources: FilmSources, watch: StallWatch | None = None,
                 shots: range | None = None) -> None:
        self.timeline = timeline
        self.shots = shots if shots is not None else range(len(timeline.shots))
        self.notes: list[str] = []
        grade = grade_named(timeline.grade)
        layered = {s.source_id for i in self.shots
                   if (s := timeline.shots[i]).motion == PARALLAX and s.source_id}
        self.store = PhotoStore(sources.photos, sources.subjects, self._count_uses(), layered,
                                grade)
        self.photos = PhotoShots(timeline, aspects, self.store, self.notes)
        self.cards = CardShots(aspects, self.photos, sources.logo)
        watch = watch or StallWatch()
        self.clips = ClipShots(timeline, aspects, sources.clips, watch, grade)
        self.motion_clips = ClipShots(timeline, aspects, sources.motion_clips, watch, grade)

    def _count_uses(self) -> dict[str, int]:
        """Uses of each photo by the shots rendered (a photo is freed after its last one); a
        shot that plays the photo's motion clip does not use the photo."""
        uses: dict[str, int] = {}
        for i in self.shots:
            if self.timeline.shots[i].motion == PROVIDER:
                continue
            for photo in shot_photos(self.timeline, i):
                uses[photo] = uses.get(photo, 0) + 1
        return uses

    def prepare(self, index: int) -> Prepared:
        """Everything shot ``index`` needs to produce its frames."""
        shot = self.timeline.shots[index]
        kind = shot.kind
        try:
            if kind == "photo" and shot.motion == PROVIDER:
                return self.motion_clips.prepare(index)
            if kind == "photo":
                return self.photos.prepare(index)
            if kind == "clip":
                return self.clips.prepare(index)
            return self.cards.prepare(index)
        finally:
            heap.trim()
