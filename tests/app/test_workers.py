"""The worker factory: which worker registers what, on which queue, and that both poll."""

from __future__ import annotations

import concurrent.futures
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from app.memory import MemoryReleaser
from app.ops import health_problems
from app.workers import create_workers, running_worker, worker_client
from services.settings import Settings
from tests.helpers import eventually
from workflows.cleanup import FilmRunCleanup
from workflows.codec import (
    AesGcmCodec,
    WorkerCodec,
    film_data_converter,
    new_key,
    parse_keys,
)
from workflows.film import FilmRender
from workflows.stages import ActivityName, media_task_queue

MAIN_QUEUE_ACTIVITIES = {ActivityName.GATE, ActivityName.REPORT_OUTCOME,
                         ActivityName.FORGET_RUN_FILES, ActivityName.CLEAN_RUN,
                         ActivityName.PLAIN_START}


def _settings(tmp_path: Path, env: WorkflowEnvironment) -> Settings:
    return Settings(TEMPORAL_ADDRESS=env.client.service_client.config.target_host,
                    FILM_TASK_QUEUE=f"factory-{uuid.uuid4()}",
                    FILM_STORAGE_URL=(tmp_path / "storage").as_uri(),
                    FILM_WORK_DIR=tmp_path / "work", FILM_MEDIA_CONCURRENCY=3,
                    FILM_MAX_CONCURRENT_ACTIVITIES=2)


def _activity_names(worker: Worker) -> set[str]:
    """The names of a worker's activities (each method of FilmActivities is named as the
    activity it registers)."""
    return {fn.__name__ for fn in worker.config()["activities"]}


@pytest_asyncio.fixture
async def workers(tmp_path: Path, temporal_env: WorkflowEnvironment
                  ) -> AsyncIterator[tuple[Settings, Worker, Worker]]:
    """Both workers of one process, built (not started) on the session's dev server."""
    settings = _settings(tmp_path, temporal_env)
    with concurrent.futures.ThreadPoolExecutor(settings.media_concurrency + 1) as pool:
        main, media = create_workers(temporal_env.client, settings, pool, pool)
        yield settings, main, media


async def test_orchestration_worker_runs_the_workflows_the_gate_the_report_and_the_cleanup(
    workers: tuple[Settings, Worker, Worker],
) -> None:
    settings, main, _ = workers
    assert main.task_queue == settings.task_queue
    assert main.config()["workflows"] == [FilmRender, FilmRunCleanup]
    assert _activity_names(main) == MAIN_QUEUE_ACTIVITIES
    assert main.config()["max_concurrent_activities"] == settings.max_concurrent_activities


async def test_media_worker_runs_every_media_activity_and_no_workflow(
    workers: tuple[Settings, Worker, Worker],
) -> None:
    settings, _, media = workers
    assert media.task_queue == media_task_queue(settings.task_queue)
    assert media.config()["workflows"] == []
    assert _activity_names(media) == set(ActivityName) - MAIN_QUEUE_ACTIVITIES
    assert media.config()["max_concurrent_activities"] == settings.media_concurrency == 3


async def test_every_activity_is_registered_on_exactly_one_worker(
    workers: tuple[Settings, Worker, Worker],
) -> None:
    _, main, media = workers
    names = [fn.__name__ for worker in (main, media) for fn in worker.config()["activities"]]
    assert sorted(names) == sorted(ActivityName)


@pytest.mark.timeout(60)
async def test_running_workers_poll_both_queues_so_this_host_is_healthy(
    tmp_path: Path, temporal_env: WorkflowEnvironment,
) -> None:
    settings = _settings(tmp_path, temporal_env)
    assert await health_problems(settings) == [
        f"no worker of this host polls {settings.task_queue}",
        f"no worker of this host polls {media_task_queue(settings.task_queue)}"]
    async with running_worker(temporal_env.client, settings):
        async def healthy() -> bool:  # once each worker's first poll reached the server
            return await health_problems(settings) == []

        await eventually(healthy, "both queues polled by this host")


def test_workers_decode_with_the_never_raising_worker_codec_when_keys_are_set(
    temporal_env: WorkflowEnvironment,
) -> None:
    config = temporal_env.client.config()
    config["data_converter"] = film_data_converter(AesGcmCodec(parse_keys(f"k1:{new_key()}")))
    keyed = worker_client(Client(**config))
    assert isinstance(keyed.data_converter.payload_codec, WorkerCodec)
    assert keyed.namespace == temporal_env.client.namespace
    assert worker_client(temporal_env.client) is temporal_env.client, "no keys: unchanged"


def test_both_workers_give_freed_memory_back_after_each_activity(
    workers: tuple[Settings, Worker, Worker],
) -> None:
    _, main, media = workers
    for worker in (main, media):
        assert any(isinstance(i, MemoryReleaser) for i in worker.config()["interceptors"])
