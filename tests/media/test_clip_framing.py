"""Framing clips like photos: fitted or cropped around the people in them (media.clip_framing)."""

from __future__ import annotations

import numpy as np
import pytest

from media.clip_framing import frame_clip, plan_clip_framing
from media.framing import Box, Subject, keep_whole
from media.spec import LANDSCAPE, PORTRAIT


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
    frame[:, :, 0] = np.linspace(0, 255, 1920, dtype=np.uint8)[:, None]
    out = frame_clip(frame, tall)
    assert out.shape == (LANDSCAPE.height, LANDSCAPE.width, 3)
    column = out[y:y + h, x + w // 2, 0].astype(int)
    assert column[0] < 10 and column[-1] > 245  # the whole clip, edge to edge, inside the frame


def test_face_aware_crop_keeps_the_face_and_social_crops_fuller() -> None:
    face = Box(0.70, 0.25, 0.80, 0.45)
    portrait = plan_clip_framing((1920, 1080), _subject(face), PORTRAIT, keep_min=0.3)
    assert portrait.mode == "crop"  # social 9:16: fuller frame instead of the fitted clip
    x, _, w, h = portrait.box
    assert w / h == pytest.approx(9 / 16, rel=0.01)
    assert x <= 0.70 * 1920 and x + w >= 0.80 * 1920  # the face is inside the crop
    out = frame_clip(np.zeros((1080, 1920, 3), np.uint8), portrait)
    assert out.shape == (1920, 1080, 3)


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
    out = frame_clip(np.full((1080, 1920, 3), 200, np.uint8), framing)
    assert out.shape == (PORTRAIT.height, PORTRAIT.width, 3)
    assert (out[y + h // 2, :, 0] == 200).all()  # the clip covers the whole width


def test_a_scenery_clip_in_9x16_is_cropped_and_a_compact_one_filled() -> None:
    focus = Box(0.1, 0.2, 0.9, 0.8)
    scenery = plan_clip_framing((1920, 1080), Subject((), focus, "saliency", compact=False),
                                PORTRAIT)
    animal = plan_clip_framing((1920, 1080), Subject((), focus, "saliency"), PORTRAIT)
    assert scenery.mode == "crop"
    assert scenery.box[3] == 1080  # the clip's full height: full-bleed
    assert animal.mode == "fit" and animal.box[2] >= PORTRAIT.width  # filled across the width
