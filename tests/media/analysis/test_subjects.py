"""A compact subject that must stay whole versus scenery (media.analysis.subjects), and what it
means for
the 9:16 frame (media.analysis.framing): landscapes fill it full-bleed, a pet's head stays whole."""

from __future__ import annotations

import functools
from dataclasses import asdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from PIL import Image
from skimage import data

from media.analysis import subjects
from media.analysis.camera import MIN_MOVE_PX, MIN_TRAVEL, Motion
from media.analysis.camera import travel as travel_share
from media.analysis.framing import MoveRequest, face_guard, plan_ken_burns
from media.analysis.subjects import (
    Box,
    Subject,
    companion_faces,
    detect_faces,
    drop_bodies,
    find_subject,
    keep_whole,
    salient_mass,
    salient_mass_is_compact,
    soft_share,
    subject_from_dict,
)
from media.base.spec import LANDSCAPE, PORTRAIT, Aspect
from media.intake.restore import cover_long_edge
from tests.helpers import sharp_coverage

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
# The landscapes the birthday and anniversary samples held before they showed people: kept as
# the scenery corpus of these tests (sources in its SOURCES.md)
LANDSCAPES = Path(__file__).resolve().parents[2] / "fixtures" / "landscapes"
MOVES = ("zoom_in", "zoom_out", "pan", "tilt")
FRAMES = 96


@functools.cache
def sample_photo(path: Path) -> np.ndarray:
    """A sample photo at the size the film shows it (the assets stage restores it to
    :func:`media.intake.restore.cover_long_edge`; only downscaling here)."""
    with Image.open(path) as image:
        rgb = np.asarray(image.convert("RGB"))
    height, width = rgb.shape[:2]
    scale = min(1.0, cover_long_edge(width, height) / max(width, height))
    if scale < 1.0:
        rgb = cv2.resize(rgb, (round(width * scale), round(height * scale)),
                         interpolation=cv2.INTER_AREA)
    return rgb


def landscape_samples() -> list[Path]:
    """Every landscape photo of the scenery corpus (no people, no pets)."""
    paths = sorted(LANDSCAPES.glob("*/*.jpg"))
    out = []
    for path in paths:
        with Image.open(path) as image:
            if image.width > image.height:
                out.append(path)
    return out


def _size(image: np.ndarray) -> tuple[int, int]:
    return image.shape[1], image.shape[0]


def _plans(image: np.ndarray, subject: Subject, aspect: Aspect) -> list[Motion]:
    """Every planned move (full and gentle) of ``image`` in ``aspect``, as a render plans it."""
    return [plan_ken_burns(_size(image), keep_whole(subject), aspect, FRAMES,
                           MoveRequest(move=move, full=full))
            for move in MOVES for full in (True, False)]


def test_the_landscape_samples_are_there() -> None:
    assert len(landscape_samples()) >= 11


@pytest.mark.parametrize("path", landscape_samples(), ids=lambda p: p.name)
def test_each_landscape_sample_photo_is_cropped_full_bleed_in_9x16(path: Path) -> None:
    image = sample_photo(path)
    subject = find_subject(image)
    for motion in _plans(image, subject, PORTRAIT):
        assert motion.mode == "crop", (motion.move, motion.mode)
        assert sharp_coverage(motion, _size(image), PORTRAIT) == pytest.approx(1.0)


@pytest.mark.render
def test_the_9x16_frame_is_covered_by_sharp_content_where_it_was_not() -> None:
    # The same photos planned as before (the whole salient mass kept whole as a compact
    # subject): the frame was covered about half by the photo, the rest by the backdrop.
    now, before = [], []
    for path in landscape_samples():
        image = sample_photo(path)
        subject = find_subject(image)
        mass = salient_mass(image)
        assert mass is not None
        as_before = Subject(subject.faces, mass.box, subject.source, compact=True)
        now += [sharp_coverage(m, _size(image), PORTRAIT) for m in _plans(image, subject,
                                                                          PORTRAIT)]
        before += [sharp_coverage(m, _size(image), PORTRAIT) for m in _plans(image, as_before,
                                                                             PORTRAIT)]
    assert min(now) == pytest.approx(1.0)
    assert float(np.mean(before)) < 0.75
    assert float(np.mean(now)) > float(np.mean(before)) + 0.25


