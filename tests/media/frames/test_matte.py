"""The parallax matte (media.frames.matte) on a face close-up: a face that fills its photo leaves
GrabCut no background to learn from; the photo gets no parallax, with the reason, and nothing
raises."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from skimage import data

from media.analysis.subjects import Box, Subject
from media.frames.matte import matte_cut
from media.frames.parallax import matte_score, separate_subject


def _face_close_up() -> np.ndarray:
    """The astronaut's face filling a phone-sized photo."""
    face = data.astronaut()[60:230, 150:300]
    return cv2.resize(face, (900, 1020), interpolation=cv2.INTER_CUBIC)


@pytest.mark.parametrize("face", [
    Box(0.07, 0.17, 0.93, 0.82),  # as the corpus's close-up of a face was found (a crash before)
    Box(0.0, 0.0, 1.0, 1.0),
    Box(-0.1, -0.05, 1.1, 1.05),  # a face running off the photo's edges
], ids=["detected", "whole_photo", "beyond_the_edges"])
def test_a_face_filling_its_photo_gets_no_parallax_and_the_reason(face: Box) -> None:
    photo, subject = _face_close_up(), Subject(faces=(face,), focus=face, source="faces")

    piece, verdict = matte_cut(photo, subject)
    layers, separated = separate_subject(photo, subject)

    assert piece is None and layers is None
    assert not verdict.ok and "no background" in verdict.reason
    assert separated.reason == verdict.reason
    assert matte_score(photo, subject) == 0.0
