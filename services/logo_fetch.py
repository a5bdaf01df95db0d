"""Fetch a customer's brand logo without letting the URL reach anything but the public internet.

The logo URL is customer input, so the fetch is hardened against SSRF:

- ``https`` only, no userinfo, only allowed ports (443); hosts are IDNA names or IP literals,
  and legacy numeric hosts (``2130706433``, ``0x7f.0.0.1``, ``0177.0.0.1``, ``127.1``) are
  normalized the way ``inet_aton`` reads them, checked, and refused in any case;
- the name is resolved once per hop (by an injectable resolver) and *every* address must be
  public: private, loopback, link-local, CGNAT, metadata, unspecified, multicast and reserved
  ranges are refused, including IPv4 embedded in IPv6 (mapped, 6to4, NAT64, compatible);
- the connection is pinned to the vetted address (a network backend that can only dial that
  address) while Host, SNI and certificate checks use the hostname, so DNS rebinding between
  the check and the connect changes nothing;
- redirects are followed by hand, each hop vetted again (a refused hop is ``redirect_blocked``);
- one deadline covers DNS, connects, TLS and every read; the body is capped by Content-Length
  and by counting the stream;
- the bytes are decoded like any customer photo, alpha kept, SVG refused (:mod:`media.intake.logo`),
  in a child process with time and memory limits
  (:func:`media.intake.sandbox.prepare_logo_bounded`):
  a logo declaring more pixels than :data:`media.intake.logo.LOGO_MAX_PIXELS` is refused before
  decoding (``image_too_large``), one that exceeds the child's limits as ``image_decode_limit``.

Every refusal is a :class:`LogoRefused` with a stable ``reason``; a full disk or other local
fault of ours is raised unchanged. httpcore (the transport library under httpx) is used
directly because it accepts a custom network backend, which is what makes pinning and the
strict deadline possible.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
import ssl
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urljoin, urlsplit

import httpcore

from media.base import errors as media_errors
from media.base.errors import MediaRejected
from media.intake.logo import LogoInfo
from media.intake.sandbox import prepare_logo_bounded
from services.pinned_transport import PinnedBackend

__all__ = [
    "LOGO_MAX_BYTES",
    "LOGO_MAX_REDIRECTS",
    "LOGO_TIMEOUT_S",
    "LogoRefused",
    "LogoResult",
    "Resolver",
    "address_problem",
    "fetch_logo",
    "system_resolver",
]

LOGO_MAX_BYTES = 2 * 1024 * 1024
LOGO_TIMEOUT_S = 10.0
LOGO_MAX_REDIRECTS = 3
DEFAULT_PORTS: tuple[int, ...] = (443,)
USER_AGENT = b"filmworker-logo/1"
ACCEPT = b"image/png, image/jpeg, image/webp"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

# Reasons of LogoRefused.
NOT_HTTPS = "not_https"
BAD_URL = "bad_url"
BLOCKED_PORT = "blocked_port"
BLOCKED_ADDRESS = "blocked_address"
REDIRECT_BLOCKED = "redirect_blocked"
TOO_MANY_REDIRECTS = "too_many_redirects"
TOO_LARGE = "too_large"
TIMEOUT = "timeout"
NOT_AN_IMAGE = "not_an_image"
SVG_REFUSED = "svg_refused"
IMAGE_TOO_LARGE = "image_too_large"
"""The logo declares more pixels than :data:`media.intake.logo.LOGO_MAX_PIXELS` (a decompression
bomb
or a poster, not a logo)."""
IMAGE_DECODE_LIMIT = "image_decode_limit"
"""Decoding the logo ran out of its child's time, CPU or memory."""
FETCH_FAILED = "fetch_failed"
_POLICY_REASONS = frozenset({NOT_HTTPS, BAD_URL, BLOCKED_PORT, BLOCKED_ADDRESS})

Resolver = Callable[[str, int], Iterable[str]]
"""``(hostname, port) -> IP address strings``; called once per hop, never for IP literals."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_METADATA = frozenset({ipaddress.ip_address("169.254.169.254"),
                       ipaddress.ip_address("fd00:ec2::254")})
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_HOST_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_NETWORK_ERRORS: tuple[type[Exception], ...] = (
    httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol,
    httpcore.ConnectionNotAvailable,
)


class LogoRefused(Exception):
    """The logo was not fetched. ``reason`` is a stable code, ``detail`` is for ops."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail

    def __reduce__(self) -> tuple[type[LogoRefused], tuple[str, str]]:
        return (LogoRefused, (self.reason, self.detail))


