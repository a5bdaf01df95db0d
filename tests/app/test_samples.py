"""The samples catalog: samples.json in the order API's GET /v1/samples shape, no rendering."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.samples import (
    BUILT_IN,
    CAPTION,
    NUMBER_WORDS,
    SAMPLES_ROOT,
    DemoOccasion,
    RenderedDemo,
    build_catalog,
    describe,
    photo_count,
    render_demos,
    samples_command,
)
from services.settings import Settings
from workflows.contract import FilmOutcome, FilmStage, FilmState

SAMPLE_KEYS = {"video_url", "poster_url", "description", "occasion_slug", "duration_sec", "note"}
REQUIRED_KEYS = {"video_url", "poster_url", "description"}


def assert_spec_shape(catalog: dict[str, Any]) -> None:
    """Exactly ``{caption: str, samples: Sample[]}`` with the spec's Sample fields and types."""
    assert set(catalog) == {"caption", "samples"} and isinstance(catalog["caption"], str)
    for sample in catalog["samples"]:
        assert REQUIRED_KEYS <= set(sample) <= SAMPLE_KEYS
        assert all(isinstance(sample[key], str) for key in set(sample) - {"duration_sec"})
        assert isinstance(sample.get("duration_sec", 0.0), int | float)
        assert sample["video_url"].startswith("https://")
        assert sample["poster_url"].startswith("https://")


def test_catalog_has_the_spec_shape_with_absolute_urls_and_honest_wording() -> None:
    rendered = [RenderedDemo(demo, 30.016) for demo in BUILT_IN]
    catalog = build_catalog(rendered, "https://cdn.example.test/samples/")
    assert_spec_shape(catalog)
    birthday = catalog["samples"][0]
    assert birthday == {
        "video_url": "https://cdn.example.test/samples/birthday/16x9.mp4",
        "poster_url": "https://cdn.example.test/samples/birthday/poster.jpg",
        "description": "Birthday demo: a 30-second film for Mads's fortieth from his friends, "
                       "made from seven photos, most of them of him across the years, and a "
                       "short clip, set to an original upbeat song. Photos: Jesper K. Pedersen "
                       "(GPL-2+); Aitzol Berasategi (CC-BY-4.0).",
        "occasion_slug": "birthday",
        "duration_sec": 30.02,
        "note": "This demo skips paid-provider steps: the song was composed by our local "
                "composer and the photo motion was made by our local motion engine.",
    }
    assert [s["occasion_slug"] for s in catalog["samples"]] == [
        "birthday", "anniversary", "pet-tribute"]
    assert "demo" in CAPTION and "None of them is a customer's film" in CAPTION


@pytest.mark.parametrize("demo", BUILT_IN, ids=[d.occasion_slug for d in BUILT_IN])
def test_each_description_counts_its_photos_and_credits_every_author(demo: DemoOccasion) -> None:
    folder = SAMPLES_ROOT / demo.folder
    text = describe(demo, 30.0)
    assert f"from {NUMBER_WORDS[photo_count(folder)]} photos" in text
    for author in re.findall(r"^\|\s*photos/[^|]+\|[^|]*\|[^|]*\|\s*([^|,;]+)",
                             (folder / "SOURCES.md").read_text("utf-8"), re.MULTILINE):
        assert author.strip() in text


def test_a_demo_without_local_steps_has_no_note() -> None:
    demo = DemoOccasion("birthday", "birthday", "A {seconds}-second demo.", local_steps=())
    [sample] = build_catalog([RenderedDemo(demo, 45.0)], "https://cdn.example.test")["samples"]
    assert "note" not in sample and sample["description"].startswith("A 45-second demo.")


@pytest.mark.parametrize("demo", BUILT_IN, ids=[d.occasion_slug for d in BUILT_IN])
def test_demo_folders_are_valid_orders_with_their_own_credited_photos(
        demo: DemoOccasion, tmp_path: Path) -> None:
    from PIL import Image

    from app.order_folder import load_order_folder

    folder = SAMPLES_ROOT / demo.folder
    settings = Settings(FILM_STORAGE_URL=f"file://{tmp_path}", FILM_ORDER_API_URL=None)
    order = load_order_folder(folder, settings)
    assert order.occasion.slug == demo.occasion_slug
    photos = sorted((folder / "photos").iterdir())
    assert not (folder / "photos").is_symlink() and len(order.photos) == len(photos) >= 5
    sources = (folder / "SOURCES.md").read_text(encoding="utf-8")
    assert all(f"photos/{photo.name}" in sources for photo in photos)
    assert max(max(Image.open(photo).size) for photo in photos) >= 3000  # phone resolution
    assert order.subject_photo_id is not None
    assert order.occasion.gentle is (demo.occasion_slug == "pet-tribute")


def test_samples_command_writes_the_catalog_of_the_demos_that_rendered(tmp_path: Path) -> None:
    calls: list[tuple[Path, Path]] = []

    async def fake_render(folder: Path, out_dir: Path, *, ui: bool,
                          quiet: bool = False) -> FilmOutcome:
        calls.append((folder, out_dir))
        failed = out_dir.name == "anniversary"
        return FilmOutcome(workflow_id="film-x-1", attempt=1, charge_id="c",
                           state=FilmState.FAILED if failed else FilmState.SUCCEEDED,
                           stage=FilmStage.DELIVER, reason="render_failed" if failed else None,
                           duration_sec=None if failed else 30.0)

    args = argparse.Namespace(out_dir=tmp_path / "out", base_url="https://cdn.example.test/s",
                              no_ui=True, json=False)
    assert samples_command(args, fake_render) == 1
    assert [out.name for _, out in calls] == ["birthday", "anniversary", "pet-tribute"]
    catalog = json.loads((tmp_path / "out" / "samples.json").read_text(encoding="utf-8"))
    assert_spec_shape(catalog)
    assert [s["occasion_slug"] for s in catalog["samples"]] == ["birthday", "pet-tribute"]


async def test_render_demos_reports_each_failure_with_its_reason(tmp_path: Path) -> None:
    async def failing(folder: Path, out_dir: Path, *, ui: bool) -> FilmOutcome:
        return FilmOutcome(workflow_id="w", attempt=1, charge_id="c", state=FilmState.HELD,
                           stage=FilmStage.GATE, reason="text_policy")

    rendered, failures = await render_demos(failing, tmp_path, demos=BUILT_IN[:1])
    assert rendered == [] and failures == ["birthday: held (text_policy)"]


def test_samples_json_prints_one_document_and_no_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    quiet_flags: list[bool] = []

    async def fake_render(folder: Path, out_dir: Path, *, ui: bool,
                          quiet: bool = False) -> FilmOutcome:
        quiet_flags.append(quiet)
        return FilmOutcome(workflow_id="w", attempt=1, charge_id="c", state=FilmState.SUCCEEDED,
                           stage=FilmStage.DELIVER, duration_sec=30.0)

    args = argparse.Namespace(out_dir=tmp_path / "out", base_url=None, no_ui=True, json=True)
    assert samples_command(args, fake_render) == 0
    document = json.loads(capsys.readouterr().out)
    assert document == {"catalog": str(tmp_path / "out" / "samples.json"), "failures": []}
    assert quiet_flags == [True, True, True]
