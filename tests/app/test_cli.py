"""The ``filmworker`` command line: every command parses and dispatches, and the commands that
need no running worker behave as documented (exit status, output)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.cli import COMMANDS, build_parser
from tests.processes import filmworker, free_port

REPO = Path(__file__).resolve().parents[2]
DOCUMENTED = {"render", "samples", "worker", "server", "submit", "replay", "healthcheck",
              "codec-server"}


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
