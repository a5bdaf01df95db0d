"""The frame signal the render records for verify: black and still runs as blackdetect and
freezedetect would find them, holds measured once, segments joined, stored and read back."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from media.base import yuv
from media.frames.signal import FREEZE_NOISE, FrameSignal, SignalRecorder, joined

FPS = 30
CANYON = Path(__file__).resolve().parents[3] / "samples" / "anniversary" / "photos" / \
    "02-grand-canyon.jpg"
WIDTH, HEIGHT = 320, 180


def picture(seed: int) -> np.ndarray:
    """A distinct, detailed I420 picture."""
    return np.random.default_rng(seed).integers(16, 236, yuv.frame_shape(WIDTH, HEIGHT),
                                                dtype=np.uint8)


def recorded(frames: list[np.ndarray]) -> FrameSignal:
    recorder = SignalRecorder()
    for frame in frames:
        recorder.add(frame)
    return recorder.result()


def moving(count: int, first_seed: int = 0) -> list[np.ndarray]:
    return [picture(first_seed + i) for i in range(count)]


def test_black_run_of_a_second_is_found_where_it_is() -> None:
    black = yuv.black(WIDTH, HEIGHT)
    frames = moving(30) + [black.copy() for _ in range(30)] + moving(30, 100)
    assert recorded(frames).black_intervals(FPS) == [(1.0, 2.0)]


def test_black_shorter_than_blackdetects_minimum_is_not_a_run() -> None:
    frames = moving(30) + [yuv.black(WIDTH, HEIGHT)] * 5 + moving(30, 100)
    assert recorded(frames).black_intervals(FPS) == []


def test_a_picture_held_for_three_seconds_is_one_still_run_from_its_first_frame() -> None:
    held = picture(7)
    frames = moving(30) + [held.copy() for _ in range(90)] + moving(30, 100)
    assert recorded(frames).frozen_intervals(FPS, 2.0) == [(1.0, 4.0)]


def test_a_slow_change_above_the_noise_is_not_still() -> None:
    base = picture(3).astype(np.int16)
    step = 2 * FREEZE_NOISE * 255  # each frame a little brighter than the still tolerance
    frames = [np.clip(base + round(i * step), 0, 255).astype(np.uint8) for i in range(90)]
    assert recorded(frames).frozen_intervals(FPS, 1.0) == []


def test_a_small_print_moving_under_held_words_is_not_a_frozen_picture() -> None:
    # a closing card: a flat ground, and a print 240 px wide pulling in by 5 % in 4 s; the
    # frame's mean moves by less than the still tolerance in those 4 s, a viewer sees it move
    photo = cv2.imread(str(CANYON), cv2.IMREAD_GRAYSCALE)
    frames = []
    for i in range(150):
        zoom = 1 + 0.05 * i / 120
        w, h = round(240 * zoom), round(180 * zoom)
        frame = np.full(yuv.frame_shape(1920, 1080), 60, np.uint8)
        yuv.luma_rows(frame)[300 - h // 2:300 - h // 2 + h, 960 - w // 2:960 - w // 2 + w] = (
            cv2.resize(photo, (w, h), interpolation=cv2.INTER_AREA))
        frames.append(frame)
    assert recorded(frames).frozen_intervals(FPS, 1.0) == []


def test_a_still_picture_with_a_speck_flickering_is_still_frozen() -> None:
    # a stuck frame whose only change is a few pixels (less than the moving share): frozen
    base = np.random.default_rng(4).integers(16, 236, yuv.frame_shape(1920, 1080),
                                             dtype=np.uint8)
    frames = []
    for i in range(90):
        frame = base.copy()
        yuv.luma_rows(frame)[4:20:8, 4:244:8] += np.uint8(10 * (i % 2))  # 60 samples: 0.19 %
        frames.append(frame)
    assert recorded(frames).frozen_intervals(FPS, 2.0) == [(0.0, 3.0)]


def test_a_hold_returning_the_same_array_is_measured_as_the_same_frame() -> None:
    held = picture(1)
    signal = recorded([held] * 60)
    assert signal.frames == 60
    assert (signal.reference == 0).all()
    assert (signal.fingerprints == signal.fingerprints[0]).all()


def test_fingerprint_is_a_coarse_block_layout_of_the_luma() -> None:
    frame = yuv.black(1920, 1080)
    yuv.luma_rows(frame)[:, :960] = 200  # left half bright
    prints = recorded([frame]).fingerprints[0]
    assert prints.shape == (9, 16)
    assert (prints[:, :8] == 200).all() and (prints[:, 8:] == 16).all()


def test_segments_joined_equal_the_whole_film_recorded_at_once() -> None:
    held = picture(9)
    frames = moving(20) + [held.copy() for _ in range(100)] + moving(20, 50)
    whole = recorded(frames)
    parts = joined([recorded(frames[:70]), recorded(frames[70:100]), recorded(frames[100:])])
    assert parts.frames == whole.frames
    np.testing.assert_array_equal(parts.reference, whole.reference)
    np.testing.assert_array_equal(parts.fingerprints, whole.fingerprints)
    assert parts.frozen_intervals(FPS, 2.0) == whole.frozen_intervals(FPS, 2.0) == [
        (20 / FPS, 120 / FPS)]


def test_a_cut_between_different_pictures_starts_a_new_run() -> None:
    parts = joined([recorded([picture(1)] * 10), recorded([picture(2)] * 10)])
    assert list(parts.reference) == [0] * 10 + [10] * 10


def test_stored_signal_reads_back_the_same() -> None:
    signal = recorded(moving(10) + [picture(5)] * 10)
    again = FrameSignal.from_bytes(signal.to_bytes())
    for name in ("black", "reference", "fingerprints", "head", "tail_reference"):
        np.testing.assert_array_equal(getattr(again, name), getattr(signal, name))


@pytest.mark.parametrize("data", [b"", b"not an npz", b"PK\x03\x04" + bytes(40)])
def test_bytes_that_are_not_a_signal_are_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        FrameSignal.from_bytes(data)


def test_no_frames_no_signal() -> None:
    with pytest.raises(ValueError):
        SignalRecorder().result()
