"""Faces kept whole, and 9:16 full-bleed, in planned films (issue 42): every frame of every
move of every shot (photos alone, repeats looking closer, cards over photos, layout cells), in
both aspects, framed as the render frames it (bench/faces/crops.py), never cuts a face's
eyes-to-mouth core; the 9:16 film crops a photo whenever its faces' cores (or its focus) fit a
crop magnified at most 2x."""

from __future__ import annotations

import numpy as np
import pytest

from bench.faces.crops import View, cut_faces, is_cut, shot_views
from bench.faces.whole import film, photo_source
from media.analysis.camera import Motion, Rect
from media.analysis.framing import MoveRequest, plan_ken_burns, whole_faces_rect
from media.analysis.subjects import Box, Subject, keep_whole, union
from media.base.spec import LANDSCAPE, PORTRAIT, Aspect
from media.frames.roll import roll_keeps
from media.frames.split import still_crop
from media.plan.timeline import Timeline

PHONE_TALL, PHONE_WIDE, SQUARE = (3024, 4032), (4032, 3024), (3000, 3000)


def faces(*pairs: tuple[Box, Box]) -> Subject:
    """A subject of (whole face, eyes-to-mouth core) pairs, largest first."""
    boxes = tuple(face for face, _ in pairs)
    return Subject(boxes, union(boxes), "faces", cores=tuple(core for _, core in pairs))


def scenery(focus: Box | None = None) -> Subject:
    return Subject((), focus or Box(0.55, 0.35, 0.75, 0.6), "saliency", compact=False)


# a close-up filling its photo: the whole face with its margin fits no crop of either aspect
CLOSE_UP = faces((Box(0.15, 0.18, 0.85, 0.8), Box(0.27, 0.38, 0.73, 0.66)))
# a face filling 80 % of its photo: its core is as tall as a 16:9 crop of a phone portrait
FILLING = faces((Box(0.08, 0.1, 0.92, 0.9), Box(0.22, 0.36, 0.78, 0.7)))
# the same face turned 25 degrees: its core's upright box is wider and taller
TILTED = faces((Box(0.02, 0.04, 0.98, 0.96), Box(0.16, 0.26, 0.84, 0.8)))
# a face at the photo's left edge, partly outside it (clipped)
AT_EDGE = faces((Box(0.0, 0.18, 0.26, 0.62), Box(0.0, 0.3, 0.17, 0.5)))
# a face at the top edge of a landscape photo
AT_TOP = faces((Box(0.4, 0.0, 0.62, 0.3), Box(0.44, 0.02, 0.58, 0.2)))
# two people side by side, close
COUPLE = faces((Box(0.12, 0.15, 0.45, 0.75), Box(0.18, 0.3, 0.4, 0.6)),
               (Box(0.55, 0.2, 0.86, 0.76), Box(0.6, 0.34, 0.81, 0.62)))
# five small faces across a wide group photo: all of them fit no 9:16 crop
GROUP = faces(*((Box(x, 0.35, x + 0.1, 0.5), Box(x + 0.02, 0.39, x + 0.08, 0.47))
                for x in (0.05, 0.25, 0.45, 0.65, 0.85)))


def _views(timeline: Timeline, photos: dict[str, tuple[tuple[int, int], Subject]]
           ) -> list[dict[str, list[View]]]:
    return shot_views(timeline, {p: s for p, (s, _) in photos.items()},
                      {p: subject for p, (_, subject) in photos.items()})


def _planned(photos: dict[str, tuple[tuple[int, int], Subject]], length: float,
             premium: bool) -> Timeline:
    return film([photo_source(pid, size, subject) for pid, (size, subject) in photos.items()],
                length, premium)


def _cuts(photos: dict[str, tuple[tuple[int, int], Subject]], length: float,
          premium: bool) -> list[str]:
    timeline = _planned(photos, length, premium)
    return cut_faces(timeline, {p: s for p, (s, _) in photos.items()},
                     {p: subject for p, (_, subject) in photos.items()})


ALONE = {"close-up": (PHONE_TALL, CLOSE_UP), "close-up wide": (PHONE_WIDE, CLOSE_UP),
         "tilted": (SQUARE, TILTED), "at the edge": (PHONE_WIDE, AT_EDGE),
         "at the top": (PHONE_WIDE, AT_TOP), "couple": (PHONE_WIDE, COUPLE),
         "group": ((4000, 2250), GROUP), "small close-up": ((800, 1000), CLOSE_UP),
         "filling": (PHONE_TALL, FILLING)}


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
@pytest.mark.parametrize("length", [30.0, 67.0])
@pytest.mark.parametrize("kind", sorted(ALONE))
def test_a_one_photo_film_never_cuts_a_face_in_any_frame(kind: str, length: float,
                                                         premium: bool) -> None:
    assert _cuts({"p0": ALONE[kind]}, length, premium) == []


