"""The corpus generator's transforms (:mod:`bench.corpus.transforms`): a labelled face moves
with the pixels it is on. The corpus itself is checked by ``tests/test_corpus.py``."""

from __future__ import annotations

import numpy as np
import pytest

from bench.corpus import transforms as tf
from bench.corpus.sources import labelled_sources, load_source

pytestmark = pytest.mark.bench


def test_a_rotation_keeps_the_core_inside_its_moved_box() -> None:
    picture = load_source(next(s for s in labelled_sources() if s.key.endswith("jesper.jpg")))
    turned = tf.rotate(picture, 25.0)
    core = turned.faces[0].core
    original = picture.faces[0].core
    assert (core[2] - core[0]) > (original[2] - original[0])  # the box of a turned core grows
    centre = ((core[0] + core[2]) / 2, (core[1] + core[3]) / 2)
    width, height = picture.size
    assert np.hypot(centre[0] - width / 2, centre[1] - height / 2) == pytest.approx(np.hypot(
        (original[0] + original[2]) / 2 - width / 2, (original[1] + original[3]) / 2
        - height / 2), rel=1e-6)


def test_quarter_turns_move_the_faces_with_the_pixels() -> None:
    pixels = np.zeros((20, 40, 3), np.uint8)
    pixels[2:6, 30:36] = 255
    face = tf.Face((30, 2, 36, 6), (30, 2, 36, 6))
    turned = tf.turned(tf.Picture(pixels, (face,)), 1)
    x0, y0, x1, y1 = (round(v) for v in turned.faces[0].box)
    assert turned.pixels[y0:y1, x0:x1].min() == 255
