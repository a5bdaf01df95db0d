"""A run's progress as the ``progress`` query answers it: state, stage and percents that only
move forward (deterministic: no I/O, the time is given by the workflow)."""

from __future__ import annotations

from datetime import datetime

from workflows.contract import FilmStage, FilmState, Progress, StageProgress
from workflows.stages import ActivityName

# Percent of the whole run done when each stage starts (render dominates the wall time).
STAGE_START_PERCENT: dict[FilmStage, int] = {
    FilmStage.PREP: 0,
    FilmStage.GATE: 10,
    FilmStage.ASSETS: 12,
    FilmStage.RENDER: 30,
    FilmStage.VERIFY: 85,
    FilmStage.DELIVER: 92,
}
RUNNING_PERCENT_CAP = 99  # 100 means delivered

# Share of its stage each activity covers (percent of the stage; others: the whole stage).
ACTIVITY_SPAN: dict[str, tuple[int, int]] = {
    ActivityName.RENDER_PLAN: (0, 10),
    ActivityName.RENDER_FILM: (10, 100),
    ActivityName.RENDER_SEGMENT: (10, 95),
    ActivityName.RENDER_JOIN: (95, 100),
}


def stage_span(stage: FilmStage) -> tuple[int, int]:
    """Percent of the whole run at the start and at the end of ``stage``."""
    stages = list(STAGE_START_PERCENT)
    later = stages[stages.index(stage) + 1:]
    return STAGE_START_PERCENT[stage], (STAGE_START_PERCENT[later[0]] if later else 100)


class RunProgress:
    """The run's state, stage and percents. The workflow moves it on stage changes
    (:meth:`enter`), when an activity starts counting (:meth:`count`) and on every report of
    the counting activity (:meth:`report`)."""

    def __init__(self, now: datetime) -> None:
        self.state = FilmState.RUNNING
        self.stage = FilmStage.PREP
        self.percent = 0
        self.stage_percent = 0
        self.updated_at = now
        # The activity whose progress counts now, how many run at once, their percents.
        self._counting: str | None = None
        self._counted_parts = 1
        self._part_percent: dict[str, int] = {}

    def snapshot(self) -> Progress:
        """The query's answer."""
        return Progress(state=self.state, stage=self.stage, percent=self.percent,
                        stage_percent=self.stage_percent, updated_at=self.updated_at)

    def enter(self, state: FilmState, stage: FilmStage, percent: int, now: datetime) -> None:
        """Set state, stage and run percent (a new stage starts at 0 % of itself; a succeeded
        run is 100 % of its stage)."""
        if stage is not self.stage:
            self.stage_percent = 0
        if state is FilmState.SUCCEEDED:
            self.stage_percent = 100
        self.state, self.stage, self.percent = state, stage, percent
        self.updated_at = now

    def count(self, name: str, now: datetime, parts: int = 1) -> None:
        """From now on, progress reports of activity ``name`` (``parts`` at once) count."""
        if self._counting != name:
            self._counting, self._counted_parts, self._part_percent = name, parts, {}
        self._advance(ACTIVITY_SPAN.get(name, (0, 100))[0], now)

    def report(self, report: StageProgress, now: datetime) -> None:
        """A stage activity's percent: moves the stage and run percents, never backwards.
        Late reports of an activity that no longer counts are ignored."""
        if report.activity != self._counting or self.state is not FilmState.RUNNING:
            return
        self._part_percent[report.part] = max(report.percent,
                                              self._part_percent.get(report.part, 0))
        low, high = ACTIVITY_SPAN.get(report.activity, (0, 100))
        done = sum(self._part_percent.values()) / self._counted_parts
        self._advance(round(low + (high - low) * done / 100), now)

    def _advance(self, stage_percent: int, now: datetime) -> None:
        """Move the stage's percent (and the run's, inside the stage's share) forward only."""
        stage_percent = min(100, stage_percent)
        run_low, run_high = stage_span(self.stage)
        run_percent = min(RUNNING_PERCENT_CAP,
                          round(run_low + (run_high - run_low) * stage_percent / 100))
        if stage_percent > self.stage_percent or run_percent > self.percent:
            self.stage_percent = max(self.stage_percent, stage_percent)
            self.percent = max(self.percent, run_percent)
            self.updated_at = now
