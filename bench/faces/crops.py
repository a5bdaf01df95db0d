"""Every photo on screen in a planned film, frame by frame, without a pixel, and the faces its
frames cut: ``faces whole`` (issue 42) checked at plan level.

:func:`shot_views` runs the render's own photo framing (:class:`media.frames.photo_shots.
PhotoShots`: which showing of a photo a shot is, the closer look of a repeat, the camera move,
the cells of a layout; the photo behind a card) with the layers that would draw pixels replaced
by recorders of their moves (a roll push's with its push in about the frame's centre) and the
photos by their sizes. :func:`cut_faces` says which frames
cut a face's eyes-to-mouth core (:attr:`media.analysis.subjects.Subject.cores`, its whole face
for a subject stored without cores): partly inside a frame's rectangle of the photo, not
wholly. A core wholly inside or wholly outside is kept whole.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from media.analysis.camera import Motion, Rect
from media.analysis.subjects import Box, Subject
from media.base import spec
from media.frames import photo_shots
from media.frames.photo_shots import PhotoShots, steady
from media.frames.roll import RollPushLayer
from media.frames.sources import card_photo
from media.plan.timeline import Timeline

FRAME_STEP = 2  # frames between the samples of a move (its first and last always sampled)
TOLERANCE_PX = 0.5  # source pixels a core may pass a frame's edge by (rounding)
_PATCH_LOCK = threading.Lock()


@dataclass(frozen=True)
class View:
    """One photo on screen over a shot in one aspect: ``motion`` (its rectangles, source
    pixels) sampled at ``offset`` + the shot's frame index; ``cell``: drawn in a layout's
    cell, not the whole frame."""

    photo_id: str
    motion: Motion
    offset: int = 0
    cell: bool = False

    def rect(self, frame: int) -> Rect:
        """The rectangle of the photo on screen at the shot's ``frame``."""
        return self.motion.rect_at(frame + self.offset)


class _Image:
    """A photo's stand-in: its shape, and the texture map the render would compute from it."""

    def __init__(self, width: int, height: int, texture: np.ndarray) -> None:
        self.shape = (height, width, 3)
        self.texture = texture


class _Held:
    """The store's decoded photo, without pixels."""

    def __init__(self, image: _Image, subject: Subject) -> None:
        self.image, self.subject, self.separated = image, subject, ""

    def prescaled(self, factor: float) -> None:
        return None

    def parallax(self, factor: float) -> object:
        return self  # any layers: the parallax layer records the camera's move


class _Store:
    """The photo store over sizes, subjects and texture maps."""

    def __init__(self, sizes: Mapping[str, tuple[int, int]], subjects: Mapping[str, Subject],
                 textures: Mapping[str, np.ndarray]) -> None:
        self.sizes, self.subjects, self.textures = sizes, subjects, textures

    def acquire(self, photo_id: str) -> _Held:
        width, height = self.sizes[photo_id]
        texture = self.textures.get(photo_id)
        return _Held(_Image(width, height, texture if texture is not None else flat_texture()),
                     self.subjects[photo_id])

    def release(self, photo_id: str) -> None:
        return None


class _Layer:
    """Records one layer's move (stands in for the photo, parallax and roll layers)."""

    def __init__(self, src: object, motion: Motion, out_w: int, out_h: int) -> None:
        self.motion = motion


class _Rolled:
    """A roll push's move: the planned viewport pushed in about its centre by the roll's zoom
    at each frame (:class:`media.frames.roll.RollPushLayer`; its small turn left out)."""

    def __init__(self, motion: Motion, layer: RollPushLayer) -> None:
        self.planned, self.layer = motion, layer
        self.mode, self.move, self.frames = motion.mode, f"roll {motion.move}", motion.frames

    def rect_at(self, frame: int) -> Rect:
        rect = self.planned.rect_at(frame)
        zoom = self.layer.turn_at(frame)[1]
        w, h = rect.w / zoom, rect.h / zoom
        return Rect(rect.cx - w / 2, rect.cy - h / 2, w, h)


class _RollLayer:
    """Records a roll push's move (stands in for :class:`media.frames.roll.RollPushLayer`)."""

    def __init__(self, src: object, motion: Motion, out_w: int, out_h: int) -> None:
        self.motion = _Rolled(motion, RollPushLayer(None, motion, out_w, out_h))  # type: ignore


class _Split:
    """Records a layout's cells (stands in for :class:`media.frames.split.SplitLayer`)."""

    def __init__(self, halves: Any, boxes: Any, aspect: Any, gutter: Any, lead: int,
                 gutters: Any = None) -> None:
        self.halves, self.lead = tuple(halves), lead


class _CvShim:
    """What the framing asks of OpenCV on a photo (its grey copy for the texture map)."""

    COLOR_RGB2GRAY = 0

    @staticmethod
    def cvtColor(image: _Image, code: int) -> _Image:
        return image


