"""A start payload outside the contract ends the run promptly as ``failed`` with
``invalid_order:<field>``, reported like any other outcome; it never leaves a workflow task
retrying for ever (issue 20, item 2)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import RawValue
from temporalio.runtime import MetricBuffer, Runtime, TelemetryConfig
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.context import StageContext
from activities.intake import PLAIN_STARTS_METRIC
from activities.registry import FilmActivities
from app.workers import worker_client
from services.settings import Settings
from tests.helpers import FakeStages, fake_workers, make_order, raw_order
from tests.processes import WorkerProcess, filmworker
from workflows.codec import (
    AesGcmCodec,
    CodecKeyError,
    WorkerCodec,
    film_data_converter,
    new_key,
    parse_keys,
)
from workflows.contract import (
    NAME_MAX_CHARS,
    WORKFLOW_TYPE,
    FilmOutcome,
    FilmStage,
    FilmState,
    Progress,
    start_render,
    workflow_id,
)
from workflows.film import FilmRender, media_task_queue
from workflows.intake import RefusedOrder, ids_from_workflow_id, read_order
from workflows.keys import outcome_key
from workflows.search import FILM_STATE

RUN_BOUND_S = 30
"""A refused payload must end the run well within this."""


def too_long_name() -> str:
    """A recipient name one character over the spec's limit (what another client may send)."""
    return "Á" * (NAME_MAX_CHARS + 1)


# --- the intake, pure ----------------------------------------------------------------------------


def test_a_name_over_the_limit_is_refused_as_invalid_order_recipient_name() -> None:
    payload = raw_order(recipient_name=too_long_name())
    refused = read_order(payload, workflow_id(payload["gift_id"], 2))
    assert refused == RefusedOrder(reason="invalid_order:recipient_name",
                                   gift_id=payload["gift_id"], attempt=2, charge_id="ch_1")


def test_a_field_from_a_drifted_contract_is_refused_without_echoing_its_name() -> None:
    payload = raw_order(delivery_speed="express")
    refused = read_order(payload, workflow_id(payload["gift_id"], 1))
    assert isinstance(refused, RefusedOrder)
    assert refused.reason == "invalid_order:unknown_field"


@pytest.mark.parametrize("payload", [[1, 2], "order", None, 42])
def test_a_payload_that_is_not_an_object_is_refused_as_invalid_order_payload(
    payload: object,
) -> None:
    refused = read_order(payload, "film-g_abcdef-3")
    assert refused == RefusedOrder(reason="invalid_order:payload", gift_id="g_abcdef",
                                   attempt=3, charge_id="")


def test_ids_are_salvaged_from_the_payload_when_the_workflow_id_does_not_carry_them() -> None:
    payload = raw_order(length_sec=5)
    refused = read_order(payload, "some-other-id")
    assert isinstance(refused, RefusedOrder)
    assert (refused.reason, refused.gift_id, refused.attempt) == (
        "invalid_order:length_sec", payload["gift_id"], 1)


@pytest.mark.parametrize(("payload_gift", "payload_attempt"), [("someone_else_01", 2),
                                                              ("g_workflow", 1)])
def test_a_payload_naming_another_gift_or_attempt_is_refused_under_the_workflow_id(
    payload_gift: str, payload_attempt: int,
) -> None:
    """The callback's identity is the workflow id, never the payload's (issue 31, case 11)."""
    payload = {**make_order(payload_gift).model_dump(mode="json"), "attempt": payload_attempt}
    assert read_order(payload, "film-g_workflow-2") == RefusedOrder(
        reason="invalid_order:workflow_id", gift_id="g_workflow", attempt=2, charge_id="ch_1")


@pytest.mark.parametrize("wid", ["film-abc-1", "film-g_abcdef-0", "film-g_abcdef-١", "x-g_a-1",
                                 "film-g_abcdef-1001", "film-g_abcdef-1\n"])
def test_a_workflow_id_without_a_valid_gift_and_attempt_salvages_nothing(wid: str) -> None:
    assert ids_from_workflow_id(wid) == (None, None)


def test_a_valid_payload_reads_as_the_order() -> None:
    order = make_order()
    assert read_order(order.model_dump(mode="json"), order.workflow_id) == order


# --- the workflow on the real dev server ------------------------------------------------------


async def start_raw(client: Client, queue: str, payload: object, wid: str) -> Any:
    """Start FilmRender with ``payload`` as is, as a client of another language would."""
    return await client.start_workflow(WORKFLOW_TYPE, payload, id=wid, task_queue=queue,
                                       result_type=FilmOutcome)


