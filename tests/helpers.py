"""Helpers shared by the test modules (pytest-free but for assertions): a test module imports
from here, or from the servers and builders beside it (``tests/stages.py``, ``tests/processes.py``,
``tests/receiver.py``, ``tests/s3.py``, ``tests/media/lavfi.py``...), never from another test
module. Heavy product code is imported inside the helpers that need it."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import shutil
import socket
import struct
import time
import uuid
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pytest
from PIL import Image
from temporalio import activity
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

from media.base.runner import Limits, ToolPaths, ffprobe_argv, run_tool, use_tools
from services.storage.local import LocalStorage
from tests.stages import local_context, order_with_media
from workflows.cleanup import CleanupInput
from workflows.contract import FilmOrder, FilmOutcome, FilmStage, Progress
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
