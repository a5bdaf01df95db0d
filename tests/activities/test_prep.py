"""run_prep: our own faults are never the customer's, and big clips stream with bounded memory.

A missing ffmpeg or a storage that is down must surface as an error Temporal retries and then
reports as failed (refunded as ``failed_refunded``), never as a rejected file or a held run.
Checked through Temporal's own failure converter (tests/stages.py).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from botocore.config import Config

from activities.prep import run_prep
from media.base.errors import MediaRejected
from media.base.runner import ToolPaths
from services.storage.base import StorageKeyMissing, StorageUnavailable
from services.storage.local import LocalStorage
from services.storage.s3 import S3Storage, make_s3_client
from tests.helpers import jpeg_bytes, tools_at
from tests.media.lavfi import lavfi_clip, x264
from tests.s3 import s3_env
from tests.stages import ends_failed, local_context, order_with_media
from workflows.contract import FilmOrder
from workflows.keys import clip_key

REPO = Path(__file__).resolve().parents[2]
BIG_CLIP_BYTES = 60 * 1024 * 1024
RSS_GROWTH_LIMIT_KB = 30 * 1024


def clip_bytes(tmp_path: Path) -> bytes:
    return lavfi_clip(tmp_path / "clip.mp4", "testsrc2=s=64x48:r=30:d=0.5", *x264()).read_bytes()


def stored_order(storage: LocalStorage, tmp_path: Path, gift: str = "faults01") -> FilmOrder:
    """An order of one good photo and one good clip, uploaded to ``storage``."""
    order = order_with_media(gift, [("p01", "jpg")], [("c01", "mp4")])
    storage.put_bytes(order.photos[0].key, jpeg_bytes())
    storage.put_bytes(order.clips[0].key, clip_bytes(tmp_path))
    return order


def assert_our_fault(exc: BaseException) -> None:
    """Not a rejection, not a hold: Temporal retries it, then the run ends failed."""
    assert not isinstance(exc, MediaRejected)
    assert ends_failed(exc, retried=True), exc


# --- ffmpeg missing ----------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["ffprobe", "ffmpeg"])
def test_missing_ffmpeg_during_clip_prep_is_our_fault(tmp_path: Path, tool: str) -> None:
    ctx = local_context(tmp_path)
    assert isinstance(ctx.storage, LocalStorage)
    order = stored_order(ctx.storage, tmp_path)
    missing = ToolPaths(**{tool: str(tmp_path / "not-installed" / tool)})

    with tools_at(missing), pytest.raises(Exception) as caught:
        run_prep(ctx, order)

    assert_our_fault(caught.value)
    assert isinstance(caught.value, FileNotFoundError)
    assert list((tmp_path / "work").iterdir()) == []


# --- storage down ------------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_s3_storage_that_is_down_is_our_fault(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint = f"http://127.0.0.1:{closed_port()}"
    for name, value in s3_env(endpoint).items():
        monkeypatch.setenv(name, value)
    client = make_s3_client(endpoint, Config(connect_timeout=1, read_timeout=1,
                                             retries={"mode": "standard", "max_attempts": 1}))
    ctx = local_context(tmp_path, storage=S3Storage("films", client=client))
    order = order_with_media("s3down01", [("p01", "jpg")], [("c01", "mp4")])

    with pytest.raises(StorageUnavailable) as caught:
        run_prep(ctx, order)

    assert_our_fault(caught.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads through file permissions")
def test_unreadable_local_storage_is_our_fault(tmp_path: Path) -> None:
    ctx = local_context(tmp_path)
    assert isinstance(ctx.storage, LocalStorage)
    order = stored_order(ctx.storage, tmp_path)
    ctx.storage.root.chmod(0)
    try:
        with pytest.raises(StorageUnavailable) as caught:
            run_prep(ctx, order)
    finally:
        ctx.storage.root.chmod(0o755)
    assert_our_fault(caught.value)


def test_local_storage_that_refuses_writes_is_our_fault(tmp_path: Path) -> None:
    ctx = local_context(tmp_path)
    assert isinstance(ctx.storage, LocalStorage)
    order = stored_order(ctx.storage, tmp_path)
    ctx.storage.path(order.run_keys.key("prep")).parent.mkdir(parents=True)
    ctx.storage.path(order.run_keys.key("prep")).write_bytes(b"")  # a file where a dir must go

    with pytest.raises(StorageUnavailable) as caught:
        run_prep(ctx, order)

    assert_our_fault(caught.value)


def test_local_storage_gone_is_our_fault(tmp_path: Path) -> None:
    ctx = local_context(tmp_path)
    assert isinstance(ctx.storage, LocalStorage)
    order = stored_order(ctx.storage, tmp_path)
    shutil.rmtree(ctx.storage.root)  # e.g. the volume is not mounted

    with pytest.raises(StorageKeyMissing) as caught:
        run_prep(ctx, order)

    assert_our_fault(caught.value)


# --- bounded memory ----------------------------------------------------------------------------

_MEASURE_PREP = r"""
import json, re, sys
from pathlib import Path
from activities.prep import run_prep
from tests.stages import local_context, order_with_media

