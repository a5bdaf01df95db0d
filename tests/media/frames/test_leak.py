"""The signature chorus's warm light over composed frames (media.frames.leak)."""

from __future__ import annotations

import cv2
import numpy as np

from media.base import yuv
from media.design.looks import look, look_names
from media.design.values import parse_hex
from media.frames.leak import LightOverlay, light_shape
from media.plan.montage import LightLeak, light_leak

W, H = 320, 180
LEAK = light_leak(40, 16, (255, 154, 74), 0.8, 0)


def _flat(y: int = 90) -> np.ndarray:
    frame = yuv.black(W, H)
    yuv.planes(frame)[0][:] = y
    return frame


def _photo() -> np.ndarray:
    rng = np.random.default_rng(5)
    rgb = cv2.GaussianBlur(rng.integers(0, 255, (H, W, 3), dtype=np.uint8), (0, 0), 3)
    return yuv.rgb_to_i420(rgb)


def test_the_light_is_a_function_of_the_frame_index_alone() -> None:
    frame = _photo()
    first = LightOverlay([LEAK], W, H)
    second = LightOverlay([LEAK], W, H)  # another segment's render, built on its own
    for index in range(LEAK.start, LEAK.end):
        a = first.apply(frame, index)
        assert np.array_equal(a, second.apply(frame, index))
    backwards = [first.apply(frame, i) for i in reversed(range(LEAK.start, LEAK.end))]
    forwards = [second.apply(frame, i) for i in range(LEAK.start, LEAK.end)]
    assert all(np.array_equal(a, b) for a, b in zip(reversed(backwards), forwards, strict=True))


def test_frames_without_light_are_left_as_they_are() -> None:
    frame = _photo()
    overlay = LightOverlay([LEAK], W, H)
    assert overlay.apply(frame, LEAK.start - 1) is frame
    assert overlay.apply(frame, LEAK.end) is frame
    before = frame.copy()
    overlay.apply(frame, LEAK.peak)
    assert np.array_equal(frame, before)  # never written to


def test_the_light_is_warm_strongest_at_the_cut_and_on_its_side() -> None:
    frame = _flat()
    overlay = LightOverlay([LEAK], W, H)
    lit = overlay.apply(frame, LEAK.peak)
    y, u, v = (p.astype(np.float32) for p in yuv.planes(lit))
    assert y.mean() > 90 + 15  # brighter
    assert v.mean() > 128 + 5 and u.mean() < 128 - 3  # warm: red up, blue down
    assert y[:, : W // 3].mean() > y[:, -W // 3:].mean()  # it enters from the left
    rise = [yuv.planes(overlay.apply(frame, i))[0].mean() for i in range(LEAK.start, LEAK.end)]
    assert int(np.argmax(rise)) + LEAK.start in (LEAK.peak - 1, LEAK.peak, LEAK.peak + 1)
    mirrored = LightOverlay([LightLeak(LEAK.start, LEAK.peak, LEAK.end, LEAK.colour,
                                       LEAK.strength, -1)], W, H).apply(frame, LEAK.peak)
    my = yuv.planes(mirrored)[0].astype(np.float32)
    assert my[:, -W // 3:].mean() > my[:, : W // 3].mean()


def test_whites_stay_in_range_and_the_light_does_not_band() -> None:
    white = _flat(235)
    lit = LightOverlay([LEAK], W, H).apply(white, LEAK.peak)
    assert yuv.planes(lit)[0].max() <= 237  # screened: no clipping past white (dither +-1.5)
    flat = LightOverlay([LEAK], W, H).apply(_flat(60), LEAK.peak)
    luma = yuv.planes(flat)[0].astype(np.float32)
    smooth = cv2.blur(luma, (9, 9))
    noise = luma - smooth
    assert 0.3 < float(noise[8:-8, 8:-8].std()) < 1.5  # dithered: no flat steps of one level
    shape = light_shape(LEAK, LEAK.peak, W, H)
    assert float(np.abs(np.diff(shape, axis=1)).max()) < 0.1  # a smooth field, no edges


def test_each_looks_chorus_light_reads_on_a_phone() -> None:
    """The light a look asks for over its chorus's downbeat lasts at least 0.8 s (the plan
    fits it into the dissolve there when the montage's pieces are shorter) and, at its peak on
    a mid-grey picture seen 390 pixels across, brightens it by a tenth and turns it warm."""
    for name in look_names():
        montage = look(name).montage
        if not montage.beats or not montage.light_s:
            continue
        frames = round(montage.light_s * 30 / 2) * 2
        leak = light_leak(60, frames, parse_hex(montage.light_colour), montage.light_strength,
                          0)
        assert leak.end - leak.start >= 0.8 * 30, name
        lit = LightOverlay([leak], 1080, 1920).apply(
            yuv.rgb_to_i420(np.full((1920, 1080, 3), 110, np.uint8)), leak.peak)
        phone = cv2.resize(yuv.i420_to_rgb(lit), (390, 693), interpolation=cv2.INTER_AREA)
        rgb = phone.reshape(-1, 3).astype(np.float32).mean(axis=0)
        assert rgb.mean() > 1.1 * 110, name
        assert rgb[0] - rgb[2] > 15, name
