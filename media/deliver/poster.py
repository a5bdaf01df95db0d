"""The posters: one designed still per aspect, the film's own picture with the name on it.

Each poster starts from a frame of the film of its own aspect (so the 9:16 poster is the 9:16
film's framing of the subject, never a centre crop of the landscape one), keeps the photo sharp,
darkens its lower part with a soft scrim and sets the opening card's words (occasion and name,
any script, with their shadows) in the lower third, or beside the subject (a face, a pet's head)
where the lower third would cover it, and reports where both sit (:class:`Poster`'s layout:
the gift page places its play button and controls from it). The 16:9 poster is the page's link
preview (``og:image``) and the landscape player's poster; the 9:16 one the portrait player's.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

from media.analysis.subjects import Box, find_subject, union
from media.analysis.words import WORD_SCALES, clear_of_subject
from media.base import yuv
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.cards.draw import Sprite, composite_sprite, render_card_image
from media.cards.motion import Placement, placed_sprite
from media.cards.spec import CardSpec
from media.deliver.layout import CENTRE_SUBJECT, PosterLayout

POSTER_TIMEOUT_S = 60.0
POSTER_JPEG_QUALITY = 90
TEXT_CENTRE = {False: 0.70, True: 0.68}  # text block centre, share of the height (portrait?)
SCRIM_FROM = 0.30  # the scrim starts this far down the poster (share of the height)
SCRIM_DEPTH = 0.72  # how much of the picture's light the scrim takes at the bottom edge
TEXT_SHADE = 0.45  # and how much a soft pool of shade takes behind the words
FILL_SHARPNESS = 0.25  # a blurred fill's detail, at most this share of the picture's
INK_ALPHA = 0.05  # a sprite's glyphs: where its alpha is above this


def extract_poster(video: Path, at_s: float, out_jpeg: Path) -> Path:
    """Write the frame at ``at_s`` seconds of ``video`` as a full-size JPEG (quality ~2/31)."""
    run_tool(
        ffmpeg_argv("-ss", f"{at_s:.3f}", "-i", str(video), "-frames:v", "1",
                    "-vf", "scale=in_color_matrix=bt709:in_range=tv", "-q:v", "2",
                    str(out_jpeg)),
        Limits(timeout_s=POSTER_TIMEOUT_S),
    )
    return out_jpeg


def _scrim(picture: np.ndarray, text_y: float, text_x: float | None = None) -> np.ndarray:
    """``picture`` (uint8 RGB) darkened smoothly towards its bottom edge and, softly, behind
    the text block centred at (``text_x``, ``text_y``) pixels (``text_x`` None: the middle);
    float32."""
    height, width = picture.shape[:2]
    y = (np.arange(height, dtype=np.float32) + 0.5) / height
    u = np.clip((y - SCRIM_FROM) / (1.0 - SCRIM_FROM), 0.0, 1.0)
    keep = (1.0 - SCRIM_DEPTH * (u * u * (3 - 2 * u)))[:, None]
    x = (np.arange(width, dtype=np.float32) + 0.5) / width
    unit = min(width, height)
    centre_x = 0.5 if text_x is None else text_x / width
    dx = (x[None, :] - centre_x) * width / (0.55 * width)
    dy = (y[:, None] * height - text_y) / (0.16 * height + 0.1 * unit)
    keep = keep * (1.0 - TEXT_SHADE * np.exp(-(dx * dx + dy * dy)))
    return picture.astype(np.float32) * keep[..., None]


def _as_uint8(shaded: np.ndarray) -> np.ndarray:
    """:func:`_scrim`'s picture as uint8, truncated: the scrim only darkens a uint8 picture
    (its keep is in 0-1), so every value is already within 0-255 and needs no clipping (a
    clip of the whole float picture cost as much as the scrim itself)."""
    return np.ascontiguousarray(shaded.astype(np.uint8))


def picture_rows(frame: np.ndarray) -> tuple[int, int] | None:
    """(top, bottom) pixel rows of a sharp picture sitting inside a soft, blurred fill (how the
    film frames a photo it does not crop), or None when the frame is sharp edge to edge."""
    height, width = frame.shape[:2]
    step = 4
    small = cv2.resize(frame, (max(1, width // step), max(1, height // step)),
                       interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float32)
    energy = np.abs(cv2.Laplacian(grey, cv2.CV_32F)).mean(axis=1)
    strong = energy > FILL_SHARPNESS * float(np.percentile(energy, 90))
    best = (0, 0)
    start = None
    for row, sharp in enumerate([*strong, False]):
        if sharp and start is None:
            start = row
        elif not sharp and start is not None:
            best = max(best, (start, row), key=lambda run: run[1] - run[0])
            start = None
    top, bottom = best
    outside = np.concatenate((energy[:top], energy[bottom:]))
    if bottom <= top or outside.size < 0.15 * energy.size:
        return None
    if float(outside.mean()) > FILL_SHARPNESS * float(energy[top:bottom].mean()):
        return None
    return top * step, bottom * step


def _text_centre_y(picture: np.ndarray, block_h: float) -> tuple[float, float]:
    """Where (pixel row) the words' block is centred, and at what scale: in the lower third at
    full size; or, when the frame is a picture inside a blurred fill, in the larger free band
    above or below the picture, made smaller (down to the last of :data:`WORD_SCALES`) when
    the band needs it."""
    height, width = picture.shape[:2]
    rows = picture_rows(picture)
    default = (TEXT_CENTRE[height > width] * height, 1.0)
    if rows is None:
        return default
    above, below = (0.04 * height, rows[0]), (rows[1], 0.96 * height)
    # Below (over the scrim) unless the band above is clearly the roomier one.
    band = above if above[1] - above[0] > below[1] - below[0] + 0.05 * height else below
    scale = min(1.0, (band[1] - band[0]) / max(1.0, block_h))
    return ((band[0] + band[1]) / 2, scale) if scale >= WORD_SCALES[-1] else default


def poster_subject(picture: np.ndarray) -> Box | None:
    """What the words must not cover in ``picture`` (uint8 RGB, a film frame): its faces, or
    where the eye goes (a pet's head, the boats; normalized box); None when nothing stands out.
    A film frame is already the crop: a close-up of a pet reads as scenery to the compactness
    measure, so the focus counts whatever its kind."""
    subject = find_subject(picture)
    if subject.faces:
        return union(subject.faces)
    return subject.focus if subject.source == "saliency" else None


def _inked_box(sprites: tuple[Sprite, ...]) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) pixels of the sprites' glyphs, their soft shadows left out."""
    boxes = []
    for sprite in sprites:
        rows = np.flatnonzero(sprite.alpha.max(axis=1) > INK_ALPHA)
        cols = np.flatnonzero(sprite.alpha.max(axis=0) > INK_ALPHA)
        if rows.size and cols.size:
            boxes.append((sprite.x0 + cols[0], sprite.y0 + rows[0], sprite.x0 + cols[-1] + 1,
                          sprite.y0 + rows[-1] + 1))
    if not boxes:
        return 0, 0, 0, 0
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes))


