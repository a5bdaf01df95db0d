"""The package as users get it: the wheel built from what the Docker build copies, holding every
file the product reads beside its code (fonts, looks, the word list, the sample orders), and,
installed with the hashed lock into a fresh venv outside the source tree, rendering the sample
(``wheel`` marker: ``make test-wheel``, minutes)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from tests.helpers import REPO, context_files, wheel_stage

PRODUCT_FOLDERS = ("workflows", "activities", "services", "app", "media", "samples")
"""Every folder of the source tree the package is made of (``worker.py`` beside them)."""
CODE_SUFFIXES = (".py", ".pyc")


def copy_wheel_context(destination: Path) -> Path:
    """What the Dockerfile's wheel stage copies from the build context, in ``destination``."""
    for relative in context_files(wheel_stage().copied()):
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / relative, target)
    return destination


def build_wheel(source: Path, out_dir: Path) -> Path:
    """``pip wheel --no-deps`` of ``source``, as the image builds it; the wheel's path."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                           "--wheel-dir", str(out_dir), str(source)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    [wheel] = out_dir.glob("filmworker-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's wheel, built from a copy of the Docker build context (no stale build/)."""
    root = tmp_path_factory.mktemp("wheel")
    return build_wheel(copy_wheel_context(root / "src"), root / "dist")


def data_files() -> list[str]:
    """Every file of the product folders that is not code: what the product reads at run time
    beside its modules (any new one must ship: pyproject's package-data)."""
    return [relative for relative in context_files(list(PRODUCT_FOLDERS))
            if not relative.endswith(CODE_SUFFIXES)]


def test_the_wheel_holds_every_data_file_of_the_product_folders(wheel: Path) -> None:
    shipped = set(zipfile.ZipFile(wheel).namelist())
    data = data_files()
    assert {"media/design/looks/celebration.toml", "services/assets/blocked_words.txt",
            "media/cards/assets/fonts/NotoSans-Bold.ttf",
            "samples/birthday/order.json"} <= set(data)
    missing = [relative for relative in data if relative not in shipped]
    assert missing == [], "not in the wheel (pyproject.toml's package-data): " + ", ".join(
        missing)
    assert not [name for name in shipped if name.startswith(("tests/", "bench/"))]


def _venv_env(venv: Path) -> dict[str, str]:
    """The environment of a command run from ``venv``, with nothing pointing at the source."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return {**env, "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            "VIRTUAL_ENV": str(venv)}


def _run(argv: list[str], *, cwd: Path, env: dict[str, str],
         timeout_s: float) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout_s, check=False)
    assert done.returncode == 0, f"{argv}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.wheel
@pytest.mark.timeout(2400)
def test_the_wheel_installed_with_the_lock_renders_the_sample_outside_the_source_tree(
    wheel: Path, tmp_path: Path,
) -> None:
    started = time.monotonic()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python, env = str(venv / "bin" / "python"), _venv_env(venv)
    _run([python, "-m", "pip", "install", "--quiet", "--require-hashes", "-r",
          str(REPO / "requirements.lock")], cwd=tmp_path, env=env, timeout_s=1200)
    _run([python, "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], cwd=tmp_path,
         env=env, timeout_s=300)
    installed = time.monotonic()
    where = _run([python, "-c", "import media.design.looks, app; print(app.__file__)"],
                 cwd=tmp_path, env=env, timeout_s=120).stdout.strip()
    assert Path(where).is_relative_to(venv), where
    _run([str(venv / "bin" / "filmworker"), "check-install"], cwd=tmp_path, env=env,
         timeout_s=120)
    order = shutil.copytree(REPO / "samples" / "birthday", tmp_path / "birthday")
    _run([str(venv / "bin" / "filmworker"), "render", str(order), "--no-ui", "--out",
          str(tmp_path / "out")], cwd=tmp_path, env=env, timeout_s=1800)
    outcome = json.loads((tmp_path / "out" / "outcome.json").read_text(encoding="utf-8"))
    assert outcome["state"] == "succeeded", outcome
    assert (tmp_path / "out" / "16x9.mp4").stat().st_size > 0
    assert (tmp_path / "out" / "9x16.mp4").stat().st_size > 0
    print(f"venv and install {installed - started:.0f} s, render "
          f"{time.monotonic() - installed:.0f} s")
