"""The whole pipeline for real: dev server, real stages, real ffmpeg, real HTTP callback."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from temporalio import activity
from temporalio.client import WorkflowExecutionStatus
from temporalio.testing import WorkflowEnvironment

from activities.registry import FilmActivities
from activities.verify import load_signal
from app.order_folder import load_order_folder
from app.workers import running_worker
from media.base.runner import Limits
from media.deliver.verify import ffprobe_json
from media.frames.segments import count_video_frames
from services.settings import Settings
from services.storage.base import Storage
from tests.helpers import SAMPLE_ORDER, disguised_photo_order, order_with_blank_photos
from tests.receiver import DEFAULT_SECRET, OrderApiReceiver
from workflows.cleanup import cleanup_workflow_id
from workflows.contract import FilmOrder, FilmOutcome, FilmStage, FilmState, start_render
from workflows.stages import ActivityName, RenderResult, WholeFilmInput

pytestmark = pytest.mark.e2e
SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def unique_gift_id() -> str:
    """A fresh gift id, so runs in one dev server never collide."""
    return f"gift{uuid.uuid4().hex[:12]}"


@pytest.fixture
def receiver() -> Iterator[OrderApiReceiver]:
    """The reference order API receiving outcome callbacks over real HTTP."""
    with OrderApiReceiver(secret=DEFAULT_SECRET) as running:
        yield running


@pytest.fixture
def settings(tmp_path: Path, receiver: OrderApiReceiver) -> Settings:
    """Local storage in a temp dir, outcomes posted to the receiver, a private task queue."""
    return Settings(
        FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}",
        FILM_PUBLIC_BASE_URL="https://films.example.test",
        FILM_ORDER_API_URL=receiver.url,
        FILM_ORDER_API_SECRET=DEFAULT_SECRET,
        FILM_TASK_QUEUE=f"e2e-{uuid.uuid4()}",
        FILM_WORK_DIR=str(tmp_path / "work"),
    )


@pytest_asyncio.fixture
async def real_worker(temporal_env: WorkflowEnvironment, settings: Settings
                      ) -> AsyncIterator[Settings]:
    """A worker running the real stages in this process."""
    async with running_worker(temporal_env.client, settings):
        yield settings


def storage_of(settings: Settings) -> Storage:
    """The storage the worker under test uses."""
    from activities.context import StageContext

    return StageContext.from_settings(settings).storage


def assert_run_files_deleted(storage: Storage, order: FilmOrder) -> None:
    """Nothing remains under the run's working prefix once its outcome is reported; the
    customer's uploads stay (the order API's to expire, README "Retention")."""
    assert storage.list(order.run_prefix + "/") == []
    assert storage.list(f"orders/{order.gift_id}/photos/"), "the uploads are not ours to delete"


async def run_order(env: WorkflowEnvironment, order: FilmOrder, settings: Settings) -> FilmOutcome:
    """Start ``order`` as the order API would and wait for its outcome."""
    handle = await start_render(env.client, order, task_queue=settings.task_queue)
    return await handle.result()


def assert_film_meets_spec(path: Path, width: int, height: int, length_sec: float) -> None:
    """The test's own ffprobe check of a delivered film (independent of the verify stage)."""
    probe = ffprobe_json(path)
    video = next(s for s in probe["streams"] if s["codec_type"] == "video")
    audio = next(s for s in probe["streams"] if s["codec_type"] == "audio")
    assert (video["codec_name"], video["profile"]) == ("h264", "High")
    assert (video["width"], video["height"]) == (width, height)
    assert video["pix_fmt"] == "yuv420p"
    assert (video["color_space"], video["color_primaries"], video["color_transfer"]) == (
        "bt709", "bt709", "bt709")
    assert video["r_frame_rate"] == video["avg_frame_rate"] == "30/1"
    assert (audio["codec_name"], audio["sample_rate"], audio["channels"]) == ("aac", "48000", 2)
    assert abs(float(probe["format"]["duration"]) - length_sec) <= 0.5
    head = path.read_bytes()[:1 << 20]
    assert head.find(b"moov") < head.find(b"mdat"), "faststart: moov before mdat"


