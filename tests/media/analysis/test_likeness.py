"""The same animal in another photo, by feature match (media.analysis.likeness), on the samples."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from media.analysis.likeness import (
    MIN_INLIERS,
    Features,
    agreeing_matches,
    animal_region,
    features,
    shows_same_subject,
    subject_query,
    where_subject,
)
from media.analysis.subjects import find_subject

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
PETS = SAMPLES / "pet-tribute" / "photos"


@cache
def _photo(path: Path) -> np.ndarray:
    with Image.open(path) as image:
        image.draft("RGB", (1600, 1600))
        return np.asarray(image.convert("RGB"))


def _query(path: Path) -> Features | None:
    image = _photo(path)
    return subject_query(image, find_subject(image))


@pytest.mark.render
def test_honey_is_found_in_the_window_photo_with_her_brother() -> None:
    query = _query(PETS / "02-honey.jpg")
    assert query is not None
    assert shows_same_subject(query, _photo(PETS / "01-window.jpg"))


@pytest.mark.render
def test_where_honey_is_in_the_window_photo_is_her_head_not_her_brothers() -> None:
    # her photo is the window photo's upper dog, closer: her core carried over by the match
    query = _query(PETS / "02-honey.jpg")
    assert query is not None
    box = where_subject(query, _photo(PETS / "01-window.jpg"))
    assert box is not None
    assert (box.x0, box.y0, box.x1, box.y1) == pytest.approx((0.31, 0.24, 0.53, 0.42), abs=0.03)
    assert box.y1 < 0.45  # her brother's head is below, from 0.45 down
    assert where_subject(query, _photo(PETS / "04-stream.jpg")) is None


@pytest.mark.render
@pytest.mark.parametrize("name", ["03-forest-path.jpg", "04-stream.jpg", "05-dandelions.jpg",
                                  "06-fallen-leaf.jpg"])
def test_honey_is_not_in_the_walks(name: str) -> None:
    query = _query(PETS / "02-honey.jpg")
    assert query is not None
    matches = agreeing_matches(query, features(_photo(PETS / name)))
    assert matches < MIN_INLIERS // 2  # far from the threshold: 0-2 measured


@pytest.mark.render
def test_the_animal_is_found_again_turned_smaller_and_in_other_light() -> None:
    honey = _photo(PETS / "02-honey.jpg")
    region = animal_region(find_subject(honey))
    assert region is not None
    h, w = honey.shape[:2]
    x0, y0, x1, y1 = (round(v) for v in region.to_pixels(w, h))
    head = honey[y0:y1, x0:x1]
    turn = cv2.getRotationMatrix2D((head.shape[1] / 2, head.shape[0] / 2), 12, 0.6)
    small = cv2.warpAffine(head, turn, (head.shape[1], head.shape[0]),
                           borderMode=cv2.BORDER_REFLECT)
    darker = np.clip(small.astype(np.float32) * 0.75 + 10, 0, 255).astype(np.uint8)
    forest = _photo(PETS / "03-forest-path.jpg").copy()
    fy, fx = forest.shape[0] // 3, forest.shape[1] // 2
    forest[fy:fy + darker.shape[0], fx:fx + darker.shape[1]] = darker
    query = _query(PETS / "02-honey.jpg")
    assert query is not None and shows_same_subject(query, forest)


def test_faces_and_scenery_are_not_matched_as_animals() -> None:
    people = SAMPLES / "birthday" / "photos" / "01-portrait.jpg"
    assert animal_region(find_subject(_photo(people))) is None  # faces are found everywhere
    assert _query(PETS / "03-forest-path.jpg") is None  # scenery has no animal to look for


@pytest.mark.render
@pytest.mark.parametrize("sample", ["birthday", "anniversary"])
def test_no_subject_without_faces_in_the_people_samples_is_found_elsewhere(
        sample: str) -> None:
    paths = sorted((SAMPLES / sample / "photos").glob("*.jpg"))
    for path in paths:
        image = _photo(path)
        subject = find_subject(image)
        if subject.faces:
            continue
        region = subject.focus  # scenery too: its most salient part, as if it were an animal
        query = features(image, region)
        for other in paths:
            if other != path:
                matches = agreeing_matches(query, features(_photo(other)))
                assert matches < MIN_INLIERS, (path.name, other.name, matches)


def test_the_match_is_the_same_every_run() -> None:
    query = _query(PETS / "02-honey.jpg")
    assert query is not None
    window = features(_photo(PETS / "01-window.jpg"))
    counts = {agreeing_matches(query, window) for _ in range(3)}
    assert len(counts) == 1 and math.prod(counts) >= MIN_INLIERS
