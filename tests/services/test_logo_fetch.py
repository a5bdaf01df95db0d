"""The brand-logo fetch: SSRF matrix, pinning, redirects, caps and image checks.

Network rule of these tests: traffic goes only to 127.0.0.1. Hostnames are mapped to addresses
by an injected resolver (no DNS), and an autouse guard on ``socket.connect`` records every dial
and refuses any non-loopback one, so "refused before connecting" is asserted, never assumed.
"""

from __future__ import annotations

import functools
import io
import ipaddress
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

import activities.assets as assets_module
from activities.assets import _brand_logo
from activities.context import StageContext
from media.intake.logo import LOGO_MAX_PIXELS
from services import logo_fetch
from services.logo_fetch import LogoRefused, LogoResult, address_problem, fetch_logo
from services.settings import Settings
from services.storage.local import LocalStorage
from tests.logo_server import LOGO_HOST, LogoHandler, LogoServer, TlsMaterial, make_tls_material
from workflows.contract import FilmOrder
from workflows.keys import RunKeys, photo_key
from workflows.stages import AssetsResult

SMALL_CAP = 16 * 1024
PUBLIC_V4 = "93.184.216.34"


# --- Fixtures ----------------------------------------------------------------------------------


class Dials:
    """Every socket connect attempted during a test (the guard refuses non-loopback ones)."""

    def __init__(self) -> None:
        self.addresses: list[str] = []

    def hosts(self) -> list[str]:
        """The addresses dialled, in order."""
        return list(self.addresses)


