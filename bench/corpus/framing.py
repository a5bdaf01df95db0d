"""Each shot's camera, frame by frame, as the renderer plans it, without a pixel.

:func:`shot_views` runs the render's own photo shots (:class:`media.frames.photo_shots.
PhotoShots`: which showing of a photo a shot is, the closer look of a repeat
(:func:`media.analysis.detail.showing_frame`), the camera move
(:func:`media.analysis.framing.plan_ken_burns`), a layout's cells) over stand-ins: each photo
is its size, the subject the assets stage found and its texture map (all from the corpus
fixture), and the layers that would draw pixels are recorders of their moves. A card over a
photo is framed as :class:`media.frames.card_shots.CardShots` frames it (the photo's layers,
reframed where its words would lie over a face), and where its words go is recorded. What it
returns per shot and aspect is a list of :class:`View`: a photo, the rectangle of it on screen
at each frame (source pixels) and where on the frame that rectangle is drawn (a cell's box,
else the whole frame). The parallax and roll layers move their subject a little off the
camera's rectangle (a depth slide, a turn): their views are the camera's.

This module is the one place that knows the renderer's insides; it follows the renderer when
that changes (``tests/test_corpus.py`` fails when a name it swaps is gone).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from media.analysis.camera import Motion, Rect
from media.analysis.subjects import Subject
from media.base import spec
from media.frames import photo_shots as render_photos
from media.frames.card_shots import CardShots
from media.frames.sources import card_photo
from media.plan.timeline import Timeline

_PATCH_LOCK = threading.Lock()
SWAPPED = ("PhotoLayer", "ParallaxLayer", "RollPushLayer", "SplitLayer", "cv2", "texture_map")
"""The names of :mod:`media.frames.photo_shots` that draw or read pixels, swapped for
recorders while the views are planned (``steady`` is read as it is)."""

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class View:
    """One photo on screen over a shot in one aspect: ``motion`` (its rectangles, source
    pixels), sampled at ``offset`` + the shot's frame index, drawn into ``box`` (x0, y0, x1,
    y1 frame pixels)."""

    photo_id: str
    motion: Motion
    box: Box
    offset: int = 0

    def rect(self, frame: int) -> Rect:
        """The rectangle of the photo on screen at the shot's ``frame``."""
        return self.motion.rect_at(frame + self.offset)

    def to_screen(self, frame: int, box: Box) -> Box:
        """Where the photo's pixel ``box`` is on the frame at the shot's ``frame`` (frame
        pixels, not clipped)."""
        rect = self.rect(frame)
        kx = (self.box[2] - self.box[0]) / rect.w
        ky = (self.box[3] - self.box[1]) / rect.h
        return (self.box[0] + (box[0] - rect.x) * kx, self.box[1] + (box[1] - rect.y) * ky,
                self.box[0] + (box[2] - rect.x) * kx, self.box[1] + (box[3] - rect.y) * ky)


@dataclass(frozen=True)
class PhotoFacts:
    """What the renderer reads of a photo beside its pixels: its working copy's ``width`` and
    ``height``, the ``subject`` the assets stage found and its ``texture`` map
    (:func:`media.analysis.detail.texture_map`)."""

    width: int
    height: int
    subject: Subject
    texture: np.ndarray


class _Image:
    """A photo's stand-in: its shape, and the texture map the render would compute from it."""

    def __init__(self, width: int, height: int, texture: np.ndarray) -> None:
        self.shape = (height, width, 3)
        self.texture = texture


class _Photo:
    """The store's held photo without pixels: a layer made from it records the photo's id."""

    def __init__(self, photo_id: str, facts: PhotoFacts) -> None:
        self.image = _Image(facts.width, facts.height, facts.texture)
        self.subject = facts.subject
        self.photo_id = photo_id
        self.separated = ""

    def prescaled(self, factor: float) -> str:
        return self.photo_id

    def parallax(self, factor: float) -> str:
        return self.photo_id


class _Store:
    """The photo store over the fixture's facts."""

    def __init__(self, facts: Mapping[str, PhotoFacts]) -> None:
        self.facts = facts

    def acquire(self, photo_id: str) -> _Photo:
        return _Photo(photo_id, self.facts[photo_id])

    def release(self, photo_id: str) -> None:
        return None


class _Layer:
    """Records one layer's photo and move (stands in for the photo, parallax, roll layers)."""

    def __init__(self, src: str, motion: Motion, out_w: int, out_h: int) -> None:
        self.photo_id, self.motion = src, motion


class _Split:
    """Records a layout's cells (stands in for :class:`media.frames.split.SplitLayer`)."""

    def __init__(self, halves: Any, boxes: Any, aspect: Any, gutter: Any, lead: int,
                 gutters: Any = None) -> None:
        self.halves, self.boxes, self.lead = tuple(halves), tuple(boxes), lead


class _Cv:
    """What the photo shots ask of OpenCV (a grey copy for the texture map)."""

    COLOR_RGB2GRAY = 0

    @staticmethod
    def cvtColor(image: _Image, code: int) -> _Image:
        return image


@contextlib.contextmanager
def _recording() -> Iterator[None]:
    """The photo shots' pixel layers swapped for recorders while planning (one at a time)."""
    names = dict(zip(SWAPPED, (_Layer, _Layer, _Layer, _Split, _Cv,
                               lambda image: image.texture), strict=True))
    with _PATCH_LOCK:
        saved = {name: getattr(render_photos, name) for name in names}
        try:
            for name, value in names.items():
                setattr(render_photos, name, value)
            yield
        finally:
            for name, value in saved.items():
                setattr(render_photos, name, value)


def _views_of(layer: Any, aspect: spec.Aspect) -> list[View]:
    if isinstance(layer, _Split):
        return [View(half.photo_id, half.motion, (float(b.x), float(b.y), float(b.x + b.w),
                                                  float(b.y + b.h)), k * layer.lead)
                for k, (half, b) in enumerate(zip(layer.halves, layer.boxes, strict=True))]
    return [View(layer.photo_id, layer.motion, (0.0, 0.0, float(aspect.width),
                                                float(aspect.height)))]


WordsPlaces = dict[int, dict[str, "tuple[float, float, float] | None"]]
"""Card shot index -> aspect name -> where its words go over its photo (centre x, y pixels,
scale; None: it draws none), as :meth:`media.frames.card_shots.CardShots.framed` puts them."""


def shot_views(timeline: Timeline, facts: Mapping[str, PhotoFacts],
               aspects: tuple[spec.Aspect, ...] = spec.ASPECTS,
               words: WordsPlaces | None = None) -> list[dict[str, list[View]]]:
    """Every shot's views per aspect name (empty for clips and bare cards); ``facts`` are the
    photos' by id. ``words``, when given, receives where each card over a photo sets its words
    (laid out as the render lays them, without a brand logo)."""
    out: list[dict[str, list[View]]] = []
    with _recording():
        shots = render_photos.PhotoShots(timeline, aspects, _Store(facts), [])  # type: ignore[arg-type]
        cards = CardShots(aspects, shots)
        for index, shot in enumerate(timeline.shots):
            if shot.kind == "photo":
                layers = shots.prepare(index).layers
            elif shot.kind == "card" and (photo_id := card_photo(timeline, index)):
                layers, places = cards.framed(index, _Photo(photo_id, facts[photo_id]),  # type: ignore[arg-type]
                                              photo_id)
                if words is not None:
                    words[index] = places
            else:
                out.append({})
                continue
            out.append({a.name: _views_of(layers[a.name], a) for a in aspects})
    return out