@pytest.mark.timeout(60)
async def test_a_name_over_the_limit_ends_the_run_failed_and_reported_and_the_query_answers(
    temporal_env: WorkflowEnvironment,
) -> None:
    stages = FakeStages()
    payload = raw_order(recipient_name=too_long_name(), charge_id="ch_far_away")
    wid = workflow_id(payload["gift_id"], 1)
    async with fake_workers(temporal_env.client, stages, "invalid") as queue:
        handle = await start_raw(temporal_env.client, queue, payload, wid)
        outcome = await asyncio.wait_for(handle.result(), RUN_BOUND_S)
        progress = await handle.query("progress", result_type=Progress)
    assert (outcome.state, outcome.stage, outcome.reason) == (
        FilmState.FAILED, FilmStage.PREP, "invalid_order:recipient_name")
    assert (outcome.workflow_id, outcome.attempt, outcome.charge_id) == (wid, 1, "ch_far_away")
    assert stages.reported == [outcome], "reported once, like any other outcome"
    assert stages.calls == [], "no stage ran on a refused payload"
    assert progress.state is FilmState.FAILED
    assert (await handle.describe()).typed_search_attributes.get(FILM_STATE) == "failed"


@pytest.mark.timeout(60)
async def test_a_payload_the_converter_cannot_decode_ends_the_run_failed_and_reported(
    temporal_env: WorkflowEnvironment,
) -> None:
    stages = FakeStages()
    garbage = RawValue(Payload(metadata={"encoding": b"json/plain"}, data=b"{not json"))
    wid = workflow_id(f"g{uuid.uuid4().hex[:10]}", 4)
    async with fake_workers(temporal_env.client, stages, "invalid") as queue:
        handle = await start_raw(temporal_env.client, queue, garbage, wid)
        outcome = await asyncio.wait_for(handle.result(), RUN_BOUND_S)
    assert (outcome.state, outcome.reason, outcome.attempt) == (
        FilmState.FAILED, "invalid_order:payload", 4)
    assert stages.reported == [outcome]


@pytest.mark.timeout(60)
async def test_a_refused_payload_with_no_gift_id_anywhere_fails_the_workflow_visibly(
    temporal_env: WorkflowEnvironment,
) -> None:
    stages = FakeStages()
    async with fake_workers(temporal_env.client, stages, "invalid") as queue:
        handle = await start_raw(temporal_env.client, queue, {"hello": "world"},
                                 f"not-a-film-id-{uuid.uuid4()}")
        with pytest.raises(WorkflowFailureError) as failure:
            await asyncio.wait_for(handle.result(), RUN_BOUND_S)
    assert "invalid_order:" in str(failure.value.cause)
    assert stages.reported == []


@pytest.mark.timeout(60)
async def test_a_start_whose_payload_names_another_gift_is_reported_as_the_workflow_id_s_run(
    temporal_env: WorkflowEnvironment,
) -> None:
    stages = FakeStages()
    payload = make_order("someone_else_01").model_dump(mode="json")
    wid = workflow_id(f"g{uuid.uuid4().hex[:10]}", 3)
    async with fake_workers(temporal_env.client, stages, "invalid") as queue:
        handle = await start_raw(temporal_env.client, queue, payload, wid)
        outcome = await asyncio.wait_for(handle.result(), RUN_BOUND_S)
    assert (outcome.state, outcome.reason) == (FilmState.FAILED, "invalid_order:workflow_id")
    assert (outcome.workflow_id, outcome.attempt) == (wid, 3)
    assert stages.reported == [outcome] and stages.reported_gifts == [wid.split("-")[1]]
    assert stages.calls == [], "no stage ran for a payload of another gift"


# --- through the real worker process (the CLI) -------------------------------------------------


@pytest.mark.timeout(120)
async def test_filmworker_worker_reports_an_invalid_start_payload_to_the_local_sink(
    temporal_env: WorkflowEnvironment, tmp_path: Path,
) -> None:
    queue = f"invalid-cli-{uuid.uuid4()}"
    address = temporal_env.client.service_client.config.target_host
    env = {**os.environ, "TEMPORAL_ADDRESS": address, "FILM_TASK_QUEUE": queue,
           "FILM_STORAGE_URL": f"file://{tmp_path / 'storage'}", "FILM_WORK_DIR": str(tmp_path)}
    env.pop("FILM_ORDER_API_URL", None)
    worker = WorkerProcess(env, tmp_path / "worker.log").start()
    try:
        worker.wait_started()
        payload = raw_order(recipient_name=too_long_name())
        wid = workflow_id(payload["gift_id"], 1)
        handle = await start_raw(temporal_env.client, queue, payload, wid)
        outcome = await asyncio.wait_for(handle.result(), RUN_BOUND_S)
    finally:
        worker.stop()
    sink = json.loads((tmp_path / "storage" / outcome_key(wid)).read_text(encoding="utf-8"))
    assert sink["state"] == "failed" and sink["reason"] == "invalid_order:recipient_name"
    assert outcome.reason == sink["reason"]
    replayed = filmworker("replay", "--workflow-id", wid, env=env)
    assert replayed.returncode == 0, replayed.stderr