@pytest.fixture(autouse=True)
def dials(monkeypatch: pytest.MonkeyPatch) -> Dials:
    """Guard: record each connect; anything but loopback raises before a packet is sent.
    The system resolver is off limits too: tests map names with :class:`FakeDns`."""
    record = Dials()

    def no_dns(host: str, port: int) -> list[str]:
        raise AssertionError(f"test used real DNS for {host!r}")

    monkeypatch.setattr(logo_fetch, "system_resolver", no_dns)
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def _check(address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else None
        record.addresses.append(str(host))
        if host is None or not ipaddress.ip_address(str(host).split("%")[0]).is_loopback:
            raise AssertionError(f"test tried to connect to non-loopback {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        _check(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _check(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    return record


class FakeDns:
    """An injectable resolver: a fixed table, every call recorded."""

    def __init__(self, table: dict[str, list[str]] | None = None,
                 answers: Callable[[str, int], list[str]] | None = None) -> None:
        self.table = table or {}
        self.answers = answers
        self.calls: list[tuple[str, int]] = []
        self._lock = threading.Lock()

    def __call__(self, host: str, port: int) -> list[str]:
        with self._lock:
            self.calls.append((host, port))
        if self.answers is not None:
            return self.answers(host, port)
        if host not in self.table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.table[host]


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> TlsMaterial:
    """A CA and a certificate for logo.example.test, made once per module."""
    return make_tls_material(tmp_path_factory.mktemp("tls"))


def _png_with_alpha(size: tuple[int, int] = (96, 64),
                    box: tuple[int, int, int, int] = (20, 10, 70, 50)) -> bytes:
    """Transparent canvas with an opaque red rectangle and a half-transparent blue one."""
    image = Image.new("RGBA", size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rectangle(box, fill=(220, 30, 30, 255))
    draw.rectangle((box[0], box[1], box[0] + 10, box[1] + 10), fill=(30, 30, 220, 128))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def _jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (10, 120, 200)).save(buffer, "JPEG")
    return buffer.getvalue()


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@functools.lru_cache(maxsize=1)
def png_bomb(side: int = 6000) -> bytes:
    """A genuine PNG of ``side`` x ``side`` black 8-bit gray pixels: 36 MB of pixels (over the
    logo's pixel cap, under the photos') in ~35 KB, a decompression bomb."""
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)  # 8-bit gray, no interlace
    deflate = zlib.compressobj(9)
    rows = (b"\0" + b"\0" * side) * 250  # filter byte + pixels, 250 rows per call
    body = b"".join(deflate.compress(rows) for _ in range(side // 250)) + deflate.flush()
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", body)
            + _png_chunk(b"IEND", b""))


SVG = (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
       b'<image href="https://169.254.169.254/latest/meta-data/"/></svg>')


def _routes(server_url: Callable[[str], str], stopping: threading.Event
            ) -> dict[str, Callable[[LogoHandler], None]]:
    png = _png_with_alpha()

    def chunked(handler: LogoHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        block = b"\x89PNG" + b"\0" * 4092
        for _ in range(16):  # 64 KiB, no Content-Length
            handler.wfile.write(b"%x\r\n%b\r\n" % (len(block), block))
        handler.wfile.write(b"0\r\n\r\n")

    def declared_big(handler: LogoHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Content-Length", str(50 * 1024 * 1024))
        handler.end_headers()
        handler.wfile.write(png)

    def slow(handler: LogoHandler) -> None:
        stopping.wait(30)

    def trickle(handler: LogoHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "image/png")
        handler.send_header("Content-Length", str(len(png)))
        handler.end_headers()
        for byte in png:  # one byte every 50 ms: each read is quick, the whole is not
            if stopping.wait(0.05):
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()

    return {
        "/logo.png": lambda h: h.send_body(200, png, "image/png"),
        "/logo.jpg": lambda h: h.send_body(200, _jpeg(), "image/jpeg"),
        "/logo.svg": lambda h: h.send_body(200, SVG, "image/svg+xml"),
        "/disguised.png": lambda h: h.send_body(200, SVG, "image/png"),
        "/text": lambda h: h.send_body(200, b"hello, not a picture", "image/png"),
        "/bomb.png": lambda h: h.send_body(200, png_bomb(), "image/png"),
        "/big-declared": declared_big,
        "/big-chunked": chunked,
        "/slow": slow,
        "/trickle": trickle,
        "/to-metadata": lambda h: h.redirect("https://169.254.169.254/latest/meta-data/"),
        "/to-private-name": lambda h: h.redirect("https://internal.example.test/logo.png"),
        "/to-http": lambda h: h.redirect(server_url("/logo.png").replace("https:", "http:")),
        "/to-decimal": lambda h: h.redirect("https://2130706433/logo.png"),
        "/to-unparsable": lambda h: h.redirect("https://[::1/logo.png"),
        "/to-logo": lambda h: h.redirect("/logo.png", 301),
        "/loop": lambda h: h.redirect("/loop", 307),
    }


@pytest.fixture
def server(tls: TlsMaterial) -> Iterator[LogoServer]:
    """The HTTPS logo server on 127.0.0.1, fresh per test (its request log starts empty)."""
    srv = LogoServer(tls)
    srv.routes.update(_routes(srv.url, srv.stopping))
    with srv:
        yield srv


@pytest.fixture
def loopback_dns() -> FakeDns:
    """logo.example.test -> 127.0.0.1, internal.example.test -> a private address."""
    return FakeDns({LOGO_HOST: ["127.0.0.1"], "internal.example.test": ["10.0.0.5"]})


def _fetch_local(server: LogoServer, tls: TlsMaterial, dns: FakeDns, path: str, dest: Path,
                 **overrides: Any) -> LogoResult:
    """A fetch from the local server: loopback admitted, the server's port allowed."""
    options: dict[str, Any] = {"resolver": dns, "verify": tls.ca_cert,
                               "allowed_ports": (443, server.port),
                               "allow_loopback_for_tests": True, "timeout_s": 5.0}
    options.update(overrides)
    return fetch_logo(server.url(path), dest, **options)


def _refusal(url: str, dest: Path, **options: Any) -> LogoRefused:
    with pytest.raises(LogoRefused) as caught:
        fetch_logo(url, dest, **options)
    return caught.value


# --- Happy paths -------------------------------------------------------------------------------


def test_png_with_alpha_is_saved_as_trimmed_rgba(server: LogoServer, tls: TlsMaterial,
                                                 loopback_dns: FakeDns, tmp_path: Path,
                                                 dials: Dials) -> None:
    result = _fetch_local(server, tls, loopback_dns, "/logo.png", tmp_path / "logo.png")

    with Image.open(result.path) as saved:
        assert saved.format == "PNG" and saved.mode == "RGBA"
        assert saved.size == (51, 41) == (result.width, result.height)  # trimmed to content
        assert saved.getpixel((0, 0))[3] == 128 and saved.getpixel((30, 30)) == (220, 30, 30, 255)
    assert result.address == "127.0.0.1" and result.redirects == 0
    assert result.source_format == "PNG"
    assert server.requests == [("/logo.png", f"{LOGO_HOST}:{server.port}")]
    assert loopback_dns.calls == [(LOGO_HOST, server.port)]
    assert dials.hosts() == ["127.0.0.1"]


def test_jpeg_logo_becomes_opaque_rgba_png(server: LogoServer, tls: TlsMaterial,
                                           loopback_dns: FakeDns, tmp_path: Path) -> None:
    result = _fetch_local(server, tls, loopback_dns, "/logo.jpg", tmp_path / "logo.png")

    with Image.open(result.path) as saved:
        assert saved.mode == "RGBA" and saved.size == (40, 30)
        assert saved.getchannel("A").getextrema() == (255, 255)


def test_same_site_redirect_is_followed_and_revetted(server: LogoServer, tls: TlsMaterial,
                                                     loopback_dns: FakeDns,
                                                     tmp_path: Path) -> None:
    result = _fetch_local(server, tls, loopback_dns, "/to-logo", tmp_path / "logo.png")

    assert result.redirects == 1 and result.final_url == server.url("/logo.png")
    assert server.paths() == ["/to-logo", "/logo.png"]
    assert len(loopback_dns.calls) == 2  # every hop resolved (and checked) again


def test_dns_answer_is_pinned_so_rebinding_after_the_check_changes_nothing(
        server: LogoServer, tls: TlsMaterial, tmp_path: Path, dials: Dials) -> None:
    answers = iter([["127.0.0.1"], ["10.0.0.5"], ["10.0.0.5"]])
    rebinding = FakeDns(answers=lambda host, port: next(answers))

    result = _fetch_local(server, tls, rebinding, "/logo.png", tmp_path / "logo.png")

    assert result.address == "127.0.0.1"
    assert len(rebinding.calls) == 1 and dials.hosts() == ["127.0.0.1"]


# --- SSRF: addresses refused before any connection -------------------------------------------

BLOCKED_ANSWERS = [
    pytest.param("10.0.0.5", id="private-10"),
    pytest.param("192.168.1.1", id="private-192.168"),
    pytest.param("172.16.0.1", id="private-172.16"),
    pytest.param("127.0.0.1", id="loopback-v4"),
    pytest.param("127.8.9.10", id="loopback-v4-range"),
    pytest.param("::1", id="loopback-v6"),
    pytest.param("169.254.10.10", id="link-local"),
    pytest.param("fe80::1", id="link-local-v6"),
    pytest.param("100.64.0.1", id="cgnat"),
    pytest.param("169.254.169.254", id="metadata-v4"),
    pytest.param("fd00:ec2::254", id="metadata-v6"),
    pytest.param("fc00::1", id="unique-local-v6"),
    pytest.param("::ffff:127.0.0.1", id="ipv4-mapped-loopback"),
    pytest.param("::ffff:10.0.0.1", id="ipv4-mapped-private"),
    pytest.param("::ffff:169.254.169.254", id="ipv4-mapped-metadata"),
    pytest.param("2002:a00:1::", id="6to4-private"),
    pytest.param("64:ff9b::7f00:1", id="nat64-loopback"),
    pytest.param("::7f00:1", id="ipv4-compatible-loopback"),
    pytest.param("0.0.0.0", id="unspecified-v4"),
    pytest.param("::", id="unspecified-v6"),
    pytest.param("224.0.0.1", id="multicast"),
    pytest.param("240.0.0.1", id="reserved"),
    pytest.param("198.18.0.1", id="benchmarking"),
]


@pytest.mark.parametrize("answer", BLOCKED_ANSWERS)
def test_hostname_resolving_to_a_non_public_address_is_refused_before_connecting(
        answer: str, tmp_path: Path, dials: Dials) -> None:
    dns = FakeDns({LOGO_HOST: [answer]})

    refused = _refusal(f"https://{LOGO_HOST}/logo.png", tmp_path / "logo.png", resolver=dns)

    assert refused.reason == "blocked_address", refused
    assert dns.calls == [(LOGO_HOST, 443)]
    assert dials.hosts() == []


@pytest.mark.parametrize("answers", [
    pytest.param([PUBLIC_V4, "10.0.0.5"], id="public-then-private"),
    pytest.param(["10.0.0.5", PUBLIC_V4], id="private-then-public"),
    pytest.param([PUBLIC_V4, "2606:4700::1", "::ffff:127.0.0.1"], id="public-then-mapped"),
])
def test_hostname_with_any_non_public_address_is_refused(answers: list[str], tmp_path: Path,
                                                          dials: Dials) -> None:
    refused = _refusal(f"https://{LOGO_HOST}/logo.png", tmp_path / "logo.png",
                       resolver=FakeDns({LOGO_HOST: answers}))

    assert refused.reason == "blocked_address"
    assert dials.hosts() == []


def test_loopback_server_is_refused_under_the_default_policy(server: LogoServer, tls: TlsMaterial,
                                                              loopback_dns: FakeDns,
                                                              tmp_path: Path,
                                                              dials: Dials) -> None:
    refused = _refusal(server.url("/logo.png"), tmp_path / "logo.png", resolver=loopback_dns,
                       verify=tls.ca_cert, allowed_ports=(server.port,))

    assert refused.reason == "blocked_address"
    assert server.requests == [] and dials.hosts() == []


def test_loopback_allowance_for_tests_admits_nothing_but_loopback(tmp_path: Path,
                                                                  dials: Dials) -> None:
    dns = FakeDns({LOGO_HOST: ["127.0.0.1", "10.0.0.5"]})

    refused = _refusal(f"https://{LOGO_HOST}/logo.png", tmp_path / "logo.png", resolver=dns,
                       allow_loopback_for_tests=True)

    assert refused.reason == "blocked_address" and "10.0.0.5" in refused.detail
    assert dials.hosts() == []


@pytest.mark.parametrize("url", [
    pytest.param("https://10.0.0.5/logo.png", id="private-literal"),
    pytest.param("https://127.0.0.1/logo.png", id="loopback-literal"),
    pytest.param("https://[::1]/logo.png", id="loopback-v6-literal"),
    pytest.param("https://169.254.169.254/latest/meta-data/", id="metadata-literal"),
    pytest.param("https://[fd00:ec2::254]/", id="metadata-v6-literal"),
    pytest.param("https://100.64.0.1/", id="cgnat-literal"),
    pytest.param("https://[::ffff:127.0.0.1]/logo.png", id="ipv4-mapped-loopback-literal"),
    pytest.param("https://[::ffff:a00:1]/logo.png", id="ipv4-mapped-private-hex-literal"),
    pytest.param("https://2130706433/logo.png", id="decimal"),
    pytest.param("https://0x7f000001/logo.png", id="hex-integer"),
    pytest.param("https://0x7f.0.0.1/logo.png", id="hex-dotted"),
    pytest.param("https://0177.0.0.1/logo.png", id="octal-dotted"),
    pytest.param("https://017700000001/logo.png", id="octal-integer"),
    pytest.param("https://127.1/logo.png", id="short-form"),
    pytest.param("https://0/logo.png", id="zero"),
    pytest.param("https://10.1/logo.png", id="short-private"),
    pytest.param("https://0xa9fea9fe/latest/meta-data/", id="hex-metadata"),
])
def test_ip_literal_hosts_in_any_form_are_refused_without_dns(url: str, tmp_path: Path,
                                                              dials: Dials) -> None:
    dns = FakeDns()

    refused = _refusal(url, tmp_path / "logo.png", resolver=dns)

    assert refused.reason == "blocked_address", refused
    assert dns.calls == [] and dials.hosts() == []


def test_non_canonical_numeric_host_is_refused_even_when_public(tmp_path: Path,
                                                                dials: Dials) -> None:
    dns = FakeDns()

    refused = _refusal("https://134744072/logo.png", tmp_path / "logo.png", resolver=dns)

    assert refused.reason == "bad_url"
    assert dns.calls == [] and dials.hosts() == []


# --- SSRF: URL shape ---------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "http://logo.example.test/logo.png",
    "HTTP://logo.example.test/logo.png",
    "file:///etc/passwd",
    "ftp://logo.example.test/logo.png",
    "gopher://logo.example.test:70/_GET",
    "data:image/png;base64,iVBORw0KGgo=",
    "javascript:alert(1)",
    "//logo.example.test/logo.png",
    "logo.example.test/logo.png",
])
def test_anything_but_https_is_refused(url: str, tmp_path: Path, dials: Dials) -> None:
    dns = FakeDns({LOGO_HOST: [PUBLIC_V4]})

    refused = _refusal(url, tmp_path / "logo.png", resolver=dns)

    assert refused.reason == "not_https"
    assert dns.calls == [] and dials.hosts() == []


@pytest.mark.parametrize(("url", "reason"), [
    ("https://user:secret@logo.example.test/logo.png", "bad_url"),
    ("https://logo.example.test@10.0.0.5/logo.png", "bad_url"),
    ("https://logo.example.test\\@10.0.0.5/logo.png", "bad_url"),
    ("https://logo.example.test:8443/logo.png", "blocked_port"),
    ("https://logo.example.test:22/logo.png", "blocked_port"),
    ("https://logo.example.test:99999/logo.png", "bad_url"),
    ("https:///logo.png", "bad_url"),
    ("https://logo.example.test /logo.png", "bad_url"),
    ("https://logo.example.test\r\nHost: x/logo.png", "bad_url"),
    ("https://256.0.0.1/logo.png", "bad_url"),
    ("https://1.2.3.4.5/logo.png", "bad_url"),
    ("https://logo_example.test/logo.png", "bad_url"),
    ("https://127%2E0%2E0%2E1/logo.png", "bad_url"),
    ("https://[::1/logo.png", "bad_url"),
    ("https://[::::]/logo.png", "bad_url"),
    ("https://logo.example.test]/logo.png", "bad_url"),
])
def test_malformed_or_disguised_urls_are_refused(url: str, reason: str, tmp_path: Path,
                                                 dials: Dials) -> None:
    dns = FakeDns({LOGO_HOST: [PUBLIC_V4]})

    refused = _refusal(url, tmp_path / "logo.png", resolver=dns)

    assert refused.reason == reason, refused
    assert dns.calls == [] and dials.hosts() == []


def test_unknown_hostname_fails_without_connecting(tmp_path: Path, dials: Dials) -> None:
    refused = _refusal("https://nowhere.example.test/logo.png", tmp_path / "logo.png",
                       resolver=FakeDns())

    assert refused.reason == "fetch_failed"
    assert dials.hosts() == []


# --- Redirects ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/to-metadata", "/to-private-name", "/to-http", "/to-decimal",
                                  "/to-unparsable"])
