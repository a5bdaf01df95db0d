"""A card's frames over a fitted photo under words holding still: the backdrop under the
words and scrim is made once, only the moving print is drawn each frame, and the frames are
those of drawing the whole frame and laying the words over it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from media.analysis.camera import Motion, Rect
from media.base import spec, yuv
from media.cards.draw import render_words_over
from media.cards.motion import words_over_frame
from media.cards.spec import CardSpec
from media.frames.card_shots import PreparedWordsOver
from media.frames.compose import PhotoLayer, prescale_i420

CLOSING = CardSpec("closing", ("With love, from all of us", "Remember the lake house summer"))
SMALL = spec.Aspect("16x9", 480, 270)  # a small frame: the same code, a fast test
FRAMES = 60  # two seconds: the words come in, then hold


def _fitted_layer() -> PhotoLayer:
    """A portrait photo fitted whole into a landscape frame, its print drifting and growing."""
    rng = np.random.default_rng(5)
    photo = cv2.resize(rng.integers(0, 255, (12, 8, 3), dtype=np.uint8), (200, 300),
                       interpolation=cv2.INTER_CUBIC)
    motion = Motion("fit", Rect(-180.0, -20.0, 560.0, 315.0), Rect(-150.0, -10.0, 500.0, 281.25),
                    FRAMES)
    return PhotoLayer(prescale_i420(photo, 1.0), motion, SMALL.width, SMALL.height)


def _card(layer: PhotoLayer) -> PreparedWordsOver:
    behind = yuv.i420_to_rgb(layer.frame(0))
    image = render_words_over(CLOSING, SMALL.width, SMALL.height, behind)
    return PreparedWordsOver({SMALL.name: layer}, {SMALL.name: image}, delay=3, frames=FRAMES)


def test_a_fitted_card_under_held_words_is_the_whole_frame_drawn_and_laid_over() -> None:
    layer = _fitted_layer()
    card, reference = _card(layer), _card(layer)
    image = reference.images[SMALL.name]
    for index in range(FRAMES):
        frame = card.frame(SMALL, index)
        expected = words_over_frame(image, layer.frame(index).copy(), index / spec.FPS,
                                    FRAMES / spec.FPS, 3 / spec.FPS, None)
        assert np.array_equal(frame, expected), index


def test_a_fitted_cards_backdrop_under_held_words_is_made_once_and_only_the_print_drawn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    layer = _fitted_layer()
    card = _card(layer)
    drawn: list[str] = []
    for name in ("draw", "draw_print"):
        original = getattr(PhotoLayer, name)
        monkeypatch.setattr(PhotoLayer, name,
                            lambda self, *a, _f=original, _n=name: drawn.append(_n) or _f(self, *a))
    backs = []
    for index in range(FRAMES):
        card.frame(SMALL, index)
        held = card._held_backs.get(SMALL.name)
        if held is not None:
            backs.append(id(held[1]))
    assert drawn.count("draw_print") >= FRAMES // 3  # the words held once they came in
    assert "draw" in drawn  # while they came in, the whole frame was drawn
    assert len(set(backs)) == 1  # one backdrop under the held words, made once


def test_words_over_a_photo_read_only_the_rows_of_their_ink() -> None:
    from media.cards.draw import words_over_rows

    layer = _fitted_layer()
    behind = yuv.i420_to_rgb(layer.frame(0))
    top, bottom = words_over_rows(CLOSING, SMALL.width, SMALL.height)
    assert 0 < top < bottom < SMALL.height
    banded = np.zeros_like(behind)
    banded[top:bottom] = behind[top:bottom]
    whole = render_words_over(CLOSING, SMALL.width, SMALL.height, behind)
    band = render_words_over(CLOSING, SMALL.width, SMALL.height, banded)
    assert np.array_equal(whole.scrim.gain, band.scrim.gain)
    for ours, theirs in zip(whole.sprites, band.sprites, strict=True):
        assert np.array_equal(ours.ink, theirs.ink) and (ours.x0, ours.y0) == (theirs.x0,
                                                                               theirs.y0)
    assert np.array_equal(whole.base[top:bottom], band.base[top:bottom])
