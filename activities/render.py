"""Render stage: plan the timeline on the song's beats, then compose and encode both films.

Planned by ``render_plan``, then rendered whole when the plan allows one segment
(``render_film``: no segment files, no join) or split over media workers (one
``render_segment`` per frame range, then ``render_join``; see :mod:`workflows.segments`). Both
paths share the helpers below; only the storage keys they exchange cross activity boundaries.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image
from temporalio import activity

from activities.context import Heartbeater, StageContext
from activities.order_plan import cards_for, film_plan, film_spec, poster_frame, poster_time_s
from activities.resume import StoredSet, fingerprint, finished, forget
from media.analysis.subjects import Subject, subject_from_dict
from media.base.spec import ASPECTS, LANDSCAPE, PORTRAIT, EncoderSettings
from media.deliver.poster import Poster, PostersFromFrames, make_posters
from media.frames.encode import FilmSound
from media.frames.render import RenderRequest, render_films
from media.frames.segments import count_video_frames, join_limits, join_segments
from media.frames.signal import STORED_MAX_BYTES, FrameSignal, joined
from media.frames.sources import FilmSources, motion_clips_for, sources_for
from media.plan.spec import FilmSpec, SongGrid
from media.plan.timeline import Timeline, segment_cut_frames, timeline_from_dict
from media.song.soundtrack import build_soundtrack
from services.storage.base import Storage
from workflows.contract import FilmOrder
from workflows.stages import (
    RENDER_STALL,
    JoinInput,
    RenderInput,
    RenderPlan,
    RenderResult,
    SegmentInput,
    SegmentResult,
    WholeFilmInput,
)


def load_logo(storage: Storage, key: str | None, scratch: Path) -> np.ndarray | None:
    """The brand logo the assets stage stored (an RGBA PNG) as an RGBA uint8 array, or
    ``None`` when there is none."""
    if key is None:
        return None
    with Image.open(storage.get_file(key, scratch / "logo.png"), formats=["PNG"]) as image:
        return np.asarray(image.convert("RGBA"))


@dataclass
class _Sources:
    """The render inputs fetched to local scratch: photos and clips by id, subjects, logo, and
    the motion provider's clips by photo id."""

    photo_paths: dict[str, Path]
    clip_paths: dict[str, Path]
    subjects: dict[str, Subject]
    logo_key: str | None
    motion_paths: dict[str, Path] = field(default_factory=dict)


def _fetch_sources(storage: Storage, render_input: RenderInput, scratch: Path,
                   needed: tuple[set[str], set[str]] | None = None,
                   motion: Collection[str] = ()) -> _Sources:
    """Download the prepared photos and clips (only the ``needed`` photo and clip ids when
    given) and the motion provider's clips of the photos in ``motion``, and read the subjects
    the assets stage found."""
    prep, assets = render_input.prep, render_input.assets
    photos, clips = needed if needed is not None else (set(assets.photo_keys),
                                                       {c.id for c in prep.clips})
    photo_paths = {pid: storage.get_file(key, scratch / f"{pid}.jpg")
                   for pid, key in assets.photo_keys.items() if pid in photos}
    clip_paths = {c.id: storage.get_file(c.key, scratch / f"{c.id}.mp4")
                  for c in prep.clips if c.id in clips}
    motion_paths = {pid: storage.get_file(clip.key, scratch / f"{pid}.motion.mp4")
                    for pid, clip in assets.motion_clips.items() if pid in motion}
    framing = json.loads(storage.get_bytes(assets.framing_key, 4 << 20))
    return _Sources(photo_paths, clip_paths,
                    {pid: subject_from_dict(s) for pid, s in framing.items()}, assets.logo_key,
                    motion_paths)


