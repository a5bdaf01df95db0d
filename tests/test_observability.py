"""What ops see: visibility queries, Prometheus metrics, OpenTelemetry traces, structured logs.

All against the session's real dev server; the metrics and log drills run the real prep and
gate stages on an order whose photos are all unusable (a held run takes a second or two).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import logging
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import httpx
import pytest
from temporalio import activity
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities.intake import PLAIN_STARTS_METRIC
from activities.observe import RENDER_FPS, StructuredFormatter
from app.client import connect
from app.devserver import start_embedded_server
from app.order_folder import load_order_folder
from app.telemetry import CORE_LOGGER, make_runtime, tracing_interceptors
from app.workers import running_worker
from services.settings import Settings
from tests.helpers import (
    FakeStages,
    disguised_photo_order,
    fake_workers,
    make_order,
    readme_metrics,
    wait_for_stage,
)
from tests.processes import WorkerProcess, free_port
from workflows.contract import (
    STAGE_PROGRESS_SIGNAL,
    FilmStage,
    FilmState,
    StageProgress,
    start_render,
)
from workflows.search import FAILED_RUNS, HELD_RUNS, UNREPORTED_RUNS, stuck_runs
from workflows.stages import (
    HOLD_ERROR_TYPE,
    GateResult,
    RenderInput,
    RenderPlan,
    StageInput,
    VerifyInput,
    VerifyResult,
    media_task_queue,
)

README = Path(__file__).resolve().parent.parent / "README.md"
SECRET = "observability-secret-4242"


def address_of(env: WorkflowEnvironment) -> str:
    """``host:port`` of the session's dev server."""
    return env.client.service_client.config.target_host


async def listed(client: Client, query: str, expected: set[str], timeout_s: float = 15
                 ) -> set[str]:
    """Workflow ids that ``query`` lists, once they are ``expected`` (visibility lags)."""
    found: set[str] = set()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = {execution.id async for execution in client.list_workflows(query)}
        if found == expected:
            break
        await asyncio.sleep(0.25)
    return found


# --- visibility ----------------------------------------------------------------------------------


class PerRunFaults(FakeStages):
    """Fake stages whose behaviour depends on the order's gift id prefix."""

    def __init__(self) -> None:
        super().__init__()
        self.stuck = asyncio.Event()

    def activities(self) -> list[Any]:
        """The fakes, with gate holding ``held*`` gifts, verify failing ``failed*`` ones and
        the render plan stalling ``stuck*`` ones until released."""
        fakes = {fn.__name__: fn for fn in super().activities()}
        plain = dict(fakes)

        @activity.defn(name="gate")
        async def gate(stage_input: StageInput) -> GateResult:
            if stage_input.order.gift_id.startswith("held"):
                raise ApplicationError("hold", "no_usable_photos", type=HOLD_ERROR_TYPE,
                                       non_retryable=True)
            return await plain["gate"](stage_input)

        @activity.defn(name="render_plan")
        async def render_plan(render_input: RenderInput) -> RenderPlan:
            if render_input.order.gift_id.startswith("stuck"):
                await self.stuck.wait()
            return await plain["render_plan"](render_input)

        @activity.defn(name="verify")
        async def verify(verify_input: VerifyInput) -> VerifyResult:
            if verify_input.order.gift_id.startswith("failed"):
                raise ApplicationError("miss", type="FilmSpecMiss", non_retryable=True)
            return await plain["verify"](verify_input)

        fakes.update(gate=gate, render_plan=render_plan, verify=verify)
        return list(fakes.values())


