"""A film of one to three photos shows each of them many times (issue 42): every showing of a
photo after its first is a new framing in each film (not the same move between nearly the same
rectangles as any earlier showing of it, cards and cells included) that holds a face whole when
the photo has faces, and the 9:16 film is full-bleed whenever the subject fits a crop magnified
at most 2x (a one-photo film's whole showing too).

Each spec is planned (:func:`media.plan.planner.plan`) and its shots framed as the renderer
frames them (:func:`bench.corpus.framing.shot_views`, no pixel drawn)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from bench.corpus.framing import PhotoFacts, View, shot_views
from media.analysis.camera import Motion, Rect
from media.analysis.detail import Repeat, repeat_motion, same_framing
from media.analysis.framing import MoveRequest, largest_crop, plan_ken_burns
from media.analysis.subjects import Box, Subject, keep_whole, union
from media.base.spec import ASPECTS, LANDSCAPE, PORTRAIT
from media.plan.inputs import PhotoSource
from media.plan.planner import plan
from media.plan.spec import FilmSpec, SongGrid
from tests.helpers import birthday_repeat_spec, birthday_song_grid

FACE = Subject(faces=(Box(0.36, 0.18, 0.64, 0.52),), focus=Box(0.36, 0.18, 0.64, 0.52),
               source="faces", cores=(Box(0.4, 0.28, 0.6, 0.46),))
GROUP = Subject(faces=(Box(0.12, 0.3, 0.27, 0.5), Box(0.42, 0.28, 0.57, 0.48),
                       Box(0.72, 0.31, 0.87, 0.51)), focus=Box(0.12, 0.28, 0.87, 0.51),
                source="faces", cores=(Box(0.14, 0.36, 0.25, 0.47), Box(0.44, 0.34, 0.55, 0.45),
                                       Box(0.74, 0.37, 0.85, 0.48)))
CLOSE_UP = Subject(faces=(Box(0.05, 0.08, 0.95, 0.97),), focus=Box(0.05, 0.08, 0.95, 0.97),
                   source="faces", cores=(Box(0.18, 0.3, 0.82, 0.85),))
SCENERY = Subject(faces=(), focus=Box(0.2, 0.3, 0.7, 0.8), source="saliency", compact=False)
PHOTOS = (  # (width, height, subject): a portrait, a landscape group, a close-up, scenery
    (3000, 4000, FACE), (4000, 3000, GROUP), (1264, 1255, CLOSE_UP), (960, 1200, FACE),
    (4032, 2268, SCENERY))
COUNTS = (1, 2, 3)
LENGTHS = (30.0, 67.0, 120.0, 180.0)
MIDDLE_SAMPLES = 3  # frames around a repeat's middle where a face must be whole


def _texture(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    texture = np.zeros((72, 96), np.float32)
    for _ in range(6):  # a few textured patches, the rest flat
        y, x = rng.integers(0, 60), rng.integers(0, 84)
        texture[y:y + 12, x:x + 12] = 1.0
    return texture


@functools.cache
def _song(length: float) -> SongGrid:
    return birthday_song_grid(length)


def _facts(n: int, first: int) -> dict[str, PhotoFacts]:
    return {f"p{k:02d}": PhotoFacts(w, h, s, _texture(first + k))
            for k, (w, h, s) in enumerate(PHOTOS[(first + k) % len(PHOTOS)] for k in range(n))}


def _spec(facts: dict[str, PhotoFacts], length: float, premium: bool) -> FilmSpec:
    photos = []
    for pid, fact in facts.items():
        subject = keep_whole(fact.subject)
        box = union(subject.faces) if subject.faces else subject.focus
        photos.append(PhotoSource(
            pid, fact.width, fact.height, False,
            face_fraction=box.y1 - box.y0 if fact.subject.faces else 0.0,
            focus_x=box.center[0], focus_y=box.center[1],
            hold_w=min(1.0, 1.4 * (box.x1 - box.x0)) if fact.subject.faces else 0.0,
            hold_h=min(1.0, 1.4 * (box.y1 - box.y0)) if fact.subject.faces else 0.0))
    return birthday_repeat_spec(photos, length, premium, _song(length))


@functools.cache
def _views(n: int, length: float, premium: bool, first: int
           ) -> tuple[dict[str, PhotoFacts], list[dict[str, list[View]]]]:
    facts = _facts(n, first)
    return facts, shot_views(plan(_spec(facts, length, premium)), facts)


GRID = [(n, length, premium, first) for n in COUNTS for length in LENGTHS
        for premium in (False, True) for first in (0, 3)]
REPEAT_GRID = GRID  # a 960x1200 photo alone for 180 s too: its shots hold up to the house's
# longest (media.plan.pacing.SHOT_MAX_S), within its 16 distinct framings


def _iou(a: Rect, b: Rect) -> float:
    ix = max(0.0, min(a.x + a.w, b.x + b.w) - max(a.x, b.x))
    iy = max(0.0, min(a.y + a.h, b.y + b.h) - max(a.y, b.y))
    return ix * iy / (a.w * a.h + b.w * b.h - ix * iy)


def _as_before(a: Motion, b: Motion) -> bool:
    return a.move == b.move and _iou(a.start, b.start) > 0.9 and _iou(a.end, b.end) > 0.9


def _whole_at_middle(view: View, box: tuple[float, ...]) -> bool:
    middle = view.motion.frames // 2
    return all(view.rect(f).contains(box, tol=0.5)
               for f in range(middle - MIDDLE_SAMPLES, middle + MIDDLE_SAMPLES + 1))


@pytest.mark.parametrize(("n", "length", "premium", "first"), REPEAT_GRID)
def test_every_repeat_of_few_photos_is_a_new_framing_that_holds_a_face(
        n: int, length: float, premium: bool, first: int) -> None:
    facts, views = _views(n, length, premium, first)
    problems = []
    for aspect in ASPECTS:
        earlier: dict[str, list[Motion]] = {}
        for index, shot_views_ in enumerate(views):
            for view in shot_views_.get(aspect.name, []):
                fact = facts[view.photo_id]
                before = earlier.setdefault(view.photo_id, [])
                faces = [b.to_pixels(fact.width, fact.height) for b in fact.subject.cores]
                if before and faces and not any(_whole_at_middle(view, f) for f in faces):
                    problems.append(f"#{index} {aspect.name} {view.photo_id} shows no face whole")
                elif any(_as_before(view.motion, m) for m in before):
                    problems.append(f"#{index} {aspect.name} {view.photo_id} framed as before "
                                    f"({view.motion.mode} {view.motion.move})")
                before.append(view.motion)
    assert not problems, problems


@pytest.mark.parametrize(("n", "length", "premium", "first"), GRID)
def test_the_portrait_film_is_full_bleed_when_the_subject_fits_a_2x_crop(
        n: int, length: float, premium: bool, first: int) -> None:
    facts, views = _views(n, length, premium, first)
    fitted = []
    for index, shot_views_ in enumerate(views):
        layer = shot_views_.get(PORTRAIT.name, [])
        if len(layer) != 1 or layer[0].motion.mode == "crop":
            continue
        fact = facts[layer[0].photo_id]
        crop_w, crop_h = largest_crop(fact.width, fact.height, PORTRAIT)
        subject = keep_whole(fact.subject)
        x0, y0, x1, y1 = (union(subject.faces) if subject.faces else subject.focus).to_pixels(
            fact.width, fact.height)
        if PORTRAIT.width / crop_w <= 2.0 and x1 - x0 <= crop_w and y1 - y0 <= crop_h:
            fitted.append(f"#{index} {layer[0].photo_id} {layer[0].motion.mode}")
    assert not fitted, fitted


def test_a_repeat_answers_the_move_before_it_and_never_makes_it_again() -> None:
    photo = Repeat((3000, 4000), FACE, _texture(1))
    earlier = [plan_ken_burns(photo.size, FACE, LANDSCAPE, 150, MoveRequest(move="zoom_in"))]
    for _ in range(12):
        motion = repeat_motion(photo, LANDSCAPE, 150, MoveRequest(move="zoom_in"), earlier)
        assert not any(same_framing(motion, m) for m in earlier)
        earlier.append(motion)
    assert {"zoom_in", "zoom_out"} <= {m.move for m in earlier}  # a push answered by a pull


def test_a_close_up_filling_its_photo_is_shown_again_whole_in_the_wide_film() -> None:
    photo = Repeat((1264, 1255), CLOSE_UP, _texture(2))
    first = plan_ken_burns(photo.size, CLOSE_UP, LANDSCAPE, 150, MoveRequest())
    again = repeat_motion(photo, LANDSCAPE, 150, MoveRequest(), [first])
    face = CLOSE_UP.faces[0].to_pixels(*photo.size)
    assert all(again.rect_at(f).contains(face, tol=1.0) for f in range(0, 150, 10))


def test_a_group_is_shown_again_closer_on_some_of_its_faces_never_half_of_one() -> None:
    photo = Repeat((4000, 3000), GROUP, _texture(3))
    earlier: list[Motion] = [plan_ken_burns(photo.size, GROUP, LANDSCAPE, 150, MoveRequest())]
    faces = [b.to_pixels(*photo.size) for b in GROUP.faces]
    for _ in range(8):
        motion = repeat_motion(photo, LANDSCAPE, 150, MoveRequest(), earlier)
        for f in range(0, 150, 10):
            rect = motion.rect_at(f)
            for x0, y0, x1, y1 in faces:
                inside = rect.contains((x0, y0, x1, y1), tol=1.0)
                out = x1 <= rect.x or x0 >= rect.x + rect.w
                assert inside or out
        earlier.append(motion)
    closer = [m for m in earlier if m.end.w < 0.6 * photo.size[0]]
    assert closer  # some faces closer, the others wholly out of frame
