"""The Docker image and compose stack, validated without a Docker engine (none runs here):
the compose file parses and wires the services together, and the image installs the package
with the same pyproject install CI runs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from services.settings import Settings
from workflows.codec import KEY_ID_ENV, KEYS_ENV

REPO = Path(__file__).resolve().parent.parent
DOCKER = REPO / "docker"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """docker/compose.yaml, parsed."""
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load((DOCKER / "compose.yaml").read_text(encoding="utf-8"))


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of docker/Dockerfile, continuation lines joined."""
    text = (DOCKER / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines
            if line and not line.startswith("#")]


def test_compose_starts_temporal_with_ui_minio_with_its_bucket_and_the_worker(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    assert set(services) == {"temporal", "minio", "minio-init", "codec-server", "worker"}
    temporal = services["temporal"]
    assert temporal["command"][:2] == ["filmworker", "server"] and "--ui-port" in temporal[
        "command"]
    assert {"7233:7233", "8233:8233"} <= set(temporal["ports"])
    init = " ".join(services["minio-init"]["command"])
    assert "mc mb --ignore-existing stack/films" in init
    worker = services["worker"]
    assert worker["depends_on"] == {"temporal": {"condition": "service_healthy"},
                                    "minio-init": {"condition": "service_completed_successfully"}}
    env = worker["environment"]
    assert env["TEMPORAL_ADDRESS"] == "temporal:7233"
    assert env["FILM_STORAGE_URL"].startswith("s3://films/")
    assert env["AWS_ENDPOINT_URL"] == "http://minio:9000"
    assert env["AWS_SECRET_ACCESS_KEY"] == services["minio"]["environment"]["MINIO_ROOT_PASSWORD"]


def test_compose_ui_decodes_through_a_codec_server_with_the_workers_keys_from_the_environment(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    command = services["temporal"]["command"]
    endpoint = command[command.index("--codec-endpoint") + 1]
    codec = services["codec-server"]
    assert codec["command"][:2] == ["filmworker", "codec-server"]
    port = codec["command"][codec["command"].index("--port") + 1]
    assert endpoint == f"http://localhost:{port}" and f"{port}:{port}" in codec["ports"]
    ui_port = command[command.index("--ui-port") + 1]
    assert codec["environment"]["FILM_CODEC_CORS_ORIGINS"] == f"http://localhost:{ui_port}"
    for name in ("codec-server", "worker"):  # the same keys, from the environment only
        keys = services[name]["environment"][KEYS_ENV]
        assert keys.startswith("${FILM_PAYLOAD_KEYS:?"), name


def test_compose_worker_settings_are_ones_the_worker_reads(compose: dict[str, Any]) -> None:
    env = {k: str(v) for k, v in compose["services"]["worker"]["environment"].items()}
    known = {field.alias for field in Settings.model_fields.values()} | {KEYS_ENV, KEY_ID_ENV}
    assert {k for k in env if not k.startswith("AWS_")} <= known
    settings = Settings(**env)
    assert settings.temporal_address == "temporal:7233" and settings.media_concurrency == 1
    assert settings.metrics_bind == "0.0.0.0:9464"


def test_compose_builds_the_image_from_the_repository_root(compose: dict[str, Any]) -> None:
    for name in ("temporal", "worker"):
        build = compose["services"][name]["build"]
        context = (DOCKER / build["context"]).resolve()
        assert context == REPO and (context / build["dockerfile"]).is_file()


def test_image_is_slim_non_root_with_a_healthcheck_and_installs_like_ci() -> None:
    instructions = dockerfile_instructions()
    assert instructions[0] == ("FROM", "python:3.11-slim")
    runs = [args for kind, args in instructions if kind == "RUN"]
    assert any(re.search(r"\bpip install --no-deps (--no-cache-dir )?\.(\s|$)", run)
               for run in runs)
    users = [args for kind, args in instructions if kind == "USER"]
    assert users and users[-1] not in ("root", "0")
    health = next(args for kind, args in instructions if kind == "HEALTHCHECK")
    assert '"filmworker", "healthcheck"' in health
    assert ("CMD", '["filmworker", "worker"]') in instructions
    for kind, args in instructions:
        if kind == "COPY":
            for source in args.split()[:-1]:
                assert (REPO / source).exists(), source


def product_packages() -> set[str]:
    """The repository's top-level Python packages the product is made of (not tests, bench)."""
    return {init.parent.name for init in REPO.glob("*/__init__.py")} - {"tests", "bench"}


def test_the_package_the_image_installs_holds_every_module_the_worker_imports() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = project["tool"]["setuptools"]
    assert setuptools["py-modules"] == ["worker"]
    packages = {pattern.rstrip("*") for pattern in setuptools["packages"]["find"]["include"]}
    assert product_packages() == {"workflows", "activities", "services", "app", "media"}
    assert product_packages() <= packages
    assert project["project"]["scripts"]["filmworker"] == "worker:main"
    copied = {args.split()[0] for kind, args in dockerfile_instructions() if kind == "COPY"}
    assert product_packages() <= copied


def test_dependencies_install_from_the_hashed_lock_before_the_source_is_copied() -> None:
    instructions = dockerfile_instructions()
    lock_install = next(i for i, (kind, args) in enumerate(instructions)
                        if kind == "RUN" and "--require-hashes -r requirements.lock" in args)
    assert "--mount=type=cache,target=/root/.cache/pip" in instructions[lock_install][1]
    first_source = next(i for i, (kind, args) in enumerate(instructions)
                        if kind == "COPY" and not args.startswith("requirements.lock"))
    assert lock_install < first_source
    lock = (REPO / "requirements.lock").read_text(encoding="utf-8")
    assert "--hash=sha256:" in lock and "temporalio==" in lock and "pytest" not in lock


def test_compose_runs_an_init_process_above_the_worker(compose: dict[str, Any]) -> None:
    assert compose["services"]["worker"]["init"] is True
    assert compose["services"]["temporal"]["init"] is True


def test_the_locks_pin_every_dependency_of_pyproject_with_hashes() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    pins = {name: dict(re.findall(r"^([A-Za-z0-9_.\-\[\]]+)==(\S+) \\$",
                                  (REPO / name).read_text(encoding="utf-8"), re.MULTILINE))
            for name in ("requirements.lock", "requirements-test.lock")}
    declared = [*project["project"]["dependencies"],
                *project["project"]["optional-dependencies"]["otel"]]
    for requirement in declared:
        package, version = requirement.split("==")
        package = package.split("[")[0].lower()
        for lock, pinned in pins.items():
            assert pinned.get(package) == version, f"{lock}: {package} is not {version}: " \
                "run `make lock`"
    for requirement in project["project"]["optional-dependencies"]["test"]:
        if "==" in requirement:
            package, version = requirement.split("==")
            package = package.split("[")[0].lower()
            assert pins["requirements-test.lock"].get(package) == version, package
