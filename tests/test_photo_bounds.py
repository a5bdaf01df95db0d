"""Every decode of a customer photo is bounded in CPU time and memory (issue 20, items 3, 6, 7).

Decode-time bombs (a progressive JPEG of tens of thousands of scans) are refused before any
decode; every photo is decoded in a child process with rlimits and a timeout
(:mod:`media.intake.sandbox`), so what still exceeds them is refused with a named reason and the
worker process never holds a photo's pixels. A 16-bit PNG no longer takes a float64 copy, and a
PNG with large compressed text chunks (metadata) is a photo like any other.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import struct
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from activities.prep import run_prep
from media.base import errors
from media.base.errors import MediaRejected
from media.base.runner import Limits, ToolError
from media.intake.photos import MAX_JPEG_SCANS, without_png_text, working_long_edge
from media.intake.sandbox import PHOTO_LIMITS, PhotoSandbox, prepare_photo_bounded
from services.storage.local import LocalStorage
from tests.helpers import picture
from tests.stages import local_context, order_with_media
from workflows.contract import PHOTO_MAX_BYTES
from workflows.stages import Rejection

pytestmark = pytest.mark.render

REFUSAL_BOUND_S = 10.0
SIXTEEN_BIT_PEAK_RSS_BYTES = 600 * 1024**2
"""The child's peak for a 7071x7071 16-bit PNG (1.35 GB before; about 400 MB measured)."""


def _jpeg_segments(data: bytes) -> list[tuple[int, int, int]]:
    """(marker, start, end) of a JPEG's segments; a scan runs through its entropy data."""
    found, pos = [], 2
    while pos < len(data):
        marker = data[pos + 1]
        if marker == 0xD9:
            found.append((marker, pos, pos + 2))
            break
        end = pos + 2 + struct.unpack(">H", data[pos + 2:pos + 4])[0]
        while marker == 0xDA:  # entropy data: up to the next marker that is not FF00 or RST
            end = data.index(b"\xff", end)
            if data[end + 1] != 0 and not 0xD0 <= data[end + 1] <= 0xD7:
                break
            end += 2
        found.append((marker, pos, end))
        pos = end
    return found


def scan_bomb(scans: int, size: int = 4096) -> bytes:
    """A genuine progressive JPEG of ``size`` px square with one AC scan repeated ``scans``
    times (an all-zero band: a few bytes each, a pass over every block each)."""
    buffer = io.BytesIO()
    Image.new("L", (size, size), 128).save(buffer, "JPEG", progressive=True, quality=90)
    data = buffer.getvalue()
    sos = [(start, end) for marker, start, end in _jpeg_segments(data) if marker == 0xDA]
    ac_start, ac_end = next((s, e) for s, e in sos if data[s + 5 + 2 * data[s + 4]] > 0)
    last = sos[-1][1]
    return data[:last] + data[ac_start:ac_end] * scans + data[last:]


def png_with_big_text(text_bytes: int) -> bytes:
    """A small genuine PNG carrying a zTXt chunk that inflates to ``text_bytes``."""
    buffer = io.BytesIO()
    picture(96, 64).save(buffer, "PNG")
    data = buffer.getvalue()
    body = b"Comment\0\0" + zlib.compress(b"x" * text_bytes, 9)
    chunk = struct.pack(">I", len(body)) + b"zTXt" + body
    chunk += struct.pack(">I", zlib.crc32(b"zTXt" + body))
    return data[:33] + chunk + data[33:]  # after the signature and IHDR


def prep_photos(tmp_path: Path, photos: list[bytes]) -> tuple[list[str], list[Rejection], float]:
    """run_prep on an order of ``photos`` (p01..) on local storage: (kept ids, rejections,
    wall seconds)."""
    storage = LocalStorage(tmp_path / "storage")
    order = order_with_media("bounds01", [(f"p{i:02d}", "jpg") for i in range(1, len(photos) + 1)])
    for ref, data in zip(order.photos, photos, strict=True):
        storage.put_bytes(ref.key, data)
    started = time.monotonic()
    result = run_prep(local_context(tmp_path, storage), order)
    return [p.id for p in result.photos], result.rejected, time.monotonic() - started


