"""Framing clips like photos: fitted or cropped around the people in them
(media.frames.clip_framing)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from skimage import data

from media.analysis.subjects import Box, Subject, keep_whole
from media.base import yuv
from media.base.spec import LANDSCAPE, PORTRAIT
from media.frames.clip_framing import (
    ClipFraming,
    clip_backdrop,
    cover_framing,
    fit_box,
    frame_clip,
    plan_clip_framing,
)


def _subject(*faces: Box) -> Subject:
    focus = faces[0] if faces else Box(0.4, 0.4, 0.6, 0.6)
    return Subject(faces, focus, "faces" if faces else "saliency")


def test_a_tall_clip_is_fitted_whole_in_16x9_and_a_wide_group_cropped() -> None:
    subject = _subject(Box(0.10, 0.3, 0.2, 0.5), Box(0.8, 0.3, 0.9, 0.5))  # two people apart
    tall = plan_clip_framing((1080, 1920), _subject(Box(0.4, 0.3, 0.6, 0.4)), LANDSCAPE)
    landscape = plan_clip_framing((1920, 1080), subject, LANDSCAPE)
    assert tall.mode == "fit" and landscape.mode == "crop"
    x, y, w, h = tall.box
    assert h == LANDSCAPE.height - 2 * round(0.06 * 1080) and y > 0 and x > LANDSCAPE.width // 4
    frame = np.zeros((1920, 1080, 3), np.uint8)
    frame[:] = np.linspace(0, 255, 1920, dtype=np.uint8)[:, None, None]  # black to white
    out = frame_clip(yuv.rgb_to_i420(frame), tall)
    assert out.shape == yuv.frame_shape(LANDSCAPE.width, LANDSCAPE.height)
    column = yuv.planes(out)[0][y:y + h, x + w // 2].astype(int)
    assert column[0] < 26 and column[-1] > 225  # the whole clip, edge to edge, inside the frame


def test_face_aware_crop_keeps_the_face_and_social_crops_fuller() -> None:
    face = Box(0.70, 0.25, 0.80, 0.45)
    portrait = plan_clip_framing((1920, 1080), _subject(face), PORTRAIT, keep_min=0.3)
    assert portrait.mode == "crop"  # social 9:16: fuller frame instead of the fitted clip
    x, _, w, h = portrait.box
    assert w / h == pytest.approx(9 / 16, rel=0.01)
    assert x <= 0.70 * 1920 and x + w >= 0.80 * 1920  # the face is inside the crop
    out = frame_clip(yuv.black(1920, 1080), portrait)
    assert out.shape == yuv.frame_shape(1080, 1920)


def test_a_pet_clip_in_9x16_keeps_the_core_of_the_salient_animal() -> None:
    animal = Subject((), Box(0.25, 0.2, 0.7, 0.8), "saliency")  # a cat, no human face
    core = keep_whole(animal).faces[0]  # its central 60%: the eyes of a close-up
    framing = plan_clip_framing((720, 540), animal, PORTRAIT)
    x, _, w, h = framing.box
    if framing.mode == "crop":
        assert x <= core.x0 * 720 and x + w >= core.x1 * 720
    else:  # filled: the clip spans the frame's width, the animal's core inside it
        k = w / 720
        assert x + core.x0 * 720 * k >= 0 and x + core.x1 * 720 * k <= PORTRAIT.width
        assert h > 0.5 * PORTRAIT.height


def test_a_wide_group_clip_fills_the_9x16_width_with_every_face_in() -> None:
    subject = _subject(Box(0.10, 0.3, 0.2, 0.5), Box(0.8, 0.3, 0.9, 0.5))
    framing = plan_clip_framing((1920, 1080), subject, PORTRAIT)
    x, y, w, h = framing.box
    assert framing.mode == "fit" and x <= 0 and x + w >= PORTRAIT.width
    k = w / 1920
    assert x + 0.10 * 1920 * k >= 0 and x + 0.9 * 1920 * k <= PORTRAIT.width
    clip = yuv.rgb_to_i420(np.full((1080, 1920, 3), 200, np.uint8))
    out = frame_clip(clip, framing)
    assert out.shape == yuv.frame_shape(PORTRAIT.width, PORTRAIT.height)
    assert (yuv.planes(out)[0][y + h // 2, :] == yuv.planes(clip)[0][0, 0]).all()  # full width


def _astronaut_clip(width: int, height: int) -> np.ndarray:
    return cv2.resize(data.astronaut(), (width, height))


@pytest.mark.parametrize("box", [(100, 0, 405, 720), (101, 1, 405, 719), (321, 0, 1280, 720)],
                         ids=["even", "odd", "down"])
def test_a_clip_crop_in_i420_equals_the_rgb_crop_converted(
        box: tuple[int, int, int, int]) -> None:
    rgb = _astronaut_clip(1920, 1080) if box[2] > 1000 else _astronaut_clip(1280, 720)
    x, y, w, h = box
    out_w, out_h = (540, 960) if box[2] > 1000 else (1080, 1920)
    framed = frame_clip(yuv.rgb_to_i420(rgb), ClipFraming("crop", box, out_w, out_h))
    interp = cv2.INTER_AREA if w > out_w * 1.02 else cv2.INTER_LINEAR
    expected = yuv.rgb_to_i420(cv2.resize(rgb[y:y + h, x:x + w], (out_w, out_h),
                                          interpolation=interp))
    for a, b in zip(yuv.planes(framed), yuv.planes(expected), strict=True):
        assert yuv.psnr(a, b) >= 40


def test_a_clip_without_a_subject_is_covered_around_its_centre() -> None:
    framing = cover_framing((1280, 720), PORTRAIT)
    assert framing.mode == "crop" and framing.box == (437, 0, 405, 720)
    rgb = _astronaut_clip(1280, 720)
    framed = frame_clip(yuv.rgb_to_i420(rgb), framing)
    expected = yuv.rgb_to_i420(cv2.resize(rgb[:, 437:842], (1080, 1920)))
    assert yuv.psnr(yuv.planes(framed)[0], yuv.planes(expected)[0]) >= 45


def test_a_fitted_clip_with_an_odd_box_keeps_its_chroma_on_its_luma() -> None:
    rgb = np.zeros((720, 1280, 3), np.uint8)
    rgb[:, 640:] = (220, 40, 40)  # red right half: its edge must sit in the same place in U, V
    framing = ClipFraming("fit", (101, 301, 879, 495), 1080, 1920)
    out = yuv.i420_to_rgb(frame_clip(yuv.rgb_to_i420(rgb), framing))
    row = out[301 + 495 // 2].astype(int)
    edge = 101 + 879 / 2  # where the red half starts on the frame
    assert row[round(edge) + 3, 0] > 180 and row[round(edge) - 4, 0] < 40
    assert row[round(edge) + 3, 2] < 70  # chroma (red) lands with the luma, not shifted


def test_a_scenery_clip_in_9x16_is_cropped_and_a_compact_one_filled() -> None:
    focus = Box(0.1, 0.2, 0.9, 0.8)
    scenery = plan_clip_framing((1920, 1080), Subject((), focus, "saliency", compact=False),
                                PORTRAIT)
    animal = plan_clip_framing((1920, 1080), Subject((), focus, "saliency"), PORTRAIT)
    assert scenery.mode == "crop"
    assert scenery.box[3] == 1080  # the clip's full height: full-bleed
    assert animal.mode == "fit" and animal.box[2] >= PORTRAIT.width  # filled across the width


def test_a_tiny_4x3_clip_fills_16x9_and_stays_letterboxed_in_9x16() -> None:
    # the birthday's 160x120 webcam clip was a print 66 % of the 16:9 frame over its blur: as
    # soft fitted (7.9x) as filled (12x), so it fills; 9:16 would magnify it 2.7x its fitted
    # size and shows it whole across the frame, as a phone shows a landscape video held upright
    face = _subject(Box(0.35, 0.15, 0.65, 0.6))
    wide = plan_clip_framing((160, 120), face, LANDSCAPE)
    assert wide.mode == "crop"
    x, y, w, h = wide.box
    assert x <= 0.35 * 160 and x + w >= 0.65 * 160 and y <= 0.15 * 120 and y + h >= 0.6 * 120
    tall = plan_clip_framing((160, 120), face, PORTRAIT)
    assert tall.mode == "fit" and tall.box[2] > 0.85 * PORTRAIT.width


def test_a_wide_clip_filling_the_9x16_width_scales_only_what_shows() -> None:
    # the clip at three times its size, cut at the frame's sides: the same pixels as scaling
    # all of it and cutting, for a third of the work
    clip = yuv.rgb_to_i420(_astronaut_clip(960, 540))
    framing = ClipFraming("fit", (-900, 150, 2880, 1620), 1080, 1920)
    back = yuv.black(1080, 1920)
    framed = frame_clip(clip, framing, back)
    expected = back.copy()
    for k, plane, dst in zip((1.0, 0.5, 0.5), yuv.planes(clip), yuv.planes(expected),
                             strict=True):
        x, y, w, h = (round(v * k) for v in framing.box)
        whole = cv2.resize(plane, (w, h), interpolation=cv2.INTER_LINEAR)
        dst[y:y + h] = whole[:, -x:-x + dst.shape[1]]
    assert np.abs(framed.astype(np.int16) - expected).max() <= 1
    assert yuv.psnr(framed, expected) >= 55.0


def test_a_fitted_clip_is_drawn_over_the_backdrop_it_is_given_untouched() -> None:
    clip = yuv.rgb_to_i420(_astronaut_clip(480, 640))
    framing = ClipFraming("fit", fit_box(480, 640, LANDSCAPE.width, LANDSCAPE.height),
                          LANDSCAPE.width, LANDSCAPE.height)
    back = clip_backdrop(clip, framing)
    kept = back.copy()
    assert np.array_equal(frame_clip(clip, framing, back), frame_clip(clip, framing))
    assert np.array_equal(back, kept)