# --- starts that cannot become an order: arity, codec, plain under keys (issue 31, case 2, 7) ---


def keyed_client(env: WorkflowEnvironment, codec: AesGcmCodec) -> Client:
    """A client of the test server whose payloads go through ``codec``."""
    config = env.client.config()
    config["data_converter"] = film_data_converter(codec)
    return Client(**config)


def codec_with(spec: str) -> AesGcmCodec:
    return AesGcmCodec(parse_keys(spec))


@contextlib.asynccontextmanager
async def keyed_workers(client: Client, stages: FakeStages, *, refuse_plain: bool = False,
                        tmp_path: Path) -> AsyncIterator[str]:
    """Fake-stage workers as ``create_workers`` builds them (the worker codec, the real
    ``plain_start`` local activity with ``FILM_REFUSE_PLAIN_STARTS``); yields the queue."""
    settings = Settings(FILM_REFUSE_PLAIN_STARTS=refuse_plain,
                        FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}")
    plain_start = FilmActivities(StageContext.from_settings(settings)).plain_start
    workers_client = worker_client(client)
    queue = f"keyed-{uuid.uuid4()}"
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        async with (
            Worker(workers_client, task_queue=queue, workflows=[FilmRender],
                   activities=[*stages.activities(), plain_start], activity_executor=pool),
            Worker(workers_client, task_queue=media_task_queue(queue),
                   activities=stages.activities()),
        ):
            yield queue


async def assert_refused_and_reported(handle: Any, stages: FakeStages, reason: str) -> None:
    """The run ended failed with ``reason`` within the bound, reported once, searchable."""
    outcome = await asyncio.wait_for(handle.result(), RUN_BOUND_S)
    assert (outcome.state, outcome.stage, outcome.reason) == (FilmState.FAILED, FilmStage.PREP,
                                                              reason)
    assert stages.reported == [outcome], "reported once, like any other outcome"
    assert stages.calls == [], "no stage ran"
    assert (await handle.describe()).typed_search_attributes.get(FILM_STATE) == "failed"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("args", [[], ["two", "arguments"]])
async def test_a_start_with_no_or_two_arguments_ends_failed_invalid_order_arity_and_reported(
    temporal_env: WorkflowEnvironment, args: list[object],
) -> None:
    stages = FakeStages()
    wid = workflow_id(f"g{uuid.uuid4().hex[:10]}", 2)
    async with fake_workers(temporal_env.client, stages, "arity") as queue:
        handle = await temporal_env.client.start_workflow(
            WORKFLOW_TYPE, args=args, id=wid, task_queue=queue, result_type=FilmOutcome)
        await assert_refused_and_reported(handle, stages, "invalid_order:arity")
    assert stages.reported[0].attempt == 2


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("starter_key_id", "reason"), [
    ("k9", "invalid_order:codec_key"),   # a key id the worker does not hold
    ("k1", "invalid_order:codec_seal"),  # the worker's key id, another key: a bad tag
])
async def test_a_start_the_workers_codec_cannot_open_ends_failed_invalid_order_codec_and_reported(
    temporal_env: WorkflowEnvironment, tmp_path: Path, starter_key_id: str, reason: str,
) -> None:
    stages = FakeStages()
    worker_side = keyed_client(temporal_env, codec_with(f"k1:{new_key()}"))
    starter = keyed_client(temporal_env, codec_with(f"{starter_key_id}:{new_key()}"))
    order = make_order()
    async with keyed_workers(worker_side, stages, tmp_path=tmp_path) as queue:
        await start_render(starter, order, task_queue=queue)
        handle = worker_side.get_workflow_handle(order.workflow_id, result_type=FilmOutcome)
        await assert_refused_and_reported(handle, stages, reason)


