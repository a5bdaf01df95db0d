"""Premium motion: 2.5D parallax. The subject is lifted onto its own layer and moves faster
than the background behind it, as if the camera dollied past a real scene; where the subject
does not come off cleanly, the roll push (:mod:`media.frames.roll`) instead.

:func:`cut_subject` cuts the subject (:func:`media.frames.matte.matte_cut`) and then scores
what the fill will expose (:func:`exposure_score`): the background's fine detail in the strips
beside the subject that a slide of :data:`MAX_SHIFT` uncovers, in every direction
(:mod:`media.frames.fill`: a smooth fill is invisible beside a wall or the sky, a smear beside
rock, foliage or stray hair the matte left behind). The parallax score is the lower of the two;
under :data:`media.frames.matte.QUALITY_MIN` there is no parallax (the planner gives the photo
the roll push), above it the score bounds the slide (:func:`bounded_rate`). The planner
(:func:`matte_score`) and the render both cut the same ungraded photo with the same seeded,
deterministic steps, so they agree.

:class:`ParallaxLayers` holds the foreground (RGBA: the soft matte of
:func:`media.frames.soft_matte.soft_matte`, in which the strands at the cut's edge, hair against
the sky, are lifted with the subject) and a background filled behind everything the foreground
holds and a hair's breadth more (:func:`media.frames.fill.filled_background`), the photo's own
beyond: what the moving subject reveals is never its ghost, and nothing beside it is blurred
before it moves.

:class:`ParallaxLayer` renders a shot: the foreground follows the planned Ken Burns move
(:func:`media.analysis.framing.plan_ken_burns`, so faces stay in frame and the path stays smooth),
the background the same eased path scaled about its midpoint by a rate chosen so that the subject
slides over the background by at most its matte's score times :data:`MAX_SHIFT` of the frame
(:func:`bounded_rate`); both are float affine warps (sub-pixel), the foreground warped only over
its bounding box and blended by its alpha.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from media.analysis.camera import Motion, Rect
from media.analysis.subjects import Subject
from media.base import yuv
from media.frames.compose import (
    Prescaled,
    PrescaledI420,
    prescale,
    prescale_i420,
    render_crop_i420,
    viewport_matrix,
)
from media.frames.fill import (
    FILL_ALPHA,
    background_detail,
    covered,
    filled_background,
    uncovered_detail,
)
from media.frames.matte import QUALITY_MIN, Separation, matte_cut, ramp
from media.frames.soft_matte import layer_matte, soft_matte

LAYER_LONG_EDGE = 2560  # pixels: layers are built no larger (a 1080p frame shows a 12 MP photo
# at about half size; full-size layers of one photo held ~1 GB at once)
EXPOSE_LONG_EDGE = 768  # pixels: the uncovered background's detail is measured this large
DETAIL_PLAIN, DETAIL_BUSY = 3.0, 9.0  # detail (luminance RMS, 0..255) where a fill stays
# invisible at the largest slide .. shows even at half of it
BACKGROUND_RATE = 0.35  # the background moves this share of the subject's move
MAX_SHIFT = 0.015  # largest subject-over-background shift (share of the frame width) of a
# perfect matte; a matte scoring q gets q times this
PREMULTIPLY_ROWS = 256  # rows of the foreground premultiplied at a time


@dataclass(frozen=True)
class ParallaxLayers:
    """The two layers of a photo at its full resolution: ``foreground`` RGBA (alpha feathered,
    zero away from the subject) and ``background`` RGB (subject region filled). ``bbox`` is the
    foreground's extent in photo pixels (x0, y0, x1, y1)."""

    foreground: np.ndarray
    background: np.ndarray
    bbox: tuple[int, int, int, int]
    separation: Separation
    scale: float = 1.0  # layer pixels per photo pixel (see LAYER_LONG_EDGE)


# --- the parallax verdict: the cut, and what the slide would expose beside it -----------------


