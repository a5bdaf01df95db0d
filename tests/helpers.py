"""Helpers shared by the test modules (pytest-free but for assertions): a test module imports
from here, or from the servers and builders beside it (``tests/stages.py``, ``tests/processes.py``,
``tests/receiver.py``, ``tests/s3.py``, ``tests/media/lavfi.py``...), never from another test
module. Heavy product code is imported inside the helpers that need it."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import shutil
import socket
import struct
import time
import uuid
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pytest
from PIL import Image
from temporalio import activity
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from media.base.runner import Limits, ToolPaths, ffprobe_argv, run_tool, use_tools
from media.cards.spec import CardSpec
from media.plan import planner
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.pacing import SUBJECT_SHARE_MAX as PLANNED_SUBJECT_SHARE_MAX
from media.plan.pacing import card_seconds, film_look
from media.plan.shot_order import shows_subject
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from media.plan.transitions import transition_kind
from services.storage.local import LocalStorage
from tests.stages import local_context, order_with_media
from workflows.cleanup import CleanupInput
from workflows.contract import FilmOrder, FilmOutcome, FilmStage, Progress, Tier
from workflows.film import FilmRender
from workflows.keys import photo_key
from workflows.stages import (
    ActivityName,
    AssetsResult,
    DeliverResult,
    GateResult,
    JoinInput,
    PrepResult,
    RenderPlan,
    RenderResult,
    ReportInput,
    SegmentInput,
    SegmentResult,
    StageInput,
    VerifyResult,
    WholeFilmInput,
    media_task_queue,
)

if TYPE_CHECKING:
    from media.analysis.framing import Aspect, Motion

TESTS = Path(__file__).resolve().parent
T = TypeVar("T")


# --- Waiting on a condition, with a bound ---------------------------------------------------------


def wait_until(condition: Callable[[], T | None], what: str, timeout_s: float = 60.0,
               interval_s: float = 0.05) -> T:
    """``condition()``'s first truthy value, asked every ``interval_s`` until ``timeout_s``
    passed (then an AssertionError naming ``what``): a wait that holds on a loaded machine."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:g} s")
        time.sleep(interval_s)


async def eventually(condition: Callable[[], Awaitable[T | None]], what: str,
                     timeout_s: float = 60.0, interval_s: float = 0.05) -> T:
    """:func:`wait_until` for an async ``condition``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = await condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout_s:g} s")
        await asyncio.sleep(interval_s)


# --- The tools media/ runs ------------------------------------------------------------------------


@contextlib.contextmanager
def tools_at(paths: ToolPaths) -> Iterator[None]:
    """media/ runs the ffmpeg and ffprobe at ``paths`` for the duration of the block."""
    previous = use_tools(paths)
    try:
        yield
    finally:
        use_tools(previous)


# --- Orders ---------------------------------------------------------------------------------------


SAMPLE_ORDER = TESTS / "fixtures" / "order"


def disguised_photo_order(folder: Path) -> Path:
    """An order folder whose every photo is a disguised or corrupt file."""
    folder.mkdir()
    shutil.copy(SAMPLE_ORDER / "order.json", folder / "order.json")
    photos = folder / "photos"
    photos.mkdir()
    (photos / "01.jpg").write_text("#EXTM3U\nhttp://169.254.169.254/latest\n")
    (photos / "02.png").write_bytes(b"GIF89a" + bytes(64))
    (photos / "03.webp").write_bytes(b"")
    truncated = (SAMPLE_ORDER / "photos" / "01-astronaut.jpg").read_bytes()[:600]
    (photos / "04.jpg").write_bytes(truncated)
    data = json.loads((folder / "order.json").read_text())
    data.pop("subject_photo")
    (folder / "order.json").write_text(json.dumps(data))
    return folder


def _encoded(pixels: np.ndarray, fmt: str) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, fmt, **({"quality": 85} if fmt == "JPEG" else {}))
    return buffer.getvalue()


def pocket_shot_jpeg() -> bytes:
    """A phone's shot from a pocket: near black with sensor noise (1600x1200 JPEG)."""
    noise = np.random.default_rng(5).normal(0.0, 4.0, (1200, 1600, 3))
    return _encoded(np.clip(noise + np.array([4, 3, 5]), 0, 255).astype(np.uint8), "JPEG")


def white_screenshot_png() -> bytes:
    """A blank white phone screenshot under its status bar (1170x2532 PNG)."""
    pixels = np.full((2532, 1170, 3), 255, np.uint8)
    pixels[:90] = 246
    return _encoded(pixels, "PNG")


