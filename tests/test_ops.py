"""Operations drills with real OS processes: ``filmworker server``, ``filmworker worker`` and
``filmworker submit`` as separate processes, real ffmpeg, real HTTP, an S3 emulator.

- a worker SIGKILLed in the middle of the render, and S3 unreachable in the middle of the
  delivery, still end in exactly one delivered set and one accepted outcome, with no ffmpeg
  left behind (one run covers both, so CI renders the sample once here, not twice);
- SIGTERM drains: running activities are cancelled after the grace period and their ffmpeg
  process groups die with them;
- the order API refusing connections and answering 503 still gets the outcome exactly once;
- S3 failing while the run's working files are deleted, after the order API accepted the
  outcome, does not post it again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter

from media.base.runner import Limits, ffmpeg_argv, run_tool
from tests.helpers import (
    SAMPLE_ORDER,
    SEEN_ONLY_WHEN_IT_HAPPENS,
    disguised_photo_order,
    readme_metrics,
)
from tests.processes import (
    ServerProcess,
    WorkerProcess,
    filmworker,
    free_port,
    tagged_processes,
    wait_until_gone,
)
from tests.receiver import DEFAULT_SECRET, OrderApiReceiver
from tests.s3 import create_bucket, s3_client, s3_env, start_moto_server
from tests.tcpproxy import TcpProxy
from workflows.contract import FilmOrder, FilmOutcome, FilmStage, FilmState, Progress
from workflows.keys import run_prefix
from workflows.search import ALL_KEYS

pytestmark = pytest.mark.e2e

BUCKET, PREFIX = "films", "e2e"
DELIVERED = ["16x9.mp4", "9x16.mp4", "index.html", "manifest.json", "poster-9x16.jpg",
             "poster.jpg"]


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """``filmworker server`` as its own process for this module's drills."""
    running = ServerProcess(tmp_path_factory.mktemp("server") / "server.log").start()
    try:
        yield running
    finally:
        running.stop()


@pytest_asyncio.fixture
async def client(server: ServerProcess) -> Client:
    """A client of the drill server (as the order API or ops would hold one)."""
    return await Client.connect(server.address, data_converter=pydantic_data_converter)


@pytest.fixture
def receiver() -> Iterator[OrderApiReceiver]:
    """The reference order API, over real HTTP."""
    with OrderApiReceiver(secret=DEFAULT_SECRET) as running:
        yield running


@pytest.fixture
def workers() -> Iterator[list[WorkerProcess]]:
    """Worker processes started by a test; killed at teardown whatever happened, and none of
    their ffmpeg processes may outlive them."""
    started: list[WorkerProcess] = []
    yield started
    for worker in started:
        worker.stop()
    for worker in started:
        assert wait_until_gone(worker.tag, timeout_s=30) == [], "orphan ffmpeg"


@pytest.fixture
def s3_via_proxy() -> Iterator[tuple[str, TcpProxy]]:
    """The moto S3 emulator (state kept for the whole test) behind a TCP proxy we can cut."""
    server, endpoint = start_moto_server()
    try:
        create_bucket(endpoint, BUCKET)
        port = int(endpoint.rsplit(":", 1)[1])
        with TcpProxy("127.0.0.1", port) as proxy:
            yield endpoint, proxy
    finally:
        server.stop()


