"""What the worker makes of each corpus photo and clip before planning, cached by content.

A photo goes through the real intake (:func:`media.intake.sandbox.prepare_photo_bounded`: the
bytes verified, decoded in a child, upright, capped; the prep stage's size limit first), then
the picture analysis the assets stage runs on it (:func:`media.analysis.subjects.find_subject`), the
perceptual hashes the render stage compares (:func:`activities.order_plan.photo_hashes`) and the
texture map a repeat is framed by (:func:`media.analysis.detail.texture_map`). The assets stage
finds the subject on the restored photo (the signature tier restores every photo); here it is
found on the prepared one, the same for both tiers. Results live under
``<cache>/analysis/<analysis code key>-<sha256>/`` (:func:`analysis_key`): a second run of the
corpus decodes nothing, and a change to intake or analysis (a new face detector) analyses
again.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from activities.order_plan import photo_hashes
from bench.corpus.sources import REPO
from media.analysis import detail
from media.analysis.detail import texture_map
from media.analysis.subjects import Subject, find_subject, subject_from_dict
from media.base.errors import MediaRejected
from media.base.probe import sniff_container
from media.intake.clip_analysis import analyse_clip, frame_scores
from media.intake.clip_checks import probe_clip
from media.intake.sandbox import prepare_photo_bounded
from workflows.contract import PHOTO_MAX_BYTES

ANALYSIS_CODE = ("media/intake", "media/analysis")
"""The code (and model files) a photo's facts come from: a change there analyses again ..."""
NOT_ANALYSIS = ("media/analysis/camera.py", "media/analysis/framing.py",
                "media/analysis/scales.py", "media/analysis/words.py",
                "media/analysis/clip_window.py", "media/analysis/detail.py",
                "media/analysis/safe_crops.py", "media/analysis/crops.py",
                "media/analysis/__init__.py")
"""... but for the modules that frame a photo, not analyse it (a fix of the camera keeps the
cache), those the film spec runs on every order's photos anew (``crops``) and the room's
list of modules; of ``detail`` only the texture map counts (:data:`TEXTURE_CODE`)."""
TEXTURE_CODE = (detail.texture_map, detail._in_focus)
SOURCES_CODE = ("activities/order_plan.py", "media/frames/matte.py", "media/frames/parallax.py",
                "media/frames/soft_matte.py", "media/frames/fill.py")
"""The code of a photo's traits and matte beside its analysis (:mod:`bench.corpus.specs`)."""


