"""Assets stage: restore each photo and find its subject for framing, compose the song, and
order the photos' motion clips from the motion provider when one is configured."""

from __future__ import annotations

import json
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from PIL import Image
from temporalio import activity

from activities.context import Heartbeater, StageContext
from activities.order_plan import cards_for, order_look, photo_sources
from media.analysis.subjects import Subject, find_subject
from media.base.spec import film_frames, film_seconds
from media.intake.restore import Recipe, cover_long_edge, restore_photo, save_jpeg
from media.plan.motion_clips import motion_clip_seconds, motion_photos
from media.plan.pacing import card_seconds, film_look, pacing_of
from media.plan.spec import MotionRecipe
from media.song.compose import SongBrief, song_seed
from services.logo_fetch import LogoRefused, fetch_logo
from services.motion_provider import MotionOrder, motion_provider
from services.song_provider import song_note, song_provider
from workflows.contract import FilmOrder, Style
from workflows.stages import STAGE_RETRY, AssetsResult, MotionClip, PreparedPhoto, StageInput

ASSETS_THREADS = 2
"""The stage's workers: the song and the photos' restoration share them (the worker's two
cores)."""
RESTORE_WINDOW = ASSETS_THREADS + 1
"""Photos queued or running in the stage's pool at once: one more than its workers, so a
worker done early takes the next photo while the photos are taken back in order."""
LOGO_FETCH_ERROR = "fetch_error"
"""The ``logo_skipped:`` reason of a logo fetch that failed in a way it did not name."""


def song_brief(order: FilmOrder) -> SongBrief:
    """The song brief the order gives the composer, with how long the film's title and closing
    cards hold (the same reading rules the timeline plans them by), so the song's intro,
    lift and ending follow the film."""
    _, closing = cards_for(order)
    title_s, closing_s = card_seconds(order.length_sec, closing, film_look(
        order.style.value, order.occasion.gentle, closing.look))
    return SongBrief(
        occasion_slug=order.occasion.slug, tone=order.occasion.tone,
        gentle=order.occasion.gentle, recipient_name=order.recipient_name,
        relationship=order.relationship, memory=order.memory, story_note=order.story_note,
        feeling_words=tuple(order.feeling_words), style=order.style.value,
        length_sec=film_seconds(film_frames(order.length_sec)), title_card_s=title_s,
        closing_card_s=closing_s,
    )


def order_song_seed(order: FilmOrder) -> int:
    """The composer's seed for this attempt: the gift id and the attempt, private and stable.

    Never the share slug: that is public and is not part of what makes the run. Retries of one
    attempt compose the same song (the assets stage stays idempotent); a new attempt of the same
    gift (a re-render after a refund) may compose a new one, as the external song provider does,
    whose idempotency key is the workflow id (``film-{gift_id}-{attempt}``).
    """
    return song_seed(order.gift_id, str(order.attempt))


def _brand_logo(ctx: StageContext, order: FilmOrder,
                scratch: Path) -> tuple[str | None, list[str]]:
    """Fetch the brand logo (safely) into the run's ``assets/logo.png``: ``(key, notes)``.

    A logo that cannot be fetched never fails the film: the key is ``None`` and a note
    ``logo_skipped:<reason>`` says why (the brand colour alone is used). An unforeseen error
    of the fetch is ``logo_skipped:fetch_error`` too, logged with its traceback for ops; only a
    local fault (``OSError``: a full disk) is raised and retried.
    """
    if order.style is not Style.BRAND or order.brand is None or not order.brand.logo_url:
        return None, []
    try:
        logo = fetch_logo(order.brand.logo_url, scratch / "logo.png")
    except LogoRefused as exc:
        activity.logger.warning("brand logo skipped: %s", exc)
        return None, [f"logo_skipped:{exc.reason}"]
    except OSError:
        raise
    except Exception:  # a fetch bug must not cost the customer the film
        activity.logger.exception("brand logo skipped: the fetch failed unexpectedly")
        return None, [f"logo_skipped:{LOGO_FETCH_ERROR}"]
    key = order.run_keys.logo
    ctx.storage.put_file(key, logo.path, content_type="image/png")
    return key, [f"logo {logo.width}x{logo.height} ({logo.source_format})"]