def _plan(ctx: StageContext, render_input: RenderInput, sources: _Sources,
          scratch: Path) -> tuple[FilmSpec, Timeline, Path | None]:
    """The film's spec and timeline, and the soundtrack mixed from the song and the clips'
    sound (None when no clip shot has sound: the song is the soundtrack as it is)."""
    order, assets = render_input.order, render_input.assets
    song_meta = json.loads(ctx.storage.get_bytes(assets.song_meta_key, 4 << 20))
    spec = film_spec(order, render_input.prep, SongGrid.from_song_meta(song_meta),
                     ctx.settings.recipe(order.tier), photo_paths=sources.photo_paths,
                     clip_paths=sources.clip_paths, subjects=sources.subjects,
                     motion_seconds={pid: clip.duration_sec
                                     for pid, clip in assets.motion_clips.items()})
    timeline = film_plan(spec)
    song = ctx.storage.get_file(assets.song_key, scratch / "song.wav")
    soundtrack = build_soundtrack(timeline, song, sources.clip_paths,
                                  {c.id for c in spec.clips if c.has_audio},
                                  scratch / "soundtrack.wav")
    return spec, timeline, soundtrack.path if soundtrack else None


def _render(ctx: StageContext, timeline: Timeline, sources: _Sources, audio: Path | None,
            frames: tuple[int, int] | None, heartbeat: Heartbeater, scratch: Path,
            on_frame: Callable[[int, str, np.ndarray], None] | None = None,
            ) -> tuple[dict[str, Path], int, dict[str, FrameSignal]]:
    """Both aspects of ``frames`` (None: the whole film) into scratch; returns the files by
    aspect name, the frames rendered and what each aspect's frames looked like."""
    outputs = {aspect.name: scratch / f"{aspect.name}.mp4" for aspect in ASPECTS}
    film = FilmSources(sources.photo_paths, sources.clip_paths, sources.subjects,
                       load_logo(ctx.storage, sources.logo_key, scratch), audio,
                       sources.motion_paths)
    stats = render_films(timeline, film, outputs,
                         RenderRequest(frames=frames, on_progress=heartbeat.fraction,
                                       on_frame=on_frame),
                         EncoderSettings(preset=ctx.settings.encoder_preset))
    return outputs, stats.frames, stats.signals


def _frames_heartbeater() -> Heartbeater:
    """The heartbeats of a render of frames: they go out while its frames advance (see
    :data:`workflows.stages.RENDER_STALL`)."""
    return Heartbeater("render", stall_s=RENDER_STALL.total_seconds())


def _store_signals(stored: StoredSet, signals: dict[str, FrameSignal],
                   key_for: Callable[[str], str]) -> dict[str, str]:
    """Store each aspect's frame signal under ``key_for(aspect name)``; the keys by aspect."""
    keys = {name: key_for(name) for name in signals}
    for name, signal in signals.items():
        stored.put_bytes(keys[name], signal.to_bytes(), "application/octet-stream")
    return keys


def _reused(what: str, manifest_key: str) -> None:
    """Log that a re-run found its own finished render (its completion was lost)."""
    activity.logger.info("%s already finished by an earlier run of this attempt: reused",
                         what, extra={"result": "reused", "reason": manifest_key})


def _check_frames(name: str, frames: int, planned: int) -> None:
    if frames != planned:
        raise ValueError(f"{name} has {frames} frames, planned {planned}")


def _poster_paths(scratch: Path) -> dict[str, Path]:
    """Where each aspect's poster is written, by aspect name."""
    return {LANDSCAPE.name: scratch / "poster.jpg", PORTRAIT.name: scratch / "poster-9x16.jpg"}


def _posters_of_films(order: FilmOrder, timeline: Timeline, films: dict[str, Path],
                      scratch: Path) -> dict[str, Poster]:
    """A poster from each finished film (its picture with the opening card's words), by aspect
    name: for joined films, whose frames no one render composed."""
    paths = _poster_paths(scratch)
    made = make_posters([(films[name], paths[name]) for name in paths],
                        poster_time_s(timeline), cards_for(order)[0])
    return dict(zip(paths, made, strict=True))


