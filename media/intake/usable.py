"""Whether a prepared photo can be shown at all: its shape (no sliver, nothing too small to fill a
frame) and its content (not blank: a pocket shot, a white screenshot, one colour with JPEG noise;
not black to the eye). A photo that fails is left out of the film with the reason
(:class:`media.base.errors.MediaRejected`), and an order left with none is held by the gate.

Judged in the sandbox's child (:func:`prepare_usable_photo`), on the working copy
:func:`media.intake.photos.prepare_photo` wrote (our own JPEG, at most
4096 px long) in blocks of at least 4 x 4 pixels averaged (libjpeg's DCT scaling, then a box
filter), which takes a sensor's or JPEG's noise out of the measure and leaves what a viewer
sees. Numpy and Pillow only, a few milliseconds a photo.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PIL import Image

from media.base import errors
from media.base.errors import MediaRejected
from media.intake.borders import PixelBox, picture_box
from media.intake.photos import PhotoInfo, prepare_photo

MAX_ASPECT = 4.0
"""Longest side over shortest side of a photo the film shows (a 4:1 panorama is kept; a
20000x20 stripe or a 6:1 strip is not: fitted it is a line, filled it is a few pixels blown up)."""
ASPECT_ROUNDING_PX = 1
"""Pixels a 4:1 photo's short side may have lost to rounding (a crop, a resize) and still count
as 4:1."""
MIN_SHORT_EDGE_PX = 64
"""Shortest side (pixels) of a photo the film shows: below it a photo is a thumbnail or an icon
(a 64 px side fills a 1080 px frame magnified 17x). Tiny real photos (a 120 x 68 thumbnail of a
16:9 photo, a 300 px old scan) are kept and shown small (``low_res``)."""
JUDGE_LONG_EDGE_PX = 256
"""Long edge (pixels) the content is judged at, at most: every pixel judged is the mean of a
block of the photo (libjpeg's DCT scaling, then a box filter)."""
MIN_BLOCK_PX = 4
"""Side (pixels) of the smallest block averaged into one judged pixel, for small photos too:
a sensor's noise of 4 levels becomes 1."""
TAIL_SHARE = 0.005
"""Share of the pixels at each end of a channel's levels left out of its spread (a status bar's
icons, a speck of dust, a lit phone screen's corner do not make a picture)."""
BLANK_MAX_SPREAD = 24.0
"""A photo whose every channel spans fewer levels than this (8-bit sRGB, between its
:data:`TAIL_SHARE` quantiles, in averaged blocks) shows nothing: one colour with noise, or a
picture faded past seeing. Measured: pocket shots, white screenshots and grey frames span 0-9
levels, photos faded to 3-4 % contrast 9-12; the samples, the fixtures and 150 corpus photos
(old scans, tiny thumbnails, panoramas, screenshots, close-ups) 121 and more; a photo kept at
10 % contrast spans about 25, at 20 % about 50."""
BLACK_LUMA = 25.5
"""Full-range BT.709 luma (0..255) at or below which the verifier counts a pixel black: its
limited-range threshold (:data:`media.frames.signal.BLACK_LUMA`, 37.9) in full range; a test pins
them equal (not imported: intake sits below frames)."""
BLACK_PICTURE_SHARE = 0.98
"""Share of black pixels at which the verifier calls a frame black
(:data:`media.frames.signal.BLACK_PICTURE_RATIO`; pinned by the same test): a photo this dark
would play as a black stretch, so it is left out; a night scene or a candle-lit face with any
lit part bigger than that is kept."""
_LUMA_709 = np.array([0.2126, 0.7152, 0.0722], np.float32)


def prepare_usable_photo(src: Path, dest_jpeg: Path) -> PhotoInfo:
    """:func:`media.intake.photos.prepare_photo` (its flat borders cut away when what is left
    can be shown: :func:`showable_picture_box`), then :func:`check_usable` on its working copy:
    what the prep stage runs for each photo (in the sandbox's child)."""
    info = prepare_photo(src, dest_jpeg, find_picture=showable_picture_box)
    check_usable(dest_jpeg)
    return info


def showable_picture_box(image: Image.Image) -> PixelBox | None:
    """:func:`media.intake.borders.picture_box`, unless the picture inside the borders would be
    a sliver or too small to show (:func:`check_shape`) or blank (:func:`check_content`): then
    the photo is kept as it is, and judged as it is."""
    box = picture_box(image)
    if box is None:
        return None
    picture = image.crop(box)
    try:
        check_shape(*picture.size)
        check_content(_averaged(picture))
    except MediaRejected:
        return None
    return box


def check_usable(working_jpeg: Path) -> None:
    """Raise :class:`MediaRejected` when the prepared photo at ``working_jpeg`` cannot be shown:
    ``image_aspect_unsupported`` (beyond :data:`MAX_ASPECT`), ``image_too_small`` (short side
    under :data:`MIN_SHORT_EDGE_PX`), ``image_blank`` (:func:`tonal_spread` under
    :data:`BLANK_MAX_SPREAD`) or ``image_too_dark`` (:func:`black_share` at least
    :data:`BLACK_PICTURE_SHARE`)."""
    with Image.open(working_jpeg) as image:
        check_shape(*image.size)
        pixels = _averaged(image)
    check_content(pixels)


def _averaged(image: Image.Image) -> np.ndarray:
    """The photo as RGB uint8 pixels, each the mean of a block of at least :data:`MIN_BLOCK_PX`
    square, the long edge at most :data:`JUDGE_LONG_EDGE_PX` (at least 1 px)."""
    target = max(1, min(JUDGE_LONG_EDGE_PX, max(image.size) // MIN_BLOCK_PX))
    k = target / max(image.size)
    image.draft("RGB", (max(1, math.ceil(image.width * k)), max(1, math.ceil(image.height * k))))
    rgb = image.convert("RGB")
    return np.asarray(rgb.reduce(max(1, round(max(rgb.size) / target))))


def check_shape(width: int, height: int) -> None:
    """Raise :class:`MediaRejected` for a ``width`` x ``height`` photo (pixels) that is a sliver
    (``image_aspect_unsupported``) or too small to show (``image_too_small``)."""
    short, long = sorted((width, height))
    if long > MAX_ASPECT * (short + ASPECT_ROUNDING_PX):
        raise MediaRejected(errors.IMAGE_ASPECT, f"{width}x{height} is beyond "
                                                 f"{MAX_ASPECT:g}:1")
    if short < MIN_SHORT_EDGE_PX:
        raise MediaRejected(errors.IMAGE_TOO_SMALL, f"{width}x{height}: its short side is under "
                                                    f"{MIN_SHORT_EDGE_PX} px")


def check_content(pixels: np.ndarray) -> None:
    """Raise :class:`MediaRejected` when the RGB uint8 ``pixels`` (noise averaged out, see the
    module) show nothing (``image_blank``) or play as black (``image_too_dark``)."""
    spread = tonal_spread(pixels)
    if spread < BLANK_MAX_SPREAD:
        raise MediaRejected(errors.IMAGE_BLANK, f"its colours span {spread:.1f} levels, under "
                                                f"{BLANK_MAX_SPREAD:g}")
    dark = black_share(pixels)
    if dark >= BLACK_PICTURE_SHARE:
        raise MediaRejected(errors.IMAGE_TOO_DARK, f"{dark:.1%} of it is black")


def tonal_spread(pixels: np.ndarray) -> float:
    """The widest span (8-bit levels) of any of the RGB uint8 ``pixels``' channels between its
    :data:`TAIL_SHARE` and 1 - :data:`TAIL_SHARE` quantiles."""
    flat = pixels.reshape(-1, pixels.shape[-1])
    low, high = np.quantile(flat, [TAIL_SHARE, 1.0 - TAIL_SHARE], axis=0)
    return float(np.max(high - low))


def black_share(pixels: np.ndarray) -> float:
    """Share (0..1) of the RGB uint8 ``pixels`` whose BT.709 luma is at most
    :data:`BLACK_LUMA`."""
    luma = pixels.reshape(-1, 3).astype(np.float32) @ _LUMA_709
    return float(np.count_nonzero(luma <= BLACK_LUMA)) / max(1, luma.size)
