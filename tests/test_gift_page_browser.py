"""The gift page in a real browser: Debian's headless Chromium driven by Playwright's Python client.

A delivered folder (two short films at the output spec's frame sizes, a poster and the page) is
served over loopback HTTP with Range support, as a CDN would serve it. Chromium runs with
background networking off and a proxy that leads nowhere, so anything that tried to leave
loopback would fail loudly; every request the pages make is recorded and checked anyway.

Skips (with the reason) only when Chromium or the Playwright package is missing: ``make test``
installs both where it can.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from media.analysis.subjects import Box
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.base.spec import LANDSCAPE, PORTRAIT
from media.cards.spec import CardSpec
from media.deliver.gift_page import GiftPage, PageLinks, render_gift_page
from media.deliver.layout import PosterLayout, layout_from_dict
from media.deliver.poster import make_posters

pytestmark = pytest.mark.e2e

LANDSCAPE_SEC, PORTRAIT_SEC = 3.0, 3.5  # different on purpose: the duration names the film
PHONE = {"width": 390, "height": 844}
PHONE_ROTATED = {"width": 844, "height": 390}
DESKTOP = {"width": 1440, "height": 900}
SHARE_SLUG = "sBrowserTest0001"
SCREENSHOTS = {"phone": Path("/tmp/giftpage-phone.png"),
               "desktop": Path("/tmp/giftpage-desktop.png")}
BROWSER_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
    "--proxy-server=http://127.0.0.1:9",  # a closed port: nothing off loopback gets through
]
HOSTILE = '<script>alert(1)</script> "Bob" </title> "><img src=x onerror=alert(1)> {{x}}'
CRAFTED = {
    # the name at the top, a face low on the left (16:9); a pet filling the middle, the name
    # under it (9:16)
    "name-top": {LANDSCAPE.name: PosterLayout(text=Box(0.1, 0.05, 0.9, 0.3),
                                              subject=Box(0.05, 0.42, 0.5, 0.97)),
                 PORTRAIT.name: PosterLayout(text=Box(0.1, 0.68, 0.9, 0.84),
                                             subject=Box(0.15, 0.2, 0.85, 0.64))},
    # the name at the foot beside a subject on the right (16:9); a face at the top, the name
    # at the foot (9:16)
    "name-foot": {LANDSCAPE.name: PosterLayout(text=Box(0.08, 0.8, 0.6, 0.96),
                                               subject=Box(0.6, 0.1, 0.95, 0.75)),
                  PORTRAIT.name: PosterLayout(text=Box(0.1, 0.86, 0.9, 0.96),
                                              subject=Box(0.25, 0.05, 0.75, 0.4))},
}
"""Pages whose posters report these layouts (by aspect name): the button and the bar must
find the clear room wherever it is."""
CROWDED = {aspect: PosterLayout(text=Box(0.15, 0.49, 0.85, 0.8), subject=Box(0.0, 0.0, 1.0, 0.85))
           for aspect in (LANDSCAPE.name, PORTRAIT.name)}
"""A page whose subject fills the poster around the words: no room is clear of both."""
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".mp4": "video/mp4", ".jpg": "image/jpeg",
                 ".png": "image/png", ".json": "application/json"}


# --- The delivered folder ------------------------------------------------------------------------


def make_film(path: Path, width: int, height: int, seconds: float, pattern: str) -> Path:
    """A short H.264/AAC MP4 at ``width`` x ``height``, 30 fps, with a tone, moov first."""
    run_tool(ffmpeg_argv(
        "-f", "lavfi", "-i", f"{pattern}=size={width}x{height}:rate=30",
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
        "-t", f"{seconds}", "-c:v", "libx264", "-preset", "ultrafast", "-profile:v", "high",
        "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-ar", "48000",
        "-movflags", "+faststart", str(path)), Limits(timeout_s=120))
    return path


def deliver_folder(folder: Path, base_url: str) -> Path:
    """``folder`` as the deliver stage leaves it: both films, the poster and the gift pages."""
    folder.mkdir(parents=True)
    make_film(folder / f"{LANDSCAPE.name}.mp4", LANDSCAPE.width, LANDSCAPE.height,
              LANDSCAPE_SEC, "testsrc2")
    make_film(folder / f"{PORTRAIT.name}.mp4", PORTRAIT.width, PORTRAIT.height, PORTRAIT_SEC,
              "testsrc")
    posters = make_posters([(folder / f"{LANDSCAPE.name}.mp4", folder / "poster.jpg"),
                            (folder / f"{PORTRAIT.name}.mp4", folder / "poster-9x16.jpg")],
                           1.0, CardSpec("opening", ("Happy Birthday", "Eileen")))
    layouts = {LANDSCAPE.name: posters[0].layout, PORTRAIT.name: posters[1].layout}
    (folder / "layouts.json").write_text(json.dumps(
        {name: layout.to_dict() for name, layout in layouts.items()}), encoding="utf-8")
    links = PageLinks(page_url=f"{base_url}/index.html", poster_url=f"{base_url}/poster.jpg",
                      video_url=f"{base_url}/{LANDSCAPE.name}.mp4")
    lyrics = ["Happy birthday, Eileen!", "Remember the night we watched the launch?",
              "Proud and grateful, that's what you bring", "Here's to another year of you"]
    page = GiftPage(recipient_name="Eileen", occasion_name="Birthday", gentle=False,
                    lyrics=lyrics, links=links, poster_layouts=layouts)
    (folder / "index.html").write_text(render_gift_page(page), encoding="utf-8")
    for name, crafted in {**CRAFTED, "crowded": CROWDED}.items():
        (folder / f"{name}.html").write_text(render_gift_page(
            replace(page, poster_layouts=crafted)), encoding="utf-8")
    hostile = GiftPage(recipient_name=HOSTILE, occasion_name=HOSTILE, gentle=True,
                       lyrics=[f"Remember {HOSTILE}?"], links=links)
    (folder / "hostile.html").write_text(render_gift_page(hostile), encoding="utf-8")
    return folder


# --- A loopback static server with Range support ------------------------------------------------


_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class FolderHandler(BaseHTTPRequestHandler):
    """GET/HEAD of files under ``server.root``, with single byte ranges (video seeking)."""

    server: FolderServer

    def do_GET(self) -> None:
        """Serve a file (or a range of it)."""
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        """Headers only."""
        self._serve(send_body=False)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: requests are recorded in ``server.requests`` instead."""

    def _file(self) -> Path | None:
        relative = unquote(urlsplit(self.path).path).lstrip("/")
        path = (self.server.root / relative).resolve()
        if path.is_dir():
            path = path / "index.html"
        inside = path.is_relative_to(self.server.root.resolve())
        return path if inside and path.is_file() else None

    def _serve(self, *, send_body: bool) -> None:
        self.server.requests.append((self.command, self.path, self.headers.get("Range")))
        path = self._file()
        if path is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        size = path.stat().st_size
        start, end, status = 0, size - 1, HTTPStatus.OK
        match = _RANGE.match(self.headers.get("Range", ""))
        if match and (match[1] or match[2]):
            if match[1]:
                start, end = int(match[1]), min(int(match[2] or size - 1), size - 1)
            else:
                start = max(size - int(match[2]), 0)
            if start > end:
                self.send_response(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE)
                self.send_header("Content-Range", f"bytes */{size}")
                self.end_headers()
                return
            status = HTTPStatus.PARTIAL_CONTENT
        self.send_response(status)
        self.send_header("Content-Type", CONTENT_TYPES.get(path.suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        if status is HTTPStatus.PARTIAL_CONTENT:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        if send_body:
            with path.open("rb") as handle, contextlib.suppress(ConnectionError):
                handle.seek(start)
                self.wfile.write(handle.read(end - start + 1))


class FolderServer(ThreadingHTTPServer):
    """A static server of ``root`` on 127.0.0.1 that records every request."""

    daemon_threads = True

    def __init__(self, root: Path) -> None:
        super().__init__(("127.0.0.1", 0), FolderHandler)
        self.root = root
        self.requests: list[tuple[str, str, str | None]] = []

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.server_address[1]}"


# --- Fixtures ------------------------------------------------------------------------------------


def chromium_path() -> str:
    """Debian's Chromium, or a skip that says how to get it."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; `make test` "
                    "installs it when run as root): the gift page browser tests did not run")
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FolderServer]:
    """The delivered folder under ``/films/{slug}/``, served on loopback."""
    root = tmp_path_factory.mktemp("cdn")
    httpd = FolderServer(root)
    deliver_folder(root / "films" / SHARE_SLUG, f"{httpd.base_url}/films/{SHARE_SLUG}")
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (a fresh temporary profile) driven by Playwright's Python client."""
    executable = chromium_path()
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="the playwright package (test extra) is missing")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=BROWSER_ARGS,
                                              headless=True, timeout=120_000)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots are saved (and copied to ``SCREENSHOTS``)."""
    return tmp_path_factory.mktemp("out") / "screenshots"


@dataclass
class Watched:
    """A page and everything it did: requests, console errors, page errors and dialogs."""

    page: Any
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        """No error of any kind, and no request that left loopback."""
        assert self.errors == []
        assert self.requests, "the page made no request at all"
        outside = [url for url in self.requests if urlsplit(url).hostname != "127.0.0.1"]
        assert outside == []


@contextlib.contextmanager
def watched_page(browser: Any, viewport: dict[str, int], **context_options: Any
                 ) -> Iterator[Watched]:
    """A new page in a fresh context at ``viewport``, with everything it does recorded."""
    context = browser.new_context(viewport=viewport, **context_options)
    page = context.new_page()
    page.set_default_timeout(30_000)
    watched = Watched(page)
    page.on("request", lambda request: watched.requests.append(request.url))
    page.on("console", lambda message: watched.errors.append(
        f"console: {message.text} at {message.location.get('url')}")
        if message.type == "error" else None)
    page.on("pageerror", lambda error: watched.errors.append(f"pageerror: {error}"))
    page.on("dialog", lambda dialog: (watched.errors.append(f"dialog: {dialog.message}"),
                                      dialog.dismiss()))
    page.on("requestfailed", lambda request: watched.errors.append(
        f"requestfailed: {request.url} {request.failure}")
        if not request.url.endswith((".mp4",)) else None)  # media fetches get cancelled
    try:
        yield watched
    finally:
        context.close()


def page_url(server: FolderServer, name: str = "index.html") -> str:
    """The URL of a delivered page."""
    return f"{server.base_url}/films/{SHARE_SLUG}/{name}"


def film_state(page: Any) -> dict[str, Any]:
    """The video element's source, duration, position and playback flags."""
    return page.evaluate("""() => { const v = document.getElementById('film');
        return {src: v.currentSrc, duration: v.duration, time: v.currentTime, paused: v.paused,
                muted: v.muted, ready: v.readyState, poster: v.poster,
                aspect: document.getElementById('stage').dataset.aspect,
                playHidden: document.getElementById('play').hidden}; }""")


