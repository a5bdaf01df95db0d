"""A corpus order as the worker makes it ready to plan: prep's result from the real intake,
the gate's decision, and the film spec the render stage builds
(:func:`activities.order_plan.film_spec`), without Temporal and without audio.

The song's grid is the composer's own plan (:func:`media.song.compose.plan_song`, candidate 0,
:func:`media.song.compose.beat_grid`): exact for the standard tier and for a signature song
whose best of three is candidate 0; for the others the tempo may differ by the candidates'
variation. The assets stage finds subjects on the restored photo (the signature tier restores
every photo); here on the prepared one, for both tiers. Clips are analysed as sent, not as
their mezzanine. What :func:`film_spec` reads from the pixels (a photo's traits and matte, a
clip's scores) is cached per photo or clip content and tier (:func:`cached_sources`), so the
corpus's few hundred photos are decoded once, not once per order.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from temporalio.exceptions import ApplicationError

import activities.order_plan as order_plan
from activities.assets import order_song_seed, song_brief
from activities.gate import run_gate
from app.order_folder import read_order_folder
from bench.corpus.analysis import ClipFacts, PhotoFacts, clip_facts, photo_facts, sources_key
from media.analysis.likeness import animal_region
from media.analysis.subjects import Subject
from media.cards import wording
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.spec import FilmSpec, SongGrid
from media.song.compose import beat_grid, plan_song, write_lyrics
from services.settings import Settings
from workflows.contract import FilmOrder
from workflows.stages import PreparedClip, PreparedPhoto, PrepResult, Rejection, StageInput

PLANNED = "planned"
"""The expected outcome of an order the gate lets through to the render."""

_SETTINGS: list[Settings] = []
_LOCK = threading.Lock()
_PATCH_LOCK = threading.Lock()


def settings() -> Settings:
    """The worker's settings (tier recipes) from the defaults."""
    with _LOCK:
        if not _SETTINGS:
            _SETTINGS.append(Settings())
        return _SETTINGS[0]


def song_grid(order: FilmOrder) -> SongGrid:
    """The song's beat grid, sections and words as the assets stage stores them, from the
    composer's plan (no audio)."""
    brief = song_brief(order)
    plan = plan_song(brief, order_song_seed(order), 0)
    beats, bars = beat_grid(plan)
    sections = []
    for name, start, bars_n in plan.form:
        end = plan.length_sec if name == "ending" else (start + bars_n) * plan.bar_s
        sections.append((name, round(start * plan.bar_s, 6), round(end, 6)))
    return SongGrid.from_song_meta({"beat_times": beats, "bar_times": bars,
                                    "sections": sections, "lyrics": write_lyrics(brief)})


@dataclass
class Prepared:
    """A corpus order after prep: the order, prep's result, each photo's facts by id, each
    clip's, and the photo's file name in the order folder by id."""

    order: FilmOrder
    prep: PrepResult
    photos: dict[str, PhotoFacts]
    clips: dict[str, ClipFacts]
    names: dict[str, str]


def prepare(folder: Path, cache: Path) -> Prepared:
    """The order of ``folder`` and what prep makes of its media (the real intake, cached)."""
    order, uploads = read_order_folder(folder)
    by_key = {u.key: u.path for u in uploads}
    photos, clips, rejected = [], [], []
    facts: dict[str, PhotoFacts] = {}
    clip_info: dict[str, ClipFacts] = {}
    names = {}
    for ref in order.photos:
        path = by_key[ref.key]
        names[ref.id] = path.name
        fact = facts[ref.id] = photo_facts(path, cache)
        if fact.rejected:
            rejected.append(Rejection(id=ref.id, reason=fact.rejected))
        else:
            photos.append(PreparedPhoto(id=ref.id, key=str(fact.working), width=fact.width,
                                        height=fact.height, low_res=fact.low_res))
    for ref in order.clips:
        info = clip_info[ref.id] = clip_facts(by_key[ref.key], cache)
        if info.rejected:
            rejected.append(Rejection(id=ref.id, reason=info.rejected))
        else:
            clips.append(PreparedClip(id=ref.id, key=str(by_key[ref.key]),
                                      duration_sec=info.duration_s, width=info.width,
                                      height=info.height, has_audio=info.has_audio))
    return Prepared(order, PrepResult(photos=photos, clips=clips, rejected=rejected), facts,
                    clip_info, names)


