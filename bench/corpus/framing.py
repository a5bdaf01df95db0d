"""Each shot's camera, frame by frame, as the renderer plans it, without a pixel.

:func:`shot_views` runs the render's own preparation (:class:`media.frames.sources.
SourcePreparer`: which showing of a photo a shot is, the closer look of a repeat
(:mod:`media.look.detail`), the camera move (:func:`media.look.framing.plan_ken_burns`), the
cells of a layout) with the layers that would draw pixels replaced by recorders of their
moves, the photos by their sizes and the texture maps by the cached ones. What it returns per
shot and aspect is a list of :class:`View`: a photo, the rectangle of it on screen at each frame
(source pixels) and where on the frame that rectangle is drawn (a cell's box, else the whole
frame). The parallax and roll layers move their subject a little off the camera's rectangle
(a depth slide, a turn): their views are the camera's. This module is the one place that knows
the preparer's inside; it follows the renderer when that changes.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from media.base import spec
from media.frames import sources as render_sources
from media.look.framing import Motion, Rect
from media.look.subjects import Subject
from media.plan.timeline import Timeline

_PATCH_LOCK = threading.Lock()


@dataclass(frozen=True)
class View:
    """One photo on screen over a shot in one aspect: ``motion`` (its rectangles, source
    pixels), sampled at ``offset`` + the shot's frame index, drawn into ``box`` (x0, y0, x1,
    y1 frame pixels)."""

    photo_id: str
    motion: Motion
    box: tuple[float, float, float, float]
    offset: int = 0

    def rect(self, frame: int) -> Rect:
        """The rectangle of the photo on screen at the shot's ``frame``."""
        return self.motion.rect_at(frame + self.offset)

    def to_screen(self, frame: int, box: tuple[float, float, float, float]
                  ) -> tuple[float, float, float, float]:
        """Where the photo's pixel ``box`` is on the frame at the shot's ``frame`` (frame
        pixels, not clipped)."""
        rect = self.rect(frame)
        kx = (self.box[2] - self.box[0]) / rect.w
        ky = (self.box[3] - self.box[1]) / rect.h
        return (self.box[0] + (box[0] - rect.x) * kx, self.box[1] + (box[1] - rect.y) * ky,
                self.box[0] + (box[2] - rect.x) * kx, self.box[1] + (box[3] - rect.y) * ky)


class _Image:
    """A photo's stand-in: its shape, and the texture map the render would compute from it."""

    def __init__(self, width: int, height: int, texture: Any) -> None:
        self.shape = (height, width, 3)
        self.texture = texture


class _Photo:
    """The preparer's decoded photo, without pixels."""

    def __init__(self, image: _Image, subject: Subject) -> None:
        self.image, self.subject, self.uses = image, subject, 1

    def prescaled(self, factor: float) -> None:
        return None

    def parallax(self, factor: float) -> object:
        return self  # any layers: the parallax layer records the camera's move


class _Layer:
    """Records one layer's move (stands in for the photo, parallax and roll layers)."""

    def __init__(self, src: object, motion: Motion, out_w: int, out_h: int) -> None:
        self.motion, self.out = motion, (out_w, out_h)


class _Split:
    """Records a layout's cells (stands in for :class:`media.frames.split.SplitLayer`)."""

    def __init__(self, halves: Any, boxes: Any, aspect: Any, gutter: Any, lead: int,
                 gutters: Any = None) -> None:
        self.halves, self.boxes, self.lead = tuple(halves), tuple(boxes), lead


class _CvShim:
    """What the preparer asks of OpenCV on a photo (its grey copy for the texture map)."""

    COLOR_RGB2GRAY = 0

    @staticmethod
    def cvtColor(image: _Image, code: int) -> _Image:
        return image


@contextlib.contextmanager
def _recording() -> Iterator[None]:
    """The preparer's pixel layers swapped for recorders while planning (one at a time)."""
    names = {"PhotoLayer": _Layer, "ParallaxLayer": _Layer, "RollPushLayer": _Layer,
             "SplitLayer": _Split, "cv2": _CvShim, "texture_map": lambda image: image.texture}
    with _PATCH_LOCK:
        saved = {name: getattr(render_sources, name) for name in names}
        try:
            for name, value in names.items():
                setattr(render_sources, name, value)
            yield
        finally:
            for name, value in saved.items():
                setattr(render_sources, name, value)


class _Probe(render_sources.SourcePreparer):
    """The render's preparer over photo sizes, subjects and texture maps."""

    def __init__(self, timeline: Timeline, sizes: Mapping[str, tuple[int, int]],
                 subjects: Mapping[str, Subject], textures: Mapping[str, Any]) -> None:
        super().__init__(timeline, spec.ASPECTS, {}, {}, float("inf"), subjects)
        self.sizes, self.textures = sizes, textures

    def _acquire(self, photo_id: str) -> Any:
        width, height = self.sizes[photo_id]
        texture = self.textures.get(photo_id)
        return _Photo(_Image(width, height, texture() if callable(texture) else texture),
                      self.subjects[photo_id])

    def _release(self, photo_id: str) -> None:
        return None

    def views(self, index: int) -> dict[str, list[View]]:
        """Shot ``index``'s views per aspect name (empty for clips and bare cards)."""
        shot = self.timeline.shots[index]
        if shot.kind == "clip":
            return {}
        if shot.kind == "card":
            photo_id = self._card_photo(index)
            if not photo_id:
                return {}
            layers = self._photo_layers(self._acquire(photo_id), photo_id, shot, {},
                                        self.aspects, self._steady(index))
            return {a.name: [_whole(photo_id, layers[a.name], a)] for a in self.aspects}
        prepared = self.prepare(index)
        ids = [p for p in (shot.source_id, shot.partner_id, shot.second_partner_id) if p]
        out: dict[str, list[View]] = {}
        for aspect in self.aspects:
            layer = prepared.layers[aspect.name]  # type: ignore[attr-defined]
            if isinstance(layer, _Split):
                order = [ids[1], ids[0]] if shot.layout == "inset" else ids
                out[aspect.name] = [View(pid, half.motion, (float(b.x), float(b.y),
                                                            float(b.x + b.w), float(b.y + b.h)),
                                         k * layer.lead)
                                    for k, (pid, half, b) in enumerate(zip(order, layer.halves,
                                                                           layer.boxes,
                                                                           strict=False))]
            else:
                out[aspect.name] = [_whole(ids[0], layer, aspect)]
        return out


def _whole(photo_id: str, layer: _Layer, aspect: spec.Aspect) -> View:
    return View(photo_id, layer.motion, (0.0, 0.0, float(aspect.width), float(aspect.height)))


def shot_views(timeline: Timeline, sizes: Mapping[str, tuple[int, int]],
               subjects: Mapping[str, Subject], textures: Mapping[str, Any]
               ) -> list[dict[str, list[View]]]:
    """Every shot's views per aspect name (see :class:`View`). ``sizes`` are the working
    copies' (width, height), ``subjects`` what the assets stage found, ``textures`` the texture
    maps (arrays, or callables that load them)."""
    with _recording():
        probe = _Probe(timeline, sizes, subjects, textures)
        return [probe.views(i) for i in range(len(timeline.shots))]


def empty_texture() -> np.ndarray:
    """A flat texture map (nothing textured), for photos without one."""
    return np.zeros((8, 8), np.float32)