def wait_for_metadata(page: Any, film: str) -> dict[str, Any]:
    """Wait until ``film`` (a file name) is the source and its metadata has loaded."""
    page.wait_for_function(
        """(film) => { const v = document.getElementById('film');
            return v.readyState >= 1 && v.currentSrc.endsWith('/' + film); }""", arg=film)
    return film_state(page)


def save_screenshot(page: Any, folder: Path, name: str) -> Path:
    """Screenshot of the viewport into ``folder`` and into ``SCREENSHOTS[name]``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"giftpage-{name}.png"
    page.screenshot(path=str(path))
    shutil.copyfile(path, SCREENSHOTS[name])
    return path


# --- Tests ---------------------------------------------------------------------------------------


def test_phone_viewport_plays_the_portrait_film_with_its_duration(
        browser: Any, server: FolderServer, screenshots: Path) -> None:
    with watched_page(browser, PHONE, device_scale_factor=2, has_touch=True) as watched:
        watched.page.goto(page_url(server))
        state = wait_for_metadata(watched.page, f"{PORTRAIT.name}.mp4")
        assert state["aspect"] == "portrait"
        assert state["poster"].endswith("/poster-9x16.jpg")  # the 9:16 poster on a phone
        assert state["duration"] == pytest.approx(PORTRAIT_SEC, abs=0.1)
        assert state["paused"] and not state["playHidden"], "no autoplay; the play button shows"
        watched.page.wait_for_load_state("networkidle")
        assert save_screenshot(watched.page, screenshots, "phone").stat().st_size > 10_000
        watched.assert_clean()


def test_desktop_viewport_plays_the_landscape_film_with_its_duration(
        browser: Any, server: FolderServer, screenshots: Path) -> None:
    with watched_page(browser, DESKTOP) as watched:
        watched.page.goto(page_url(server))
        state = wait_for_metadata(watched.page, f"{LANDSCAPE.name}.mp4")
        assert state["aspect"] == "landscape"
        assert state["poster"].endswith("/poster.jpg")
        assert state["duration"] == pytest.approx(LANDSCAPE_SEC, abs=0.1)
        watched.page.wait_for_load_state("networkidle")
        assert save_screenshot(watched.page, screenshots, "desktop").stat().st_size > 10_000
        watched.assert_clean()


def test_rotation_switches_the_film_and_keeps_the_position(
        browser: Any, server: FolderServer) -> None:
    with watched_page(browser, PHONE, has_touch=True) as watched:
        page = watched.page
        page.goto(page_url(server))
        wait_for_metadata(page, f"{PORTRAIT.name}.mp4")
        page.evaluate("""() => new Promise((done) => { const v = document.getElementById('film');
            v.addEventListener('seeked', done, {once: true}); v.currentTime = 1.25; })""")
        page.set_viewport_size(PHONE_ROTATED)
        state = wait_for_metadata(page, f"{LANDSCAPE.name}.mp4")
        page.wait_for_function("() => Math.abs(document.getElementById('film').currentTime "
                               "- 1.25) < 0.1")
        assert state["aspect"] == "landscape"
        page.set_viewport_size(PHONE)
        wait_for_metadata(page, f"{PORTRAIT.name}.mp4")
        page.wait_for_function("() => Math.abs(document.getElementById('film').currentTime "
                               "- 1.25) < 0.1")
        assert any(r[2] for r in server.requests if r[1].endswith(".mp4")), "ranged fetches"
        watched.assert_clean()


def test_tap_to_play_starts_the_film_with_sound_and_rotation_keeps_it_playing(
        browser: Any, server: FolderServer) -> None:
    with watched_page(browser, PHONE, has_touch=True) as watched:
        page = watched.page
        page.goto(page_url(server))
        wait_for_metadata(page, f"{PORTRAIT.name}.mp4")
        page.get_by_role("button", name="Play with sound").tap()
        page.wait_for_function("() => document.getElementById('film').currentTime > 0.5")
        state = film_state(page)
        assert not state["paused"] and not state["muted"] and state["playHidden"]
        page.set_viewport_size(PHONE_ROTATED)
        wait_for_metadata(page, f"{LANDSCAPE.name}.mp4")
        page.wait_for_function("(at) => { const v = document.getElementById('film'); "
                               "return !v.paused && v.currentTime > at; }", arg=state["time"])
        assert not film_state(page)["muted"]
        watched.assert_clean()


def test_page_without_javascript_shows_a_playable_landscape_film(
        browser: Any, server: FolderServer) -> None:
    with watched_page(browser, PHONE, java_script_enabled=False) as watched:
        page = watched.page
        page.goto(page_url(server))
        video = page.locator("video#film")
        assert video.is_visible()
        assert video.get_attribute("src") == f"{LANDSCAPE.name}.mp4"
        assert video.get_attribute("controls") is not None
        assert not page.get_by_role("button", name="Play with sound").is_visible()
        page.wait_for_function(
            "() => document.getElementById('film').readyState >= 1 && "
            f"Math.abs(document.getElementById('film').duration - {LANDSCAPE_SEC}) < 0.1")
        watched.assert_clean()


def test_hostile_strings_render_as_text_and_run_nothing(
        browser: Any, server: FolderServer) -> None:
    with watched_page(browser, DESKTOP) as watched:
        page = watched.page
        page.goto(page_url(server, "hostile.html"))
        wait_for_metadata(page, f"{LANDSCAPE.name}.mp4")
        assert page.locator("h1").text_content() == HOSTILE
        assert page.title() == f"{HOSTILE} · a film for {HOSTILE}"
        assert page.locator("img").count() == 0
        assert page.evaluate("() => document.scripts.length") == 1
        watched.assert_clean()


@pytest.mark.parametrize("viewport", [PHONE, PHONE_ROTATED, DESKTOP],
                         ids=["phone", "phone-landscape", "desktop"])
def test_the_whole_film_and_the_name_are_above_the_fold(
        browser: Any, server: FolderServer, viewport: dict[str, int]) -> None:
    with watched_page(browser, viewport, has_touch=viewport is not DESKTOP) as watched:
        page = watched.page
        page.goto(page_url(server))
        page.wait_for_load_state("networkidle")
        boxes = page.evaluate("""() => Object.fromEntries(['stage', 'h1'].map((q) => {
            const el = q === 'h1' ? document.querySelector('h1') : document.getElementById(q);
            const r = el.getBoundingClientRect();
            return [q, {top: r.top, bottom: r.bottom, height: r.height}]; }))""")
        assert boxes["h1"]["top"] >= 0 and boxes["h1"]["height"] > 0
        assert boxes["stage"]["top"] >= boxes["h1"]["bottom"]
        assert boxes["stage"]["bottom"] <= viewport["height"], boxes  # no scrolling to see it
        assert boxes["stage"]["height"] >= 0.6 * viewport["height"] or viewport is DESKTOP
        watched.assert_clean()


VIEWPORTS = pytest.mark.parametrize("viewport", [PHONE, PHONE_ROTATED, DESKTOP],
                                    ids=["phone", "phone-landscape", "desktop"])


def layouts_of(server: FolderServer, name: str) -> dict[str, PosterLayout]:
    """The poster layouts (by aspect name) the page ``name`` was made from."""
    if name == "index":
        folder = server.root / "films" / SHARE_SLUG
        data = json.loads((folder / "layouts.json").read_text(encoding="utf-8"))
        return {aspect: layout_from_dict(layout) for aspect, layout in data.items()}
    return CRAFTED[name]


def rect_of(page: Any, element_id: str) -> Box:
    """The on-screen box of an element, in CSS pixels of the viewport."""
    r = page.evaluate("""(id) => { const r = document.getElementById(id).getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom]; }""", element_id)
    return Box(*r)


def on_stage(stage: Box, box: Box) -> Box:
    """``box`` (normalized, of the poster) where it shows on screen: the film fills its stage
    exactly in either aspect (a 16:9 stage for the 16:9 film, a 9:16 one for the 9:16 film)."""
    width, height = stage.x1 - stage.x0, stage.y1 - stage.y0
    return Box(stage.x0 + box.x0 * width, stage.y0 + box.y0 * height,
               stage.x0 + box.x1 * width, stage.y0 + box.y1 * height)


def overlaps(a: Box, b: Box) -> bool:
    """Whether two on-screen boxes share any area."""
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def shown_layout(page: Any, server: FolderServer, name: str) -> tuple[Box, PosterLayout]:
    """The stage's box and the layout of the poster it shows (by its aspect)."""
    aspect = page.evaluate("() => document.getElementById('stage').dataset.aspect")
    layout = layouts_of(server, name)[LANDSCAPE.name if aspect == "landscape" else PORTRAIT.name]
    return rect_of(page, "stage"), layout


