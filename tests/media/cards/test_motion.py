"""Cards move: no static hold over 2 s inside a card, the closing card's words rise and fade in
one after another, and the opening card's first frame is already the finished title; the
film's I420 card frames are the RGB drawing's, converted (media.cards.motion,
media.frames.card_shots.PreparedCard)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from media.base import spec, yuv
from media.cards import draw as draw_module
from media.cards import planes as planes_module
from media.cards import sprites as sprites_module
from media.cards import text as text_module
from media.cards.draw import CardImage, render_card_image, render_words_over
from media.cards.motion import (
    card_frame,
    card_frame_rgb,
    card_motion,
    words_over_frame,
)
from media.cards.planes import FUSED_MAPS, HELD_MAPS, lay_text
from media.cards.spec import CardSpec
from media.design.reading import ALL_IN_S, ENTRANCE_S, TEXT_EXIT_S
from media.frames.card_shots import PreparedCard
from media.frames.compose import cover_frame
from media.frames.sources import load_photo

SAMPLE_PHOTOS = Path(__file__).resolve().parents[2] / "fixtures" / "order" / "photos"

OPENING = CardSpec("opening", ("Happy Birthday", "Sara سارة"))
CLOSING = CardSpec("closing", ("With love, from all of us", "Remember the lake house summer"))
STILL_MAD = 0.35  # mean absolute difference (0-255) below which two frames look the same
GENTLE = CardSpec("opening", ("In Loving Memory", "Chelsea"), gentle=True)
MAX_STILL_S = 2.0


def _photo(width: int, height: int) -> np.ndarray:
    rng = np.random.default_rng(7)
    small = rng.integers(0, 255, (9, 16, 3), dtype=np.uint8)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)


def longest_still_s(frames: list[np.ndarray], fps: float = spec.FPS) -> float:
    """Longest stretch (seconds) over which every frame stays within :data:`STILL_MAD` of the
    stretch's first frame: a hold that looks frozen, even if it creeps by a pixel."""
    longest = start = 0
    for index in range(1, len(frames) + 1):
        if index == len(frames) or np.abs(frames[index].astype(np.int16)
                                          - frames[start]).mean() >= STILL_MAD:
            longest = max(longest, index - start)
            start = index
    return longest / fps


def _prepared_frames(card: CardSpec, delay: int | None, seconds: float,
                     aspect: spec.Aspect) -> list[np.ndarray]:
    image = render_card_image(card, aspect.width, aspect.height,
                              _photo(aspect.width, aspect.height))
    count = round(seconds * spec.FPS)
    prepared = PreparedCard({aspect.name: image}, delay, count)
    return [yuv.i420_to_rgb(prepared.frame(aspect, i)) for i in range(count)]


def _rgb(image: CardImage, seconds: float, length_s: float,
         entrance_at: float | None = None, exit_at: float | None = None) -> np.ndarray:
    """The film's (I420) card frame, looked at in RGB."""
    return yuv.i420_to_rgb(card_frame(image, seconds, length_s, entrance_at, exit_at))


@pytest.mark.render
@pytest.mark.parametrize(("card", "delay"), [(OPENING, None), (CLOSING, 15), (GENTLE, None)])
@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_no_static_hold_over_two_seconds_inside_a_card(card: CardSpec, delay: int | None,
                                                       aspect: spec.Aspect) -> None:
    frames = _prepared_frames(card, delay, 3.6, aspect)
    assert longest_still_s(frames) < MAX_STILL_S


def test_opening_card_first_frame_shows_every_word_of_the_title() -> None:
    image = render_card_image(OPENING, 960, 540, _photo(960, 540))
    placements = card_motion(image, 0.0, 3.4).placements
    words = [i for i, sprite in enumerate(image.sprites) if sprite.line >= 0]
    assert [p.index for p in placements] == words  # settling, but every word already there
    assert all(p.opacity == 1.0 for p in placements)
    first = yuv.i420_to_rgb(card_frame(image, 0.0, 3.4))
    plain = yuv.i420_to_rgb(card_frame(_without_text(image), 0.0, 3.4))
    assert np.abs(first.astype(int) - plain).max() > 100  # the title is drawn on frame 0
    assert first.mean() > 20  # the title over the picture, not black