def grey_frame_jpeg() -> bytes:
    """One flat colour (1200x900 JPEG)."""
    return _encoded(np.full((900, 1200, 3), (128, 126, 120), np.uint8), "JPEG")


def stripe_png() -> bytes:
    """A 20000x20 picture (a gradient): a sliver no film frame can show."""
    row = np.linspace(0, 255, 20000, dtype=np.float32)
    pixels = np.stack([row, row[::-1], np.full_like(row, 90)], axis=-1).astype(np.uint8)
    return _encoded(np.repeat(pixels[None], 20, axis=0), "PNG")


def order_with_blank_photos(folder: Path, sample: Path, good: int) -> Path:
    """An order folder of ``sample``'s order with its first ``good`` photos, then a pocket shot,
    a white screenshot and a 20000x20 stripe (``good`` 0: only those three)."""
    folder.mkdir()
    data = json.loads((sample / "order.json").read_text())
    photos = folder / "photos"
    photos.mkdir()
    kept = sorted((sample / "photos").iterdir())[:good]
    for path in kept:
        shutil.copy(path, photos / path.name)
    if data.get("subject_photo") not in {path.name for path in kept}:
        data.pop("subject_photo", None)
    (photos / "90-pocket.jpg").write_bytes(pocket_shot_jpeg())
    (photos / "91-screenshot.png").write_bytes(white_screenshot_png())
    (photos / "92-stripe.png").write_bytes(stripe_png())
    (folder / "order.json").write_text(json.dumps(data))
    return folder


def order_fields(**overrides: Any) -> dict[str, Any]:
    """A valid order's fields, with overrides."""
    fields: dict[str, Any] = {
        "gift_id": "gift0001", "attempt": 1, "charge_id": "ch_123", "share_slug": "slug0001",
        "tier": "standard", "style": "gift",
        "occasion": {"slug": "birthday", "name": "Birthday", "short_name": "Happy Birthday",
                     "tone": "joyful"},
        "recipient_name": "Zoë O'Brien", "relationship": "sister", "length_sec": 60,
        "photos": [{"id": "p01", "key": "orders/gift0001/photos/p01.jpg", "mime": "image/jpeg"}],
        "consent": {"accepted": True, "at": datetime(2026, 11, 21, tzinfo=UTC).isoformat()},
    }
    fields.update(overrides)
    return fields


def photo_refs(count: int) -> list[dict[str, str]]:
    """``count`` valid photo refs."""
    return [{"id": f"p{i:02d}", "key": f"orders/gift0001/photos/p{i:02d}.jpg",
             "mime": "image/jpeg"} for i in range(1, count + 1)]


def make_order(gift_id: str | None = None) -> FilmOrder:
    """A valid order with one photo (the fake stages never read it)."""
    gift = gift_id or f"wf{uuid.uuid4().hex[:10]}"
    return FilmOrder.model_validate({
        "gift_id": gift, "attempt": 1, "charge_id": "ch_1", "share_slug": f"s{gift}",
        "tier": "standard",
        "occasion": {"slug": "birthday", "name": "Birthday", "short_name": "Happy Birthday",
                     "tone": "joyful"},
        "recipient_name": "Ana", "relationship": "friend", "length_sec": 30,
        "photos": [{"id": "p01", "key": photo_key(gift, "p01", "jpg"), "mime": "image/jpeg"}],
        "consent": {"accepted": True, "at": datetime.now(UTC).isoformat()},
    })


def raw_order(**changes: Any) -> dict[str, Any]:
    """A valid order as the JSON an API client in any language sends, with ``changes``."""
    return {**make_order().model_dump(mode="json"), **changes}


# --- FilmRender with same-named fake stages ------------------------------------------------------


FAKE_FPS = 30
FAKE_TOTAL_FRAMES = 30 * FAKE_FPS  # make_order's 30 s
FAKE_CUTS = list(range(45, FAKE_TOTAL_FRAMES, 90))  # a shot boundary every 3 s


