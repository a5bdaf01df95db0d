"""The decoded photos of a render, held only while a shot is being prepared from them.

A photo is decoded (:func:`media.frames.sources.load_photo`), its subject found (or taken from
what the assets stage found), graded once in RGB (:mod:`media.frames.grade`) and pre-scaled as
its shots need (shared by the shots and aspects that show it). It is freed as soon as the shot
is prepared: a photo shown again later is decoded again (holding every reused photo of a film
until its next shot held ~0.5 GB). Only a parallax photo's separation, costly to redo, is kept
until the photo's last shot (:class:`PhotoStore`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from media.analysis.subjects import Subject, find_subject
from media.frames.compose import PrescaledI420, prescale_i420
from media.frames.grade import Grade, apply_grade
from media.frames.parallax import (
    ParallaxLayers,
    ScaledLayers,
    Separation,
    cut_subject,
    layers_from_cut,
    scale_layers,
)
from media.frames.sources import load_photo


@dataclass
class HeldPhoto:
    """A decoded photo kept while shots still need it, with its pre-scaled copies."""

    image: np.ndarray
    subject: Subject
    uses: int
    scaled: dict[float, PrescaledI420] = field(default_factory=dict)
    layers: ParallaxLayers | None = None
    separated: str | None = None  # None: not tried yet; "" ok; else why parallax fell back
    scaled_layers: dict[float, ScaledLayers] = field(default_factory=dict)
    cut: np.ndarray | None = None  # the subject's cut (parallax.cut_subject), until layered
    verdict: Separation | None = None

    def prescaled(self, factor: float) -> PrescaledI420:
        """The photo pre-scaled by ``factor`` as I420 planes (computed once, then shared)."""
        if factor not in self.scaled:
            self.scaled[factor] = prescale_i420(self.image, factor)
        return self.scaled[factor]

    def parallax(self, factor: float) -> ScaledLayers | None:
        """The photo's parallax layers pre-scaled by ``factor`` (built once per photo from the
        subject's cut, :attr:`cut`, on the graded picture), or None when the separation was
        poor (see :attr:`separated`)."""
        if self.layers is None and self.cut is not None and self.verdict is not None:
            self.layers = layers_from_cut(self.image, self.cut, self.verdict)
            self.cut = None
        if self.layers is None:
            return None
        if factor not in self.scaled_layers:
            self.scaled_layers[factor] = scale_layers(self.layers, factor)
        return self.scaled_layers[factor]


_Separated = tuple[ParallaxLayers | None, str | None, np.ndarray | None, Separation | None]
"""A photo's parallax kept between its shots: its layers, why it has none ("" when it has
them), and its subject's cut and verdict until the layers are built from them."""


class PhotoStore:
    """The render's photos by id (``paths``), lent to one shot at a time: :meth:`acquire` before
    preparing a shot, :meth:`release` after. ``uses`` counts each photo's shots in the render;
    the photos in ``layered`` (those of parallax shots) are cut from their subject once."""

    def __init__(self, paths: Mapping[str, Path], subjects: Mapping[str, Subject],
                 uses: dict[str, int], layered: set[str], grade: Grade) -> None:
        self.paths = paths
        self.subjects = dict(subjects)
        self.uses = uses
        self.layered = layered
        self.grade = grade
        self.held: dict[str, HeldPhoto] = {}
        self.separations: dict[str, _Separated] = {}
        self._lock = threading.Lock()

    def acquire(self, photo_id: str) -> HeldPhoto:
        """The photo decoded, its subject found, cut (a parallax photo, once) and graded."""
        with self._lock:
            photo = self.held.get(photo_id)
            if photo is None:
                image = load_photo(self.paths[photo_id])
                subject = self.subjects.get(photo_id) or find_subject(image)
                layers, separated, cut, verdict = self.separations.get(
                    photo_id, (None, None, None, None))
                if separated is None and photo_id in self.layered:
                    # cut from the ungraded photo, as the planner measured it (matte_score)
                    cut, verdict = cut_subject(image, subject)
                    separated = verdict.reason if cut is None else ""
                image = apply_grade(image, self.grade)
                photo = HeldPhoto(image, subject, self.uses.get(photo_id, 1), layers=layers,
                                  separated=separated, cut=cut, verdict=verdict)
                self.held[photo_id] = photo
            return photo

    def release(self, photo_id: str) -> None:
        """After a shot of the photo is prepared: the decoded photo and its pre-scaled copies
        are freed; a parallax separation is kept until the photo's last shot."""
        with self._lock:
            photo = self.held.pop(photo_id, None)
            if photo is not None:
                self.uses[photo_id] = photo.uses - 1
                if photo.uses > 1 and photo.separated is not None:
                    self.separations[photo_id] = (photo.layers, photo.separated, photo.cut,
                                                  photo.verdict)
                else:
                    self.separations.pop(photo_id, None)