def _store_films(ctx: StageContext, order: FilmOrder, timeline: Timeline,
                 films: dict[str, Path], posters: dict[str, Poster],
                 signals: dict[str, FrameSignal], timeline_key: str,
                 inputs: str) -> RenderResult:
    """Store films, posters (by aspect name) and the films' frame signals (for verify), then
    the render's manifest (last); the posters' layouts ride in the result, for the page."""
    stored = StoredSet(ctx.storage)
    poster_keys = {LANDSCAPE.name: order.run_keys.poster,
                   PORTRAIT.name: order.run_keys.portrait_poster}
    film_keys = {name: order.run_keys.film(name) for name in films}
    for name, path in films.items():
        stored.put_file(film_keys[name], path, content_type="video/mp4")
    for name, poster in posters.items():
        stored.put_file(poster_keys[name], poster.path, content_type="image/jpeg")
    result = RenderResult(film_keys=film_keys, poster_key=poster_keys[LANDSCAPE.name],
                          timeline_key=timeline_key,
                          poster_layouts={n: p.layout.to_dict() for n, p in posters.items()},
                          duration_sec=timeline.total_frames / timeline.fps,
                          signal_keys=_store_signals(stored, signals,
                                                     order.run_keys.frame_signal))
    stored.seal(order.run_keys.render_manifest, inputs, result)
    return result


def run_render_plan(ctx: StageContext, render_input: RenderInput) -> RenderPlan:
    """Plan the film and build its soundtrack; store both for the segments and the join, and
    the film's spec beside its timeline (a film can be planned again from it)."""
    order = render_input.order
    with ctx.scratch("render-plan") as scratch, Heartbeater("render") as heartbeat:
        heartbeat.update(item="plan")
        sources = _fetch_sources(ctx.storage, render_input, scratch)
        spec, timeline, mixed = _plan(ctx, render_input, sources, scratch)
        ctx.storage.put_bytes(order.run_keys.film_spec, spec.to_json().encode(),
                              "application/json")
        ctx.storage.put_bytes(order.run_keys.timeline, timeline.to_json().encode(),
                              "application/json")
        soundtrack_key = render_input.assets.song_key
        if mixed is not None:
            soundtrack_key = order.run_keys.soundtrack
            ctx.storage.put_file(soundtrack_key, mixed, content_type="audio/wav")
    return RenderPlan(timeline_key=order.run_keys.timeline, soundtrack_key=soundtrack_key,
                      total_frames=timeline.total_frames, fps=timeline.fps,
                      duration_sec=timeline.total_frames / timeline.fps,
                      cut_frames=segment_cut_frames(timeline),
                      render_workers=ctx.settings.render_workers)


def _load_timeline(storage: Storage, plan: RenderPlan) -> Timeline:
    return timeline_from_dict(json.loads(storage.get_bytes(plan.timeline_key, 4 << 20)))


def run_render_segment(ctx: StageContext, segment: SegmentInput) -> SegmentResult:
    """Render frames ``[start_frame, stop_frame)`` of the planned film, both aspects, video
    only; fetch only the photos and clips they show."""
    order, frames = segment.render.order, (segment.start_frame, segment.stop_frame)
    manifest_key = order.run_keys.segment_manifest(segment.index)
    with ctx.scratch("render-segment") as scratch, _frames_heartbeater() as heartbeat:
        heartbeat.update(item=f"segment {segment.index}")
        inputs = fingerprint(segment, ctx.storage, segment.plan.timeline_key,
                             extra=ctx.settings.encoder_preset)
        done = finished(ctx.storage, manifest_key, inputs, SegmentResult)
        if done is not None:
            _reused(f"segment {segment.index}", manifest_key)
            return done
        forget(ctx.storage, manifest_key)
        timeline = _load_timeline(ctx.storage, segment.plan)
        sources = _fetch_sources(ctx.storage, segment.render, scratch,
                                 sources_for(timeline, frames), motion_clips_for(timeline, frames))
        films, count, signals = _render(ctx, timeline, sources, None, frames, heartbeat,
                                        scratch)
        stored = StoredSet(ctx.storage)
        keys = {name: order.run_keys.segment_film(segment.index, name) for name in films}
        for name, path in films.items():
            stored.put_file(keys[name], path, content_type="video/mp4")
        signal_keys = _store_signals(
            stored, signals, lambda name: order.run_keys.segment_signal(segment.index, name))
        result = SegmentResult(index=segment.index, film_keys=keys, frames=count,
                               signal_keys=signal_keys)
        stored.seal(manifest_key, inputs, result)
    return result


