"""The film being planned: its spec read once, before a single cut is placed (pure).

:func:`film_of` resolves what every step of the plan reads from the :class:`FilmSpec`: the
look and its pacing, the film's length and the song's grid in frames, the subject photo, the
photos the film may show (the subject first, near-duplicates dropped) and how long the cards'
words take to read.
"""

from __future__ import annotations

from dataclasses import dataclass

from media.design import looks
from media.plan.inputs import PhotoSource
from media.plan.pacing import Pacing, card_seconds, film_look, pacing_of
from media.plan.shot_order import drop_twins, pick_subject, subject_first
from media.plan.spec import FilmSpec, SongFrames

MIN_FILM_S = 3.0


@dataclass(frozen=True)
class Film:
    """A :class:`FilmSpec` as the planner reads it: ``look`` and ``pacing``, ``frames`` in all
    (``round(length_sec * fps)``), the ``song``'s grid in frames, ``subject_id`` (the spec's
    subject photo, else the photo with the largest face, else none), the ``photos`` it may
    show (subject first, then in the order's order) and those dropped as near-duplicates
    (``twins_dropped``), and the seconds the opening and closing cards need (``opening_s``,
    ``closing_s``, :func:`media.plan.pacing.card_seconds`)."""

    spec: FilmSpec
    look: looks.Look
    pacing: Pacing
    frames: int
    song: SongFrames
    subject_id: str | None
    photos: tuple[PhotoSource, ...]
    twins_dropped: tuple[str, ...]
    opening_s: float
    closing_s: float

    @property
    def fps(self) -> int:
        """Frames per second."""
        return self.spec.fps

    @property
    def photo_by_id(self) -> dict[str, PhotoSource]:
        """:attr:`photos` by id."""
        return {p.id: p for p in self.photos}


def film_of(spec: FilmSpec) -> Film:
    """``spec`` read for planning (see :class:`Film`); ValueError for a film under
    :data:`MIN_FILM_S` seconds."""
    if spec.length_sec < MIN_FILM_S:
        raise ValueError(f"film too short: {spec.length_sec}s")
    look = film_look(spec.style, spec.gentle, spec.look)
    opening_s, closing_s = card_seconds(spec.length_sec, spec.words.closing, look)
    frames = round(spec.length_sec * spec.fps)
    song = spec.song.in_frames(spec.fps, frames)
    subject_id = pick_subject(spec.photos, spec.subject_photo_id)
    photos, dropped = drop_twins(subject_first(spec.photos, subject_id),
                                 [c.id for c in spec.clips], spec.near_duplicates, subject_id)
    return Film(spec, look, pacing_of(look), frames, song, subject_id, tuple(photos),
                tuple(dropped), opening_s, closing_s)
