"""Subject finding, Ken Burns planning and photo composition (media.framing, media.compose)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest
from skimage import data

from media.compose import (
    PhotoLayer,
    Prescaled,
    cover_frame,
    photo_box_on_frame,
    prescale,
    prescale_factor,
    render_crop,
    render_fit,
    resize_crop,
    shifted_crop,
    viewport_matrix,
)
from media.framing import (
    MAX_ACCEL_PX,
    MIN_MOVE_PX,
    Box,
    Motion,
    Rect,
    Subject,
    face_guard,
    find_subject,
    motion_extent,
    needs_fit,
    peak_acceleration,
    plan_ken_burns,
)
from media.spec import ASPECTS, LANDSCAPE, PORTRAIT, Aspect

CHOICES = range(4)
JITTER_BOUND = 0.05  # output px / frame^2


@functools.cache
def astronaut(size: int = 1024) -> np.ndarray:
    """skimage's astronaut (a real face) scaled to ``size`` pixels square."""
    return cv2.resize(data.astronaut(), (size, size), interpolation=cv2.INTER_CUBIC)


def _canvas(width: int, height: int, x: int, y: int) -> np.ndarray:
    """A textured canvas with the astronaut pasted at (x, y)."""
    rng = np.random.default_rng(7)
    noise = rng.integers(60, 160, (height // 16, width // 16, 3), dtype=np.uint8)
    canvas = cv2.resize(noise, (width, height), interpolation=cv2.INTER_CUBIC)
    face = astronaut()
    canvas[y:y + face.shape[0], x:x + face.shape[1]] = face
    return canvas


# Photos with the face near an edge: (name, image).
@functools.cache
def face_photos() -> dict[str, np.ndarray]:
    return {
        "square": astronaut(),
        "landscape_4x3_face_right": _canvas(2048, 1536, 2048 - 1024, 256),
        "portrait_3x4_face_bottom": _canvas(1536, 2048, 256, 2048 - 1024),
        "landscape_2x1": _canvas(3072, 1536, 0, 256),
    }


def _face_pixels(subject: Subject, width: int, height: int) -> list[tuple[float, ...]]:
    return [face.to_pixels(width, height) for face in subject.faces]


# --- subject ----------------------------------------------------------------------------------


def test_finds_the_astronauts_face() -> None:
    subject = find_subject(astronaut(512))
    assert subject.source == "faces"
    assert len(subject.faces) == 1
    face = subject.faces[0]
    cx, cy = face.center
    assert 0.38 < cx < 0.50 and 0.17 < cy < 0.29, face
    assert 0.12 < face.x1 - face.x0 < 0.25


@pytest.mark.parametrize("name", ["coffee", "chelsea", "rocket"])
def test_no_false_faces(name: str) -> None:
    subject = find_subject(getattr(data, name)())
    assert subject.faces == ()
    assert subject.source in ("saliency", "centre")


def test_saliency_finds_the_odd_region() -> None:
    image = np.full((600, 900, 3), 120, np.uint8)
    yy, xx = np.mgrid[0:150, 0:200]
    checker = ((yy // 20 + xx // 20) % 2 * 200 + 30).astype(np.uint8)
    image[80:230, 620:820] = checker[:, :, None]
    subject = find_subject(image)
    assert subject.source == "saliency"
    cx, cy = subject.focus.center
    assert cx > 0.6 and cy < 0.45, subject.focus


def test_flat_image_focuses_on_the_centre() -> None:
    subject = find_subject(np.full((300, 400, 3), 90, np.uint8))
    assert subject.source == "centre"
    assert subject.focus.center == pytest.approx((0.5, 0.5))


# --- motion geometry --------------------------------------------------------------------------


def _check_motion(motion: Motion, aspect: Aspect, size: tuple[int, int],
                  faces: list[tuple[float, ...]]) -> None:
    width, height = size
    for i in range(motion.frames):
        rect = motion.rect_at(i)
        assert rect.w / rect.h == pytest.approx(aspect.width / aspect.height, rel=1e-9)
        if motion.mode == "crop":
            assert rect.x >= -1e-6 and rect.y >= -1e-6
            assert rect.x + rect.w <= width + 1e-6 and rect.y + rect.h <= height + 1e-6
        else:  # fitted: the whole photo is inside the frame
            assert rect.contains((0.0, 0.0, float(width), float(height)))
        for face in faces:
            assert rect.contains(face), (i, rect, face)


@pytest.mark.parametrize("aspect", ASPECTS, ids=lambda a: a.name)
@pytest.mark.parametrize("name", ["square", "landscape_4x3_face_right",
                                  "portrait_3x4_face_bottom", "landscape_2x1"])
def test_faces_stay_in_every_frame(aspect: Aspect, name: str) -> None:
    image = face_photos()[name]
    height, width = image.shape[:2]
    subject = find_subject(image)
    assert subject.source == "faces", name
    faces = _face_pixels(subject, width, height)
    for frames in (45, 96, 150):
        for choice in CHOICES:
            for full in (True, False):
                motion = plan_ken_burns((width, height), subject, aspect, frames, choice=choice,
                                        full=full)
                _check_motion(motion, aspect, (width, height), faces)


@pytest.mark.parametrize("aspect", ASPECTS, ids=lambda a: a.name)
def test_rendered_first_and_last_frames_still_show_the_face(aspect: Aspect) -> None:
    image = face_photos()["landscape_4x3_face_right" if aspect.is_portrait
                          else "portrait_3x4_face_bottom"]
    height, width = image.shape[:2]
    subject = find_subject(image)
    for choice in CHOICES:
        motion = plan_ken_burns((width, height), subject, aspect, 90, choice=choice)
        assert motion.mode == "crop"
        layer = PhotoLayer(prescale(image, prescale_factor(motion, aspect.width)), motion,
                           aspect.width, aspect.height)
        for index in (0, motion.frames - 1):
            assert find_subject(layer.frame(index)).source == "faces", (choice, index)


def _second_difference(values: np.ndarray) -> float:
    return float(np.abs(values[2:] - 2 * values[1:-1] + values[:-2]).max())


@pytest.mark.parametrize("aspect", ASPECTS, ids=lambda a: a.name)
def test_motion_is_smooth(aspect: Aspect) -> None:
    cases = [(image, find_subject(image)) for image in face_photos().values()]
    cases.append((data.coffee(), find_subject(data.coffee())))
    for image, subject in cases:
        height, width = image.shape[:2]
        for frames in (36, 60, 96, 180):
            for choice in CHOICES:
                motion = plan_ken_burns((width, height), subject, aspect, frames, choice=choice)
                rects = [motion.rect_at(i) for i in range(frames)]
                to_out = aspect.width / rects[frames // 2].w  # output px per source px
                cx = np.array([r.cx for r in rects]) * to_out
                cy = np.array([r.cy for r in rects]) * to_out
                scale = np.array([r.w for r in rects]) * to_out
                for path in (cx, cy, scale):
                    assert _second_difference(path) < JITTER_BOUND
                assert peak_acceleration(motion, aspect.width) <= MAX_ACCEL_PX + 1e-9


def test_full_moves_actually_move_and_pushes_are_gentle() -> None:
    image = face_photos()["square"]
    subject = find_subject(image)
    for choice in CHOICES:
        full = plan_ken_burns((1024, 1024), subject, LANDSCAPE, 120, choice=choice)
        push = plan_ken_burns((1024, 1024), subject, LANDSCAPE, 120, choice=choice, full=False)
        moved = max(abs(full.start.x - full.end.x), abs(full.start.y - full.end.y),
                    abs(full.start.w - full.end.w)) * LANDSCAPE.width / full.start.w
        pushed = abs(push.start.w - push.end.w) * LANDSCAPE.width / push.start.w
        assert moved > 20, (choice, full)
        assert 0 < pushed < 80


@pytest.mark.parametrize("aspect", ASPECTS, ids=lambda a: a.name)
def test_a_face_filling_the_photo_still_moves(aspect: Aspect) -> None:
    closeup = cv2.resize(astronaut()[60:460, 260:660], (1200, 1200))  # the face fills it
    subject = find_subject(closeup)
    assert subject.source == "faces"
    faces = _face_pixels(subject, 1200, 1200)
    for choice in CHOICES:
        for full in (True, False):
            motion = plan_ken_burns((1200, 1200), subject, aspect, 75, choice=choice, full=full)
            assert motion_extent(motion, aspect.width) >= MIN_MOVE_PX
            _check_motion(motion, aspect, (1200, 1200), faces)


def test_fit_decisions() -> None:
    nobody = Subject((), Box(0.4, 0.4, 0.6, 0.6), "centre")
    assert needs_fit(3000, 2000, nobody, PORTRAIT)  # 3:2 landscape in 9:16 keeps 37%
    assert not needs_fit(2000, 1500, nobody, PORTRAIT)  # 4:3 keeps 42%: smart crop
    assert needs_fit(2000, 3000, nobody, LANDSCAPE)
    assert not needs_fit(3000, 2000, nobody, LANDSCAPE)
    group = Subject((Box(0.05, 0.3, 0.2, 0.5), Box(0.8, 0.3, 0.95, 0.5)),
                    Box(0.05, 0.3, 0.95, 0.5), "faces")
    assert needs_fit(2000, 1500, group, PORTRAIT)  # a crop would cut someone out
    assert not needs_fit(2000, 1500, group, LANDSCAPE)
    guard = face_guard(group, 2000, 1500)
    assert guard is not None and guard[0] < 100 and guard[2] > 1900


# --- composition ------------------------------------------------------------------------------


def test_viewport_warp_is_subpixel() -> None:
    ramp = np.tile(np.arange(64, dtype=np.float64) * 4, (40, 1))  # 4 levels per pixel
    src = prescale(np.dstack([ramp] * 3).astype(np.uint8), 1.0)
    base = render_crop(src, Rect(5.0, 5.0, 40.0, 20.0), 40, 20).astype(np.float64)
    for shift, levels in ((0.25, 1.0), (0.5, 2.0), (1.75, 7.0)):
        moved = render_crop(src, Rect(5.0 + shift, 5.0, 40.0, 20.0), 40, 20).astype(np.float64)
        assert float((moved - base).mean()) == pytest.approx(levels, abs=0.05)


def _warped_crop(src: Prescaled, rect: Rect, out_w: int, out_h: int) -> np.ndarray:
    matrix = viewport_matrix(rect, src, out_w, out_h)
    return cv2.warpAffine(src.image, matrix, (out_w, out_h),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def test_resized_crop_matches_the_exact_warp_on_a_moving_zoom() -> None:
    src = prescale(cv2.resize(data.astronaut(), (1200, 900)), 1.0)
    resized = 0
    for i in range(40):  # a slow push-in with a drift, like a Ken Burns shot
        w = 1000.0 - 3.7 * i
        rect = Rect(60.0 + 1.13 * i, 80.0 + 0.61 * i, w, w * 9 / 16)
        fast = resize_crop(src, rect, 960, 540)
        if fast is None:
            continue
        resized += 1
        exact = _warped_crop(src, rect, 960, 540).astype(np.int16)
        diff = np.abs(fast.astype(np.int16) - exact)
        assert diff.mean() < 0.3 and diff.max() <= 8  # 1/32 px of a full-contrast edge
    assert resized >= 35  # the fast path is the usual one


def test_resized_crop_reaches_farther_for_an_origin_on_a_zoom_near_one_to_one() -> None:
    src = _astronaut(2200, 1400)
    for zoom in (1.003, 1.005, 1.009):  # a whole photo at full size, barely magnified
        rect = Rect(100.37, 80.71, 1920.0 / zoom, 1080.0 / zoom)
        fast = resize_crop(src, rect, 1920, 1080)
        assert fast is not None  # not the warp: the origin lies up to 430 output pixels out
        diff = np.abs(fast.astype(np.int16) - _warped_crop(src, rect, 1920, 1080))
        assert diff.mean() < 0.3 and diff.max() <= 8


def test_resized_crop_declines_where_it_cannot_place_the_viewport_exactly() -> None:
    src = prescale(np.zeros((600, 800, 3), np.uint8), 1.0)
    assert resize_crop(src, Rect(10.5, 10.5, 320.0, 180.0), 320, 180) is None  # 1:1, half px
    whole = render_crop(src, Rect(10.5, 10.5, 320.0, 180.0), 320, 180)  # shifts instead
    assert whole.shape == (180, 320, 3)


def _astronaut(width: int, height: int) -> Prescaled:
    return prescale(cv2.resize(data.astronaut(), (width, height)), 1.0)


@pytest.mark.parametrize("rect", [
    Rect(0.2, 0.3, 950.0, 534.375),  # against the top-left corner, no room for an origin
    Rect(-3.4, 20.0, 940.0, 528.75),  # reaching past the left edge
    Rect(260.7, 361.1, 941.0, 529.3125),  # reaching past the bottom-right corner
], ids=["at-corner", "past-left", "past-bottom-right"])
def test_resized_crop_repeats_the_edges_as_the_warp_does(rect: Rect) -> None:
    src = _astronaut(1200, 900)
    fast = resize_crop(src, rect, 960, 540)
    assert fast is not None
    diff = np.abs(fast.astype(np.int16) - _warped_crop(src, rect, 960, 540))
    assert diff.mean() < 0.3 and diff.max() <= 8


@pytest.mark.parametrize("rect", [
    Rect(0.2, 0.3, 950.0, 534.375),  # the border serves the edge as a view
    Rect(-180.6, -140.2, 940.0, 528.75),  # beyond the border: padded per crop instead
    Rect(-1.3, 0.03, 960.0, 540.0),  # 1:1 shift
], ids=["within-border", "beyond-border", "one-to-one"])
def test_a_crop_is_the_same_with_or_without_the_replicated_border(rect: Rect) -> None:
    image = cv2.resize(data.astronaut(), (1200, 900))
    framed, bare = prescale(image, 1.0), prescale(image, 1.0, margin=False)
    assert framed.framed is not None and bare.framed is None
    assert np.array_equal(framed.image, bare.image)
    assert np.array_equal(render_crop(framed, rect, 960, 540), render_crop(bare, rect, 960, 540))


@pytest.mark.parametrize("offset", [(10.5, 7.25), (0.0, 3.75), (-1.3, 0.03), (239.9, 359.6)])
def test_one_to_one_crop_is_a_subpixel_shift_matching_the_warp(
        offset: tuple[float, float]) -> None:
    src = _astronaut(1200, 900)
    rect = Rect(offset[0], offset[1], 960.0, 540.0)
    shifted = shifted_crop(src, rect, 960, 540)
    assert shifted is not None
    diff = np.abs(shifted.astype(np.int16) - _warped_crop(src, rect, 960, 540))
    assert diff.mean() < 0.3 and diff.max() <= 2
    assert shifted_crop(src, Rect(offset[0], offset[1], 961.0, 540.5625), 960, 540) is None


def test_fitted_photo_matches_the_warp_and_leaves_the_source_alone() -> None:
    image = cv2.resize(data.astronaut(), (450, 600))
    src, back = prescale(image, 1.0), np.full((540, 960, 3), 40, np.uint8)
    for i in range(12):  # a slow push-in on a portrait photo fitted in a landscape frame
        h = 700.0 - 6.3 * i
        rect = Rect(-(h * 16 / 9 - 450) / 2 + 0.37 * i, -(h - 600) / 2 + 0.21 * i,
                    h * 16 / 9, h)
        fitted = render_fit(src, rect, back)
        under = back.copy()
        warped = _warped_crop(src, rect, 960, 540)
        x0, y0, x1, y1 = (round(v) for v in photo_box_on_frame(src, rect, 960))
        inside = np.s_[y0 + 1:y1 - 1, x0 + 1:x1 - 1]  # away from the blended edges
        diff = np.abs(fitted[inside].astype(np.int16) - warped[inside])
        assert diff.mean() < 0.4 and diff.max() <= 12  # 1/32 px of an edge, 1.3 px per px
        assert np.array_equal(fitted[:, :max(0, x0 - 1)], under[:, :max(0, x0 - 1)])
    assert np.array_equal(src.image, image)


def test_viewport_matrix_maps_the_rect_onto_the_frame() -> None:
    src = prescale(np.zeros((1000, 2000, 3), np.uint8), 0.5)
    matrix = viewport_matrix(Rect(200.0, 100.0, 960.0, 540.0), src, 1920, 1080)
    left_edge = matrix @ np.array([-0.5, 0.0, 1.0])  # left edge of output pixel 0
    right_edge = matrix @ np.array([1919.5, 0.0, 1.0])
    assert left_edge[0] + 0.5 == pytest.approx(100.0)  # 200 source px * 0.5
    assert right_edge[0] + 0.5 == pytest.approx(580.0)


def test_fitted_photo_has_no_bars() -> None:
    image = np.full((1500, 1000, 3), 220, np.uint8)  # portrait, bright
    subject = find_subject(image)
    motion = plan_ken_burns((1000, 1500), subject, LANDSCAPE, 30)
    assert motion.mode == "fit"
    layer = PhotoLayer(prescale(image, prescale_factor(motion, LANDSCAPE.width)), motion,
                       LANDSCAPE.width, LANDSCAPE.height)
    frame = layer.frame(15)
    assert frame.shape == (1080, 1920, 3)
    assert frame[:, :40].min() > 30  # blurred, darkened photo, not black
    assert frame[:, :40].max() < 200  # darker than the photo itself
    assert frame[540, 960].tolist() == [220, 220, 220]


def test_cover_frame_fills_without_stretching() -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:, 640:] = 255
    out = cover_frame(frame, 540, 960)
    assert out.shape == (960, 540, 3)
    assert out[:, :200].max() == 0 and out[:, -200:].min() == 255