@dataclass(frozen=True)
class _Restored:
    """One photo restored: the file the film shows, its restore report and its subject."""

    path: Path
    report: dict[str, object]
    subject: Subject


def _restore_one(local: Path, recipe: Recipe, scratch: Path, photo_id: str) -> _Restored:
    """Restore the photo at ``local`` per ``recipe`` at the size the film shows it, and find
    its subject on the restored pixels. Pure pixels: safe on any thread of the stage's pool."""
    with Image.open(local) as image:
        rgb = np.asarray(image.convert("RGB"))
    height, width = rgb.shape[:2]
    restored, report = restore_photo(rgb, recipe, cover_long_edge(width, height))
    out = local
    if report.applied:  # unchanged photos keep their bytes (no second JPEG generation)
        out = scratch / f"{photo_id}.restored.jpg"
        save_jpeg(restored, out)
    return _Restored(out, report.to_dict(), find_subject(restored))


def _restore_photos(ctx: StageContext, stage_input: StageInput, scratch: Path,
                    heartbeat: Heartbeater, pool: Executor
                    ) -> tuple[dict[str, Subject], dict[str, str], dict[str, Path]]:
    """Restore every prepared photo per the tier's recipe, at the size the film shows it, into
    ``{run}/assets/photos/{id}.jpg``; find its subject on the restored image; record each
    :class:`media.intake.restore.RestoreReport` in ``{run}/assets/restore.json``. The photos
    go through ``pool`` (the stage's, which composes the song too: whichever worker is free
    takes the next photo, so neither core waits on the other's share), at most
    :data:`RESTORE_WINDOW` of them queued or running at once.

    Returns the subjects found (the framing facts), the restored photos' keys and their local
    copies (by photo id).
    """
    order, photos = stage_input.order, stage_input.prep.photos
    run = order.run_keys
    recipe = ctx.settings.recipe(order.tier).restore
    subjects: dict[str, Subject] = {}
    keys: dict[str, str] = {}
    paths: dict[str, Path] = {}
    reports: dict[str, object] = {}

    def restore(photo: PreparedPhoto) -> Future[_Restored]:
        return pool.submit(_restore_one,
                           ctx.storage.get_file(photo.key, scratch / f"{photo.id}.jpg"),
                           recipe, scratch, photo.id)

    # A window of photos in the pool's queue, not all of them: the song's candidates offered to
    # the pool later (see run_assets) then wait behind a photo or two, not behind every photo.
    restoring = [restore(photo) for photo in photos[:RESTORE_WINDOW]]
    for index, photo in enumerate(photos):
        heartbeat.update(percent=round(50 * index / len(photos)), item=photo.id)  # per photo
        restored = restoring[index].result()
        if index + RESTORE_WINDOW < len(photos):
            restoring.append(restore(photos[index + RESTORE_WINDOW]))
        keys[photo.id], paths[photo.id] = run.restored_photo(photo.id), restored.path
        ctx.storage.put_file(keys[photo.id], restored.path, content_type="image/jpeg")
        subjects[photo.id] = restored.subject
        reports[photo.id] = restored.report
    ctx.storage.put_bytes(run.restore_report, json.dumps(reports).encode(),
                          "application/json")
    return subjects, keys, paths


def _motion_orders(ctx: StageContext, stage_input: StageInput, subjects: dict[str, Subject],
                   paths: dict[str, Path]) -> list[MotionOrder]:
    """The photos whose motion the tier orders from the motion provider (its recipe's
    ``provider_motion``): those its full moves go to first, most wanted first, at most its full
    moves (:func:`media.plan.motion_clips.motion_photos`; the provider keeps to the run's
    budget), each for the longest shot the film's look holds a photo; none when the tier's
    motion is local or no provider is configured."""
    order = stage_input.order
    recipe = ctx.settings.recipe(order.tier)
    if not (recipe.provider_motion and ctx.settings.motion_provider_url):
        return []
    count = MotionRecipe(motion_shots=recipe.motion_shots).full_moves(order.length_sec)
    chosen = motion_photos(photo_sources(stage_input.prep, paths, subjects),
                           order.subject_photo_id, count)
    seconds = motion_clip_seconds(pacing_of(order_look(order)))
    return [MotionOrder(photo_id, paths[photo_id], seconds,
                        f"{order.workflow_id}-{photo_id}") for photo_id in chosen]


