"""The subject of a photo without faces is what the photographer focused on (issue 42): a sharp
subject wins over a larger, more colourful blur; a photo soft all over keeps saliency's choice."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from media.analysis.framing import MoveRequest, plan_ken_burns
from media.analysis.subjects import find_subject, focus_blob, focus_depth
from media.base.spec import PORTRAIT
from media.intake.restore import cover_long_edge

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
SIZE = (640, 400)  # width, height of the synthetic photos
SHARP_OBJECT = (470, 180, 530, 240)  # x0, y0, x1, y1 pixels: a small, sharp, dull object
BLOB_CENTRE, BLOB_RADIUS = (180, 200), 110  # a larger, red, defocused one with bokeh discs


def _bokeh_photo() -> np.ndarray:
    """A dull brown defocused ground, a large red defocused blob with brighter bokeh discs at
    the left (what a colour-rarity and saliency map favours) and a small sharp grey-brown
    textured object at the right (what the photographer focused on)."""
    width, height = SIZE
    rng = np.random.default_rng(7)
    ground = rng.normal(0, 30, (height, width, 1)) + np.array([120, 100, 70])
    photo = cv2.GaussianBlur(ground.astype(np.float32), (0, 0), 8)
    cv2.circle(photo, BLOB_CENTRE, BLOB_RADIUS, (220, 40, 30), -1)
    for _ in range(8):
        dx, dy = rng.uniform(-0.8, 0.8, 2) * BLOB_RADIUS
        cv2.circle(photo, (int(BLOB_CENTRE[0] + dx), int(BLOB_CENTRE[1] + dy)),
                   int(rng.uniform(8, 20)), (255, 120, 90), -1)
    photo = cv2.GaussianBlur(photo, (0, 0), 4)
    x0, y0, x1, y1 = SHARP_OBJECT
    texture = rng.integers(0, 2, ((y1 - y0) // 3, (x1 - x0) // 3)).repeat(3, 0).repeat(3, 1)
    photo[y0:y1, x0:x1] = (100 + 50 * texture)[..., None] * np.array([1.0, 0.85, 0.6])
    return np.clip(photo, 0, 255).astype(np.uint8)


def _inside(point: tuple[float, float], box: tuple[int, int, int, int]) -> bool:
    x, y = point[0] * SIZE[0], point[1] * SIZE[1]
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def test_a_sharp_small_object_beats_a_larger_more_colourful_blur() -> None:
    # with a pixel without detail at 0.3 of its weight, the red blur's bokeh won
    photo = _bokeh_photo()
    assert focus_depth(photo) == 1.0
    assert _inside(find_subject(photo).focus.center, SHARP_OBJECT)


def test_a_photo_soft_all_over_has_no_plane_of_focus_and_keeps_the_colourful_blob() -> None:
    soft = cv2.GaussianBlur(_bokeh_photo(), (0, 0), 6)
    assert focus_depth(soft) == 0.0
    blob = focus_blob(soft)
    assert blob is not None
    cx, cy = BLOB_CENTRE
    assert _inside(blob.center, (cx - BLOB_RADIUS, cy - BLOB_RADIUS,
                                 cx + BLOB_RADIUS, cy + BLOB_RADIUS))


def test_a_photo_sharp_all_over_has_no_plane_of_focus() -> None:
    rng = np.random.default_rng(3)
    texture = rng.integers(0, 256, (400, 640, 3)).astype(np.uint8)
    assert focus_depth(texture) == 0.0


def _fallen_leaf() -> np.ndarray:
    """The pet sample's fallen leaf at the size the film shows it."""
    with Image.open(SAMPLES / "pet-tribute/photos/06-fallen-leaf.jpg") as image:
        rgb = np.asarray(image.convert("RGB"))
    height, width = rgb.shape[:2]
    scale = min(1.0, cover_long_edge(width, height) / max(width, height))
    return cv2.resize(rgb, (round(width * scale), round(height * scale)),
                      interpolation=cv2.INTER_AREA) if scale < 1.0 else rgb


LEAF = (0.52, 0.93)  # the sharp maple leaf's span across the photo; the red blur is at 0.2-0.45


def test_the_fallen_leaf_focus_is_the_sharp_leaf_not_the_red_blur() -> None:
    # the focus reached over the blur to 0.43 of the width: the film's 9:16 panned in from it
    focus = find_subject(_fallen_leaf()).focus
    assert LEAF[0] <= focus.x0 and focus.x1 <= LEAF[1]


@pytest.mark.parametrize("move", ["zoom_in", "zoom_out", "tilt", "pan"])
def test_the_fallen_leaf_9x16_crop_ends_on_the_sharp_leaf(move: str) -> None:
    photo = _fallen_leaf()
    height, width = photo.shape[:2]
    motion = plan_ken_burns((width, height), find_subject(photo), PORTRAIT, 143,
                            MoveRequest(move=move))
    end = motion.end if move != "zoom_out" else motion.start  # the tight end
    assert LEAF[0] * width <= end.x and end.x + end.w <= LEAF[1] * width + 1