def worker_env(server: ServerProcess, tmp_path: Path, receiver: OrderApiReceiver | None,
               **extra: str) -> dict[str, str]:
    """The environment of the drill's worker and submit processes (DESIGN.md's variables)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FILM_", "TEMPORAL_"))}
    env.update({
        "TEMPORAL_ADDRESS": server.address,
        "FILM_TASK_QUEUE": f"ops-{uuid.uuid4()}",
        "FILM_STORAGE_URL": f"file://{tmp_path / 'storage'}",
        "FILM_PUBLIC_BASE_URL": "https://films.example.test",
        "FILM_WORK_DIR": str(tmp_path / "work"),
    })
    if receiver is not None:
        env.update({"FILM_ORDER_API_URL": receiver.url, "FILM_ORDER_API_SECRET": DEFAULT_SECRET})
    env.update(extra)
    return env


def start_worker(workers: list[WorkerProcess], env: dict[str, str], log: Path) -> WorkerProcess:
    """Start ``filmworker worker`` and wait until it polls."""
    worker = WorkerProcess(env, log).start()
    workers.append(worker)
    worker.wait_started()
    return worker


async def submit(client: Client, env: dict[str, str], folder: Path, gift_id: str
                 ) -> WorkflowHandle[Any, FilmOutcome]:
    """``filmworker submit`` as its own process; the handle of the run it printed."""
    done = await asyncio.to_thread(filmworker, "submit", str(folder), "--gift-id", gift_id,
                                   env=env)
    assert done.returncode == 0, done.stderr
    workflow_id = done.stdout.strip().splitlines()[-1]
    assert workflow_id == f"film-{gift_id}-1"
    return client.get_workflow_handle(workflow_id, result_type=FilmOutcome)


async def wait_for_stage(handle: WorkflowHandle[Any, Any], stage: FilmStage,
                         timeout_s: float) -> None:
    """Poll the progress query until the run is at ``stage``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        progress = await handle.query("progress", result_type=Progress)
        if progress.stage is stage:
            return
        assert progress.state is FilmState.RUNNING, progress
        await asyncio.sleep(0.25)
    raise AssertionError(f"{handle.id} never reached {stage.value}")


async def wait_for(condition: Any, timeout_s: float, what: str, interval_s: float = 0.1) -> Any:
    """Poll a (sync or async) condition until it is truthy; return its value."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        await asyncio.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")


async def order_of(client: Client, handle: WorkflowHandle[Any, Any]) -> FilmOrder:
    """The FilmOrder the run was started with (from its first history event)."""
    async for event in handle.fetch_history_events():
        payloads = event.workflow_execution_started_event_attributes.input.payloads
        return (await client.data_converter.decode(payloads, [FilmOrder]))[0]
    raise AssertionError("empty history")


async def started_attempts(handle: WorkflowHandle[Any, Any]) -> dict[str, tuple[int, float]]:
    """Per activity type: the attempt that finally ran and when it started (unix seconds)."""
    scheduled: dict[int, str] = {}
    attempts: dict[str, tuple[int, float]] = {}
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attributes = event.activity_task_scheduled_event_attributes
            scheduled[event.event_id] = attributes.activity_type.name
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            attributes = event.activity_task_started_event_attributes
            attempts[scheduled[attributes.scheduled_event_id]] = (
                attributes.attempt, event.event_time.ToNanoseconds() / 1e9)
    return attempts


def encoders_of(worker: WorkerProcess) -> list[int]:
    """The worker's running ffmpeg encoders (reading raw frames: the render stage)."""
    encoders = []
    for pid in tagged_processes(worker.tag):
        try:
            if b"rawvideo" in Path(f"/proc/{pid}/cmdline").read_bytes():
                encoders.append(pid)
        except OSError:
            continue
    return encoders


def customer_texts(folder: Path) -> list[str]:
    """The order's customer-written texts, which must never reach a log."""
    fields = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    return [fields["recipient_name"], fields["relationship"], fields["memory"],
            fields["story_note"]]


def assert_clean_structured_logs(log: str, forbidden: list[str]) -> None:
    """No customer text or secret anywhere; our stage lines are JSON with ids and stage."""
    for text in forbidden:
        assert text not in log, f"{text[:12]}... leaked into the worker log"
    stage_lines = [json.loads(line) for line in log.splitlines()  # a killed worker may leave
                   if line.startswith("{") and line.endswith("}")  # half a line behind
                   and '"filmworker.stage"' in line]
    assert stage_lines
    for fields in stage_lines:
        assert {"gift_id", "workflow_id", "stage", "attempt"} <= fields.keys(), fields


# --- drills --------------------------------------------------------------------------------------


async def test_server_command_registers_the_search_attributes(
    server: ServerProcess, client: Client,
) -> None:
    from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest

    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace="default"))
    assert {key.name for key in ALL_KEYS} <= set(listed.custom_attributes)


def long_clip_order(folder: Path) -> Path:
    """The sample's photos with one 20 s 720p clip, so prep's ffmpeg runs for a while."""
    shutil.copytree(SAMPLE_ORDER, folder, ignore=shutil.ignore_patterns("clips"))
    (folder / "clips").mkdir()
    run_tool(ffmpeg_argv("-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t", "20",
                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                         str(folder / "clips" / "01-test.mp4")), Limits(timeout_s=120))
    return folder