def test_redirect_out_of_policy_is_refused_before_following(path: str, server: LogoServer,
                                                            tls: TlsMaterial,
                                                            loopback_dns: FakeDns,
                                                            tmp_path: Path,
                                                            dials: Dials) -> None:
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, path, tmp_path / "logo.png")

    assert caught.value.reason == "redirect_blocked", caught.value
    assert server.paths() == [path]
    assert dials.hosts() == ["127.0.0.1"]  # only the first hop, to the test server


def test_redirect_loop_stops_at_the_limit(server: LogoServer, tls: TlsMaterial,
                                          loopback_dns: FakeDns, tmp_path: Path) -> None:
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, "/loop", tmp_path / "logo.png", max_redirects=2)

    assert caught.value.reason == "too_many_redirects"
    assert server.paths() == ["/loop"] * 3


# --- TLS ---------------------------------------------------------------------------------------


def test_certificate_is_checked_against_the_hostname_not_the_pinned_ip(
        server: LogoServer, tls: TlsMaterial, tmp_path: Path) -> None:
    dns = FakeDns({"other.example.test": ["127.0.0.1"]})

    with pytest.raises(LogoRefused) as caught:
        fetch_logo(server.url("/logo.png", host="other.example.test"), tmp_path / "logo.png",
                   resolver=dns, verify=tls.ca_cert, allowed_ports=(server.port,),
                   allow_loopback_for_tests=True)

    assert caught.value.reason == "fetch_failed"
    assert "CERTIFICATE_VERIFY_FAILED" in caught.value.detail
    assert server.requests == []


