"""The ``filmworker`` command line: every command parses and dispatches, and the commands that
need no running worker behave as documented (exit status, output)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import httpx
import pytest
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from app.cli import COMMANDS, ExitCode, build_parser
from tests.helpers import FakeStages, fake_workers, make_order
from tests.processes import filmworker, filmworker_argv, free_port, wait_for_port
from workflows.codec import AesGcmCodec, film_data_converter, new_key, parse_keys
from workflows.contract import start_render
from workflows.stages import HOLD_ERROR_TYPE

REPO = Path(__file__).resolve().parents[2]
FIXTURE_ORDER = REPO / "tests" / "fixtures" / "order"
DOCUMENTED = {"render", "samples", "worker", "server", "submit", "replay", "healthcheck",
              "check-install", "codec-server", "setup"}


def test_every_documented_command_parses_and_has_its_own_function() -> None:
    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(subcommands) == set(COMMANDS) == DOCUMENTED
    assert len(set(COMMANDS.values())) == len(COMMANDS)


@pytest.mark.parametrize(("argv", "expected"), [
    (["render", "samples/birthday", "--no-ui", "--storyboard"],
     {"folder": Path("samples/birthday"), "out": Path("out"), "no_ui": True,
      "storyboard": True}),
    (["submit", "my-order", "--wait", "--gift-id", "g1"],
     {"folder": Path("my-order"), "wait": True, "gift_id": "g1"}),
    (["replay", "--workflow-id", "film-g1-1"],
     {"history": None, "workflow_id": "film-g1-1", "run_id": None}),
    (["server", "--port", "7300", "--no-ui"],
     {"ip": "127.0.0.1", "port": 7300, "ui_port": None, "db": None, "no_ui": True}),
    (["healthcheck", "--server-only"], {"server_only": True}),
    (["samples", "out/samples", "--base-url", "https://cdn.example.test"],
     {"out_dir": Path("out/samples"), "base_url": "https://cdn.example.test", "no_ui": False}),
])
def test_arguments_reach_the_command_with_their_defaults(argv: list[str],
                                                          expected: dict[str, object]) -> None:
    args = vars(build_parser().parse_args(argv))
    assert args["command"] == argv[0]
    assert {name: args[name] for name in expected} == expected


def test_replay_needs_either_a_history_file_or_a_workflow_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["replay"])
    assert exited.value.code == 2
    assert "history" in capsys.readouterr().err


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("filmworker ")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(a for a in parser._actions if a.dest == "command").choices


def test_every_argument_has_help_and_the_help_names_the_environment() -> None:
    parser = build_parser()
    for name, subparser in _subparsers(parser).items():
        for action in subparser._actions:
            assert action.help, f"{name} {action.dest} has no help"
    text = parser.format_help()
    for variable in ("TEMPORAL_ADDRESS", "TEMPORAL_API_KEY", "TEMPORAL_TLS_CLIENT_CERT_PATH",
                     "FILM_PAYLOAD_KEYS", "exit status"):
        assert variable in text


def test_exit_codes_are_distinct() -> None:
    codes = [ExitCode.SUCCEEDED, ExitCode.FAILED, ExitCode.USAGE, ExitCode.HELD,
             ExitCode.INFRASTRUCTURE]
    assert len(set(codes)) == len(codes) and ExitCode.SUCCEEDED == 0


def _order_folder(tmp_path: Path, **changes: object) -> Path:
    folder = tmp_path / "order"
    (folder / "photos").mkdir(parents=True)
    fields = json.loads((REPO / "samples" / "birthday" / "order.json").read_text())
    fields.pop("subject_photo")
    (folder / "order.json").write_text(json.dumps({**fields, **changes}))
    (folder / "photos" / "01.jpg").write_bytes(b"not really a jpeg")
    return folder


def _one_line_error(done: subprocess.CompletedProcess[str], expected: str) -> None:
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("  ")]
    assert len(lines) == 1 and expected in lines[0], done.stderr


def _env(tmp_path: Path, address: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith(("FILM_", "TEMPORAL_"))},
            "TEMPORAL_ADDRESS": address, "FILM_STORAGE_URL": f"file://{tmp_path / 'storage'}"}


def test_submit_of_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    done = filmworker("submit", str(tmp_path / "nowhere"), env=_env(tmp_path, "127.0.0.1:1"))
    assert done.returncode == ExitCode.USAGE
    _one_line_error(done, "order.json is missing")


def test_submit_validates_before_uploading_anything(tmp_path: Path) -> None:
    folder = _order_folder(tmp_path, length_sec=-5, tier="platinum")
    done = filmworker("submit", str(folder), env=_env(tmp_path, "127.0.0.1:1"))
    assert done.returncode == ExitCode.USAGE
    _one_line_error(done, "order invalid: ")
    assert "tier" in done.stderr and "length_sec" in done.stderr
    assert not (tmp_path / "storage").exists()


def test_submit_to_an_unreachable_server_is_an_infrastructure_error(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    done = filmworker("submit", str(_order_folder(tmp_path)), env=_env(tmp_path, address))
    assert done.returncode == ExitCode.INFRASTRUCTURE
    _one_line_error(done, f"cannot reach Temporal at {address}")
    assert not (tmp_path / "storage").exists()  # checked before the upload


def test_replay_of_a_missing_history_file_is_a_usage_error(tmp_path: Path) -> None:
    done = filmworker("replay", str(tmp_path / "missing.json"))
    assert done.returncode == ExitCode.USAGE
    _one_line_error(done, "missing.json")


@pytest.mark.parametrize(("failure", "expected_state", "expected_code"), [
    (None, "succeeded", ExitCode.SUCCEEDED),
    ("hold", "held", ExitCode.HELD),
    ("fault", "failed", ExitCode.FAILED),
])
async def test_submit_wait_json_prints_one_document_and_exits_by_state(
    temporal_env: WorkflowEnvironment, tmp_path: Path, failure: str | None,
    expected_state: str, expected_code: int,
) -> None:
    stages = FakeStages()
    if failure == "hold":
        stages.failures["gate"] = lambda: ApplicationError(
            "no usable photo", "no_usable_photos", type=HOLD_ERROR_TYPE, non_retryable=True)
    if failure == "fault":
        stages.failures["verify"] = lambda: ApplicationError("spec", type="FilmSpecMiss",
                                                             non_retryable=True)
    address = temporal_env.client.service_client.config.target_host
    async with fake_workers(temporal_env.client, stages) as queue:
        env = {**_env(tmp_path, address), "FILM_TASK_QUEUE": queue}
        done = await asyncio.to_thread(
            filmworker, "submit", str(_order_folder(tmp_path)), "--wait", "--json",
            "--gift-id", f"cli{uuid.uuid4().hex[:8]}", env=env)
    assert done.returncode == expected_code, done.stderr
    document = json.loads(done.stdout)  # exactly one JSON document
    assert document["outcome"]["state"] == expected_state
    assert document["workflow_id"].startswith("film-cli")


def test_replay_of_a_recorded_history_exits_zero_and_says_so() -> None:
    history = sorted((REPO / "tests" / "histories").glob("*/succeeded.json"))[-1]
    done = filmworker("replay", str(history))
    assert done.returncode == 0, done.stderr
    assert "events deterministically" in done.stdout


def test_healthcheck_exits_one_and_names_an_unreachable_server() -> None:
    address = f"127.0.0.1:{free_port()}"
    done = filmworker("healthcheck", "--server-only",
                      env={**os.environ, "TEMPORAL_ADDRESS": address}, timeout_s=60)
    assert done.returncode == 1
    assert f"unhealthy: temporal at {address} unreachable" in done.stderr


@pytest.mark.timeout(300)
def test_render_of_a_held_order_exits_three_never_by_a_signal(tmp_path: Path) -> None:
    folder = tmp_path / "order"
    (folder / "photos").mkdir(parents=True)
    (folder / "photos" / "01.jpg").write_bytes(b"not a picture at all, only words " * 40)
    fields = json.loads((FIXTURE_ORDER / "order.json").read_text("utf-8"))
    fields.pop("subject_photo", None)
    (folder / "order.json").write_text(json.dumps(fields), encoding="utf-8")
    out = tmp_path / "out"
    done = filmworker("render", str(folder), "--out", str(out), "--no-ui", timeout_s=280)
    assert done.returncode == ExitCode.HELD, (done.returncode, done.stderr[-2000:])
    outcome = json.loads((out / "outcome.json").read_text(encoding="utf-8"))
    assert outcome["state"] == "held"
# --- edges: each one line on stderr with its documented exit status ------------------------------


@pytest.mark.parametrize("text", ["garbage{", '{"events": []}', "[1]",
                                  '{"events": [{"eventId": "x"}]}'],
                         ids=["not-json", "no-events", "not-an-object", "bad-event"])
def test_replay_of_a_malformed_history_file_is_one_line_and_a_usage_error(
    tmp_path: Path, text: str,
) -> None:
    path = tmp_path / "history.json"
    path.write_text(text)
    done = filmworker("replay", str(path), timeout_s=60)
    assert done.returncode == ExitCode.USAGE
    _one_line_error(done, f"{path} is not a workflow history")


async def test_replay_of_a_sealed_history_without_its_keys_names_the_payload_keys_and_exits_4(
    temporal_env: WorkflowEnvironment, tmp_path: Path,
) -> None:
    keys = f"k1:{new_key()}"
    sealed = Client(temporal_env.client.service_client, namespace="default",
                    data_converter=film_data_converter(AesGcmCodec(parse_keys(keys))))
    async with fake_workers(sealed, FakeStages()) as queue:
        order = make_order()
        await (await start_render(sealed, order, task_queue=queue)).result()
    path = tmp_path / "sealed.json"
    path.write_text((await sealed.get_workflow_handle(order.workflow_id).fetch_history()).to_json())
    env = {k: v for k, v in os.environ.items() if not k.startswith("FILM_")}
    without = await asyncio.to_thread(filmworker, "replay", str(path), env=env, timeout_s=60)
    assert without.returncode == ExitCode.INFRASTRUCTURE
    _one_line_error(without, "payloads are encrypted (key k1): set FILM_PAYLOAD_KEYS")
    wrong = await asyncio.to_thread(filmworker, "replay", str(path), timeout_s=60,
                                    env={**env, "FILM_PAYLOAD_KEYS": f"k2:{new_key()}"})
    assert wrong.returncode == ExitCode.INFRASTRUCTURE
    _one_line_error(wrong, "sealed with key k1, which FILM_PAYLOAD_KEYS does not hold")
    right = await asyncio.to_thread(filmworker, "replay", str(path), timeout_s=60,
                                    env={**env, "FILM_PAYLOAD_KEYS": keys})
    assert right.returncode == ExitCode.SUCCEEDED, right.stderr


async def test_resubmitted_order_folder_says_the_run_exists_and_attempt_starts_the_next(
    temporal_env: WorkflowEnvironment, tmp_path: Path,
) -> None:
    address = temporal_env.client.service_client.config.target_host
    folder, gift_id = _order_folder(tmp_path), f"again{uuid.uuid4().hex[:8]}"
    async with fake_workers(temporal_env.client, FakeStages()) as queue:
        env = {**_env(tmp_path, address), "FILM_TASK_QUEUE": queue}

        def submit(*extra: str) -> subprocess.CompletedProcess[str]:
            return filmworker("submit", str(folder), "--gift-id", gift_id, *extra, env=env)

        first = await asyncio.to_thread(submit, "--wait", "--json")
        again = await asyncio.to_thread(submit, "--wait")
        second = await asyncio.to_thread(submit, "--attempt", "2", "--wait", "--json")
    assert first.returncode == ExitCode.SUCCEEDED, first.stderr
    assert again.returncode == ExitCode.USAGE
    _one_line_error(again, f"film-{gift_id}-1 already ran (attempt 1 of gift {gift_id}): "
                    "--attempt 2 starts the next attempt")
    assert second.returncode == ExitCode.SUCCEEDED, second.stderr
    assert json.loads(second.stdout)["workflow_id"] == f"film-{gift_id}-2"


@pytest.mark.parametrize("command", [["submit", "ORDER"], ["healthcheck", "--server-only"],
                                     ["replay", "--workflow-id", "film-g-1"]])
def test_a_missing_temporal_profile_is_one_line_and_an_infrastructure_error(
    tmp_path: Path, command: list[str],
) -> None:
    config = tmp_path / "temporal.toml"
    config.write_text('[profile.default]\naddress = "127.0.0.1:1"\n')
    env = {**{k: v for k, v in _env(tmp_path, "").items() if k != "TEMPORAL_ADDRESS"},
           "TEMPORAL_CONFIG_FILE": str(config), "TEMPORAL_PROFILE": "staging"}
    argv = [str(_order_folder(tmp_path)) if arg == "ORDER" else arg for arg in command]
    done = filmworker(*argv, env=env, timeout_s=60)
    assert done.returncode == ExitCode.INFRASTRUCTURE
    _one_line_error(done, "Temporal connection profile: Profile 'staging' not found")


def test_server_codec_endpoint_is_the_ui_s_remote_codec(tmp_path: Path) -> None:
    """``filmworker server --codec-endpoint URL``: the UI the dev server starts tells the
    browser to decode payloads through URL (the UI's own settings API says so)."""
    port = free_port()
    endpoint = "http://127.0.0.1:8081"
    with (tmp_path / "server.log").open("wb") as log:
        process = subprocess.Popen(filmworker_argv("server", "--port", str(port),
                                                   "--ui-port", str(port + 1),
                                                   "--codec-endpoint", endpoint + "/"),
                                   cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        wait_for_port(port + 1, timeout_s=60)
        deadline, settings = time.monotonic() + 30, None
        while settings is None and time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                settings = httpx.get(f"http://127.0.0.1:{port + 1}/api/v1/settings",
                                     timeout=5).json()
            time.sleep(0.2)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    assert settings is not None, (tmp_path / "server.log").read_text()
    assert settings["Codec"]["Endpoint"] == endpoint
    assert "decoding through http://127.0.0.1:8081" in (tmp_path / "server.log").read_text()
    refused = filmworker("server", "--no-ui", "--codec-endpoint", endpoint, timeout_s=30)
    assert refused.returncode == ExitCode.USAGE and "not allowed with" in refused.stderr
def test_a_worker_whose_payload_keys_give_one_id_twice_refuses_to_start(tmp_path: Path) -> None:
    key = new_key()
    env = {**_env(tmp_path, f"127.0.0.1:{free_port()}"),
           "FILM_PAYLOAD_KEYS": f"k1:{key},k2:{new_key()},k1:{key}"}
    done = filmworker("worker", env=env, timeout_s=60)
    assert done.returncode == ExitCode.INFRASTRUCTURE
    _one_line_error(done, "FILM_PAYLOAD_KEYS: key id 'k1' is given twice")


async def test_submit_under_a_live_gift_is_refused_before_any_upload_and_its_inputs_stay(
    temporal_env: WorkflowEnvironment, tmp_path: Path,
) -> None:
    address = temporal_env.client.service_client.config.target_host
    gift_id = f"live{uuid.uuid4().hex[:8]}"
    running, other = _order_folder(tmp_path / "a"), _order_folder(tmp_path / "b")
    (other / "photos" / "01.jpg").write_bytes(b"another customer's photo")
    stored = tmp_path / "storage" / "orders" / gift_id / "photos" / "p01.jpg"
    stages = FakeStages()
    stages.gates["prep"] = asyncio.Event()  # the first run stays live, reading its inputs
    async with fake_workers(temporal_env.client, stages) as queue:
        env = {**_env(tmp_path, address), "FILM_TASK_QUEUE": queue}

        def submit(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
            return filmworker("submit", str(folder), "--gift-id", gift_id, *extra, env=env)

        first = await asyncio.to_thread(submit, running)
        assert first.returncode == ExitCode.SUCCEEDED, first.stderr
        inputs = stored.read_bytes()
        refused = await asyncio.to_thread(submit, other)
        next_attempt = await asyncio.to_thread(submit, other, "--attempt", "2")
        assert stored.read_bytes() == inputs == b"not really a jpeg"
        again = await asyncio.to_thread(submit, running, "--json")
        stages.gates["prep"].set()
        outcome = await temporal_env.client.get_workflow_handle(f"film-{gift_id}-1").result()
    for done in (refused, next_attempt):
        assert done.returncode == ExitCode.USAGE
        _one_line_error(done, f"gift {gift_id} has a live run, film-{gift_id}-1, reading its "
                        "uploads: nothing was uploaded")
    assert again.returncode == ExitCode.SUCCEEDED, again.stderr
    assert json.loads(again.stdout)["workflow_id"] == f"film-{gift_id}-1"  # attached
    assert outcome["state"] == "succeeded" and stages.calls.count("prep") == 1
