"""Render stage: plan the timeline on the song's beats, then compose and encode both films."""

from __future__ import annotations

import json

from activities.context import Heartbeater, StageContext
from media.cards import CardSpec
from media.framing import subject_from_dict
from media.poster import extract_poster
from media.render import render_films
from media.spec import ASPECTS, FPS, LANDSCAPE
from media.timeline import ClipSource, PhotoSource, Timeline, plan_timeline
from workflows.contract import FilmOrder
from workflows.stages import RenderInput, RenderResult

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
             motion_shots: int) -> Timeline:
    """The film's timeline as data, cut on the song's beats."""
    opening, closing = cards_for(order)
    return plan_timeline(
        photos, clips, song_meta["beat_times"], order.length_sec, opening, closing, fps=FPS,
        motion_shots=motion_shots, gentle=order.occasion.gentle, style=order.style.value,
        subject_photo_id=order.subject_photo_id, bar_times=song_meta["bar_times"],
    )


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
        photos = [PhotoSource(p.id, photo_paths[p.id], p.width, p.height, p.low_res)
                  for p in prep.photos]
        clips = [ClipSource(c.id, clip_paths[c.id], c.duration_sec, c.width, c.height,
                            c.has_audio) for c in prep.clips]
        motion_shots = ctx.settings.recipe(order.tier).motion_shots
        timeline = plan_for(order, photos, clips, song_meta, motion_shots)
        outputs = {aspect.name: scratch / f"{aspect.name}.mp4" for aspect in ASPECTS}
        render_films(timeline, photo_paths, clip_paths, song, outputs,
                     on_progress=heartbeat.fraction, encoder_preset=ctx.settings.encoder_preset,
                     subjects={pid: subject_from_dict(s) for pid, s in framing.items()})
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