class FakeStages:
    """Same-named stand-ins for the six stages, the render stage's parts (plan, segments, join,
    whole film; ``render_workers`` as the plan reports it), the report and the forgetting of the
    run's files, with hooks per activity (``failures`` keyed ``render_segment:<index>`` hit one
    segment only; ``forget_failures`` are raised by the forgetting's next attempts, one each).
    ``calls`` lists the stages' activities; the report and the forgetting are recorded apart
    (``reported``, ``forgotten``: every attempt)."""

    def __init__(self, render_workers: int = 1) -> None:
        self.render_workers = render_workers
        self.calls: list[str] = []
        self.queues: dict[str, str] = {}
        self.reported: list[FilmOutcome] = []
        self.reported_gifts: list[str] = []
        self.forgotten: list[CleanupInput] = []
        self.forget_failures: list[Exception] = []
        self.gates: dict[str, asyncio.Event] = {}
        self.failures: dict[str, Callable[[], Exception]] = {}
        self.segments: list[SegmentInput] = []

    async def _enter(self, name: str, key: str | None = None) -> None:
        self.calls.append(name)
        self.queues[name] = activity.info().task_queue
        if name in self.gates:
            await self.gates[name].wait()
        for hook in (name, key):
            if hook in self.failures:
                raise self.failures[hook]()

    def activities(self) -> list[Callable[..., Any]]:
        """The fakes, registered under the real activity names."""

        @activity.defn(name=ActivityName.PREP)
        async def prep(order: FilmOrder) -> PrepResult:
            await self._enter("prep")
            return PrepResult(photos=[], clips=[], rejected=[])

        @activity.defn(name=ActivityName.GATE)
        async def gate(_: Any) -> GateResult:
            await self._enter("gate")
            return GateResult(notes=[])

        @activity.defn(name=ActivityName.ASSETS)
        async def assets(_: Any) -> AssetsResult:
            await self._enter("assets")
            return AssetsResult(song_key="s", song_meta_key="m", framing_key="f", photo_keys={},
                                lyrics=[], notes=[])

        @activity.defn(name=ActivityName.RENDER_PLAN)
        async def render_plan(_: Any) -> RenderPlan:
            await self._enter("render_plan")
            return RenderPlan(timeline_key="t", soundtrack_key="s",
                              total_frames=FAKE_TOTAL_FRAMES, fps=FAKE_FPS, duration_sec=30.0,
                              cut_frames=FAKE_CUTS, render_workers=self.render_workers)

        @activity.defn(name=ActivityName.RENDER_SEGMENT)
        async def render_segment(segment: SegmentInput) -> SegmentResult:
            self.segments.append(segment)
            await self._enter("render_segment", f"render_segment:{segment.index}")
            return SegmentResult(index=segment.index, film_keys={"16x9": "a", "9x16": "b"},
                                 frames=segment.stop_frame - segment.start_frame)

        @activity.defn(name=ActivityName.RENDER_JOIN)
        async def render_join(join: JoinInput) -> RenderResult:
            await self._enter("render_join")
            assert sum(s.frames for s in join.segments) == join.plan.total_frames
            return RenderResult(film_keys={"16x9": "a", "9x16": "b"}, poster_key="p",
                                timeline_key="t", duration_sec=30.0)

        @activity.defn(name=ActivityName.RENDER_FILM)
        async def render_film(whole: WholeFilmInput) -> RenderResult:
            await self._enter("render_film")
            return RenderResult(film_keys={"16x9": "a", "9x16": "b"}, poster_key="p",
                                timeline_key="t", duration_sec=whole.plan.duration_sec)

        @activity.defn(name=ActivityName.VERIFY)
        async def verify(_: Any) -> VerifyResult:
            await self._enter("verify")
            return VerifyResult(measurements={})

        @activity.defn(name=ActivityName.DELIVER)
        async def deliver(_: Any) -> DeliverResult:
            await self._enter("deliver")
            return DeliverResult(film_url={"16x9": "u1", "9x16": "u2"}, gift_url="g",
                                 poster_url="p")

        @activity.defn(name=ActivityName.REPORT_OUTCOME)
        async def report_outcome(report: ReportInput) -> str:
            self.queues["report_outcome"] = activity.info().task_queue
            self.reported.append(report.outcome)
            self.reported_gifts.append(report.gift_id)
            return "accepted"

        @activity.defn(name=ActivityName.FORGET_RUN_FILES)
        async def forget_run_files(cleanup: CleanupInput) -> str:
            self.queues["forget_run_files"] = activity.info().task_queue
            self.forgotten.append(cleanup)
            error = self.forget_failures.pop(0) if self.forget_failures else None
            if error is not None:
                raise error
            return "0 run files deleted"

        return [prep, gate, assets, render_plan, render_segment, render_join, render_film,
                verify, deliver, report_outcome, forget_run_files]


@contextlib.asynccontextmanager
async def fake_workers(client: Client, stages: FakeStages, prefix: str = "test"
                       ) -> AsyncIterator[str]:
    """Workers on a fresh task queue and its media queue running FilmRender with ``stages``
    (each queue offers every fake, so routing is observed, not enforced); yields the queue."""
    queue = f"{prefix}-{uuid.uuid4()}"
    async with (
        Worker(client, task_queue=queue, workflows=[FilmRender], activities=stages.activities()),
        Worker(client, task_queue=media_task_queue(queue), activities=stages.activities()),
    ):
        yield queue