@pytest.mark.timeout(900)
async def test_sample_order_is_rendered_delivered_and_reported_once(
    temporal_env: WorkflowEnvironment, real_worker: Settings, receiver: OrderApiReceiver,
    tmp_path: Path,
) -> None:
    order = load_order_folder(SAMPLE_ORDER, real_worker, unique_gift_id())
    outcome = await run_order(temporal_env, order, real_worker)
    assert outcome.state is FilmState.SUCCEEDED, outcome.reason
    base = f"https://films.example.test/films/{order.share_slug}"
    assert outcome.film_url == {"16x9": f"{base}/16x9.mp4", "9x16": f"{base}/9x16.mp4"}
    assert outcome.gift_url == f"{base}/index.html"
    assert outcome.poster_url == f"{base}/poster.jpg"

    storage = storage_of(real_worker)
    delivered = storage.list(order.delivery_prefix + "/")
    assert sorted(k.rsplit("/", 1)[1] for k in delivered) == [
        "16x9.mp4", "9x16.mp4", "index.html", "manifest.json", "poster-9x16.jpg", "poster.jpg"]
    for name, (width, height) in {"16x9": (1920, 1080), "9x16": (1080, 1920)}.items():
        film = storage.get_file(order.delivery_key(f"{name}.mp4"), tmp_path / f"{name}.mp4")
        assert_film_meets_spec(film, width, height, order.length_sec)
    assert storage.size(order.delivery_key("poster.jpg")) > 10_000
    assert storage.size(order.delivery_key("poster-9x16.jpg")) > 10_000
    page = storage.get_bytes(order.delivery_key("index.html"), 1 << 20).decode()
    assert "Eileen" in page and "16x9.mp4" in page and "9x16.mp4" in page
    manifest = json.loads(storage.get_bytes(order.delivery_key("manifest.json"), 1 << 20))
    assert manifest["files"]["16x9.mp4"]["sha256"] == storage.sha256(order.delivery_key("16x9.mp4"))

    assert_run_files_deleted(storage, order)
    print("\nstorage after the run:\n" + "\n".join(storage.list()))

    assert len(receiver.accepted) == 1 and not receiver.rejected
    headers, body = receiver.accepted[0]
    assert headers["Idempotency-Key"] == order.workflow_id
    assert body["state"] == "succeeded" and body["charge_id"] == order.charge_id


@pytest.mark.timeout(900)
async def test_sample_order_rendered_in_two_segments_is_joined_verified_and_delivered(
    temporal_env: WorkflowEnvironment, settings: Settings, receiver: OrderApiReceiver,
    tmp_path: Path,
) -> None:
    # Its segment files are inspected after the run: kept a day (the cleanup is scheduled).
    split = settings.model_copy(update={"render_workers": 2, "media_concurrency": 2,
                                        "run_retention_days": 1.0})
    async with running_worker(temporal_env.client, split):
        order = load_order_folder(SAMPLE_ORDER, split, unique_gift_id())
        handle = await start_render(temporal_env.client, order, task_queue=split.task_queue)
        outcome = await handle.result()
    assert outcome.state is FilmState.SUCCEEDED, outcome.reason  # verify passed on the join
    segments = [e.activity_task_scheduled_event_attributes.input for e in
                (await handle.fetch_history()).events
                if e.activity_task_scheduled_event_attributes.activity_type.name
                == ActivityName.RENDER_SEGMENT]
    assert len(segments) == 2
    storage = storage_of(split)
    for name, (width, height) in {"16x9": (1920, 1080), "9x16": (1080, 1920)}.items():
        film = storage.get_file(order.delivery_key(f"{name}.mp4"), tmp_path / f"{name}.mp4")
        assert_film_meets_spec(film, width, height, order.length_sec)
        assert count_video_frames(film, Limits(timeout_s=60)) == round(order.length_sec * 30)
        for index in range(2):
            assert storage.exists(order.run_keys.segment_film(index, name))
            assert storage.exists(order.run_keys.segment_signal(index, name))
        joined = load_signal(storage, order.run_keys.frame_signal(name))  # what verify read
        assert joined is not None and joined.frames == round(order.length_sec * 30)
    assert [body["state"] for body in receiver.bodies()] == ["succeeded"]
    cleanup = await temporal_env.client.get_workflow_handle(
        cleanup_workflow_id(order.gift_id, order.attempt)).describe()
    assert cleanup.status is WorkflowExecutionStatus.RUNNING  # waiting out the retention