@pytest.mark.timeout(300)
async def test_sigterm_drains_then_cancels_the_running_stage_and_its_ffmpeg(
    server: ServerProcess, client: Client, workers: list[WorkerProcess], tmp_path: Path,
) -> None:
    env = worker_env(server, tmp_path, None, FILM_GRACEFUL_SHUTDOWN_S="1")
    unhealthy = await asyncio.to_thread(filmworker, "healthcheck", env=env)
    assert unhealthy.returncode == 1 and "no worker of this host polls" in unhealthy.stderr
    worker = start_worker(workers, env, tmp_path / "worker.log")
    healthy = await asyncio.to_thread(filmworker, "healthcheck", env=env)
    assert healthy.returncode == 0, healthy.stderr
    folder = await asyncio.to_thread(long_clip_order, tmp_path / "order")
    handle = await submit(client, env, folder, f"drain{uuid.uuid4().hex[:10]}")
    try:
        await wait_for(lambda: tagged_processes(worker.tag), 120, "prep's ffmpeg")
        assert await asyncio.to_thread(worker.terminate, 30) == 0
        assert tagged_processes(worker.tag) == [], "ffmpeg survived the drained worker"
        log = worker.log()
        assert "draining" in log and "worker stopped" in log
        assert '"result": "cancelled"' in log
    finally:
        await handle.terminate("drill over")


def encoded_bytes(worker: WorkerProcess) -> int:
    """Bytes the worker's running encoders have written to their films so far (0: none yet or
    no encoder running). An encoder's output file is the last word of its command line."""
    written = 0
    for pid in encoders_of(worker):
        try:
            out = Path(os.fsdecode(Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0")
                                   .split(b"\0")[-1]))
            if not out.is_absolute():
                out = Path(os.readlink(f"/proc/{pid}/cwd")) / out
            written += out.stat().st_size
        except OSError:
            continue
    return written


def render_mid_encode(worker: WorkerProcess) -> bool:
    """True while the render's encoders run in ``worker`` and have written film bytes: encoding
    has begun and, the encoders being alive, the render activity cannot have completed. (The
    render's heartbeat percent is no evidence here: the SDK records one at most every 24 s,
    longer than a whole 30 s film's render on a quiet machine.)"""
    return encoded_bytes(worker) > 0 and bool(encoders_of(worker))


async def pending_attempt(handle: WorkflowHandle[Any, Any], activity_type: str) -> int:
    """The attempt number of the pending ``activity_type`` activity (0 when none)."""
    description = await handle.describe()
    for pending in description.raw_description.pending_activities:
        if pending.activity_type.name == activity_type:
            return pending.attempt
    return 0


@pytest.mark.timeout(300)
async def test_outcome_arrives_once_after_the_order_api_refused_then_answered_503(
    server: ServerProcess, client: Client, receiver: OrderApiReceiver,
    workers: list[WorkerProcess], tmp_path: Path,
) -> None:
    env = worker_env(server, tmp_path, receiver)
    start_worker(workers, env, tmp_path / "worker.log")
    receiver.refuse_connections()
    folder = await asyncio.to_thread(disguised_photo_order, tmp_path / "order")
    handle = await submit(client, env, folder, f"outage{uuid.uuid4().hex[:10]}")

    async def refused_twice() -> bool:
        return await pending_attempt(handle, "report_outcome") >= 3

    await wait_for(refused_twice, 60, "two refused report attempts")
    receiver.fail_next(1, status=503)
    receiver.accept_connections()
    outcome = await asyncio.wait_for(handle.result(), timeout=120)

    assert (outcome.state, outcome.reason) == (FilmState.HELD, "no_usable_photos")
    assert [body["state"] for body in receiver.bodies()] == ["held"]
    assert [(r.status, r.reason) for r in receiver.rejected] == [(503, "injected_failure")]
    assert (await started_attempts(handle))["report_outcome"][0] == 4


