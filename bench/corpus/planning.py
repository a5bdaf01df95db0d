"""A corpus order planned as the render stage plans it, without Temporal and without audio.

:func:`plan_case` is the one adapter to the planner (today
:func:`activities.order_plan.plan_for`; the planner's ``plan(FilmSpec) -> Timeline`` replaces
it in one place, :func:`_timeline`). The beat grid is the composer's own
(:func:`media.song.compose.beat_grid` over :func:`media.song.compose.plan_song`, candidate 0):
exact for the standard tier and for a signature song whose best of three is candidate 0; for
the others the tempo may differ by the candidates' variation, said in the report.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from activities.assets import order_song_seed, song_brief
from activities.order_plan import photo_sources, plan_for
from app.order_folder import read_order_folder
from bench.corpus.analysis import ClipFacts, PhotoFacts, clip_facts, photo_facts
from bench.corpus.generate import Case
from media.look.dedupe import near_duplicates
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.timeline import Timeline
from media.song.compose import beat_grid, plan_song, write_lyrics
from services.settings import Settings
from workflows.contract import FilmOrder
from workflows.stages import PreparedClip, PreparedPhoto, PrepResult, Rejection

SOURCES_VERSION = "1"
_SETTINGS_LOCK = threading.Lock()
_SETTINGS: list[Settings] = []


def settings() -> Settings:
    """The worker's settings (tier recipes) from the defaults."""
    with _SETTINGS_LOCK:
        if not _SETTINGS:
            _SETTINGS.append(Settings())
        return _SETTINGS[0]


@dataclass
class Planned:
    """A corpus order as the worker sees it: the order, prep's result, the facts of each
    photo by id, and the timeline (None when the run would not get to the render)."""

    case: Case
    order: FilmOrder
    prep: PrepResult
    facts: dict[str, PhotoFacts]
    timeline: Timeline | None
    photos: list[PhotoSource]
    names: dict[str, str]
    """Photo id -> the file name in the order folder."""


def song_meta(order: FilmOrder) -> dict[str, Any]:
    """The song's beat grid, sections and words as the assets stage stores them, from the
    composer's plan (no audio)."""
    brief = song_brief(order)
    plan = plan_song(brief, order_song_seed(order), 0)
    beats, bars = beat_grid(plan)
    sections = []
    for name, start, bars_n in plan.form:
        end = plan.length_sec if name == "ending" else (start + bars_n) * plan.bar_s
        sections.append((name, round(start * plan.bar_s, 6), round(end, 6)))
    return {"tempo_bpm": plan.tempo_bpm, "beat_times": beats, "bar_times": bars,
            "sections": sections, "lyrics": write_lyrics(brief)}


def prepare(case: Case, cache: Path) -> tuple[FilmOrder, PrepResult, dict[str, PhotoFacts],
                                              dict[str, ClipFacts], dict[str, str]]:
    """The order of the case's folder and what prep makes of its media."""
    order, uploads = read_order_folder(case.folder)
    by_key = {u.key: u.path for u in uploads}
    photos, clips, rejected = [], [], []
    facts: dict[str, PhotoFacts] = {}
    clip_info: dict[str, ClipFacts] = {}
    names = {}
    for ref in order.photos:
        path = by_key[ref.key]
        names[ref.id] = path.name
        fact = photo_facts(path, cache)
        facts[ref.id] = fact
        if fact.rejected:
            rejected.append(Rejection(id=ref.id, reason=fact.rejected))
        else:
            photos.append(PreparedPhoto(id=ref.id, key=str(fact.working), width=fact.width,
                                        height=fact.height, low_res=fact.low_res))
    for ref in order.clips:
        info = clip_facts(by_key[ref.key], cache)
        clip_info[ref.id] = info
        if info.rejected:
            rejected.append(Rejection(id=ref.id, reason=info.rejected))
        else:
            clips.append(PreparedClip(id=ref.id, key=str(by_key[ref.key]),
                                      duration_sec=info.duration_s, width=info.width,
                                      height=info.height, has_audio=info.has_audio))
    return order, PrepResult(photos=photos, clips=clips, rejected=rejected), facts, \
        clip_info, names


def _photo_sources(order: FilmOrder, prep: PrepResult, facts: dict[str, PhotoFacts],
                   premium: bool, cache: Path) -> list[PhotoSource]:
    """The planner's photo inputs (:func:`activities.order_plan.photo_sources`), cached by the
    photos' contents, the tier and the subject photo."""
    key = content_hash_of([facts[p.id].working for p in prep.photos],
                          f"{SOURCES_VERSION}:{premium}:{order.subject_photo_id}")
    path = cache / "sources" / f"{key}.json"
    paths = {p.id: facts[p.id].working for p in prep.photos}
    if path.exists():
        rows = json.loads(path.read_text())
        return [PhotoSource(**{**row, "path": paths[row["id"]],
                               **({"subject_box": tuple(row["subject_box"])}
                                  if row.get("subject_box") else {})}) for row in rows]
    subjects = {p.id: facts[p.id].subject for p in prep.photos if facts[p.id].subject}
    sources = photo_sources(prep, paths, subjects, premium=premium,
                            subject_id=order.subject_photo_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{k: (str(v) if k == "path" else v) for k, v in vars(s).items()} for s in sources]
    path.write_text(json.dumps(rows))
    return sources


def content_hash_of(paths: list[Path | None], extra: str) -> str:
    """A key for a list of files' contents (by their cache folders' names) and ``extra``."""
    import hashlib

    digest = hashlib.sha256(extra.encode())
    for path in paths:
        digest.update(str(path.parent.name if path else "-").encode())
    return digest.hexdigest()[:32]


def plan_case(case: Case, cache: Path) -> Planned:
    """The case planned as the render stage would (None timeline when there is no usable
    photo: the gate holds the run before any song or render)."""
    order, prep, facts, clips_info, names = prepare(case, cache)
    if not prep.photos:
        return Planned(case, order, prep, facts, None, [], names)
    recipe = settings().recipe(order.tier)
    premium = recipe.motion == "premium"
    photos = _photo_sources(order, prep, facts, premium, cache)
    clips = [ClipSource(c.id, Path(c.key), c.duration_sec, c.width, c.height, c.has_audio,
                        clips_info[c.id].scores, clips_info[c.id].step_s) for c in prep.clips]
    twins = near_duplicates({p.id: facts[p.id].hashes for p in prep.photos},
                            {c.id: clips_info[c.id].hashes for c in prep.clips})
    timeline = _timeline(order, photos, clips, song_meta(order), recipe.motion_shots, premium,
                         twins)
    return Planned(case, order, prep, facts, timeline, photos, names)


def _timeline(order: FilmOrder, photos: list[PhotoSource], clips: list[ClipSource],
              meta: dict[str, Any], motion_shots: int, premium: bool,
              twins: list[tuple[str, str]]) -> Timeline:
    """The planner, called once: the place to switch to ``plan(FilmSpec)``."""
    return plan_for(order, photos, clips, meta, motion_shots, premium=premium,
                    near_duplicates=twins)
