"""``filmworker check-install``, the image's smoke check: it passes on this installation and
names what is missing from one that cannot render."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.install_check import install_report
from tests.processes import filmworker


def test_check_install_passes_where_every_look_font_and_tool_is_found() -> None:
    done = filmworker("check-install")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("installation can render: 3 looks x 3 styles")


def test_a_package_without_its_looks_or_samples_cannot_pass(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("media.design.looks.look_names", lambda: ())
    monkeypatch.setattr("app.samples.SAMPLES_ROOT", Path("/nonexistent"))
    found, problems = install_report()
    assert [problem.split(":")[0] for problem in problems] == ["looks", "samples"]
    assert "no look in" in problems[0] and "fonts" in " ".join(found)


def test_an_installation_without_fribidi_cannot_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("PIL.features.check_feature", lambda feature: feature != "fribidi")
    _, problems = install_report()
    assert [problem.split(":")[0] for problem in problems] == ["right-to-left"]
    assert "libfribidi0" in problems[0]
