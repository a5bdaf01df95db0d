"""The benchmark's headline (bench.pipeline_bench): strict floor ratios per alternating pair,
their mean against issue 22's targets, and what was not measured."""

from __future__ import annotations

from typing import Any

from bench.pipeline_bench import (
    END_TO_END_TARGET,
    RENDER_TARGET,
    Results,
    headline_report,
    round_rows,
)


def _pair(number: int, render: tuple[float, float], total: tuple[float, float],
          floor: tuple[float, float]) -> dict[str, Any]:
    """One round: render stage and all stages (wall, cpu seconds) and the floor's."""
    return {"round": number,
            "case": {"stages": {"render": {"wall_s": render[0], "cpu_s": render[1]}},
                     "stages_wall_s": total[0], "stages_cpu_s": total[1],
                     "peak_tree_pss_mib": 900.0},
            "floor": {"measured": {"wall_s": floor[0], "cpu_s": floor[1]}}}


def test_each_round_is_divided_by_its_own_floor() -> None:
    results = Results(rounds={"30s-standard": [_pair(1, (30.0, 60.0), (40.0, 80.0), (20.0, 40.0)),
                                               _pair(2, (33.0, 66.0), (44.0, 88.0), (30.0, 44.0))]})
    rows = round_rows(results)
    assert [r["render_over_floor"] for r in rows] == [30.0 / 20.0, 33.0 / 30.0]
    assert [r["render_over_floor_cpu"] for r in rows] == [60.0 / 40.0, 66.0 / 44.0]
    assert [r["end_to_end_over_floor"] for r in rows] == [40.0 / 20.0, 44.0 / 30.0]


def test_headline_gives_the_mean_against_the_targets_and_says_what_was_missed() -> None:
    results = Results(rounds={"30s-standard": [
        _pair(1, (RENDER_TARGET * 10, 1.0), (END_TO_END_TARGET * 20, 1.0), (10.0, 1.0)),
        _pair(2, (RENDER_TARGET * 30, 1.0), (END_TO_END_TARGET * 10, 1.0), (10.0, 1.0))]},
        skipped={"exact floor 180s-standard": "raw yuv420p frames need 34.0 GB"})
    text = headline_report(results)
    mean_render = (RENDER_TARGET + 3 * RENDER_TARGET) / 2
    assert f"render stage/floor {mean_render:.2f} (misses <= {RENDER_TARGET})" in text
    mean_e2e = (2 * END_TO_END_TARGET + END_TO_END_TARGET) / 2
    assert f"end to end/floor {mean_e2e:.2f} (misses <= {END_TO_END_TARGET})" in text
    assert "not measured: exact floor 180s-standard: raw yuv420p frames need 34.0 GB" in text


def test_a_round_without_its_floor_is_shown_as_such() -> None:
    pair = _pair(1, (30.0, 60.0), (40.0, 80.0), (20.0, 40.0))
    pair["floor"] = None
    rows = round_rows(Results(rounds={"180s-standard": [pair]}))
    assert rows == [{"case": "180s-standard", "round": 1, "error": "exact floor skipped"}]