def _motion_clips(ctx: StageContext, stage_input: StageInput, orders: list[MotionOrder],
                  scratch: Path, heartbeat: Heartbeater) -> tuple[dict[str, MotionClip],
                                                                 list[str]]:
    """The provider's clips of ``orders`` stored under ``{run}/assets/motion/{id}.mp4`` (by
    photo id), and the notes saying which photos keep their local moves and why."""
    if not orders:
        return {}, []
    heartbeat.update(percent=50, item="motion")
    run = stage_input.order.run_keys
    made = motion_provider(ctx.settings).make_motions(orders, scratch,
                                                      last_attempt=_last_attempt())
    clips = {}
    for photo_id, clip in made.clips.items():
        ctx.storage.put_file(run.motion_clip(photo_id), clip.path, content_type="video/mp4")
        clips[photo_id] = MotionClip(key=run.motion_clip(photo_id), duration_sec=clip.duration_s,
                                     width=clip.width, height=clip.height)
    if made.fallbacks:
        activity.logger.warning("motion provider: photos keep their local moves: %s",
                                made.fallbacks)
    return clips, made.notes()


def _last_attempt() -> bool:
    """True in the assets activity's last attempt (:data:`workflows.stages.STAGE_RETRY`): what
    would be retried falls back to the local moves instead."""
    return (activity.in_activity()
            and activity.info().attempt >= STAGE_RETRY.maximum_attempts)


def run_assets(ctx: StageContext, stage_input: StageInput) -> AssetsResult:
    """Write the framing facts of every photo, the mastered song with its beat grid, and the
    motion provider's clips of the photos the tier orders them for (none with the local
    moves: see :mod:`services.motion_provider` for what holds the run and what falls back)."""
    order, run = stage_input.order, stage_input.order.run_keys
    with ctx.scratch("assets") as scratch, Heartbeater("assets") as heartbeat, \
            ThreadPoolExecutor(ASSETS_THREADS, thread_name_prefix="assets") as pool:
        # The song first, then each photo, on the stage's two workers: both are mostly numpy,
        # OpenCV and FluidSynth with the GIL released, so the two cores share them; the song's
        # candidates are offered to the pool too, so a worker done with the photos plays one
        # (the signature's song is the stage's longest job). This thread fetches, stores and
        # polls the motion provider.
        composing = pool.submit(song_provider(ctx.settings).make_song, song_brief(order),
                                order_song_seed(order),
                                ctx.settings.recipe(order.tier).song_candidates, scratch,
                                idempotency_key=order.workflow_id, pool=pool)
        logo_key, logo_notes = _brand_logo(ctx, order, scratch)
        subjects, photo_keys, photo_paths = _restore_photos(ctx, stage_input, scratch,
                                                            heartbeat, pool)
        framing = {photo_id: asdict(subject) for photo_id, subject in subjects.items()}
        framing_key = run.framing
        ctx.storage.put_bytes(framing_key, json.dumps(framing).encode(), "application/json")

        # The provider's jobs are polled here while the song is composed on its thread.
        motion_clips, motion_notes = _motion_clips(
            ctx, stage_input, _motion_orders(ctx, stage_input, subjects, photo_paths), scratch,
            heartbeat)

        heartbeat.update(percent=50, item="song")
        song = composing.result()
        song_key, meta_key = run.song, run.song_meta
        ctx.storage.put_file(song_key, song.wav_path, content_type="audio/wav")
        ctx.storage.put_bytes(meta_key, json.dumps(song.metadata).encode(), "application/json")
    notes = [song_note(song.metadata)]
    return AssetsResult(
        song_key=song_key, song_meta_key=meta_key, framing_key=framing_key,
        photo_keys=photo_keys, lyrics=song.metadata["lyrics"],
        lyrics_sung=song.metadata["lyrics_sung"],
        notes=notes + logo_notes + motion_notes, logo_key=logo_key,
        motion_clips=motion_clips,
    )