@pytest.mark.timeout(60)
async def test_a_sealed_start_on_a_worker_without_keys_ends_failed_invalid_order_codec_key(
    temporal_env: WorkflowEnvironment,
) -> None:
    stages = FakeStages()
    starter = keyed_client(temporal_env, codec_with(f"k1:{new_key()}"))
    order = make_order()
    async with fake_workers(temporal_env.client, stages, "keyless") as queue:
        await start_render(starter, order, task_queue=queue)
        handle = temporal_env.client.get_workflow_handle(order.workflow_id,
                                                         result_type=FilmOutcome)
        await assert_refused_and_reported(handle, stages, "invalid_order:codec_key")


async def test_the_worker_codec_marks_what_it_cannot_open_and_tags_what_came_in_clear() -> None:
    codec = codec_with(f"k1:{new_key()}")
    worker = WorkerCodec.of(codec)
    [sealed] = await codec.encode([Payload(metadata={"encoding": b"json/plain"}, data=b"1")])
    truncated = Payload(metadata=dict(sealed.metadata), data=sealed.data[:5])
    [opened, unknown, bad, clear] = await worker.decode([
        sealed, (await codec_with(f"k2:{new_key()}").encode([Payload(data=b"x")]))[0],
        truncated, Payload(metadata={"encoding": b"json/plain"}, data=b"2")])
    assert opened == Payload(metadata={"encoding": b"json/plain"}, data=b"1")
    assert unknown.metadata["film-unopened"] == b"codec_key" and unknown.data == b""
    assert bad.metadata["film-unopened"] == b"codec_seal"
    assert clear.metadata["film-clear"] == b"1"
    with pytest.raises(CodecKeyError):  # clients keep the raising codec
        await codec.decode([unknown_sealed := (await codec_with(f"k2:{new_key()}").encode(
            [Payload(data=b"x")]))[0]])
    assert unknown_sealed.metadata["encoding"] == b"binary/encrypted"


@pytest.mark.timeout(60)
async def test_a_plain_start_while_keys_are_set_is_refused_when_the_setting_says_so(
    temporal_env: WorkflowEnvironment, tmp_path: Path,
) -> None:
    stages = FakeStages()
    worker_side = keyed_client(temporal_env, codec_with(f"k1:{new_key()}"))
    order = make_order()
    async with keyed_workers(worker_side, stages, refuse_plain=True, tmp_path=tmp_path) as queue:
        await start_render(temporal_env.client, order, task_queue=queue)  # no codec: plain
        handle = worker_side.get_workflow_handle(order.workflow_id, result_type=FilmOutcome)
        await assert_refused_and_reported(handle, stages, "invalid_order:plain")


@pytest.mark.timeout(60)
async def test_a_plain_start_while_keys_are_set_runs_but_is_logged_and_counted(
    temporal_env: WorkflowEnvironment, tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    stages = FakeStages()
    metrics = MetricBuffer(1000)
    runtime = Runtime(telemetry=TelemetryConfig(metrics=metrics))
    address = temporal_env.client.service_client.config.target_host
    worker_side = await Client.connect(
        address, runtime=runtime, data_converter=film_data_converter(codec_with(f"k1:{new_key()}")))
    order = make_order()
    caplog.set_level(logging.WARNING, logger="temporalio.activity")
    async with keyed_workers(worker_side, stages, tmp_path=tmp_path) as queue:
        await start_render(temporal_env.client, order, task_queue=queue)
        handle = worker_side.get_workflow_handle(order.workflow_id, result_type=FilmOutcome)
        outcome = await asyncio.wait_for(handle.result(), RUN_BOUND_S)
    assert outcome.state is FilmState.SUCCEEDED
    warnings = [r for r in caplog.records if "arrived unsealed" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].workflow_id == order.workflow_id
    assert order.recipient_name not in warnings[0].getMessage()
    counted = [(u.value, dict(u.attributes)) for u in metrics.retrieve_updates()
               if u.metric.name == PLAIN_STARTS_METRIC]
    assert counted and counted[-1][0] == 1 and counted[-1][1]["refused"] == "false"


@pytest.mark.timeout(60)
async def test_a_sealed_start_under_keys_runs_without_the_plain_start_check(
    temporal_env: WorkflowEnvironment, tmp_path: Path,
) -> None:
    stages = FakeStages()
    codec = codec_with(f"k1:{new_key()}")
    worker_side = keyed_client(temporal_env, codec)
    order = make_order()
    async with keyed_workers(worker_side, stages, refuse_plain=True, tmp_path=tmp_path) as queue:
        handle = await start_render(worker_side, order, task_queue=queue)
        outcome = await asyncio.wait_for(handle.result(), RUN_BOUND_S)
        history = await handle.fetch_history()
    assert outcome.state is FilmState.SUCCEEDED
    assert "plain_start" not in history.to_json()
