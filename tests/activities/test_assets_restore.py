"""The assets stage restores every photo per the tier's recipe and hands the render stage the
restored copies (activities.assets)."""

from __future__ import annotations

import io
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from skimage import data

from activities import assets
from activities.assets import run_assets
from activities.context import Heartbeater, StageContext
from tests.stages import local_context, order_with_media
from workflows.stages import PreparedPhoto, PrepResult, StageInput

pytestmark = pytest.mark.render


def _faded(image: np.ndarray) -> np.ndarray:
    return (image.astype(np.float32) * 0.66 + 62).astype(np.uint8)


def _stage_input(ctx: StageContext, tier: str) -> StageInput:
    """p01: a faded 512 px astronaut; p02: a clean 600 px coffee."""
    order = order_with_media("giftrestore1", [("p01", "jpg"), ("p02", "jpg")], tier=tier)
    photos = []
    for pid, image in (("p01", _faded(data.astronaut())), ("p02", data.coffee())):
        key = order.run_keys.prepared_photo(pid)
        buf = io.BytesIO()
        Image.fromarray(image).save(buf, "JPEG", quality=92)
        ctx.storage.put_bytes(key, buf.getvalue(), "image/jpeg")
        h, w = image.shape[:2]
        photos.append(PreparedPhoto(id=pid, key=key, width=w, height=h, low_res=True))
    return StageInput(order=order, prep=PrepResult(photos=photos, clips=[], rejected=[]))


def test_assets_stage_hands_render_the_restored_photos_and_a_report(tmp_path: Path) -> None:
    ctx = local_context(tmp_path)
    stage_input = _stage_input(ctx, "standard")
    result = run_assets(ctx, stage_input)
    run = stage_input.order.run_keys
    assert result.photo_keys == {"p01": run.restored_photo("p01"),
                                 "p02": run.restored_photo("p02")}
    report = json.loads(ctx.storage.get_bytes(run.restore_report, 1 << 20))
    assert report["p01"]["recipe"] == "light"  # standard tier
    assert report["p01"]["applied"] == ["levels", "upscale"]
    assert report["p02"]["applied"] == ["upscale"]  # clean: only made big enough
    levels = next(s for s in report["p01"]["steps"] if s["name"] == "levels")
    assert levels["measurements"]["black_r"] > 50 and levels["reason"] == "faded"
    restored = ctx.storage.get_file(result.photo_keys["p01"], tmp_path / "p01.jpg")
    with Image.open(restored) as image:
        assert image.size == (1920, 1920)  # covers a 1080x1920 crop 1:1
        pixels = np.asarray(image.convert("RGB"))
    assert np.percentile(pixels, 1) < 20  # the fade is gone: blacks are black again
    framing = json.loads(ctx.storage.get_bytes(result.framing_key, 1 << 20))
    assert framing["p01"]["source"] == "faces"  # framed on the restored photo


def test_the_photos_are_restored_on_the_stages_two_workers_beside_the_song(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    restored_on: dict[str, str] = {}
    real = assets._restore_one

    def recorded(local: Path, recipe: str, scratch: Path, photo_id: str) -> object:
        restored_on[photo_id] = threading.current_thread().name
        return real(local, recipe, scratch, photo_id)  # type: ignore[arg-type]

    monkeypatch.setattr(assets, "_restore_one", recorded)
    ctx = local_context(tmp_path)
    stage_input = _stage_input(ctx, "standard")
    run_assets(ctx, stage_input)
    # The stage's own thread only fetches and stores: a photo never waits for the song's
    # thread to be the only one left working.
    assert set(restored_on) == {"p01", "p02"}
    assert all(name.startswith("assets_") for name in restored_on.values())
    assert assets.ASSETS_THREADS == 2


def test_the_photos_are_queued_a_window_at_a_time_and_reported_in_the_orders_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """So the song's candidates, offered to the same pool later, wait behind a photo or two,
    not behind every photo; the photos done out of order are still stored in order."""
    submitted: list[str] = []
    real = assets._restore_one
    ctx = local_context(tmp_path)
    stage_input = _stage_input(ctx, "standard")
    photos = stage_input.prep.photos * 3  # six restores of the two pictures
    photos = [photo.model_copy(update={"id": f"{photo.id}-{n}"}) for n, photo in enumerate(photos)]
    stage_input = stage_input.model_copy(update={"prep": PrepResult(photos=photos, clips=[],
                                                                    rejected=[])})

    class CountingPool(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            submitted.append(args[3])
            in_pool.append(len(submitted) - len(done))
            return super().submit(fn, *args, **kwargs)

    in_pool: list[int] = []
    done: list[str] = []

    def recorded(local: Path, recipe: str, scratch: Path, photo_id: str) -> object:
        restored = real(local, recipe, scratch, photo_id)  # type: ignore[arg-type]
        done.append(photo_id)
        return restored

    monkeypatch.setattr(assets, "_restore_one", recorded)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with Heartbeater("assets") as heartbeat, CountingPool(2) as pool:
        subjects, keys, _ = assets._restore_photos(ctx, stage_input, scratch, heartbeat, pool)
    assert submitted == [photo.id for photo in photos]
    assert max(in_pool) <= assets.RESTORE_WINDOW
    report = json.loads(ctx.storage.get_bytes(stage_input.order.run_keys.restore_report, 1 << 20))
    assert list(report) == list(keys) == list(subjects) == [photo.id for photo in photos]
