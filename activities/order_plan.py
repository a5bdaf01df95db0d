"""What an order becomes on screen: its film spec (its cards, its look, its photos and clips as
the planner sees them, the song's grid), the timeline planned from it, and the frame its
posters show.

The render activities (:mod:`activities.render`) fetch and store; this module holds the product
rules that turn a :class:`~workflows.contract.FilmOrder` into a
:class:`~media.plan.spec.FilmSpec`, once; the planner (:func:`media.plan.planner.plan`) reads
nothing else.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from media.analysis.arc import photo_traits
from media.analysis.crops import FEATURE_SIDE, CropFeatures, crop_features, crop_pairs
from media.analysis.dedupe import near_duplicates, picture_hashes
from media.analysis.framing import face_guard
from media.analysis.likeness import Features, animal_region, subject_query, where_subject
from media.analysis.subjects import Subject, keep_whole, may_hide_faces
from media.base.spec import FPS
from media.cards import wording
from media.cards.spec import CardSpec, card_look
from media.cards.text import reads_on_a_phone, undrawn_notes
from media.cards.wording import OccasionWords
from media.design import looks
from media.frames.grade import finished
from media.frames.parallax import matte_score
from media.frames.sources import load_photo
from media.intake.clip_analysis import ScoredClip, scored_clip
from media.plan.inputs import ClipSource, MotionClipSource, PhotoSource
from media.plan.pacing import closing_budget_s, film_look
from media.plan.planner import plan
from media.plan.spec import FilmSpec, FilmWords, LeftOut, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from services.settings import TierRecipe
from workflows.contract import FilmOrder
from workflows.stages import PrepResult

HASH_READ_PX = 256  # photos are hashed from a copy about this large
PICTURE_FACT_THREADS = 2
"""Photos whose mattes and likeness the plan reads at once (the worker's two cores)."""


def occasion_words(order: FilmOrder) -> OccasionWords:
    """The order's words as the wording rules read them (story line first, then the memory)."""
    return OccasionWords(
        slug=order.occasion.slug, greeting=order.occasion.short_name, tone=order.occasion.tone,
        gentle=order.occasion.gentle, name=order.recipient_name,
        relationship=order.relationship, lines=(order.story_note, order.memory))


def order_look(order: FilmOrder) -> looks.Look:
    """The look ``order``'s film is made in, in its style: the one that dresses its occasion's
    family (:func:`media.design.looks.look_name_for`)."""
    return film_look(order.style.value, order.occasion.gentle,
                     looks.look_name_for(wording.family_of(occasion_words(order))))


def cards_for(order: FilmOrder, look: looks.Look | None = None) -> tuple[CardSpec, CardSpec]:
    """The opening and closing cards of ``order`` in its ``look`` (:func:`order_look` when not
    given): the occasion and the name; then the greeting with the name, the customer's own
    words as they wrote them when the film leaves time to read them and the card can set
    them at a size a phone reads, and who it is from (:mod:`media.cards.wording`)."""
    look = look or order_look(order)
    common = {"accent_hex": order.brand.color if order.brand else None,
              "gentle": order.occasion.gentle, "style": order.style.value, "look": look.name}
    opening = CardSpec(kind="opening", lines=(order.occasion.short_name, order.recipient_name),
                       **common)
    budget = closing_budget_s(order.length_sec, look)
    card = CardSpec(kind="closing", lines=(), **common)
    words = wording.closing(occasion_words(order), budget,
                            lambda lines: reads_on_a_phone(replace(card, lines=lines)))
    return opening, replace(card, lines=words.lines)


def interlude_cards(order: FilmOrder, closing: CardSpec) -> tuple[CardSpec, ...]:
    """The interludes a film may carry, best first (the planner decides how many and where,
    :mod:`media.plan.interludes`), each in the closing's look: the customer's story line or
    memory that the closing does not carry, then their other sentences, then their feeling
    words (:func:`media.cards.wording.interlude_lines`)."""
    card = replace(closing, kind="interlude", lines=())
    return tuple(replace(card, lines=line.lines) for line in _interlude_lines(order, closing))


def _interlude_lines(order: FilmOrder, closing: CardSpec) -> tuple[wording.InterludeLine, ...]:
    """The lines of :func:`interlude_cards`, each set on a card that reads on a phone."""
    card = replace(closing, kind="interlude", lines=())
    return wording.interlude_lines(
        (order.story_note, order.memory), closing.lines[1], order.feeling_words,
        card_look(closing).interlude.hold_max_s, order.length_sec,
        lambda lines: reads_on_a_phone(replace(card, lines=lines)))


def film_words(order: FilmOrder, look: looks.Look | None = None) -> FilmWords:
    """Every card ``order``'s film may show (:func:`cards_for`, :func:`interlude_cards`), and
    how many of the interludes carry the words the film promises to show (the memory or the
    story line the closing does not carry)."""
    opening, closing = cards_for(order, look)
    lines = _interlude_lines(order, closing)
    card = replace(closing, kind="interlude", lines=())
    notes = wording.left_out_notes({"memory": order.memory, "story line": order.story_note},
                                   [closing.lines[1], *(line.text for line in lines)])
    return FilmWords(opening=opening, closing=closing,
                     interludes=tuple(replace(card, lines=line.lines) for line in lines),
                     required=sum(1 for _ in itertools.takewhile(lambda x: x.required, lines)),
                     notes=notes)


def film_spec(order: FilmOrder, prep: PrepResult, song: SongGrid, recipe: TierRecipe, *,
              photo_paths: dict[str, Path], clip_paths: dict[str, Path],
              subjects: dict[str, Subject],
              motion_seconds: Mapping[str, float] | None = None) -> FilmSpec:
    """The film ``order`` asks for, as the planner reads it: its look (:func:`order_look`) and
    words (:func:`film_words`), its grade (the signature tier's
    ``premium`` recipe is finished, see :mod:`media.frames.grade`), the prepared photos and
    clips on local disk (``photo_paths``, ``clip_paths``) with what their pixels and
    ``subjects`` say (:func:`photo_sources`, :func:`clip_sources`), which of them show the same
    picture and which a part of another (:func:`photo_crop_features`), the motion provider's
    clips (``motion_seconds``: their seconds by photo id, the assets stage's) and the
    ``song``'s grid."""
    premium = recipe.motion == "premium"
    # The clips' analysis and the photos' hashes on a thread of their own while this one
    # reads the photos: every part is OpenCV, numpy or a decoder with the GIL released.
    with ThreadPoolExecutor(1, thread_name_prefix="plan-clips") as aside:
        clips_read = aside.submit(clip_sources, prep, clip_paths)
        paths = {p.id: photo_paths[p.id] for p in prep.photos}
        hashes_read = aside.submit(photo_hashes, paths)
        features_read = aside.submit(photo_crop_features, paths)
        photos = photo_sources(prep, photo_paths, subjects, premium=premium,
                               subject_id=order.subject_photo_id)
        clips, clip_hashes = clips_read.result()
        twins = near_duplicates(hashes_read.result(), clip_hashes)
        crops = crop_pairs(features_read.result(), known=twins)
    look = order_look(order)
    return FilmSpec(
        length_sec=order.length_sec, fps=FPS, family=wording.family_of(occasion_words(order)),
        style=order.style.value, gentle=order.occasion.gentle, look=look.name,
        grade=finished(look.grade) if premium else look.grade,
        recipe=MotionRecipe(motion_shots=recipe.motion_shots, premium=premium),
        photos=photos, clips=clips,
        left_out=[LeftOut(id=r.id, reason=r.reason) for r in prep.rejected],
        subject_photo_id=order.subject_photo_id, near_duplicates=twins, crops=crops,
        motion_clips=tuple(MotionClipSource(photo_id, seconds)
                           for photo_id, seconds in sorted((motion_seconds or {}).items())),
        words=film_words(order, look),
        song=song)


def film_plan(spec: FilmSpec) -> Timeline:
    """The film's timeline as data (:func:`media.plan.planner.plan`), cut on the song's beats
    and following its sections. Text a card cannot draw is never lost silently: the plan's
    notes say what was left out, and what of the customer's words no card carries."""
    timeline = plan(spec)
    shown = [shot.card for shot in timeline.shots[1:-1] if shot.card is not None]
    undrawn = sum((undrawn_notes(card) for card in (spec.words.opening, spec.words.closing,
                                                    *shown)), ())
    notes = (*undrawn, *spec.words.notes, *_unshown_notes(spec.words, shown))
    return replace(timeline, notes=timeline.notes + notes) if notes else timeline


def _unshown_notes(words: FilmWords, shown: Sequence[CardSpec]) -> tuple[str, ...]:
    """How many of the customer's lines the interludes could carry found no room between
    the pictures (those the film promises apart): counts, never their words."""
    quotes = [card for card in words.interludes if card.lines[0]]
    required = words.interludes[:words.required]
    missed = [card for card in quotes if card not in shown]
    out = []
    if any(card not in shown for card in required):
        out.append(f"{sum(card not in shown for card in required)} of the customer's texts the "
                   "film promises found no room between its pictures")
    if missed:
        out.append(f"{len(missed)} of {len(quotes)} lines of the customer's words that "
                   "interludes could carry found no room between the pictures")
    return tuple(out)


def photo_sources(prep: PrepResult, paths: dict[str, Path], subjects: dict[str, Subject], *,
                  premium: bool = False, subject_id: str | None = None) -> list[PhotoSource]:
    """The prepared photos with the traits the timeline orders them by (see media.analysis.arc),
    their matte scores when the film is ``premium`` (which photos may get parallax) and which
    show the same animal as the subject photo ``subject_id`` (:func:`_picture_facts`)."""
    facts = _picture_facts(prep, paths, subjects, premium, subject_id)
    return [PhotoSource(p.id, p.width, p.height, p.low_res,
                        **asdict(photo_traits(paths[p.id], subjects.get(p.id))),
                        **_focus(subjects.get(p.id)), **_hold(subjects.get(p.id), p.width,
                                                              p.height),
                        **_possible(subjects.get(p.id), p.width, p.height), **facts[p.id])
            for p in prep.photos]


def _picture_facts(prep: PrepResult, paths: dict[str, Path], subjects: dict[str, Subject],
                   premium: bool, subject_id: str | None) -> dict[str, dict[str, Any]]:
    """What the planner reads from the pixels, each photo decoded once (only when needed):
    ``matte``, how cleanly its subject separates (:func:`media.frames.parallax.matte_score`,
    premium films only, photos large enough for a full move), ``with_subject``, whether it
    shows the same animal as the subject photo, and ``subject_box``, where in it
    (:mod:`media.analysis.likeness`; only when the subject photo's subject is an animal, not
    faces). The plan is made once per film, so the segments all render what it says. The
    photos are read over :data:`PICTURE_FACT_THREADS` threads (each fact is seeded per call:
    the same on any thread)."""
    subject = subjects.get(subject_id) if subject_id in paths else None
    query = (subject_query(load_photo(paths[subject_id]), subject)
             if subject_id is not None and subject is not None
             and animal_region(subject) is not None else None)
    wanted = {photo.id: (premium and not photo.low_res and photo.id in subjects,
                         query is not None and photo.id != subject_id) for photo in prep.photos}
    with ThreadPoolExecutor(PICTURE_FACT_THREADS, thread_name_prefix="plan-facts") as pool:
        reading = {photo_id: pool.submit(_facts_of_photo, paths[photo_id],
                                         subjects.get(photo_id), query if match else None,
                                         matte)
                   for photo_id, (matte, match) in wanted.items() if matte or match}
        return {photo.id: reading[photo.id].result() if photo.id in reading else {}
                for photo in prep.photos}


def _facts_of_photo(path: Path, subject: Subject | None, query: Features | None,
                    matte: bool) -> dict[str, Any]:
    """One photo's :func:`_picture_facts`: its ``matte`` score when ``matte`` (its ``subject``
    known), whether and where it shows the ``query``'s animal when one is given."""
    facts: dict[str, Any] = {}
    image = load_photo(path)
    if matte and subject is not None:
        facts["matte"] = round(matte_score(image, subject), 4)
    if query is not None:
        box = where_subject(query, image)
        facts["with_subject"] = box is not None
        if box is not None:
            facts["subject_box"] = tuple(round(v, 4) for v in (box.x0, box.y0, box.x1, box.y1))
    return facts


def _hold(subject: Subject | None, width: int, height: int) -> dict[str, float]:
    """What every crop of the photo must hold (``hold_w``, ``hold_h``: shares of its width and
    height): its faces, or a compact subject's core, with their margin; nothing without."""
    guard = face_guard(keep_whole(subject), width, height) if subject is not None else None
    if guard is None:
        return {}
    x0, y0, x1, y1 = guard
    return {"hold_w": round((x1 - x0) / width, 4), "hold_h": round((y1 - y0) / height, 4)}


def _possible(subject: Subject | None, width: int, height: int) -> dict[str, bool]:
    """Whether the ``width`` x ``height`` photo has a possible face (``possible_face``): one the
    detector was not sure of, or one it may have missed on a photo this small
    (:func:`media.analysis.subjects.may_hide_faces`); none said without one."""
    unsure = subject is not None and bool(subject.possible)
    return {"possible_face": True} if unsure or may_hide_faces(width, height) else {}


def _focus(subject: Subject | None) -> dict[str, float]:
    """Where the photo's subject is (``focus_x``, ``focus_y``: 0..1), the centre without one."""
    if subject is None:
        return {}
    x, y = subject.focus.center
    return {"focus_x": round(x, 4), "focus_y": round(y, 4)}


def clip_sources(prep: PrepResult, paths: dict[str, Path]
                 ) -> tuple[list[ClipSource], dict[str, tuple[int, ...]]]:
    """The prepared clips with their quality scores and the perceptual hashes of a few of each
    clip's frames by clip id: prep's (:attr:`workflows.stages.PreparedClip.scores`), else (a
    prep that did not score) one low-resolution analysis pass of the clip here."""
    sources, hashes = [], {}
    for c in prep.clips:
        scored = (ScoredClip(c.scores.step_s, c.scores.scores, c.scores.hashes)
                  if c.scores is not None else scored_clip(paths[c.id], (c.width, c.height)))
        sources.append(ClipSource(c.id, c.duration_sec, c.width, c.height,
                                  c.has_audio, scored.scores, scored.step_s))
        hashes[c.id] = scored.hashes
    return sources, hashes


def photo_hashes(paths: dict[str, Path]) -> dict[str, tuple[int, int]]:
    """Perceptual hashes of every photo (see :func:`media.analysis.dedupe.picture_hashes`), read
    from a small copy (JPEG draft decoding)."""
    return {photo_id: picture_hashes(_small_gray(path, HASH_READ_PX))
            for photo_id, path in paths.items()}


def photo_crop_features(paths: dict[str, Path]) -> dict[str, CropFeatures]:
    """Every photo's features for finding crops of one another
    (:func:`media.analysis.crops.crop_features`), read from a copy about
    :data:`~media.analysis.crops.FEATURE_SIDE` pixels large (JPEG draft decoding)."""
    return {photo_id: crop_features(_small_gray(path, FEATURE_SIDE))
            for photo_id, path in paths.items()}


def _small_gray(path: Path, side: int) -> np.ndarray:
    """The photo at ``path`` in gray, decoded at the smallest JPEG scale that keeps about
    ``side`` pixels (draft decoding)."""
    with Image.open(path) as image:
        image.draft("L", (side, side))
        return np.asarray(image.convert("L"))


def poster_frame(timeline: Timeline) -> int:
    """The middle frame of the subject's first photo shot (else the first photo shot's): the
    subject, fully on screen, in each aspect's own framing, without the title's words (the
    posters' picture; the title over the subject is its opening showing)."""
    shots = [s for s in timeline.shots if s.kind == "photo" and not s.partner_id]
    shot = next((s for s in shots if s.source_id == timeline.subject_photo_id),
                shots[0] if shots else None)
    return (shot.cut_in + shot.cut_out) // 2 if shot else timeline.total_frames // 2


def poster_time_s(timeline: Timeline) -> float:
    """:func:`poster_frame` in seconds (where a poster is grabbed from a finished film)."""
    return poster_frame(timeline) / timeline.fps