def test_untrusted_certificate_is_refused_by_default(server: LogoServer, loopback_dns: FakeDns,
                                                     tmp_path: Path) -> None:
    with pytest.raises(LogoRefused) as caught:
        fetch_logo(server.url("/logo.png"), tmp_path / "logo.png", resolver=loopback_dns,
                   allowed_ports=(server.port,), allow_loopback_for_tests=True)

    assert caught.value.reason == "fetch_failed"
    assert server.requests == []


# --- Caps --------------------------------------------------------------------------------------


def test_declared_oversize_body_is_refused(server: LogoServer, tls: TlsMaterial,
                                           loopback_dns: FakeDns, tmp_path: Path) -> None:
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, "/big-declared", tmp_path / "logo.png")

    assert caught.value.reason == "too_large"
    assert "Content-Length" in caught.value.detail


def test_chunked_body_is_counted_and_cut_at_the_cap(server: LogoServer, tls: TlsMaterial,
                                                    loopback_dns: FakeDns,
                                                    tmp_path: Path) -> None:
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, "/big-chunked", tmp_path / "logo.png",
                     max_bytes=SMALL_CAP)

    assert caught.value.reason == "too_large"
    assert list(tmp_path.iterdir()) == []  # partial download removed


def test_server_that_never_answers_times_out(server: LogoServer, tls: TlsMaterial,
                                             loopback_dns: FakeDns, tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, "/slow", tmp_path / "logo.png", timeout_s=0.5)

    assert caught.value.reason == "timeout"
    assert time.monotonic() - started < 5.0  # the 0.5 s deadline held (the server never answers)


