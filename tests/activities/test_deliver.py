"""The deliver stage: what lands in the public share folder, and what the page may reveal."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from activities.context import StageContext
from activities.deliver import run_deliver
from media.analysis.subjects import Box
from media.deliver.gift_page import placement_css
from media.deliver.layout import PosterLayout
from services.settings import Settings
from workflows.contract import FilmOrder
from workflows.keys import RunKeys, photo_key
from workflows.stages import AssetsResult, DeliverInput, RenderResult

CDN = "https://films.example.test"
HOSTILE_NAME = '</title><script>alert(1)</script>"><img src=x onerror=alert(1)> {{x}}'
RUN = RunKeys("giftSecret42", 3)


def brand_order() -> FilmOrder:
    """A brand-style order with a hostile name and memory, and ids the page must not show."""
    return FilmOrder.model_validate({
        "gift_id": "giftSecret42", "attempt": 3, "charge_id": "ch_secret_charge",
        "share_slug": "shareSlug0001", "tier": "standard", "style": "brand",
        "occasion": {"slug": "birthday", "name": "Birthday", "short_name": "Happy Birthday",
                     "tone": "joyful"},
        "recipient_name": HOSTILE_NAME, "relationship": "team",
        "memory": '"><script>alert(2)</script>', "length_sec": 30,
        "brand": {"logo_url": "https://brand.example.test/logo.png", "color": "#12355B"},
        "photos": [{"id": "p01", "key": photo_key("giftSecret42", "p01", "jpg"),
                    "mime": "image/jpeg"}],
        "consent": {"accepted": True, "at": datetime(2026, 11, 21, tzinfo=UTC).isoformat()},
    })


def staged_run(ctx: StageContext, order: FilmOrder, lyrics: list[str],
               poster_layouts: dict[str, PosterLayout] | None = None) -> DeliverInput:
    """The deliver stage's input with stand-in films, poster and logo in storage, and the
    posters' ``poster_layouts`` (by aspect name) as the render reported them."""
    render = RenderResult(film_keys={"16x9": RUN.film("16x9"), "9x16": RUN.film("9x16")},
                          poster_key=RUN.poster, timeline_key=RUN.timeline, duration_sec=30.0,
                          poster_layouts={name: layout.to_dict()
                                          for name, layout in (poster_layouts or {}).items()})
    assets = AssetsResult(song_key=RUN.song, song_meta_key=RUN.song_meta,
                          framing_key=RUN.framing, photo_keys={},
                          lyrics=lyrics, notes=["internal note"], logo_key=RUN.logo)
    for key in (*render.film_keys.values(), render.poster_key, RUN.portrait_poster, RUN.logo):
        ctx.storage.put_bytes(key, f"stand-in {key.rsplit('/', 1)[1]}".encode(),
                              "application/octet-stream")
    return DeliverInput(order=order, render=render, assets=assets)


def test_brand_delivery_has_the_logo_and_a_page_that_reveals_only_what_the_slug_keys(
        tmp_path: Path) -> None:
    settings = Settings(FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}",
                        FILM_PUBLIC_BASE_URL=CDN, FILM_WORK_DIR=tmp_path / "work")
    ctx = StageContext.from_settings(settings)
    order = brand_order()
    lyrics = [f"Happy birthday, {HOSTILE_NAME}!", 'Remember "><script>alert(2)</script>?']
    result = run_deliver(ctx, staged_run(ctx, order, lyrics))

    prefix = order.delivery_prefix
    assert sorted(key.rsplit("/", 1)[1] for key in ctx.storage.list(prefix + "/")) == [
        "16x9.mp4", "9x16.mp4", "index.html", "logo.png", "manifest.json", "poster-9x16.jpg",
        "poster.jpg"]
    assert result.gift_url == f"{CDN}/{prefix}/index.html"
    page = ctx.storage.get_bytes(f"{prefix}/index.html", 1 << 20).decode()
    manifest = ctx.storage.get_bytes(f"{prefix}/manifest.json", 1 << 20).decode()
    for secret in (order.gift_id, order.charge_id, order.workflow_id, "orders/", "runs/",
                   "internal note", "brand.example.test"):
        assert secret not in page and secret not in manifest
    assert "<script>alert" not in page and "<img src=x" not in page
    assert '<img class="logo" src="logo.png"' in page and "--accent:#12355b" in page
    assert f'content="{CDN}/{prefix}/poster.jpg"' in page  # og:image: the 16:9 poster
    assert 'data-portrait-poster="poster-9x16.jpg"' in page
    assert result.poster_url == f"{CDN}/{prefix}/poster.jpg"
    assert f'content="{CDN}/{prefix}/16x9.mp4"' in page
    assert set(json.loads(manifest)) == {"files"}


def test_the_page_places_its_button_from_the_posters_layouts_the_render_reported(
        tmp_path: Path) -> None:
    settings = Settings(FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}",
                        FILM_PUBLIC_BASE_URL=CDN, FILM_WORK_DIR=tmp_path / "work")
    ctx = StageContext.from_settings(settings)
    layouts = {"16x9": PosterLayout(text=Box(0.1, 0.05, 0.9, 0.3),
                                    subject=Box(0.05, 0.42, 0.5, 0.97)),
               "9x16": PosterLayout(text=Box(0.1, 0.86, 0.9, 0.96),
                                    subject=Box(0.25, 0.05, 0.75, 0.4))}
    order = brand_order()
    run_deliver(ctx, staged_run(ctx, order, [], layouts))
    page = ctx.storage.get_bytes(f"{order.delivery_prefix}/index.html", 1 << 20).decode()
    assert placement_css(layouts) in page
    assert placement_css({}) not in page
