"""Frame composition in numpy/OpenCV: photo moves and clip frames drawn onto the film frame.

Film frames are I420 (:mod:`media.base.yuv`: Y, then U and V at half size, BT.709 limited range),
what the encoders take as they are. A photo is converted once, when it is pre-scaled
(:func:`prescale_i420`); every frame is then drawn plane by plane with the functions below,
which work on one plane (or on RGB) given its own pixels per source pixel (a chroma plane's are
half the luma's, so one viewport places all three planes, chroma centre-sited).

Photos are sampled bilinearly at continuous positions (no integer-stepped crops), as one float
affine warp per frame would (``cv2.warpAffine``, replicated border), from a source pre-scaled
once with area averaging so that no frame minifies it by more than about :data:`MAX_MINIFY`.
The warp spends most of its time mapping coordinates, so most frames take a cheaper exact route
to the same pixels (within :data:`SUBPIXEL_TOLERANCE`): one ``cv2.resize`` from a whole-pixel
origin (:func:`resize_crop`), or at 1:1 a sub-pixel shift (:func:`shifted_crop`); the warp is
the fallback. A fitted photo (see :mod:`media.analysis.framing`) is drawn the same way over its
blurred, darkened backdrop with anti-aliased edges. Clip frames are scaled to cover the frame around
their centre. The shots on screen are blended into the film frame by :mod:`media.frames.blend`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from media.analysis.camera import Motion, Rect
from media.analysis.subjects import Subject
from media.base import yuv

MAX_MINIFY = 1.5  # the warp never shrinks the pre-scaled source by more than this
PRESCALE_STEP = 0.05  # pre-scale factors are multiples of this
BACKDROP_DIM = 0.45  # brightness of the blurred backdrop behind a fitted photo
BACKDROP_DOWNSCALE = 8  # the backdrop is blurred at 1/8 of the output size
# The backdrop's blur (sigma, a share of its width): a wash of the photo's colours. At 1/40 a
# close-up's blurred copy still showed its eyes and mouth, a dark ghost face around the photo.
BACKDROP_BLUR = 1 / 12
# The blur runs at half the backdrop's small size, then is scaled back up: at a sigma of 11
# pixels or more nothing finer than that grid is left, and it costs an eighth (a fitted clip
# blurs its backdrop every frame; 62 dB from blurring at the full small size).
BACKDROP_BLUR_SHRINK = 2
SHADOW_STRENGTH = 0.55
WARP_FLAGS = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
SUBPIXEL_TOLERANCE = 1 / 32  # output pixels a resized crop may sit off the exact viewport
ORIGIN_SEARCH = 96  # source pixels before the viewport always searched for a resize origin
# Farther out, an origin is still taken up to this share of the frame's width (height) before
# the viewport: resizing that much more costs less than the warp (about twice a resize), and
# near 1:1 zooms (whole photos used at full size) need it.
MAX_ORIGIN_SHARE = 0.4
# Replicated edge pixels kept around a pre-scaled source, so that crops reaching past the photo's
# edge (resize origins mostly lie up to ORIGIN_SEARCH + 1 pixels before the viewport) are views,
# not per-frame copies; a photo used at full size gets this border only up to
# MARGIN_COPY_MAX_PIXELS.
MARGIN_BEFORE = ORIGIN_SEARCH + 2
MARGIN_AFTER = 4
MARGIN_COPY_MAX_PIXELS = 4_000_000


@dataclass(frozen=True)
class Prescaled:
    """A source image scaled once: ``sx``/``sy`` are its pixels per original source pixel.

    ``framed``, if set, is ``image`` inside a border of its repeated edge pixels,
    :data:`MARGIN_BEFORE` wide on the left and top and :data:`MARGIN_AFTER` on the right and
    bottom (``image`` is then a view into it)."""

    image: np.ndarray
    sx: float
    sy: float
    framed: np.ndarray | None = None

    @property
    def source_size(self) -> tuple[float, float]:
        """Width and height of the original source (pixels)."""
        h, w = self.image.shape[:2]
        return w / self.sx, h / self.sy


@dataclass(frozen=True)
class PrescaledI420:
    """A source pre-scaled once and held as the film's planes (see :mod:`media.base.yuv`): ``y`` at
    the pre-scaled size, ``u`` and ``v`` at half of it, each a :class:`Prescaled` whose
    ``sx``/``sy`` are its own pixels per original source pixel (a chroma plane's are half the
    luma's, so one viewport in source pixels places all three, chroma centre-sited)."""

    y: Prescaled
    u: Prescaled
    v: Prescaled

    @property
    def planes(self) -> tuple[Prescaled, Prescaled, Prescaled]:
        """Y, U and V."""
        return self.y, self.u, self.v

    @property
    def source_size(self) -> tuple[float, float]:
        """Width and height of the original source (pixels)."""
        return self.y.source_size


def prescale_factor(motion: Motion, out_width: int) -> float:
    """Scale (<= 1) for the source so the tightest viewport of ``motion`` maps about 1:1 onto
    ``out_width`` output pixels (rounded up to :data:`PRESCALE_STEP` so shots of one photo can
    share it), and the widest never minifies by more than :data:`MAX_MINIFY`."""
    tightest = min(motion.start.w, motion.end.w)
    widest = max(motion.start.w, motion.end.w)
    step = math.ceil(out_width / tightest / PRESCALE_STEP) * PRESCALE_STEP  # shareable sizes
    return min(1.0, step, MAX_MINIFY * out_width / widest)


def prescale(image: np.ndarray, factor: float, margin: bool = True) -> Prescaled:
    """``image`` (uint8 H x W x 3) area-averaged down by ``factor`` (no change if >= 1), with
    the replicated border of :class:`Prescaled` if ``margin`` (not for a full-size copy of a
    photo over :data:`MARGIN_COPY_MAX_PIXELS`)."""
    h, w = image.shape[:2]
    if factor >= 0.999:
        scaled, sx, sy = image, 1.0, 1.0
        margin = margin and h * w <= MARGIN_COPY_MAX_PIXELS  # the border would copy the photo
    else:
        nw, nh = max(1, round(w * factor)), max(1, round(h * factor))
        scaled = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
        sx, sy = nw / w, nh / h
    return _framed(scaled, sx, sy) if margin else Prescaled(scaled, sx, sy)


def prescale_i420(image: np.ndarray, factor: float, margin: bool = True) -> PrescaledI420:
    """:func:`prescale` of an RGB ``image``, converted once to Y, U and V planes (BT.709
    limited range, :func:`media.base.yuv.rgb_to_planes`): what every frame of its shots is cut from.
    """
    scaled = prescale(image, factor, margin=False)
    h, w = image.shape[:2]
    sh, sw = scaled.image.shape[:2]
    if factor >= 0.999:
        margin = margin and h * w <= MARGIN_COPY_MAX_PIXELS
    planes = []
    for plane, k in zip(yuv.rgb_to_planes(scaled.image), (1.0, 0.5, 0.5), strict=True):
        sx, sy = k * sw / w, k * sh / h  # chroma pixel i spans luma pixels 2i..2i+2
        planes.append(_framed(plane, sx, sy) if margin else Prescaled(plane, sx, sy))
    return PrescaledI420(*planes)


def _framed(image: np.ndarray, sx: float, sy: float) -> Prescaled:
    framed = cv2.copyMakeBorder(image, MARGIN_BEFORE, MARGIN_AFTER, MARGIN_BEFORE, MARGIN_AFTER,
                                cv2.BORDER_REPLICATE)
    h, w = image.shape[:2]
    inner = framed[MARGIN_BEFORE:MARGIN_BEFORE + h, MARGIN_BEFORE:MARGIN_BEFORE + w]
    return Prescaled(inner, sx, sy, framed)


def viewport_matrix(rect: Rect, src: Prescaled, out_w: int, out_h: int,
                    offset: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Inverse affine (output pixel -> pre-scaled source pixel) showing ``rect`` (source pixels)
    on an ``out_w`` x ``out_h`` frame; ``offset`` shifts the output origin (pixels).

    Pixel centres are at +0.5: output pixel ``u`` samples source x ``rect.x + (u + 0.5) *
    rect.w / out_w`` (original pixels), i.e. continuous coordinates, no rounding.
    """
    ax = rect.w * src.sx / out_w
    ay = rect.h * src.sy / out_h
    tx = rect.x * src.sx + (offset[0] + 0.5) * ax - 0.5
    ty = rect.y * src.sy + (offset[1] + 0.5) * ay - 0.5
    return np.array([[ax, 0.0, tx], [0.0, ay, ty]], dtype=np.float64)


def render_crop(src: Prescaled, rect: Rect, out_w: int, out_h: int) -> np.ndarray:
    """The viewport ``rect`` of a photo as a new ``out_h`` x ``out_w`` RGB frame (sub-pixel):
    by :func:`shifted_crop` at 1:1, by :func:`resize_crop` where it can place the viewport
    exactly enough, else one warp. Beyond the photo's edges its edge pixels repeat. The frame
    is new memory (perhaps a view into a larger new array), never a view of the source."""
    fast = shifted_crop(src, rect, out_w, out_h)
    if fast is None:
        fast = resize_crop(src, rect, out_w, out_h)
    if fast is not None:
        return fast
    matrix = viewport_matrix(rect, src, out_w, out_h)
    return cv2.warpAffine(src.image, matrix, (out_w, out_h), flags=WARP_FLAGS,
                          borderMode=cv2.BORDER_REPLICATE)


def shifted_crop(src: Prescaled, rect: Rect, out_w: int, out_h: int) -> np.ndarray | None:
    """:func:`render_crop` of a viewport shown 1:1 (the scale within
    :data:`SUBPIXEL_TOLERANCE` over the frame), or None at any other scale: a sub-pixel shift
    as two weighted sums of neighbouring columns, then rows (the warp's bilinear sampling at a
    third of its cost, within 2 levels of it)."""
    ax, ay = rect.w * src.sx / out_w, rect.h * src.sy / out_h
    if max(abs(ax - 1.0) * out_w, abs(ay - 1.0) * out_h) > SUBPIXEL_TOLERANCE:
        return None
    x, y = rect.x * src.sx, rect.y * src.sy  # output pixel u samples source x + u
    left, top = math.floor(x), math.floor(y)
    roi = _replicated_roi(src, left, top, out_w + 1, out_h + 1)
    if roi is None:
        return None
    rows = _blend_neighbours(roi[:, :out_w], roi[:, 1:], x - left)
    return np.ascontiguousarray(_blend_neighbours(rows[:out_h], rows[1:], y - top))


def _blend_neighbours(first: np.ndarray, second: np.ndarray, weight: float) -> np.ndarray:
    """``(1 - weight) * first + weight * second`` (uint8); ``first`` alone when the weight is
    below the warp's 1/32-pixel grid."""
    if weight < SUBPIXEL_TOLERANCE / 2:
        return first
    if weight > 1.0 - SUBPIXEL_TOLERANCE / 2:
        return second
    return cv2.addWeighted(first, 1.0 - weight, second, weight, 0.0)


def _resize_origin(pos: float, scale: float, out_size: int) -> tuple[int, int] | None:
    """The integer source origin ``o`` nearest before ``pos`` (it may lie before the photo,
    whose edge then repeats) whose distance to ``pos`` is, scaled, a whole number ``n`` >= 1 of
    output pixels within :data:`SUBPIXEL_TOLERANCE`: ``(o, n)``; searched over
    :data:`ORIGIN_SEARCH` source pixels or :data:`MAX_ORIGIN_SHARE` of ``out_size`` output
    pixels, whichever is more. None if none qualifies."""
    top = math.floor(pos)
    search = max(ORIGIN_SEARCH, math.ceil(MAX_ORIGIN_SHARE * out_size / scale))
    origins = np.arange(top, top - search - 1, -1)
    steps = (pos - origins) * scale
    good = np.flatnonzero((steps >= 1.0) & (np.abs(steps - np.round(steps)) <= SUBPIXEL_TOLERANCE))
    if len(good) == 0:
        return None
    return int(origins[good[0]]), round(float(steps[good[0]]))


def _replicated_roi(src: Prescaled, x0: int, y0: int, width: int, height: int
                    ) -> np.ndarray | None:
    """``src.image[y0:y0+height, x0:x0+width]``, its parts beyond the image filled by repeating
    the edge pixels (as the warp's ``BORDER_REPLICATE``): a view where ``src.framed`` reaches,
    else a copy; None if it misses the image entirely."""
    image = src.image
    rows, cols = image.shape[:2]
    top, left = max(0, y0), max(0, x0)
    bottom, right = min(rows, y0 + height), min(cols, x0 + width)
    if bottom <= top or right <= left:
        return None
    if (src.framed is not None and min(x0, y0) >= -MARGIN_BEFORE
            and x0 + width <= cols + MARGIN_AFTER and y0 + height <= rows + MARGIN_AFTER):
        fy, fx = y0 + MARGIN_BEFORE, x0 + MARGIN_BEFORE
        return src.framed[fy:fy + height, fx:fx + width]
    roi = image[top:bottom, left:right]
    pads = (top - y0, y0 + height - bottom, left - x0, x0 + width - right)
    return cv2.copyMakeBorder(roi, *pads, cv2.BORDER_REPLICATE) if any(pads) else roi


def resize_crop(src: Prescaled, rect: Rect, out_w: int, out_h: int) -> np.ndarray | None:
    """:func:`render_crop` done by one ``cv2.resize`` (~40% cheaper than ``warpAffine``, which
    spends most of its time mapping coordinates), or None where it cannot be exact.

    ``cv2.resize`` maps output pixel ``j`` to ROI pixel ``(j + 0.5) / f - 0.5``: the scale ``f``
    is free, but the offset is the ROI's whole-pixel origin. So the ROI starts at an origin ``o``
    a whole number ``n`` of output pixels left of (above) the viewport, and the output is cut
    at ``n``. The residual is at most :data:`SUBPIXEL_TOLERANCE` output pixels, no coarser than
    ``warpAffine``'s own 1/32-pixel grid; without such an origin (e.g. at exactly 1:1, see
    :func:`shifted_crop`) the caller warps instead. Near the photo's edges the ROI is padded
    with repeated edge pixels, so the origin may lie outside the photo.
    """
    fx, fy = out_w / (rect.w * src.sx), out_h / (rect.h * src.sy)
    along_x = _resize_origin(rect.x * src.sx, fx, out_w)
    along_y = _resize_origin(rect.y * src.sy, fy, out_h)
    if along_x is None or along_y is None:
        return None
    (x0, nx), (y0, ny) = along_x, along_y
    roi = _replicated_roi(src, x0, y0, math.ceil((nx + out_w) / fx) + 2,
                          math.ceil((ny + out_h) / fy) + 2)
    if roi is None:
        return None
    big = cv2.resize(roi, None, fx=fx, fy=fy, interpolation=cv2.INTER_LINEAR)
    # A view, not a copy: a fitted photo or a blend copies it anyway, and the encoder's writer
    # packs what reaches it alone.
    return big[ny:ny + out_h, nx:nx + out_w]


def render_crop_i420(src: PrescaledI420, rect: Rect, out_w: int, out_h: int) -> np.ndarray:
    """:func:`render_crop` of every plane of ``src``: the viewport ``rect`` (source pixels) as a
    new ``out_w`` x ``out_h`` I420 frame."""
    frame = np.empty(yuv.frame_shape(out_w, out_h), np.uint8)
    draw_crop_i420(src, rect, yuv.planes(frame))
    return frame


def draw_crop_i420(src: PrescaledI420, rect: Rect, planes: Sequence[np.ndarray]) -> None:
    """:func:`render_crop_i420` written into ``planes`` (Y, U, V, each of its own size: views
    into a larger frame, e.g. one half of a split frame)."""
    for plane, dst in zip(src.planes, planes, strict=True):
        rows, cols = dst.shape
        dst[:] = render_crop(plane, rect, cols, rows)


def cover_box(src_w: int, src_h: int, out_w: int, out_h: int) -> tuple[int, int, int, int]:
    """The centred crop (x, y, w, h pixels) of a ``src_w`` x ``src_h`` image with the output's
    ratio (cover fit)."""
    ratio = out_w / out_h
    if src_w / src_h > ratio:
        w = max(1, min(src_w, round(src_h * ratio)))
        return (src_w - w) // 2, 0, w, src_h
    h = max(1, min(src_h, round(src_w / ratio)))
    return 0, (src_h - h) // 2, src_w, h


def cover_frame(frame: np.ndarray, out_w: int, out_h: int) -> np.ndarray:
    """``frame`` scaled and centre-cropped to fill ``out_w`` x ``out_h`` (no bars, no stretch)."""
    h, w = frame.shape[:2]
    x, y, cw, ch = cover_box(w, h, out_w, out_h)
    if (cw, ch) == (out_w, out_h):
        return frame[y:y + ch, x:x + cw]
    interp = cv2.INTER_AREA if cw > out_w * 1.02 else cv2.INTER_LINEAR
    return cv2.resize(frame[y:y + ch, x:x + cw], (out_w, out_h), interpolation=interp)


def subject_cover(image: np.ndarray, subject: Subject, out_w: int, out_h: int) -> np.ndarray:
    """``image`` scaled and cropped to fill ``out_w`` x ``out_h`` pixels, the crop centred on
    the subject's focus as near as the photo's edges allow (a card over the recipient's photo
    in 9:16 shows the recipient, not the middle of a landscape photo)."""
    h, w = image.shape[:2]
    _, _, cw, ch = cover_box(w, h, out_w, out_h)
    fx, fy = subject.focus.center
    x = min(max(round(fx * w - cw / 2), 0), w - cw)
    y = min(max(round(fy * h - ch / 2), 0), h - ch)
    interp = cv2.INTER_AREA if cw > out_w * 1.02 else cv2.INTER_LINEAR
    return cv2.resize(image[y:y + ch, x:x + cw], (out_w, out_h), interpolation=interp)


def backdrop(image: np.ndarray, out_w: int, out_h: int,
             photo_box: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """A blurred, darkened cover-fit copy of ``image`` filling the frame; with ``photo_box``
    (x0, y0, x1, y1 output pixels) a soft shadow is laid where the fitted photo will sit."""
    sw, sh = max(8, out_w // BACKDROP_DOWNSCALE), max(8, out_h // BACKDROP_DOWNSCALE)
    small = _wash(cover_frame(image, sw, sh).astype(np.float32))
    small *= _backdrop_gain(sw, sh, out_w, photo_box)[:, :, None]
    small = np.clip(small + 0.5, 0, 255).astype(np.uint8)
    return cv2.resize(small, (out_w, out_h), interpolation=cv2.INTER_CUBIC)


def backdrop_i420(source: tuple[np.ndarray, np.ndarray, np.ndarray], out_w: int, out_h: int,
                  photo_box: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """:func:`backdrop` of a picture given as its Y, U, V planes (chroma half size), as a new
    I420 frame: the same cover fit, blur and darkening (toward black, Y 16 and U, V 128, which
    is what darkening RGB does) at 1/8 size, then each plane scaled up to its size."""
    sw, sh = max(8, out_w // BACKDROP_DOWNSCALE), max(8, out_h // BACKDROP_DOWNSCALE)
    y = source[0]
    x0, y0, cw, ch = cover_box(y.shape[1], y.shape[0], sw, sh)
    small = np.empty((sh, sw, 3), np.float32)
    for index, plane in enumerate(source):
        k = plane.shape[1] / y.shape[1]
        crop = plane[round(y0 * k):max(round(y0 * k) + 1, round((y0 + ch) * k)),
                     round(x0 * k):max(round(x0 * k) + 1, round((x0 + cw) * k))]
        interp = cv2.INTER_AREA if crop.shape[1] > sw * 1.02 else cv2.INTER_LINEAR
        small[..., index] = cv2.resize(crop, (sw, sh), interpolation=interp)
    offsets = np.array(yuv.PLANE_OFFSETS, np.float32)
    small = _wash(small - offsets)
    small *= _backdrop_gain(sw, sh, out_w, photo_box)[:, :, None]
    small = np.clip(small + offsets + 0.5, 0, 255).astype(np.uint8)
    frame = np.empty(yuv.frame_shape(out_w, out_h), np.uint8)
    for index, dst in enumerate(yuv.planes(frame)):
        rows, cols = dst.shape
        cv2.resize(np.ascontiguousarray(small[..., index]), (cols, rows), dst=dst,
                   interpolation=cv2.INTER_CUBIC)
    return frame


def _wash(small: np.ndarray) -> np.ndarray:
    """``small`` (float32, the backdrop at its small size) blurred by :data:`BACKDROP_BLUR` of
    its width, the blur run at :data:`BACKDROP_BLUR_SHRINK` times less (a new array)."""
    sh, sw = small.shape[:2]
    tiny = cv2.resize(small, (max(1, sw // BACKDROP_BLUR_SHRINK),
                              max(1, sh // BACKDROP_BLUR_SHRINK)), interpolation=cv2.INTER_AREA)
    tiny = cv2.GaussianBlur(tiny, (0, 0), sigmaX=tiny.shape[1] * BACKDROP_BLUR)
    return cv2.resize(tiny, (sw, sh), interpolation=cv2.INTER_LINEAR)


def _backdrop_gain(sw: int, sh: int, out_w: int,
                   photo_box: tuple[float, float, float, float] | None) -> np.ndarray:
    """The backdrop's brightness over its ``sw`` x ``sh`` pixels: dimmed, and darker in the
    soft shadow under ``photo_box`` (output pixels of an ``out_w`` wide frame)."""
    gain = np.full((sh, sw), BACKDROP_DIM, np.float32)
    if photo_box is not None:
        k = sw / out_w
        mask = np.zeros((sh, sw), np.float32)
        x0, y0, x1, y1 = (v * k for v in photo_box)
        drop = 0.012 * sh
        cv2.rectangle(mask, (round(x0), round(y0 + drop)), (round(x1), round(y1 + drop)), 1.0,
                      thickness=-1)
        mask = cv2.GaussianBlur(mask, (0, 0), sigmaX=sw / 90)
        gain *= 1.0 - SHADOW_STRENGTH * mask
    return gain


def _coverage(start: float, stop: float, lo: int, hi: int) -> np.ndarray:
    """Fraction of each pixel ``lo..hi-1`` covered by the interval [start, stop) (float32)."""
    px = np.arange(lo, hi, dtype=np.float32)
    return np.clip(np.minimum(px + 1, stop) - np.maximum(px, start), 0.0, 1.0)


def photo_box_on_frame(src: Prescaled, rect: Rect, out_w: int) -> tuple[float, float, float,
                                                                        float]:
    """Where the whole photo lands on the frame for viewport ``rect``: (x0, y0, x1, y1) pixels."""
    k = out_w / rect.w
    width, height = src.source_size
    return -rect.x * k, -rect.y * k, (width - rect.x) * k, (height - rect.y) * k


def render_fit(src: Prescaled, rect: Rect, back: np.ndarray, out: np.ndarray | None = None,
               box: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """The whole photo through viewport ``rect`` (larger than the photo) over ``back`` (the
    frame-sized backdrop, RGB or one plane), with anti-aliased edges; written to ``out`` (new
    if None) and returned. ``box`` is where the photo lands on ``back`` (x0, y0, x1, y1 of its
    pixels; default :func:`photo_box_on_frame`)."""
    out_w = back.shape[1]
    out = np.empty_like(back) if out is None else out
    box = box if box is not None else photo_box_on_frame(src, rect, out_w)
    window = draw_print(src, rect, back, out, box)
    if window is None:
        out[:] = back
        return out
    ix0, iy0, ix1, iy1 = window
    # the backdrop is copied only where the photo leaves it showing
    out[:iy0], out[iy1:] = back[:iy0], back[iy1:]
    out[iy0:iy1, :ix0], out[iy0:iy1, ix1:] = back[iy0:iy1, :ix0], back[iy0:iy1, ix1:]
    return out


def print_window(box: tuple[float, float, float, float], out_w: int, out_h: int
                 ) -> tuple[int, int, int, int] | None:
    """The frame's pixels (x0, y0, x1, y1, whole pixels, cut at the frame's edges) that a photo
    landing at ``box`` (x0, y0, x1, y1 sub-pixel) covers at least partly; None if none."""
    x0, y0, x1, y1 = box
    ix0, iy0 = max(0, math.floor(x0)), max(0, math.floor(y0))
    ix1, iy1 = min(out_w, math.ceil(x1)), min(out_h, math.ceil(y1))
    return (ix0, iy0, ix1, iy1) if ix1 > ix0 and iy1 > iy0 else None


def draw_print(src: Prescaled, rect: Rect, back: np.ndarray, out: np.ndarray,
               box: tuple[float, float, float, float]) -> tuple[int, int, int, int] | None:
    """:func:`render_fit` inside the photo's :func:`print_window` only: the photo through
    ``rect`` written into that window of ``out``, its edges blended over ``back``; the rest of
    ``out`` is left as it is. Returns the window (None: the photo misses the frame)."""
    out_h, out_w = back.shape[:2]
    window = print_window(box, out_w, out_h)
    if window is None:
        return None
    x0, y0, x1, y1 = box
    ix0, iy0, ix1, iy1 = window
    per_x, per_y = rect.w / out_w, rect.h / out_h  # source pixels per output pixel
    covered = Rect(rect.x + ix0 * per_x, rect.y + iy0 * per_y, (ix1 - ix0) * per_x,
                   (iy1 - iy0) * per_y)  # the frame's pixels the photo reaches
    fg = render_crop(src, covered, ix1 - ix0, iy1 - iy0)
    _blend_edges(fg, back[iy0:iy1, ix0:ix1], _coverage(y0, y1, iy0, iy1),
                 _coverage(x0, x1, ix0, ix1))
    out[iy0:iy1, ix0:ix1] = fg
    return window


def render_fit_i420(src: PrescaledI420, rect: Rect, back: np.ndarray,
                    planes: Sequence[np.ndarray] | None = None) -> np.ndarray | None:
    """:func:`render_fit` of every plane: the whole photo through ``rect`` over the I420
    backdrop ``back``, as a new I420 frame (the chroma planes' edges anti-aliased at their own
    resolution, the photo's box halved); or written into ``planes`` (Y, U, V of ``back``'s
    size) when given (None returned)."""
    out = np.empty_like(back) if planes is None else None
    targets = yuv.planes(out) if out is not None else planes
    for plane, under, dst, box in zip(src.planes, yuv.planes(back), targets,
                                      _plane_boxes(src, rect, back), strict=True):
        render_fit(plane, rect, under, dst, box)
    return out


def draw_print_i420(src: PrescaledI420, rect: Rect, back: np.ndarray,
                    planes: Sequence[np.ndarray]) -> list[tuple[int, int, int, int] | None]:
    """:func:`draw_print` of every plane: only the photo's window of each of ``planes`` (Y, U,
    V of the I420 backdrop ``back``'s size) is written; returns each plane's window."""
    return [draw_print(plane, rect, under, dst, box)
            for plane, under, dst, box in zip(src.planes, yuv.planes(back), planes,
                                              _plane_boxes(src, rect, back), strict=True)]


def _plane_boxes(src: PrescaledI420, rect: Rect, back: np.ndarray
                 ) -> list[tuple[float, float, float, float]]:
    """Where the photo lands through ``rect`` on each plane of the I420 frame ``back`` (x0,
    y0, x1, y1 of that plane's pixels: the luma box, halved for chroma)."""
    out_w = yuv.frame_size(back)[0]
    x0, y0, x1, y1 = photo_box_on_frame(src.y, rect, out_w)
    boxes = []
    for under in yuv.planes(back):
        k = under.shape[1] / out_w
        boxes.append((x0 * k, y0 * k, x1 * k, y1 * k))
    return boxes


def _blend_edges(fg: np.ndarray, under: np.ndarray, row_cover: np.ndarray,
                 col_cover: np.ndarray) -> None:
    """Blend ``fg`` in place over ``under`` where the photo covers pixels only partly (its
    border rows and columns, coverage ``row_cover`` x ``col_cover``); the inside stays ``fg``
    (a full-frame blend would cost as much as the warp)."""
    rows = np.flatnonzero(row_cover < 1.0)
    inner = np.ones(len(row_cover), bool)
    inner[rows] = False
    strips = [(np.s_[r, :], (row_cover[r] * col_cover)[:, None]) for r in rows]
    strips += [(np.s_[inner, c], (row_cover[inner] * col_cover[c])[:, None])
               for c in np.flatnonzero(col_cover < 1.0)]
    for where, alpha in strips:
        if fg.ndim == 2:  # one plane: a weight per pixel, no channel axis
            alpha = alpha[:, 0]
        mixed = fg[where] * alpha + under[where] * (1.0 - alpha)
        fg[where] = np.clip(mixed + 0.5, 0, 255).astype(np.uint8)


class PhotoLayer:
    """One photo shot in one aspect: pre-scaled source planes (see :func:`prescale_factor`,
    :func:`prescale_i420`), motion, and the backdrop if the photo is fitted. A frame whose
    viewport is the last one's (a hold: the move has ended, or a still) is that frame again."""

    def __init__(self, src: PrescaledI420, motion: Motion, out_w: int, out_h: int) -> None:
        self.src = src
        self.motion = motion
        self.out_w, self.out_h = out_w, out_h
        self.back: np.ndarray | None = None
        self._last: tuple[Rect, np.ndarray] | None = None
        if motion.mode != "crop":  # fit or fill: the photo does not cover the whole frame
            mid = motion.rect_at(motion.frames // 2)
            self.back = backdrop_i420(tuple(p.image for p in src.planes), out_w, out_h,
                                      photo_box_on_frame(self.src.y, mid, out_w))

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) as an I420 frame (see :mod:`media.base.yuv`);
        callers must not write to it (a hold returns the same array)."""
        rect = self.motion.rect_at(index)
        if self._last is not None and self._last[0] == rect:
            return self._last[1]
        if self.back is not None:
            frame = render_fit_i420(self.src, rect, self.back)
        else:
            frame = render_crop_i420(self.src, rect, self.out_w, self.out_h)
        self._last = (rect, frame)
        return frame

    def draw_print(self, index: int, planes: Sequence[np.ndarray]
                   ) -> list[tuple[int, int, int, int] | None]:
        """A fitted layer's frame ``index`` drawn into ``planes`` (Y, U, V of the layer's size)
        only where the photo is (:func:`draw_print_i420`): the caller has put the backdrop
        (or something made of it) there already. Returns each plane's window (x0, y0, x1, y1)
        drawn, None where the photo misses the frame."""
        if self.back is None:
            raise ValueError("only a fitted photo has a backdrop around its print")
        return draw_print_i420(self.src, self.motion.rect_at(index), self.back, planes)

    def draw(self, index: int, planes: Sequence[np.ndarray]) -> None:
        """Frame ``index`` written into ``planes`` (Y, U, V of the layer's size, views into a
        larger frame): a crop straight into them, no frame of its own in between."""
        if self.back is not None:
            render_fit_i420(self.src, self.motion.rect_at(index), self.back, planes)
            return
        draw_crop_i420(self.src, self.motion.rect_at(index), planes)
