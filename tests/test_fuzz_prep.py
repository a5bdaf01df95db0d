"""A short fuzz run of the prep stage (``bench/fuzz_prep.py``): mutated JPEG, PNG, WebP, MP4,
MOV and WebM files end kept or refused with a named reason; never a crash, a hang or an
unclassified error. The long run is ``python -m bench.fuzz_prep`` (see the README)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.fuzz_prep import fuzz, main

pytestmark = pytest.mark.render

SHORT_RUN_FILES = 30
SHORT_RUN_BUDGET_S = 120.0


@pytest.mark.timeout(300)
def test_a_short_fuzz_run_of_prep_finds_no_crash_hang_or_unclassified_error(
    tmp_path: Path,
) -> None:
    report = fuzz(files=SHORT_RUN_FILES, budget_s=SHORT_RUN_BUDGET_S, seed=7,
                  keep=tmp_path / "findings", work=tmp_path)
    assert report.tried >= SHORT_RUN_FILES // 3, report.summary()
    assert report.findings == {}, report.summary()
    assert report.count("refused:") > 0, "the mutants reach prep's named reasons"


@pytest.mark.timeout(120)
def test_the_fuzz_command_prints_its_figures_and_exits_zero_when_clean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--files", "3", "--budget-s", "60", "--seed", "1"]) == 0
    assert "files tried 3, crashes 0, hangs 0, unclassified 0" in capsys.readouterr().out
