"""The deliver stage: what lands in the public share folder, and what the page may reveal."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from activities.context import StageContext
from activities.deliver import run_deliver
from services.settings import Settings
from workflows.contract import FilmOrder
from workflows.stages import AssetsResult, DeliverInput, RenderResult

CDN = "https://films.example.test"
HOSTILE_NAME = '</title><script>alert(1)</script>"><img src=x onerror=alert(1)> {{x}}'
RUN = "orders/giftSecret42/runs/3"


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
        "photos": [{"id": "p01", "key": "orders/giftSecret42/photos/p01.jpg",
                    "mime": "image/jpeg"}],
        "consent": {"accepted": True, "at": datetime(2026, 11, 21, tzinfo=UTC).isoformat()},
    })


def staged_run(ctx: StageContext, order: FilmOrder, lyrics: list[str]) -> DeliverInput:
    """The deliver stage's input with stand-in films, poster and logo in storage."""
    for name in ("16x9.mp4", "9x16.mp4", "poster.jpg", "logo.png"):
        ctx.storage.put_bytes(f"{RUN}/render/{name}", f"stand-in {name}".encode(),
                              "application/octet-stream")
    render = RenderResult(film_keys={"16x9": f"{RUN}/render/16x9.mp4",
                                     "9x16": f"{RUN}/render/9x16.mp4"},
                          poster_key=f"{RUN}/render/poster.jpg",
                          timeline_key=f"{RUN}/render/timeline.json", duration_sec=30.0)
    assets = AssetsResult(song_key=f"{RUN}/assets/song.wav", song_meta_key=f"{RUN}/song.json",
                          framing_key=f"{RUN}/assets/framing.json", photo_keys={},
                          lyrics=lyrics, notes=["internal note"],
                          logo_key=f"{RUN}/render/logo.png")
    return DeliverInput(order=order, render=render, assets=assets)


def test_brand_delivery_has_the_logo_and_a_page_that_reveals_only_what_the_slug_keys(
        tmp_path: Path) -> None:
    settings = Settings(FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}",
                        FILM_PUBLIC_BASE_URL=CDN, FILM_WORK_DIR=tmp_path / "work")
    ctx = StageContext.from_settings(settings)
    order = brand_order()
    lyrics = [f"Happy birthday, {HOSTILE_NAME}!", 'Remember "><script>alert(2)</script>?']
    result = run_deliver(ctx, staged_run(ctx, order, lyrics))

    prefix = f"films/{order.share_slug}"
    assert sorted(key.rsplit("/", 1)[1] for key in ctx.storage.list(prefix + "/")) == [
        "16x9.mp4", "9x16.mp4", "index.html", "logo.png", "manifest.json", "poster.jpg"]
    assert result.gift_url == f"{CDN}/{prefix}/index.html"
    page = ctx.storage.get_bytes(f"{prefix}/index.html", 1 << 20).decode()
    manifest = ctx.storage.get_bytes(f"{prefix}/manifest.json", 1 << 20).decode()
    for secret in (order.gift_id, order.charge_id, order.workflow_id, "orders/", "runs/",
                   "internal note", "brand.example.test"):
        assert secret not in page and secret not in manifest
    assert "<script>alert" not in page and "<img src=x" not in page
    assert '<img class="logo" src="logo.png"' in page and "--accent:#12355b" in page
    assert f'content="{CDN}/{prefix}/poster.jpg"' in page
    assert f'content="{CDN}/{prefix}/16x9.mp4"' in page
    assert set(json.loads(manifest)) == {"files"}