@dataclass(frozen=True)
class LogoResult:
    """A fetched, validated logo: an RGBA PNG at ``path``."""

    path: Path
    width: int
    height: int
    source_format: str
    final_url: str
    address: str
    """The vetted IP address the final hop connected to."""
    redirects: int
    bytes_fetched: int


@dataclass(frozen=True)
class _Target:
    """One vetted hop: where to send the request and the only address it may reach."""

    url: str
    host: str
    address: str


@dataclass(frozen=True)
class _Policy:
    resolver: Resolver
    allowed_ports: Collection[int]
    allow_loopback: bool
    deadline: float


def fetch_logo(url: str, dest: Path, *, resolver: Resolver | None = None,
               max_bytes: int = LOGO_MAX_BYTES, timeout_s: float = LOGO_TIMEOUT_S,
               max_redirects: int = LOGO_MAX_REDIRECTS,
               verify: ssl.SSLContext | str | Path | None = None,
               allowed_ports: Collection[int] = DEFAULT_PORTS,
               allow_loopback_for_tests: bool = False) -> LogoResult:
    """Fetch the logo at ``url`` and write it to ``dest`` as an RGBA PNG.

    ``resolver`` defaults to :func:`system_resolver`. ``verify`` is the trust for TLS: ``None``
    for the default CA bundle, a CA file path, or an :class:`ssl.SSLContext`. ``timeout_s``
    bounds the whole network part (DNS, connects, TLS, every hop, every read).
    ``allow_loopback_for_tests`` additionally admits 127.0.0.0/8 and ::1 (and nothing else):
    it exists for tests against a local server and must never be set in production.

    Raises :class:`LogoRefused` when the logo cannot or may not be fetched, or is not a usable
    image.
    """
    policy = _Policy(resolver or system_resolver, frozenset(allowed_ports),
                     allow_loopback_for_tests, time.monotonic() + timeout_s)
    download = dest.with_name(f".{dest.name}.download")
    try:
        target, redirects = _download(url, download, policy, _ssl_context(verify),
                                      max_bytes, max_redirects)
        fetched = download.stat().st_size
        info = _validate(download, dest)
    finally:
        download.unlink(missing_ok=True)
    return LogoResult(path=dest, width=info.width, height=info.height,
                      source_format=info.source_format, final_url=target.url,
                      address=target.address, redirects=redirects, bytes_fetched=fetched)


