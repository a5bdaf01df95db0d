"""The ``filmworker`` command line: argument parsing and one function per command.

``render`` and ``samples`` run locally on an embedded dev server; ``worker``, ``server``,
``submit``, ``replay`` and ``healthcheck`` are the operations commands, which end the process
themselves (:func:`exit_now`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.devserver import server_argv
from app.local_run import render_folder
from app.ops import fetch_history, health_problems, read_history, replay, submit_folder
from app.samples import add_samples_parser, samples_command
from app.workers import run_worker
from services.settings import Settings
from workflows.contract import FilmState

DESCRIPTION = ("Process entry: settings, Temporal client, workers, and the ``filmworker`` "
               "command line.")


def exit_now(code: int) -> int:
    """End a client command without interpreter teardown: the Temporal client's runtime
    threads can abort a finalizing interpreter (temporalio/sdk-python#300)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _render_command(args: argparse.Namespace) -> int:
    outcome = asyncio.run(render_folder(args.folder, args.out, ui=not args.no_ui,
                                        storyboard=args.storyboard))
    return 0 if outcome.state is FilmState.SUCCEEDED else 1


def _samples_command(args: argparse.Namespace) -> int:
    return samples_command(args, render_folder)


def _worker_command(args: argparse.Namespace) -> int:
    asyncio.run(run_worker(Settings()))
    return exit_now(0)


def _server_command(args: argparse.Namespace) -> int:
    argv = server_argv(ip=args.ip, port=args.port, ui_port=args.ui_port, db_file=args.db,
                       ui=not args.no_ui, namespace=Settings().temporal_namespace or "default")
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


def _codec_server_command(args: argparse.Namespace) -> int:
    from app.codec_server import codec_server
    from workflows.codec import codec_from_env

    settings = Settings()
    codec = codec_from_env()
    if codec is None:
        print("codec-server needs FILM_PAYLOAD_KEYS (the workers' payload keys)", file=sys.stderr)
        return 2
    origins = [o.strip() for o in settings.codec_origins.split(",") if o.strip()]
    server = codec_server(codec, host=args.host, port=args.port, origins=origins,
                          token=settings.codec_token)
    print(f"codec server on http://{args.host}:{server.server_address[1]} for {origins}"
          f"{', bearer token required' if settings.codec_token else ''}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "render": _render_command, "samples": _samples_command, "worker": _worker_command,
    "server": _server_command, "submit": _submit_command, "replay": _replay_command,
    "healthcheck": _healthcheck_command, "codec-server": _codec_server_command,
}
"""Each command's function: its exit status (the operations commands exit themselves)."""


def _add_local_commands(commands: Any) -> None:
    render = commands.add_parser("render", help="render a local order folder end to end")
    render.add_argument("folder", type=Path)
    render.add_argument("--out", type=Path, default=Path("out"))
    render.add_argument("--no-ui", action="store_true", help="do not start the Temporal UI")
    render.add_argument("--storyboard", action="store_true",
                        help="also write OUT/storyboard.png: one frame per shot, both aspects")
    commands.add_parser("worker", help="run a worker against TEMPORAL_ADDRESS")


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
    codec = commands.add_parser("codec-server", help="decode encrypted payloads for the "
                                "Temporal UI (FILM_PAYLOAD_KEYS, FILM_CODEC_CORS_ORIGINS, "
                                "FILM_CODEC_TOKEN)")
    codec.add_argument("--host", default="127.0.0.1", help="address to bind")
    codec.add_argument("--port", type=int, default=8081, help="port to bind")


def build_parser() -> argparse.ArgumentParser:
    """The ``filmworker`` argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="filmworker", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True)
    _add_local_commands(commands)
    _add_ops_commands(commands)
    add_samples_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """``filmworker render|samples|worker|server|submit|replay|healthcheck``."""
    args = build_parser().parse_args(argv)
    return COMMANDS[args.command](args)
