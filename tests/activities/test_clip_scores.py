"""A clip is scored once, by prep where its mezzanine is made; the render's plan reads prep's
scores and analyses a clip itself only for a prep result recorded before prep scored."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.order_plan import clip_sources
from tests.helpers import prep_with_clips
from tests.media.lavfi import lavfi_clip, x264
from workflows.stages import ClipScores, PreparedClip, PrepResult

SCORES = ClipScores(step_s=0.2, scores=(0.1, 0.5, 0.9), hashes=(1, 2, 3, 4, 5, 6))


def test_the_plan_takes_prep_scores_without_opening_the_clip(tmp_path: Path) -> None:
    clip = PreparedClip(id="c01", key="k", duration_sec=0.6, width=320, height=240,
                        has_audio=False, scores=SCORES)
    prep = PrepResult(photos=[], clips=[clip], rejected=[])
    sources, hashes = clip_sources(prep, {"c01": tmp_path / "never-written.mp4"})
    assert sources[0].scores == SCORES.scores and sources[0].score_step_s == SCORES.step_s
    assert hashes == {"c01": SCORES.hashes}


def test_a_prep_result_recorded_before_clips_were_scored_still_loads() -> None:
    recorded = {"photos": [], "rejected": [], "clips": [
        {"id": "c01", "key": "k", "duration_sec": 1.0, "width": 320, "height": 240,
         "has_audio": False}]}
    assert PrepResult.model_validate(recorded).clips[0].scores is None


@pytest.mark.render
def test_prep_scores_a_clip_as_the_plan_would_have(tmp_path: Path) -> None:
    clip = lavfi_clip(tmp_path / "clip.mp4", "testsrc2=s=320x240:r=30:d=2", *x264())
    result, _ = prep_with_clips(tmp_path, [clip])
    scored = result.clips[0].scores
    assert scored is not None and len(scored.scores) >= 5
    unscored = PrepResult(photos=result.photos, rejected=result.rejected,
                          clips=[result.clips[0].model_copy(update={"scores": None})])
    mezzanine = tmp_path / "storage" / result.clips[0].key
    sources, hashes = clip_sources(unscored, {"c01": mezzanine})
    assert sources[0].scores == scored.scores and sources[0].score_step_s == scored.step_s
    assert hashes["c01"] == scored.hashes