def kib(field):
    return int(re.search(field + r":\s+(\d+)", Path("/proc/self/status").read_text()).group(1))

def peak_growth(call):
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current RSS
    before = kib("VmRSS")
    value = call()
    return kib("VmHWM") - before, value

ctx = local_context(Path(sys.argv[1]))
order = order_with_media("bigclip01", [("p01", "jpg")], [("c01", "mp4")])
growth, result = peak_growth(lambda: run_prep(ctx, order))
control, _ = peak_growth(lambda: ctx.storage.get_bytes(order.clips[0].key, 10**9))
print(json.dumps({"growth_kb": growth, "control_kb": control, "photos": len(result.photos),
                  "rejected": [[r.id, r.reason] for r in result.rejected]}))
"""


def big_mp4(path: Path, size: int) -> None:
    """An ``ftyp`` + ``mdat`` file of ``size`` bytes (sparse zeros): big, and no ``moov``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    ftyp = b"\0\0\0\x18ftypisom\0\0\0\0isommp42"
    with open(path, "wb") as fp:
        fp.write(ftyp + (size - len(ftyp)).to_bytes(4, "big") + b"mdat")
        fp.truncate(size)


@pytest.mark.render
def test_a_60_mb_clip_goes_through_prep_with_bounded_memory(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path / "storage")
    order = order_with_media("bigclip01", [("p01", "jpg")], [("c01", "mp4")])
    storage.put_bytes(order.photos[0].key, jpeg_bytes())
    big_mp4(storage.path(order.clips[0].key), BIG_CLIP_BYTES)

    child = subprocess.run([sys.executable, "-c", _MEASURE_PREP, str(tmp_path)], cwd=REPO,
                           capture_output=True, timeout=120, check=True)
    measured = json.loads(child.stdout.decode().strip().splitlines()[-1])

    print(f"\n60 MB clip through run_prep: peak RSS grew {measured['growth_kb'] / 1024:.1f} MB"
          f" (reading it whole instead: {measured['control_kb'] / 1024:.1f} MB)")
    assert measured["photos"] == 1
    assert measured["rejected"] == [["c01", "video_undecodable"]]  # no moov: but fully fetched
    assert measured["growth_kb"] < RSS_GROWTH_LIMIT_KB
    assert measured["control_kb"] > 50 * 1024  # the measurement does see a whole-file read


def test_local_get_file_streams_in_bounded_chunks(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path / "storage")
    big_mp4(storage.path(clip_key("g", "c01", "mp4")), BIG_CLIP_BYTES)

    tracemalloc.start()
    try:
        dest = storage.get_file(clip_key("g", "c01", "mp4"), tmp_path / "copy.mp4")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert dest.stat().st_size == BIG_CLIP_BYTES
    assert peak < 4 * 1024 * 1024  # about one 1 MiB chunk, never the object
