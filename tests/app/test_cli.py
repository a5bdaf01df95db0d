"""The ``filmworker`` command line: every command parses and dispatches, and the commands that
need no running worker behave as documented (exit status, output)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import uuid
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from app.cli import COMMANDS, ExitCode, build_parser
from tests.processes import filmworker, free_port
from tests.test_workflow import FakeStages, fake_workers
from workflows.codec import new_key
from workflows.stages import HOLD_ERROR_TYPE

REPO = Path(__file__).resolve().parents[2]
DOCUMENTED = {"render", "samples", "worker", "server", "submit", "replay", "healthcheck",
              "codec-server", "setup"}


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


def test_a_worker_whose_payload_keys_give_one_id_twice_refuses_to_start(tmp_path: Path) -> None:
    key = new_key()
    env = {**_env(tmp_path, f"127.0.0.1:{free_port()}"),
           "FILM_PAYLOAD_KEYS": f"k1:{key},k2:{new_key()},k1:{key}"}
    done = filmworker("worker", env=env, timeout_s=60)
    assert done.returncode == ExitCode.INFRASTRUCTURE
    _one_line_error(done, "FILM_PAYLOAD_KEYS: key id 'k1' is given twice")