def _digest(paths: list[Path], extra: str = "") -> str:
    digest = hashlib.sha256(extra.encode())
    for path in paths:
        digest.update(str(path.relative_to(REPO)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


@cache
def analysis_key() -> str:
    """A short hash of the code a photo's facts come from (:data:`ANALYSIS_CODE`, the face
    detector's model files included)."""
    paths = [path for folder in ANALYSIS_CODE for path in sorted((REPO / folder).rglob("*"))
             if path.is_file() and "__pycache__" not in path.parts
             and str(path.relative_to(REPO)) not in NOT_ANALYSIS]
    texture = "".join(inspect.getsource(f) for f in TEXTURE_CODE) + repr(
        (detail.TEXTURE_LONG_EDGE, detail.TEXTURED_GRADIENT, detail.SHARP_LONG_EDGE,
         detail.SHARP_SHARE))
    return _digest(paths, texture)


@cache
def sources_key() -> str:
    """A short hash of :func:`analysis_key` and :data:`SOURCES_CODE`."""
    return _digest([REPO / p for p in SOURCES_CODE], analysis_key())


def content_hash(path: Path) -> str:
    """SHA-256 of the file's bytes (hex)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class PhotoFacts:
    """One photo as the worker sees it: refused with ``rejected`` (a prep reason), or its
    working copy ``working`` (``width`` x ``height``, ``low_res``), its ``subject``, its
    perceptual ``hashes`` and its ``texture`` map file; ``trimmed_from``: the working copy's box
    in shares of the upright photo when intake cut flat borders away (a screenshot's bars)."""

    rejected: str
    working: Path | None
    width: int
    height: int
    low_res: bool
    subject: Subject | None
    hashes: tuple[int, int]
    texture: Path | None
    trimmed_from: tuple[float, float, float, float] | None = None

    def texture_map(self) -> np.ndarray | None:
        """The photo's texture map (see :func:`media.analysis.detail.texture_map`)."""
        return np.load(self.texture) if self.texture is not None else None


@dataclass(frozen=True)
class ClipFacts:
    """One clip as the planner sees it (probe and the quality analysis)."""

    rejected: str
    duration_s: float
    width: int
    height: int
    has_audio: bool
    scores: tuple[float, ...]
    step_s: float
    hashes: tuple[int, ...]


_LOCKS: dict[str, threading.Lock] = {}
_GUARD = threading.Lock()


def _lock(key: str) -> threading.Lock:
    with _GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


def photo_facts(path: Path, cache: Path) -> PhotoFacts:
    """The facts of the photo at ``path`` (computed once per content)."""
    digest = content_hash(path)
    folder = cache / "analysis" / f"{analysis_key()}-{digest[:32]}"
    with _lock(digest):
        facts_file = folder / "facts.json"
        if not facts_file.exists():
            folder.mkdir(parents=True, exist_ok=True)
            facts = _analyse_photo(path, folder)
            partial = folder / f"facts.json.{os.getpid()}.part"
            partial.write_text(json.dumps(facts))
            partial.replace(facts_file)
        data = json.loads(facts_file.read_text())
    return PhotoFacts(data["rejected"], folder / "working.jpg" if not data["rejected"] else None,
                      data["width"], data["height"], data["low_res"],
                      subject_from_dict(data["subject"]) if data["subject"] else None,
                      tuple(data["hashes"]), folder / "texture.npy"
                      if not data["rejected"] else None,
                      tuple(data["trimmed_from"]) if data.get("trimmed_from") else None)


def _analyse_photo(path: Path, folder: Path) -> dict[str, Any]:
    empty = {"width": 0, "height": 0, "low_res": False, "subject": None, "hashes": [0, 0]}
    if path.stat().st_size > PHOTO_MAX_BYTES:
        return {"rejected": "photo_too_large", **empty}
    working = folder / "working.jpg"
    try:
        info = prepare_photo_bounded(path, working)
    except MediaRejected as rejection:
        return {"rejected": rejection.reason, **empty}
    with Image.open(working) as image:
        rgb = np.asarray(image.convert("RGB"))
        gray = np.asarray(image.convert("L"))
    np.save(folder / "texture.npy", texture_map(gray))
    hashes = photo_hashes({"p": working})["p"]
    return {"rejected": "", "width": info.width, "height": info.height,
            "low_res": info.low_res, "subject": asdict(find_subject(rgb)),
            "hashes": [int(h) for h in hashes], "trimmed_from": info.trimmed_from}


def clip_facts(path: Path, cache: Path) -> ClipFacts:
    """The facts of the clip at ``path`` (computed once per content)."""
    digest = content_hash(path)
    facts_file = cache / "analysis" / f"clip-{analysis_key()}-{digest[:32]}.json"
    with _lock(digest):
        if not facts_file.exists():
            facts_file.parent.mkdir(parents=True, exist_ok=True)
            partial = facts_file.with_suffix(f".{os.getpid()}.part")
            partial.write_text(json.dumps(_analyse_clip(path)))
            partial.replace(facts_file)
        data = json.loads(facts_file.read_text())
    return ClipFacts(data["rejected"], data["duration_s"], data["width"], data["height"],
                     data["has_audio"], tuple(data["scores"]), data["step_s"],
                     tuple(data["hashes"]))


def _analyse_clip(path: Path) -> dict[str, Any]:
    try:
        probe = probe_clip(path, sniff_container(path))
    except MediaRejected as rejection:
        return {"rejected": rejection.reason, "duration_s": 0, "width": 0, "height": 0,
                "has_audio": False, "scores": [], "step_s": 1.0, "hashes": []}
    analysis = analyse_clip(path, (probe.width, probe.height))
    return {"rejected": "", "duration_s": probe.duration_s, "width": probe.width,
            "height": probe.height, "has_audio": probe.has_audio,
            "scores": [round(float(v), 4) for v in frame_scores(analysis)],
            "step_s": analysis.step_s, "hashes": [int(h) for h in analysis.hashes]}


def analyse_all(paths: list[Path], cache: Path, threads: int = 2) -> dict[Path, PhotoFacts]:
    """:func:`photo_facts` of every path, on ``threads`` threads (each photo mostly a child
    process and OpenCV, the GIL released)."""
    unique = sorted(set(paths))
    with ThreadPoolExecutor(threads) as pool:
        facts = list(pool.map(lambda p: photo_facts(p, cache), unique))
    return dict(zip(unique, facts, strict=True))
