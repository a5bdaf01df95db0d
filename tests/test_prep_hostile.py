"""The hostile corpus of issue 3, end to end through ``run_prep`` on a real local storage.

Every file is generated here. Each one goes through the activity code as a customer upload would
(storage key, declared mime, size check, download, sniff, probe, normalize, upload) without a
Temporal server. Asserted for every case: its per-file reason, that nothing outside the file is
read into any output (a secret file, ``/etc/passwd`` and ``/etc/hostname`` are the bait, and
every object written to storage is scanned), that the loopback listener named in the playlists
is never dialled, that the scratch space is cleaned up, and that it all takes seconds.

``pytest -s tests/test_prep_hostile.py`` prints the table of case -> outcome -> seconds.
"""

from __future__ import annotations

import io
import os
import socket
import struct
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from activities.gate import run_gate
from activities.prep import run_prep
from media.base import errors
from media.base.errors import MediaRejected
from media.base.probe import MP4, WEBM, ClipProbe, ffprobe_json, sniff_container
from media.intake.clip_checks import probe_clip
from media.intake.clips import normalize_clip
from services.storage.local import LocalStorage
from tests.helpers import EPS, SVG, assert_no_connection, listening_socket, png_bomb
from tests.media.lavfi import lavfi_clip, x264
from tests.stages import is_hold, local_context, order_with_media
from workflows.contract import CLIP_MAX_BYTES, PHOTO_MAX_BYTES, FilmOrder
from workflows.stages import HoldReason, PrepResult, StageInput

pytestmark = pytest.mark.render

PER_CASE_LIMIT_S = 10.0
CORPUS_LIMIT_S = 60.0
PREPARED = "prepared"


@dataclass(frozen=True)
class Bait:
    """What a hostile file may try to reach: a loopback listener and files outside the upload."""

    port: int
    secret_path: Path
    secret: bytes

    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{self.port}/seg.ts", f"file://{self.secret_path}",
                "file:///etc/hostname", "file:///etc/passwd",
                "http://169.254.169.254/latest/meta-data/iam/security-credentials/"]


@dataclass(frozen=True)
class Case:
    """One upload: its slot (photo or clip), key extension, bytes, and expected outcome."""

    name: str
    slot: str
    ext: str
    make: Callable[[Path, Bait], bytes]
    expect: str
    sparse_bytes: int = 0
    """Instead of ``make``: a sparse file of this size (size checks must not read it)."""


# --- generators ---------------------------------------------------------------------------------


def good_photo(_: Path, __: Bait) -> bytes:
    pixels = np.random.default_rng(11).integers(0, 255, (480, 640, 3), np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "JPEG", quality=85)
    return buffer.getvalue()