@VIEWPORTS
@pytest.mark.parametrize("name", ["index", *CRAFTED])
def test_the_play_button_covers_neither_the_name_nor_the_subject_on_screen(
        browser: Any, server: FolderServer, viewport: dict[str, int], name: str) -> None:
    with watched_page(browser, viewport, has_touch=viewport is not DESKTOP) as watched:
        page = watched.page
        page.goto(page_url(server, f"{name}.html"))
        page.wait_for_load_state("networkidle")
        stage, layout = shown_layout(page, server, name)
        button = rect_of(page, "play")
        assert button.x1 - button.x0 > 40 and button.y1 - button.y0 > 40, button
        assert stage.x0 <= button.x0 and button.x1 <= stage.x1, (stage, button)
        assert stage.y0 <= button.y0 and button.y1 <= stage.y1, (stage, button)
        for kept in layout.kept():
            assert not overlaps(button, on_stage(stage, kept)), (kept, button, stage)
        watched.assert_clean()


@VIEWPORTS
@pytest.mark.parametrize("name", ["index", *CRAFTED])
def test_the_controls_appear_only_after_play_and_keep_off_the_name(
        browser: Any, server: FolderServer, viewport: dict[str, int], name: str) -> None:
    with watched_page(browser, viewport, has_touch=viewport is not DESKTOP) as watched:
        page = watched.page
        page.goto(page_url(server, f"{name}.html"))
        page.wait_for_load_state("networkidle")
        assert page.evaluate("() => document.getElementById('film').controls") is False
        assert not page.locator("#bar").is_visible()
        page.click("#play")
        page.wait_for_function("() => !document.getElementById('film').paused")
        assert page.locator("#bar").is_visible()
        assert page.evaluate("() => document.getElementById('film').controls") is False
        stage, layout = shown_layout(page, server, name)
        bar = rect_of(page, "bar")
        assert layout.text is not None
        assert not overlaps(bar, on_stage(stage, layout.text)), (layout.text, bar, stage)
        # The bar's toggle flips playback (a short film may already have ended: then it plays).
        was_paused = page.evaluate("() => document.getElementById('film').paused")
        page.click("#toggle")
        page.wait_for_function("(was) => document.getElementById('film').paused !== was",
                               arg=was_paused)
        page.get_by_role("button", name="Mute").click()
        assert page.evaluate("() => document.getElementById('film').muted") is True
        watched.assert_clean()


