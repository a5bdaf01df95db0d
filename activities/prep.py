"""Prep stage: fetch the order's media by key, keep what is genuinely usable, normalize it.

A photo that decodes but cannot be shown (blank, black, a sliver, a thumbnail:
:mod:`media.intake.usable`, judged in the decoding child) is left out like a broken one, with its
reason; the gate holds an order left with none."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from activities.context import Heartbeater, StageContext
from media.base import errors
from media.base.errors import MediaRejected
from media.base.probe import sniff_container
from media.intake.clip_analysis import scored_clip
from media.intake.clip_checks import probe_clip
from media.intake.clips import ORDER_CLIP_WORK_MAX_PX, clip_work_px, normalize_clip
from media.intake.sandbox import PhotoSandbox
from workflows.contract import CLIP_MAX_BYTES, PHOTO_MAX_BYTES, ClipRef, FilmOrder, PhotoRef
from workflows.stages import ClipScores, PreparedClip, PreparedPhoto, PrepResult, Rejection

CLIP_NORMALIZE_TIMEOUT_S = 600.0
PREP_THREADS = 2  # the clips on one, the photos on the other (and both once the clips are done)


def run_prep(ctx: StageContext, order: FilmOrder) -> PrepResult:
    """Verify every photo and clip by its bytes; write working copies; list what was refused.

    The clips (in order: they share one work budget) go through on one thread while the photos
    go through on the other, each mostly a child process (a bounded decode in a grandchild of
    the sandbox's decode server, an ffmpeg normalize), so the stage uses both cores; the result
    lists them in the order's order."""
    total = len(order.photos) + len(order.clips)
    with ctx.scratch("prep") as scratch, Heartbeater("prep") as heartbeat, \
            ThreadPoolExecutor(PREP_THREADS, thread_name_prefix="prep") as pool, \
            PhotoSandbox() as sandbox:  # closed first: photos still queued are not decoded
        progress = _Progress(heartbeat, total)
        clip_outcomes = pool.submit(_prep_clips, ctx, order, scratch, progress)
        photo_outcomes = [pool.submit(progress.counted, _prep_photo, ctx, order, ref, scratch,
                                      sandbox)
                          for ref in order.photos]
        outcomes = [f.result() for f in photo_outcomes] + clip_outcomes.result()
    return PrepResult(
        photos=[o for o in outcomes if isinstance(o, PreparedPhoto)],
        clips=[o for o in outcomes if isinstance(o, PreparedClip)],
        rejected=[o for o in outcomes if isinstance(o, Rejection)])


_Outcome = PreparedPhoto | PreparedClip | Rejection


class _Progress:
    """The share of the order's files done, heartbeated; safe from the prep threads."""

    def __init__(self, heartbeat: Heartbeater, total: int) -> None:
        self.heartbeat, self.total, self.done = heartbeat, max(1, total), 0
        self._lock = threading.Lock()

    def counted(self, prepare: Callable[..., PreparedPhoto | PreparedClip], ctx: StageContext,
                order: FilmOrder, ref: PhotoRef | ClipRef, *args: object) -> _Outcome:
        """``prepare(ctx, order, ref, *args)``, or the file's rejection; counted as done."""
        self.heartbeat.update(item=ref.id)
        try:
            return prepare(ctx, order, ref, *args)
        except MediaRejected as rejection:
            return Rejection(id=ref.id, reason=rejection.reason)
        finally:
            with self._lock:
                self.done += 1
                self.heartbeat.update(percent=round(100 * self.done / self.total))


def _prep_clips(ctx: StageContext, order: FilmOrder, scratch: Path,
                progress: _Progress) -> list[_Outcome]:
    """Every clip in order, under one shared work budget."""
    budget = _ClipWorkBudget()
    return [progress.counted(_prep_clip, ctx, order, ref, scratch, budget)
            for ref in order.clips]


def _fetch(ctx: StageContext, key: str, dest: Path, max_bytes: int, too_large: str) -> Path:
    if ctx.storage.size(key) > max_bytes:
        raise MediaRejected(too_large)
    return ctx.storage.get_file(key, dest)


def _prep_photo(ctx: StageContext, order: FilmOrder, ref: PhotoRef, scratch: Path,
                sandbox: PhotoSandbox) -> PreparedPhoto:
    source = _fetch(ctx, ref.key, scratch / f"{ref.id}.src", PHOTO_MAX_BYTES, "photo_too_large")
    working = scratch / f"{ref.id}.jpg"
    info = sandbox.prepare(source, working)
    key = order.run_keys.prepared_photo(ref.id)
    ctx.storage.put_file(key, working, content_type="image/jpeg")
    return PreparedPhoto(id=ref.id, key=key, width=info.width, height=info.height,
                         low_res=info.low_res, trimmed_from=info.trimmed_from)


class _ClipWorkBudget:
    """The source pixels one order's clips may cost to normalize (ORDER_CLIP_WORK_MAX_PX)."""

    def __init__(self) -> None:
        self.spent_px = 0.0

    def take(self, work_px: float) -> None:
        """Spend ``work_px``, or refuse the clip (``order_clip_work_over_budget``)."""
        if self.spent_px + work_px > ORDER_CLIP_WORK_MAX_PX:
            raise MediaRejected(errors.ORDER_CLIP_WORK,
                                f"{work_px / 1e9:.1f} Gpx after {self.spent_px / 1e9:.1f} Gpx")
        self.spent_px += work_px


def _prep_clip(ctx: StageContext, order: FilmOrder, ref: ClipRef, scratch: Path,
               budget: _ClipWorkBudget) -> PreparedClip:
    source = _fetch(ctx, ref.key, scratch / f"{ref.id}.src", CLIP_MAX_BYTES, "clip_too_large")
    container = sniff_container(source)
    probe = probe_clip(source, container)
    budget.take(clip_work_px(probe))
    mezzanine = scratch / f"{ref.id}.mp4"
    info = normalize_clip(source, mezzanine, probe, timeout_s=CLIP_NORMALIZE_TIMEOUT_S)
    key = order.run_keys.prepared_clip(ref.id)
    ctx.storage.put_file(key, mezzanine, content_type="video/mp4")
    return PreparedClip(id=ref.id, key=key, duration_sec=info.duration_s, width=info.width,
                        height=info.height, has_audio=info.has_audio,
                        scores=_scores(mezzanine, (info.width, info.height)))


def _scores(mezzanine: Path, size: tuple[int, int]) -> ClipScores:
    """The mezzanine's scores and hashes (``size`` = width, height pixels) for the render's plan:
    a clip is analysed once, where it is made, not again by each render of it."""
    scored = scored_clip(mezzanine, size)
    return ClipScores(step_s=scored.step_s, scores=scored.scores, hashes=scored.hashes)
