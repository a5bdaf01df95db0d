"""The Docker image and compose stack, validated without a Docker engine (none runs here):
the compose file parses and wires the services together, the build context leaves out what the
image never copies, and the image installs the package as tests/test_wheel.py does (the wheel
built from the source, installed with the hashed lock) on a base pinned by patch and digest."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.settings import Settings
from tests.helpers import (
    DOCKER,
    REPO,
    context_files,
    dockerfile_stages,
    dockerignore_patterns,
    in_build_context,
    wheel_stage,
)
from workflows.codec import KEY_ID_ENV, KEYS_ENV


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """docker/compose.yaml, parsed."""
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load((DOCKER / "compose.yaml").read_text(encoding="utf-8"))


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
    for name in ("temporal", "codec-server", "worker"):
        build = compose["services"][name]["build"]
        context = (DOCKER / build["context"]).resolve()
        assert context == REPO and (context / build["dockerfile"]).is_file()


def test_every_stage_starts_from_python_slim_pinned_by_patch_version_and_digest() -> None:
    for stage in dockerfile_stages():
        assert re.fullmatch(r"python:3\.11\.\d+-slim(-[a-z]+)?@sha256:[0-9a-f]{64}",
                            stage.base), stage


def test_image_installs_the_built_wheel_with_the_lock_and_its_smoke_check_loads_the_looks(
) -> None:
    *builders, image = dockerfile_stages()
    assert any("pip wheel --no-deps --wheel-dir /wheels ." in run for run in wheel_stage().runs())
    assert wheel_stage() in builders
    runs = image.runs()
    lock = next(i for i, run in enumerate(runs)
                if "pip install --require-hashes -r requirements.lock" in run)
    package = next(i for i, run in enumerate(runs)
                   if re.search(r"pip install --no-deps (--no-cache-dir )?/tmp/wheels/", run))
    assert lock < package
    assert (f"--from={wheel_stage().name}", "/wheels /tmp/wheels") in [
        tuple(args.split(None, 1)) for kind, args in image.instructions if kind == "COPY"]
    # the smoke check runs the installed package (looks, fonts, tools), not just --help
    assert "filmworker check-install" in runs[package].split("&&")[-1]
    assert not any("pip install" in run and " . " in f"{run} " for run in runs), \
        "the image installs the wheel, never the source tree"


def test_image_is_non_root_with_a_healthcheck_and_runs_the_worker() -> None:
    image = dockerfile_stages()[-1]
    users = [args for kind, args in image.instructions if kind == "USER"]
    assert users and users[-1] not in ("root", "0")
    health = next(args for kind, args in image.instructions if kind == "HEALTHCHECK")
    assert '"filmworker", "healthcheck"' in health
    assert ("CMD", '["filmworker", "worker"]') in image.instructions


def test_the_build_context_holds_what_the_image_copies_and_leaves_out_venv_renders_and_git(
) -> None:
    assert not (DOCKER / "Dockerfile.dockerignore").exists(), \
        "one ignore file: BuildKit would take docker/Dockerfile.dockerignore over .dockerignore"
    patterns = dockerignore_patterns()
    for stage in dockerfile_stages():
        for source in stage.copied():
            assert (REPO / source).exists() and in_build_context(source, patterns), source
            assert context_files([source]), f"{source}: nothing of it reaches the build"
    for left_out in (".venv/lib/python3.11/site-packages/x.py", "out/birthday/16x9.mp4",
                     ".git/HEAD", "media/cards/__pycache__/design.cpython-311.pyc",
                     ".pytest_cache/v/cache", ".ruff_cache/x", "filmworker.egg-info/PKG-INFO",
                     "build/lib/worker.py", ".filmworker/storage/x", "tests/test_docker.py",
                     "contract/starter-ts/node_modules/ajv/package.json"):
        assert not in_build_context(left_out, patterns), left_out
    assert in_build_context("media/design/looks/celebration.toml", patterns)


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
    assert product_packages() <= set(wheel_stage().copied())


def test_dependencies_install_from_the_hashed_lock_before_the_package_is_copied() -> None:
    image = dockerfile_stages()[-1]
    instructions = list(image.instructions)
    lock_install = next(i for i, (kind, args) in enumerate(instructions)
                        if kind == "RUN" and "--require-hashes -r requirements.lock" in args)
    assert "--mount=type=cache,target=/root/.cache/pip" in instructions[lock_install][1]
    first_package = next(i for i, (kind, args) in enumerate(instructions)
                         if kind == "COPY" and not args.startswith("requirements.lock"))
    assert lock_install < first_package
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


def test_compose_services_of_the_image_other_than_the_worker_have_their_own_healthcheck(
    compose: dict[str, Any],
) -> None:
    """The image's HEALTHCHECK asks for a worker polling: the server and the codec server would
    show unhealthy for ever with it."""
    services = compose["services"]
    ours = {name for name, service in services.items()
            if service.get("image") == "filmworker:local"}
    assert ours == {"temporal", "codec-server", "worker"}
    assert "healthcheck" not in services["worker"]  # the image's: a worker polls both queues
    assert services["temporal"]["healthcheck"]["test"][1:] == [
        "filmworker", "healthcheck", "--server-only"]
    codec = services["codec-server"]
    port = codec["command"][codec["command"].index("--port") + 1]
    probe = codec["healthcheck"]["test"]
    assert probe[0] == "CMD" and "healthcheck" not in probe
    assert f"'http://127.0.0.1:{port}/health'" in " ".join(probe)
