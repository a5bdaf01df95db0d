"""A small print, or a pet filling a square photo, in a long film of one or two photos (issue
42's few_photo_repeats): its largest crop has only a few moves (3 to 9 framings), yet every
showing after the first is framed anew. Once the crops are spent a print shows whole on its
wash (a ladder of fitted frames, never in the 9:16 film it shows full-bleed), and a pet's head
is looked at a little closer, its margin yielding, never its head.

Specs are planned (:func:`media.plan.planner.plan`) and framed as the renderer frames them
(:func:`bench.corpus.framing.shot_views`, no pixel drawn)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from bench.corpus.framing import PhotoFacts, View, shot_views
from media.analysis.camera import Motion
from media.analysis.detail import Repeat, repeat_motion, same_framing
from media.analysis.framing import MoveRequest, full_bleed, plan_ken_burns
from media.analysis.subjects import Box, Subject, keep_whole, union
from media.base.spec import ASPECTS, LANDSCAPE, PORTRAIT, Aspect
from media.plan.inputs import PhotoSource
from media.plan.planner import plan
from media.plan.spec import FilmSpec, SongGrid
from tests.helpers import birthday_repeat_spec, birthday_song_grid

PET = Subject(faces=(), focus=Box(0.17, 0.097, 0.778, 0.809), source="saliency", compact=True)
DOG = Subject(faces=(), focus=Box(0.12, 0.06, 0.76, 1.0), source="saliency", compact=True)
SMALL_FACE = Subject(faces=(Box(0.59, 0.24, 0.79, 0.38),), focus=Box(0.59, 0.24, 0.79, 0.38),
                     source="faces", cores=(Box(0.63, 0.26, 0.78, 0.36),))
PRINTS = {  # a pet filling a square photo, a 451x300 print of a dog, a 196x285 print of a face
    "pet": (1300, 1300, PET), "dog": (451, 300, DOG), "tiny": (196, 285, SMALL_FACE)}
LENGTHS = (60.0, 120.0, 180.0)


@functools.cache
def _song(length: float) -> SongGrid:
    return birthday_song_grid(length)


def _flat_texture() -> np.ndarray:
    return np.zeros((64, 96), np.float32)


def _spec(facts: dict[str, PhotoFacts], length: float, premium: bool) -> FilmSpec:
    photos = []
    for pid, fact in facts.items():
        subject = keep_whole(fact.subject)
        box = union(subject.faces) if subject.faces else subject.focus
        found = bool(fact.subject.faces)
        photos.append(PhotoSource(
            pid, fact.width, fact.height, False, face_fraction=box.y1 - box.y0 if found else 0.0,
            focus_x=box.center[0], focus_y=box.center[1],
            hold_w=min(1.0, 1.4 * (box.x1 - box.x0)) if found else 0.0,
            hold_h=min(1.0, 1.4 * (box.y1 - box.y0)) if found else 0.0))
    return birthday_repeat_spec(photos, length, premium, _song(length))


@functools.cache
def _views(prints: tuple[str, ...], length: float, premium: bool
           ) -> tuple[dict[str, PhotoFacts], list[dict[str, list[View]]]]:
    facts = {f"p{k:02d}": PhotoFacts(*PRINTS[name], _flat_texture())
             for k, name in enumerate(prints)}
    return facts, shot_views(plan(_spec(facts, length, premium)), facts)


GRID = [(prints, length, premium) for prints in (("pet",), ("dog",), ("tiny",), ("pet", "dog"))
        for length in LENGTHS for premium in (False, True)]


@pytest.mark.parametrize(("prints", "length", "premium"), GRID)
def test_a_small_print_in_a_long_film_is_never_framed_as_before(
        prints: tuple[str, ...], length: float, premium: bool) -> None:
    _, views = _views(prints, length, premium)
    again = []
    for aspect in ASPECTS:
        earlier: dict[str, list[Motion]] = {}
        for index, shot in enumerate(views):
            for view in shot.get(aspect.name, []):
                before = earlier.setdefault(view.photo_id, [])
                if any(same_framing(view.motion, m) for m in before):
                    again.append(f"#{index} {aspect.name} {view.photo_id} {view.motion.mode} "
                                 f"{view.motion.move}")
                before.append(view.motion)
    assert not again, again


def _spent(photo: Repeat, aspect: Aspect, count: int) -> list[Motion]:
    earlier = [plan_ken_burns(photo.size, photo.subject, aspect, 300, MoveRequest())]
    for _ in range(count):
        earlier.append(repeat_motion(photo, aspect, 300, MoveRequest(), earlier))
    return earlier


def test_a_small_print_whose_crops_are_spent_is_shown_whole_on_its_wash() -> None:
    photo = Repeat((451, 300), keep_whole(DOG), _flat_texture())
    earlier = _spent(photo, LANDSCAPE, 12)
    assert all(not same_framing(m, e) for k, m in enumerate(earlier) for e in earlier[:k])
    fitted = [m for m in earlier if m.mode == "fit"]
    assert fitted  # the whole print, wider than its largest crop (451x254)
    assert all(m.start.w > 451 and m.end.w > 451 for m in fitted)


def test_a_pet_filling_the_portrait_frame_is_looked_at_closer_never_fitted() -> None:
    subject = keep_whole(PET)
    photo = Repeat((1300, 1300), subject, _flat_texture())
    assert full_bleed(photo.size, subject, PORTRAIT)
    earlier = _spent(photo, PORTRAIT, 5)
    assert all(not same_framing(m, e) for k, m in enumerate(earlier) for e in earlier[:k])
    assert all(m.mode == "crop" for m in earlier)
    head = subject.faces[0].to_pixels(*photo.size)
    closer = [m for m in earlier if m.end.w < 0.85 * earlier[0].end.w]
    assert closer
    assert all(m.rect_at(f).contains(head, tol=1.0) for m in closer for f in range(0, 300, 30))