@pytest.mark.timeout(300)
async def test_outcome_arrives_once_when_the_secret_rotation_reaches_the_order_api_late(
    server: ServerProcess, client: Client, receiver: OrderApiReceiver,
    workers: list[WorkerProcess], tmp_path: Path,
) -> None:
    """The workers sign with the new secret before the order API knows it: its 401s are
    retried like 5xx (issue 31, case 11), not a refunded run nobody hears about."""
    rotated = "rotated-order-api-secret-2"
    env = worker_env(server, tmp_path, receiver, FILM_ORDER_API_SECRET=rotated)
    start_worker(workers, env, tmp_path / "worker.log")
    folder = await asyncio.to_thread(disguised_photo_order, tmp_path / "order")
    handle = await submit(client, env, folder, f"rotate{uuid.uuid4().hex[:10]}")

    async def refused_twice() -> bool:
        return len(receiver.rejected) >= 2

    await wait_for(refused_twice, 60, "two report attempts refused as unsigned")
    receiver.secret = rotated
    outcome = await asyncio.wait_for(handle.result(), timeout=120)

    assert (outcome.state, outcome.reason) == (FilmState.HELD, "no_usable_photos")
    assert [body["state"] for body in receiver.bodies()] == ["held"]
    assert {(r.status, r.reason) for r in receiver.rejected} == {(401, "invalid_signature")}
    assert (await started_attempts(handle))["report_outcome"][0] == len(receiver.rejected) + 1


@pytest.mark.timeout(300)
async def test_outcome_is_posted_once_when_s3_fails_while_the_run_files_are_deleted(
    server: ServerProcess, client: Client, receiver: OrderApiReceiver,
    s3_via_proxy: tuple[str, TcpProxy], workers: list[WorkerProcess], tmp_path: Path,
) -> None:
    """The order API has accepted the outcome when S3 fails the first delete of the run's
    working files: the deletion is retried on its own, the outcome is not posted again."""
    endpoint, proxy = s3_via_proxy
    env = worker_env(server, tmp_path, receiver, FILM_STORAGE_URL=f"s3://{BUCKET}/{PREFIX}",
                     FILM_TEXT_POLICY_WORDS="mission", **s3_env(proxy.url))
    start_worker(workers, env, tmp_path / "worker.log")
    gift_id = f"forget{uuid.uuid4().hex[:10]}"
    proxy.cut_when(f"DELETE /{BUCKET}/{PREFIX}/{run_prefix(gift_id, 1)}/".encode())
    handle = await submit(client, env, SAMPLE_ORDER, gift_id)

    async def deletion_failed_once() -> bool:
        return await pending_attempt(handle, "forget_run_files") >= 2

    await wait_for(deletion_failed_once, 120, "a deletion of the run's files failed by S3")
    proxy.restore()
    outcome = await asyncio.wait_for(handle.result(), timeout=120)

    assert (outcome.state, outcome.reason) == (FilmState.HELD, "text_policy")
    assert len(proxy.cuts) == 1, "S3 failed one delete"
    assert receiver.requests == 1 and len(receiver.accepted) == 1 and not receiver.rejected
    attempts = await started_attempts(handle)
    assert attempts["report_outcome"][0] == 1 and attempts["forget_run_files"][0] >= 2
    run_files = s3_client(endpoint).list_objects_v2(
        Bucket=BUCKET, Prefix=f"{PREFIX}/{run_prefix(gift_id, 1)}/")
    assert run_files.get("KeyCount", 0) == 0, "the run's working files outlived the retry"