async def test_ops_queries_list_held_failed_stuck_and_unreported_runs(
    temporal_env: WorkflowEnvironment,
) -> None:
    client = temporal_env.client
    stages = PerRunFaults()
    async with fake_workers(client, stages) as queue:
        runs = {kind: await start_render(client, make_order(f"{kind}{uuid.uuid4().hex[:8]}"),
                                         task_queue=queue)
                for kind in ("held", "failed", "stuck", "fine")}
        for kind in ("held", "failed", "fine"):
            await runs[kind].result()
        await wait_for_stage(runs["stuck"], FilmStage.RENDER)
        await asyncio.sleep(1.1)  # so the cutoff, cut to whole seconds, is after every start
        cutoff = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        scope = f" AND TaskQueue = '{queue}'"
        assert await listed(client, HELD_RUNS + scope, {runs["held"].id}) == {runs["held"].id}
        assert await listed(client, FAILED_RUNS + scope, {runs["failed"].id}) == {
            runs["failed"].id}
        stuck = stuck_runs(FilmStage.RENDER.value, cutoff) + scope
        assert await listed(client, stuck, {runs["stuck"].id}) == {runs["stuck"].id}
        assert await listed(client, UNREPORTED_RUNS + scope, set(), timeout_s=2) == set()
        stages.stuck.set()
        await runs["stuck"].result()


def test_readme_documents_the_ops_queries() -> None:
    text = README.read_text(encoding="utf-8")
    for query in (HELD_RUNS, FAILED_RUNS, UNREPORTED_RUNS, "FilmStage = 'render'"):
        assert query in text, query


# --- metrics, logs, traces -----------------------------------------------------------------------


@pytest.fixture
def held_settings(tmp_path: Path) -> Settings:
    """Local storage, local outcome sink, a private queue, metrics on a free port."""
    return Settings(FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}", FILM_ORDER_API_URL=None,
                    FILM_ORDER_API_SECRET=SECRET, FILM_TASK_QUEUE=f"obs-{uuid.uuid4()}",
                    FILM_WORK_DIR=str(tmp_path / "work"),
                    FILM_METRICS_BIND=f"127.0.0.1:{free_port()}")


async def run_held_order(client: Client, settings: Settings, folder: Path) -> None:
    """The real prep and gate hold an order whose photos are all unusable."""
    order = load_order_folder(disguised_photo_order(folder), settings,
                              f"obs{uuid.uuid4().hex[:10]}")
    async with running_worker(client, settings):
        handle = await start_render(client, order, task_queue=settings.task_queue)
        assert (await handle.result()).state is FilmState.HELD


async def test_prometheus_endpoint_has_temporal_and_film_metrics_after_a_run(
    temporal_env: WorkflowEnvironment, held_settings: Settings, tmp_path: Path,
) -> None:
    runtime = make_runtime(held_settings)
    assert runtime is not None
    client = await Client.connect(address_of(temporal_env), runtime=runtime,
                                  data_converter=pydantic_data_converter)
    await run_held_order(client, held_settings, tmp_path / "order")
    runtime.metric_meter.create_gauge_float(RENDER_FPS, "fps", "frames/s").set(1.0)
    runtime.metric_meter.create_counter(PLAIN_STARTS_METRIC, "starts").add(1, {"refused": "false"})
    text = httpx.get(f"http://{held_settings.metrics_bind}/metrics", timeout=10).text
    assert "temporal_workflow_completed{" not in text  # SDK counters carry _total
    for name in ("temporal_workflow_completed_total", "temporal_activity_execution_latency",
                 "temporal_worker_task_slots_available", "film_stage_seconds_bucket",
                 "film_outcomes_total"):
        assert name in text, name
    families = dict(line.split()[2:4] for line in text.splitlines()
                    if line.startswith("# TYPE film_"))
    assert families == readme_metrics()  # exactly the README's names and kinds
    series = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert all('service_name="filmworker"' in line for line in series)
    # the hold at the gate is benign: not an activity failure
    assert "temporal_activity_execution_failed" not in text
    prep = [line for line in text.splitlines()
            if line.startswith("film_stage_seconds_count") and 'stage="prep"' in line]
    assert prep and f'task_queue="{media_task_queue(held_settings.task_queue)}"' in prep[0]
    held = [line for line in text.splitlines() if line.startswith("film_outcomes_total")]
    assert len(held) == 1 and 'reason="no_usable_photos"' in held[0]
    assert 'state="held"' in held[0] and held[0].endswith(" 1")


