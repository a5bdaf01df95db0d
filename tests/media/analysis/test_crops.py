"""A photo cut from another (a close-up of a face, a turned crop, a strip) is found beside it,
whatever its scale; different pictures are not (:mod:`media.analysis.crops`)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from media.analysis.crops import crop_features, crop_pairs, shows_crop

PHOTOS = Path(__file__).resolve().parents[2] / "fixtures" / "order" / "photos"


def _gray(name: str) -> np.ndarray:
    return np.asarray(Image.open(PHOTOS / name).convert("L"))


def _cut(gray: np.ndarray, box: tuple[float, float, float, float], long_edge: int,
         angle: float = 0.0) -> np.ndarray:
    """The ``box`` (shares of the photo) cut out, turned by ``angle`` degrees and scaled to
    ``long_edge`` pixels, as a customer's close-up of it is."""
    h, w = gray.shape
    part = gray[round(box[1] * h):round(box[3] * h), round(box[0] * w):round(box[2] * w)]
    scale = long_edge / max(part.shape)
    part = cv2.resize(part, (round(part.shape[1] * scale), round(part.shape[0] * scale)),
                      interpolation=cv2.INTER_CUBIC)
    if angle:
        turn = cv2.getRotationMatrix2D((part.shape[1] / 2, part.shape[0] / 2), angle, 1.0)
        part = cv2.warpAffine(part, turn, (part.shape[1], part.shape[0]))
    return part


@pytest.mark.parametrize(("box", "angle"), [((0.3, 0.1, 0.7, 0.5), 0.0),
                                            ((0.2, 0.0, 0.6, 0.35), 20.0),
                                            ((0.0, 0.3, 1.0, 0.6), 0.0)],
                         ids=["close-up", "turned close-up", "strip"])
def test_a_crop_at_another_scale_is_found(box: tuple[float, float, float, float],
                                          angle: float) -> None:
    whole = _gray("05-camera.jpg")
    assert shows_crop(crop_features(whole), crop_features(_cut(whole, box, 1400, angle)))


def test_different_pictures_are_no_crops() -> None:
    features = {name: crop_features(_gray(name)) for name in
                ("01-astronaut.jpg", "02-chelsea.jpg", "03-coffee.jpg", "04-rocket.jpg",
                 "05-camera.jpg")}
    assert crop_pairs(features) == []


def test_two_crops_of_one_photo_are_paired_through_it_and_near_duplicates_are_left_out() -> None:
    whole = _gray("05-camera.jpg")
    features = {"p01": crop_features(_cut(whole, (0.0, 0.0, 0.45, 0.45), 1200)),
                "p02": crop_features(whole),
                "p03": crop_features(_cut(whole, (0.55, 0.55, 1.0, 1.0), 1200)),
                "p04": crop_features(_gray("03-coffee.jpg"))}
    assert crop_pairs(features) == [("p01", "p02"), ("p01", "p03"), ("p02", "p03")]
    assert crop_pairs(features, known=[("p02", "p03")]) == [("p01", "p02"), ("p01", "p03")]