def _memorial() -> dict[str, tuple[tuple[int, int], Subject]]:
    return {"p0": (PHONE_TALL, TILTED), "p1": ((2400, 1800), scenery())}


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
def test_the_two_photo_memorial_keeps_the_tilted_close_up_whole_in_every_frame(
        premium: bool) -> None:
    # issue 42's memorial: the father's tilted face filling its photo, and an old scan
    assert _cuts(_memorial(), 60.0, premium) == []


def _mixed(count: int) -> dict[str, tuple[tuple[int, int], Subject]]:
    kinds = [(PHONE_TALL, CLOSE_UP), (PHONE_WIDE, COUPLE), ((4000, 2250), GROUP),
             (PHONE_WIDE, AT_EDGE), (SQUARE, TILTED), ((3000, 2000), scenery()),
             (PHONE_WIDE, AT_TOP), (PHONE_TALL, COUPLE), ((2400, 1600), scenery(Box(0.1, 0.2,
                                                                                    0.3, 0.5)))]
    return {f"p{i}": kinds[i % len(kinds)] for i in range(count)}


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
@pytest.mark.parametrize(("count", "length"), [(3, 45.0), (5, 120.0), (10, 67.0), (10, 180.0),
                                               (30, 180.0)])
def test_films_of_close_ups_groups_and_faces_at_the_edge_never_cut_a_face(
        count: int, length: float, premium: bool) -> None:
    # long films of few photos show repeats closer and beside others, in layout cells
    assert _cuts(_mixed(count), length, premium) == []


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
def test_a_close_up_filling_its_photo_is_framed_full_in_both_aspects_not_fitted(
        premium: bool) -> None:
    # its whole face with a 20 % margin fits no 16:9 crop of a phone portrait: it was a small
    # print over its blur; its eyes and mouth fit, and frame it full
    photos = {"p0": (PHONE_TALL, CLOSE_UP), "p1": ((3000, 2000), scenery()),
              "p2": (PHONE_WIDE, COUPLE)}
    timeline = _planned(photos, 45.0, premium)
    views = _views(timeline, photos)
    for aspect in (LANDSCAPE.name, PORTRAIT.name):
        modes = {v.motion.mode for shot in views for v in shot.get(aspect, [])
                 if v.photo_id == "p0" and not v.cell}
        assert modes == {"crop"}, aspect


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
def test_9x16_is_full_bleed_whenever_the_subject_fits_a_crop_at_most_2x(premium: bool) -> None:
    # a panorama keeps under 20 % of itself in a 9:16 crop: its focus still fits one, sharp
    photos = {"p0": (PHONE_TALL, CLOSE_UP), "p1": (PHONE_WIDE, AT_EDGE),
              "p2": ((4800, 1600), scenery(Box(0.4, 0.3, 0.5, 0.7))),
              "p3": ((3000, 2000), scenery()), "p4": (PHONE_TALL, COUPLE)}
    timeline = _planned(photos, 45.0, premium)
    for shot in _views(timeline, photos):
        for view in shot.get(PORTRAIT.name, []):
            if not view.cell:
                assert view.motion.mode == "crop", view


@pytest.mark.parametrize("full", [False, True], ids=["push", "full move"])
def test_9x16_crops_a_pet_whose_head_fits_the_crop_only_without_its_margin(full: bool) -> None:
    # a 1400x1047 print of a dog: its head (the salient core) fits a 9:16 crop (1.83x) edge to
    # edge, with its margin only a viewport wider than the frame (a band over blur)
    dog = keep_whole(Subject((), Box(0.35, 0.0, 1.0, 1.0), "saliency", compact=True))
    for move in ("zoom_in", "pan", "zoom_out", "tilt"):
        motion = plan_ken_burns((1400, 1047), dog, PORTRAIT, 36,
                                MoveRequest(full=full, move=move))
        assert motion.mode == "crop", (move, motion)
        core = dog.faces[0].to_pixels(1400, 1047)
        assert all(motion.rect_at(f).contains(core, tol=1.0) for f in (0, 18, 35))


def test_a_30_photo_film_shows_its_small_pet_print_full_bleed_in_9x16() -> None:
    dog = Subject((), Box(0.35, 0.0, 1.0, 1.0), "saliency", compact=True)
    sizes = (PHONE_TALL, PHONE_WIDE, SQUARE, (3000, 2000))
    photos = {f"p{i:02d}": (sizes[i % 4], COUPLE if i % 3 else scenery()) for i in range(29)}
    photos["p29"] = ((1400, 1047), dog)
    timeline = _planned(photos, 119.0, False)
    shown = [v for shot in _views(timeline, photos) for v in shot.get(PORTRAIT.name, [])
             if v.photo_id == "p29" and not v.cell]
    assert shown and {v.motion.mode for v in shown} == {"crop"}


def test_9x16_fits_or_fills_a_group_whose_faces_no_crop_holds() -> None:
    # five faces across a wide photo: no 9:16 crop holds them all, and none is cut in half
    photos = {"p0": ((4000, 2250), GROUP), "p1": ((3000, 2000), scenery())}
    timeline = _planned(photos, 30.0, False)
    modes = {v.motion.mode for shot in _views(timeline, photos)
             for v in shot.get(PORTRAIT.name, []) if v.photo_id == "p0" and not v.cell}
    assert modes and "crop" not in modes


