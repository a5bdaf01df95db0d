"""Frames in the encoder's own format: I420 (ffmpeg's ``yuv420p``), BT.709, limited range.

A film frame is one C-contiguous uint8 array of shape ``(height * 3 // 2, width)``: the Y plane
(``height`` x ``width``), then U and V (``height / 2`` x ``width / 2`` each), byte for byte what
ffmpeg's ``-f rawvideo -pix_fmt yuv420p`` reads, and the layout OpenCV's ``*_I420`` conversions
use. :func:`planes` gives the three planes as views. Frame sizes are even.

Pictures are converted once per source (:func:`rgb_to_i420`), never per output frame: blends
are linear, so blending YUV frames is blending the RGB ones (to rounding). Black is Y 16,
U and V 128 (:func:`black`), not zeros. Chroma is the 2x2 average of the full-resolution
chroma (centre-sited, as ffmpeg's swscale writes yuv420p from RGB by default).
"""

from __future__ import annotations

import cv2
import numpy as np

# Full-range RGB (0..255) to BT.709 limited-range YCbCr: rows Y, Cb, Cr; last column the offset.
_KR, _KB = 0.2126, 0.0722
_KG = 1.0 - _KR - _KB
_Y_SCALE, _C_SCALE = 219 / 255, 224 / 255
RGB_TO_YUV = np.array([
    [_KR * _Y_SCALE, _KG * _Y_SCALE, _KB * _Y_SCALE, 16.0],
    [-_KR / (2 * (1 - _KB)) * _C_SCALE, -_KG / (2 * (1 - _KB)) * _C_SCALE, 0.5 * _C_SCALE, 128.0],
    [0.5 * _C_SCALE, -_KG / (2 * (1 - _KR)) * _C_SCALE, -_KB / (2 * (1 - _KR)) * _C_SCALE, 128.0],
], dtype=np.float32)
_YUV_TO_RGB = np.linalg.inv(np.vstack([RGB_TO_YUV, [0, 0, 0, 1]]))[:3].astype(np.float32)
BLACK_Y, NEUTRAL_C = 16, 128
PIX_FMT = "yuv420p"  # ffmpeg's name of the frames' layout (what encoders are told they read)
PLANE_OFFSETS = (float(BLACK_Y), float(NEUTRAL_C), float(NEUTRAL_C))  # black, per plane


def frame_shape(width: int, height: int) -> tuple[int, int]:
    """The array shape of a ``width`` x ``height`` I420 frame."""
    if width % 2 or height % 2:
        raise ValueError(f"I420 frames have even sizes, not {width}x{height}")
    return height * 3 // 2, width


def frame_size(frame: np.ndarray) -> tuple[int, int]:
    """Width and height (pixels) of an I420 ``frame``."""
    rows, width = frame.shape
    return width, rows * 2 // 3