@pytest.mark.parametrize("path", landscape_samples(), ids=lambda p: p.name)
def test_a_9x16_landscape_sample_draws_the_move_it_is_given(path: Path) -> None:
    # a fill with no room to pan pushed in whatever it was given, so consecutive shots
    # repeated a move; a crop draws the pan, the push-in and the pull-out it is asked for
    image = sample_photo(path)
    found = find_subject(image)
    subject = keep_whole(found)
    for move in ("zoom_in", "zoom_out", "pan"):
        motion = plan_ken_burns(_size(image), subject, PORTRAIT, FRAMES, MoveRequest(move=move))
        assert travel_share(motion) >= MIN_TRAVEL
        # a compact object (the fig) pans only as far as its core allows: too little to read,
        # so it gets another move; so does a possible face's core held whole (the lake's reeds
        # at dusk, read as one)
        assert motion.move == move or found.compact or found.possible
    pan = plan_ken_burns(_size(image), subject, PORTRAIT, FRAMES, MoveRequest(move="pan"))
    if pan.move != "pan":
        return
    travel = abs(pan.end.cx - pan.start.cx) * PORTRAIT.width / pan.end.w  # output px
    # scenery pans across the photo; a compact object (the fig) only as far as its core allows
    assert travel > (100 if not found.compact else MIN_MOVE_PX)


@pytest.mark.parametrize("path", landscape_samples(), ids=lambda p: p.name)
def test_a_9x16_pan_ends_on_the_focus_even_when_shortened(path: Path) -> None:
    # a pan across a wide photo is too fast for the acceleration budget and is shortened: it
    # still ends where it was planned to, on the focus (it used to stop halfway: the nuthatch
    # shot ended on the blurred background with the bird cut at the frame's edge)
    image = sample_photo(path)
    width, _ = _size(image)
    found = find_subject(image)
    pan = plan_ken_burns(_size(image), keep_whole(found), PORTRAIT, FRAMES, MoveRequest(move="pan"))
    if pan.move != "pan":  # a pan that could not travel far enough became another move
        assert found.compact or found.possible  # (holding a core whole: see above)
        return
    focus_x = found.focus.center[0] * width
    on_focus = min(max(focus_x, pan.end.w / 2), width - pan.end.w / 2)
    if not found.compact:  # nothing to keep whole: the end is centred on the focus
        assert pan.end.cx == pytest.approx(on_focus, abs=1.0)
    assert abs(pan.end.cx - focus_x) < abs(pan.start.cx - focus_x)  # it moves toward it


@pytest.mark.render
def test_scenery_is_not_a_compact_subject_and_a_cat_close_up_is() -> None:
    cat = data.chelsea()
    assert find_subject(cat).compact
    scenery = [find_subject(sample_photo(LANDSCAPES / "birthday" / name))
               for name in ("01-picos-trail.jpg", "02-autumn-ridge.jpg", "04-dune-grass.jpg",
                            "05-summit-sunset.jpg")]
    scenery += [find_subject(sample_photo(LANDSCAPES / "anniversary" / name))
                for name in ("01-lake-boats.jpg", "03-pier-in-fog.jpg", "06-lake-dusk.jpg")]
    assert all(s.source == "saliency" and not s.compact for s in scenery), scenery
    assert all(not keep_whole(s).faces for s in scenery)  # nothing to keep whole


def test_the_compact_measure_reads_concentration_shape_and_detail() -> None:
    cat = data.chelsea()
    mass = salient_mass(cat)
    assert mass is not None
    assert salient_mass_is_compact(mass, soft_share(cat))
    band = salient_mass(sample_photo(LANDSCAPES / "anniversary/03-pier-in-fog.jpg"))
    assert band is not None and band.elongation > 2 * mass.elongation  # a pier is a band
    wide = salient_mass(sample_photo(LANDSCAPES / "birthday/01-picos-trail.jpg"))
    assert wide is not None and wide.lift < mass.lift  # a trail's mass is spread
    assert not salient_mass_is_compact(mass, soft=0.9)  # a detail in an empty field
    flat = np.full((200, 300, 3), 90, np.uint8)
    assert soft_share(flat) == 1.0


# The heads of the two spaniels in the pet tribute's photos (ears and noses included), measured
# by eye on the photos, as normalized boxes.
PET_HEADS = {
    "01-window.jpg": (Box(0.30, 0.23, 0.52, 0.41), Box(0.46, 0.44, 0.67, 0.65)),
    "02-honey.jpg": (Box(0.29, 0.22, 0.64, 0.64),),
}