@pytest.mark.parametrize("size", [(900.0, 1600.0), (1200.0, 2250.0), (2000.0, 2250.0)])
def test_a_crop_too_narrow_for_the_group_keeps_the_biggest_faces_whole_and_the_others_out(
        size: tuple[float, float]) -> None:
    # the middle face is the biggest: a 9:16 cell of the group photo holds it whole, and no
    # neighbour by half
    group = faces((Box(0.42, 0.3, 0.58, 0.55), Box(0.45, 0.36, 0.55, 0.5)),
                  *((Box(x, 0.35, x + 0.1, 0.5), Box(x + 0.02, 0.39, x + 0.08, 0.47))
                    for x in (0.05, 0.25, 0.65, 0.85)))
    photo = (4000, 2250)
    rect = whole_faces_rect(photo, group, size)
    cores = [c.to_pixels(*photo) for c in group.cores]
    assert rect.contains(cores[0])
    assert not any(is_cut(core, rect) for core in cores)
    assert rect.x >= 0 and rect.x + rect.w <= photo[0] + 1e-6


def test_a_still_cell_of_a_couple_too_wide_for_it_cuts_neither_face() -> None:
    cell = Aspect("9x16-half", 1080, 640)
    motion = still_crop((2000, 3000), COUPLE, cell, 60)
    cores = [c.to_pixels(2000, 3000) for c in COUPLE.cores]
    assert not any(is_cut(core, motion.start) for core in cores)
    assert motion.start.contains(cores[0])


@pytest.mark.parametrize("kind", ["close-up", "tilted", "at the edge", "couple"])
def test_closer_looks_at_a_photo_of_people_look_at_all_its_faces_never_at_its_texture(
        kind: str) -> None:
    # a photo textured everywhere (skin, a jumper, a wall): its repeats alone look closer at
    # its faces, all of them whole, never at "another region with texture" beside them
    size, subject = ALONE[kind]
    photos = {"p0": (size, subject)}
    textured = {"p0": np.ones((72, 96), np.float32)}
    for premium in (False, True):
        timeline = _planned(photos, 67.0, premium)
        assert cut_faces(timeline, {"p0": size}, {"p0": subject}, textured) == []


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
@pytest.mark.parametrize("length", [90.0, 180.0])
def test_layout_cells_never_cut_a_face_at_the_edge_or_of_a_couple(length: float,
                                                                  premium: bool) -> None:
    # five photos over a long film: repeats share the frame (splits, triptychs, insets) with
    # faces at a photo's edge, at its top, and couples in each cell
    photos = {"p0": (PHONE_WIDE, COUPLE), "p1": (PHONE_WIDE, AT_EDGE),
              "p2": ((3000, 2000), scenery()), "p3": (PHONE_WIDE, AT_TOP),
              "p4": (PHONE_TALL, COUPLE)}
    timeline = _planned(photos, length, premium)
    assert sum(1 for shot in timeline.shots if shot.partner_id) >= 2
    assert cut_faces(timeline, {p: s for p, (s, _) in photos.items()},
                     {p: subject for p, (_, subject) in photos.items()}) == []


def test_a_roll_push_that_would_cut_a_face_at_the_frame_edge_is_not_used() -> None:
    # the roll push zooms about 11 % in about the frame's centre: a core the planned move holds
    # at its edge would leave the frame
    motion = Motion("crop", Rect(0, 0, 1920, 1080), Rect(40, 20, 1800, 1012.5), 90, "zoom_in")
    assert not roll_keeps(motion, [(10.0, 400.0, 300.0, 700.0)], 1920, 1080)
    assert roll_keeps(motion, [(800.0, 400.0, 1100.0, 700.0)], 1920, 1080)
    assert roll_keeps(motion, [(-400.0, 400.0, -100.0, 700.0)], 1920, 1080)  # out: stays out


@pytest.mark.parametrize("premium", [False, True], ids=["standard", "signature"])
def test_a_face_as_wide_as_a_9x16_crop_is_cropped_edge_to_edge_not_filled(premium: bool) -> None:
    # a square photo's 9:16 crop is 56 % of its width; a face 54 % wide fits it with no margin
    wide_face = faces((Box(0.23, 0.2, 0.77, 0.75), Box(0.33, 0.38, 0.67, 0.62)))
    photos = {"p0": (SQUARE, wide_face), "p1": ((3000, 2000), scenery()),
              "p2": (PHONE_TALL, COUPLE)}
    timeline = _planned(photos, 45.0, premium)
    modes = {v.motion.mode for shot in _views(timeline, photos)
             for v in shot.get(PORTRAIT.name, []) if v.photo_id == "p0" and not v.cell}
    assert modes == {"crop"}
    assert cut_faces(timeline, {p: s for p, (s, _) in photos.items()},
                     {p: subject for p, (_, subject) in photos.items()}) == []
