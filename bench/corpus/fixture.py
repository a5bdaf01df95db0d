"""The corpus as a committed fixture: every order's film spec and ground truth, and what the
renderer reads of each photo beside its pixels, in one gzipped JSON-lines file
(:data:`FIXTURE`). Made by ``python -m bench.corpus.generate``; read by the plan-level test
(``tests/test_corpus.py``) and ``python -m bench.corpus.report`` without a photo decoded.

Its lines: one ``header`` (the seed, the order count, the analysis code's key), one ``photo``
per distinct pool photo an order uses (:class:`CorpusPhoto`: the working copy's size, the
subject the assets stage found, its texture map, the labelled faces in the working copy's
pixels, whether it is blank or degenerate, or intake's reason for refusing it), then one
``order`` per order (:class:`CorpusOrder`: the order, its spec, the pool photo behind each of
its photo ids, the customer's words and the outcome the real intake and gate gave it).
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from media.analysis.subjects import Subject, subject_from_dict
from media.plan.spec import FilmSpec

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "corpus" / "orders.jsonl.gz"
FORMAT = 1

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class TruthFace:
    """A labelled face on a working copy (pixels): the whole ``box`` and its eyes-to-mouth
    ``core``; ``cut_by_photo`` when the core reaches past the photo's edge (it can never be
    whole)."""

    box: Box
    core: Box
    profile: bool = False
    small: bool = False
    cut_by_photo: bool = False


@dataclass(frozen=True)
class CorpusPhoto:
    """A pool photo as the worker sees it: ``rejected`` (intake's reason, "" when prepared),
    else its working copy's ``width`` x ``height``, ``subject`` and ``texture`` map; and its
    ground truth (``faces``, ``blank``, ``near_blank``, ``degenerate``, ``duplicate_of``: the
    pool key of the photo it copies)."""

    key: str
    kind: str
    rejected: str = ""
    width: int = 0
    height: int = 0
    subject: Subject | None = None
    texture: np.ndarray | None = None
    faces: tuple[TruthFace, ...] = ()
    blank: bool = False
    near_blank: bool = False
    degenerate: str = ""
    duplicate_of: str = ""
    picture: str = ""
    """The picture it shows whole, "" when none (a close-up, a strip): photos with the same one
    are one picture to a viewer, an old scan and a phone's re-save of one print alike
    (:func:`bench.corpus.orders.same_picture`)."""
    source: str = ""
    """The source picture it was made from (:func:`bench.corpus.sources.picture_of` of its
    source: photos with the same one show the same picture, whole or cut), "" when none."""

    @property
    def unusable(self) -> bool:
        """Blank, near-blank or degenerate: a photo the film must leave out."""
        return self.blank or self.near_blank or bool(self.degenerate)


@dataclass(frozen=True)
class CorpusOrder:
    """One corpus order: its ``spec`` (None when the gate holds it before any plan, or making
    it failed), the pool key behind each photo id (``photos``), the customer's ``words``, the
    ``expected`` outcome (``planned``, ``held:<reason>``, or ``failed:<error>`` when the render
    stage could not make its spec) and its place in the spread (``facts``)."""

    id: str
    spec: FilmSpec | None
    photos: dict[str, str]
    words: dict[str, Any]
    expected: str
    facts: dict[str, Any] = field(default_factory=dict)
    order: dict[str, Any] = field(default_factory=dict)
    """The order as the worker received it (:class:`workflows.contract.FilmOrder`'s JSON)."""
    clip_pictures: dict[str, str] = field(default_factory=dict)
    """Clip id -> the picture a clip made from a photo shows (:attr:`CorpusPhoto.picture`)."""


@dataclass(frozen=True)
class Corpus:
    """The fixture read back: its header, the photos by pool key, the orders."""

    header: dict[str, Any]
    photos: dict[str, CorpusPhoto]
    orders: list[CorpusOrder]

    def photos_of(self, order: CorpusOrder) -> dict[str, CorpusPhoto]:
        """The order's photos by its photo ids."""
        return {pid: self.photos[key] for pid, key in order.photos.items()}


def _texture_json(texture: np.ndarray | None) -> dict[str, Any] | None:
    if texture is None:
        return None
    bits = np.packbits(np.asarray(texture) > 0.5)
    return {"shape": list(texture.shape), "bits": base64.b64encode(bits.tobytes()).decode()}


def _texture(data: dict[str, Any] | None) -> np.ndarray | None:
    if data is None:
        return None
    shape = tuple(data["shape"])
    bits = np.frombuffer(base64.b64decode(data["bits"]), np.uint8)
    return np.unpackbits(bits)[:int(np.prod(shape))].reshape(shape).astype(np.float32)


def _rounded(box: Iterable[float]) -> list[float]:
    return [round(float(v), 2) for v in box]


def photo_line(photo: CorpusPhoto, subject: dict[str, Any] | None) -> dict[str, Any]:
    """A photo's fixture line (``subject`` as :func:`dataclasses.asdict` gives it)."""
    return {"kind": "photo", "key": photo.key, "photo_kind": photo.kind,
            "rejected": photo.rejected, "width": photo.width, "height": photo.height,
            "subject": subject, "texture": _texture_json(photo.texture),
            "faces": [{"box": _rounded(f.box), "core": _rounded(f.core), "profile": f.profile,
                       "small": f.small, "cut_by_photo": f.cut_by_photo} for f in photo.faces],
            "blank": photo.blank, "near_blank": photo.near_blank,
            "degenerate": photo.degenerate, "duplicate_of": photo.duplicate_of,
            "picture": photo.picture, "source": photo.source}


def order_line(order: CorpusOrder) -> dict[str, Any]:
    """An order's fixture line."""
    return {"kind": "order", "id": order.id, "expected": order.expected,
            "photos": order.photos, "words": order.words, "facts": order.facts,
            "order": order.order, "clip_pictures": order.clip_pictures,
            "spec": json.loads(order.spec.to_json(None)) if order.spec else None}


def write(path: Path, header: dict[str, Any], lines: Iterable[dict[str, Any]]) -> None:
    """Write the fixture: ``header``, then ``lines`` (from :func:`photo_line`,
    :func:`order_line`), gzipped, byte-identical for identical content."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(json.dumps(line, ensure_ascii=False, separators=(",", ":"))
                     for line in ({"kind": "header", "format": FORMAT, **header}, *lines))
    with path.open("wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0,
                                               compresslevel=9) as out:
        out.write((body + "\n").encode("utf-8"))


def _photo(line: dict[str, Any]) -> CorpusPhoto:
    return CorpusPhoto(
        key=line["key"], kind=line["photo_kind"], rejected=line["rejected"],
        width=line["width"], height=line["height"],
        subject=subject_from_dict(line["subject"]) if line["subject"] else None,
        texture=_texture(line["texture"]),
        faces=tuple(TruthFace(tuple(f["box"]), tuple(f["core"]), f["profile"], f["small"],
                              f["cut_by_photo"]) for f in line["faces"]),
        blank=line["blank"], near_blank=line["near_blank"], degenerate=line["degenerate"],
        duplicate_of=line["duplicate_of"], picture=line.get("picture", ""),
        source=line.get("source", ""))


def _order(line: dict[str, Any]) -> CorpusOrder:
    spec = FilmSpec.model_validate(line["spec"]) if line["spec"] is not None else None
    return CorpusOrder(line["id"], spec, line["photos"], line["words"], line["expected"],
                       line["facts"], line["order"], line.get("clip_pictures", {}))


def load(path: Path = FIXTURE) -> Corpus:
    """The fixture at ``path``."""
    header: dict[str, Any] = {}
    photos: dict[str, CorpusPhoto] = {}
    orders: list[CorpusOrder] = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for text in lines:
            line = json.loads(text)
            if line["kind"] == "header":
                header = line
            elif line["kind"] == "photo":
                photos[line["key"]] = _photo(line)
            else:
                orders.append(_order(line))
    return Corpus(header, photos, orders)
