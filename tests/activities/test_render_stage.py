"""The render stage on the sample order with one render worker (the default): ``render_plan``
then ``render_film`` renders the planned film whole, every planned frame, into films that pass
verify, with no segment files. The split over segments is covered end to end by
tests/test_pipeline.py and, frame by frame, by tests/media/frames/test_segments.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

import activities.render
from activities.assets import run_assets
from activities.context import StageContext
from activities.order_plan import film_plan
from activities.prep import run_prep
from activities.render import run_render_film, run_render_plan
from activities.resume import finished
from activities.verify import load_signal
from app.order_folder import load_order_folder
from media.base.runner import Limits
from media.base.spec import ASPECTS, LANDSCAPE, PORTRAIT
from media.deliver.layout import layout_from_dict
from media.deliver.poster import grab_picture
from media.deliver.verify import verify_film
from media.frames.segments import count_video_frames
from media.plan.spec import FilmSpec
from services.storage.base import Storage
from tests.stages import local_context
from workflows.contract import FilmOrder
from workflows.stages import (
    RenderInput,
    RenderPlan,
    RenderResult,
    StageInput,
    WholeFilmInput,
)

pytestmark = pytest.mark.render

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "order"


def assert_films_pass_verify_with_every_frame(storage: Storage, result: RenderResult,
                                              scratch: Path, plan: RenderPlan) -> None:
    """Fetch both films of ``result``: each passes verify for the planned length, checked
    against the frame signal the render stored with it, and holds exactly the planned frames."""
    scratch.mkdir(parents=True, exist_ok=True)
    for aspect in ASPECTS:
        film = storage.get_file(result.film_keys[aspect.name], scratch / f"{aspect.name}.mp4")
        signal = load_signal(storage, result.signal_keys.get(aspect.name))
        assert signal is not None and signal.frames == plan.total_frames
        report = verify_film(film, aspect=aspect, planned_duration_s=plan.duration_sec,
                             signal=signal)
        assert report.ok, report.problems
        assert report.measurements["keyframes_checked"] >= plan.total_frames // 60
        assert count_video_frames(film, Limits(timeout_s=60)) == plan.total_frames


def _planned(tmp_path: Path) -> tuple[StageContext, RenderInput, RenderPlan]:
    """The sample order through prep, assets and the render plan, in ``tmp_path``."""
    ctx = local_context(tmp_path)
    order = load_order_folder(SAMPLE, ctx.settings)
    prep = run_prep(ctx, order)
    assets = run_assets(ctx, StageInput(order=order, prep=prep))
    render_input = RenderInput(order=order, prep=prep, assets=assets)
    return ctx, render_input, run_render_plan(ctx, render_input)


def test_a_film_planned_as_one_segment_is_rendered_whole_into_films_that_pass_verify(
    tmp_path: Path,
) -> None:
    ctx, render_input, plan = _planned(tmp_path)
    order = render_input.order
    assert plan.render_workers == 1
    # the film's spec is stored beside its timeline, and plans that timeline again
    spec = FilmSpec.from_json(ctx.storage.get_bytes(order.run_keys.film_spec, 4 << 20))
    assert film_plan(spec).to_json().encode() == ctx.storage.get_bytes(plan.timeline_key,
                                                                      4 << 20)

    whole = run_render_film(ctx, WholeFilmInput(render=render_input, plan=plan))
    assert_films_pass_verify_with_every_frame(ctx.storage, whole, tmp_path / "whole", plan)
    assert whole.duration_sec == order.length_sec == plan.duration_sec
    assert whole.timeline_key == plan.timeline_key
    assert ctx.storage.list(order.run_keys.segments_prefix) == []
    assert_films_open_on_their_title_and_have_a_poster_each(ctx.storage, whole, order,
                                                            tmp_path / "open")


def assert_films_open_on_their_title_and_have_a_poster_each(
        storage: Storage, result: RenderResult, order: FilmOrder, scratch: Path) -> None:
    """Frame 0 of each film is the title over the picture (not black), and each aspect has
    its own poster at its own size: ``poster.jpg`` 16:9, ``poster-9x16.jpg`` 9:16, whose layout
    (its words and subject) the result reports for the page."""
    scratch.mkdir(parents=True, exist_ok=True)
    for aspect in ASPECTS:
        film = storage.get_file(result.film_keys[aspect.name], scratch / f"{aspect.name}.mp4")
        first = grab_picture(film, 0.0)
        assert first is not None and first.mean() > 25, f"{aspect.name} opens on black"
    posters = {LANDSCAPE: result.poster_key, PORTRAIT: order.run_keys.portrait_poster}
    for aspect, key in posters.items():
        with Image.open(storage.get_file(key, scratch / f"poster-{aspect.name}.jpg")) as image:
            assert image.format == "JPEG" and image.size == (aspect.width, aspect.height)
        layout = layout_from_dict(result.poster_layouts[aspect.name])
        assert layout.text is not None and layout.subject is not None
        text = layout.text
        assert 0 <= text.x0 < text.x1 <= 1 and 0 <= text.y0 < text.y1 <= 1


def test_a_missing_or_unreadable_frame_signal_leaves_verify_to_decode_the_film(
        tmp_path: Path) -> None:
    storage = local_context(tmp_path).storage
    storage.put_bytes("orders/x/signal.npz", b"not a signal")
    assert load_signal(storage, "orders/x/signal.npz") is None
    assert load_signal(storage, None) is None


def test_a_render_whose_completion_was_lost_returns_its_finished_films_instead_of_rendering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx, render_input, plan = _planned(tmp_path)
    order = render_input.order
    whole = WholeFilmInput(render=render_input, plan=plan)
    first = run_render_film(ctx, whole)
    manifest = json.loads(ctx.storage.get_bytes(order.run_keys.render_manifest, 1 << 20))
    assert set(manifest["files"]) >= {*first.film_keys.values(), first.poster_key,
                                      *first.signal_keys.values()}

    def render_again(*_: object, **__: object) -> None:
        raise AssertionError("rendered again")

    # The same attempt's render runs again (its completion was lost): the films are reused.
    monkeypatch.setattr(activities.render, "render_films", render_again)
    assert run_render_film(ctx, whole) == first

    # Another plan's render, or a film that is not what the manifest says, renders again.
    assert finished(ctx.storage, order.run_keys.render_manifest, "other inputs",
                    RenderResult) is None
    film = ctx.storage.path(first.film_keys[LANDSCAPE.name])
    film.write_bytes(film.read_bytes()[:-1])
    with pytest.raises(AssertionError, match="rendered again"):
        run_render_film(ctx, whole)