def test_trickling_body_hits_the_total_deadline_not_just_a_read_timeout(
        server: LogoServer, tls: TlsMaterial, loopback_dns: FakeDns, tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, "/trickle", tmp_path / "logo.png",
                     timeout_s=0.6)

    assert caught.value.reason == "timeout"
    assert time.monotonic() - started < 5.0  # the 0.6 s total deadline held


def test_slow_dns_counts_against_the_deadline(tmp_path: Path, dials: Dials) -> None:
    release = threading.Event()

    def stalled(host: str, port: int) -> list[str]:
        release.wait(5)
        return ["127.0.0.1"]

    try:
        refused = _refusal(f"https://{LOGO_HOST}/logo.png", tmp_path / "logo.png",
                           resolver=FakeDns(answers=stalled), timeout_s=0.3)
    finally:
        release.set()
    assert refused.reason == "timeout" and dials.hosts() == []


# --- Bytes -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/logo.svg", "/disguised.png"])
def test_svg_is_refused_by_type_or_by_bytes(path: str, server: LogoServer, tls: TlsMaterial,
                                            loopback_dns: FakeDns, tmp_path: Path) -> None:
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, path, tmp_path / "logo.png")

    assert caught.value.reason == "svg_refused"
    assert not (tmp_path / "logo.png").exists()


