"""The film's colour grade (media.frames.grade): gentle films are softer, warmer, less saturated."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image
from skimage import data

from media.base import spec, yuv
from media.cards.spec import CardSpec
from media.frames.grade import GRADES, apply_grade, grade_named
from media.frames.sources import SourcePreparer
from media.look.arc import look
from media.plan.inputs import PhotoSource
from media.plan.timeline import plan_timeline


def _contrast(image: np.ndarray) -> float:
    luma = image.astype(np.float32) @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)
    return float(luma.std())


def test_a_gentle_grade_is_softer_warmer_and_less_saturated() -> None:
    photo = data.coffee()
    graded = apply_grade(photo, grade_named("gentle"))
    assert graded.shape == photo.shape and graded.dtype == np.uint8
    saturation, graded_saturation = look(photo)[2], look(graded)[2]
    assert graded_saturation < 0.9 * saturation
    grey = np.dstack([np.tile(np.linspace(0, 255, 256, dtype=np.uint8), (16, 1))] * 3)
    warmed = apply_grade(grey, grade_named("gentle")).astype(int)
    assert (warmed[..., 0] >= warmed[..., 2]).all()  # neutral tones turn warm
    assert (warmed[:, 64:192, 0] - warmed[:, 64:192, 2]).mean() > 8
    assert _contrast(graded) < 0.92 * _contrast(photo)
    assert graded.min() >= 8  # blacks lifted, never crushed


def test_the_natural_grade_leaves_pictures_untouched() -> None:
    photo = data.astronaut()
    assert apply_grade(photo, GRADES["natural"]) is photo
    assert grade_named("unknown") == GRADES["natural"]


def test_a_gentle_film_grades_its_photos(tmp_path: Path) -> None:
    photo = data.coffee()
    Image.fromarray(photo).save(tmp_path / "a.png")
    timelines = {}
    for gentle in (False, True):
        timelines[gentle] = plan_timeline(
            [PhotoSource("a", tmp_path / "a.png", 600, 400, False)], [],
            [i * 0.5 for i in range(40)], 12.0, CardSpec("opening", ("Hi",)),
            CardSpec("closing", ("Bye",)), motion_shots=1, gentle=gentle, style="gift",
            subject_photo_id="a")
    frames = {}
    for gentle, tl in timelines.items():
        index = next(i for i, s in enumerate(tl.shots) if s.kind == "photo")
        preparer = SourcePreparer(tl, (spec.LANDSCAPE,), {"a": tmp_path / "a.png"}, {},
                                  deadline=1e12)
        frames[gentle] = yuv.i420_to_rgb(preparer.prepare(index).frame(spec.LANDSCAPE, 0))
    assert look(frames[True])[2] < 0.9 * look(frames[False])[2]