async def wait_for_stage(handle: WorkflowHandle[Any, Any], stage: FilmStage,
                         timeout_s: float = 60.0) -> Progress:
    """The run's progress once it is at ``stage`` (the query polled; bounded by ``timeout_s``)."""
    async def at_stage() -> Progress | None:
        progress = await handle.query("progress", result_type=Progress)
        return progress if progress.stage is stage else None

    return await eventually(at_stage, f"the run at {stage}", timeout_s)


# --- Customer files -------------------------------------------------------------------------------


def picture(width: int, height: int) -> Image.Image:
    """A picture the film can show (not blank: colour ramps across and down, a dark and a light
    block), ``width`` x ``height`` RGB."""
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    pixels = np.stack([255 * xs / max(1, width - 1), 255 * ys / max(1, height - 1),
                       np.full_like(xs, 120)], axis=-1)
    pixels[height // 4:height // 2, width // 4:width // 2] = 20
    pixels[height // 2:3 * height // 4, width // 2:3 * width // 4] = 235
    return Image.fromarray(pixels.astype(np.uint8))


def jpeg_bytes() -> bytes:
    """A 320x240 JPEG of :func:`picture`."""
    buffer = io.BytesIO()
    picture(320, 240).save(buffer, "JPEG")
    return buffer.getvalue()


def png_bytes(width: int, height: int, bit_depth: int, colour_type: int, rows: bytes) -> bytes:
    """A PNG written by hand (any size and depth), ``rows`` already filter-prefixed."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", rows)
            + chunk(b"IEND", b""))


def png_bomb(side: int, colour_type: int, bit_depth: int) -> bytes:
    """A valid PNG of ``side``x``side`` zeros, a few hundred kB on disk."""
    row = b"\0" * (1 + (side * bit_depth + 7) // 8)
    compressor = zlib.compressobj(9)
    body = b"".join(compressor.compress(row * 100) for _ in range(side // 100))
    png = png_bytes(side, side, bit_depth, colour_type, body + compressor.flush())
    if colour_type == 3:  # a palette is required: insert PLTE after IHDR
        plte = b"PLTE" + b"\0\0\0"
        chunk = struct.pack(">I", 3) + plte + struct.pack(">I", zlib.crc32(plte))
        png = png[:33] + chunk + png[33:]
    return png


EPS = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\nnewpath 0 0 moveto showpage\n"


SVG = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'


@contextlib.contextmanager
def listening_socket() -> Iterator[socket.socket]:
    """A local TCP listener: a bait URL for anything that would follow a playlist."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        yield server


def assert_no_connection(server: socket.socket) -> None:
    """Nothing connected to ``server`` (within 0.3 s of asking)."""
    server.settimeout(0.3)
    with pytest.raises(TimeoutError):
        server.accept()


def prep_with_clips(tmp_path: Path, clip_files: list[Path]) -> tuple[PrepResult, float]:
    """run_prep on an order of one good photo and ``clip_files`` (c01..), on local storage;
    returns the result and its wall seconds."""
    from activities.gate import run_gate
    from activities.prep import run_prep

    storage = LocalStorage(tmp_path / "storage")
    order = order_with_media("limits01", [("p01", "jpg")],
                             [(f"c{i:02d}", "mp4") for i in range(1, len(clip_files) + 1)])
    storage.put_bytes(order.photos[0].key, jpeg_bytes())
    for ref, path in zip(order.clips, clip_files, strict=True):
        storage.put_file(ref.key, path)
    ctx = local_context(tmp_path, storage)
    started = time.monotonic()
    result = run_prep(ctx, order)
    elapsed = time.monotonic() - started
    notes = run_gate(ctx, StageInput(order=order, prep=result)).notes
    for rejection in result.rejected:
        assert f"left out {rejection.id}: {rejection.reason}" in notes
    return result, elapsed


# --- What tests measure ---------------------------------------------------------------------------


def sharp_coverage(motion: Motion, photo_size: tuple[int, int], aspect: Aspect,
                   max_upscale: float | None = None) -> float:
    """Smallest share (0..1) over the move of the frame covered by the photo itself (not the
    backdrop), counting nothing when the photo is magnified more than ``max_upscale`` (default:
    the framing's ``FILL_MAX_UPSCALE``)."""
    from media.analysis.framing import FILL_MAX_UPSCALE

    max_upscale = FILL_MAX_UPSCALE if max_upscale is None else max_upscale
    width, height = photo_size
    worst = 1.0
    for i in range(motion.frames):
        rect = motion.rect_at(i)
        k = aspect.width / rect.w  # output px per source px
        if k > max_upscale + 1e-6:
            return 0.0
        shown_w = (min(width, rect.x + rect.w) - max(0.0, rect.x)) * k
        shown_h = (min(height, rect.y + rect.h) - max(0.0, rect.y)) * k
        worst = min(worst, shown_w * shown_h / (aspect.width * aspect.height))
    return worst


def stream_tags(path: Path) -> dict[str, str]:
    """The first video stream's codec, profile, pixel format, colour tags, size and rate."""
    out = run_tool(ffprobe_argv("-select_streams", "v:0", "-show_entries",
                                "stream=codec_name,profile,pix_fmt,color_range,color_space,"
                                "color_transfer,color_primaries,width,height,r_frame_rate",
                                "-of", "json", str(path)), Limits(timeout_s=60))
    return json.loads(out.stdout)["streams"][0]


SEEN_ONLY_WHEN_IT_HAPPENS = frozenset({"film_plain_starts_total"})
"""Documented metrics a worker exports only once their event has happened (a plain start under
payload keys)."""


def readme_metrics() -> dict[str, str]:
    """The README's metrics table: ``{name: prometheus type}``."""
    kinds = {"histogram": "histogram", "gauge": "gauge", "counter": "counter"}
    rows = re.findall(r"^\| `(film_[a-z_]+)` \((histogram|gauge|counter)\)",
                      (TESTS.parent / "README.md").read_text(encoding="utf-8"), re.MULTILINE)
    return {name: kinds[kind] for name, kind in rows}


# --- The Dockerfile read as data ------------------------------------------------------------------


REPO = TESTS.parent
"""The repository's root."""
DOCKER = REPO / "docker"
"""The folder of the Dockerfile and the compose file."""


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of docker/Dockerfile, continuation lines joined."""
    text = (DOCKER / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines
            if line and not line.startswith("#")]


@dataclass(frozen=True)
class Stage:
    """One ``FROM`` of the Dockerfile: its name (``AS``), base image (build args resolved) and
    instructions."""

    name: str
    base: str
    instructions: tuple[tuple[str, str], ...]

    def runs(self) -> list[str]:
        """The arguments of its ``RUN`` instructions."""
        return [args for kind, args in self.instructions if kind == "RUN"]

    def copied(self) -> list[str]:
        """The sources of its ``COPY`` instructions from the build context."""
        return [source for kind, args in self.instructions
                if kind == "COPY" and not args.startswith("--from=")
                for source in args.split()[:-1]]


def dockerfile_stages() -> list[Stage]:
    """The Dockerfile's build stages in order (the last one is the image)."""
    build_args: dict[str, str] = {}
    heads: list[tuple[str, str]] = []  # (name, base) of each FROM
    bodies: list[list[tuple[str, str]]] = []
    for kind, args in dockerfile_instructions():
        if kind == "FROM":
            image, _, name = args.partition(" AS ")
            base = re.sub(r"\$\{(\w+)\}", lambda m: build_args[m.group(1)], image.strip())
            heads.append((name.strip() or str(len(heads)), base))
            bodies.append([])
        elif bodies:
            bodies[-1].append((kind, args))
        elif kind == "ARG":  # a build argument the FROM lines may use
            name, _, value = args.partition("=")
            build_args[name] = value
    return [Stage(name, base, tuple(body)) for (name, base), body in zip(heads, bodies,
                                                                          strict=True)]


def dockerignore_pattern(pattern: str) -> re.Pattern[str]:
    """A ``.dockerignore`` line as a regex of context paths (``**`` any depth, ``*`` within one
    name), as Docker matches it."""
    body = re.escape(pattern.strip("/")).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*")
    return re.compile(body.replace(r"\*", "[^/]*").replace(r"\?", "[^/]") + "$")


def dockerignore_patterns() -> list[re.Pattern[str]]:
    """The patterns of the repository's ``.dockerignore`` (no exceptions: ``!`` is not used)."""
    lines = [line.strip() for line in (REPO / ".dockerignore").read_text("utf-8").splitlines()]
    patterns = [line for line in lines if line and not line.startswith("#")]
    assert not any(p.startswith("!") for p in patterns), "exceptions are not supported here"
    return [dockerignore_pattern(p) for p in patterns]


def in_build_context(relative: str, patterns: list[re.Pattern[str]]) -> bool:
    """Whether the repository path ``relative`` (posix) is sent to the Docker build: neither it
    nor a folder above it is ignored."""
    parts = relative.split("/")
    return not any(pattern.match("/".join(parts[:i])) for i in range(1, len(parts) + 1)
                   for pattern in patterns)


def context_files(sources: list[str]) -> list[str]:
    """Every file below the repository paths ``sources`` that the build context holds."""
    patterns = dockerignore_patterns()
    found = []
    for source in sources:
        path = REPO / source
        walked = [path] if path.is_file() else [Path(d) / f for d, _, files in os.walk(path)
                                                  for f in files]
        found += [rel for file in walked
                  if in_build_context(rel := file.relative_to(REPO).as_posix(), patterns)]
    return sorted(found)


def wheel_stage() -> Stage:
    """The stage that builds the package's wheel from the source."""
    return next(stage for stage in dockerfile_stages()
                if any("pip wheel" in run for run in stage.runs()))


# --- Film plans for the planner's tests -----------------------------------------------------------


OPENING = CardSpec("opening", ("Happy Birthday", "Zoë O'Brien"), None, False, "gift")
"""A birthday film's title card."""
CLOSING = CardSpec("closing", ("With love", "from all of us"), "#C0392B", False, "gift")
"""A birthday film's closing card."""


def plan_photos(n: int, low_res: frozenset[int] = frozenset()) -> list[PhotoSource]:
    """``n`` landscape 4000x3000 photos ``p0``.., those at ``low_res`` indices low-res."""
    return [PhotoSource(f"p{i}", 4000, 3000, i in low_res)
            for i in range(n)]


def plan_clips(n: int, duration_s: float = 8.0) -> list[ClipSource]:
    """``n`` 1920x1080 clips ``c0``.. of ``duration_s`` seconds each."""
    return [ClipSource(f"c{i}", duration_s, 1920, 1080, True)
            for i in range(n)]


def beat_grid(length: float, bpm: float = 112.0, offset: float = 0.23,
              jitter: float = 0.0) -> list[float]:
    """Beat times (seconds) over ``length`` s at ``bpm`` from ``offset``, each moved by up to
    ``jitter`` s (a fixed seed)."""
    step = 60.0 / bpm
    rng = np.random.default_rng(3)
    times = np.arange(offset, length, step)
    return [float(t) for t in times + rng.uniform(-jitter, jitter, len(times))]


def planned_film(n_photos: int = 8, n_clips: int = 2, length: float = 30.0, *,
                 style: str = "gift", gentle: bool = False, beats: list[float] | None = None,
                 motion_shots: int = 3, subject: str | None = "p3",
                 clip_s: float = 8.0) -> Timeline:
    """The standard tier's plan of a birthday film of ``length`` s from :func:`plan_photos` and
    :func:`plan_clips` (``clip_s`` s each), on :func:`beat_grid` unless ``beats`` are given."""
    return planner.plan(FilmSpec(
        length_sec=length, photos=plan_photos(n_photos), clips=plan_clips(n_clips, clip_s),
        style=style, gentle=gentle, recipe=MotionRecipe(motion_shots=motion_shots),
        subject_photo_id=subject, words=FilmWords(opening=OPENING, closing=CLOSING),
        song=SongGrid(beat_times=beat_grid(length) if beats is None else beats)))


def signature_film(n_photos: int = 8, length: float = 30.0, gentle: bool = False) -> Timeline:
    """The signature tier's plan of a birthday film of ``length`` s (two clips, subject p3)."""
    return planner.plan(FilmSpec(
        length_sec=length, photos=plan_photos(n_photos), clips=plan_clips(2), gentle=gentle,
        recipe=MotionRecipe(motion_shots=3, premium=True), subject_photo_id="p3",
        words=FilmWords(opening=OPENING, closing=CLOSING),
        song=SongGrid(beat_times=beat_grid(length))))


def check_structure(tl: Timeline) -> None:
    """Assert ``tl`` is well formed: cards at both ends, shots abutting and covering every
    frame, each longer than its transition in, each visible around its cut."""
    shots = tl.shots
    assert shots[0].cut_in == 0 and shots[-1].cut_out == tl.total_frames
    assert shots[0].kind == "card" and shots[-1].kind == "card"
    for a, b in pairwise(shots):
        assert a.cut_out == b.cut_in
        assert a.cut_out - a.cut_in > b.transition_in.frames
    for shot in shots:
        assert 0 <= shot.visible_in <= shot.cut_in < shot.cut_out <= shot.visible_out
        assert shot.visible_out <= tl.total_frames
    assert sum(s.cut_out - s.cut_in for s in shots) == tl.total_frames


ANNIVERSARY_LOOK = "romance"
"""The anniversary film's look."""
ANNIVERSARY_OPENING = CardSpec("opening", ("Happy Anniversary", "Lene & Mads"),
                               look=ANNIVERSARY_LOOK)
"""An anniversary film's title card."""
ANNIVERSARY_STORY = "Ten years of trips, toasts and long summer evenings by the sea."
"""The anniversary order's story line."""
ANNIVERSARY_MEMORY = ("The July morning in Skagen when you stood with a foot in each sea and "
                      "watched the waves meet.")
"""The anniversary order's memory."""
ANNIVERSARY_CLOSING = CardSpec("closing", ("Happy Anniversary, Lene & Mads", ANNIVERSARY_STORY,
                                           "From your friends"), look=ANNIVERSARY_LOOK)
"""An anniversary film's closing card, its story line under the greeting."""
INTERLUDES = (CardSpec("interlude", (ANNIVERSARY_MEMORY, ""), look=ANNIVERSARY_LOOK),
              CardSpec("interlude", ("", "grateful · warm · tender"), look=ANNIVERSARY_LOOK))
"""The anniversary film's interludes: its memory, then its feeling words."""


def anniversary_song(length: float) -> tuple[list[float], list[float],
                                             list[tuple[str, float, float]]]:
    """The beats, bars and sections (seconds) of the song composed for the anniversary film's
    cards."""
    from media.song.compose import SongBrief, plan_song
    from media.song.compose import beat_grid as song_beat_grid

    opening_s, closing_s = card_seconds(length, ANNIVERSARY_CLOSING,
                                        film_look("gift", False, ANNIVERSARY_CLOSING.look))
    song = plan_song(SongBrief("anniversary", "romantic", False, "Lene", "friends",
                               ANNIVERSARY_MEMORY, ANNIVERSARY_STORY, ("warm",), "gift", length,
                               opening_s, closing_s), 7)
    beats, bars = song_beat_grid(song)
    sections = [(name, start * song.bar_s,
                 song.length_sec if name == "ending" else (start + n) * song.bar_s)
                for name, start, n in song.form]
    return beats, bars, sections


def birthday_repeat_spec(photos: list[PhotoSource], length: float, premium: bool,
                         song: SongGrid) -> FilmSpec:
    """A birthday film of ``photos`` (``p00`` the subject) ``length`` seconds long, in either
    tier, with a title, a closing and one interlude: the spec the repeat framing tests plan."""
    return FilmSpec(
        length_sec=length, family="celebration", look="celebration", gentle=False,
        recipe=MotionRecipe(motion_shots=6 if premium else 4, premium=premium),
        photos=photos, subject_photo_id="p00",
        words=FilmWords(opening=CardSpec("opening", ("Happy Birthday", "Ann"),
                                         look="celebration"),
                        closing=CardSpec("closing", ("With love", "from all of us"),
                                         look="celebration"),
                        interludes=(CardSpec("interlude", ("The roof in June.", ""),
                                             look="celebration"),)),
        song=song)


def birthday_song_grid(length: float) -> SongGrid:
    """The grid (beats, bars, sections) of the joyful birthday song composed for a film of
    ``length`` seconds (seed 7), as the plan tests of long films read it."""
    from media.song.compose import SongBrief, plan_song
    from media.song.compose import _sections as song_sections
    from media.song.compose import beat_grid as song_beat_grid

    song = plan_song(SongBrief("birthday", "joyful", False, "Ann", "your friends", "the roof",
                               "", ("warm",), "gift", length), 7)
    beats, bars = song_beat_grid(song)
    return SongGrid(beat_times=beats, bar_times=bars, sections=song_sections(song))


# --- The repeat promises, checked on a plan -------------------------------------------------------


SUBJECT_SHARE_MAX = PLANNED_SUBJECT_SHARE_MAX  # as the planner and the corpus keep it


def photo_showings(tl: Timeline) -> list[tuple[int, set[str]]]:
    """Each shot that shows a photo, with the photos it shows (an interlude's card alone on
    its backdrop shows none)."""
    from media.frames.sources import shot_photos

    shown = [(i, {p for p in shot_photos(tl, i) if p}) for i, shot in enumerate(tl.shots)
             if shot.kind != "clip"]
    return [(i, photos) for i, photos in shown if photos]


def shown_again_too_soon(spec: FilmSpec, tl: Timeline) -> list[str]:
    """Shots that show a photo a second time while a photo of the spec is still unseen."""
    usable, seen, out = {p.id for p in spec.photos}, set(), []
    for i, photos in photo_showings(tl):
        if photos & seen and not usable <= seen:
            out.append(f"#{i} {sorted(photos & seen)} again before {sorted(usable - seen)}")
        seen |= photos
    return out


def back_to_back(tl: Timeline) -> list[str]:
    """Consecutive shots that show the same photo."""
    return [f"#{a}->#{b} {sorted(pa & pb)}" for (a, pa), (b, pb) in pairwise(photo_showings(tl))
            if b == a + 1 and pa & pb]


def subject_share(tl: Timeline) -> float:
    """The subject photo's share of the photo shots' time (a layout's cells share it)."""
    total = mine = 0.0
    for shot in tl.shots:
        if shot.kind != "photo":
            continue
        cells = [p for p in (shot.source_id, shot.partner_id, shot.second_partner_id) if p]
        total += shot.cut_out - shot.cut_in
        mine += (shot.cut_out - shot.cut_in) * cells.count(tl.subject_photo_id) / len(cells)
    return mine / total if total else 0.0


def ghosts(spec: FilmSpec, tl: Timeline) -> list[str]:
    """Dissolves whose two shots both show a face (or the subject)."""
    photos = {p.id: p for p in spec.photos}
    faced = {p for p in photos if shows_subject(photos[p], tl.subject_photo_id)}
    shown = dict(photo_showings(tl))
    return [f"#{i - 1}->#{i}" for i in range(1, len(tl.shots))
            if transition_kind(tl.shots[i].transition_in.kind).lays_over
            and tl.shots[i].transition_in.frames > 0
            and shown.get(i - 1, set()) & faced and shown.get(i, set()) & faced]


# --- The samples' orders, planned -----------------------------------------------------------------


SAMPLES = REPO / "samples"
WORKING_EDGE = 1024  # the samples' photos, made small: the plan reads facts, not detail


def prepared_sample(tmp_path: Path, sample: str, tier: Tier
                    ) -> tuple[FilmOrder, PrepResult, dict[str, Path]]:
    """The sample order in ``tier``, its photos prepared (small copies) and one file refused."""
    from app.order_folder import read_order_folder
    from workflows.stages import PreparedPhoto, Rejection

    folder = tmp_path / sample
    shutil.copytree(SAMPLES / sample, folder, ignore=shutil.ignore_patterns("clips"))
    order, _ = read_order_folder(folder)
    order = order.model_copy(update={"tier": tier})
    paths, prepared = {}, []
    for ref, source in zip(order.photos, sorted((folder / "photos").glob("*.jpg")),
                           strict=True):
        with Image.open(source) as image:
            image.thumbnail((WORKING_EDGE, WORKING_EDGE))
            paths[ref.id] = tmp_path / f"{ref.id}.jpg"
            image.convert("RGB").save(paths[ref.id], quality=92)
            prepared.append(PreparedPhoto(id=ref.id, key=ref.key, width=image.width,
                                          height=image.height, low_res=False))
    return order, PrepResult(photos=prepared, clips=[],
                             rejected=[Rejection(id="p99", reason="not_an_image")]), paths


def sample_song(order: FilmOrder) -> SongGrid:
    """The beats, bars, sections (seconds) and a lyric line of the song composed for ``order``."""
    from media.song.compose import SongBrief, plan_song
    from media.song.compose import _sections as song_sections
    from media.song.compose import beat_grid as song_beat_grid

    song = plan_song(SongBrief(order.occasion.slug, order.occasion.tone, order.occasion.gentle,
                               order.recipient_name, order.relationship, order.memory,
                               order.story_note, tuple(order.feeling_words), order.style.value,
                               order.length_sec), 7)
    beats, bars = song_beat_grid(song)
    return SongGrid(beat_times=beats, bar_times=bars, sections=song_sections(song),
                    lyrics=("waiting for the school bus",))


def sample_spec(tmp_path: Path, sample: str, tier: Tier) -> tuple[FilmOrder, FilmSpec]:
    """The sample order in ``tier`` and the film spec made from it (its photos analysed)."""
    from activities.order_plan import film_spec
    from media.analysis.subjects import find_subject
    from media.frames.sources import load_photo
    from services.settings import DEFAULT_RECIPES

    order, prep, paths = prepared_sample(tmp_path, sample, tier)
    subjects = {pid: find_subject(load_photo(path)) for pid, path in paths.items()}
    spec = film_spec(order, prep, sample_song(order), DEFAULT_RECIPES[tier], photo_paths=paths,
                     clip_paths={}, subjects=subjects)
    return order, spec
