"""A render holds a decoded photo only while a shot of it is being prepared (issue 20, item 6):
a photo shown again later, or behind the closing card, is decoded again rather than held (with
its pre-scaled copies) across the film; only its parallax separation is kept, and the frames
are the same as from a photo decoded once."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from skimage import data

import media.frames.photo_store
from media.base.spec import Aspect
from media.cards.spec import CardSpec
from media.frames.preparer import SourcePreparer
from media.frames.sources import FilmSources, shot_photo
from media.plan.timeline import PARALLAX, Timeline, plan_timeline
from tests.media.photo_sources import photo_source

SMALL = Aspect("small16x9", 640, 360)


def _film(tmp: Path) -> tuple[Timeline, dict[str, Path]]:
    """A 16 s film of two photos, each shown more than once, every photo shot in parallax, the
    face photo also behind both cards."""
    ramp = np.tile(np.linspace(40, 220, 600, dtype=np.float32), (400, 1))
    flat = np.dstack([ramp, ramp * 0.9, ramp * 0.7]).astype(np.uint8)
    photos = [photo_source(tmp, "face", data.astronaut()), photo_source(tmp, "flat", flat)]
    timeline = plan_timeline(photos, [], [], 16.0, CardSpec("opening", ("Hello",)),
                             CardSpec("closing", ("Love",)), motion_shots=6, gentle=False,
                             style="social", subject_photo_id="face")  # social: photos repeat
    timeline = dataclasses.replace(timeline, shots=tuple(
        dataclasses.replace(s, motion=PARALLAX) if s.kind == "photo" else s
        for s in timeline.shots))
    return timeline, {p.id: p.path for p in photos}


def test_no_decoded_photo_is_held_between_shots_and_frames_do_not_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    timeline, paths = _film(tmp_path)
    uses = Counter(shot_photo(timeline, i) for i in range(len(timeline.shots)))
    assert uses["face"] >= 3 and uses["flat"] >= 2
    separations: Counter[str] = Counter()
    cut = media.frames.photo_store.cut_subject

    def counting(image: np.ndarray, subject: object) -> object:
        separations[str(image.shape)] += 1
        cv2.setRNGSeed(7)  # GrabCut draws from OpenCV's global generator
        return cut(image, subject)  # type: ignore[arg-type]

    monkeypatch.setattr(media.frames.photo_store, "cut_subject", counting)
    preparer = SourcePreparer(timeline, (SMALL,), FilmSources(paths))
    frames = []
    for index in range(len(timeline.shots)):
        prepared = preparer.prepare(index)
        frames.append(prepared.frame(SMALL, 5).copy())
        prepared.close()
        assert preparer.store.held == {}  # nothing decoded is held once the shot is prepared
    assert set(preparer.store.separations) == set()  # dropped after each photo's last shot
    assert sum(separations.values()) == 2  # GrabCut once per photo, not once per shot

    for index in range(len(timeline.shots)):  # each shot alone: the photo decoded once
        alone = SourcePreparer(timeline, (SMALL,), FilmSources(paths),
                               shots=range(index, index + 1))
        assert np.array_equal(alone.prepare(index).frame(SMALL, 5), frames[index]), index