def test_closing_words_rise_and_fade_in_one_after_another() -> None:
    image = render_card_image(CLOSING, 960, 540, _photo(960, 540))
    before = _rgb(image, 0.5 - 0.01, 3.4, entrance_at=0.5)
    plain = _rgb(_without_text(image), 0.49, 3.4)
    assert np.abs(before.astype(int) - plain).mean() < 0.01  # nothing yet
    words = sorted(image.sprites, key=lambda s: s.order)
    first, last = words[0], words[-1]
    t = 0.5 + ENTRANCE_S * 0.5
    middle = _rgb(image, t, 3.4, entrance_at=0.5)

    def ink(frame: np.ndarray, sprite) -> float:
        h, w = sprite.alpha.shape
        window = frame[sprite.y0:sprite.y0 + h, sprite.x0:sprite.x0 + w].astype(int)
        return float(np.abs(window - plain[sprite.y0:sprite.y0 + h,
                                           sprite.x0:sprite.x0 + w]).mean())

    assert ink(middle, first) > 2 * ink(middle, last) + 0.5  # the first word leads
    done = _rgb(image, 0.5 + ENTRANCE_S + ALL_IN_S + 0.01, 3.4,
                      entrance_at=0.5)
    assert ink(done, last) > 1.0
    # Rising: halfway through its entrance the first word's ink sits lower than at rest.
    rows = np.arange(540)[:, None]
    w = first.alpha.shape[1]

    def ink_row(frame: np.ndarray) -> float:  # over the first word's own rows (and its rise)
        diff = np.abs(frame.astype(int) - plain).sum(axis=2)
        diff[:, : first.x0] = 0
        diff[:, first.x0 + w:] = 0
        diff[: max(0, first.y0 - 2)] = 0
        diff[first.y0 + first.alpha.shape[0] + round(image.rise_px) + 2:] = 0
        return float((rows * diff).sum() / max(diff.sum(), 1))

    settled = _rgb(image, 0.5 + ENTRANCE_S + 0.01, 3.4, entrance_at=0.5)
    early = _rgb(image, 0.5 + ENTRANCE_S * 0.3, 3.4, entrance_at=0.5)
    assert ink_row(early) > ink_row(settled) + 1.0


def _without_text(image: CardImage) -> CardImage:
    return replace(image, sprites=())


def _sample_cards() -> list[tuple[CardSpec, float | None]]:
    """The sample order's two cards (as its timeline words them), the closing one with its
    words coming in half a second after it starts."""
    return [(CardSpec("opening", ("Happy Birthday", "Eileen"), style="gift"), None),
            (CardSpec("closing", ("From all of us at mission control",
                                  "Forty years young and still reaching for the stars."),
                      style="gift"), 0.3)]


@pytest.mark.render
@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_i420_card_frames_are_the_rgb_frames_converted(aspect: spec.Aspect) -> None:
    photo = cover_frame(load_photo(SAMPLE_PHOTOS / "01-astronaut.jpg"), aspect.width,
                        aspect.height)
    logo = np.zeros((100, 300, 4), np.uint8)
    logo[20:80, 20:280] = (240, 200, 40, 255)  # a sharp-edged logo pushes with the backdrop
    length_s = 3.0
    for (card, entrance), background, mark in zip(_sample_cards(), (photo, None),
                                                  (None, logo), strict=True):
        image = render_card_image(card, aspect.width, aspect.height, background, mark)
        for seconds in (0.0, 0.45, 0.7, 1.2, 2.1, length_s):
            native = card_frame(image, seconds, length_s, entrance)
            assert native.shape == yuv.frame_shape(aspect.width, aspect.height)
            assert native.dtype == np.uint8
            reference = yuv.rgb_to_i420(card_frame_rgb(image, seconds, length_s, entrance))
            for plane, want in zip(yuv.planes(native), yuv.planes(reference), strict=True):
                assert yuv.psnr(plane, want) >= 45.0, (card.kind, seconds)


