"""What every composed frame looked like, measured as the render composes it.

The verify stage must find black and frozen stretches in the delivered films. Decoding both
films again to find them costs a good share of their encode, so the render measures the
frames it composes instead, at almost no cost (:class:`SignalRecorder`, a luma sample of every
8th pixel in each direction), and keeps per frame:

- the share of black pixels (``blackdetect``'s test: luma at most :data:`BLACK_LUMA`);
- which earlier frame it is still the same as (``freezedetect``'s test: the mean absolute
  difference to the first frame of a still run, within :data:`FREEZE_NOISE` of full scale;
  and, unlike freezedetect, no visible change in more than :data:`MOVING_SHARE` of it, so a
  small print moving under held words is not a frozen picture);
- a 16 x 9 fingerprint (block means of the sample) to check the encoded film against.

Verify then reads the intervals from :class:`FrameSignal` and checks that the film really is
the encode of these frames by decoding its keyframes alone and comparing their fingerprints
(:func:`media.deliver.verify.verify_film`). Segments of one film each record their own signal;
:func:`joined` puts them together in order.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from media.base import yuv

BLACK_PIXEL_THRESHOLD = 0.10
"""A pixel is black at luma up to this share of the limited range above 16 (blackdetect's
``pix_th``)."""
BLACK_LUMA = yuv.BLACK_Y + BLACK_PIXEL_THRESHOLD * (235 - yuv.BLACK_Y)
BLACK_PICTURE_RATIO = 0.98
"""A picture is black when at least this share of its pixels is (blackdetect's ``pic_th``)."""
MIN_BLACK_S = 0.2
"""Black runs shorter than this are not reported (blackdetect's ``d``)."""
FREEZE_NOISE = 0.002
"""Still tolerance (mean absolute difference, share of full scale; about -54 dB;
freezedetect's ``n``). A truly still picture differs by nothing as composed, and by less once
x264 re-encodes it (its first P-frames keep refining it); a slow Ken Burns push (0.6 %/s zoom
on a soft photo) differs by more within a second."""
VISIBLE_CHANGE = 6
"""A sample pixel whose luma moved by more than this many levels changed visibly."""
MOVING_SHARE = 0.002
"""A picture with more than this share of its sample pixels changed visibly is moving, however
small the mean change: a card's print a fifth of the frame, pulling out slowly under held words
(a 5 % zoom in 4 s), moves the frame's mean by under :data:`FREEZE_NOISE`, yet a viewer sees it
move; a truly still picture changes no pixel as composed."""
SAMPLE_STEP = 8  # every 8th luma pixel in each direction, from the middle of each 8 x 8 block
FINGERPRINT_BLOCKS = 15  # sample pixels per fingerprint block side: 240 x 135 -> 16 x 9
STORED_MAX_BYTES = 64 << 20  # a stored signal takes ~150 bytes a frame (1 MB for 180 s)


def luma_sample(y: np.ndarray) -> np.ndarray:
    """Every :data:`SAMPLE_STEP`-th pixel of a luma plane (a new contiguous array)."""
    half = SAMPLE_STEP // 2
    return np.ascontiguousarray(y[half::SAMPLE_STEP, half::SAMPLE_STEP])


def fingerprint(sample: np.ndarray) -> np.ndarray:
    """Block means of a luma sample (uint8, about 16 x 9 for 1080p): a picture's coarse
    layout, close between a frame and its encode, far from another picture."""
    rows, cols = sample.shape
    size = (max(1, cols // FINGERPRINT_BLOCKS), max(1, rows // FINGERPRINT_BLOCKS))
    return cv2.resize(sample, size, interpolation=cv2.INTER_AREA)


def still(sample: np.ndarray, reference: np.ndarray) -> bool:
    """Whether a frame's luma ``sample`` is still the picture of ``reference``: within
    :data:`FREEZE_NOISE` on the mean, and no more than :data:`MOVING_SHARE` of it changed
    visibly (:data:`VISIBLE_CHANGE`)."""
    difference = cv2.absdiff(sample, reference)
    return (float(difference.mean()) / 255.0 <= FREEZE_NOISE
            and np.count_nonzero(difference > VISIBLE_CHANGE) <= MOVING_SHARE * difference.size)


Interval = tuple[float, float]
"""(start, end) in seconds."""


@dataclass(frozen=True)
class FrameSignal:
    """One film's (or segment's) frames as measured: per frame the ``black`` share of pixels,
    the index of the frame it is still the same as (``reference``: itself unless it is within
    :data:`FREEZE_NOISE` of the first frame of a still run) and its ``fingerprints`` row;
    ``head`` is the first frame's sample and ``tail_reference`` the sample of the last frame's
    reference, so that a still run crossing a segment cut joins up (:func:`joined`)."""

    black: np.ndarray
    reference: np.ndarray
    fingerprints: np.ndarray
    head: np.ndarray
    tail_reference: np.ndarray

    @property
    def frames(self) -> int:
        """How many frames were measured."""
        return len(self.black)

    def black_intervals(self, fps: float) -> list[Interval]:
        """Runs of black pictures at least :data:`MIN_BLACK_S` long (seconds)."""
        black = self.black >= BLACK_PICTURE_RATIO
        return [(a / fps, b / fps) for a, b in _runs(black) if (b - a) / fps >= MIN_BLACK_S]

    def frozen_intervals(self, fps: float, min_s: float) -> list[Interval]:
        """Still runs (frames the same as the run's first) lasting at least ``min_s`` seconds
        from their first frame to their last, each from its first frame to the next change
        (freezedetect's ``freeze_start`` and ``freeze_end``)."""
        out = []
        starts = np.flatnonzero(self.reference == np.arange(self.frames))
        ends = np.append(starts[1:], self.frames)
        for start, end in zip(starts, ends, strict=True):
            if (end - 1 - start) / fps >= min_s:
                out.append((start / fps, end / fps))
        return out

    def to_bytes(self) -> bytes:
        """The signal as an ``.npz`` file's bytes (what the render stores for verify)."""
        buffer = io.BytesIO()
        np.savez(buffer, black=self.black, reference=self.reference,
                 fingerprints=self.fingerprints, head=self.head,
                 tail_reference=self.tail_reference)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> FrameSignal:
        """A signal stored by :meth:`to_bytes` (ValueError if it is not one)."""
        try:
            stored = np.load(io.BytesIO(data), allow_pickle=False)
            if not isinstance(stored, np.lib.npyio.NpzFile):
                raise TypeError("a single array, not an .npz")
            with stored:
                signal = cls(**{name: stored[name] for name in stored.files})
        except (OSError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"not a frame signal: {exc}") from exc
        if not len(signal.black) == len(signal.reference) == len(signal.fingerprints):
            raise ValueError("frame signal arrays of different lengths")
        return signal


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) index ranges of the True runs of a boolean array."""
    edges = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist(),
                    strict=True))


class SignalRecorder:
    """Measures the frames of one aspect as they are composed (:meth:`add`, in order), then
    gives the :class:`FrameSignal` (:meth:`result`). A frame that is the previous frame's
    array again (a hold) is that frame's measures again, without measuring."""

    def __init__(self) -> None:
        self._black: list[float] = []
        self._reference: list[int] = []
        self._prints: list[np.ndarray] = []
        self._head: np.ndarray | None = None
        self._ref_sample: np.ndarray | None = None
        self._last: np.ndarray | None = None

    def add(self, frame: np.ndarray) -> None:
        """Measure the next I420 frame."""
        index = len(self._black)
        if frame is self._last:
            self._black.append(self._black[-1])
            self._reference.append(self._reference[-1])
            self._prints.append(self._prints[-1])
            return
        self._last = frame
        sample = luma_sample(yuv.luma_rows(frame))
        if self._head is None:
            self._head = sample
        self._black.append(float(np.count_nonzero(sample <= BLACK_LUMA)) / sample.size)
        if self._ref_sample is None or not still(sample, self._ref_sample):
            self._ref_sample = sample
            self._reference.append(index)
        else:
            self._reference.append(self._reference[-1])
        self._prints.append(fingerprint(sample))

    def result(self) -> FrameSignal:
        """The signal of every frame added so far (ValueError if none was)."""
        if self._head is None or self._ref_sample is None:
            raise ValueError("no frames were measured")
        return FrameSignal(np.asarray(self._black, np.float32),
                           np.asarray(self._reference, np.int32), np.stack(self._prints),
                           self._head, self._ref_sample)


def joined(signals: Sequence[FrameSignal]) -> FrameSignal:
    """The signals of consecutive segments as one film's: indices shifted, and a still run
    carried across a cut where the next segment's first frame is still the run's first
    frame's picture (:func:`still`)."""
    if not signals:
        raise ValueError("no signals to join")
    references, offset, tail = [], 0, None
    for signal in signals:
        reference = signal.reference.astype(np.int64) + offset
        if tail is not None and still(signal.head, tail[1]):
            reference[reference == offset] = tail[0]  # the first run goes on
        references.append(reference)
        last = int(reference[-1])
        tail = (last, signal.tail_reference if last >= offset else tail[1])
        offset += signal.frames
    assert tail is not None
    return FrameSignal(np.concatenate([s.black for s in signals]),
                       np.concatenate(references).astype(np.int32),
                       np.concatenate([s.fingerprints for s in signals]), signals[0].head,
                       tail[1])
