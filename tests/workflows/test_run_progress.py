"""The run's progress arithmetic (workflows.progress), without a server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

from workflows.contract import FilmStage, FilmState, StageProgress
from workflows.progress import STAGE_START_PERCENT, RunProgress, stage_span
from workflows.stages import ActivityName

T0 = datetime(2026, 11, 26, tzinfo=UTC)


def test_stage_spans_tile_the_run_from_0_to_100() -> None:
    spans = [stage_span(stage) for stage in STAGE_START_PERCENT]
    assert spans[0][0] == 0 and spans[-1][1] == 100
    assert all(a[1] == b[0] for a, b in pairwise(spans))


def test_parallel_segments_add_up_and_never_move_backwards() -> None:
    progress = RunProgress(T0)
    progress.enter(FilmState.RUNNING, FilmStage.RENDER, STAGE_START_PERCENT[FilmStage.RENDER], T0)
    progress.count(ActivityName.RENDER_SEGMENT, T0, parts=2)
    seen = []
    for part, percent in [("a", 50), ("b", 50), ("a", 40), ("b", 100), ("a", 100)]:
        progress.report(StageProgress(activity=ActivityName.RENDER_SEGMENT, part=part,
                                      percent=percent), T0 + timedelta(seconds=len(seen)))
        seen.append((progress.percent, progress.stage_percent))
    assert seen == sorted(seen)
    assert progress.stage_percent == 95  # segments cover 10-95 % of the render stage
    assert progress.percent < 100


def test_a_late_report_of_an_activity_that_no_longer_counts_is_ignored() -> None:
    progress = RunProgress(T0)
    progress.count(ActivityName.PREP, T0)
    progress.count(ActivityName.GATE, T0)
    before = progress.snapshot()
    progress.report(StageProgress(activity=ActivityName.PREP, part="x", percent=90), T0)
    assert progress.snapshot() == before


def test_a_succeeded_run_is_at_100_percent_of_its_stage() -> None:
    progress = RunProgress(T0)
    progress.enter(FilmState.SUCCEEDED, FilmStage.DELIVER, 100, T0)
    assert (progress.percent, progress.stage_percent) == (100, 100)