@pytest.mark.render
def test_the_backdrop_push_matches_the_rgb_warp_on_every_frame() -> None:
    # A sharp grey checker of a logo on the backdrop, no words: every frame's push (resized
    # where a whole-pixel origin makes that exact, warped elsewhere) against the RGB warp,
    # converted. A push a tenth of a pixel off fails this.
    rows, cols = np.indices((120, 360)) // 5
    logo = np.full((120, 360, 4), 255, np.uint8)
    logo[..., :3] = np.where(((rows + cols) % 2 == 1)[..., None], 235, 30)
    image = render_card_image(CardSpec("opening", ("", "")), 960, 540, _photo(960, 540), logo)
    assert not image.sprites
    frames = round(3.0 * spec.FPS)
    for index in range(frames):
        seconds = index / spec.FPS
        native = card_frame(image, seconds, 3.0)
        reference = yuv.rgb_to_i420(card_frame_rgb(image, seconds, 3.0))
        for plane, want in zip(yuv.planes(native), yuv.planes(reference), strict=True):
            assert yuv.psnr(plane, want) >= 45.0, index


def test_opening_words_are_gone_before_the_picture_under_them_changes() -> None:
    image = render_card_image(OPENING, 960, 540, _photo(960, 540))
    bare = _without_text(image)
    held_at, gone_at = 3.0 - TEXT_EXIT_S - 0.02, 3.0 - 0.001
    held = _rgb(image, held_at, 3.4, exit_at=3.0)
    gone = _rgb(image, gone_at, 3.4, exit_at=3.0)
    assert np.abs(held.astype(int) - _rgb(bare, held_at, 3.4)).mean() > 1.0  # the whole title
    assert np.abs(gone.astype(int) - _rgb(bare, gone_at, 3.4)).mean() < 0.05  # no word left


@pytest.mark.render
def test_words_holding_over_a_moving_photo_are_the_words_composited_afresh() -> None:
    # words holding still are laid as one map a pixel, made once (the frame loop's cost of a
    # title over its moving photo): the frames are those of compositing every layer each frame
    aspect = spec.LANDSCAPE
    photo = _photo(aspect.width, aspect.height)
    image = render_words_over(CLOSING, aspect.width, aspect.height, photo)
    length_s, frames = 3.0, 45
    for index in range(frames):
        moving = yuv.rgb_to_i420(np.roll(photo, 4 * index, axis=1))
        held = words_over_frame(image, moving, 1.2 + index / spec.FPS, length_s)
        afresh = moving.copy()
        if image.scrim is not None:
            image.scrim.lay(afresh)
        placements = card_motion(image, 1.2 + index / spec.FPS, length_s).placements
        lay_text(yuv.planes(afresh), image.sprites_i420, placements)
        # the scrim and the held words are one uint8 map: each step rounded once, not twice
        assert np.abs(held.astype(np.int16) - afresh).max() <= 2, index
        assert yuv.psnr(held, afresh) >= 50.0, index
    assert image.held[HELD_MAPS][1] is not None  # the words held: laid by their map
    assert image.held[FUSED_MAPS][0] is image.held[HELD_MAPS][1]  # with the scrim, once


