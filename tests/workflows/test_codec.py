"""Payload encryption: customer text never reaches the history in clear, the replay baselines
(recorded before encryption) still replay, keys rotate, and the codec server answers the
Temporal UI's remote codec contract (POST /decode and /encode, CORS, bearer token)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from app.codec_server import codec_server
from app.ops import read_history
from tests.helpers import FakeStages, fake_workers, make_order, wait_until
from tests.processes import filmworker
from workflows.codec import (
    ENCODING,
    KEY_ID_METADATA,
    AesGcmCodec,
    CodecKeyError,
    codec_from_env,
    film_data_converter,
    new_key,
    parse_keys,
)
from workflows.contract import FilmOrder, FilmState, connect_starter, start_render
from workflows.film import FilmRender

BASELINE = Path(__file__).resolve().parents[1] / "histories" / "baseline"
RECIPIENT = "Zephyrine Quillfeather"
MEMORY = "the lighthouse picnic when the kite flew away"
UI_ORIGIN = "http://localhost:8233"


def make_codec(*key_ids: str) -> AesGcmCodec:
    return AesGcmCodec(parse_keys(",".join(f"{k}:{new_key()}" for k in key_ids or ("k1",))))


def customer_order() -> FilmOrder:
    order = make_order()
    return order.model_copy(update={"recipient_name": RECIPIENT, "memory": MEMORY})


async def test_a_payload_is_sealed_with_the_key_id_and_opens_again() -> None:
    codec = make_codec("k1")
    original = Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(MEMORY).encode())
    [sealed] = await codec.encode([original])
    assert sealed.metadata["encoding"] == ENCODING
    assert sealed.metadata[KEY_ID_METADATA] == b"k1"
    assert MEMORY.encode() not in sealed.SerializeToString()
    assert await codec.decode([sealed]) == [original]


async def test_rotation_seals_with_the_current_key_and_still_opens_the_old_ones() -> None:
    old_key, new = new_key(), new_key()
    before = AesGcmCodec(parse_keys(f"k1:{old_key}"))
    after = AesGcmCodec(parse_keys(f"k2:{new},k1:{old_key}"))
    [old_payload] = await before.encode([Payload(data=b"x")])
    [new_payload] = await after.encode([Payload(data=b"y")])
    assert new_payload.metadata[KEY_ID_METADATA] == b"k2"
    assert await after.decode([old_payload, new_payload]) == [Payload(data=b"x"),
                                                               Payload(data=b"y")]
    with pytest.raises(CodecKeyError, match="k2"):
        await before.decode([new_payload])


async def test_a_payload_without_the_encrypted_encoding_passes_through_unchanged() -> None:
    plain = Payload(metadata={"encoding": b"json/plain"}, data=b'"recorded before"')
    assert await make_codec().decode([plain]) == [plain]


def test_keys_come_from_the_environment_and_bad_keys_are_refused() -> None:
    assert codec_from_env({}) is None
    codec = codec_from_env({"FILM_PAYLOAD_KEYS": f"a:{new_key()},b:{new_key()}",
                            "FILM_PAYLOAD_KEY_ID": "b"})
    assert codec is not None and codec.current_key_id == "b"
    with pytest.raises(CodecKeyError, match="32 bytes"):
        parse_keys("a:" + base64.b64encode(b"short").decode())
    with pytest.raises(CodecKeyError, match="not in"):
        codec_from_env({"FILM_PAYLOAD_KEYS": f"a:{new_key()}", "FILM_PAYLOAD_KEY_ID": "zz"})


def test_a_key_id_given_twice_in_the_payload_keys_is_refused() -> None:
    first, second = new_key(), new_key()
    with pytest.raises(CodecKeyError, match="'k1' is given twice"):
        parse_keys(f"k1:{first},k2:{new_key()},k1:{second}")
    with pytest.raises(CodecKeyError, match="given twice"):
        codec_from_env({"FILM_PAYLOAD_KEYS": f"k1:{first},k1:{first}"})


@pytest.fixture
def codec() -> AesGcmCodec:
    return make_codec("k1")


async def test_customer_text_is_not_in_the_history_in_clear_and_the_run_replays(
    temporal_env: WorkflowEnvironment, codec: AesGcmCodec,
) -> None:
    sealed_client = Client(temporal_env.client.service_client, namespace="default",
                           data_converter=film_data_converter(codec))
    async with fake_workers(sealed_client, FakeStages()) as queue:
        order = customer_order()
        handle = await start_render(sealed_client, order, task_queue=queue)
        outcome = await handle.result()
    assert outcome.state is FilmState.SUCCEEDED
    history = await temporal_env.client.get_workflow_handle(order.workflow_id).fetch_history()
    raw = history.to_json()
    assert RECIPIENT not in raw and MEMORY not in raw
    assert base64.b64encode(ENCODING).decode() in raw  # every payload sealed, key id beside
    for event in history.events:
        if event.HasField("activity_task_scheduled_event_attributes"):
            for payload in event.activity_task_scheduled_event_attributes.input.payloads:
                assert payload.metadata["encoding"] == ENCODING
    replayed = await Replayer(workflows=[FilmRender], data_converter=film_data_converter(codec)
                              ).replay_workflow(history, raise_on_replay_failure=False)
    assert replayed.replay_failure is None


async def test_filmworker_replay_decrypts_with_the_keys_and_says_when_they_are_missing(
    temporal_env: WorkflowEnvironment, tmp_path: Path,
) -> None:
    keys = f"k1:{new_key()}"
    sealed_client = Client(temporal_env.client.service_client, namespace="default",
                           data_converter=film_data_converter(codec_from_env(
                               {"FILM_PAYLOAD_KEYS": keys})))
    async with fake_workers(sealed_client, FakeStages()) as queue:
        handle = await start_render(sealed_client, customer_order(), task_queue=queue)
        await handle.result()
    path = tmp_path / "sealed.json"
    path.write_text((await handle.fetch_history()).to_json(), encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FILM_")}
    with_keys = await asyncio.to_thread(filmworker, "replay", str(path),
                                        env={**environment, "FILM_PAYLOAD_KEYS": keys})
    assert with_keys.returncode == 0, with_keys.stderr
    without = await asyncio.to_thread(filmworker, "replay", str(path), env=environment)
    assert without.returncode == 4  # payload keys: infrastructure, not non-determinism
    assert "set FILM_PAYLOAD_KEYS" in without.stderr and "Traceback" not in without.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in BASELINE.glob("*.json")))
async def test_unencrypted_baseline_histories_replay_with_the_codec_configured(
    name: str, codec: AesGcmCodec,
) -> None:
    history = read_history(BASELINE / name)
    replayed = await Replayer(workflows=[FilmRender], data_converter=film_data_converter(codec)
                              ).replay_workflow(history, raise_on_replay_failure=False)
    assert replayed.replay_failure is None


@pytest.fixture
def codec_endpoint(codec: AesGcmCodec) -> Iterator[str]:
    server = codec_server(codec, port=0, origins=[UI_ORIGIN], token="ops-token",
                          tokens={"alice-token": "alice"})
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.port}"

    def serving() -> bool:
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"{base}/health", timeout=1).status_code == 200
        return False

    wait_until(serving, "the codec server serving")
    try:
        yield f"{base}/codec"
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


def _ui_request(endpoint: str, operation: str, payloads: list[dict[str, object]],
                token: str | None = "ops-token") -> httpx.Response:
    """What the Temporal UI sends: JSON payloads, its origin and namespace, the token."""
    headers = {"Origin": UI_ORIGIN, "X-Namespace": "default",
               "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{endpoint}/{operation}", json={"payloads": payloads}, headers=headers)


def _json_payload(text: str) -> dict[str, object]:
    return {"metadata": {"encoding": base64.b64encode(b"json/plain").decode()},
            "data": base64.b64encode(json.dumps(text).encode()).decode()}


def test_the_codec_server_encodes_and_decodes_for_the_ui(codec_endpoint: str) -> None:
    encoded = _ui_request(codec_endpoint, "encode", [_json_payload(MEMORY)])
    assert encoded.status_code == 200
    assert encoded.headers["Access-Control-Allow-Origin"] == UI_ORIGIN
    [sealed] = encoded.json()["payloads"]
    assert base64.b64decode(sealed["metadata"]["encoding"]) == ENCODING
    assert MEMORY not in base64.b64decode(sealed["data"]).decode(errors="replace")
    decoded = _ui_request(codec_endpoint, "decode", [sealed, _json_payload("plain")])
    assert decoded.status_code == 200
    assert decoded.json()["payloads"] == [_json_payload(MEMORY), _json_payload("plain")]


def test_the_codec_server_answers_the_ui_preflight(codec_endpoint: str) -> None:
    preflight = httpx.options(f"{codec_endpoint}/decode", headers={
        "Origin": UI_ORIGIN, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-namespace,authorization"})
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == UI_ORIGIN
    assert "X-Namespace" in preflight.headers["Access-Control-Allow-Headers"]
    assert preflight.headers["Access-Control-Allow-Credentials"] == "true"
    other = httpx.options(f"{codec_endpoint}/decode", headers={"Origin": "https://evil.test"})
    assert "Access-Control-Allow-Origin" not in other.headers


def test_the_codec_server_refuses_requests_without_the_token(codec_endpoint: str) -> None:
    [sealed] = _ui_request(codec_endpoint, "encode", [_json_payload(MEMORY)]).json()["payloads"]
    for token in (None, "wrong"):
        refused = _ui_request(codec_endpoint, "decode", [sealed], token=token)
        assert refused.status_code == 401
        assert MEMORY not in refused.text


def test_the_codec_server_refuses_a_payload_of_an_unknown_key(codec_endpoint: str) -> None:
    foreign = make_codec("k9").seal(Payload(data=b"x"))
    answer = _ui_request(codec_endpoint, "decode", [{
        "metadata": {k: base64.b64encode(v).decode() for k, v in foreign.metadata.items()},
        "data": base64.b64encode(foreign.data).decode()}])
    assert answer.status_code == 400


async def test_the_order_api_starter_connects_from_the_environment_and_seals_the_order(
    temporal_env: WorkflowEnvironment,
) -> None:
    environ = {**os.environ, "FILM_PAYLOAD_KEYS": f"api1:{new_key()}",
               "TEMPORAL_ADDRESS": temporal_env.client.service_client.config.target_host,
               "TEMPORAL_NAMESPACE": "default"}
    starter = await connect_starter(environ)
    order = customer_order()
    handle = await start_render(starter, order, task_queue=f"nobody-{order.gift_id}")
    history = await temporal_env.client.get_workflow_handle(handle.id).fetch_history()
    [payload] = history.events[0].workflow_execution_started_event_attributes.input.payloads
    assert payload.metadata[KEY_ID_METADATA] == b"api1"
    assert RECIPIENT.encode() not in payload.data
    await handle.terminate("test over")


# --- the codec server against clients that are not authorised (issue 31, case 4) ---------------


def _raw_exchange(endpoint: str, head: str, body: bytes = b"", read_s: float = 5.0) -> bytes:
    """Send ``head`` (and ``body``) on a raw connection; what the server answers first."""
    host, port = endpoint.removeprefix("http://").split("/")[0].split(":")
    with socket.create_connection((host, int(port)), 5) as sock:
        sock.sendall(head.encode() + body)
        sock.settimeout(read_s)
        return sock.recv(4096)


def test_the_codec_server_health_answers_without_a_token(codec_endpoint: str) -> None:
    health = httpx.get(codec_endpoint.removesuffix("/codec") + "/health")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})


def test_the_codec_server_refuses_a_16_mib_body_without_a_token_before_reading_it(
    codec_endpoint: str,
) -> None:
    head = ("POST /codec/decode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {16 << 20}\r\n\r\n")
    answer = _raw_exchange(codec_endpoint, head)  # not one byte of the body sent
    assert answer.startswith(b"HTTP/1.1 401")
    assert b"connection: close" in answer.lower()


@pytest.mark.parametrize("length", ["-1", "abc", "1e3"])
def test_the_codec_server_answers_400_to_a_content_length_that_is_not_a_number_of_bytes(
    codec_endpoint: str, length: str,
) -> None:
    head = (f"POST /codec/decode HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ops-token\r\n"
            f"Content-Length: {length}\r\n\r\n")
    assert _raw_exchange(codec_endpoint, head).startswith(b"HTTP/1.1 400")


def test_the_codec_server_refuses_a_body_over_the_limit_with_413(codec_endpoint: str) -> None:
    from app.codec_server import MAX_BODY_BYTES

    head = (f"POST /codec/decode HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ops-token\r\n"
            f"Content-Length: {MAX_BODY_BYTES + 1}\r\n\r\n")
    assert _raw_exchange(codec_endpoint, head).startswith(b"HTTP/1.1 413")


@pytest.mark.parametrize("data", ["!!!", "QQ", "QQ==\n", "-_-_"])
def test_the_codec_server_refuses_base64_that_is_not_strict(codec_endpoint: str,
                                                            data: str) -> None:
    payload = {"metadata": {"encoding": base64.b64encode(b"json/plain").decode()}, "data": data}
    assert _ui_request(codec_endpoint, "decode", [payload]).status_code == 400


def test_the_codec_server_closes_a_connection_whose_headers_never_come(
    codec_endpoint: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("app.codec_server.HEADER_TIMEOUT_S", 0.5)
    started = time.monotonic()
    answer = _raw_exchange(codec_endpoint, "POST /codec/decode HTTP/1.1\r\nHost: x\r\n",
                           read_s=5.0)
    assert answer == b"", "closed without an answer"
    assert time.monotonic() - started < 3


def test_the_codec_server_writes_one_audit_line_per_decode_without_the_data(
    codec_endpoint: str, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="filmworker.codec.audit")
    [sealed] = _ui_request(codec_endpoint, "encode", [_json_payload(MEMORY)]).json()["payloads"]
    caplog.clear()
    headers = {"Authorization": "Bearer alice-token", "X-Namespace": "films-prod"}
    decoded = httpx.post(f"{codec_endpoint}/decode", headers=headers,
                         json={"payloads": [sealed, _json_payload("plain")]})
    assert decoded.status_code == 200
    _ui_request(codec_endpoint, "decode", [sealed], token="wrong")
    lines = [r for r in caplog.records if r.name == "filmworker.codec.audit"]
    assert [(r.operation, r.namespace, r.subject, r.payloads, r.result) for r in lines] == [
        ("decode", "films-prod", "alice", 2, "ok"),
        ("decode", "default", "(refused)", 0, "unauthorized")]
    assert all(MEMORY not in r.getMessage() and sealed["data"] not in r.getMessage()
               for r in lines)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_thirty_unauthenticated_16_mib_bodies_leave_the_codec_server_under_150_mib_answering(
) -> None:
    from bench.codec_attack import run_attack

    result = run_attack(connections=30, body_mib=16, hold_s=4.0)
    assert result.answered_during_attack
    assert result.rss_peak_mib < 150, result
    assert result.attacker_answers == {"HTTP/1.1 401 Unauthorized": 30}
