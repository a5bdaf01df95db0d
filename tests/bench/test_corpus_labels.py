"""The corpus's face labels (tests/fixtures/corpus-sources/labels.json) agree with the face
detector's labelled set (tests/fixtures/faces/labels.json) on the photos both label: two hands
over the same faces, so a label that slid off its face shows."""

from __future__ import annotations

import json

import pytest

from bench.corpus.sources import LABELS as CORPUS_LABELS
from bench.faces.labelled import LABELS as FACE_SET_LABELS

Box = tuple[float, float, float, float]


def _photos(path: object, section: str) -> dict[str, list[dict[str, object]]]:
    data = json.loads(path.read_text(encoding="utf-8"))[section]  # type: ignore[attr-defined]
    return {key: entry["faces"] for key, entry in data.items()}


def _face_set_key(corpus_key: str) -> str:
    prefixed = corpus_key.startswith("corpus-sources/")
    return "tests/fixtures/" + corpus_key if prefixed else corpus_key


def _centre(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _inside(point: tuple[float, float], box: Box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


CORPUS = _photos(CORPUS_LABELS, "sources")
FACE_SET = _photos(FACE_SET_LABELS, "photos")
BOTH = sorted(key for key in CORPUS if _face_set_key(key) in FACE_SET)


def test_most_corpus_photos_are_in_the_face_set_too() -> None:
    assert len(BOTH) >= 20


@pytest.mark.parametrize("key", BOTH)
def test_each_corpus_face_is_a_face_of_the_face_set(key: str) -> None:
    # matched as bench.faces.measure matches: each core's centre inside the other's box
    theirs = FACE_SET[_face_set_key(key)]
    for face in CORPUS[key]:
        box, core = tuple(face["box"]), tuple(face["core"])  # type: ignore[arg-type]
        assert any(_inside(_centre(core), tuple(other["box"]))  # type: ignore[arg-type]
                   and _inside(_centre(tuple(other["core"])), box)  # type: ignore[arg-type]
                   for other in theirs), f"{key}: the face at {box} is not in the face set"