def design_poster(picture: np.ndarray, card: CardSpec, subject: Box | None = None) -> np.ndarray:
    """The poster (uint8 RGB, the size of ``picture``): ``picture`` sharp under a bottom scrim,
    with ``card``'s words (its shadows, colours and layout for this size) in the lower third,
    or beside the picture when the frame shows it inside a blurred fill, and never over
    ``subject`` (normalized box, see :func:`poster_subject`) where a band beside it fits them,
    smaller if need be."""
    return design_poster_with_layout(picture, card, subject)[0]


def design_poster_with_layout(picture: np.ndarray, card: CardSpec, subject: Box | None
                              ) -> tuple[np.ndarray, Box | None]:
    """:func:`design_poster`'s poster and where its words' glyphs landed (normalized box; None
    without words)."""
    height, width = picture.shape[:2]
    image = render_card_image(card, width, height, picture)
    if not image.sprites:
        return _as_uint8(_scrim(picture, height * 2.0)), None
    left, top, right, bottom = _inked_box(image.sprites)
    if right <= left:
        return _as_uint8(_scrim(picture, height * 2.0)), None
    ref_x, ref_y = (left + right) / 2, (top + bottom) / 2  # the inked block's centre
    shadowed_h = (max(s.y0 + s.alpha.shape[0] for s in image.sprites)
                  - min(s.y0 for s in image.sprites))
    wanted_y, fit = _text_centre_y(picture, shadowed_h)
    text_x, text_y, scale = clear_of_subject((ref_x, wanted_y),
                                             ((right - left) * fit, (bottom - top) * fit),
                                             subject, (width, height))
    scale *= fit
    text_y = min(text_y, 0.95 * height - (bottom - ref_y) * scale)  # on the poster
    shaded = _scrim(picture, text_y, text_x)
    poster = _as_uint8(shaded)
    for shade in (True, False):
        for sprite in image.sprites:
            x, y, arrays = placed_sprite(sprite, Placement(
                0, 1.0, text_x + (sprite.x0 - ref_x) * scale,
                text_y + (sprite.y0 - ref_y) * scale, scale))
            composite_sprite(poster, sprite, x, y, 1.0, shade=shade, scaled=arrays)
    words = Box(max(0.0, (text_x + (left - ref_x) * scale) / width),
                max(0.0, (text_y + (top - ref_y) * scale) / height),
                min(1.0, (text_x + (right - ref_x) * scale) / width),
                min(1.0, (text_y + (bottom - ref_y) * scale) / height))
    return poster, words


