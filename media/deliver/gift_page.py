"""The hosted gift page: a static, self-contained HTML page that plays the delivered film.

Pure: data in, HTML string out, from the Jinja2 templates in ``templates/`` (the page, its
stylesheet and its script). The page loads nothing but its own films, poster and (brand style)
logo, all relative to itself. Its one inline style block and its one inline script are allowed
by ``sha256`` hashes in a Content-Security-Policy meta tag computed here, at render time;
nothing else may run or load. Every customer-typed string is HTML-escaped by the template's
autoescape, in text and in attributes alike.

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
from importlib import resources
from urllib.parse import urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from media.base.spec import LANDSCAPE, PORTRAIT
from media.cards import colour
from media.deliver.layout import DEFAULT_LAYOUT, PosterLayout, controls_edge, place_button
from media.design.values import parse_hex

_TEMPLATES = Environment(loader=PackageLoader(__package__, "templates"),
                         autoescape=select_autoescape(["html"]), undefined=StrictUndefined,
                         trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
"""The page's templates (``templates/``): the HTML autoescaped, the stylesheet not (its values
are colours and numbers from here)."""


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


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two ``#RRGGBB`` colours (1 to 21)."""
    return colour.contrast_ratio(parse_hex(first), parse_hex(second))


def text_on(accent_hex: str) -> str:
    """Black or white, whichever reads better on ``accent_hex``."""
    return max(("#000000", "#ffffff"), key=lambda ink: contrast_ratio(ink, accent_hex))


def csp_hash(source: str) -> str:
    """The CSP source expression allowing an inline element whose text is ``source``."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(stylesheet: str, script: str) -> str:
    """Nothing but the page's own media, its one style block and its one script."""
    return ("default-src 'none'; media-src 'self'; img-src 'self'; "
            f"style-src {csp_hash(stylesheet)}; script-src {csp_hash(script)}; "
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
    """The page's one style block (``templates/gift_page.css``). In portrait the 9:16 film
    fills its 9:16 box exactly, so ``object-fit: cover`` only crops a poster whose shape
    differs, instead of letterboxing it. On a landscape phone the header is one line and the
    film fits below it. The play button and the control bar are placed from the posters'
    ``layouts``."""
    return _TEMPLATES.get_template("gift_page.css").render(
        palette=palette, on_accent=text_on(palette.accent), placement=placement_css(layouts),
        header_px=LANDSCAPE_PHONE_HEADER_PX)


_SCRIPT = (resources.files(__package__) / "templates" / "gift_page.js").read_text("utf-8")
"""The page's one script (``templates/gift_page.js``): choose the film by orientation, switch on
rotation at the same position, start playback with sound on a tap, and run the page's own
control bar (shown once the film plays, along the edge of the film the poster's words keep
clear; the native controls would sit over them). It reads only the page's own elements."""


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


def _preview_tags(page: GiftPage) -> list[tuple[str, str, str]]:
    """Open Graph and Twitter card tags as (attribute, its value, content); none unless every
    link is an absolute web URL."""
    links = page.links
    if links is None or not all(map(_is_web_url, (links.page_url, links.poster_url,
                                                    links.video_url))):
        return []
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
    return pairs


def render_gift_page(page: GiftPage) -> str:
    """The page's HTML (UTF-8, ``templates/gift_page.html``): self-contained, strict CSP,
    every customer string escaped (Jinja2's autoescape)."""
    style = _stylesheet(palette_for(page), page.poster_layouts)
    return _TEMPLATES.get_template("gift_page.html").render(
        page=page, title=page_title(page), description=page_description(page),
        previews=_preview_tags(page), csp=content_security_policy(style, _SCRIPT),
        style=Markup(style), script=Markup(_SCRIPT))