@pytest.mark.parametrize("aspect", [PORTRAIT, LANDSCAPE], ids=lambda a: a.name)
@pytest.mark.parametrize("name", sorted(PET_HEADS))
def test_the_pet_sample_photos_keep_each_head_whole(name: str, aspect: Aspect) -> None:
    # in 16:9 honey's forehead was cut: the focus box was pulled down by the second dog
    image = sample_photo(SAMPLES / "pet-tribute/photos" / name)
    width, height = _size(image)
    subject = find_subject(image)
    for motion in _plans(image, subject, aspect):
        for i in (0, FRAMES // 2, FRAMES - 1):
            rect = motion.rect_at(i)
            for head in PET_HEADS[name]:
                assert rect.contains(head.to_pixels(width, height), tol=1.0), (motion.move, i)


def test_the_honey_close_up_is_a_compact_subject_kept_whole() -> None:
    subject = find_subject(sample_photo(SAMPLES / "pet-tribute/photos/02-honey.jpg"))
    assert subject.compact and keep_whole(subject).faces


def test_a_core_that_fits_the_crop_lets_its_margin_yield() -> None:
    # an object whose core fits a 9:16 crop of a 3:2 photo, but not with the face margin
    size = (3000, 2000)
    fig = keep_whole(Subject((), Box(0.25, 0.25, 0.80, 0.80), "saliency"))
    core = fig.faces[0].to_pixels(*size)
    guard = face_guard(fig, *size)
    assert guard is not None and guard[2] - guard[0] > 2000 * 9 / 16  # with margin: too wide
    for move in MOVES:
        motion = plan_ken_burns(size, fig, PORTRAIT, FRAMES, MoveRequest(move=move))
        assert motion.mode == "crop"
        for i in (0, FRAMES // 2, FRAMES - 1):
            assert motion.rect_at(i).contains(core, tol=1e-3)


def test_a_compact_subject_wider_than_the_crop_is_still_filled() -> None:
    wide_head = keep_whole(Subject((), Box(0.1, 0.1, 0.9, 0.9), "saliency"))
    motion = plan_ken_burns((3000, 2000), wide_head, PORTRAIT, FRAMES)
    assert motion.mode == "fill"
    core = wide_head.faces[0].to_pixels(3000, 2000)
    assert all(motion.rect_at(i).contains(core) for i in (0, FRAMES - 1))


def test_stored_subjects_keep_their_compact_reading() -> None:
    scenery = Subject((), Box(0.1, 0.2, 0.9, 0.8), "saliency", compact=False)
    assert subject_from_dict(asdict(scenery)) == scenery
    old = asdict(scenery)
    del old["compact"]  # framing facts stored before the measure: the cautious reading
    assert subject_from_dict(old).compact


# The subject of every sample photo, labelled by eye on the photos (normalized boxes): the bird,
# the kite, the fig, the path, the dogs' heads; for scenery the band that holds what the photo
# is about (the boats, the pier, the lit mountains, the reeds and treeline). A photo that is
# all pattern (the cups, the dune grass) is labelled as nearly all of it.
SUBJECTS = {
    "anniversary/01-lake-boats.jpg": Box(0.00, 0.48, 1.00, 0.93),
    "anniversary/02-jetty.jpg": Box(0.00, 0.40, 1.00, 1.00),
    "anniversary/03-pier-in-fog.jpg": Box(0.17, 0.41, 0.81, 0.75),
    "anniversary/04-living-room.jpg": Box(0.05, 0.12, 0.93, 0.74),
    "anniversary/05-fig.jpg": Box(0.41, 0.35, 0.69, 0.75),
    "anniversary/06-lake-dusk.jpg": Box(0.40, 0.60, 1.00, 0.80),
    "birthday/01-picos-trail.jpg": Box(0.32, 0.14, 1.00, 0.68),
    "birthday/02-autumn-ridge.jpg": Box(0.10, 0.10, 1.00, 0.70),
    "birthday/03-nuthatch.jpg": Box(0.40, 0.34, 0.54, 0.66),
    "birthday/04-dune-grass.jpg": Box(0.05, 0.12, 0.95, 1.00),
    "birthday/05-summit-sunset.jpg": Box(0.42, 0.38, 0.93, 1.00),
    "birthday/06-kite.jpg": Box(0.64, 0.30, 0.72, 0.41),
    "birthday/07-party-cups.jpg": Box(0.05, 0.00, 0.95, 1.00),
    # the samples with people: the face, the person or the couple (labelled by eye)
    "birthday/01-portrait.jpg": Box(0.25, 0.10, 0.72, 0.80),
    "birthday/02-new-waver.jpg": Box(0.28, 0.15, 0.72, 0.85),
    "birthday/03-new-wave-fun.jpg": Box(0.30, 0.18, 0.88, 0.60),
    "birthday/04-three-friends.jpg": Box(0.05, 0.02, 0.98, 0.95),
    "birthday/05-grand-canyon.jpg": Box(0.25, 0.25, 0.62, 1.00),
    "birthday/06-pool.jpg": Box(0.10, 0.20, 0.80, 0.95),
    "birthday/07-summit-sunset.jpg": Box(0.42, 0.38, 0.93, 1.00),
    "anniversary/01-toast.jpg": Box(0.25, 0.10, 0.70, 0.65),
    "anniversary/02-grand-canyon.jpg": Box(0.00, 0.15, 0.62, 1.00),
    "anniversary/03-beach.jpg": Box(0.10, 0.15, 0.85, 0.95),
    "anniversary/04-two-seas.jpg": Box(0.10, 0.30, 0.80, 1.00),
    "anniversary/05-skagen.jpg": Box(0.00, 0.45, 1.00, 1.00),
    "anniversary/06-bar.jpg": Box(0.25, 0.20, 0.70, 0.90),
    "anniversary/07-evening-at-home.jpg": Box(0.05, 0.12, 0.93, 0.74),
    "pet-tribute/01-window.jpg": Box(0.30, 0.23, 0.67, 0.65),
    "pet-tribute/02-honey.jpg": Box(0.29, 0.22, 0.64, 0.64),
    "pet-tribute/03-forest-path.jpg": Box(0.18, 0.52, 0.32, 1.00),
    "pet-tribute/04-stream.jpg": Box(0.30, 0.38, 0.68, 1.00),
    "pet-tribute/05-dandelions.jpg": Box(0.14, 0.08, 0.46, 0.56),
    "pet-tribute/06-fallen-leaf.jpg": Box(0.51, 0.30, 0.94, 0.80),
}


# Known misses on the people samples (issue 30, item 4: crops that keep what matters), kept
# visible as strict xfails until the framing handles them
KNOWN_MISSES = {
    ("9x16", "birthday/05-grand-canyon.jpg"): "his face is found now (a beanie): the 9:16 "
                                              "push-in ends on it, 44 px above the labelled "
                                              "person's lower edge",
}


def _keys(test: str) -> list[Any]:
    """The SUBJECTS keys for ``test``, its known misses marked as strict xfails."""
    return [pytest.param(key, marks=pytest.mark.xfail(strict=True,
                                                      reason=KNOWN_MISSES[(test, key)]))
            if (test, key) in KNOWN_MISSES else key for key in sorted(SUBJECTS)]


def _sample(key: str) -> np.ndarray:
    group, name = key.split("/")
    path = SAMPLES / group / "photos" / name
    return sample_photo(path if path.is_file() else LANDSCAPES / group / name)


def test_every_sample_photo_has_a_labelled_subject() -> None:
    on_disk = {f"{p.parent.parent.name}/{p.name}" for p in SAMPLES.glob("*/photos/*.jpg")}
    on_disk |= {f"{p.parent.name}/{p.name}" for p in LANDSCAPES.glob("*/*.jpg")}
    assert on_disk == set(SUBJECTS)


@pytest.mark.render
@pytest.mark.parametrize("key", _keys("focus"))
def test_the_focus_of_each_sample_photo_falls_on_its_subject(key: str) -> None:
    # the weighted centroid of all saliency fell on the bark beside the nuthatch, in the empty
    # sky beside the kite and in the treetops above the forest path
    label = SUBJECTS[key]
    cx, cy = find_subject(_sample(key)).focus.center
    assert label.x0 <= cx <= label.x1 and label.y0 <= cy <= label.y1, (cx, cy)


def _ends_on(lo: float, hi: float, label_lo: float, label_hi: float, tol: float) -> bool:
    """On one axis: a viewport (lo..hi) holds a label that fits it, or is centred within one
    that does not."""
    if label_hi - label_lo <= hi - lo:
        return lo - tol <= label_lo and label_hi <= hi + tol
    return label_lo <= (lo + hi) / 2 <= label_hi


@pytest.mark.render
@pytest.mark.parametrize("key", _keys("9x16"))
def test_every_9x16_shot_of_a_sample_photo_ends_on_its_subject(key: str) -> None:
    # the nuthatch's pan ended with the bird half cut at the frame's edge, the kite's with the
    # kite slid out of the frame: the last viewport of every move holds the labelled subject
    # (within 3% of the photo's side), or, where the subject is wider or taller than the
    # viewport, is centred within it on that axis (within 4 %: a push goes 1.09 for its 6 %
    # seen travel, and the beach's feet, the pool player's shoes and the stream's near bank,
    # labelled by eye, end 3.1-3.4 % off a push's tight end)
    image = _sample(key)
    width, height = _size(image)
    x0, y0, x1, y1 = SUBJECTS[key].to_pixels(width, height)
    for motion in _plans(image, find_subject(image), PORTRAIT):
        end = motion.rect_at(FRAMES - 1)
        assert _ends_on(end.x, end.x + end.w, x0, x1, 0.04 * width), (motion.move, end)
        assert _ends_on(end.y, end.y + end.h, y0, y1, 0.04 * height), (motion.move, end)


@pytest.mark.render
def test_a_face_beside_a_found_one_is_kept_in_every_9x16_frame() -> None:
    # the anniversary's Grand Canyon couple: the strict cascade found only him, and every
    # 9:16 move ended on him with her face cut at the frame's edge
    image = sample_photo(SAMPLES / "anniversary" / "photos" / "02-grand-canyon.jpg")
    subject = find_subject(image)
    width, height = _size(image)
    assert len(detect_faces(image)) == 1 and len(subject.faces) == 2
    for motion in _plans(image, subject, PORTRAIT):
        for rect in (motion.start, motion.end):
            for face in subject.faces:
                x0, _, x1, _ = face.to_pixels(width, height)
                assert rect.x <= x0 and x1 <= rect.x + rect.w, (motion.move, rect, face)
        assert travel_share(motion) >= MIN_TRAVEL, motion


@pytest.mark.render
def test_companions_are_added_only_where_two_loose_cascades_agree_beside_a_face() -> None:
    # the stream's ripples and the window's cat give the loose cascades a dozen "faces": none
    # is beside a found face, so no sample photo but the canyon couple gains one
    gained = {}
    for path in sorted(SAMPLES.glob("*/photos/*.jpg")):
        image = sample_photo(path)
        extra = companion_faces(image, detect_faces(image))
        if extra:
            gained[path.name] = len(extra)
    assert gained == {"02-grand-canyon.jpg": 1}


@pytest.mark.render
def test_the_companion_search_at_the_faces_sizes_finds_every_candidate_beside_a_face(
) -> None:
    # the loose pass searches only the sizes a companion may have (a second a photo saved):
    # every candidate beside a found face that the search over every size finds, it finds
    for path in sorted(SAMPLES.glob("*/photos/*.jpg")):
        gray = subjects._detection_gray(sample_photo(path))
        faces = subjects._faces_on(gray)
        if not faces:
            continue
        sizes = subjects._companion_sizes(gray.shape, faces)
        for cascade, neighbours in subjects.COMPANION_CASCADES:
            every_size = subjects._cascade_boxes(gray, cascade, neighbours,
                                                 subjects.COMPANION_SCALE_STEP)
            at_sizes = subjects._cascade_boxes(gray, cascade, neighbours,
                                               subjects.COMPANION_SCALE_STEP, sizes)
            beside = {box for box in every_size
                      if any(subjects._beside(box, face) for face in faces)}
            assert beside <= set(at_sizes), (path.name, cascade)


@pytest.mark.render
def test_an_arm_under_a_face_is_not_taken_for_a_face() -> None:
    # the three friends' middle arm (its tattoo) was found as the largest "face", under his
    # chin: its margin made the group too tall for a 16:9 crop, and the photo was fitted small
    image = sample_photo(SAMPLES / "birthday" / "photos" / "04-three-friends.jpg")
    subject = find_subject(image)
    assert len(subject.faces) == 3
    assert all(face.y1 < 0.5 for face in subject.faces)  # the three heads, none on an arm
    motion = plan_ken_burns(_size(image), subject, LANDSCAPE, FRAMES, MoveRequest(strong=True))
    assert motion.mode == "crop"


def test_a_box_under_a_chin_goes_but_a_child_held_there_and_a_friend_beside_stay() -> None:
    face = Box(0.40, 0.10, 0.50, 0.25)
    arm = Box(0.38, 0.28, 0.54, 0.50)  # under the chin, larger: an arm, a print
    child = Box(0.42, 0.27, 0.49, 0.37)  # held at the chin: smaller
    friend = Box(0.60, 0.12, 0.70, 0.27)
    assert drop_bodies((face, arm, friend)) == (face, friend)
    assert drop_bodies((face, child, friend)) == (face, child, friend)



def test_each_thread_looks_for_faces_with_its_own_classifier() -> None:
    # a shared classifier failed in getScaleData when two posters searched at once
    from concurrent.futures import ThreadPoolExecutor

    from media.analysis.subjects import _face_detector

    mine = _face_detector()
    assert _face_detector() is mine
    with ThreadPoolExecutor(1) as pool:
        theirs = pool.submit(_face_detector).result()
    assert theirs is not mine