@contextlib.contextmanager
def _recording() -> Iterator[None]:
    """The pixel layers swapped for recorders while framing (one film at a time)."""
    names = {"PhotoLayer": _Layer, "ParallaxLayer": _Layer, "RollPushLayer": _RollLayer,
             "SplitLayer": _Split, "cv2": _CvShim, "texture_map": lambda image: image.texture}
    with _PATCH_LOCK:
        saved = {name: getattr(photo_shots, name) for name in names}
        try:
            for name, value in names.items():
                setattr(photo_shots, name, value)
            yield
        finally:
            for name, value in saved.items():
                setattr(photo_shots, name, value)


def _views(shots: PhotoShots, timeline: Timeline, index: int) -> dict[str, list[View]]:
    """Shot ``index``'s views per aspect name (empty for clips and cards without a photo)."""
    shot = timeline.shots[index]
    if shot.kind == "card":
        photo_id = card_photo(timeline, index)
        if not photo_id:
            return {}
        layers = shots.layers(shots.store.acquire(photo_id), photo_id, shot, {}, shots.aspects,
                              steady(timeline, index))
        return {name: [View(photo_id, layer.motion)] for name, layer in layers.items()}
    if shot.kind != "photo":
        return {}
    prepared = shots.prepare(index)
    ids = [p for p in (shot.source_id, shot.partner_id, shot.second_partner_id) if p]
    out: dict[str, list[View]] = {}
    for aspect in shots.aspects:
        layer = prepared.layers[aspect.name]
        if isinstance(layer, _Split):
            order = [ids[1], ids[0]] if shot.layout == "inset" else ids
            out[aspect.name] = [View(pid, half.motion, k * layer.lead, True)
                                for k, (pid, half) in enumerate(zip(order, layer.halves,
                                                                    strict=False))]
        else:
            out[aspect.name] = [View(ids[0], layer.motion)]  # type: ignore[union-attr]
    return out


def shot_views(timeline: Timeline, sizes: Mapping[str, tuple[int, int]],
               subjects: Mapping[str, Subject],
               textures: Mapping[str, np.ndarray] | None = None) -> list[dict[str, list[View]]]:
    """Every shot's views per aspect name (see :class:`View`): ``sizes`` the photos' (width,
    height) pixels, ``subjects`` what the assets stage found, ``textures`` their texture maps
    (:func:`media.analysis.detail.texture_map`; flat when not given)."""
    with _recording():
        shots = PhotoShots(timeline, spec.ASPECTS, _Store(sizes, subjects, textures or {}),
                           [])  # type: ignore[arg-type]
        return [_views(shots, timeline, i) for i in range(len(timeline.shots))]


def flat_texture() -> np.ndarray:
    """A texture map with nothing textured."""
    return np.zeros((8, 8), np.float32)


def face_cores(subject: Subject) -> tuple[Box, ...]:
    """The eyes-to-mouth cores a frame must never cut: the subject's cores, or its whole faces
    when it was stored without them (a salient stand-in is no face)."""
    if subject.source != "faces":
        return ()
    return subject.cores or subject.faces


def is_cut(core: tuple[float, float, float, float], rect: Rect) -> bool:
    """True when ``core`` (x0, y0, x1, y1 source pixels) is partly, not wholly, inside
    ``rect``."""
    x0, y0, x1, y1 = core
    ix = min(x1, rect.x + rect.w) - max(x0, rect.x)
    iy = min(y1, rect.y + rect.h) - max(y0, rect.y)
    if ix <= 0 or iy <= 0:
        return False
    return not rect.contains(core, tol=TOLERANCE_PX)


def sampled(frames: int) -> list[int]:
    """The frames of a ``frames``-long shot a check samples (every :data:`FRAME_STEP`-th, the
    last too)."""
    last = max(0, frames - 1)
    return sorted({*range(0, last, FRAME_STEP), last})


def cut_faces(timeline: Timeline, sizes: Mapping[str, tuple[int, int]],
              subjects: Mapping[str, Subject],
              textures: Mapping[str, np.ndarray] | None = None,
              cores: Mapping[str, tuple[Box, ...]] | None = None) -> list[str]:
    """Every shot, aspect and photo whose frames cut a face's core (one line each: where and
    how often); empty when every face is whole or absent in every sampled frame. The photos
    are framed by their ``subjects`` and judged by ``cores`` (normalized boxes by photo id;
    default :func:`face_cores` of the subjects: labelled faces judge a detector's framing)."""
    out = []
    views = shot_views(timeline, sizes, subjects, textures)
    for index, (shot, by_aspect) in enumerate(zip(timeline.shots, views, strict=True)):
        for aspect, shown in by_aspect.items():
            for view in shown:
                width, height = sizes[view.photo_id]
                judged = (cores.get(view.photo_id, ()) if cores is not None
                          else face_cores(subjects[view.photo_id]))
                for k, core in enumerate(judged):
                    px = core.to_pixels(width, height)
                    frames = sampled(shot.frames)
                    bad = [f for f in frames if is_cut(px, view.rect(f))]
                    if bad:
                        out.append(f"#{index} {shot.kind} {aspect} {view.photo_id} face{k}: "
                                   f"cut in {len(bad)}/{len(frames)} frames "
                                   f"({'cell' if view.cell else view.motion.mode} "
                                   f"{view.motion.move})")
    return out
