"""The ``filmworker`` command line: argument parsing and one function per command.

``render`` and ``samples`` run locally on an embedded dev server; ``worker``, ``server``,
``setup``, ``submit``, ``replay``, ``healthcheck`` and ``codec-server`` are the operations
commands, which end the process themselves (:func:`exit_now`).

For scripts: a command's result is on stdout (with ``--json``, exactly one JSON document),
everything for people (progress, files written) on stderr; errors are one line on stderr and
the exit status says what happened (:class:`ExitCode`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from enum import IntEnum
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from temporalio.service import RPCError

from app.client import TemporalConfigError, TemporalUnreachable, target_address
from app.errors import GiftLive, HistoryFileError, RunExists
from app.memory import tune_heap
from app.order_folder import OrderFolderError
from services.settings import Settings
from services.storage.base import StorageError
from workflows.codec import CodecKeyError
from workflows.contract import FilmOutcome, FilmState

DESCRIPTION = "Render personalized films on Temporal, and operate the worker that does it."


class ExitCode(IntEnum):
    """Exit status of every command."""

    SUCCEEDED = 0  # done; a render or submit --wait whose outcome is succeeded
    FAILED = 1  # the run failed (our fault, refunded); replay not deterministic; unhealthy
    USAGE = 2  # bad arguments or input: no such file, order.json invalid, attempt already ran
    HELD = 3  # the run was held (customer media or policy, refunded)
    INFRASTRUCTURE = 4  # Temporal, storage or keys unreachable or misconfigured
    INTERRUPTED = 130  # Ctrl-C (SIGINT)
    TERMINATED = 143  # SIGTERM: a local run (render, samples) stopped, nothing left running


EPILOG = """\
exit status:
  0 succeeded   1 run failed / replay not deterministic / unhealthy   2 usage or bad input
  3 run held    4 infrastructure (Temporal, storage, keys)
  130 interrupted (Ctrl-C)   143 terminated (SIGTERM)