def grab_picture(video: Path, at_s: float) -> np.ndarray | None:
    """The frame at ``at_s`` seconds of ``video``, full size, uint8 RGB (BT.709 limited range
    read as such), or None past the end."""
    result = run_tool(
        ffmpeg_argv("-ss", f"{max(0.0, at_s):.3f}", "-i", str(video), "-map", "0:v:0",
                    "-frames:v", "1", "-vf", "scale=in_color_matrix=bt709:in_range=tv",
                    "-pix_fmt", "rgb24", "-f", "image2pipe", "-c:v", "ppm", "pipe:1"),
        Limits(timeout_s=POSTER_TIMEOUT_S),
    )
    if not result.stdout:
        return None
    # PPM is the raw rgb24 pixels behind a size header: a PNG's encode and decode took longer
    # than seeking to the frame and decoding it.
    with Image.open(io.BytesIO(result.stdout), formats=["PPM"]) as image:
        return np.asarray(image.convert("RGB"))


def make_poster(video: Path, at_s: float, card: CardSpec, out_jpeg: Path) -> Poster:
    """Write the designed poster of ``video`` (its frame at ``at_s`` seconds, its own size) as a
    JPEG, with its layout; a plain frame when the grab finds no picture there."""
    return _finish_poster(grab_picture(video, at_s), video, at_s, card, out_jpeg)


def make_posters(films: Sequence[tuple[Path, Path]], at_s: float, card: CardSpec
                 ) -> list[Poster]:
    """:func:`make_poster` for each (video, out_jpeg) of ``films``, same posters; all frames are
    grabbed at once, so ffmpeg seeks and decodes the next while the first is designed."""
    with ThreadPoolExecutor(max_workers=max(1, len(films))) as pool:
        frames = [pool.submit(grab_picture, video, at_s) for video, _ in films]
        return [_finish_poster(frame.result(), video, at_s, card, out_jpeg)
                for frame, (video, out_jpeg) in zip(frames, films, strict=True)]


def _finish_poster(frame: np.ndarray | None, video: Path, at_s: float, card: CardSpec,
                   out_jpeg: Path) -> Poster:
    """Design ``frame`` (``video``'s at ``at_s`` s) into the poster and write it as a JPEG;
    a plain frame grab (no words; the subject assumed in the middle) when there is no frame."""
    if frame is None:
        return Poster(extract_poster(video, at_s, out_jpeg), PosterLayout(None, CENTRE_SUBJECT))
    return write_poster(frame, card, out_jpeg)


@dataclass(frozen=True)
class Poster:
    """A written poster: its JPEG and its layout (where its words and subject sit), which the
    gift page places its play button and controls from."""

    path: Path
    layout: PosterLayout


def write_poster(picture: np.ndarray, card: CardSpec, out_jpeg: Path) -> Poster:
    """Design ``picture`` (uint8 RGB, a film frame) into the poster, write it as a JPEG, and
    report its layout: its words' box and its subject (:func:`poster_subject`, or
    :data:`~media.deliver.layout.CENTRE_SUBJECT` when nothing stands out)."""
    subject = poster_subject(picture)
    poster, words = design_poster_with_layout(picture, card, subject)
    Image.fromarray(poster).save(out_jpeg, "JPEG", quality=POSTER_JPEG_QUALITY, optimize=True,
                                 progressive=True)
    return Poster(out_jpeg, PosterLayout(text=words, subject=subject or CENTRE_SUBJECT))


class PostersFromFrames:
    """Each aspect's poster designed from the film's own frame ``frame`` as the render composes
    it, on a helper thread while the encoders run: no seek and decode of the finished films,
    and the picture is the frame before compression. Pass the instance as
    :func:`media.frames.render.render_films`'s ``on_frame``; :meth:`result` gives the posters. Use
    as
    a context manager (the helper thread ends with the block)."""

    def __init__(self, frame: int, card: CardSpec, outputs: dict[str, Path]) -> None:
        self.frame = frame
        self.card = card
        self.outputs = outputs
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="poster")
        self._made: dict[str, Future[Poster]] = {}

    def __call__(self, index: int, aspect: str, i420: np.ndarray) -> None:
        """A composed I420 frame of the film (the render never writes to it again)."""
        if index == self.frame and aspect in self.outputs:
            self._made[aspect] = self._pool.submit(
                lambda: write_poster(yuv.i420_to_rgb(i420), self.card, self.outputs[aspect]))

    def result(self, timeout_s: float = POSTER_TIMEOUT_S) -> dict[str, Poster]:
        """Every aspect's poster, by aspect name (waits up to ``timeout_s`` for each); raises
        what designing one raised, or ValueError if the render never reached the frame."""
        missing = sorted(set(self.outputs) - set(self._made))
        if missing:
            raise ValueError(f"no frame {self.frame} was composed for {missing}")
        return {name: made.result(timeout=timeout_s) for name, made in self._made.items()}

    def __enter__(self) -> PostersFromFrames:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
