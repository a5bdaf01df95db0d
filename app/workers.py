"""The worker factory: the orchestration and media workers of one process, their tuning,
interceptors and shutdown, so every entry point (``filmworker worker``, local runs, tests)
stays a few lines."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import signal
from collections.abc import AsyncIterator
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker

from activities.context import ProgressSink, StageContext, use_progress_sink
from activities.observe import StageObserver
from app.client import connect, target_address
from app.memory import MemoryReleaser, ThreadPerActivity, tune_heap
from app.telemetry import configure_logging, make_runtime
from services.settings import Settings
from workflows.cleanup import FilmRunCleanup
from workflows.codec import worker_data_converter
from workflows.film import FilmRender
from workflows.stages import media_task_queue

log = logging.getLogger("filmworker")


def worker_client(client: Client) -> Client:
    """``client`` for workers: its payload codec as the never-raising
    :class:`workflows.codec.WorkerCodec`, so a start the codec cannot open reaches the workflow
    as a marker and ends as ``invalid_order:codec_*`` instead of failing its task for ever."""
    converter = worker_data_converter(client.data_converter)
    if converter is client.data_converter:
        return client
    config = client.config()
    config["data_converter"] = converter
    return Client(**config)


def create_workers(client: Client, settings: Settings, main_pool: concurrent.futures.Executor,
                   media_pool: concurrent.futures.Executor) -> tuple[Worker, Worker]:
    """The orchestration worker and the media worker of this process.

    The orchestration worker runs FilmRender, the gate and the outcome report on
    ``settings.task_queue``; the media worker runs the media stages (and the render stage's
    plan, segments and join) on ``{task_queue}-media``, at most ``FILM_MEDIA_CONCURRENCY`` at
    once, so one render cannot starve orchestration.
    """
    from activities.registry import FilmActivities  # heavy (media code): only where needed
    from app.media_tools import use_media_tools

    use_media_tools(settings)
    client = worker_client(client)
    use_progress_sink(ProgressSink(client, asyncio.get_running_loop()))
    activities = FilmActivities(StageContext.from_settings(settings))
    shutdown = timedelta(seconds=settings.graceful_shutdown_s)
    main = Worker(client, task_queue=settings.task_queue, workflows=[FilmRender, FilmRunCleanup],
                  activities=activities.main_queue(), activity_executor=main_pool,
                  max_concurrent_activities=settings.max_concurrent_activities,
                  interceptors=[StageObserver(), MemoryReleaser()],
                  graceful_shutdown_timeout=shutdown)
    media = Worker(client, task_queue=media_task_queue(settings.task_queue),
                   activities=activities.media_queue(), activity_executor=media_pool,
                   max_concurrent_activities=settings.media_concurrency,
                   interceptors=[StageObserver(), MemoryReleaser(page_out=True)],
                   graceful_shutdown_timeout=shutdown)
    return main, media


@contextlib.asynccontextmanager
async def running_worker(client: Client, settings: Settings) -> AsyncIterator[Worker]:
    """Run the orchestration and media workers in this process for the duration of the block;
    on exit both drain together (``FILM_GRACEFUL_SHUTDOWN_S``), then running activities are
    cancelled (which kills their ffmpeg process groups)."""
    with (
        concurrent.futures.ThreadPoolExecutor(settings.max_concurrent_activities + 1) as main_pool,
        ThreadPerActivity(settings.media_concurrency + 1, "media") as media_pool,
    ):
        main, media = create_workers(client, settings, main_pool, media_pool)
        async with main, media:
            try:
                yield main
            finally:
                await asyncio.gather(main.shutdown(), media.shutdown())


async def run_worker(settings: Settings) -> None:
    """Run both workers against ``TEMPORAL_ADDRESS`` until SIGTERM or SIGINT, then drain."""
    tune_heap()  # before the runtime's and the executors' threads allocate
    configure_logging(settings)
    client = await connect(settings, make_runtime(settings))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with running_worker(client, settings):
        log.info("worker started on %s, queues %s and %s, metrics %s",
                 target_address(settings), settings.task_queue,
                 media_task_queue(settings.task_queue), settings.metrics_bind or "off")
        if settings.payload_codec() is None:
            log.warning("FILM_PAYLOAD_KEYS unset: customer text is stored in clear in the "
                        "workflow history")
        await stop.wait()
        log.info("draining: running activities get %gs to finish", settings.graceful_shutdown_s)
    log.info("worker stopped")