def planes(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Views of the Y (H x W), U and V (H/2 x W/2) planes of an I420 ``frame``."""
    width, height = frame_size(frame)
    flat = frame.reshape(-1)
    luma = width * height
    chroma = luma // 4
    y = flat[:luma].reshape(height, width)
    u = flat[luma:luma + chroma].reshape(height // 2, width // 2)
    v = flat[luma + chroma:luma + 2 * chroma].reshape(height // 2, width // 2)
    return y, u, v


def luma_rows(frame: np.ndarray) -> np.ndarray:
    """The Y plane of an I420 ``frame`` as a view (its first ``height`` rows)."""
    return frame[: frame.shape[0] * 2 // 3]


def chroma_rows(frame: np.ndarray) -> np.ndarray:
    """U then V of an I420 ``frame`` as one view of its last ``height / 2`` rows (both planes'
    black is 128, so blends toward black treat them alike)."""
    return frame[frame.shape[0] * 2 // 3:]


def black(width: int, height: int) -> np.ndarray:
    """A new black I420 frame (Y 16, U and V 128)."""
    frame = np.empty(frame_shape(width, height), np.uint8)
    frame[:height] = BLACK_Y
    frame[height:] = NEUTRAL_C
    return frame


def rgb_to_yuv444(rgb: np.ndarray, matrix: np.ndarray = RGB_TO_YUV) -> np.ndarray:
    """BT.709 limited-range Y, U, V at full resolution (uint8 H x W x 3) of RGB uint8 H x W x 3;
    ``matrix`` (3 x 4, :data:`RGB_TO_YUV` by default) may fold a linear colour change into it."""
    return cv2.transform(np.ascontiguousarray(rgb[..., :3]), matrix)


def rgb_to_i420(rgb: np.ndarray, matrix: np.ndarray = RGB_TO_YUV) -> np.ndarray:
    """An RGB uint8 (H x W x 3, even sizes) picture as a new I420 frame (``matrix``: as
    :func:`rgb_to_yuv444`)."""
    height, width = rgb.shape[:2]
    frame = np.empty(frame_shape(width, height), np.uint8)
    y, u, v = planes(frame)
    yuv = rgb_to_yuv444(rgb, matrix)
    cv2.extractChannel(yuv, 0, y)
    half = (width // 2, height // 2)
    u[:] = cv2.resize(cv2.extractChannel(yuv, 1), half, interpolation=cv2.INTER_AREA)
    v[:] = cv2.resize(cv2.extractChannel(yuv, 2), half, interpolation=cv2.INTER_AREA)
    return frame


def rgb_to_planes(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An RGB uint8 picture of any size as separate Y (H x W), U and V planes (ceil(H/2) x
    ceil(W/2), the 2x2 averages as :func:`rgb_to_i420`, the last row or column averaging what
    is there); new contiguous arrays."""
    height, width = rgb.shape[:2]
    yuv = rgb_to_yuv444(rgb)
    half = ((width + 1) // 2, (height + 1) // 2)
    if width % 2 or height % 2:  # pad by repeating the edge so the 2x2 blocks stay aligned
        yuv = cv2.copyMakeBorder(yuv, 0, height % 2, 0, width % 2, cv2.BORDER_REPLICATE)
    y = np.ascontiguousarray(yuv[:height, :width, 0])
    u = cv2.resize(cv2.extractChannel(yuv, 1), half, interpolation=cv2.INTER_AREA)
    v = cv2.resize(cv2.extractChannel(yuv, 2), half, interpolation=cv2.INTER_AREA)
    return y, u, v


def from_planes(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """A new I420 frame holding the planes ``y`` (H x W, even sizes), ``u`` and ``v``."""
    height, width = y.shape
    frame = np.empty(frame_shape(width, height), np.uint8)
    for dst, src in zip(planes(frame), (y, u, v), strict=True):
        dst[:] = src
    return frame


def i420_to_rgb(frame: np.ndarray) -> np.ndarray:
    """An I420 frame as RGB uint8 (H x W x 3), chroma upsampled bilinearly (for looking at
    frames and for tests, not for the film)."""
    width, height = frame_size(frame)
    y, u, v = planes(frame)
    size = (width, height)
    up_u = cv2.resize(u, size, interpolation=cv2.INTER_LINEAR)
    up_v = cv2.resize(v, size, interpolation=cv2.INTER_LINEAR)
    return cv2.transform(cv2.merge([y, up_u, up_v]), _YUV_TO_RGB)


ROWS_PAD = 4  # luma rows converted past a band's edges: bilinear chroma reads its neighbours


def i420_rows_to_rgb(frame: np.ndarray, top: int, bottom: int) -> np.ndarray:
    """Rows ``[top, bottom)`` (pixels, clipped to the frame) of :func:`i420_to_rgb` of
    ``frame``, the same pixels, converting only those rows and :data:`ROWS_PAD` either side."""
    width, height = frame_size(frame)
    top, bottom = max(0, top), min(height, max(top, bottom))
    start = max(0, (top - ROWS_PAD) // 2 * 2)
    stop = min(height, -(-(bottom + ROWS_PAD) // 2) * 2)
    y, u, v = planes(frame)
    band = (y[start:stop], u[start // 2:stop // 2], v[start // 2:stop // 2])
    size = (width, stop - start)
    up_u = cv2.resize(band[1], size, interpolation=cv2.INTER_LINEAR)
    up_v = cv2.resize(band[2], size, interpolation=cv2.INTER_LINEAR)
    rgb = cv2.transform(cv2.merge([band[0], up_u, up_v]), _YUV_TO_RGB)
    return rgb[top - start:bottom - start]


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    """Peak signal-to-noise ratio (dB, peak 255) between two same-shape uint8 arrays; inf when
    equal."""
    diff = a.astype(np.float64) - b.astype(np.float64)
    mse = float(np.mean(diff * diff))
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)
