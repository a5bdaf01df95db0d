"""Framing clips like photos: fitted or cropped around the people in them (media.clip_framing)."""

from __future__ import annotations

import numpy as np
import pytest

from media.clip_framing import frame_clip, plan_clip_framing
from media.framing import Box, Subject
from media.spec import LANDSCAPE, PORTRAIT


def _subject(*faces: Box) -> Subject:
    focus = faces[0] if faces else Box(0.4, 0.4, 0.6, 0.6)
    return Subject(faces, focus, "faces" if faces else "saliency")


def test_landscape_clip_is_fitted_in_9x16_and_cropped_in_16x9() -> None:
    subject = _subject(Box(0.10, 0.3, 0.2, 0.5), Box(0.8, 0.3, 0.9, 0.5))  # two people apart
    portrait = plan_clip_framing((1920, 1080), subject, PORTRAIT)
    landscape = plan_clip_framing((1920, 1080), subject, LANDSCAPE)
    assert portrait.mode == "fit" and landscape.mode == "crop"
    x, y, w, h = portrait.box
    assert w == PORTRAIT.width - 2 * round(0.06 * 1080) and x > 0 and y > PORTRAIT.height // 4
    frame = np.zeros((1080, 1920, 3), np.uint8)
    frame[:, :, 0] = np.linspace(0, 255, 1920, dtype=np.uint8)[None, :]
    out = frame_clip(frame, portrait)
    assert out.shape == (PORTRAIT.height, PORTRAIT.width, 3)
    row = out[y + h // 2, x:x + w, 0].astype(int)
    assert row[0] < 10 and row[-1] > 245  # the whole clip, edge to edge, inside the frame


def test_face_aware_crop_keeps_the_face_and_social_crops_fuller() -> None:
    face = Box(0.70, 0.25, 0.80, 0.45)
    portrait = plan_clip_framing((1920, 1080), _subject(face), PORTRAIT, keep_min=0.3)
    assert portrait.mode == "crop"  # social 9:16: fuller frame instead of the fitted clip
    x, _, w, h = portrait.box
    assert w / h == pytest.approx(9 / 16, rel=0.01)
    assert x <= 0.70 * 1920 and x + w >= 0.80 * 1920  # the face is inside the crop
    out = frame_clip(np.zeros((1080, 1920, 3), np.uint8), portrait)
    assert out.shape == (1920, 1080, 3)