def system_resolver(host: str, port: int) -> list[str]:
    """The host's addresses from ``socket.getaddrinfo`` (TCP), in the system's order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def address_problem(ip: IPAddress, *, allow_loopback: bool = False) -> str | None:
    """Why ``ip`` may not be fetched from (``loopback``, ``private``, ...), or ``None``."""
    if allow_loopback and ip.is_loopback:
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            problem = address_problem(embedded)
            if problem is not None:
                return f"embedded {embedded} {problem}"
    return _range_problem(ip)


def _range_problem(ip: IPAddress) -> str | None:
    checks: tuple[tuple[str, bool], ...] = (
        ("metadata", ip in _METADATA),
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link_local", ip.is_link_local),
        ("cgnat", isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
        ("reserved", ip.is_reserved),
        ("site_local", isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local),
        ("not_global", not ip.is_global),
    )
    return next((name for name, hit in checks if hit), None)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address carried inside ``ip`` (mapped, 6to4, NAT64, compatible), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


# --- URL and address vetting -------------------------------------------------------------------


def _vet(url: str, policy: _Policy) -> _Target:
    """Check ``url`` fully (scheme, authority, port, every address) and pin one address."""
    host, port, path = _parse(url, policy.allowed_ports)
    literal, canonical = _ip_literal(host)
    addresses = [literal] if literal is not None else _resolve(policy, host, port)
    problems = [f"{ip} {problem}" for ip in addresses
                if (problem := address_problem(ip, allow_loopback=policy.allow_loopback))]
    if problems:
        raise LogoRefused(BLOCKED_ADDRESS, f"{host}: {', '.join(problems)}")
    if not canonical:
        raise LogoRefused(BAD_URL, f"non-canonical numeric host {host!r}")
    netloc = f"[{host}]" if ":" in host else host
    if port != DEFAULT_PORTS[0]:
        netloc = f"{netloc}:{port}"
    return _Target(url=f"https://{netloc}{path}", host=host, address=str(addresses[0]))


def _parse(url: str, allowed_ports: Collection[int]) -> tuple[str, int, str]:
    """``(ascii host, port, path with query)`` of an acceptable https URL."""
    if any(ord(char) <= 0x20 or ord(char) == 0x7F for char in url) or "\\" in url:
        raise LogoRefused(BAD_URL, "control characters, spaces or backslashes in URL")
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # "https://[::1/logo.png": unbalanced or bad IPv6 brackets
        raise LogoRefused(BAD_URL, f"unparsable URL: {exc}") from exc
    if parts.scheme.lower() != "https":
        raise LogoRefused(NOT_HTTPS, f"scheme {parts.scheme!r}")
    if "@" in parts.netloc:
        raise LogoRefused(BAD_URL, "userinfo in URL")
    try:
        port = parts.port or DEFAULT_PORTS[0]
    except ValueError as exc:
        raise LogoRefused(BAD_URL, f"port: {exc}") from exc
    if port not in allowed_ports:
        raise LogoRefused(BLOCKED_PORT, f"port {port}")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _ascii_host(parts.hostname or ""), port, path


def _ascii_host(host: str) -> str:
    """The lower-case ASCII (IDNA) form of ``host``; IPv6 literals pass through."""
    if not host:
        raise LogoRefused(BAD_URL, "no host")
    if ":" in host:
        return host
    try:
        ascii_host = host.encode("idna").decode("ascii").lower().rstrip(".")
    except UnicodeError as exc:
        raise LogoRefused(BAD_URL, f"host {host!r}: {exc}") from exc
    labels = ascii_host.split(".")
    if len(ascii_host) > 253 or not all(_HOST_LABEL.match(label) for label in labels):
        raise LogoRefused(BAD_URL, f"host {host!r}")
    return ascii_host


def _ip_literal(host: str) -> tuple[IPAddress | None, bool]:
    """``(address, canonical)`` when ``host`` is an IP literal in any form, else
    ``(None, True)``. A numeric last label makes the host an IPv4 number, read as
    ``inet_aton`` reads it (decimal, octal, hex, short forms), as browsers do."""
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host), True
        except ValueError as exc:
            raise LogoRefused(BAD_URL, f"host {host!r}") from exc
    if not _NUMERIC_LABEL.match(host.rsplit(".", 1)[-1]):
        return None, True
    try:
        ip = ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError as exc:
        raise LogoRefused(BAD_URL, f"numeric host {host!r}") from exc
    return ip, str(ip) == host


def _resolve(policy: _Policy, host: str, port: int) -> list[IPAddress]:
    """Resolve once, within the deadline (``getaddrinfo`` has no timeout of its own)."""
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="logo-dns")
    try:
        answers = list(executor.submit(policy.resolver, host, port)
                       .result(timeout=_remaining(policy.deadline)))
    except FutureTimeout as exc:
        raise LogoRefused(TIMEOUT, f"resolving {host}") from exc
    except OSError as exc:
        raise LogoRefused(FETCH_FAILED, f"resolving {host}: {exc}") from exc
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
    if not answers:
        raise LogoRefused(FETCH_FAILED, f"{host} has no address")
    try:
        return [ipaddress.ip_address(answer) for answer in answers]
    except ValueError as exc:
        raise LogoRefused(BLOCKED_ADDRESS, f"{host}: unreadable address: {exc}") from exc


def _remaining(deadline: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise LogoRefused(TIMEOUT, "time budget spent")
    return remaining


# --- Transfer ----------------------------------------------------------------------------------


def _download(url: str, sink_path: Path, policy: _Policy, ssl_context: ssl.SSLContext | None,
              max_bytes: int, max_redirects: int) -> tuple[_Target, int]:
    """Follow redirects by hand, vetting every hop; the final body lands in ``sink_path``."""
    target, redirects = _vet(url, policy), 0
    while True:
        with open(sink_path, "wb") as sink:
            location = _get(target, ssl_context, policy.deadline, max_bytes, sink)
        if location is None:
            return target, redirects
        if redirects >= max_redirects:
            raise LogoRefused(TOO_MANY_REDIRECTS, f"more than {max_redirects}")
        target, redirects = _vet_redirect(target.url, location, policy), redirects + 1


def _vet_redirect(base: str, location: str, policy: _Policy) -> _Target:
    """Vet the target of a redirect from ``base`` to ``location``; a policy refusal (an
    unparsable ``location`` included) becomes ``redirect_blocked``."""
    try:
        try:
            url = urljoin(base, location)
        except ValueError as exc:
            raise LogoRefused(BAD_URL, f"unparsable Location: {exc}") from exc
        return _vet(url, policy)
    except LogoRefused as exc:
        if exc.reason not in _POLICY_REASONS:
            raise
        raise LogoRefused(REDIRECT_BLOCKED, f"{exc.reason}: {exc.detail}") from exc


def _get(target: _Target, ssl_context: ssl.SSLContext | None, deadline: float,
         max_bytes: int, sink: BinaryIO) -> str | None:
    """GET one hop over a connection pinned to ``target.address``. Returns the redirect
    location, or ``None`` once the body is in ``sink``."""
    backend = PinnedBackend(target.host, target.address, deadline)
    headers = [(b"User-Agent", USER_AGENT), (b"Accept", ACCEPT),
               (b"Accept-Encoding", b"identity")]
    remaining = _remaining(deadline)
    timeouts = dict.fromkeys(("connect", "read", "write", "pool"), remaining)
    with _network_errors(target), httpcore.ConnectionPool(
            ssl_context=ssl_context, network_backend=backend, retries=0) as pool, \
            pool.stream("GET", target.url, headers=headers,
                        extensions={"timeout": timeouts}) as response:
        if response.status in REDIRECT_STATUSES:
            return _location(response)
        if response.status != 200:
            raise LogoRefused(FETCH_FAILED, f"HTTP {response.status} from {target.url}")
        _check_headers(response, max_bytes)
        _copy_capped(response.iter_stream(), sink, max_bytes)
    return None


@contextlib.contextmanager
def _network_errors(target: _Target) -> Iterator[None]:
    """Turn transport errors into :class:`LogoRefused` (``timeout`` or ``fetch_failed``)."""
    try:
        yield
    except httpcore.TimeoutException as exc:
        raise LogoRefused(TIMEOUT, f"{target.url}: {exc}") from exc
    except _NETWORK_ERRORS as exc:
        raise LogoRefused(FETCH_FAILED, f"{target.url}: {type(exc).__name__}: {exc}") from exc


def _header(response: httpcore.Response, name: bytes) -> str | None:
    values = [value for key, value in response.headers if key.lower() == name]
    return values[0].decode("latin-1").strip() if values else None


def _location(response: httpcore.Response) -> str:
    location = _header(response, b"location")
    if not location:
        raise LogoRefused(FETCH_FAILED, f"HTTP {response.status} without Location")
    return location


def _check_headers(response: httpcore.Response, max_bytes: int) -> None:
    """Refuse an SVG by its declared type and a body declared larger than ``max_bytes``."""
    content_type = (_header(response, b"content-type") or "").lower()
    if "svg" in content_type:
        raise LogoRefused(SVG_REFUSED, f"Content-Type {content_type}")
    length = _header(response, b"content-length")
    if length is not None and length.isdigit() and int(length) > max_bytes:
        raise LogoRefused(TOO_LARGE, f"Content-Length {length} > {max_bytes}")


def _copy_capped(chunks: Iterable[bytes], sink: BinaryIO, max_bytes: int) -> None:
    """Copy the body, aborting as soon as it passes ``max_bytes``."""
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > max_bytes:
            raise LogoRefused(TOO_LARGE, f"body passed {max_bytes} bytes")
        sink.write(chunk)


def _ssl_context(verify: ssl.SSLContext | str | Path | None) -> ssl.SSLContext | None:
    """``None`` means httpcore's default (certificate and hostname verified)."""
    if verify is None or isinstance(verify, ssl.SSLContext):
        return verify
    return ssl.create_default_context(cafile=str(verify))


_NAMED_REJECTIONS = {media_errors.SVG_REFUSED: SVG_REFUSED,
                     media_errors.IMAGE_TOO_LARGE: IMAGE_TOO_LARGE,
                     media_errors.IMAGE_DECODE_LIMIT: IMAGE_DECODE_LIMIT}


def _validate(download: Path, dest: Path) -> LogoInfo:
    """Decode the download like a photo (alpha kept) into ``dest``, in a bounded child."""
    try:
        return prepare_logo_bounded(download, dest)
    except MediaRejected as exc:
        reason = _NAMED_REJECTIONS.get(exc.reason, NOT_AN_IMAGE)
        raise LogoRefused(reason, str(exc)) from exc


# --- Pinned, deadline-bound network backend -----------------------------------------------------
