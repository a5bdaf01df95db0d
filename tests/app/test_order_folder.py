"""Loading a local order folder (:mod:`app.order_folder`) as the order API would upload it."""

from __future__ import annotations

import shutil
import tracemalloc
from pathlib import Path

import pytest

from app.order_folder import load_order_folder
from services.settings import Settings

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "order"
BIG_CLIP_BYTES = 256 << 20


def _copy_sample(folder: Path) -> Path:
    shutil.copytree(SAMPLE, folder, symlinks=False)
    return folder


def _settings(root: Path) -> Settings:
    return Settings(FILM_STORAGE_URL=root.as_uri(), FILM_ORDER_API_URL=None)


def test_derived_gift_id_follows_the_media_bytes(tmp_path: Path) -> None:
    folder = _copy_sample(tmp_path / "order")
    first = load_order_folder(folder, _settings(tmp_path / "a")).gift_id
    assert load_order_folder(folder, _settings(tmp_path / "b")).gift_id == first
    clip = sorted((folder / "clips").iterdir())[0]
    clip.write_bytes(clip.read_bytes() + b"\0")
    assert load_order_folder(folder, _settings(tmp_path / "c")).gift_id != first


@pytest.mark.slow
def test_a_large_clip_is_streamed_not_held_in_memory(tmp_path: Path) -> None:
    folder = _copy_sample(tmp_path / "order")
    big = folder / "clips" / "zz-big.mp4"
    with big.open("wb") as handle:
        handle.truncate(BIG_CLIP_BYTES)
    tracemalloc.start()
    try:
        order = load_order_folder(folder, _settings(tmp_path / "store"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    stored = tmp_path / "store" / order.clips[-1].key
    assert stored.stat().st_size == BIG_CLIP_BYTES
    assert peak < BIG_CLIP_BYTES // 8, f"peak Python allocation {peak / 2**20:.0f} MiB"