def truncated_jpeg(tmp: Path, bait: Bait) -> bytes:
    whole = good_photo(tmp, bait)
    return whole[: len(whole) // 2]


def hls_playlist(_: Path, bait: Bait) -> bytes:
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:10"]
    for url in bait.urls():
        lines += ["#EXTINF:10.0,", url]
    return ("\n".join([*lines, "#EXT-X-ENDLIST"]) + "\n").encode()


def ffconcat_list(_: Path, bait: Bait) -> bytes:
    files = [f"http://127.0.0.1:{bait.port}/x.mp4", str(bait.secret_path), "/etc/passwd"]
    return ("ffconcat version 1.0\n" + "".join(f"file '{f}'\n" for f in files)).encode()


def _riff_chunk(fourcc: bytes, body: bytes) -> bytes:
    return fourcc + struct.pack("<I", len(body)) + body + b"\0" * (len(body) % 2)


def avi_carrying_hls(tmp: Path, bait: Bait) -> bytes:
    """A RIFF/AVI whose one subtitle (``txts``) stream holds an HLS playlist in a GAB2 packet:
    the shape of the 2017 ffmpeg AVI+HLS file-disclosure exploit (ffprobe reads it as AVI)."""
    playlist = hls_playlist(tmp, bait)
    avih = struct.pack("<14I", 40000, 0, 0, 0x10, 1, 0, 1, 0, 160, 120, 0, 0, 0, 0)
    strh = b"txts" + b"\0" * 4 + struct.pack("<IHHIIIIIIIIhhhh", 0, 0, 0, 0, 1, 1, 0, 1, 0,
                                             0xFFFFFFFF, 0, 0, 0, 0, 0)
    strl = _riff_chunk(b"LIST", b"strl" + _riff_chunk(b"strh", strh)
                       + _riff_chunk(b"strf", b"\0" * 8))
    hdrl = _riff_chunk(b"LIST", b"hdrl" + _riff_chunk(b"avih", avih) + strl)
    gab2 = b"GAB2\x00" + struct.pack("<HIHI", 2, 0, 4, len(playlist)) + playlist
    movi = _riff_chunk(b"LIST", b"movi" + _riff_chunk(b"00tx", gab2))
    return _riff_chunk(b"RIFF", b"AVI " + hdrl + movi)


def good_clip(tmp: Path, _: Bait) -> bytes:
    return lavfi_clip(tmp / "good.mp4", "testsrc2=s=320x240:r=30:d=1", *x264(), "-c:a", "aac",
                      audio="sine=f=440:d=1").read_bytes()


def tiny_clip(tmp: Path) -> bytes:
    return lavfi_clip(tmp / f"tiny-{uuid.uuid4().hex}.mp4", "testsrc2=s=64x48:r=30:d=0.5",
                      *x264()).read_bytes()


def truncated_mp4_moov_at_end(tmp: Path, _: Bait) -> bytes:
    whole = lavfi_clip(tmp / "moov-last.mp4", "testsrc2=s=320x240:r=30:d=2", *x264()).read_bytes()
    assert whole.find(b"mdat") < whole.find(b"moov")
    return whole[: len(whole) // 2]


def mp4_without_video(tmp: Path, _: Bait) -> bytes:
    """An MP4 holding one timed-text (subtitle) track and nothing else."""
    srt = tmp / "only.srt"
    srt.write_text("1\n00:00:00,000 --> 00:00:01,000\nhello\n", encoding="utf-8")
    from tests.media.lavfi import ffmpeg

    ffmpeg("-i", str(srt), "-c:s", "mov_text", str(tmp / "subs.mp4"))
    return (tmp / "subs.mp4").read_bytes()


def audio_only(tmp: Path, _: Bait) -> bytes:
    return lavfi_clip(tmp / "voice.m4a", "sine=f=440:d=1", "-c:a", "aac").read_bytes()


def _ebml(element_id: bytes, body: bytes) -> bytes:
    size = len(body)
    length = next(n for n in range(1, 9) if size < (1 << (7 * n)) - 1)
    return element_id + ((1 << (7 * length)) | size).to_bytes(length, "big") + body


def _ebml_uint(element_id: bytes, value: int) -> bytes:
    return _ebml(element_id, value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big"))


def webm_claiming(width: int, height: int) -> Callable[[Path, Bait], bytes]:
    """A hand-written WebM whose VP9 track claims ``width`` x ``height`` (one junk frame)."""
    def make(_: Path, __: Bait) -> bytes:
        header = _ebml(b"\x1a\x45\xdf\xa3", _ebml(b"\x42\x82", b"webm")
                       + _ebml_uint(b"\x42\x87", 4) + _ebml_uint(b"\x42\x85", 2))
        info = _ebml(b"\x15\x49\xa9\x66", _ebml_uint(b"\x2a\xd7\xb1", 1_000_000)
                     + _ebml(b"\x44\x89", struct.pack(">f", 1000.0)))
        video = _ebml(b"\xe0", _ebml_uint(b"\xb0", width) + _ebml_uint(b"\xba", height))
        track = _ebml(b"\xae", _ebml_uint(b"\xd7", 1) + _ebml_uint(b"\x73\xc5", 1)
                      + _ebml_uint(b"\x83", 1) + _ebml(b"\x86", b"V_VP9") + video)
        block = _ebml(b"\xa3", b"\x81\x00\x00\x80" + b"\x00" * 64)
        cluster = _ebml(b"\x1f\x43\xb6\x75", _ebml_uint(b"\xe7", 0) + block)
        segment = (b"\x18\x53\x80\x67\x01\xff\xff\xff\xff\xff\xff\xff" + info
                   + _ebml(b"\x16\x54\xae\x6b", track) + cluster)
        return header + segment
    return make


def mp4_boxes_claiming_65535(tmp: Path, _: Bait) -> bytes:
    """A real 64x48 H.264 MP4 whose tkhd and stsd claim 65535x65535 (the boxes' maximum)."""
    data = bytearray(tiny_clip(tmp))
    entry = data.find(b"avc1") - 4
    struct.pack_into(">HH", data, entry + 32, 65535, 65535)
    tkhd = data.find(b"tkhd") - 4
    size = struct.unpack_from(">I", data, tkhd)[0]
    struct.pack_into(">II", data, tkhd + size - 8, 0xFFFF0000, 0xFFFF0000)
    return bytes(data)


def fixed(data: bytes) -> Callable[[Path, Bait], bytes]:
    return lambda _tmp, _bait: data


RANDOM = np.random.default_rng(3).bytes(8192)

CORPUS: tuple[Case, ...] = (
    Case("photo: zero bytes", "photo", "jpg", fixed(b""), errors.NOT_AN_IMAGE),
    Case("photo: random bytes", "photo", "jpg", fixed(RANDOM), errors.NOT_AN_IMAGE),
    Case("photo: truncated JPEG", "photo", "jpg", truncated_jpeg, errors.IMAGE_TRUNCATED),
    Case("photo: PNG bomb 30000x30000", "photo", "png", lambda _t, _b: png_bomb(30000, 0, 1),
         errors.IMAGE_TOO_LARGE),
    Case("photo: SVG renamed .png", "photo", "png", fixed(SVG), errors.UNSUPPORTED_IMAGE_FORMAT),
    Case("photo: EPS renamed .png", "photo", "png", fixed(EPS), errors.UNSUPPORTED_IMAGE_FORMAT),
    Case("photo: HLS playlist as .jpg", "photo", "jpg", hls_playlist, errors.NOT_AN_IMAGE),
    Case("photo: over 4 MB (sparse)", "photo", "jpg", fixed(b""), "photo_too_large",
         sparse_bytes=PHOTO_MAX_BYTES + 1),
    Case("photo: good 640x480 JPEG", "photo", "jpg", good_photo, PREPARED),
    Case("clip: zero bytes", "clip", "mp4", fixed(b""), errors.NOT_A_VIDEO),
    Case("clip: random bytes", "clip", "mp4", fixed(RANDOM), errors.UNSUPPORTED_CONTAINER),
    Case("clip: truncated MP4, moov at end", "clip", "mp4", truncated_mp4_moov_at_end,
         errors.VIDEO_UNDECODABLE),
    Case("clip: HLS playlist named .mp4", "clip", "mp4", hls_playlist,
         errors.UNSUPPORTED_CONTAINER),
    Case("clip: ffconcat list named .mov", "clip", "mov", ffconcat_list,
         errors.UNSUPPORTED_CONTAINER),
    Case("clip: AVI carrying HLS, as .mp4", "clip", "mp4", avi_carrying_hls,
         errors.UNSUPPORTED_CONTAINER),
    Case("clip: MP4 with no video stream", "clip", "mp4", mp4_without_video,
         errors.NO_VIDEO_STREAM),
    Case("clip: audio only (AAC .m4a)", "clip", "m4a", audio_only, errors.NO_VIDEO_STREAM),
    Case("clip: WebM claiming 100000x100000", "clip", "webm", webm_claiming(100_000, 100_000),
         errors.VIDEO_UNDECODABLE),
    Case("clip: WebM claiming 100000x16", "clip", "webm", webm_claiming(100_000, 16),
         errors.VIDEO_TOO_LARGE),
    Case("clip: MP4 boxes claiming 65535^2", "clip", "mp4", mp4_boxes_claiming_65535,
         PREPARED),
    Case("clip: over 500 MB (sparse)", "clip", "mp4", fixed(b""), "clip_too_large",
         sparse_bytes=CLIP_MAX_BYTES + 1),
    Case("clip: good 320x240 H.264+AAC", "clip", "mp4", good_clip, PREPARED),
)


# --- fixtures and checks ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def listener() -> Iterator[socket.socket]:
    with listening_socket() as server:
        yield server


@pytest.fixture(scope="module")
def bait(tmp_path_factory: pytest.TempPathFactory, listener: socket.socket) -> Bait:
    secret = f"SECRET-{uuid.uuid4().hex}".encode()
    path = tmp_path_factory.mktemp("bait") / "secret.txt"
    path.write_bytes(secret + b"\n")
    return Bait(port=listener.getsockname()[1], secret_path=path, secret=secret)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, bait: Bait) -> dict[str, bytes]:
    """Every case's bytes, generated once for the module."""
    tmp = tmp_path_factory.mktemp("corpus")
    return {case.name: case.make(tmp, bait) for case in CORPUS}


def good_photo_bytes(corpus: dict[str, bytes]) -> bytes:
    return corpus["photo: good 640x480 JPEG"]


def upload(storage: LocalStorage, key: str, case: Case, corpus: dict[str, bytes]) -> None:
    """Store ``case`` under ``key`` as the order API would have."""
    if case.sparse_bytes:
        path = storage.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as fp:
            fp.truncate(case.sparse_bytes)
    else:
        storage.put_bytes(key, corpus[case.name])


def secrets_to_find(bait: Bait) -> list[bytes]:
    """Bytes that must never appear in an output: the bait files' contents and the playlists'
    own markers. ``/etc/hostname`` is only a needle when long enough to be distinctive."""
    needles = [bait.secret, b"#EXTM3U", b"ffconcat version", b"GAB2"]
    passwd = Path("/etc/passwd").read_bytes().splitlines()
    needles += [line for line in passwd[:3] if len(line) >= 12]
    hostname = Path("/etc/hostname").read_bytes().strip()
    if len(hostname) >= 8:
        needles.append(hostname)
    return needles


def leaks_in_outputs(storage: LocalStorage, needles: list[bytes]) -> list[str]:
    """Every (key, needle) found in an object written by the worker (inputs excluded)."""
    found = []
    for key in storage.list("orders/"):
        if "/runs/" not in key:
            continue  # the uploads themselves
        data = storage.path(key).read_bytes()
        found += [f"{key}: {needle[:20]!r}" for needle in needles if needle in data]
    return found


def outcome(result: PrepResult, item_id: str) -> str:
    rejected = {r.id: r.reason for r in result.rejected}
    if item_id in rejected:
        return rejected[item_id]
    prepared = {p.id: (p.width, p.height) for p in [*result.photos, *result.clips]}
    return PREPARED if item_id in prepared else "missing"


def detail(result: PrepResult, item_id: str) -> str:
    sizes = {p.id: f"{p.width}x{p.height}" for p in [*result.photos, *result.clips]}
    return sizes.get(item_id, "")


def case_order(index: int, case: Case) -> tuple[FilmOrder, str]:
    """An order holding ``case`` (plus the good photo every order needs, for clips)."""
    gift = f"hostile{index:02d}"
    if case.slot == "photo":
        return order_with_media(gift, [("p01", case.ext)]), "p01"
    return order_with_media(gift, [("p01", "jpg")], [("c01", case.ext)]), "c01"


# --- tests ------------------------------------------------------------------------------------


def test_every_hostile_upload_is_rejected_with_its_reason_and_nothing_leaks(
        tmp_path: Path, corpus: dict[str, bytes], bait: Bait, listener: socket.socket) -> None:
    ctx = local_context(tmp_path)
    assert isinstance(ctx.storage, LocalStorage)
    rows: list[tuple[str, str, str, float]] = []
    started_all = time.perf_counter()
    for index, case in enumerate(CORPUS, start=1):
        order, item_id = case_order(index, case)
        ref = (order.photos if case.slot == "photo" else order.clips)[0]
        upload(ctx.storage, ref.key, case, corpus)
        if case.slot == "clip":
            ctx.storage.put_bytes(order.photos[0].key, good_photo_bytes(corpus))

        started = time.perf_counter()
        result = run_prep(ctx, order)
        elapsed = time.perf_counter() - started

        rows.append((case.name, outcome(result, item_id), detail(result, item_id), elapsed))
    total = time.perf_counter() - started_all

    print_table(rows, total)
    mismatches = [(case.name, case.expect, got) for case, (_, got, _, _) in zip(CORPUS, rows,
                                                                                strict=True)
                  if got != case.expect]
    assert mismatches == []
    assert max(seconds for *_, seconds in rows) < PER_CASE_LIMIT_S
    assert total < CORPUS_LIMIT_S
    assert leaks_in_outputs(ctx.storage, secrets_to_find(bait)) == []
    assert list((tmp_path / "work").iterdir()) == []  # every scratch directory removed
    assert_no_connection(listener)


def test_claims_in_the_order_and_the_boxes_are_only_hints(tmp_path: Path,
                                                         corpus: dict[str, bytes]) -> None:
    ctx = local_context(tmp_path)
    order = order_with_media("claims01", [("p01", "jpg")], [("c01", "mp4"), ("c02", "mp4")])
    hinted = [c.model_copy(update={"width_hint": 100_000, "height_hint": 100_000,
                                   "duration_hint": 600.0}) for c in order.clips]
    order = order.model_copy(update={"clips": hinted})
    ctx.storage.put_bytes(order.photos[0].key, good_photo_bytes(corpus))
    ctx.storage.put_bytes(order.clips[0].key, corpus["clip: good 320x240 H.264+AAC"])
    ctx.storage.put_bytes(order.clips[1].key, corpus["clip: MP4 boxes claiming 65535^2"])

    result = run_prep(ctx, order)

    good, boxed = result.clips
    assert (good.width, good.height, good.has_audio) == (320, 240, True)
    assert abs(good.duration_sec - 1.0) < 0.1
    assert (boxed.width, boxed.height) == (64, 48)


def test_one_mixed_order_keeps_the_good_and_lists_every_bad_file(
        tmp_path: Path, corpus: dict[str, bytes], bait: Bait, listener: socket.socket) -> None:
    ctx = local_context(tmp_path)
    assert isinstance(ctx.storage, LocalStorage)
    photo_cases = [case for case in CORPUS if case.slot == "photo"]
    by_name = {case.name: case for case in CORPUS}
    clip_cases = [by_name[name] for name in ("clip: good 320x240 H.264+AAC",
                                             "clip: HLS playlist named .mp4",
                                             "clip: AVI carrying HLS, as .mp4")]
    order = order_with_media("mixed001", [(f"p{i:02d}", c.ext) for i, c in
                                          enumerate(photo_cases, 1)],
                             [(f"c{i:02d}", c.ext) for i, c in enumerate(clip_cases, 1)])
    for ref, case in [*zip(order.photos, photo_cases, strict=True),
                      *zip(order.clips, clip_cases, strict=True)]:
        upload(ctx.storage, ref.key, case, corpus)

    started = time.perf_counter()
    result = run_prep(ctx, order)
    elapsed = time.perf_counter() - started

    expected = {ref.id: case.expect for ref, case in
                [*zip(order.photos, photo_cases, strict=True),
                 *zip(order.clips, clip_cases, strict=True)]}
    assert {item: outcome(result, item) for item in expected} == expected
    assert [p.id for p in result.photos] == ["p09"] and [c.id for c in result.clips] == ["c01"]
    assert sorted(ctx.storage.list(f"{order.run_prefix}/")) == [
        order.run_keys.prepared_clip("c01"), order.run_keys.prepared_photo("p09")]
    assert leaks_in_outputs(ctx.storage, secrets_to_find(bait)) == []
    assert elapsed < CORPUS_LIMIT_S
    assert_no_connection(listener)
    print(f"\nmixed order: {len(order.photos)} photos + {len(order.clips)} clips "
          f"prepared in {elapsed:.2f} s")


def test_an_order_of_only_bad_photos_is_held_by_the_gate(tmp_path: Path,
                                                         corpus: dict[str, bytes]) -> None:
    ctx = local_context(tmp_path)
    bad = [case for case in CORPUS if case.slot == "photo" and case.expect != PREPARED]
    order = order_with_media("allbad01", [(f"p{i:02d}", c.ext) for i, c in enumerate(bad, 1)],
                             [("c01", "mp4")])
    for ref, case in zip(order.photos, bad, strict=True):
        upload(ctx.storage, ref.key, case, corpus)
    ctx.storage.put_bytes(order.clips[0].key, corpus["clip: good 320x240 H.264+AAC"])

    prep = run_prep(ctx, order)

    assert prep.photos == [] and [c.id for c in prep.clips] == ["c01"]
    assert {r.id for r in prep.rejected} == {ref.id for ref in order.photos}
    with pytest.raises(Exception) as caught:
        run_gate(ctx, StageInput(order=order, prep=prep))
    assert is_hold(caught.value, HoldReason.NO_USABLE_PHOTOS)
    assert all(f"{ref.id}:" in str(caught.value) for ref in order.photos)


@pytest.mark.parametrize("name", ["clip: HLS playlist named .mp4",
                                  "clip: ffconcat list named .mov",
                                  "clip: AVI carrying HLS, as .mp4"])
def test_playlist_carriers_forced_through_our_demuxers_fetch_nothing(
        tmp_path: Path, corpus: dict[str, bytes], listener: socket.socket, name: str) -> None:
    """Defence in depth: were the sniffer fooled, ffprobe/ffmpeg still follow no reference."""
    src = tmp_path / "upload.bin"
    src.write_bytes(corpus[name])
    fake = ClipProbe(320, 240, 0, 10.0, 30.0, False, False, 0, "", "yuv420p", 8, "h264")

    for container in (MP4, WEBM):
        with pytest.raises(MediaRejected) as probed:
            probe_clip(src, container)
        assert probed.value.reason == errors.VIDEO_UNDECODABLE
    with pytest.raises(MediaRejected):
        normalize_clip(src, tmp_path / "out.mp4", fake)

    assert not (tmp_path / "out.mp4").exists()
    assert_no_connection(listener)


@pytest.mark.parametrize(("name", "listing"), [
    ("list.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:0.5,\n{name}\n#EXT-X-ENDLIST\n"),
    ("list.ffconcat", "ffconcat version 1.0\nfile '{name}'\n"),
])
def test_the_bait_is_live_an_unguarded_ffprobe_follows_a_playlist(tmp_path: Path, name: str,
                                                                  listing: str) -> None:
    """The control: ffprobe as it comes reads the file a playlist names; ours reads nothing.
    (ffmpeg's own default already keeps a local playlist off the network.)"""
    elsewhere = lavfi_clip(tmp_path / "elsewhere.mp4", "testsrc2=s=64x48:r=10:d=0.5", *x264())
    playlist = tmp_path / name
    playlist.write_text(listing.format(name=elsewhere.name), encoding="utf-8")
    renamed = tmp_path / "upload.mp4"
    renamed.write_bytes(playlist.read_bytes())

    unguarded = ffprobe_json(playlist)  # what a careless worker would run

    assert [s["codec_name"] for s in unguarded["streams"]] == ["h264"]  # elsewhere.mp4, read
    with pytest.raises(MediaRejected) as sniffed:
        sniff_container(renamed)
    assert sniffed.value.reason == errors.UNSUPPORTED_CONTAINER
    for container in (MP4, WEBM):
        with pytest.raises(MediaRejected):
            probe_clip(playlist, container)


def print_table(rows: list[tuple[str, str, str, float]], total: float) -> None:
    """The table the closing note quotes (shown with ``pytest -s``)."""
    slowest = max(rows, key=lambda row: row[3])
    lines = ["", f"{'case':<36} {'outcome':<28} {'seconds':>7}", "-" * 73]
    lines += [f"{name:<36} {(got + ' ' + size).strip():<28} {seconds:7.2f}"
              for name, got, size, seconds in rows]
    lines += ["-" * 73, f"slowest: {slowest[0]} ({slowest[3]:.2f} s); "
              f"all {len(rows)} cases {total:.2f} s; pid {os.getpid()}"]
    print("\n".join(lines))
