"""Near-duplicate shots (media.analysis.dedupe) and what the plan does with them
(media.plan.shot_order, media.plan.timeline): twins are dropped or never shown side by side."""

from __future__ import annotations

from itertools import pairwise

import cv2
import numpy as np
from skimage import data

from media.analysis.dedupe import MAX_DISTANCE, distance, near_duplicates, picture_hashes
from media.cards.spec import CardSpec
from media.intake.clip_analysis import analyse_frames
from media.plan import planner
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid

PICTURES = {"astronaut": data.astronaut(), "coffee": data.coffee(), "cat": data.chelsea(),
            "rocket": data.rocket(), "camera": np.dstack([data.camera()] * 3)}


def _jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)


def _variants(image: np.ndarray) -> list[np.ndarray]:
    """The same picture resized, recompressed, slightly cropped, brightened, zoomed in 10%."""
    h, w = image.shape[:2]
    return [cv2.resize(image, (w // 3, h // 3), interpolation=cv2.INTER_AREA),
            _jpeg(image, 35),
            image[h // 30:h - h // 30, w // 30:w - w // 30],
            cv2.convertScaleAbs(image, alpha=1.1, beta=12),
            cv2.resize(image[h // 20:h - h // 20, w // 20:w - w // 20], (w, h))]


def test_the_same_picture_resized_recompressed_or_cropped_is_a_near_duplicate() -> None:
    for name, image in PICTURES.items():
        original = picture_hashes(image)
        for variant in _variants(image):
            assert min(distance(a, b) for a in original
                       for b in picture_hashes(variant)) <= MAX_DISTANCE, name


def test_different_pictures_are_not_near_duplicates() -> None:
    hashes = {name: picture_hashes(image) for name, image in PICTURES.items()}
    assert near_duplicates(hashes) == []


def test_a_clip_made_from_a_photo_is_found_by_its_frames() -> None:
    rocket = data.rocket()
    h, w = rocket.shape[:2]
    frames = []
    for i in range(20):  # a slow 15% zoom into the photo, as "photo to video" apps make
        z = 1 + 0.15 * i / 19
        cw, ch = round(w / z), round(h / z)
        x, y = (w - cw) // 2, (h - ch) // 2
        frame = cv2.resize(rocket[y:y + ch, x:x + cw], (160, round(160 * h / w)))
        frames.append(cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY))
    clip = analyse_frames(np.stack(frames), 0.2)
    photos = {name: picture_hashes(image) for name, image in PICTURES.items()}
    assert near_duplicates(photos, {"c01": clip.hashes}) == [("rocket", "c01")]


OPENING = CardSpec("opening", ("Happy Birthday", "Eileen"))
CLOSING = CardSpec("closing", ("From all of us",))


def _photos(ids: str) -> list[PhotoSource]:
    return [PhotoSource(i, 4000, 3000, False) for i in ids]


def _plan(photo_ids: str, twins: list[tuple[str, str]], clip_ids: tuple[str, ...] = (),
          subject: str = "a", length: float = 30.0):
    clips = [ClipSource(c, 5.0, 960, 540, False) for c in clip_ids]
    beats = [i * 0.5 for i in range(int(length * 2))]
    return planner.plan(FilmSpec(
        length_sec=length, photos=_photos(photo_ids), clips=clips,
        recipe=MotionRecipe(motion_shots=4), subject_photo_id=subject, near_duplicates=twins,
        words=FilmWords(opening=OPENING, closing=CLOSING), song=SongGrid(beat_times=beats)))


def test_of_two_twin_photos_only_one_is_shown() -> None:
    tl = _plan("abcdef", [("b", "e"), ("a", "c")])
    shown = {s.source_id for s in tl.shots if s.kind != "clip"}  # the subject: the title's
    assert "e" not in shown and "c" not in shown  # the later twin, never the subject
    assert {"a", "b"} <= shown
    assert {"c", "e"} <= set(tl.dropped_photo_ids)


def test_a_photo_a_clip_was_made_from_is_dropped_when_photos_are_plenty() -> None:
    tl = _plan("abcdef", [("d", "c01")], ("c01", "c02"))
    assert "d" not in {s.source_id for s in tl.shots} and "d" in tl.dropped_photo_ids
    assert "c01" in {s.source_id for s in tl.shots}


def test_a_photo_and_its_clip_are_never_back_to_back() -> None:
    for subject in "abc":
        tl = _plan("abc", [("a", "c01"), ("b", "c02")], ("c01", "c02"), subject=subject)
        twins = {frozenset(("a", "c01")), frozenset(("b", "c02"))}
        assert {"a", "b"} <= {s.source_id for s in tl.shots}  # too few photos to drop them
        middle = [s.source_id for s in tl.shots if s.kind != "card"]
        for x, y in pairwise(middle):
            assert frozenset((x, y)) not in twins and x != y, middle
