"""Settings in one place: the settings model reads the environment (with app/'s process setup);
media/, workflows/, activities/ and the services are handed the values, and every variable the
README documents still reaches what it configures."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from app.devserver import temporal_cli_path
from app.media_tools import use_media_tools
from media.base.runner import ToolPaths, tool_path, use_tools
from media.song.compose import use_soundfont
from media.song.synth import soundfont_path
from services.settings import Settings
from workflows.codec import new_key

REPO = Path(__file__).resolve().parents[2]
HANDED_THE_VALUES = ("media", "workflows", "activities", "services")
READERS = {
    Path("services/settings.py"): "the settings model",
    Path("services/storage/s3.py"): "boto3's own AWS_ENDPOINT_URL(_S3), mirrored to choose "
                                     "path-style addressing for an emulator",
}
"""Modules outside app/ that read the environment, and why."""
ENVIRONMENT_NAMES = frozenset({"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"})
SET_BY_THE_LIBRARIES = {
    # temporalio.envconfig (the connection profile of every command and of the starter)
    "TEMPORAL_API_KEY", "TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_TLS_CLIENT_KEY_PATH",
    "TEMPORAL_TLS_SERVER_CA_CERT_PATH", "TEMPORAL_TLS_SERVER_NAME", "TEMPORAL_TLS",
    "TEMPORAL_PROFILE", "TEMPORAL_CONFIG_FILE",
    # the OpenTelemetry SDK and its OTLP exporters
    "OTEL_EXPORTER_OTLP_HEADERS",
    # boto3
    "AWS_ENDPOINT_URL",
}
"""Documented variables that a library reads itself (the settings hold none of them)."""


def _is_main_guard(node: ast.AST) -> bool:
    """``if __name__ == "__main__":``: a child program's own process setup."""
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


def _touches_the_environment(node: ast.AST) -> bool:
    """``os.environ``, ``os.getenv``... or ``from os import environ``."""
    if isinstance(node, ast.Attribute):
        return (node.attr in ENVIRONMENT_NAMES and isinstance(node.value, ast.Name)
                and node.value.id == "os")
    return isinstance(node, ast.ImportFrom) and node.module == "os" and any(
        alias.name in ENVIRONMENT_NAMES for alias in node.names)


def environment_uses(tree: ast.AST) -> list[int]:
    """Lines that touch the environment outside a ``__main__`` guard."""
    found: list[int] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if _is_main_guard(node):
            continue
        if _touches_the_environment(node):
            found.append(node.lineno)
        stack.extend(ast.iter_child_nodes(node))
    return sorted(found)


@pytest.mark.parametrize("package", HANDED_THE_VALUES)
def test_only_the_settings_model_reads_the_environment_outside_app(package: str) -> None:
    readers = [f"{path.relative_to(REPO)}:{line}"
               for path in sorted((REPO / package).rglob("*.py"))
               if path.relative_to(REPO) not in READERS
               for line in environment_uses(ast.parse(path.read_text(encoding="utf-8")))]
    assert readers == []


def test_the_environment_check_sees_reads_and_leaves_a_childs_own_setup() -> None:
    source = ("import os\nfrom os import getenv\nos.environ.get('A')\n"
              "if __name__ == '__main__':\n    os.environ.update(B='1')\n")
    assert environment_uses(ast.parse(source)) == [2, 3]


def documented_variables() -> set[str]:
    """Every variable named in the README's Configuration table (suffix shorthands like
    ``_POLL_S`` left out: their full names are in the same row)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Configuration (environment)", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", row)}


def test_every_documented_variable_reaches_the_settings_or_the_library_that_reads_it() -> None:
    aliases = {field.alias for field in Settings.model_fields.values()}
    documented = documented_variables()
    assert len(documented) > 40
    assert sorted(documented - aliases - SET_BY_THE_LIBRARIES) == []


def test_the_settings_hand_media_its_tools(tmp_path: Path) -> None:
    bank = tmp_path / "bank.sf2"
    bank.write_bytes(b"RIFF")
    tools, font = use_tools(ToolPaths()), use_soundfont(None)
    try:
        use_media_tools(Settings(FFMPEG_BINARY="/opt/ff/ffmpeg", FFPROBE_BINARY="/opt/ff/ffprobe",
                                 FILM_SOUNDFONT=str(bank)))
        assert (tool_path("ffmpeg"), tool_path("ffprobe")) == ("/opt/ff/ffmpeg",
                                                                "/opt/ff/ffprobe")
        assert soundfont_path() == bank
        use_media_tools(Settings(FFMPEG_BINARY="", FFPROBE_BINARY=" ", FILM_SOUNDFONT=""))
        assert Path(tool_path("ffmpeg")).name == "ffmpeg"
        assert tool_path("ffmpeg") != "/opt/ff/ffmpeg"
        assert soundfont_path() != bank
    finally:
        use_tools(tools)
        use_soundfont(font)


def test_the_payload_keys_make_the_codec_and_stay_out_of_the_settings_repr() -> None:
    key = new_key()
    settings = Settings(FILM_PAYLOAD_KEYS=f"k2:{new_key()},k1:{key}", FILM_PAYLOAD_KEY_ID="k1")
    codec = settings.payload_codec()
    assert codec is not None and codec.current_key_id == "k1"
    assert codec.key_ids == frozenset({"k1", "k2"})
    assert key not in repr(settings)
    assert Settings(FILM_PAYLOAD_KEYS=" ").payload_codec() is None


def test_the_opentelemetry_variables_choose_the_service_name_endpoint_and_protocol() -> None:
    plain = Settings(OTEL_SERVICE_NAME="", OTEL_EXPORTER_OTLP_ENDPOINT="",
                     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="", OTEL_EXPORTER_OTLP_PROTOCOL="",
                     OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="")
    assert (plain.service_name, plain.otlp_traces_target, plain.otlp_over_grpc) == (
        "filmworker", None, False)
    traces = Settings(OTEL_SERVICE_NAME="films-eu", OTEL_EXPORTER_OTLP_ENDPOINT="http://all:4318",
                      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="http://traces:4318",
                      OTEL_EXPORTER_OTLP_PROTOCOL="grpc",
                      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/protobuf")
    assert (traces.service_name, traces.otlp_traces_target, traces.otlp_over_grpc) == (
        "films-eu", "http://traces:4318", False)
    assert Settings(OTEL_EXPORTER_OTLP_PROTOCOL=" GRPC ").otlp_over_grpc


def test_the_temporal_cli_of_the_settings_wins() -> None:
    assert temporal_cli_path(Settings(TEMPORAL_CLI_PATH="/opt/temporal")) == "/opt/temporal"
    assert Path(temporal_cli_path(Settings(TEMPORAL_CLI_PATH=""))).name == "temporal"