def test_bytes_that_are_not_an_image_are_refused(server: LogoServer, tls: TlsMaterial,
                                                 loopback_dns: FakeDns, tmp_path: Path) -> None:
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, "/text", tmp_path / "logo.png")

    assert caught.value.reason == "not_an_image"


def test_decompression_bomb_logo_is_refused_as_too_large_before_decoding(
        server: LogoServer, tls: TlsMaterial, loopback_dns: FakeDns, tmp_path: Path) -> None:
    bomb = png_bomb()
    assert len(bomb) < logo_fetch.LOGO_MAX_BYTES and LOGO_MAX_PIXELS < 6000 * 6000
    started = time.monotonic()
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, "/bomb.png", tmp_path / "logo.png")

    assert caught.value.reason == "image_too_large", caught.value
    assert "6000x6000" in caught.value.detail
    assert time.monotonic() - started < 10.0
    assert not (tmp_path / "logo.png").exists()


def test_the_worker_process_never_decodes_a_logo(server: LogoServer, tls: TlsMaterial,
                                                 loopback_dns: FakeDns, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import media.intake.logo

    def refuse_in_process(*_: object, **__: object) -> None:
        raise AssertionError("a logo decoded in the worker process")

    monkeypatch.setattr(media.intake.logo, "prepare_logo", refuse_in_process)
    result = _fetch_local(server, tls, loopback_dns, "/logo.png", tmp_path / "logo.png")

    assert (result.width, result.height) == (51, 41)


def test_missing_logo_is_a_fetch_failure(server: LogoServer, tls: TlsMaterial,
                                         loopback_dns: FakeDns, tmp_path: Path) -> None:
    with pytest.raises(LogoRefused) as caught:
        _fetch_local(server, tls, loopback_dns, "/nope.png", tmp_path / "logo.png")

    assert caught.value.reason == "fetch_failed" and "404" in caught.value.detail


def test_address_policy_names_the_problem() -> None:
    assert address_problem(ipaddress.ip_address("::ffff:169.254.169.254")) == (
        "embedded 169.254.169.254 metadata")
    assert address_problem(ipaddress.ip_address("100.64.0.1")) == "cgnat"
    assert address_problem(ipaddress.ip_address(PUBLIC_V4)) is None
    assert address_problem(ipaddress.ip_address("2606:4700::1")) is None
    assert address_problem(ipaddress.ip_address("::1"), allow_loopback=True) is None


def test_refusal_survives_pickling() -> None:
    import pickle

    copy = pickle.loads(pickle.dumps(LogoRefused("too_large", "big")))
    assert (copy.reason, copy.detail) == ("too_large", "big")


# --- Assets stage wiring -----------------------------------------------------------------------


def _brand_order(logo_url: str | None, style: str = "brand") -> FilmOrder:
    gift = "logo01"
    body: dict[str, Any] = {
        "gift_id": gift, "attempt": 1, "charge_id": "ch_1", "share_slug": "slogo01",
        "style": style,
        "occasion": {"slug": "birthday", "name": "Birthday", "short_name": "Happy Birthday",
                     "tone": "joyful"},
        "recipient_name": "Ana", "relationship": "friend", "length_sec": 30,
        "photos": [{"id": "p01", "key": photo_key(gift, "p01", "jpg"), "mime": "image/jpeg"}],
        "consent": {"accepted": True, "at": datetime.now(UTC).isoformat()},
    }
    if style == "brand":
        body["brand"] = {"logo_url": logo_url, "color": "#FF6600"}
    return FilmOrder.model_validate(body)


@pytest.fixture
def stage_ctx(tmp_path: Path) -> StageContext:
    """A stage context on a local storage directory."""
    settings = Settings(FILM_STORAGE_URL=(tmp_path / "store").as_uri(),
                        FILM_WORK_DIR=tmp_path / "work")
    return StageContext(settings, LocalStorage(tmp_path / "store"))


def test_assets_stores_the_fetched_logo_under_the_run(server: LogoServer, tls: TlsMaterial,
                                                      loopback_dns: FakeDns,
                                                      stage_ctx: StageContext, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    local_fetch = functools.partial(
        fetch_logo, resolver=loopback_dns, verify=tls.ca_cert,
        allowed_ports=(server.port,), allow_loopback_for_tests=True)
    monkeypatch.setattr(assets_module, "fetch_logo", local_fetch)
    order = _brand_order(server.url("/logo.png"))
    key, notes = _brand_logo(stage_ctx, order, tmp_path)

    assert key == RunKeys("logo01", 1).logo and notes == ["logo 51x41 (PNG)"]
    with Image.open(io.BytesIO(stage_ctx.storage.get_bytes(key, 1 << 20))) as stored:
        assert stored.mode == "RGBA"


def test_assets_skips_an_unfetchable_logo_with_a_reason(stage_ctx: StageContext,
                                                        tmp_path: Path, dials: Dials) -> None:
    order = _brand_order("https://169.254.169.254/latest/meta-data/")

    key, notes = _brand_logo(stage_ctx, order, tmp_path)

    assert (key, notes) == (None, ["logo_skipped:blocked_address"])
    assert stage_ctx.storage.list("") == [] and dials.hosts() == []


def test_assets_goes_on_without_a_bomb_logo_and_says_why(server: LogoServer, tls: TlsMaterial,
                                                          loopback_dns: FakeDns,
                                                          stage_ctx: StageContext,
                                                          tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    local_fetch = functools.partial(
        fetch_logo, resolver=loopback_dns, verify=tls.ca_cert,
        allowed_ports=(server.port,), allow_loopback_for_tests=True)
    monkeypatch.setattr(assets_module, "fetch_logo", local_fetch)

    key, notes = _brand_logo(stage_ctx, _brand_order(server.url("/bomb.png")), tmp_path)

    assert (key, notes) == (None, ["logo_skipped:image_too_large"])
    assert stage_ctx.storage.list("") == []


@pytest.mark.parametrize(("logo_url", "style"), [(None, "brand"), (None, "gift")])
def test_assets_without_a_brand_logo_fetches_nothing(logo_url: str | None, style: str,
                                                     stage_ctx: StageContext, tmp_path: Path,
                                                     dials: Dials) -> None:
    order = _brand_order(logo_url, style)

    assert _brand_logo(stage_ctx, order, tmp_path) == (None, [])
    assert dials.hosts() == []


def test_assets_result_from_an_older_history_has_no_logo() -> None:
    old = AssetsResult.model_validate({
        "song_key": "s", "song_meta_key": "m", "framing_key": "f", "photo_keys": {},
        "lyrics": [], "notes": []})

    assert old.logo_key is None


def test_render_stage_reads_the_stored_logo_as_an_rgba_array(stage_ctx: StageContext,
                                                             tmp_path: Path) -> None:
    from activities.render import load_logo

    stage_ctx.storage.put_bytes("runs/assets/logo.png", _png_with_alpha(), "image/png")

    logo = load_logo(stage_ctx.storage, "runs/assets/logo.png", tmp_path)

    assert logo is not None and logo.shape == (64, 96, 4) and logo.dtype.name == "uint8"
    assert logo[0, 0, 3] == 0 and logo[30, 30, 3] == 255
    assert load_logo(stage_ctx.storage, None, tmp_path) is None