def exposure_score(image_rgb: np.ndarray, piece: np.ndarray) -> tuple[float, float]:
    """How clean the fill stays where the subject slides off it (0..1) and the detail it is
    judged by (see :func:`uncovered_detail`), measured on a copy :data:`EXPOSE_LONG_EDGE`
    pixels long with the soft matte the layers use (:func:`soft_matte`): 1 up to
    :data:`DETAIL_PLAIN`, 0 from :data:`DETAIL_BUSY`. The band is the largest slide
    (:data:`MAX_SHIFT` of the long edge); the score then bounds the slide
    (:func:`bounded_rate`), so a busy background gets a small one or none."""
    h, w = image_rgb.shape[:2]
    k = min(1.0, EXPOSE_LONG_EDGE / max(h, w))
    work = image_rgb if k >= 1.0 else cv2.resize(
        image_rgb, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    hidden = covered(soft_matte(work, piece).alpha > FILL_ALPHA)
    detail = uncovered_detail(background_detail(work, hidden), hidden,
                              max(2.0, MAX_SHIFT * max(work.shape[:2])))
    return ramp(detail, DETAIL_BUSY, DETAIL_PLAIN), detail


def cut_subject(image_rgb: np.ndarray, subject: Subject) -> tuple[np.ndarray | None,
                                                                  Separation]:
    """The subject's cut (:func:`matte_cut`) and the parallax verdict: its ``quality`` is the
    lower of the matte's score (``matte``) and what the fill will expose
    (:func:`exposure_score`, by the background's ``detail`` beside the subject), the score
    that bounds the slide; None with the reason when either is under :data:`QUALITY_MIN`.
    What the planner reads (:func:`matte_score`) and what the render lifts layers from
    (:func:`layers_from_cut`): both cut the same ungraded photo, so they agree."""
    piece, verdict = matte_cut(image_rgb, subject)
    if piece is None:
        return None, verdict
    exposure, detail = exposure_score(image_rgb, piece)
    quality = min(verdict.quality, exposure)
    verdict = replace(verdict, detail=round(detail, 2), quality=round(quality, 4))
    if quality < QUALITY_MIN:
        return None, replace(verdict, ok=False, reason=(
            f"busy background beside the subject: the fill would show (detail {detail:.1f} "
            f"over {DETAIL_PLAIN:g}..{DETAIL_BUSY:g}, score {quality:.2f})"))
    return piece, verdict


def matte_score(image_rgb: np.ndarray, subject: Subject) -> float:
    """The photo's usable matte score (0..1, see :func:`media.frames.matte.matte_quality`) for
    the planner: the score of its subject's cut when every check passes, else 0 (no
    parallax)."""
    _, verdict = cut_subject(image_rgb, subject)
    return verdict.quality if verdict.ok else 0.0


def layers_from_cut(image_rgb: np.ndarray, piece: np.ndarray,
                    verdict: Separation) -> ParallaxLayers:
    """The two layers of an RGB uint8 photo (the graded picture the film shows) from its cut
    ``piece`` (:func:`cut_subject`), built at most :data:`LAYER_LONG_EDGE` pixels long."""
    h, w = image_rgb.shape[:2]
    k = min(1.0, LAYER_LONG_EDGE / max(h, w))
    work = image_rgb if k >= 1.0 else cv2.resize(
        image_rgb, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
    return build_layers(work, piece, verdict, scale=k)


def separate_subject(image_rgb: np.ndarray, subject: Subject) -> tuple[ParallaxLayers | None,
                                                                       Separation]:
    """Lift the subject of an RGB uint8 photo onto its own layer (see module doc): its cut
    (:func:`cut_subject`) and the layers from it (:func:`layers_from_cut`).

    Returns the layers at the photo's resolution, or None with the reason when there is no
    subject to separate or the separation measures poorly.
    """
    piece, verdict = cut_subject(image_rgb, subject)
    if piece is None:
        return None, verdict
    return layers_from_cut(image_rgb, piece, verdict), verdict


# --- layers ----------------------------------------------------------------------------------


def build_layers(image_rgb: np.ndarray, piece: np.ndarray, separation: Separation,
                 scale: float = 1.0) -> ParallaxLayers:
    """Full-resolution foreground (RGBA: the soft matte, its edge in the subject's own colours)
    and filled background from a low-resolution foreground mask ``piece`` (bool, same ratio
    as the photo)."""
    alpha, colour = layer_matte(image_rgb, piece)
    foreground = np.dstack([colour, alpha])
    del colour
    background = filled_background(image_rgb, alpha)
    ys, xs = np.nonzero(alpha)
    bbox = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1) if xs.size \
        else (0, 0, 0, 0)
    if scale != 1.0:  # bbox in photo pixels, rounded outwards
        bbox = (math.floor(bbox[0] / scale), math.floor(bbox[1] / scale),
                math.ceil(bbox[2] / scale), math.ceil(bbox[3] / scale))
    return ParallaxLayers(foreground, background, bbox, separation, scale)


def background_motion(motion: Motion, rate: float = BACKGROUND_RATE) -> Motion:
    """The background's move: ``motion``'s eased path scaled by ``rate`` about its midpoint
    (convex combinations of the planned viewports, so it stays inside the photo)."""
    lo, hi = (1.0 - rate) / 2, (1.0 + rate) / 2
    return Motion(motion.mode, motion.start.lerp(motion.end, lo),
                  motion.start.lerp(motion.end, hi), motion.frames, motion.move)


@dataclass(frozen=True)
class ScaledLayers:
    """:class:`ParallaxLayers` pre-scaled for one output size (see
    :func:`media.frames.compose.prescale_factor`) and converted once to the film's planes (see
    :mod:`media.base.yuv`), ready for "over" compositing with premultiplied alpha: per plane the
    foreground's value times its alpha and the alpha's complement (uint8; chroma ones are
    2x2 averages of the premultiplied values, so a frame costs cheap warps, a multiply and an
    add per plane) and the background."""

    premultiplied: PrescaledI420
    transparency: PrescaledI420  # 255 - alpha: y at luma size, u and v (equal) at chroma size
    background: PrescaledI420
    bbox: tuple[float, float, float, float]  # foreground extent, original photo pixels
    quality: float = 1.0  # the matte's score (see matte_quality)


def _premultiplied_planes(foreground: np.ndarray) -> list[np.ndarray]:
    """Y, U and V of an RGBA ``foreground`` times its alpha (uint8, rounded), worked in strips
    of :data:`PREMULTIPLY_ROWS` rows: whole, the float temporaries of a large layer were the
    render's memory peak."""
    height, width = foreground.shape[:2]
    out = [np.empty((height, width), np.uint8) for _ in range(3)]
    for top in range(0, height, PREMULTIPLY_ROWS):
        rows = slice(top, top + PREMULTIPLY_ROWS)
        weight = foreground[rows, :, 3].astype(np.float32) / 255.0
        planes = yuv.rgb_to_yuv444(foreground[rows])
        for plane, dst in enumerate(out):
            dst[rows] = np.clip(planes[..., plane] * weight + 0.5, 0, 255).astype(np.uint8)
    return out


def scale_layers(layers: ParallaxLayers, factor: float) -> ScaledLayers:
    """Both layers area-downscaled to ``factor`` of the photo's size (no change if the layers
    are that small already) and converted to planes; the foreground is premultiplied first
    (its Y, U and V, black being zero), so its downscaled edge does not pick up a fringe."""
    alpha = np.ascontiguousarray(layers.foreground[..., 3])
    k = factor / layers.scale  # vs the layer's size

    def scaled(plane: np.ndarray, chroma: bool) -> Prescaled:
        done = prescale(plane, k * (0.5 if chroma else 1.0), margin=False)  # chroma: half
        return Prescaled(done.image, done.sx * layers.scale, done.sy * layers.scale)

    premultiplied = _premultiplied_planes(layers.foreground)
    clear = 255 - alpha
    back = prescale_i420(layers.background, k, margin=False)
    background = PrescaledI420(*(Prescaled(p.image, p.sx * layers.scale, p.sy * layers.scale)
                                 for p in back.planes))
    return ScaledLayers(
        PrescaledI420(scaled(premultiplied[0], False), scaled(premultiplied[1], True),
                      scaled(premultiplied[2], True)),
        PrescaledI420(scaled(clear, False), *(2 * (scaled(clear, True),))),
        background, tuple(float(v) for v in layers.bbox), layers.separation.quality)


def relative_shift(motion: Motion, back: Motion, bbox: tuple[float, float, float, float],
                   out_w: int) -> float:
    """The largest distance (output pixels) between where the foreground and the background
    draw one photo point of ``bbox`` (its corners and centre), at the shot's ends and middle:
    how far the subject slides over what is behind it."""
    x0, y0, x1, y1 = bbox
    points = ((x0, y0), (x1, y0), (x0, y1), (x1, y1), ((x0 + x1) / 2, (y0 + y1) / 2))
    worst = 0.0
    for index in (0, motion.frames // 2, motion.frames - 1):
        fore, rear = motion.rect_at(index), back.rect_at(index)
        kf, kb = out_w / fore.w, out_w / rear.w
        for px, py in points:
            dx = (px - fore.x) * kf - (px - rear.x) * kb
            dy = (py - fore.y) * kf - (py - rear.y) * kb
            worst = max(worst, math.hypot(dx, dy))
    return worst


def bounded_rate(motion: Motion, bbox: tuple[float, float, float, float], out_w: int,
                 quality: float, rate: float = BACKGROUND_RATE) -> float:
    """The background's rate (see :func:`background_motion`) for a matte scoring ``quality``:
    ``rate`` unless the subject would then slide more than ``quality`` times
    :data:`MAX_SHIFT` of the frame over the background; then the background follows the
    subject more closely, so the sliver the subject uncovers stays thin (the relative shift is
    about proportional to ``1 - rate``)."""
    allowed = max(0.0, quality) * MAX_SHIFT * out_w
    shift = relative_shift(motion, background_motion(motion, rate), bbox, out_w)
    if shift <= allowed or shift <= 0.0:
        return rate
    return 1.0 - (1.0 - rate) * allowed / shift


class ParallaxLayer:
    """One parallax shot in one aspect: the foreground on ``motion``, the background on
    :func:`background_motion` at a rate bounded by the matte's quality (see
    :func:`bounded_rate`), composited with the feathered alpha."""

    def __init__(self, layers: ScaledLayers, motion: Motion, out_w: int, out_h: int,
                 rate: float = BACKGROUND_RATE) -> None:
        self.layers = layers
        self.motion = motion
        self.rate = bounded_rate(motion, layers.bbox, out_w, layers.quality, rate)
        self.back_motion = background_motion(motion, self.rate)
        self.out_w, self.out_h = out_w, out_h

    def _roi(self, index: int) -> tuple[int, int, int, int]:
        """Output pixels (x0, y0, x1, y1) the foreground can touch at frame ``index``: even,
        so the chroma planes' region is exactly half of it."""
        rect = self.motion.rect_at(index)
        k = self.out_w / rect.w
        x0, y0, x1, y1 = self.layers.bbox
        ix0 = max(0, math.floor((x0 - rect.x) * k) - 1)
        iy0 = max(0, math.floor((y0 - rect.y) * k) - 1)
        ix1 = min(self.out_w, math.ceil((x1 - rect.x) * k) + 1)
        iy1 = min(self.out_h, math.ceil((y1 - rect.y) * k) + 1)
        return ix0 - ix0 % 2, iy0 - iy0 % 2, ix1 + ix1 % 2, iy1 + iy1 % 2

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` (0-based within the shot) as a new I420 frame (see
        :mod:`media.base.yuv`): the background, then the foreground "over" it, plane by plane (out
        = back * (1 - alpha) + fore * alpha)."""
        out = render_crop_i420(self.layers.background, self.back_motion.rect_at(index),
                               self.out_w, self.out_h)
        ix0, iy0, ix1, iy1 = self._roi(index)
        if ix1 <= ix0 or iy1 <= iy0:
            return out
        rect = self.motion.rect_at(index)
        for k, fore_src, clear_src, plane in zip(
                (1, 2, 2), self.layers.premultiplied.planes, self.layers.transparency.planes,
                yuv.planes(out), strict=True):
            size, offset = ((ix1 - ix0) // k, (iy1 - iy0) // k), (ix0 // k, iy0 // k)
            plane_size = (self.out_w // k, self.out_h // k)
            fore = self._warp(fore_src, rect, size, offset, 0, plane_size)
            clear = self._warp(clear_src, rect, size, offset, 255, plane_size)
            region = plane[offset[1]:offset[1] + size[1], offset[0]:offset[0] + size[0]]
            region[:] = cv2.add(cv2.multiply(region, clear, scale=1.0 / 255.0), fore)
        return out

    def _warp(self, src: Prescaled, rect: Rect, size: tuple[int, int],
              offset: tuple[int, int], outside: int, plane_size: tuple[int, int]
              ) -> np.ndarray:
        """``src`` through viewport ``rect`` over the region at ``offset`` of ``size`` (pixels
        of a plane ``plane_size`` large); ``outside`` fills what lies beyond the photo."""
        matrix = viewport_matrix(rect, src, *plane_size, offset=offset)
        return cv2.warpAffine(src.image, matrix, size, flags=cv2.INTER_LINEAR
                              | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=outside)