def gate_outcome(prepared: Prepared) -> str:
    """What the gate decides on prep's result: :data:`PLANNED`, or ``held:<reason>``."""
    try:
        run_gate(SimpleNamespace(settings=settings()),  # type: ignore[arg-type]
                 StageInput(order=prepared.order, prep=prepared.prep))
    except ApplicationError as error:
        return f"held:{error.details[0] if error.details else error.type}"
    return PLANNED


def _stored(path: Path, make: Any) -> Any:
    if path.exists():
        return json.loads(path.read_text())
    value = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    partial.write_text(json.dumps(value))
    partial.replace(path)
    return value


@contextlib.contextmanager
def cached_sources(cache: Path) -> Iterator[None]:
    """:func:`activities.order_plan.film_spec`'s photo and clip sources cached on disk per
    photo (content, tier) and per clip (content), while in the block: the real functions run
    once for each. An order whose subject photo shows an animal (its other photos are matched
    against it) is computed whole, uncached."""
    real_photos, real_clips = order_plan.photo_sources, order_plan.clip_sources
    folder = cache / "sources" / sources_key()

    def photo_sources(prep: PrepResult, paths: dict[str, Path], subjects: dict[str, Subject],
                      *, premium: bool = False, subject_id: str | None = None
                      ) -> list[PhotoSource]:
        subject = subjects.get(subject_id) if subject_id else None
        if subject is not None and animal_region(subject) is not None:
            return real_photos(prep, paths, subjects, premium=premium, subject_id=subject_id)
        out = []
        for photo in prep.photos:
            key = f"{Path(paths[photo.id]).parent.name}-{int(premium)}"
            one = PrepResult(photos=[photo], clips=[], rejected=[])
            row = _stored(folder / f"{key}.json", lambda one=one: vars(real_photos(
                one, paths, subjects, premium=premium)[0]))
            out.append(PhotoSource(**{**row, "id": photo.id, **(
                {"subject_box": tuple(row["subject_box"])} if row.get("subject_box") else {})}))
        return out

    def clip_sources(prep: PrepResult, paths: dict[str, Path]
                     ) -> tuple[list[ClipSource], dict[str, tuple[int, ...]]]:
        sources, hashes = [], {}
        for clip in prep.clips:
            digest = hashlib.sha256(Path(paths[clip.id]).read_bytes()).hexdigest()[:32]
            one = PrepResult(photos=[], clips=[clip], rejected=[])

            def make(one: PrepResult = one) -> dict[str, Any]:
                found, hashed = real_clips(one, paths)
                return {"source": vars(found[0]), "hashes": list(hashed[found[0].id])}
            row = _stored(folder / f"clip-{digest}.json", make)
            sources.append(ClipSource(**{**row["source"], "id": clip.id,
                                         "scores": tuple(row["source"]["scores"])}))
            hashes[clip.id] = tuple(row["hashes"])
        return sources, hashes

    with _PATCH_LOCK:
        order_plan.photo_sources, order_plan.clip_sources = photo_sources, clip_sources
        try:
            yield
        finally:
            order_plan.photo_sources, order_plan.clip_sources = real_photos, real_clips


def with_current_words(spec: FilmSpec, order: FilmOrder) -> FilmSpec:
    """``spec`` with its look, cards and interludes made again from ``order`` by the current
    wording rules (:func:`activities.order_plan.film_words`) and its song's words by the
    current lyricist: a fixture made before a change to the words checks the words that change
    makes, without being generated again."""
    look = order_plan.order_look(order)
    lyrics = tuple(write_lyrics(song_brief(order)))
    words = order_plan.film_words(order, look)
    return spec.model_copy(update={
        "look": look.name, "words": words, "song": spec.song.model_copy(update={
            "lyrics": lyrics}),
        "family": wording.family_of(order_plan.occasion_words(order))})


def order_spec(prepared: Prepared) -> FilmSpec:
    """The film spec the render stage builds for the prepared order (inside
    :func:`cached_sources` to read each photo's pixels once)."""
    order, prep = prepared.order, prepared.prep
    facts = prepared.photos
    paths = {p.id: facts[p.id].working for p in prep.photos}
    subjects = {p.id: facts[p.id].subject for p in prep.photos if facts[p.id].subject}
    clip_paths = {c.id: Path(c.key) for c in prep.clips}
    return order_plan.film_spec(order, prep, song_grid(order), settings().recipe(order.tier),
                                photo_paths=paths,  # type: ignore[arg-type]
                                clip_paths=clip_paths, subjects=subjects)  # type: ignore[arg-type]