def run_render_film(ctx: StageContext, whole: WholeFilmInput) -> RenderResult:
    """Render the planned film in one pass, both aspects with the plan's soundtrack, then store
    films and poster as the join does (what one segment and its join make, without writing,
    copying and re-muxing a segment)."""
    order, plan = whole.render.order, whole.plan
    with ctx.scratch("render-film") as scratch, _frames_heartbeater() as heartbeat:
        heartbeat.update(item="film")
        inputs = fingerprint(whole, ctx.storage, plan.timeline_key, plan.soundtrack_key,
                             extra=ctx.settings.encoder_preset)
        done = finished(ctx.storage, order.run_keys.render_manifest, inputs, RenderResult)
        if done is not None:
            _reused("the film", order.run_keys.render_manifest)
            return done
        forget(ctx.storage, order.run_keys.render_manifest)
        timeline = _load_timeline(ctx.storage, plan)
        sources = _fetch_sources(ctx.storage, whole.render, scratch, sources_for(timeline),
                                 motion_clips_for(timeline))
        audio = ctx.storage.get_file(plan.soundtrack_key, scratch / "soundtrack.wav")
        with PostersFromFrames(poster_frame(timeline), cards_for(order)[0],
                               _poster_paths(scratch)) as posters:
            films, frames, signals = _render(ctx, timeline, sources, audio, None, heartbeat,
                                             scratch, on_frame=posters)
            _check_frames("the film", frames, plan.total_frames)
            made = posters.result()
        return _store_films(ctx, order, timeline, films, made, signals, plan.timeline_key,
                            inputs)


def run_render_join(ctx: StageContext, join: JoinInput) -> RenderResult:
    """Join the segments of each aspect under the soundtrack, check every frame is there once,
    then store films and poster as the whole-film render does."""
    order, plan = join.render.order, join.plan
    segments = sorted(join.segments, key=lambda s: s.index)
    _check_frames("the segments", sum(s.frames for s in segments), plan.total_frames)
    limits = join_limits(plan.duration_sec)
    with ctx.scratch("render-join") as scratch, Heartbeater("render") as heartbeat:
        heartbeat.update(item="join")
        inputs = fingerprint(join, ctx.storage, plan.timeline_key, plan.soundtrack_key,
                             *(key for s in segments for key in s.film_keys.values()))
        done = finished(ctx.storage, order.run_keys.render_manifest, inputs, RenderResult)
        if done is not None:
            _reused("the joined film", order.run_keys.render_manifest)
            return done
        forget(ctx.storage, order.run_keys.render_manifest)
        audio = ctx.storage.get_file(plan.soundtrack_key, scratch / "soundtrack.wav")
        films = {}
        for aspect in ASPECTS:
            parts = [ctx.storage.get_file(s.film_keys[aspect.name],
                                          scratch / f"{s.index:03d}-{aspect.name}.mp4")
                     for s in segments]
            films[aspect.name] = join_segments(parts, FilmSound(audio, plan.total_frames),
                                               scratch / f"{aspect.name}.mp4", limits)
            _check_frames(f"the joined {aspect.name} film",
                          count_video_frames(films[aspect.name], limits), plan.total_frames)
        timeline = _load_timeline(ctx.storage, plan)
        return _store_films(ctx, order, timeline, films,
                            _posters_of_films(order, timeline, films, scratch),
                            _joined_signals(ctx.storage, segments), plan.timeline_key, inputs)


def _joined_signals(storage: Storage, segments: list[SegmentResult]) -> dict[str, FrameSignal]:
    """Each aspect's frame signal over the whole film, joined from the segments' (none for an
    aspect a segment rendered before signals were kept)."""
    out = {}
    for aspect in ASPECTS:
        keys = [s.signal_keys.get(aspect.name) for s in segments]
        if all(keys):
            out[aspect.name] = joined([
                FrameSignal.from_bytes(storage.get_bytes(key, STORED_MAX_BYTES))
                for key in keys if key])
    return out
