"""The one-activity render (activities.render.run_render) that runs started before the render
was split into segments still finish with (the split render is covered end to end by
tests/test_pipeline.py and, frame by frame, by tests/media/test_segments.py)."""

from __future__ import annotations

from pathlib import Path

from activities.assets import run_assets
from activities.prep import run_prep
from activities.render import run_render
from activities.storage import Storage
from media.spec import ASPECTS
from media.verify import verify_film
from tests.stages import local_context
from worker import load_order_folder
from workflows.stages import RenderInput, RenderResult, StageInput

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "birthday"


def _verified(storage: Storage, result: RenderResult, scratch: Path, length_s: float) -> None:
    scratch.mkdir(parents=True, exist_ok=True)
    for aspect in ASPECTS:
        film = storage.get_file(result.film_keys[aspect.name], scratch / f"{aspect.name}.mp4")
        report = verify_film(film, aspect=aspect, planned_duration_s=length_s)
        assert report.ok, report.problems


def test_legacy_render_activity_still_delivers_films_that_pass_verify(tmp_path: Path) -> None:
    ctx = local_context(tmp_path)
    order = load_order_folder(SAMPLE, ctx.settings)
    prep = run_prep(ctx, order)
    assets = run_assets(ctx, StageInput(order=order, prep=prep))
    legacy = run_render(ctx, RenderInput(order=order, prep=prep, assets=assets))
    _verified(ctx.storage, legacy, tmp_path / "legacy", order.length_sec)
    assert legacy.duration_sec == order.length_sec
