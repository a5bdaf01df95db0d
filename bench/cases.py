"""One benchmark case: the sample order at a given length, tier and photo count, run through the
real stage functions in order, in this process (no Temporal), each stage measured.

The order folder is a temporary copy of ``samples/birthday`` with ``length_sec`` and ``tier``
overridden; with ``photos`` set, the sample photos are repeated (copied under new names) or cut
to that many. A ``heavy`` case is the memory order of issue 7 instead: 30 photos at phone size
(12 MP JPEGs made from the samples) and 3 clips, the samples' two plus a generated ~480 MB one
(cached under ``bench/.cache``). Uploading the order's media to storage is the order API's job
and is not timed.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from bench.measure import Measured, RssSampler, measure

REPO = Path(__file__).resolve().parents[1]
SAMPLE_ORDER = REPO / "tests" / "fixtures" / "order"
STAGES = ("prep", "gate", "assets", "render", "verify", "deliver")
BYTES_PER_MB = 1_000_000
CACHE = REPO / "bench" / ".cache"
HEAVY_PHOTOS = 30
PHONE_PHOTO_PX = (4032, 3024)  # a 12 MP phone photo
BIG_CLIP_S = 60
BIG_CLIP_BITRATE_MBPS = 64  # 60 s at 64 Mbit/s: ~480 MB, under the 500 MB upload limit
RENDER_INPUT_FILE = "render_input.json"  # the render stage's input, kept with the artifacts


@dataclass(frozen=True)
class CaseSpec:
    """What to run: film length (s), tier, photo count (None: the sample's own), last stage."""

    length_sec: int
    tier: str
    photos: int | None = None
    stop_after: str = "deliver"
    heavy: bool = False

    @property
    def label(self) -> str:
        """A short name, e.g. ``60s-standard``, ``60s-standard-20p`` or ``60s-signature-heavy``."""
        return (f"{self.length_sec}s-{self.tier}" + (f"-{self.photos}p" if self.photos else "")
                + ("-heavy" if self.heavy else ""))


def make_order_folder(spec: CaseSpec, dest: Path, sample: Path = SAMPLE_ORDER) -> Path:
    """A copy of the ``sample`` order folder at ``dest`` with the case's overrides applied.

    Extra photos are byte copies of the sample's, named after the originals (``dupNN-...``) so
    that the originals, and the subject photo, keep their names and come first.
    """
    dest.mkdir(parents=True, exist_ok=True)
    fields = json.loads((sample / "order.json").read_text(encoding="utf-8"))
    fields.update(length_sec=spec.length_sec, tier=spec.tier)
    (dest / "order.json").write_text(json.dumps(fields, indent=2), encoding="utf-8")
    shutil.copytree(sample / "clips", dest / "clips", dirs_exist_ok=True)
    originals = sorted(p for p in (sample / "photos").iterdir() if p.is_file())
    photos = dest / "photos"
    photos.mkdir(exist_ok=True)
    if spec.heavy:
        _phone_photos(originals, photos, HEAVY_PHOTOS)
        shutil.copyfile(big_clip(), dest / "clips" / "03-big.mp4")
        return dest
    count = spec.photos or len(originals)
    for index in range(count):
        source = originals[index % len(originals)]
        name = source.name if index < len(originals) else f"dup{index + 1:02d}-{source.name}"
        shutil.copyfile(source, photos / name)
    return dest


def _phone_photos(originals: list[Path], dest: Path, count: int) -> None:
    """``count`` phone-size JPEGs from ``originals``: the originals first (their names kept),
    then variants (mirrored, cropped differently, warmer or cooler) so no two are alike."""
    for index in range(count):
        source = originals[index % len(originals)]
        variant = index // len(originals)
        with Image.open(source) as image:
            rgb = image.convert("RGB")
        if variant % 2:
            rgb = ImageOps.mirror(rgb)
        size = PHONE_PHOTO_PX if rgb.width >= rgb.height else PHONE_PHOTO_PX[::-1]
        centering = (0.5 + 0.08 * (variant % 3 - 1), 0.5)
        phone = ImageOps.fit(rgb, size, Image.Resampling.BICUBIC, centering=centering)
        tint = np.array([1.0 + 0.03 * (variant % 3 - 1), 1.0, 1.0 - 0.03 * (variant % 3 - 1)])
        pixels = np.clip(np.asarray(phone, np.float32) * tint, 0, 255).astype(np.uint8)
        name = source.name if index < len(originals) else f"v{index + 1:02d}-{source.name}"
        Image.fromarray(pixels).save(dest / name, quality=92)


def big_clip() -> Path:
    """A ~480 MB 1080p30 H.264 clip with stereo sound (generated once, then cached)."""
    from media.base.runner import Limits, ffmpeg_argv, run_tool

    path = CACHE / f"big-{BIG_CLIP_S}s-{BIG_CLIP_BITRATE_MBPS}M.mp4"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part.mp4")
    rate = f"{BIG_CLIP_BITRATE_MBPS}M"
    run_tool(ffmpeg_argv(
        "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30:duration={BIG_CLIP_S},"
                             "noise=alls=24:allf=t",
        "-f", "lavfi", "-i", f"sine=frequency=330:duration={BIG_CLIP_S}:sample_rate=48000",
        "-c:v", "libx264", "-preset", "ultrafast", "-b:v", rate, "-maxrate", rate,
        "-bufsize", rate, "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2",
        "-movflags", "+faststart", str(partial)), Limits(timeout_s=1800))
    partial.rename(path)
    return path


@contextlib.contextmanager
def capture_render_stats() -> Iterator[list[Any]]:
    """Collect the :class:`media.frames.render.RenderStats` of every ``render_films`` call the
    render
    stage makes in the block (the stage itself does not return them)."""
    import activities.render as render_stage

    original: Callable[..., Any] = render_stage.render_films
    seen: list[Any] = []

    def capturing(*args: Any, **kwargs: Any) -> Any:
        stats = original(*args, **kwargs)
        seen.append(stats)
        return stats

    render_stage.render_films = capturing
    try:
        yield seen
    finally:
        render_stage.render_films = original


def _timeline_summary(path: Path) -> dict[str, Any]:
    plan = json.loads(path.read_text(encoding="utf-8"))
    shots = plan["shots"]
    kinds = [s["kind"] for s in shots]
    return {"total_frames": plan["total_frames"], "fps": plan["fps"], "shots": len(shots),
            "photo_shots": kinds.count("photo"), "clip_shots": kinds.count("clip"),
            "card_shots": kinds.count("card"),
            "photos_used": len({s["source_id"] for s in shots if s["kind"] == "photo"}),
            "dropped_photos": len(plan.get("dropped_photo_ids", []))}


def render_as_deployed(ctx: Any, render_input: Any,
                       activity: Callable[[Callable[[], Any]], Any] = lambda call: call()) -> Any:
    """The render stage as the workflow runs it (:func:`workflows.segments.split_render`), in
    this process: ``render_plan``, then ``render_film`` (one segment: the default
    ``FILM_RENDER_WORKERS=1``) or the segments one after the other and ``render_join``; each
    of those activities through ``activity`` (default: called as it is; :func:`run_case` runs
    each as the media worker does, see :func:`as_media_activity`)."""
    from activities.render import (
        run_render_film,
        run_render_join,
        run_render_plan,
        run_render_segment,
    )
    from workflows.segments import split_render
    from workflows.stages import JoinInput, WholeFilmInput

    plan = activity(lambda: run_render_plan(ctx, render_input))
    split = split_render(render_input, plan)
    if isinstance(split, WholeFilmInput):
        return activity(lambda: run_render_film(ctx, split))
    segments = [activity(lambda s=segment: run_render_segment(ctx, s)) for segment in split]
    return activity(lambda: run_render_join(
        ctx, JoinInput(render=render_input, plan=plan, segments=segments)))


def case_context(workdir: Path) -> Any:
    """The stage context of a case: local storage and scratch under ``workdir``, no order API."""
    from activities.context import StageContext
    from services.settings import Settings

    return StageContext.from_settings(Settings(
        FILM_STORAGE_URL=(workdir / "storage").as_uri(), FILM_WORK_DIR=str(workdir / "work"),
        FILM_ORDER_API_URL=None))


def render_stage_again(workdir: Path) -> tuple[Measured, Any]:
    """The render stage of a case run before (its input kept in ``artifacts/``), as deployed
    and measured again; with the :class:`media.frames.render.RenderStats` of its render."""
    from workflows.stages import RenderInput

    saved = workdir / "artifacts" / RENDER_INPUT_FILE
    if not saved.exists():
        raise FileNotFoundError(f"{saved}: run the benchmark again with --workdir to keep it")
    render_input = RenderInput.model_validate_json(saved.read_text(encoding="utf-8"))
    ctx = case_context(workdir)
    with RssSampler() as sampler, capture_render_stats() as stats, \
            measure(sampler) as measured:
        render_as_deployed(ctx, render_input)
    return measured, stats[-1]


def as_media_activity(call: Callable[[], Any]) -> Any:
    """``call()`` as the media worker runs an activity: in a thread of its own, ended before it
    returns (:class:`app.memory.ThreadPerActivity`), then the worker's release of memory
    (:func:`app.memory.release_memory`): what the activity held goes with it."""
    from app.memory import ThreadPerActivity, release_memory

    try:
        with ThreadPerActivity(max_workers=1) as executor:
            return executor.submit(call).result()
    finally:
        release_memory(page_out=True)


def run_case(spec: CaseSpec, workdir: Path) -> dict[str, Any]:
    """Run the stages of ``spec`` in order under ``workdir``; measurements and artifacts. Each
    activity runs as the media worker runs it (:func:`as_media_activity`): in a thread of its
    own, then the worker's release of memory.

    Artifacts (the mastered song, the prepared photos, the render stage's timeline and input)
    are copied to ``workdir/artifacts`` after the measured stages, for the floor and MoviePy
    runs and :func:`render_stage_again`.
    """
    from activities.assets import run_assets
    from activities.deliver import run_deliver
    from activities.gate import run_gate
    from activities.prep import run_prep
    from activities.verify import run_verify
    from app.order_folder import load_order_folder
    from workflows.stages import DeliverInput, RenderInput, StageInput, VerifyInput

    ctx = case_context(workdir)
    settings = ctx.settings
    order = load_order_folder(make_order_folder(spec, workdir / "order"), settings)
    stages: dict[str, Measured] = {}
    last = STAGES.index(spec.stop_after)

    def stage(name: str, call: Callable[[], Any], activities: bool = False) -> Any:
        """Measure stage ``name``: one activity (``call``), or with ``activities`` a ``call``
        that runs the stage's activities itself (the render's plan, film or segments, join)."""
        with measure(sampler) as measured:
            result = call() if activities else as_media_activity(call)
        stages[name] = measured
        return result

    with RssSampler() as sampler, measure() as total:
        prep = stage("prep", lambda: run_prep(ctx, order))
        stage_input = StageInput(order=order, prep=prep)
        stage("gate", lambda: run_gate(ctx, stage_input))
        assets = stage("assets", lambda: run_assets(ctx, stage_input))
        render_input = RenderInput(order=order, prep=prep, assets=assets)
        with capture_render_stats() as render_stats:
            rendered = stage("render", lambda: render_as_deployed(ctx, render_input,
                                                                as_media_activity), True)
        if last >= STAGES.index("verify"):
            stage("verify", lambda: run_verify(ctx, VerifyInput(order=order, render=rendered)))
        if last >= STAGES.index("deliver"):
            stage("deliver", lambda: run_deliver(
                ctx, DeliverInput(order=order, render=rendered, assets=assets)))

    total.peak_tree_mib, total.peak_child_mib = sampler.peak_tree_mib, sampler.peak_child_mib
    total.peak_tree_pss_mib = sampler.peak_tree_pss_mib
    total.sampler_cpu_s = sampler.cpu_s  # it ran around this block only (+2 samples, ~10 ms)
    total.cpu_self_s -= total.sampler_cpu_s
    artifacts = workdir / "artifacts"
    (artifacts / "photos").mkdir(parents=True, exist_ok=True)
    (artifacts / RENDER_INPUT_FILE).write_text(render_input.model_dump_json(), encoding="utf-8")
    song = ctx.storage.get_file(assets.song_key, artifacts / "song.wav")
    timeline = ctx.storage.get_file(rendered.timeline_key, artifacts / "timeline.json")
    photos = {p.id: str(ctx.storage.get_file(p.key, artifacts / "photos" / f"{p.id}.jpg"))
              for p in prep.photos}
    stats = render_stats[-1] if render_stats else None
    return {
        "spec": asdict(spec),
        "label": spec.label,
        "length_sec": spec.length_sec,
        "tier": spec.tier,
        "photos_in_order": len(order.photos),
        "clips_in_order": len(order.clips),
        "preset": settings.encoder_preset,
        "stages": {name: m.to_dict() for name, m in stages.items()},
        "stages_wall_s": sum(m.wall_s for m in stages.values()),
        "stages_cpu_s": sum(m.cpu_s for m in stages.values()),
        "total": total.to_dict(),
        "render_stats": None if stats is None else {
            "frames": stats.frames, "elapsed_s": stats.elapsed_s,
            "frames_per_s": stats.frames_per_s, "compose_s": stats.compose_s,
            "encoder_wait_s": stats.encoder_wait_s},
        "films_bytes": {name: ctx.storage.size(key) for name, key in rendered.film_keys.items()},
        "duration_sec": rendered.duration_sec,
        "timeline": _timeline_summary(timeline),
        "artifacts": {"song": str(song), "timeline": str(timeline), "photos": photos},
    }
