"""Sources of a render: what a film's frames are made of beside its timeline, and which of
them each shot and each stretch of frames reads.

:class:`FilmSources` are a render's inputs (photos and clips by id, the subjects found earlier,
the brand logo, the soundtrack). Each shot is prepared ahead of the frame loop into a
:class:`Prepared` (its frames in every aspect, I420 as the encoders take them) by
:class:`media.frames.preparer.SourcePreparer`, one module per kind of shot: photos
(:mod:`media.frames.photo_shots`, from :mod:`media.frames.photo_store`'s decoded photos), cards
(:mod:`media.frames.card_shots`) and clips (:mod:`media.frames.clip_shots`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from media.analysis.subjects import Subject
from media.base import spec
from media.plan.timeline import PROVIDER, Timeline


@dataclass(frozen=True, eq=False)
class FilmSources:
    """What a film's frames and sound are made of beside its timeline: ``photos`` and ``clips``
    (local paths by id), the ``subjects`` found earlier (photo id -> subject, e.g. by the assets
    stage: not detected again), the brand ``logo`` (RGBA uint8, straight alpha), the mastered
    soundtrack ``audio`` (48 kHz stereo WAV; None: a video-only render, e.g. a segment) and the
    motion provider's clips of photos (``motion_clips``, local paths by photo id: what the
    ``provider`` shots play, :func:`motion_clips_for`)."""

    photos: Mapping[str, Path] = field(default_factory=dict)
    clips: Mapping[str, Path] = field(default_factory=dict)
    subjects: Mapping[str, Subject] = field(default_factory=dict)
    logo: np.ndarray | None = None
    audio: Path | None = None
    motion_clips: Mapping[str, Path] = field(default_factory=dict)

    def check(self, timeline: Timeline, frames: tuple[int, int]) -> None:
        """Every photo, clip and motion clip that rendering ``frames`` of ``timeline`` reads
        has a path (ValueError naming the first that has none)."""
        photos, clips = sources_for(timeline, frames)
        for kind, ids, paths in (("photo", photos, self.photos), ("clip", clips, self.clips),
                                 ("motion clip of photo", motion_clips_for(timeline, frames),
                                  self.motion_clips)):
            for missing in sorted(ids - set(paths)):
                raise ValueError(f"no path for {kind} {missing!r}")


def load_photo(path: Path) -> np.ndarray:
    """A photo working copy as uint8 RGB (H, W, 3)."""
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


class Prepared:
    """A shot's frames in every aspect (see :meth:`frame`)."""

    def frame(self, aspect: spec.Aspect, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) for ``aspect``, I420 (see
        :mod:`media.base.yuv`); callers must not write to it (a held frame is returned again)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release processes and memory."""


def card_photo(timeline: Timeline, index: int) -> str | None:
    """The photo behind card ``index``: the one it names (an interlude's; ``""`` names none:
    the card alone on its backdrop); the first photo shot for the opening card; for the closing
    card the subject's photo (the recipient, the pet), else the last photo shot."""
    if timeline.shots[index].source_id is not None:
        return timeline.shots[index].source_id or None
    ids = [s.source_id for s in timeline.shots if s.kind == "photo"]
    if index != 0 and timeline.subject_photo_id is not None:
        return timeline.subject_photo_id
    if not ids:
        return None
    return ids[0] if index == 0 else ids[-1]


def shot_photo(timeline: Timeline, index: int) -> str | None:
    """The photo shot ``index`` shows (its own, or the one behind a card), if any."""
    shot = timeline.shots[index]
    if shot.kind == "photo":
        return shot.source_id
    return card_photo(timeline, index) if shot.kind == "card" else None


def shots_in(timeline: Timeline, frames: tuple[int, int]) -> range:
    """Indices of the shots visible in the frames ``[start, stop)`` (shots are in film order)."""
    start, stop = frames
    visible = [i for i, s in enumerate(timeline.shots)
               if s.visible_in < stop and s.visible_out > start]
    return range(visible[0], visible[-1] + 1) if visible else range(0)


def shot_photos(timeline: Timeline, index: int) -> tuple[str, ...]:
    """Every photo shot ``index`` shows: :func:`shot_photo`, and a layout's partners."""
    shot = timeline.shots[index]
    photos = (shot_photo(timeline, index), shot.partner_id, shot.second_partner_id)
    return tuple(p for p in photos if p is not None)


def sources_for(timeline: Timeline,
                frames: tuple[int, int] | None = None) -> tuple[set[str], set[str]]:
    """Ids of the photos and the clips that rendering ``frames`` (default: the whole film)
    reads: what a worker rendering one segment must fetch."""
    shots = shots_in(timeline, frames or (0, timeline.total_frames))
    photos = {p for i in shots for p in shot_photos(timeline, i)}
    clips = {timeline.shots[i].source_id or "" for i in shots
             if timeline.shots[i].kind == "clip"}
    return photos, clips


def motion_clips_for(timeline: Timeline, frames: tuple[int, int] | None = None) -> set[str]:
    """Ids of the photos whose motion provider's clip rendering ``frames`` (default: the whole
    film) plays: the photos of its ``provider`` shots."""
    shots = shots_in(timeline, frames or (0, timeline.total_frames))
    return {timeline.shots[i].source_id or "" for i in shots
            if timeline.shots[i].motion == PROVIDER}
