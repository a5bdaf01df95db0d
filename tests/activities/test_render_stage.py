"""The one-activity render (activities.render.run_render) that runs started before the render
was split into segments still finish with, and the planned film rendered whole (``render_plan``
then ``render_film``, the default with one render worker). The split render is covered end to
end by tests/test_pipeline.py and, frame by frame, by tests/media/test_segments.py."""

from __future__ import annotations

from pathlib import Path

from activities.assets import run_assets
from activities.prep import run_prep
from activities.render import run_render, run_render_film, run_render_plan
from activities.storage import Storage
from media.runner import Limits, ffmpeg_argv, run_tool
from media.spec import ASPECTS
from media.verify import verify_film
from tests.stages import local_context
from worker import load_order_folder
from workflows.stages import RenderInput, RenderResult, StageInput, WholeFilmInput

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "order"


def _verified(storage: Storage, result: RenderResult, scratch: Path,
              length_s: float) -> dict[str, str]:
    """Fetch and verify both films of ``result``; the hash of each film's streams by aspect."""
    scratch.mkdir(parents=True, exist_ok=True)
    hashes = {}
    for aspect in ASPECTS:
        film = storage.get_file(result.film_keys[aspect.name], scratch / f"{aspect.name}.mp4")
        report = verify_film(film, aspect=aspect, planned_duration_s=length_s)
        assert report.ok, report.problems
        hashes[aspect.name] = run_tool(ffmpeg_argv(
            "-i", str(film), "-map", "0", "-c", "copy", "-f", "streamhash", "-hash", "sha256",
            "-"), Limits(timeout_s=60)).stdout.decode()
    return hashes


def test_legacy_render_and_the_film_rendered_whole_make_the_same_films_that_pass_verify(
    tmp_path: Path,
) -> None:
    ctx = local_context(tmp_path)
    order = load_order_folder(SAMPLE, ctx.settings)
    prep = run_prep(ctx, order)
    assets = run_assets(ctx, StageInput(order=order, prep=prep))
    render_input = RenderInput(order=order, prep=prep, assets=assets)
    legacy = run_render(ctx, render_input)
    legacy_streams = _verified(ctx.storage, legacy, tmp_path / "legacy", order.length_sec)
    assert legacy.duration_sec == order.length_sec

    plan = run_render_plan(ctx, render_input)
    whole = run_render_film(ctx, WholeFilmInput(render=render_input, plan=plan))
    assert _verified(ctx.storage, whole, tmp_path / "whole", order.length_sec) == legacy_streams
    assert whole.duration_sec == order.length_sec
    assert whole.timeline_key == plan.timeline_key
    assert ctx.storage.list(f"{order.run_prefix}/render/segments/") == []