def test_progressive_jpeg_with_thousands_of_scans_is_refused_in_bounded_time(
    tmp_path: Path,
) -> None:
    bomb = scan_bomb(30_000)
    assert len(bomb) <= PHOTO_MAX_BYTES
    good = io.BytesIO()
    picture(640, 480).save(good, "JPEG")
    kept, rejected, elapsed = prep_photos(tmp_path, [bomb, good.getvalue()])
    assert kept == ["p02"]
    assert rejected == [Rejection(id="p01", reason=errors.IMAGE_TOO_COMPLEX)]
    assert elapsed < REFUSAL_BOUND_S


def test_a_progressive_jpeg_with_a_normal_scan_count_is_kept(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    picture(640, 480).save(buffer, "JPEG", progressive=True)
    assert buffer.getvalue().count(b"\xff\xda") < MAX_JPEG_SCANS
    kept, rejected, _ = prep_photos(tmp_path, [buffer.getvalue()])
    assert (kept, rejected) == (["p01"], [])


def test_a_photo_past_the_child_cpu_limit_is_refused_as_image_decode_limit(
    tmp_path: Path,
) -> None:
    src = tmp_path / "slow.jpg"
    src.write_bytes(scan_bomb(MAX_JPEG_SCANS // 2, size=7000))  # passes the count check
    tight = Limits(timeout_s=PHOTO_LIMITS.timeout_s, cpu_s=0,
                   address_space_bytes=PHOTO_LIMITS.address_space_bytes)
    with pytest.raises(MediaRejected) as refused:
        prepare_photo_bounded(src, tmp_path / "out.jpg", tight)
    assert refused.value.reason == errors.IMAGE_DECODE_LIMIT


def test_a_photo_past_the_child_memory_limit_is_refused_as_image_decode_limit(
    tmp_path: Path,
) -> None:
    src = tmp_path / "big.png"
    Image.new("RGB", (7000, 7000), (1, 2, 3)).save(src)
    tight = Limits(timeout_s=PHOTO_LIMITS.timeout_s, address_space_bytes=300 * 1024**2)
    with pytest.raises(MediaRejected) as refused:
        prepare_photo_bounded(src, tmp_path / "out.jpg", tight)
    assert refused.value.reason in (errors.IMAGE_DECODE_LIMIT, errors.IMAGE_TOO_LARGE)


def test_a_16_bit_png_of_50_megapixels_is_prepared_without_a_float64_copy(
    tmp_path: Path,
) -> None:
    src = tmp_path / "gray16.png"
    gray16 = Image.new("I;16", (7071, 7071), 30000)
    gray16.paste(Image.new("I;16", (7071, 2071), 5000), (0, 5000))  # a picture, not a blank
    gray16.save(src)
    assert src.stat().st_size < 1024**2
    tight = Limits(timeout_s=PHOTO_LIMITS.timeout_s, cpu_s=PHOTO_LIMITS.cpu_s,
                   address_space_bytes=SIXTEEN_BIT_PEAK_RSS_BYTES + 500 * 1024**2)
    info = prepare_photo_bounded(src, tmp_path / "out.jpg", tight)
    side = working_long_edge(7071, 7071)  # a square photo's tightest crop needs 2266 px
    assert (info.width, info.height) == (side, side)
    with Image.open(tmp_path / "out.jpg") as out:
        assert out.getpixel((10, 10)) == (117, 117, 117)  # 30000 / 257, as sRGB gray


def test_a_png_with_large_compressed_text_chunks_is_a_photo_like_any_other(
    tmp_path: Path,
) -> None:
    data = png_with_big_text(8 * 1024**2)
    assert len(without_png_text(data)) < len(data)
    kept, rejected, _ = prep_photos(tmp_path, [data])
    assert (kept, rejected) == (["p01"], [])


def test_the_worker_process_never_decodes_a_customer_photo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import media.intake.photos

    def refuse_in_process(*_: object, **__: object) -> None:
        raise AssertionError("a customer photo decoded in the worker process")

    monkeypatch.setattr(media.intake.photos, "prepare_photo", refuse_in_process)
    good = io.BytesIO()
    picture(320, 240).save(good, "JPEG")
    kept, _, _ = prep_photos(tmp_path, [good.getvalue()])
    assert kept == ["p01"]


# --- the prep's sandbox: one decode server a prep thread, one grandchild a photo ----------------


def jpeg_file(path: Path, width: int = 640, height: int = 480) -> Path:
    """A good photo (:func:`tests.helpers.picture`) written as a JPEG at ``path``."""
    picture(width, height).save(path, "JPEG")
    return path


def slow_photo(path: Path) -> Path:
    """A progressive JPEG under the scan count that takes about a second of CPU to decode."""
    path.write_bytes(scan_bomb(MAX_JPEG_SCANS // 2, size=7000))
    return path


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (an orphan left for init to reap)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def grandchild_of(sandbox: PhotoSandbox, within_s: float = 10.0) -> tuple[int, int]:
    """(server pid, grandchild pid) of the sandbox's one server once it is decoding."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        for server_pid in sandbox.server_pids():
            with contextlib.suppress(FileNotFoundError):
                children = Path(f"/proc/{server_pid}/task/{server_pid}/children").read_text()
                if children.split():
                    return server_pid, int(children.split()[0])
        time.sleep(0.01)
    raise AssertionError("no grandchild started")


def test_a_hostile_photo_among_good_ones_is_refused_alone_and_the_good_ones_are_prepared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import activities.prep

    big = io.BytesIO()
    Image.new("RGB", (7000, 7000), (1, 2, 3)).save(big, "PNG")  # 147 MB of pixels decoded
    good = io.BytesIO()
    picture(640, 480).save(good, "JPEG")
    tight = Limits(timeout_s=PHOTO_LIMITS.timeout_s, cpu_s=PHOTO_LIMITS.cpu_s,
                   address_space_bytes=300 * 1024**2)
    monkeypatch.setattr(activities.prep, "PhotoSandbox", lambda: PhotoSandbox(tight))
    bomb = big.getvalue()
    photos = [good.getvalue(), bomb, good.getvalue(), good.getvalue(), bomb, good.getvalue()]
    kept, rejected, _ = prep_photos(tmp_path, photos)
    assert kept == ["p01", "p03", "p04", "p06"]
    assert [r.id for r in rejected] == ["p02", "p05"]  # a MemoryError in Pillow: too large
    assert {r.reason for r in rejected} <= {errors.IMAGE_DECODE_LIMIT, errors.IMAGE_TOO_LARGE}


def test_each_photo_has_its_own_cpu_budget_in_a_shared_server(tmp_path: Path) -> None:
    one_second = Limits(timeout_s=PHOTO_LIMITS.timeout_s, cpu_s=1,
                        address_space_bytes=PHOTO_LIMITS.address_space_bytes)
    src = jpeg_file(tmp_path / "big.jpg", 4000, 3000)  # about 0.3 CPU-s a decode
    with PhotoSandbox(one_second) as sandbox:
        infos = [sandbox.prepare(src, tmp_path / f"out{i}.jpg") for i in range(5)]
        assert sandbox.servers_started == 1
    assert len({(info.width, info.height) for info in infos}) == 1


def test_a_photo_past_the_cpu_limit_in_the_sandbox_is_refused_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    no_cpu = Limits(timeout_s=PHOTO_LIMITS.timeout_s, cpu_s=0,
                    address_space_bytes=PHOTO_LIMITS.address_space_bytes)
    with PhotoSandbox(no_cpu) as sandbox:
        with pytest.raises(MediaRejected) as refused:
            sandbox.prepare(slow_photo(tmp_path / "slow.jpg"), tmp_path / "out.jpg")
        assert refused.value.reason == errors.IMAGE_DECODE_LIMIT
        assert sandbox.servers_started == 1


def test_a_photo_past_the_memory_limit_in_the_sandbox_is_refused_and_the_next_prepared(
    tmp_path: Path,
) -> None:
    big = tmp_path / "big.png"
    Image.new("RGB", (7000, 7000), (1, 2, 3)).save(big)
    tight = Limits(timeout_s=PHOTO_LIMITS.timeout_s, cpu_s=PHOTO_LIMITS.cpu_s,
                   address_space_bytes=300 * 1024**2)
    with PhotoSandbox(tight) as sandbox:
        with pytest.raises(MediaRejected) as refused:
            sandbox.prepare(big, tmp_path / "out.jpg")
        assert refused.value.reason in (errors.IMAGE_DECODE_LIMIT, errors.IMAGE_TOO_LARGE)
        info = sandbox.prepare(jpeg_file(tmp_path / "good.jpg"), tmp_path / "good-out.jpg")
        assert (info.width, info.height) == (640, 480)
        assert sandbox.servers_started == 1


def test_a_photo_past_the_wall_clock_in_the_sandbox_is_refused_in_time(tmp_path: Path) -> None:
    short = Limits(timeout_s=0.3, cpu_s=PHOTO_LIMITS.cpu_s,
                   address_space_bytes=PHOTO_LIMITS.address_space_bytes)
    with PhotoSandbox(short) as sandbox:
        sandbox.prepare(jpeg_file(tmp_path / "warm.jpg", 64, 64), tmp_path / "warm-out.jpg")
        started = time.monotonic()
        with pytest.raises(MediaRejected) as refused:
            sandbox.prepare(slow_photo(tmp_path / "slow.jpg"), tmp_path / "out.jpg")
        assert time.monotonic() - started < REFUSAL_BOUND_S
        assert refused.value.reason == errors.IMAGE_DECODE_LIMIT
        assert refused.value.detail.startswith("not decoded in")  # the wall clock, not the CPU
        assert sandbox.servers_started == 1


def test_the_output_file_limit_applies_in_the_sandbox(tmp_path: Path) -> None:
    small_files = Limits(timeout_s=PHOTO_LIMITS.timeout_s, cpu_s=PHOTO_LIMITS.cpu_s,
                         address_space_bytes=PHOTO_LIMITS.address_space_bytes,
                         output_file_bytes=20_000)
    out = tmp_path / "out.jpg"
    with PhotoSandbox(small_files) as sandbox, pytest.raises(ToolError, match="File too large"):
        sandbox.prepare(jpeg_file(tmp_path / "big.jpg", 2000, 1500), out)
    assert not out.exists() or out.stat().st_size <= 20_000


def test_a_grandchild_killed_mid_photo_refuses_that_photo_alone(tmp_path: Path) -> None:
    with PhotoSandbox() as sandbox:
        sandbox.prepare(jpeg_file(tmp_path / "warm.jpg"), tmp_path / "warm-out.jpg")
        killer = threading.Thread(target=lambda: os.kill(grandchild_of(sandbox)[1],
                                                         signal.SIGKILL))
        killer.start()
        with pytest.raises(MediaRejected) as refused:
            sandbox.prepare(slow_photo(tmp_path / "slow.jpg"), tmp_path / "out.jpg")
        killer.join()
        assert refused.value.reason == errors.IMAGE_DECODE_LIMIT
        info = sandbox.prepare(jpeg_file(tmp_path / "good.jpg"), tmp_path / "good-out.jpg")
        assert (info.width, info.height) == (640, 480)
        assert sandbox.servers_started == 1


def test_a_server_killed_mid_photo_is_replaced_and_the_photo_prepared_on_its_own(
    tmp_path: Path,
) -> None:
    src = jpeg_file(tmp_path / "big.jpg", 6000, 4000)
    with PhotoSandbox() as sandbox:
        sandbox.prepare(jpeg_file(tmp_path / "warm.jpg"), tmp_path / "warm-out.jpg")
        killer = threading.Thread(target=lambda: os.killpg(grandchild_of(sandbox)[0],
                                                           signal.SIGKILL))
        killer.start()
        info = sandbox.prepare(src, tmp_path / "out.jpg")
        killer.join()
        assert info == prepare_photo_bounded(src, tmp_path / "alone.jpg")
        assert sandbox.prepare(src, tmp_path / "again.jpg") == info
        assert sandbox.servers_started == 2


def test_a_server_gone_between_photos_is_replaced(tmp_path: Path) -> None:
    src = jpeg_file(tmp_path / "good.jpg")
    with PhotoSandbox() as sandbox:
        first = sandbox.prepare(src, tmp_path / "one.jpg")
        (server_pid,) = sandbox.server_pids()
        os.killpg(server_pid, signal.SIGKILL)
        assert sandbox.prepare(src, tmp_path / "two.jpg") == first
        assert sandbox.prepare(src, tmp_path / "three.jpg") == first
        assert sandbox.servers_started == 2


def test_closing_the_sandbox_leaves_no_process(tmp_path: Path) -> None:
    src = jpeg_file(tmp_path / "good.jpg")
    sandbox = PhotoSandbox()
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda i: sandbox.prepare(src, tmp_path / f"out{i}.jpg"), range(6)))
    pids = sandbox.server_pids()
    assert 1 <= len(pids) <= 2
    sandbox.close()
    assert not [pid for pid in pids if running(pid)]
    with pytest.raises(RuntimeError):
        sandbox.prepare(src, tmp_path / "late.jpg")


def test_the_sandbox_prepares_a_photo_as_a_child_of_its_own_does(tmp_path: Path) -> None:
    src = jpeg_file(tmp_path / "good.jpg", 1200, 900)
    alone = prepare_photo_bounded(src, tmp_path / "alone.jpg")
    with PhotoSandbox() as sandbox:
        shared = sandbox.prepare(src, tmp_path / "shared.jpg")
    assert shared == alone
    with Image.open(tmp_path / "alone.jpg") as a, Image.open(tmp_path / "shared.jpg") as b:
        assert a.tobytes() == b.tobytes()


def test_closing_the_sandbox_mid_photo_kills_its_grandchild_and_ends_the_call(
    tmp_path: Path,
) -> None:
    sandbox = PhotoSandbox()
    src = slow_photo(tmp_path / "slow.jpg")
    with ThreadPoolExecutor(1) as pool:
        call = pool.submit(sandbox.prepare, src, tmp_path / "out.jpg")
        server_pid, grandchild_pid = grandchild_of(sandbox)
        sandbox.close()
        with pytest.raises(RuntimeError, match="closed"):
            call.result(timeout=REFUSAL_BOUND_S)
    assert not running(grandchild_pid)
    assert not running(server_pid)


def test_a_server_that_stops_answering_is_killed_and_the_photo_prepared_on_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import media.intake.sandbox

    monkeypatch.setattr(media.intake.sandbox, "SERVER_ANSWER_MARGIN_S", 0.5)
    short = Limits(timeout_s=2.0, cpu_s=PHOTO_LIMITS.cpu_s,
                   address_space_bytes=PHOTO_LIMITS.address_space_bytes)
    src = jpeg_file(tmp_path / "good.jpg")
    with PhotoSandbox(short) as sandbox:
        first = sandbox.prepare(src, tmp_path / "one.jpg")
        (server_pid,) = sandbox.server_pids()
        os.kill(server_pid, signal.SIGSTOP)  # hung: it reads no request, answers none
        started = time.monotonic()
        assert sandbox.prepare(src, tmp_path / "two.jpg") == first
        assert time.monotonic() - started < REFUSAL_BOUND_S
        assert not running(server_pid)
        assert sandbox.server_pids() == []