@pytest.mark.timeout(1500)
async def test_worker_killed_mid_render_and_s3_down_mid_deliver_still_deliver_once(
    server: ServerProcess, client: Client, receiver: OrderApiReceiver,
    s3_via_proxy: tuple[str, TcpProxy], workers: list[WorkerProcess], tmp_path: Path,
) -> None:
    endpoint, proxy = s3_via_proxy
    metrics_port = free_port()
    env = worker_env(server, tmp_path, receiver, FILM_STORAGE_URL=f"s3://{BUCKET}/{PREFIX}",
                     **s3_env(proxy.url))
    first = start_worker(workers, env, tmp_path / "first.log")
    handle = await submit(client, env, SAMPLE_ORDER, f"crash{uuid.uuid4().hex[:10]}")
    order = await order_of(client, handle)
    # S3 goes away when deliver uploads its second file, and stays away until that attempt
    # has failed for good (boto's own retries included).
    proxy.cut_when(f"/{PREFIX}/{order.delivery_key('9x16.mp4')}".encode())

    # SIGKILL the worker's process group while its encoders are busy in the render stage: on
    # evidence (the render's reported progress between two bounds), never after a sleep.
    await wait_for_stage(handle, FilmStage.RENDER, timeout_s=600)
    await wait_for(lambda: encoders_of(first), 300, "the render's ffmpeg encoders")
    await wait_for(lambda: render_mid_encode(first), 600, "the encoders' first film bytes", 0.1)
    killed_at = time.time()
    first.kill_group()
    assert wait_until_gone(first.tag, timeout_s=30) == [], "ffmpeg outlived its dead worker"

    second = start_worker(workers, {**env, "FILM_METRICS_BIND": f"127.0.0.1:{metrics_port}"},
                          tmp_path / "second.log")

    async def deliver_failed_once() -> bool:
        return await pending_attempt(handle, "deliver") >= 2

    await wait_for(deliver_failed_once, 1200, "a deliver attempt failed by the outage", 0.5)
    proxy.restore()
    outcome = await asyncio.wait_for(handle.result(), timeout=300)
    recovered_s = time.time() - killed_at
    attempts = await started_attempts(handle)
    print(f"\nrecovery: render film attempt {attempts['render_film'][0]} started "
          f"{attempts['render_film'][1] - killed_at:.1f}s after the kill; run done "
          f"{recovered_s:.1f}s after the kill; deliver attempts {attempts['deliver'][0]}")

    assert outcome.state is FilmState.SUCCEEDED, outcome.reason
    assert attempts["render_film"][0] >= 2, "the killed render was retried"
    assert attempts["deliver"][0] == 2 and len(proxy.cuts) == 1, "S3 failed one delivery"
    assert_one_delivered_set(endpoint, order)
    run_files = s3_client(endpoint).list_objects_v2(Bucket=BUCKET,
                                                    Prefix=f"{PREFIX}/{order.run_prefix}/")
    assert run_files.get("KeyCount", 0) == 0, "the run's working files outlived its report"
    assert len(receiver.accepted) == 1 and not receiver.rejected
    assert receiver.bodies()[0]["state"] == "succeeded"
    assert tagged_processes(first.tag) == [] and tagged_processes(second.tag) == []
    assert_metrics_scraped(metrics_port)
    for worker in (first, second):
        assert_clean_structured_logs(worker.log(), [*customer_texts(SAMPLE_ORDER),
                                                    DEFAULT_SECRET])
    assert second.terminate(timeout_s=60) == 0
    assert "worker stopped" in second.log()


def assert_one_delivered_set(endpoint: str, order: FilmOrder) -> None:
    """Exactly the five delivered files under the share slug, matching the manifest."""
    s3 = s3_client(endpoint)
    base = f"{PREFIX}/{order.delivery_prefix}/"
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix=base).get("Contents", [])
    assert sorted(item["Key"][len(base):] for item in listed) == DELIVERED
    manifest = json.loads(s3.get_object(Bucket=BUCKET, Key=base + "manifest.json")["Body"].read())
    assert sorted(manifest["files"]) == [name for name in DELIVERED if name != "manifest.json"]
    for name, entry in manifest["files"].items():
        body = s3.get_object(Bucket=BUCKET, Key=base + name)["Body"].read()
        assert hashlib.sha256(body).hexdigest() == entry["sha256"], name
        assert len(body) == entry["bytes"], name


def assert_metrics_scraped(port: int) -> None:
    """The worker's Prometheus endpoint has Temporal's metrics and ours."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    for name in ("temporal_workflow_completed", "temporal_activity_execution_latency",
                 "film_stage_seconds_bucket", "film_render_fps", "film_outcomes_total"):
        assert name in text, name
    assert 'film_stage_seconds_count{' in text and 'stage="render"' in text
    assert 'state="succeeded"' in text
    families = dict(line.split()[2:4] for line in text.splitlines()
                    if line.startswith("# TYPE film_"))
    documented = readme_metrics()
    assert families.items() <= documented.items()  # the README's names and kinds, fps included
    assert set(documented) - set(families) <= SEEN_ONLY_WHEN_IT_HAPPENS
    print("\n".join(line for line in text.splitlines()  # a sample for the ops notes (-s)
                    if line.startswith(("film_render_fps", "film_outcomes_total",
                                        "film_stage_seconds_sum"))))