@pytest.mark.timeout(300)
async def test_order_with_only_unusable_photos_is_held_and_reported(
    temporal_env: WorkflowEnvironment, real_worker: Settings, receiver: OrderApiReceiver,
    tmp_path: Path,
) -> None:
    order = load_order_folder(disguised_photo_order(tmp_path / "order"), real_worker,
                              unique_gift_id())
    outcome = await run_order(temporal_env, order, real_worker)
    assert (outcome.state, outcome.stage, outcome.reason) == (
        FilmState.HELD, FilmStage.GATE, "no_usable_photos")
    assert outcome.film_url is None
    assert [body["state"] for body in receiver.bodies()] == ["held"]
    assert receiver.bodies()[0]["reason"] == "no_usable_photos"
    assert storage_of(real_worker).list(order.delivery_prefix + "/") == []
    assert_run_files_deleted(storage_of(real_worker), order)


@pytest.mark.timeout(300)
async def test_order_of_only_blank_photos_is_held_for_its_media_and_reported(
    temporal_env: WorkflowEnvironment, real_worker: Settings, receiver: OrderApiReceiver,
    tmp_path: Path,
) -> None:
    folder = order_with_blank_photos(tmp_path / "order", SAMPLES / "birthday", good=0)
    order = load_order_folder(folder, real_worker, unique_gift_id())
    outcome = await run_order(temporal_env, order, real_worker)
    assert (outcome.state, outcome.stage, outcome.reason) == (
        FilmState.HELD, FilmStage.GATE, "no_usable_photos")
    assert [body["state"] for body in receiver.bodies()] == ["held"]


@pytest.mark.render
@pytest.mark.timeout(1800)
async def test_five_good_photos_and_three_blank_ones_succeed_with_the_three_left_out(
    temporal_env: WorkflowEnvironment, real_worker: Settings, receiver: OrderApiReceiver,
    tmp_path: Path,
) -> None:
    folder = order_with_blank_photos(tmp_path / "order", SAMPLES / "birthday", good=5)
    order = load_order_folder(folder, real_worker, unique_gift_id())
    outcome = await run_order(temporal_env, order, real_worker)
    assert outcome.state is FilmState.SUCCEEDED, outcome.reason
    assert outcome.reason == ("left_out:p06=image_blank,p07=image_blank,"
                              "p08=image_aspect_unsupported")
    assert [body["state"] for body in receiver.bodies()] == ["succeeded"]


@activity.defn(name=ActivityName.RENDER_FILM)
def broken_render_film(whole: WholeFilmInput) -> RenderResult:
    """Stands in for the render of the whole film with a fault of ours (an encoder crash)."""
    raise RuntimeError("x264 segfaulted")


@pytest.mark.timeout(300)
async def test_injected_render_fault_ends_failed_and_is_reported_once(
    temporal_env: WorkflowEnvironment, settings: Settings, receiver: OrderApiReceiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = FilmActivities.media_queue

    def with_broken_render(self: FilmActivities) -> list[Any]:
        return [broken_render_film if getattr(fn, "__name__", "") == "render_film"
                else fn for fn in real(self)]

    monkeypatch.setattr(FilmActivities, "media_queue", with_broken_render)
    async with running_worker(temporal_env.client, settings):
        order = load_order_folder(SAMPLE_ORDER, settings, unique_gift_id())
        outcome = await run_order(temporal_env, order, settings)
    assert (outcome.state, outcome.stage) == (FilmState.FAILED, FilmStage.RENDER)
    assert outcome.reason == "render_failed:RuntimeError"
    assert [body["state"] for body in receiver.bodies()] == ["failed"]
    assert storage_of(settings).list(order.delivery_prefix + "/") == []
    assert_run_files_deleted(storage_of(settings), order)