environment (see README "Configuration"):
  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE     server and namespace (default localhost:7233, default)
  TEMPORAL_API_KEY                         API key (Temporal Cloud); implies TLS
  TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH,
  TEMPORAL_TLS_SERVER_NAME                 mutual TLS of a self-hosted cluster
  TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE   a profile of temporal.toml (the environment wins)
  FILM_PAYLOAD_KEYS, FILM_PAYLOAD_KEY_ID   payload encryption keys (id:base64,...; first = current)
  FILM_TASK_QUEUE, FILM_STORAGE_URL        task queue, storage (file:// or s3://)
  FILM_ORDER_API_URL, FILM_ORDER_API_SECRET  the signed outcome callback
"""


def exit_now(code: int) -> int:
    """End a client command without interpreter teardown: the Temporal client's runtime
    threads can abort a finalizing interpreter (temporalio/sdk-python#300)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def outcome_exit_code(outcome: FilmOutcome) -> ExitCode:
    """0 succeeded, 3 held, 1 failed."""
    return {FilmState.SUCCEEDED: ExitCode.SUCCEEDED,
            FilmState.HELD: ExitCode.HELD}.get(outcome.state, ExitCode.FAILED)


def _print_json(document: Any) -> None:
    print(json.dumps(document, ensure_ascii=False), flush=True)


def _outcome_line(outcome: FilmOutcome) -> str:
    return f"outcome: {outcome.state.value}" + (f" ({outcome.reason})" if outcome.reason
                                                else "")


# --- commands ----------------------------------------------------------------------------------


def _render_command(args: argparse.Namespace) -> int:
    from app.local_run import render_folder  # heavy (media code): only for local runs

    outcome = asyncio.run(render_folder(args.folder, args.out, ui=not args.no_ui,
                                        storyboard=args.storyboard, quiet=args.json))
    if args.json:
        _print_json({"out": str(args.out.absolute()),
                     "outcome": outcome.model_dump(mode="json")})
    else:
        print(_outcome_line(outcome))
    return exit_now(outcome_exit_code(outcome))


def _samples_command(args: argparse.Namespace) -> int:
    from app.local_run import render_folder
    from app.samples import samples_command

    return exit_now(samples_command(args, render_folder))


def _worker_command(args: argparse.Namespace) -> int:
    from app.workers import run_worker  # heavy (media code): only for the worker

    asyncio.run(run_worker(Settings()))
    return exit_now(ExitCode.SUCCEEDED)


def _server_command(args: argparse.Namespace) -> int:
    from app.devserver import server_argv

    settings = Settings()
    argv = server_argv(settings, ip=args.ip, port=args.port, ui_port=args.ui_port,
                       db_file=args.db, ui=not args.no_ui,
                       namespace=settings.temporal_namespace or "default",
                       codec_endpoint=args.codec_endpoint)
    ui = "off" if args.no_ui else f"http://{args.ip}:{argv[argv.index('--ui-port') + 1]}"
    if args.codec_endpoint:
        ui += f" decoding through {args.codec_endpoint}"
    print(f"Temporal dev server on {args.ip}:{args.port}, UI {ui}", flush=True)
    os.execv(argv[0], argv)  # the server runs in the foreground and gets our signals
    return ExitCode.INFRASTRUCTURE


def _setup_command(args: argparse.Namespace) -> int:
    from app.setup import setup_cluster

    report = asyncio.run(setup_cluster(Settings()))
    if args.json:
        _print_json({"added": report.added, "present": report.present})
    else:
        print(f"search attributes added: {', '.join(report.added) or 'none'}; "
              f"already present: {', '.join(report.present) or 'none'}")
    return exit_now(ExitCode.SUCCEEDED)


def _submit_command(args: argparse.Namespace) -> int:
    from app.ops import submit_folder

    submitted = asyncio.run(submit_folder(args.folder, Settings(), gift_id=args.gift_id,
                                          attempt=args.attempt, wait=args.wait,
                                          quiet=args.json))
    outcome = submitted.outcome
    if args.json:
        document: dict[str, Any] = {"workflow_id": submitted.workflow_id}
        if outcome is not None:
            document["outcome"] = outcome.model_dump(mode="json")
        _print_json(document)
    elif outcome is None:
        print(submitted.workflow_id)
    else:
        print(_outcome_line(outcome))
    return exit_now(ExitCode.SUCCEEDED if outcome is None else outcome_exit_code(outcome))


def _replay_command(args: argparse.Namespace) -> int:
    from app.ops import check_history_keys, fetch_history, read_history, replay

    settings = Settings()
    if args.history is not None:
        history = read_history(args.history)
    else:
        history = asyncio.run(fetch_history(settings, args.workflow_id, args.run_id))
    codec = settings.payload_codec()
    check_history_keys(history, codec)  # sealed payloads without their keys: exit 4, not "1"
    result = asyncio.run(replay(history, codec))
    failure = result.replay_failure
    if args.json:
        _print_json({"workflow_id": history.workflow_id, "events": len(history.events),
                     "deterministic": failure is None,
                     "failure": None if failure is None else str(failure)})
    elif failure is not None:
        print(f"{history.workflow_id}: replay FAILED: {failure}", file=sys.stderr)
    else:
        print(f"{history.workflow_id}: replayed {len(history.events)} events deterministically")
    return exit_now(ExitCode.FAILED if failure is not None else ExitCode.SUCCEEDED)


def _healthcheck_command(args: argparse.Namespace) -> int:
    from app.ops import health_problems

    problems = asyncio.run(health_problems(Settings(), pollers=not args.server_only))
    if args.json:
        _print_json({"healthy": not problems, "problems": problems})
    for problem in problems:
        print(f"unhealthy: {problem}", file=sys.stderr)
    return exit_now(ExitCode.FAILED if problems else ExitCode.SUCCEEDED)


def _check_install_command(args: argparse.Namespace) -> int:
    from app.install_check import install_report

    found, problems = install_report()
    for problem in problems:
        print(f"filmworker check-install: {problem}", file=sys.stderr)
    if not problems:
        print("installation can render: " + ", ".join(found))
    return exit_now(ExitCode.FAILED if problems else ExitCode.SUCCEEDED)


def _codec_server_command(args: argparse.Namespace) -> int:
    from app.codec_server import codec_server, parse_tokens
    from app.telemetry import configure_logging
    from workflows.codec import KEYS_ENV

    settings = Settings()
    configure_logging(settings)
    codec = settings.payload_codec()
    if codec is None:
        raise CodecKeyError(f"codec-server needs {KEYS_ENV} (the workers' payload keys)")
    origins = [o.strip() for o in settings.codec_origins.split(",") if o.strip()]
    tokens = parse_tokens(settings.codec_token, settings.codec_tokens)
    server = codec_server(codec, host=args.host, port=args.port, origins=origins,
                          tokens=tokens)
    print(f"codec server on http://{args.host}:{server.port} for {origins}"
          f"{', bearer token required' if tokens else ''}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return ExitCode.SUCCEEDED


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "render": _render_command, "samples": _samples_command, "worker": _worker_command,
    "server": _server_command, "setup": _setup_command, "submit": _submit_command,
    "replay": _replay_command, "healthcheck": _healthcheck_command,
    "check-install": _check_install_command, "codec-server": _codec_server_command,
}
"""Each command's function: its exit status (the operations commands exit themselves)."""


# --- arguments ---------------------------------------------------------------------------------


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document on stdout (no progress bar)")


def _add_local_commands(commands: Any) -> None:
    render = commands.add_parser("render", help="render a local order folder end to end",
                                 epilog=EPILOG, formatter_class=argparse.RawTextHelpFormatter)
    render.add_argument("folder", type=Path,
                        help="order folder: order.json, photos/ and clips/ (see samples/)")
    render.add_argument("--out", type=Path, default=Path("out"),
                        help="where the films, poster, page and outcome.json go (default: out)")
    render.add_argument("--no-ui", action="store_true", help="do not start the Temporal UI")
    render.add_argument("--storyboard", action="store_true",
                        help="also write OUT/storyboard.png: one frame per shot, both aspects")
    _json_flag(render)
    commands.add_parser("worker", help="run the workers against the configured Temporal",
                        epilog=EPILOG, formatter_class=argparse.RawTextHelpFormatter)


def _http_url(value: str) -> str:
    """An http(s) URL argument."""
    if not value.startswith(("http://", "https://")) or len(value.split("//", 1)[1]) == 0:
        raise argparse.ArgumentTypeError(f"not an http(s) URL: {value!r}")
    return value.rstrip("/")


def _add_server_commands(commands: Any) -> None:
    server = commands.add_parser("server", help="the Temporal dev server in the foreground")
    server.add_argument("--ip", default="127.0.0.1", help="address to bind (0.0.0.0 in Docker)")
    server.add_argument("--port", type=int, default=7233, help="gRPC port (default 7233)")
    server.add_argument("--ui-port", type=int, default=None, help="default: port + 1000")
    server.add_argument("--db", default=None, help="SQLite file to keep runs across restarts")
    ui = server.add_mutually_exclusive_group()
    ui.add_argument("--no-ui", action="store_true", help="do not start the Temporal UI")
    ui.add_argument("--codec-endpoint", type=_http_url, default=None, metavar="URL",
                        help="the UI decodes payloads through this codec server (e.g. "
                        "filmworker codec-server's http://localhost:8081), as the browser "
                        "reaches it")
    setup = commands.add_parser("setup", help="register the search attributes on the "
                                "configured cluster (idempotent; not on Temporal Cloud)",
                                epilog=EPILOG, formatter_class=argparse.RawTextHelpFormatter)
    _json_flag(setup)
    codec = commands.add_parser("codec-server", help="decode encrypted payloads for the "
                                "Temporal UI (FILM_PAYLOAD_KEYS, FILM_CODEC_CORS_ORIGINS, "
                                "FILM_CODEC_TOKEN)")
    codec.add_argument("--host", default="127.0.0.1", help="address to bind")
    codec.add_argument("--port", type=int, default=8081, help="port to bind (default 8081)")


def _add_ops_commands(commands: Any) -> None:
    submit = commands.add_parser("submit", help="upload an order folder and start its render",
                                 epilog=EPILOG, formatter_class=argparse.RawTextHelpFormatter)
    submit.add_argument("folder", type=Path,
                        help="order folder: order.json, photos/ and clips/ (validated first)")
    submit.add_argument("--wait", action="store_true",
                        help="show progress and wait for the outcome (exit status by state)")
    submit.add_argument("--gift-id", default=None,
                        help="gift id (default: derived from the folder's content); a gift "
                        "with a live run is refused before any upload, unless this is the "
                        "run's own folder (then it attaches)")
    submit.add_argument("--attempt", type=int, default=None,
                        help="render attempt (default: order.json's, else 1); an attempt "
                        "that already ran is refused, the next one renders again")
    _json_flag(submit)
    replay_parser = commands.add_parser("replay", help="replay a history against this code")
    source = replay_parser.add_mutually_exclusive_group(required=True)
    source.add_argument("history", nargs="?", type=Path,
                        help="a history JSON file (temporal CLI, UI or tests/histories)")
    source.add_argument("--workflow-id", help="fetch the history from the configured Temporal")
    replay_parser.add_argument("--run-id", default=None,
                               help="with --workflow-id: that run (default: the latest)")
    _json_flag(replay_parser)
    health = commands.add_parser("healthcheck", help="exit 0 when Temporal is reachable and "
                                 "this host's worker polls both task queues")
    health.add_argument("--server-only", action="store_true", help="only check Temporal")
    _json_flag(health)
    commands.add_parser("check-install", help="exit 0 when this installation can render: every "
                        "look and font, the word list, the sample orders, ffmpeg, the temporal "
                        "CLI and libfluidsynth are found (the Docker image's smoke check)")


def _version() -> str:
    try:
        return version("filmworker")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The ``filmworker`` argument parser with every subcommand."""
    from app.samples import add_samples_parser

    parser = argparse.ArgumentParser(prog="filmworker", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_local_commands(commands)
    _add_server_commands(commands)
    _add_ops_commands(commands)
    add_samples_parser(commands)
    return parser


# --- errors ------------------------------------------------------------------------------------


def _validation_summary(error: ValidationError) -> str:
    """``order.json invalid: field: message; ...`` (three problems at most)."""
    problems = [f"{'.'.join(str(p) for p in e['loc']) or 'order'}: {e['msg']}"
                for e in error.errors()[:3]]
    more = f" (+{error.error_count() - 3} more)" if error.error_count() > 3 else ""
    return "order invalid: " + "; ".join(problems) + more


def error_exit(error: BaseException) -> tuple[ExitCode, str] | None:
    """The exit status and one-line message of an error a person can act on (None: a bug,
    shown with its traceback)."""
    if isinstance(error, ValidationError):
        return ExitCode.USAGE, _validation_summary(error)
    if isinstance(error, OrderFolderError | HistoryFileError | RunExists | GiftLive):
        return ExitCode.USAGE, str(error)
    if isinstance(error, CodecKeyError | TemporalConfigError):
        return ExitCode.INFRASTRUCTURE, str(error)
    if isinstance(error, FileNotFoundError | NotADirectoryError | IsADirectoryError):
        return ExitCode.USAGE, f"{error.strerror}: {error.filename}"
    if isinstance(error, TemporalUnreachable):
        return ExitCode.INFRASTRUCTURE, str(error)
    if isinstance(error, RPCError):
        return ExitCode.INFRASTRUCTURE, f"Temporal refused the call: {error.message}"
    if isinstance(error, StorageError):
        return ExitCode.INFRASTRUCTURE, f"storage: {type(error).__name__}: {error}"
    if isinstance(error, ConnectionError | TimeoutError):
        return ExitCode.INFRASTRUCTURE, f"{type(error).__name__}: {error}"
    from app.setup import SearchAttributeConflict

    if isinstance(error, SearchAttributeConflict):
        return ExitCode.INFRASTRUCTURE, str(error)
    return None


@contextlib.contextmanager
def friendly_errors(command: str) -> Iterator[None]:
    """Known errors end the process with one line and their exit status, not a traceback."""
    try:
        yield
    except KeyboardInterrupt:
        print(f"filmworker {command}: interrupted", file=sys.stderr)
        exit_now(ExitCode.INTERRUPTED)
    except Exception as error:
        known = error_exit(error)
        if known is None:
            raise
        code, message = known
        print(f"filmworker {command}: {message}", file=sys.stderr)
        if code is ExitCode.INFRASTRUCTURE and isinstance(error, TemporalUnreachable | RPCError):
            print(f"  (Temporal at {target_address(Settings())}: check TEMPORAL_ADDRESS, "
                  "TEMPORAL_NAMESPACE, TEMPORAL_API_KEY / TEMPORAL_TLS_*)", file=sys.stderr)
        exit_now(code)


def main(argv: list[str] | None = None) -> int:
    """``filmworker COMMAND ...`` (``filmworker --help``)."""
    tune_heap()  # before the SDK's, the renders' and OpenCV's threads allocate
    args = build_parser().parse_args(argv)
    with friendly_errors(args.command):
        return COMMANDS[args.command](args)
    return ExitCode.FAILED  # not reached: friendly_errors exits