@pytest.mark.parametrize("name", ["index", *CRAFTED])
def test_on_a_landscape_phone_the_film_starts_above_the_fold(
        browser: Any, server: FolderServer, name: str) -> None:
    with watched_page(browser, PHONE_ROTATED, has_touch=True) as watched:
        page = watched.page
        page.goto(page_url(server, f"{name}.html"))
        page.wait_for_load_state("networkidle")
        stage = rect_of(page, "stage")
        assert 0 <= stage.y0 < PHONE_ROTATED["height"] and stage.y1 <= PHONE_ROTATED["height"]
        watched.assert_clean()


@VIEWPORTS
def test_with_no_room_clear_of_the_subject_the_button_still_keeps_off_the_name(
        browser: Any, server: FolderServer, viewport: dict[str, int]) -> None:
    with watched_page(browser, viewport, has_touch=viewport is not DESKTOP) as watched:
        page = watched.page
        page.goto(page_url(server, "crowded.html"))
        page.wait_for_load_state("networkidle")
        stage, button = rect_of(page, "stage"), rect_of(page, "play")
        text = CROWDED[LANDSCAPE.name].text
        assert text is not None and not overlaps(button, on_stage(stage, text)), (button, stage)
        assert stage.y0 <= button.y0 and button.y1 <= stage.y1, (stage, button)
        watched.assert_clean()
