"""Assets stage: find each photo's subject for framing, compose the film's original song."""

from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
from PIL import Image

from activities.context import Heartbeater, StageContext
from media.framing import find_subject
from media.song import ComposedSong, SongBrief, compose_song, song_seed, write_wav
from workflows.contract import FilmOrder
from workflows.stages import AssetsResult, StageInput


def song_brief(order: FilmOrder) -> SongBrief:
    """The song brief the order gives the composer."""
    return SongBrief(
        occasion_slug=order.occasion.slug, tone=order.occasion.tone,
        gentle=order.occasion.gentle, recipient_name=order.recipient_name,
        relationship=order.relationship, memory=order.memory, story_note=order.story_note,
        feeling_words=tuple(order.feeling_words), style=order.style.value,
        length_sec=order.length_sec,
    )


def song_metadata(song: ComposedSong) -> dict[str, object]:
    """Everything about the song but its samples: the render stage cuts on ``beat_times``."""
    return {
        "tempo_bpm": song.tempo_bpm, "key": song.key, "beat_times": song.beat_times,
        "bar_times": song.bar_times, "sections": song.sections, "lyrics": song.lyrics,
        "integrated_lufs": song.integrated_lufs, "true_peak_dbtp": song.true_peak_dbtp,
        "duration_sec": len(song.audio) / song.sample_rate,
    }


def run_assets(ctx: StageContext, stage_input: StageInput) -> AssetsResult:
    """Write the framing facts of every photo and the mastered song with its beat grid."""
    order, prep = stage_input.order, stage_input.prep
    prefix = f"{order.run_prefix}/assets"
    with ctx.scratch("assets") as scratch, Heartbeater("assets") as heartbeat:
        framing: dict[str, object] = {}
        for index, photo in enumerate(prep.photos):
            heartbeat.update(percent=round(50 * index / len(prep.photos)), item=photo.id)
            local = ctx.storage.get_file(photo.key, scratch / f"{photo.id}.jpg")
            with Image.open(local) as image:
                framing[photo.id] = asdict(find_subject(np.asarray(image.convert("RGB"))))
        framing_key = f"{prefix}/framing.json"
        ctx.storage.put_bytes(framing_key, json.dumps(framing).encode(), "application/json")

        heartbeat.update(percent=50, item="song")
        song = compose_song(song_brief(order), song_seed(order.gift_id, order.share_slug))
        wav = scratch / "song.wav"
        write_wav(wav, song)
        song_key, meta_key = f"{prefix}/song.wav", f"{prefix}/song.json"
        ctx.storage.put_file(song_key, wav, content_type="audio/wav")
        ctx.storage.put_bytes(meta_key, json.dumps(song_metadata(song)).encode(),
                              "application/json")
    notes = [f"song {song.key} at {song.tempo_bpm:.0f} bpm, {song.integrated_lufs:.1f} LUFS, "
             f"true peak {song.true_peak_dbtp:.1f} dBTP"]
    return AssetsResult(
        song_key=song_key, song_meta_key=meta_key, framing_key=framing_key,
        photo_keys={photo.id: photo.key for photo in prep.photos}, lyrics=song.lyrics,
        notes=notes,
    )
