"""The hosted gift page: a static, self-contained HTML page that plays the delivered film.

Pure: data in, HTML string out. The page loads nothing but its own films, poster and (brand
style) logo, all relative to itself. Its one inline style block and its one inline script are
allowed by ``sha256`` hashes in a Content-Security-Policy meta tag computed here, at render
time; nothing else may run or load. Every customer-typed string is HTML-escaped, in text and in
attributes alike.

Playback: the page chooses the 9:16 film on a portrait screen and the 16:9 film otherwise, and
switches on rotation at the same position. Nothing autoplays (mobile browsers forbid sound
without a gesture): a tap-to-play button starts the film with sound, and the page's own control
bar shows once it plays. Both are placed from the posters' layouts (:mod:`media.deliver.layout`):
the button in the largest spot clear of the poster's words and subject, the bar along the edge
that keeps off the words. Without JavaScript the page is a plain 16:9 video with native
controls.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from html import escape
from urllib.parse import urlsplit

from media.base.spec import LANDSCAPE, PORTRAIT
from media.deliver.layout import DEFAULT_LAYOUT, PosterLayout, controls_edge, place_button


@dataclass(frozen=True)
class PageLinks:
    """Absolute public URLs of the delivered page, poster and 16:9 film (for link previews)."""

    page_url: str
    poster_url: str
    video_url: str


@dataclass(frozen=True)
class GiftPage:
    """What the page shows. Customer-typed strings (name, occasion, lyrics) are escaped."""

    recipient_name: str
    occasion_name: str
    gentle: bool
    lyrics: list[str] = field(default_factory=list)
    lyrics_sung: bool = False
    """True only when the song sings ``lyrics`` (a song service's vocal); otherwise the lines are
    shown as the film's dedication, never as the song's words."""
    accent_hex: str | None = None
    """The brand colour (``#RRGGBB``), brand style only."""
    logo_src: str | None = None
    """The delivered brand logo, relative to the page (brand style, when fetched)."""
    links: PageLinks | None = None
    landscape_src: str = f"{LANDSCAPE.name}.mp4"
    portrait_src: str = f"{PORTRAIT.name}.mp4"
    poster_src: str = "poster.jpg"
    """The 16:9 poster: the landscape player's, and the link preview's (``og:image``)."""
    portrait_poster_src: str = "poster-9x16.jpg"
    """The 9:16 poster, shown by the portrait player before play."""
    poster_layouts: dict[str, PosterLayout] = field(default_factory=dict)
    """Each poster's layout by aspect name (where its words and subject sit): the play button
    and the control bar keep off both. An aspect without one gets
    :data:`~media.deliver.layout.DEFAULT_LAYOUT`."""


@dataclass(frozen=True)
class Palette:
    """Page colours: background, text, secondary text and the accent (button, rule)."""

    background: str
    text: str
    muted: str
    accent: str
    scheme: str


CELEBRATION = Palette("#15110f", "#f7f1ea", "#cbbfb3", "#f08a5d", "dark")
QUIET = Palette("#f3efe9", "#2e2925", "#5e564f", "#8c8178", "light")
BRAND = Palette("#fbfbfa", "#1b1b1b", "#555555", "#1b1b1b", "light")


def palette_for(page: GiftPage) -> Palette:
    """A quiet palette for gentle occasions, the brand colour as accent for brand style, a warm
    dark one otherwise. Text colours keep WCAG AA contrast on their background."""
    if page.gentle:
        return QUIET if page.accent_hex is None else _with_accent(QUIET, page.accent_hex)
    if page.accent_hex is not None:
        return _with_accent(BRAND, page.accent_hex)
    return CELEBRATION


def _with_accent(base: Palette, accent_hex: str) -> Palette:
    return Palette(base.background, base.text, base.muted, accent_hex.lower(), base.scheme)


def _luminance(hex_colour: str) -> float:
    """WCAG relative luminance of ``#RRGGBB``."""
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two ``#RRGGBB`` colours (1 to 21)."""
    high, low = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def text_on(accent_hex: str) -> str:
    """Black or white, whichever reads better on ``accent_hex``."""
    return max(("#000000", "#ffffff"), key=lambda ink: contrast_ratio(ink, accent_hex))


def csp_hash(source: str) -> str:
    """The CSP source expression allowing an inline element whose text is ``source``."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(style: str, script: str) -> str:
    """Nothing but the page's own media, its one style block and its one script."""
    return ("default-src 'none'; media-src 'self'; img-src 'self'; "
            f"style-src {csp_hash(style)}; script-src {csp_hash(script)}; "
            "base-uri 'none'; form-action 'none'")


LANDSCAPE_PHONE_HEADER_PX = 56
"""On a phone held sideways (landscape, at most 500 px tall) the header shrinks to one line of
about this height and the film takes the rest of the screen: all of it above the fold."""


PHONE_SHARES = {LANDSCAPE.name: ((0.34, 0.15), (0.11, 0.18)),
                PORTRAIT.name: ((0.6, 0.1), (0.17, 0.1))}
"""The play button's sizes (width, height; the labelled pill, then the round icon) as shares
of the film on the smallest stage it shows on (a 844x390 landscape phone's 16:9 film, a
390x844 phone's 9:16 film), with a margin."""
LARGE_SHARES = {LANDSCAPE.name: ((0.23, 0.12), (0.07, 0.11)),
                PORTRAIT.name: ((0.5, 0.09), (0.14, 0.08))}
"""The same on a large screen (:data:`LARGE_SCREEN`: a 16:9 film at least about 946x532 px, a
9:16 one about 437x778), where the labelled button fits where a phone needs the round one."""
LARGE_SCREEN = "(min-width:1024px) and (min-height:700px)"
BAR_SHARE = {LANDSCAPE.name: 0.16, PORTRAIT.name: 0.08}
"""The control bar's height (48 px) as a share of the film's, on the phones' stages."""
STAGE_ASPECTS = {"landscape": LANDSCAPE.name, "portrait": PORTRAIT.name}
"""The stage's ``data-aspect`` values and the aspect (poster, film) each shows."""
_ROUND = ("{{width:52px;height:52px;padding:0;justify-content:center}}\n"
          "{selector} .play .label{{position:absolute;width:1px;height:1px;overflow:hidden;"
          "clip-path:inset(50%)}}")


def _button_rules(layouts: dict[str, PosterLayout],
                  shares: dict[str, tuple[tuple[float, float], ...]]) -> str:
    """Each stage aspect's play button centred in its poster's clear spot for ``shares``."""
    rules = []
    for stage_aspect, aspect in STAGE_ASPECTS.items():
        spot = place_button(layouts.get(aspect, DEFAULT_LAYOUT), shares[aspect])
        x, y = spot.box.center
        selector = f'.stage[data-aspect="{stage_aspect}"]'
        rules.append(f"{selector} .play{{left:{100 * x:.2f}%;top:{100 * y:.2f}%}}")
        if spot.size > 0:
            rules.append(f"{selector} .play" + _ROUND.format(selector=selector))
    return "\n".join(rules)


def placement_css(layouts: dict[str, PosterLayout]) -> str:
    """Rules placing the play button centred in the largest spot of each poster clear of its
    words and subject (see :func:`~media.deliver.layout.place_button`; round, its label left to
    screen readers, where the labelled one fits nowhere on a phone or on a large screen) and the
    control bar along the edge that keeps off its words, per stage aspect; ``layouts`` by
    aspect name (a missing one: the default)."""
    bars = [f'.stage[data-aspect="{stage_aspect}"] .bar{{'
            f"{controls_edge(layouts.get(aspect, DEFAULT_LAYOUT), BAR_SHARE[aspect])}:0}}"
            for stage_aspect, aspect in STAGE_ASPECTS.items()]
    return (f"@media not all and {LARGE_SCREEN}{{\n{_button_rules(layouts, PHONE_SHARES)}}}\n"
            f"@media {LARGE_SCREEN}{{\n{_button_rules(layouts, LARGE_SHARES)}}}\n"
            + "\n".join(bars))


def _stylesheet(palette: Palette, layouts: dict[str, PosterLayout]) -> str:
    """The page's one style block. In portrait the 9:16 film fills its 9:16 box exactly, so
    ``object-fit: cover`` only crops a poster whose shape differs, instead of
    letterboxing it. On a landscape phone the header is one line and the film fits below it.
    The play button and the control bar are placed from the posters' ``layouts``."""
    return f"""
:root{{--bg:{palette.background};--text:{palette.text};--muted:{palette.muted};\
--accent:{palette.accent};--on-accent:{text_on(palette.accent)};color-scheme:{palette.scheme}}}
*{{box-sizing:border-box}}
html{{background:var(--bg);color:var(--text);-webkit-text-size-adjust:100%;
font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}}
body{{margin:0}}
main{{max-width:1240px;margin:0 auto;padding:clamp(20px,4vw,48px) clamp(14px,3vw,32px) 48px;
display:flex;flex-direction:column;align-items:center;gap:clamp(18px,3vw,28px)}}
header{{text-align:center;max-width:40rem}}
.logo{{display:block;margin:0 auto 14px;max-height:56px;max-width:200px;
width:auto;height:auto}}
.occasion{{margin:0;color:var(--muted);font-size:.8rem;font-weight:600;letter-spacing:.18em;
text-transform:uppercase}}
h1{{margin:.1em 0 0;font-size:clamp(2rem,6vw,3.4rem);line-height:1.1;font-weight:700;
letter-spacing:-.015em;overflow-wrap:anywhere}}
.rule{{width:48px;height:3px;margin:16px auto 0;border:0;border-radius:2px;
background:var(--accent)}}
.stage{{position:relative;width:min(100%,calc(76vh * 16 / 9));aspect-ratio:16/9;
background:#000;border-radius:14px;overflow:hidden;
box-shadow:0 12px 40px rgba(0,0,0,.28)}}
.stage[data-aspect="portrait"]{{aspect-ratio:9/16;width:min(100%,calc(76vh * 9 / 16))}}
video{{display:block;width:100%;height:100%;background:#000;object-fit:contain}}
.stage[data-aspect="portrait"] video{{object-fit:cover}}
.play{{position:absolute;transform:translate(-50%,-50%);width:max-content;height:max-content;
display:flex;align-items:center;gap:.6em;padding:.85em 1.4em;border:0;border-radius:999px;
background:var(--accent);color:var(--on-accent);font:inherit;font-weight:650;font-size:1.05rem;
cursor:pointer;box-shadow:0 0 0 2px rgba(255,255,255,.75),0 6px 24px rgba(0,0,0,.35)}}
.play[hidden]{{display:none}}
.play svg{{width:1.1em;height:1.1em;fill:currentColor}}
.play:focus-visible{{outline:3px solid #fff;outline-offset:3px}}
.bar{{position:absolute;left:0;right:0;display:flex;align-items:center;gap:6px;height:48px;
padding:6px 10px;background:rgba(0,0,0,.55);color:#fff}}
.bar[hidden]{{display:none}}
.bar button{{display:grid;place-items:center;width:36px;height:36px;padding:0;border:0;
border-radius:50%;background:transparent;color:inherit;cursor:pointer;flex:none}}
.bar button:focus-visible{{outline:2px solid #fff}}
.bar svg{{width:22px;height:22px;fill:currentColor}}
.bar svg[hidden]{{display:none}}
.bar input{{flex:1;min-width:0;accent-color:var(--accent)}}
.clock{{font-size:.85rem;font-variant-numeric:tabular-nums;flex:none}}
.stage:fullscreen{{border-radius:0}}
{placement_css(layouts)}
.lyrics{{max-width:36rem;text-align:center}}
.lyrics h2{{margin:0 0 .6em;color:var(--muted);font-size:.8rem;font-weight:600;
letter-spacing:.18em;text-transform:uppercase}}
.lyrics p{{margin:.3em 0;font-size:1.12rem}}
.quiet h1{{font-family:ui-serif,Georgia,"Times New Roman",serif;font-weight:400;
letter-spacing:0}}
.quiet .occasion,.quiet .lyrics h2{{letter-spacing:.12em}}
.quiet .lyrics p{{font-family:ui-serif,Georgia,"Times New Roman",serif}}
.quiet .stage{{box-shadow:0 6px 24px rgba(0,0,0,.12)}}
@media (max-width:480px){{main{{padding-top:18px}} .stage{{border-radius:10px}}}}
@media (orientation:landscape) and (max-height:500px){{
main{{padding:8px 12px 24px;gap:8px}}
header{{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:center;gap:0 .6em}}
.logo,.rule{{display:none}}
h1{{margin:0;font-size:1.35rem}}
.play{{font-size:.95rem;padding:.6em 1.1em}}
.stage{{width:min(100%,calc((100vh - {LANDSCAPE_PHONE_HEADER_PX}px) * 16 / 9));border-radius:8px}}}}
"""


# The page's one script: choose the film by orientation, switch on rotation at the same
# position, start playback with sound on a tap, and run the page's own control bar (shown once
# the film plays, along the edge of the film the poster's words keep clear; the native controls
# would sit over them). It reads only the page's own elements.
_SCRIPT = """
(function () {
  var stage = document.getElementById("stage");
  var video = document.getElementById("film");
  var play = document.getElementById("play");
  var bar = document.getElementById("bar");
  var seek = document.getElementById("seek");
  var clock = document.getElementById("clock");
  var toggle = document.getElementById("toggle");
  var mute = document.getElementById("mute");
  var portrait = window.matchMedia("(orientation: portrait)");
  var sources = {landscape: stage.dataset.landscape, portrait: stage.dataset.portrait};
  var posters = {landscape: stage.dataset.landscapePoster, portrait: stage.dataset.portraitPoster};
  function choose() {
    var want = portrait.matches ? "portrait" : "landscape";
    if (video.getAttribute("poster") !== posters[want]) { video.poster = posters[want]; }
    if (stage.dataset.aspect === want) { return; }
    var at = video.currentTime, playing = !video.paused && !video.ended;
    stage.dataset.aspect = want;
    video.src = sources[want];
    if (at > 0 || playing) {
      video.addEventListener("loadedmetadata", function () {
        video.currentTime = Math.min(at, video.duration || at);
        if (playing) { video.play().catch(function () { play.hidden = false; }); }
      }, {once: true});
    }
  }
  function start() { video.play().catch(function () { play.hidden = false; }); }
  function mark(button, on, labels) {
    button.setAttribute("aria-label", labels[on ? 1 : 0]);
    button.children[0].hidden = on;
    button.children[1].hidden = !on;
  }
  function time(s) {
    s = Math.floor(s || 0);
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  choose();
  portrait.addEventListener("change", choose);
  play.hidden = false;
  video.controls = false;
  play.addEventListener("click", function () { video.muted = false; play.hidden = true; start(); });
  video.addEventListener("play", function () { play.hidden = true; bar.hidden = false; });
  video.addEventListener("ended", function () { play.hidden = false; });
  video.addEventListener("play", function () { mark(toggle, true, ["Play", "Pause"]); });
  video.addEventListener("pause", function () { mark(toggle, false, ["Play", "Pause"]); });
  video.addEventListener("volumechange", function () {
    mark(mute, video.muted, ["Mute", "Unmute"]);
  });
  video.addEventListener("timeupdate", function () {
    if (video.duration) { seek.value = String(Math.round(1000 * video.currentTime
                                                          / video.duration)); }
    clock.textContent = time(video.currentTime) + " / " + time(video.duration);
  });
  seek.addEventListener("input", function () {
    if (video.duration) { video.currentTime = video.duration * Number(seek.value) / 1000; }
  });
  toggle.addEventListener("click", function () {
    if (video.paused) { start(); } else { video.pause(); }
  });
  mute.addEventListener("click", function () { video.muted = !video.muted; });
  document.getElementById("full").addEventListener("click", function () {
    if (document.fullscreenElement) { document.exitFullscreen(); }
    else if (stage.requestFullscreen) { stage.requestFullscreen(); }
    else if (video.webkitEnterFullscreen) { video.webkitEnterFullscreen(); }
  });
})();
"""

_PLAY_ICON = ('<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">'
              '<path d="M7 4.5v15l12.5-7.5z"/></svg>')


_PAUSE_ICON = ('<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" hidden>'
               '<path d="M6 4.5h4v15H6zm8 0h4v15h-4z"/></svg>')
_SOUND_ICON = ('<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">'
               '<path d="M4 9v6h4l5 4.5v-15L8 9zm12.5 3a4.5 4.5 0 0 0-2.5-4v8a4.5 4.5 0 0 0 '
               '2.5-4z"/></svg>')
_MUTED_ICON = ('<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false" hidden>'
               '<path d="M4 9v6h4l5 4.5v-15L8 9zm11.6.2 1.4-1.4 2.2 2.2 2.2-2.2 1.4 1.4-2.2 '
               '2.2 2.2 2.2-1.4 1.4-2.2-2.2-2.2 2.2-1.4-1.4 2.2-2.2z"/></svg>')
_FULL_ICON = ('<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">'
              '<path d="M4 4h6v2H6v4H4zm10 0h6v6h-2V6h-4zM4 14h2v4h4v2H4zm14 0h2v6h-6v-2h4z"/>'
              '</svg>')
_CONTROL_BAR = f"""<div class="bar" id="bar" hidden>
<button id="toggle" type="button" aria-label="Play">{_PLAY_ICON}{_PAUSE_ICON}</button>
<input id="seek" type="range" min="0" max="1000" value="0" aria-label="Position in the film">
<span class="clock" id="clock">0:00</span>
<button id="mute" type="button" aria-label="Mute">{_SOUND_ICON}{_MUTED_ICON}</button>
<button id="full" type="button" aria-label="Full screen">{_FULL_ICON}</button>
</div>"""
"""The page's own controls (the script shows them once the film plays): play and pause, the
position, the time, sound, full screen."""


def _attr(value: str) -> str:
    """``value`` escaped for a double-quoted attribute."""
    return escape(value, quote=True)


def page_title(page: GiftPage) -> str:
    """The page's (and link preview's) title, unescaped."""
    return f"{page.occasion_name} · a film for {page.recipient_name}"


def page_description(page: GiftPage) -> str:
    """The link preview's description, unescaped."""
    if page.gentle:
        return f"A quiet film with an original song, made in honour of {page.recipient_name}."
    return f"A personal film with an original song, made for {page.recipient_name}."


def _is_web_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("https", "http") and bool(parts.netloc)


def _preview_tags(page: GiftPage) -> str:
    """Open Graph and Twitter card tags; none unless every link is an absolute web URL."""
    links = page.links
    if links is None or not all(map(_is_web_url, (links.page_url, links.poster_url,
                                                    links.video_url))):
        return ""
    title, description = page_title(page), page_description(page)
    alt = f"The poster of the film for {page.recipient_name}"
    pairs = [
        ("property", "og:type", "video.other"), ("property", "og:title", title),
        ("property", "og:description", description), ("property", "og:url", links.page_url),
        ("property", "og:image", links.poster_url), ("property", "og:image:type", "image/jpeg"),
        ("property", "og:image:width", str(LANDSCAPE.width)),
        ("property", "og:image:height", str(LANDSCAPE.height)),
        ("property", "og:image:alt", alt),
        ("property", "og:video", links.video_url), ("property", "og:video:type", "video/mp4"),
        ("property", "og:video:width", str(LANDSCAPE.width)),
        ("property", "og:video:height", str(LANDSCAPE.height)),
    ]
    if links.video_url.startswith("https://"):
        pairs.append(("property", "og:video:secure_url", links.video_url))
    pairs += [
        ("name", "twitter:card", "summary_large_image"), ("name", "twitter:title", title),
        ("name", "twitter:description", description), ("name", "twitter:image", links.poster_url),
        ("name", "twitter:image:alt", alt),
    ]
    return "\n".join(f'<meta {kind}="{name}" content="{_attr(value)}">'
                     for kind, name, value in pairs)


def _header(page: GiftPage) -> str:
    logo = (f'<img class="logo" src="{_attr(page.logo_src)}" alt="Logo of the sender">'
            if page.logo_src else "")
    return f"""<header>
{logo}<p class="occasion" dir="auto">{escape(page.occasion_name)}</p>
<h1 dir="auto">{escape(page.recipient_name)}</h1>
<div class="rule" aria-hidden="true"></div>
</header>"""


def _player(page: GiftPage) -> str:
    label = _attr(f"Film for {page.recipient_name}")
    return f"""<div class="stage" id="stage" data-aspect="landscape"
 data-landscape="{_attr(page.landscape_src)}" data-portrait="{_attr(page.portrait_src)}"
 data-landscape-poster="{_attr(page.poster_src)}"
 data-portrait-poster="{_attr(page.portrait_poster_src)}">
<video id="film" controls playsinline preload="metadata"
 src="{_attr(page.landscape_src)}" aria-label="{label}">
<p>Your browser cannot play this film here. <a href="{_attr(page.landscape_src)}">Download
the film</a>.</p>
</video>
<button class="play" id="play" type="button" hidden>{_PLAY_ICON}<span class="label">Play with
sound</span></button>
{_CONTROL_BAR}
</div>"""


def _lyrics(page: GiftPage) -> str:
    if not page.lyrics:
        return ""
    lines = "\n".join(f'<p dir="auto">{escape(line)}</p>' for line in page.lyrics)
    heading = "The song's words" if page.lyrics_sung else "A dedication"
    return f"""<section class="lyrics" aria-labelledby="lyrics-heading">
<h2 id="lyrics-heading">{heading}</h2>
{lines}
</section>"""


def render_gift_page(page: GiftPage) -> str:
    """The page's HTML (UTF-8): self-contained, strict CSP, every customer string escaped."""
    style = _stylesheet(palette_for(page), page.poster_layouts)
    csp = content_security_policy(style, _SCRIPT)
    body_class = ' class="quiet"' if page.gentle else ""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="{_attr(page.poster_src)}" type="image/jpeg">
<title>{escape(page_title(page))}</title>
<meta name="description" content="{_attr(page_description(page))}">
{_preview_tags(page)}
<style>{style}</style>
</head>
<body{body_class}>
<main>
{_header(page)}
{_player(page)}
{_lyrics(page)}
</main>
<script>{_SCRIPT}</script>
</body>
</html>
"""
