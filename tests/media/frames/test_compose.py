"""Photo composition: sub-pixel crops, fitted photos, covers, and shots blended by weight
(media.frames.compose)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from skimage import data

from media.analysis.camera import Rect
from media.analysis.framing import plan_ken_burns
from media.analysis.subjects import find_subject
from media.base import yuv
from media.base.spec import LANDSCAPE
from media.frames.blend import incoming_weight, mix, outgoing_weight
from media.frames.compose import (
    BACKDROP_BLUR,
    BACKDROP_DOWNSCALE,
    PhotoLayer,
    Prescaled,
    _wash,
    backdrop,
    backdrop_i420,
    cover_box,
    cover_frame,
    photo_box_on_frame,
    prescale,
    prescale_factor,
    prescale_i420,
    render_crop,
    render_crop_i420,
    render_fit,
    render_fit_i420,
    resize_crop,
    shifted_crop,
    viewport_matrix,
)
from media.plan.timeline import Transition
from media.plan.transitions import CROSSFADE


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
    layer = PhotoLayer(prescale_i420(image, prescale_factor(motion, LANDSCAPE.width)), motion,
                       LANDSCAPE.width, LANDSCAPE.height)
    i420 = layer.frame(15)
    assert i420.shape == yuv.frame_shape(1920, 1080)
    frame = yuv.i420_to_rgb(i420)
    assert frame[:, :40].min() > 30  # blurred, darkened photo, not black
    assert frame[:, :40].max() < 200  # darker than the photo itself
    assert np.abs(frame[540, 960].astype(int) - 220).max() <= 1


@pytest.mark.render
def test_a_held_viewport_returns_the_same_frame_without_composing_again() -> None:
    image = cv2.resize(data.astronaut(), (1200, 900))
    motion = plan_ken_burns((1200, 900), find_subject(image), LANDSCAPE, 20)
    layer = PhotoLayer(prescale_i420(image, prescale_factor(motion, LANDSCAPE.width)), motion,
                       LANDSCAPE.width, LANDSCAPE.height)
    last = layer.frame(19)
    assert layer.frame(25) is last  # past the move's end the viewport holds
    assert layer.frame(18) is not last


def _plane_psnrs(a: np.ndarray, b: np.ndarray) -> list[float]:
    return [yuv.psnr(pa, pb) for pa, pb in zip(yuv.planes(a), yuv.planes(b), strict=True)]


@pytest.mark.parametrize("rect", [
    Rect(60.37, 80.61, 1000.0, 562.5),  # a zoom: one resize per plane
    Rect(10.5, 7.25, 960.0, 540.0),  # 1:1: a sub-pixel shift
    Rect(-3.4, 20.0, 940.0, 528.75),  # reaching past the left edge
    Rect(100.3, 50.9, 517.3, 290.98),  # magnified ~1.86x
], ids=["zoom", "one-to-one", "past-left", "magnified"])
def test_a_photo_crop_in_i420_equals_the_rgb_crop_converted(rect: Rect) -> None:
    image = cv2.resize(data.astronaut(), (1200, 900))
    planar = render_crop_i420(prescale_i420(image, 1.0), rect, 960, 540)
    converted = yuv.rgb_to_i420(render_crop(prescale(image, 1.0), rect, 960, 540))
    assert planar.shape == yuv.frame_shape(960, 540)
    assert min(_plane_psnrs(planar, converted)) >= 45


def test_a_prescaled_photo_crop_in_i420_equals_the_rgb_crop_converted() -> None:
    image = cv2.resize(data.astronaut(), (2401, 1801))  # odd sizes: chroma rounds up
    rect = Rect(300.2, 250.7, 1600.0, 900.0)
    planar = render_crop_i420(prescale_i420(image, 0.6), rect, 960, 540)
    converted = yuv.rgb_to_i420(render_crop(prescale(image, 0.6), rect, 960, 540))
    assert min(_plane_psnrs(planar, converted)) >= 45


def test_a_fitted_photo_in_i420_equals_the_rgb_fit_converted() -> None:
    image = cv2.resize(data.astronaut(), (450, 600))
    rect = Rect(-(700 * 16 / 9 - 450) / 2 + 0.37, -50.21, 700 * 16 / 9, 700.0)
    box = photo_box_on_frame(prescale(image, 1.0), rect, 960)
    back_rgb = backdrop(image, 960, 540, box)
    back = backdrop_i420(yuv.rgb_to_planes(image), 960, 540, box)
    assert min(_plane_psnrs(back, yuv.rgb_to_i420(back_rgb))) >= 40  # smooth: rounding only
    planar = render_fit_i420(prescale_i420(image, 1.0), rect, back)
    converted = yuv.rgb_to_i420(render_fit(prescale(image, 1.0), rect, back_rgb))
    assert min(_plane_psnrs(planar, converted)) >= 40


def test_a_fitted_close_ups_backdrop_is_a_wash_of_its_colours_with_no_face_in_it() -> None:
    close_up = cv2.resize(data.astronaut(), (600, 600))
    back = backdrop(close_up, 1080, 1920).astype(np.float32)
    features = back - cv2.GaussianBlur(back, (0, 0), 1080 / 24)  # what an eye or mouth makes
    assert np.abs(features).max() < 12  # a blurred copy that still shows the face: 47 levels
    assert back.std() > 15  # still the photo's colours, not a flat ground


def test_cover_frame_fills_without_stretching() -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:, 640:] = 255
    out = cover_frame(frame, 540, 960)
    assert out.shape == (960, 540, 3)
    assert out[:, :200].max() == 0 and out[:, -200:].min() == 255


def test_cover_box_is_the_centred_crop_with_the_frames_ratio() -> None:
    assert cover_box(1920, 1080, 1080, 1920) == (656, 0, 608, 1080)
    assert cover_box(1000, 1000, 1920, 1080) == (0, 219, 1000, 562)


def _solid(rgb: tuple[int, int, int]) -> np.ndarray:
    return yuv.rgb_to_i420(np.full((4, 6, 3), rgb, np.uint8))


def test_weights_blend_the_shots_and_the_rest_is_black() -> None:
    red, blue = _solid((200, 0, 0)), _solid((0, 0, 100))

    def near(frame: np.ndarray, rgb: tuple[int, int, int]) -> bool:
        return bool(np.abs(frame.astype(int) - _solid(rgb)).max() <= 1)

    assert np.array_equal(mix([], 6, 4), yuv.black(6, 4))
    assert mix([(red, 1.0)], 6, 4) is red  # a single full layer is passed through
    assert near(mix([(red, 0.5)], 6, 4), (100, 0, 0))
    assert near(mix([(red, 0.5), (blue, 0.5)], 6, 4), (100, 0, 50))
    assert near(mix([(red, 0.5), (blue, 0.25)], 6, 4), (100, 0, 25))
    assert near(mix([(red, 0.25), (blue, 0.5), (red, 0.25)], 6, 4), (100, 0, 50))


def test_a_fade_reaches_limited_range_black() -> None:
    white = _solid((255, 255, 255))
    y, u, v = yuv.planes(white)
    assert y.min() == 235  # limited-range white
    for weight in (0.5, 0.1, 0.01, 0.0):
        faded_y, faded_u, faded_v = yuv.planes(mix([(white, weight)], 6, 4))
        assert faded_y.max() == round(16 + 219 * weight)  # toward Y 16, not toward 0
        assert faded_u.tolist() == u.tolist() and faded_v.tolist() == v.tolist()  # 128 stays
    assert np.array_equal(mix([(white, 0.0)], 6, 4), yuv.black(6, 4))


def test_a_crossfade_hands_over_evenly_around_the_cut() -> None:
    fade = Transition(CROSSFADE, 10)
    for frame in range(95, 105):
        total = incoming_weight(fade, 100, frame) + outgoing_weight(fade, 100, frame)
        assert total == pytest.approx(1.0)
    assert incoming_weight(fade, 100, 94) == 0.0 and outgoing_weight(fade, 100, 105) == 0.0


def test_a_backdrops_blur_run_smaller_is_the_wash_blurred_at_its_small_size() -> None:
    # the backdrop's blur runs at half its small size (a fitted clip blurs one every frame):
    # what is left after a blur of 11 pixels or more has nothing finer than that grid
    image = cv2.resize(data.astronaut(), (960, 540))
    for out_w, out_h in ((1080, 1920), (1920, 1080)):
        sw, sh = out_w // BACKDROP_DOWNSCALE, out_h // BACKDROP_DOWNSCALE
        small = cover_frame(image, sw, sh).astype(np.float32)
        full = cv2.GaussianBlur(small, (0, 0), sigmaX=sw * BACKDROP_BLUR)
        assert yuv.psnr(np.clip(full + 0.5, 0, 255).astype(np.uint8),
                        np.clip(_wash(small) + 0.5, 0, 255).astype(np.uint8)) >= 50
