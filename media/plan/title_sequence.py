"""How a film opens and closes over its photos, and the signature's title sequence (pure).

Every card stands over a photo that moves under its words (:func:`over_photos`). A signature
film's title is a sequence (:class:`media.design.looks.TitleSequence`): lead shots, the occasion
alone, then the name alone, each set larger over a photo of its own and cut on the beat, then
the whole title (the lockup) over the subject (:func:`title_sequence`). Frames are film frame
indices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from media.cards.spec import CardSpec
from media.plan.beat_snap import snap_cuts
from media.plan.film import Film
from media.plan.inputs import PhotoSource
from media.plan.moves import PULL_OUT, PUSH_IN
from media.plan.shot_order import pictures_of
from media.plan.timeline import KEN_BURNS, Shot, Transition
from media.plan.transitions import CUT


@dataclass(frozen=True)
class Title:
    """The title's lead shots: how many (``leads``, 0 without a sequence), the frames each
    holds (``lead_frames``), the seconds they add to the opening (``lead_s``, with a beat's
    slack: a lead's cut lands on a beat) and their photos once the middle is planned
    (``photos``, :func:`media.plan.slots.plan_middle`: each its photo's first showing)."""

    leads: int = 0
    lead_frames: int = 0
    lead_s: float = 0.0
    photos: tuple[str, ...] = ()


def title_of(film: Film) -> Title:
    """The title ``film`` opens with: a sequence of leads in a premium film that has an
    occasion line, a name and photos for them (:func:`_lead_count`), else the title alone."""
    leads = (_lead_count(film.photos, film.spec.words.opening, film.spec.apart)
             if film.spec.recipe.premium else 0)
    if not leads:
        return Title()
    lead_frames = _lead_frames(film)
    return Title(leads, lead_frames, (leads * lead_frames + _beat_length(film.song.beats))
                 / film.fps)


def over_photos(shots: list[Shot], title_photo: str | None,
                closing_photo: str | None = None) -> list[Shot]:
    """``shots`` with every card over its photo given a camera move: the title over
    ``title_photo`` (the subject: the title is its first showing), pushing in; the closing
    over ``closing_photo``, else over the title's photo again (the subject, or the first
    photo of a film without one: never the last shot's photo again), pulling out; an
    interlude, pushing in. The render shows the photo sharp and moving under the words
    (:mod:`media.frames.sources`)."""
    out = []
    for i, shot in enumerate(shots):
        if shot.kind == "card":
            closing = i == len(shots) - 1 and len(shots) > 2
            photo = (title_photo if i == 0 else (closing_photo or title_photo) if closing
                     else shot.source_id)
            shot = replace(shot, source_id=photo, motion=KEN_BURNS,
                           move=PULL_OUT if i == len(shots) - 1 else PUSH_IN)
        out.append(shot)
    return out


def _lead_count(photos: Sequence[PhotoSource], opening: CardSpec,
                twins: Sequence[tuple[str, str]] = ()) -> int:
    """How many lead shots the signature title sequence has before its lockup: the occasion
    alone, then the name alone, each over a picture of its own other than the title's (fewer
    when the film has fewer pictures: a photo and a crop of it, ``twins``, are one, never in
    consecutive shots; of photos when all are one picture; none without an occasion line or a
    name)."""
    occasion, name = (*opening.lines, "", "")[:2]
    if not occasion.strip() or not name.strip():
        return 0
    pictures = len(set(pictures_of([p.id for p in photos], twins).values()))
    return min(2, max(0, (pictures if pictures > 1 else len(photos)) - 1))


def _lead_frames(film: Film) -> int:
    """Frames each lead shot of the title sequence holds: ``lead_beats`` of the song's beats
    (their median length), at least ``lead_min_s``."""
    rules = film.look.title_sequence
    return max(math.ceil(rules.lead_min_s * film.fps),
               rules.lead_beats * _beat_length(film.song.beats))


def _beat_length(beats: Sequence[int]) -> int:
    """The song's typical beat in frames (the median gap of the grid; 0 without one)."""
    gaps = sorted(b - a for a, b in pairwise(beats))
    return gaps[len(gaps) // 2] if gaps else 0


def title_sequence(shots: list[Shot], film: Film, title: Title) -> list[Shot]:
    """``shots`` with the title (shot 0) cut into the signature's sequence: ``title.leads``
    lead shots (the occasion alone, then the name alone, set larger: ``part`` cards over
    photos of their own) cut on the beats, then the whole title (the lockup) over the title's
    photo, at least as long as reading it needs. Hard cuts inside the sequence; the lead
    photos are ``title.photos`` (the middle shows every other photo before them again), else
    the film's photos shown last in the middle (farthest from the title)."""
    first = shots[0]
    assert first.card is not None
    leads, fps = title.leads, film.fps
    lockup_frames = math.ceil(film.opening_s * fps)
    latest = list(title.photos[:leads]) or _lead_photos(shots, leads)
    if len(latest) < leads:
        return shots
    room = first.cut_out - lockup_frames  # the lockup holds at least what reading needs
    targets = [room * (k + 1) / leads for k in range(leads)]
    mins = [max(4, round(film.look.title_sequence.lead_min_s * fps * 0.75))] * leads + [
        lockup_frames]
    cuts = [0, *snap_cuts(targets, 0, first.cut_out, mins, film.song.beats), first.cut_out]
    if any(b - a < m for a, b, m in zip(cuts[:-1], cuts[1:], [4] * leads + [lockup_frames],
                                        strict=True)):
        return shots
    occasion, name = first.card.lines[:2]
    parts = [replace(first.card, lines=(occasion, ""), part="occasion"),
             replace(first.card, lines=("", name), part="name")][:leads]
    sequence = [Shot("card", photo, a, b, a, b, Transition(CUT, 0), KEN_BURNS, k, 0.0, card,
                     PUSH_IN) for k, (photo, card, a, b) in
                enumerate(zip(latest, parts, cuts, cuts[1:], strict=False))]
    lockup = replace(first, cut_in=cuts[-2], visible_in=cuts[-2])
    return [*sequence, lockup, *shots[1:]]


def _lead_photos(shots: list[Shot], leads: int) -> list[str]:
    """The ``leads`` photos first shown last in the middle of ``shots`` (not the title's)."""
    middle = [s for s in shots[1:-1] if s.kind == "photo"]
    first_seen: dict[str, int] = {}
    for k, s in enumerate(middle):
        for photo in (s.source_id, s.partner_id, s.second_partner_id):
            if photo:
                first_seen.setdefault(photo, k)
    return sorted((pid for pid in first_seen if pid != shots[0].source_id),
                  key=lambda pid: -first_seen[pid])[:leads]
