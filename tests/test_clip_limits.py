"""Whatever prep accepts, every later stage can use (issue 20, items 1 and 4).

Extreme shapes, a clip of one frame and pixel rates no worker can normalize in time are refused
by prep with a named reason; the film is made without them and the outcome says so. The total
clip work of one order is capped so the worst legal order fits the prep stage's timeout.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import activities.prep as prep_activity
from media.analysis.clip_window import best_window
from media.base import errors
from media.base.probe import sniff_container
from media.intake.clip_analysis import (
    MAX_ANALYSIS_HEIGHT_PX,
    analyse_clip,
    decode_samples,
    frame_scores,
)
from media.intake.clip_checks import MAX_PIXEL_RATE_PX_S, probe_clip
from media.intake.clips import (
    MEZZANINE_MAX_S,
    ORDER_CLIP_WORK_MAX_PX,
    WORST_NORMALIZE_PX_PER_S,
    clip_work_px,
)
from tests.helpers import SAMPLE_ORDER as FIXTURE_ORDER
from tests.helpers import prep_with_clips
from tests.media.lavfi import lavfi_clip, x264
from tests.processes import render_fixture_order_with_clips
from workflows.contract import CLIPS_MAX, FilmStage
from workflows.film import left_out_reason
from workflows.stages import STAGE_TIMEOUTS, Rejection

pytestmark = pytest.mark.render

PREP_BOUND_S = 20.0
"""A refused clip costs seconds, never the normalize timeout."""


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The hostile shapes, made once: real H.264 files."""
    folder = tmp_path_factory.mktemp("clips")
    return {
        "strip": lavfi_clip(folder / "strip.mp4", "testsrc2=s=3200x16:r=30:d=1", *x264()),
        "tall": lavfi_clip(folder / "tall.mp4", "testsrc2=s=32x8192:r=30:d=0.5", *x264()),
        "one_frame": lavfi_clip(folder / "one.mp4", "testsrc2=s=320x240:r=30:d=1",
                                *x264("-frames:v", "1")),
        "huge_rate": lavfi_clip(folder / "huge.mp4", "color=c=gray:s=8192x8192:r=240:d=0.02",
                                *x264()),
        "good": lavfi_clip(folder / "good.mp4", "testsrc2=s=320x240:r=30:d=1", *x264()),
    }


@pytest.mark.parametrize(("name", "reason"), [
    ("strip", errors.VIDEO_ASPECT),
    ("tall", errors.VIDEO_ASPECT),
    ("one_frame", errors.VIDEO_TOO_SHORT),
    ("huge_rate", errors.VIDEO_PIXEL_RATE),
])
def test_a_clip_no_later_stage_could_use_is_refused_by_prep_with_its_reason(
    tmp_path: Path, clips: dict[str, Path], name: str, reason: str,
) -> None:
    result, elapsed = prep_with_clips(tmp_path, [clips[name]])
    assert result.rejected == [Rejection(id="c01", reason=reason)]
    assert [p.id for p in result.photos] == ["p01"] and result.clips == []
    assert elapsed < PREP_BOUND_S
    assert left_out_reason(result.rejected) == f"left_out:c01={reason}"


def test_the_clips_of_one_order_past_the_work_budget_are_refused_and_the_rest_kept(
    tmp_path: Path, clips: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
) -> None:
    good = clips["good"]
    one_clip = clip_work_px(probe_clip(good, sniff_container(good)))
    monkeypatch.setattr(prep_activity, "ORDER_CLIP_WORK_MAX_PX", 2 * one_clip)
    result, _ = prep_with_clips(tmp_path, [good, good, good])
    assert [c.id for c in result.clips] == ["c01", "c02"]
    assert result.rejected == [Rejection(id="c03", reason=errors.ORDER_CLIP_WORK)]


def test_the_worst_legal_order_of_clips_fits_the_prep_stage_timeout() -> None:
    one_clip_at_the_cap = MAX_PIXEL_RATE_PX_S * MEZZANINE_MAX_S
    worst_order_px = min(CLIPS_MAX * one_clip_at_the_cap, ORDER_CLIP_WORK_MAX_PX)
    worst_s = worst_order_px / WORST_NORMALIZE_PX_PER_S
    prep_timeout_s = STAGE_TIMEOUTS[FilmStage.PREP].start_to_close.total_seconds()
    assert worst_s <= prep_timeout_s / 2, "half the stage left for 30 photos and the uploads"
    assert one_clip_at_the_cap / WORST_NORMALIZE_PX_PER_S <= prep_activity.CLIP_NORMALIZE_TIMEOUT_S


def test_the_analysis_of_a_shape_prep_refuses_never_makes_a_zero_or_gigabyte_frame(
    tmp_path: Path,
) -> None:
    strip = lavfi_clip(tmp_path / "s.mp4", "testsrc2=s=1920x8:r=30:d=1", *x264())
    column = lavfi_clip(tmp_path / "c.mp4", "testsrc2=s=16x1920:r=30:d=0.4", *x264())
    assert decode_samples(strip, (1920, 8)).shape[1] == 2
    assert decode_samples(column, (16, 1920)).shape[1] == MAX_ANALYSIS_HEIGHT_PX


def test_a_clip_with_no_analysis_sample_gets_an_empty_analysis_and_a_middle_in_point(
    tmp_path: Path,
) -> None:
    empty = lavfi_clip(tmp_path / "e.mp4", "testsrc2=s=320x240:r=30:d=1", *x264(),
                       "-frames:v", "1", "-ss", "0.5")
    analysis = analyse_clip(empty, (320, 240))
    scores = frame_scores(analysis)
    assert analysis.count == len(scores) <= 1
    assert best_window(list(np.asarray(scores)), analysis.step_s, 4.0, 2.0) == 1.0


@pytest.mark.e2e
@pytest.mark.timeout(900)
def test_filmworker_render_makes_the_film_without_a_strip_clip_and_the_outcome_says_so(
    tmp_path: Path, clips: dict[str, Path],
) -> None:
    _, outcome = render_fixture_order_with_clips(
        tmp_path, {"01-strip.mp4": clips["strip"]}, FIXTURE_ORDER)
    assert outcome["state"] == "succeeded"
    assert outcome["reason"] == f"left_out:c01={errors.VIDEO_ASPECT}"