@contextlib.contextmanager
def captured_logs(formatter: logging.Formatter) -> Iterator[list[str]]:
    """Every log line of this process, formatted, while the block runs."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    handler = Collect()
    handler.setFormatter(formatter)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


async def test_run_logs_carry_gift_workflow_and_stage_but_no_customer_text_or_secret(
    temporal_env: WorkflowEnvironment, held_settings: Settings, tmp_path: Path,
) -> None:
    formatter = StructuredFormatter("json", secrets=[SECRET])
    with captured_logs(formatter) as lines:
        await run_held_order(temporal_env.client, held_settings, tmp_path / "order")
    text = "\n".join(lines)
    order_fields = json.loads((tmp_path / "order" / "order.json").read_text())
    for customer_text in ("recipient_name", "relationship", "memory", "story_note"):
        assert order_fields[customer_text] not in text, customer_text
    assert SECRET not in text
    records = [json.loads(line) for line in lines]
    stages = [r for r in records if r["msg"] in ("stage started", "stage finished")]
    assert {r["stage"] for r in stages} == {"prep", "gate", "report_outcome", "forget_run_files"}
    assert all(r["gift_id"].startswith("obs") and r["workflow_id"] == f"film-{r['gift_id']}-1"
               for r in stages)
    held_gate = next(r for r in stages if r["stage"] == "gate" and r["msg"] == "stage finished")
    assert (held_gate["result"], held_gate["level"]) == ("held", "info")
    assert not [r for r in records if "exc" in r or r["level"] in ("warning", "error")]
    ended = next(r for r in records if r["msg"] == "run ended")
    assert (ended["state"], ended["reason"], ended["stage"]) == ("held", "no_usable_photos",
                                                                 "gate")


def test_structured_formatter_lifts_temporal_ids_and_masks_secrets() -> None:
    record = logging.makeLogRecord({
        "name": "temporalio.activity", "levelname": "WARNING", "msg": "failed with token %s",
        "args": (SECRET,), "temporal_activity": {
            "workflow_id": "film-g_123-2", "workflow_run_id": "r1", "activity_type": "render",
            "attempt": 3, "task_queue": "film-render-media"}})
    fields = json.loads(StructuredFormatter("json", [SECRET]).format(record))
    assert fields["msg"] == "failed with token ***"
    assert (fields["gift_id"], fields["workflow_id"], fields["run_id"]) == (
        "g_123", "film-g_123-2", "r1")
    assert (fields["stage"], fields["attempt"], fields["level"]) == ("render", 3, "warning")
    line = StructuredFormatter("kv", [SECRET]).format(record)
    assert {"gift_id=g_123", "stage=render", "level=warning"} <= set(line.split())
    assert line.startswith("ts=") and 'msg="failed with token ***"' in line
    assert SECRET not in line


def test_render_parts_are_logged_as_the_render_stage() -> None:
    record = logging.makeLogRecord({
        "name": "temporalio.activity", "levelname": "INFO", "msg": "segment done",
        "temporal_activity": {"workflow_id": "film-g_1-1", "activity_type": "render_segment",
                              "attempt": 1}})
    fields = json.loads(StructuredFormatter("json").format(record))
    assert (fields["stage"], fields["activity"]) == ("render", "render_segment")


async def test_tracing_is_off_by_default_and_spans_workflow_and_stages_when_enabled(
    temporal_env: WorkflowEnvironment,
) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    assert tracing_interceptors(Settings()) == []
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    client = await connect(Settings(TEMPORAL_ADDRESS=address_of(temporal_env), FILM_OTEL=True))
    stages = FakeStages()
    stages.gates["prep"] = asyncio.Event()
    async with fake_workers(client, stages) as queue:
        handle = await start_render(client, make_order(), task_queue=queue)
        for percent in (10, 20, 30):  # as a stage's heartbeater reports progress
            await handle.signal(STAGE_PROGRESS_SIGNAL,
                                StageProgress(activity="prep", part="1", percent=percent))
        stages.gates["prep"].set()
        await handle.result()
    names = {span.name for span in exporter.get_finished_spans()}
    assert {"StartWorkflow:FilmRender", "RunWorkflow:FilmRender", "RunActivity:render_plan",
            "RunActivity:render_film", "RunActivity:report_outcome"} <= names
    assert not [name for name in names if STAGE_PROGRESS_SIGNAL in name], names


class _OtlpReceiver(http.server.BaseHTTPRequestHandler):
    """A collector's OTLP/HTTP traces endpoint: keeps what it was sent."""

    received: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, dict(self.headers), body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_spans_go_to_the_otlp_endpoint_of_the_standard_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from app.telemetry import span_exporter

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _OtlpReceiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{server.server_address[1]}"
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-collector-token=t0k")
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(span_exporter(Settings())))
        with provider.get_tracer("test").start_as_current_span("RunActivity:render_film"):
            pass
        provider.shutdown()
    finally:
        server.shutdown()
        server.server_close()
    [(path, headers, body)] = _OtlpReceiver.received
    assert path == "/v1/traces" and headers["x-collector-token"] == "t0k"
    assert b"RunActivity:render_film" in body
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT")
    assert span_exporter(Settings()) is None  # no endpoint: nothing written into the log stream


