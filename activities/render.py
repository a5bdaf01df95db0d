"""Render stage: plan the timeline on the song's beats, then compose and encode both films."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
from PIL import Image

from activities.context import Heartbeater, StageContext
from activities.storage import Storage
from media.arc import photo_traits
from media.cards import CardSpec
from media.clip_analysis import analyse_clip, frame_scores
from media.framing import Subject, subject_from_dict
from media.poster import extract_poster
from media.render import render_films
from media.soundtrack import build_soundtrack
from media.spec import ASPECTS, FPS, LANDSCAPE
from media.timeline import ClipSource, PhotoSource, Timeline, plan_timeline
from workflows.contract import FilmOrder
from workflows.stages import PrepResult, RenderInput, RenderResult

CLOSING_MEMORY_MAX_CHARS = 90


def _closing_line(order: FilmOrder) -> str:
    """A short line from the memory or story note for the closing card ("" when none)."""
    text = (order.story_note or order.memory).strip()
    if len(text) <= CLOSING_MEMORY_MAX_CHARS:
        return text
    cut = text[:CLOSING_MEMORY_MAX_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def cards_for(order: FilmOrder) -> tuple[CardSpec, CardSpec]:
    """The opening and closing cards of ``order``."""
    accent = order.brand.color if order.brand else None
    common = {"accent_hex": accent, "gentle": order.occasion.gentle, "style": order.style.value}
    opening = CardSpec(kind="opening", lines=(order.occasion.short_name, order.recipient_name),
                       **common)
    closing = CardSpec(kind="closing", lines=(order.relationship, _closing_line(order)), **common)
    return opening, closing


def plan_for(order: FilmOrder, photos: list[PhotoSource],
             clips: list[ClipSource], song_meta: dict[str, list[float]],
             motion_shots: int, premium: bool = False) -> Timeline:
    """The film's timeline as data, cut on the song's beats (``premium``: parallax moves)."""
    opening, closing = cards_for(order)
    return plan_timeline(
        photos, clips, song_meta["beat_times"], order.length_sec, opening, closing, fps=FPS,
        motion_shots=motion_shots, gentle=order.occasion.gentle, style=order.style.value,
        subject_photo_id=order.subject_photo_id, bar_times=song_meta["bar_times"],
        premium=premium,
    )


def photo_sources(prep: PrepResult, paths: dict[str, Path],
                  subjects: dict[str, Subject]) -> list[PhotoSource]:
    """The prepared photos with the traits the timeline orders them by (see media.arc)."""
    return [PhotoSource(p.id, paths[p.id], p.width, p.height, p.low_res,
                        **asdict(photo_traits(paths[p.id], subjects.get(p.id))))
            for p in prep.photos]


def clip_sources(prep: PrepResult, paths: dict[str, Path]) -> list[ClipSource]:
    """The prepared clips with their quality scores (one low-resolution analysis pass each)."""
    sources = []
    for c in prep.clips:
        analysis = analyse_clip(paths[c.id], (c.width, c.height))
        sources.append(ClipSource(c.id, paths[c.id], c.duration_sec, c.width, c.height,
                                  c.has_audio, tuple(round(float(v), 4)
                                                     for v in frame_scores(analysis)),
                                  analysis.step_s))
    return sources


def load_logo(storage: Storage, key: str | None, scratch: Path) -> np.ndarray | None:
    """The brand logo the assets stage stored (an RGBA PNG) as an RGBA uint8 array, or
    ``None`` when there is none."""
    if key is None:
        return None
    with Image.open(storage.get_file(key, scratch / "logo.png"), formats=["PNG"]) as image:
        return np.asarray(image.convert("RGBA"))


def poster_time_s(timeline: Timeline) -> float:
    """Middle of the first photo shot (seconds): the subject, fully on screen."""
    for shot in timeline.shots:
        if shot.kind == "photo":
            return (shot.cut_in + shot.cut_out) / 2 / timeline.fps
    return timeline.length_sec / 2


def run_render(ctx: StageContext, render_input: RenderInput) -> RenderResult:
    """Fetch assets by key, plan, render both aspects, write films, poster and plan."""
    order, prep, assets = render_input.order, render_input.prep, render_input.assets
    storage, prefix = ctx.storage, f"{order.run_prefix}/render"
    with ctx.scratch("render") as scratch, Heartbeater("render") as heartbeat:
        photo_paths = {pid: storage.get_file(key, scratch / f"{pid}.jpg")
                       for pid, key in assets.photo_keys.items()}
        clip_paths = {c.id: storage.get_file(c.key, scratch / f"{c.id}.mp4") for c in prep.clips}
        song = storage.get_file(assets.song_key, scratch / "song.wav")
        song_meta = json.loads(storage.get_bytes(assets.song_meta_key, 4 << 20))
        framing = json.loads(storage.get_bytes(assets.framing_key, 4 << 20))
        subjects = {pid: subject_from_dict(s) for pid, s in framing.items()}
        photos = photo_sources(prep, photo_paths, subjects)
        clips = clip_sources(prep, clip_paths)
        recipe = ctx.settings.recipe(order.tier)
        timeline = plan_for(order, photos, clips, song_meta, recipe.motion_shots,
                            premium=recipe.motion == "premium")
        soundtrack = build_soundtrack(timeline, song, clip_paths,
                                      {c.id for c in clips if c.has_audio},
                                      scratch / "soundtrack.wav")
        outputs = {aspect.name: scratch / f"{aspect.name}.mp4" for aspect in ASPECTS}
        render_films(timeline, photo_paths, clip_paths,
                     soundtrack.path if soundtrack else song, outputs,
                     on_progress=heartbeat.fraction, encoder_preset=ctx.settings.encoder_preset,
                     subjects=subjects, logo=load_logo(storage, assets.logo_key, scratch))
        poster = extract_poster(outputs[LANDSCAPE.name], poster_time_s(timeline),
                                scratch / "poster.jpg")
        film_keys = {name: f"{prefix}/{name}.mp4" for name in outputs}
        for name, path in outputs.items():
            storage.put_file(film_keys[name], path, content_type="video/mp4")
        poster_key, timeline_key = f"{prefix}/poster.jpg", f"{prefix}/timeline.json"
        storage.put_file(poster_key, poster, content_type="image/jpeg")
        storage.put_bytes(timeline_key, timeline.to_json().encode(), "application/json")
    return RenderResult(film_keys=film_keys, poster_key=poster_key, timeline_key=timeline_key,
                        duration_sec=timeline.total_frames / timeline.fps)