def test_a_scrim_and_held_words_are_one_pass_over_the_frame(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # under words holding still the scrim is not laid on its own: one map a pixel does both
    aspect = spec.LANDSCAPE
    photo = _photo(aspect.width, aspect.height)
    image = render_words_over(CLOSING, aspect.width, aspect.height, photo)
    assert image.scrim is not None
    laid: list[int] = []
    original = type(image.scrim).lay_planes
    monkeypatch.setattr(type(image.scrim), "lay_planes",
                        lambda self, planes: laid.append(1) or original(self, planes))
    for index in range(12):
        words_over_frame(image, yuv.rgb_to_i420(np.roll(photo, 4 * index, axis=1)),
                         2.0 + index / spec.FPS, 3.0)
    assert len(laid) == 1  # the first frame at rest composites; from the next, the fused map


def test_held_words_map_a_plane_as_the_float_steps_did() -> None:
    rng = np.random.default_rng(3)
    plane = rng.integers(0, 256, (90, 160), np.uint8)
    scale = rng.random((40, 120), dtype=np.float32)
    offset = (rng.random((40, 120), dtype=np.float32) * 300 - 40).astype(np.float32)
    region = plane[30:70, 20:140].astype(np.float32)
    region *= scale
    region += offset
    expected = plane.copy()
    expected[30:70, 20:140] = cv2.convertScaleAbs(region)
    planes_module._apply_map(plane, ((20, 30, 140, 70), scale, offset))
    assert np.array_equal(plane, expected)


def test_a_cards_words_are_laid_out_and_drawn_once_not_per_frame(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the words never change over a card: their layout is cached per card and size, their
    # sprites drawn once when the card is prepared; the frames only move them
    text_module.layout_card.cache_clear()
    drawn: list[tuple[int, int]] = []
    original = sprites_module.word_sprites
    monkeypatch.setattr(draw_module, "word_sprites",
                        lambda base, *args: drawn.append(base.shape[:2]) or original(base, *args))
    aspect = spec.LANDSCAPE
    photo = _photo(aspect.width, aspect.height)
    image = render_words_over(CLOSING, aspect.width, aspect.height, photo)
    laid_out = text_module.layout_card.cache_info().misses
    for index in range(20):
        words_over_frame(image, yuv.rgb_to_i420(np.roll(photo, index, axis=1)),
                         1.0 + index / spec.FPS, 3.0)
    assert drawn == [(aspect.height, aspect.width)]
    assert text_module.layout_card.cache_info().misses == laid_out
    render_words_over(CLOSING, aspect.width, aspect.height, photo)  # the same words and size
    assert text_module.layout_card.cache_info().misses == laid_out
    portrait = spec.PORTRAIT
    render_words_over(CLOSING, portrait.width, portrait.height,
                      _photo(portrait.width, portrait.height))  # another size: laid out again
    assert text_module.layout_card.cache_info().misses > laid_out
    assert drawn[-1] == (portrait.height, portrait.width)


def _fused_in_float(shape: tuple[int, int], text_map: planes_module.TextMap,
                    scrim: planes_module.ScrimPlane) -> tuple:
    """The scrim and the words' map fused over every pixel in float, as it was first made."""
    keep, letin, (top, bottom) = scrim
    (x0, y0, x1, y1), scale, offset = text_map  # type: ignore[misc]
    lo, hi = min(top, y0), max(bottom, y1)
    gain = np.ones((hi - lo, shape[1]), np.float32)
    light = np.zeros_like(gain)
    gain[top - lo:bottom - lo] = keep / np.float32(255.0)
    light[top - lo:bottom - lo] = letin
    window = np.s_[y0 - lo:y1 - lo, x0:x1]
    gain[window] *= scale
    light[window] = light[window] * scale + offset
    return (lo, hi, np.clip(np.rint(gain * 255.0), 0, 255).astype(np.uint8),
            np.clip(np.rint(light), 0, 255).astype(np.uint8),
            np.clip(np.rint(-light), 0, 255).astype(np.uint8))


def test_a_scrim_fused_with_held_words_is_worked_in_float_only_under_the_words() -> None:
    rng = np.random.default_rng(11)
    shape = (120, 200)
    keep = rng.integers(90, 256, (70, 200), np.uint8)
    letin = rng.integers(0, 30, (70, 200), np.uint8)
    scale = rng.random((50, 90), dtype=np.float32)
    offset = (rng.random((50, 90), dtype=np.float32) * 300 - 40).astype(np.float32)
    for window in ((40, 30, 130, 80), (40, 60, 130, 110), (40, 5, 130, 55)):  # inside, past
        text_map = (window, scale, offset)
        lo, hi, gain, lift, lower = planes_module._fused_map(shape, text_map, (keep, letin,
                                                                               (20, 90)))
        expected = _fused_in_float(shape, text_map, (keep, letin, (20, 90)))
        assert (lo, hi) == expected[:2]
        assert np.array_equal(gain, expected[2]) and np.array_equal(lift, expected[3])
        assert lower is not None and np.array_equal(lower, expected[4])