def test_spans_go_over_grpc_when_the_standard_protocol_variable_says_grpc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("opentelemetry.exporter.otlp.proto.grpc")
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    from app.telemetry import span_exporter

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    assert isinstance(span_exporter(Settings()), OTLPSpanExporter)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf")
    assert type(span_exporter(Settings())).__module__.endswith("proto.http.trace_exporter")


@pytest.mark.slow
def test_worker_log_stream_stays_one_json_object_per_line_with_tracing_and_no_endpoint(
    tmp_path: Path,
) -> None:
    """FILM_OTEL=1 without a collector: the worker's stderr is JSON lines only (no span
    printout), and it says once that spans are not exported."""
    probe = ("import logging; from app.telemetry import configure_logging, tracing_interceptors;"
             "from services.settings import Settings; s = Settings(FILM_OTEL=True);"
             "configure_logging(s); tracing_interceptors(s);"
             "from opentelemetry import trace;"
             "trace.get_tracer('t').start_span('RunActivity:prep').end();"
             "trace.get_tracer_provider().shutdown()")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=False, env=env, cwd=tmp_path.parent)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stderr.splitlines()]
    assert [r["msg"] for r in records] == [
        "FILM_OTEL=1 without OTEL_EXPORTER_OTLP_ENDPOINT: spans are not exported"]


@pytest.mark.timeout(150)
async def test_the_sdk_cores_warnings_in_a_server_outage_are_json_lines_without_ansi(
    tmp_path: Path,
) -> None:
    """The server goes away under a running ``filmworker worker``: the SDK core's retry
    warnings come out as our JSON lines (logger ``temporalio.core...``), no ANSI colour."""
    server = await start_embedded_server()
    env = {**os.environ, "TEMPORAL_ADDRESS": server.client.service_client.config.target_host,
           "FILM_TASK_QUEUE": f"outage-{uuid.uuid4()}", "FILM_LOG_FORMAT": "json",
           "FILM_STORAGE_URL": f"file://{tmp_path / 'storage'}", "FILM_WORK_DIR": str(tmp_path)}
    worker = WorkerProcess(env, tmp_path / "worker.log").start()
    try:
        worker.wait_started()
        await server.shutdown()
        for _ in range(120):  # bounded: 60 s for the core's first retry warning
            if CORE_LOGGER in worker.log():
                break
            await asyncio.sleep(0.5)
    finally:
        worker.stop()
    lines = worker.log().splitlines()
    assert "\x1b[" not in worker.log()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    core = [r for r in records if r["logger"].startswith(CORE_LOGGER)]
    assert core and core[0]["level"] == "warning", "the core's warnings reach our log"
