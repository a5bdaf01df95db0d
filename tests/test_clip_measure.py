"""A clip is measured by the video frames that decode and their timestamps, not by what its
headers or its audio say (issue 31, cases 1, 5 and 8).

- A 2 s video with 100 s of audio passed prep as a 100 s clip and failed the render three times
  (``render_failed:ToolError``, refunded, blamed on us): now it is a 2 s clip and the film is made.
- A WebM without a Duration element (a browser's MediaRecorder) was left out as
  ``video_undecodable``, an MKV whose timestamps start at 10000 s as ``video_too_long``: both are
  now kept at their length.
- A 240 fps Matroska clip whose header claims 60 fps passed the pixel-rate cap and cost 4x its
  share of the clip budget: now its frames are counted and it is left out
  (``video_pixel_rate_too_high``) for a fraction of a CPU second, the film made without it.
"""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from media.base import errors
from media.base.probe import ffprobe_json
from tests.helpers import SAMPLE_ORDER as FIXTURE_ORDER
from tests.helpers import prep_with_clips
from tests.media.lavfi import (
    audio_outlasting_video,
    matroska_header_lie,
    mkv_starting_at,
    webm_without_duration,
)
from tests.processes import render_fixture_order_with_clips
from workflows.film import left_out_reason
from workflows.stages import Rejection

pytestmark = pytest.mark.render

LYING_CLIP_CPU_S = 2.0
"""CPU seconds (all children) prep may spend refusing the lying clip: its normalize cost 6.6
before, for a 2 s 4K clip at 240 fps claiming 60 fps and 1 s (3.3 CPU-s per source second)."""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The clips of cases 1 and 8, made once with the real ffmpeg."""
    folder = tmp_path_factory.mktemp("recorded")
    return {
        "audio_outlasts_video": audio_outlasting_video(folder / "long-audio.mp4", 2.0, 100.0),
        "webm_without_duration": webm_without_duration(folder / "recorder.webm", 3.0),
        "mkv_starting_at_10000_s": mkv_starting_at(folder / "late.mkv", 10_000.0, 3.0),
    }


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_clips_whose_audio_or_headers_mislead_are_kept_at_their_video_length(
    tmp_path: Path, recorded: dict[str, Path],
) -> None:
    assert float(ffprobe_json(recorded["audio_outlasts_video"])["format"]["duration"]) > 99
    assert "duration" not in ffprobe_json(recorded["webm_without_duration"])["format"]

    result, _ = prep_with_clips(tmp_path, list(recorded.values()))

    assert result.rejected == []
    assert [(c.id, round(c.duration_sec, 2), c.has_audio) for c in result.clips] == [
        ("c01", 2.0, True), ("c02", 3.0, True), ("c03", 3.0, False)]


def test_a_clip_whose_header_hides_its_frame_rate_is_left_out_for_a_fraction_of_a_cpu_second(
    tmp_path: Path,
) -> None:
    liar = matroska_header_lie(tmp_path / "liar.mkv", size="2560x1440", fps=240, seconds=1.0,
                               claimed_fps=60, claimed_s=0.25)

    before = children_cpu_s()
    result, _ = prep_with_clips(tmp_path, [liar])
    spent = children_cpu_s() - before

    assert result.rejected == [Rejection(id="c01", reason=errors.VIDEO_PIXEL_RATE)]
    assert result.clips == [] and [p.id for p in result.photos] == ["p01"]
    assert left_out_reason(result.rejected) == f"left_out:c01={errors.VIDEO_PIXEL_RATE}"
    assert spent < LYING_CLIP_CPU_S, spent


@pytest.mark.e2e
@pytest.mark.timeout(900)
def test_filmworker_render_makes_the_film_with_the_clips_people_really_record(
    tmp_path: Path, recorded: dict[str, Path],
) -> None:
    _, outcome = render_fixture_order_with_clips(tmp_path, {
        "01-long-audio.mp4": recorded["audio_outlasts_video"],
        "02-recorder.webm": recorded["webm_without_duration"],
        "03-late.webm": recorded["mkv_starting_at_10000_s"]}, FIXTURE_ORDER)
    assert outcome["state"] == "succeeded"
    assert outcome.get("reason") is None  # no clip left out
    assert abs(outcome["duration_sec"] - 30) <= 0.5
