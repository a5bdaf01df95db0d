"""The gift page's HTML: escaping, Content-Security-Policy, link previews, palettes, lyrics."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from media.analysis.subjects import Box
from media.deliver.gift_page import (
    BRAND,
    CELEBRATION,
    QUIET,
    GiftPage,
    PageLinks,
    Palette,
    contrast_ratio,
    csp_hash,
    palette_for,
    placement_css,
    render_gift_page,
    text_on,
)
from media.deliver.layout import PosterLayout
from media.song.compose import SongBrief, write_lyrics

HOSTILE = [
    "<script>alert(1)</script>",
    'Bob "the builder" O\'Neil',
    "</title><script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "{{recipient_name}} {0} %s ${x}",
    "</style><style>body{display:none}</style>",
    "&amp; &lt;b&gt; & <b>",
]
LINKS = PageLinks(page_url="https://films.example.test/films/sSlug0001/index.html",
                  poster_url="https://films.example.test/films/sSlug0001/poster.jpg",
                  video_url="https://films.example.test/films/sSlug0001/16x9.mp4")


class ParsedPage(HTMLParser):
    """Elements, attributes and text of a page, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.texts: dict[str, list[str]] = {}
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Record the element and its (unescaped) attributes."""
        self.tags.append((tag, {name: value or "" for name, value in attrs}))
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        """Close the innermost element of that name."""
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag):]

    def handle_data(self, data: str) -> None:
        """Text, keyed by its innermost element."""
        if self._open:
            self.texts.setdefault(self._open[-1], []).append(data)

    def all(self, tag: str) -> list[dict[str, str]]:
        """Attributes of every ``tag`` element."""
        return [attrs for name, attrs in self.tags if name == tag]

    def meta(self, key: str) -> str | None:
        """The content of the meta tag whose property or name is ``key``."""
        for attrs in self.all("meta"):
            if key in (attrs.get("property"), attrs.get("name"), attrs.get("http-equiv")):
                return attrs["content"]
        return None

    def text(self, tag: str) -> str:
        """All text directly inside ``tag`` elements."""
        return "".join(self.texts.get(tag, []))


def parse(html: str) -> ParsedPage:
    """``html`` parsed."""
    page = ParsedPage()
    page.feed(html)
    page.close()
    return page


def page_with(**changes: object) -> GiftPage:
    """A birthday page for Eileen with ``changes``."""
    fields: dict[str, object] = {"recipient_name": "Eileen", "occasion_name": "Birthday",
                                 "gentle": False, "lyrics": ["Happy birthday, Eileen!"],
                                 "links": LINKS}
    return GiftPage(**{**fields, **changes})  # type: ignore[arg-type]


def inline(html: str, tag: str) -> list[str]:
    """The raw text of every inline ``tag`` element (what a CSP hash covers)."""
    return re.findall(rf"<{tag}>(.*?)</{tag}>", html, flags=re.S)


def csp_directives(parsed: ParsedPage) -> dict[str, list[str]]:
    """The page's CSP meta tag, by directive."""
    policy = parsed.meta("Content-Security-Policy")
    assert policy is not None, "no CSP meta tag"
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_strings_stay_text_in_body_title_attributes_and_previews(hostile: str) -> None:
    html = render_gift_page(page_with(recipient_name=hostile, occasion_name=hostile,
                                      lyrics=[f"Remember {hostile}?"]))
    parsed = parse(html)
    assert parsed.text("h1") == hostile
    assert parsed.text("title") == f"{hostile} · a film for {hostile}"
    assert f"Remember {hostile}?" in parsed.text("p")
    assert parsed.meta("og:title") == parsed.meta("twitter:title") == parsed.text("title")
    assert hostile in (parsed.meta("og:description") or "")
    video = parsed.all("video")[0]
    assert video["aria-label"] == f"Film for {hostile}"
    assert len(parsed.all("script")) == 1 and len(parsed.all("style")) == 1
    assert parsed.all("img") == []
    assert not any(name.startswith("on") for _, attrs in parsed.tags for name in attrs)
    if "<" in hostile:
        assert hostile not in html


def test_hostile_memory_reaches_the_page_only_escaped_through_the_lyrics() -> None:
    memory = '"><img src=x onerror=alert(1)> </title><script>alert(1)</script>'
    brief = SongBrief(occasion_slug="birthday", tone="joyful", gentle=False,
                      recipient_name="<script>alert(1)</script>", relationship="friend",
                      memory=memory, story_note="", feeling_words=(), style="gift",
                      length_sec=30)
    lyrics = write_lyrics(brief)
    html = render_gift_page(page_with(recipient_name=brief.recipient_name, lyrics=lyrics))
    parsed = parse(html)
    assert [line for line in lyrics if "onerror" in line], "the memory is in the lyrics"
    assert "<img" not in html and "<script>alert" not in html
    assert all(line in parsed.text("p") for line in lyrics)
    assert len(parsed.all("script")) == 1 and parsed.all("img") == []


def test_csp_meta_allows_only_the_inline_script_and_style_by_their_hashes() -> None:
    html = render_gift_page(page_with())
    directives = csp_directives(parse(html))
    [script], [style] = inline(html, "script"), inline(html, "style")
    assert directives["default-src"] == ["'none'"]
    assert directives["script-src"] == [csp_hash(script)]
    assert directives["style-src"] == [csp_hash(style)]
    assert directives["media-src"] == directives["img-src"] == ["'self'"]
    assert directives["base-uri"] == directives["form-action"] == ["'none'"]
    assert "unsafe" not in str(directives)
    assert html.index("Content-Security-Policy") < html.index("<style>")


def test_csp_hashes_follow_the_content_they_allow() -> None:
    plain = csp_directives(parse(render_gift_page(page_with())))
    branded = csp_directives(parse(render_gift_page(page_with(accent_hex="#0055AA"))))
    assert plain["style-src"] != branded["style-src"]
    assert plain["script-src"] == branded["script-src"]


def test_page_loads_only_its_own_files_and_names_no_url_but_the_previews() -> None:
    html = render_gift_page(page_with(logo_src="logo.png"))
    parsed = parse(html)
    references = [attrs[name] for _, attrs in parsed.tags for name in ("src", "href", "poster")
                  if name in attrs]
    assert sorted(set(references)) == ["16x9.mp4", "logo.png", "poster.jpg"]
    preview_urls = {LINKS.page_url, LINKS.poster_url, LINKS.video_url}
    assert set(re.findall(r"[a-z][a-z0-9+.-]*://[^\s\"'<>]+", html)) == preview_urls
    assert "//" not in html.replace("://", "")
    assert "@import" not in html and "url(" not in html


def test_link_previews_carry_the_absolute_delivered_urls_and_sizes() -> None:
    parsed = parse(render_gift_page(page_with()))
    assert parsed.meta("og:type") == "video.other"
    assert parsed.meta("og:url") == LINKS.page_url
    assert parsed.meta("og:image") == parsed.meta("twitter:image") == LINKS.poster_url
    assert parsed.meta("og:video") == parsed.meta("og:video:secure_url") == LINKS.video_url
    assert (parsed.meta("og:video:type"), parsed.meta("og:image:type")) == (
        "video/mp4", "image/jpeg")
    assert (parsed.meta("og:video:width"), parsed.meta("og:video:height")) == ("1920", "1080")
    assert (parsed.meta("og:image:width"), parsed.meta("og:image:height")) == ("1920", "1080")
    assert parsed.meta("twitter:card") == "summary_large_image"
    assert parsed.meta("og:title") == "Birthday · a film for Eileen"


@pytest.mark.parametrize("base", ["file:///srv/storage/films/s1", "s3://bucket/films/s1", ""])
def test_link_previews_are_left_out_when_urls_are_not_public_web_urls(base: str) -> None:
    links = PageLinks(f"{base}/index.html", f"{base}/poster.jpg", f"{base}/16x9.mp4")
    html = render_gift_page(page_with(links=links))
    assert "og:" not in html and "twitter:" not in html
    assert "/srv/storage" not in html and "s3://" not in html


def test_page_plays_the_landscape_film_with_controls_and_never_autoplays() -> None:
    parsed = parse(render_gift_page(page_with()))
    [video] = parsed.all("video")
    assert video["src"] == "16x9.mp4"
    # The script sets the poster of the chosen aspect (no 16:9 poster fetched then dropped on a
    # phone); without script the film's first frame, its title, shows.
    assert "poster" not in video
    assert "controls" in video and "playsinline" in video and "autoplay" not in video
    [stage] = [attrs for attrs in parsed.all("div") if attrs.get("id") == "stage"]
    assert (stage["data-landscape"], stage["data-portrait"]) == ("16x9.mp4", "9x16.mp4")
    [button] = [attrs for attrs in parsed.all("button") if attrs.get("id") == "play"]
    assert "hidden" in button, "the tap-to-play button appears only with JavaScript"
    assert " ".join(parsed.text("span").split()).startswith("Play with sound")
    [bar] = [attrs for attrs in parsed.all("div") if attrs.get("id") == "bar"]
    assert "hidden" in bar, "the page's own controls appear only with JavaScript, on play"


def test_page_is_accessible_in_structure() -> None:
    parsed = parse(render_gift_page(page_with(logo_src="logo.png")))
    assert parsed.all("html") == [{"lang": "en"}]
    assert all(img.get("alt") for img in parsed.all("img"))
    assert parsed.all("video")[0]["aria-label"] == "Film for Eileen"
    assert parsed.meta("viewport") == "width=device-width, initial-scale=1"


def test_lyrics_are_shown_line_by_line_and_left_out_when_there_are_none() -> None:
    lines = ["Happy birthday, Eileen!", "Proud and bright, that's what you bring"]
    parsed = parse(render_gift_page(page_with(lyrics=lines, lyrics_sung=True)))
    assert parsed.text("h2") == "The song's words"
    assert all(line in parsed.texts["p"] for line in lines)
    assert 'class="lyrics"' not in render_gift_page(page_with(lyrics=[]))


def test_words_not_sung_are_shown_as_a_dedication_not_the_song_s_words() -> None:
    lines = ["Happy birthday, Eileen!", "Proud and bright, that's what you bring"]
    html = render_gift_page(page_with(lyrics=lines))
    assert parse(html).text("h2") == "A dedication"
    assert "song's words" not in html
    assert all(line in parse(html).texts["p"] for line in lines)
    assert 'class="lyrics"' not in render_gift_page(page_with(lyrics=[]))


def test_gentle_occasion_gets_the_quiet_palette() -> None:
    html = render_gift_page(page_with(gentle=True, occasion_name="Pet Tribute"))
    assert parse(html).all("body") == [{"class": "quiet"}]
    assert f"--bg:{QUIET.background}" in html and f"--accent:{QUIET.accent}" in html
    assert CELEBRATION.accent not in html
    assert parse(html).meta("description") == (
        "A quiet film with an original song, made in honour of Eileen.")


def test_brand_colour_is_the_accent_with_readable_button_text() -> None:
    for colour, ink in (("#FFD400", "#000000"), ("#12355B", "#ffffff")):
        html = render_gift_page(page_with(accent_hex=colour))
        assert f"--accent:{colour.lower()}" in html and f"--on-accent:{ink}" in html
        assert f"--bg:{BRAND.background}" in html
        assert contrast_ratio(text_on(colour), colour) >= 4.5
    assert palette_for(page_with(accent_hex="#12355b")).accent == "#12355b"


@pytest.mark.parametrize("palette", [CELEBRATION, QUIET, BRAND], ids=["gift", "quiet", "brand"])
def test_palette_text_keeps_aa_contrast(palette: Palette) -> None:
    assert contrast_ratio(palette.text, palette.background) >= 7
    assert contrast_ratio(palette.muted, palette.background) >= 4.5
    assert contrast_ratio(text_on(palette.accent), palette.accent) >= 4.5


def test_each_player_shows_the_poster_of_its_own_aspect() -> None:
    html = render_gift_page(page_with())
    [stage] = [attrs for attrs in parse(html).all("div") if attrs.get("id") == "stage"]
    assert stage["data-landscape-poster"] == "poster.jpg"
    assert stage["data-portrait-poster"] == "poster-9x16.jpg"
    assert "video.poster = posters[want]" in html


def _rule(css: str, aspect: str, what: str) -> str:
    """The body of the placement rule for ``what`` (``.play``, ``.bar``) on the stage of
    ``aspect`` (``landscape``, ``portrait``)."""
    found = re.search(rf'\.stage\[data-aspect="{aspect}"\] {re.escape(what)}\{{([^}}]*)\}}', css)
    assert found is not None, (aspect, what)
    return found[1]


def test_the_play_button_is_placed_from_each_posters_layout() -> None:
    """Subject on the left, words on the right in the 16:9 poster: the button goes to the
    clear band; the 9:16 poster's words at its top: the button goes below them."""
    layouts = {"16x9": PosterLayout(text=Box(0.55, 0.35, 0.95, 0.6),
                                    subject=Box(0.05, 0.1, 0.45, 0.9)),
               "9x16": PosterLayout(text=Box(0.1, 0.05, 0.9, 0.25),
                                    subject=Box(0.2, 0.3, 0.8, 0.6))}
    css = placement_css(layouts)
    landscape = _rule(css, "landscape", ".play")
    left, top = (float(v) for v in re.findall(r"([\d.]+)%", landscape))
    assert left > 50 and not 35 <= top <= 60, landscape  # right, above or below the words
    portrait = _rule(css, "portrait", ".play")
    _, top = (float(v) for v in re.findall(r"([\d.]+)%", portrait))
    assert top > 60, portrait  # below the subject, away from the words at the top
    assert css in render_gift_page(page_with(poster_layouts=layouts))


def test_the_control_bar_goes_to_the_top_when_the_words_sit_at_the_foot() -> None:
    low = PosterLayout(text=Box(0.1, 0.82, 0.9, 0.97), subject=Box(0.3, 0.2, 0.7, 0.6))
    css = placement_css({"16x9": low})
    assert _rule(css, "landscape", ".bar") == "top:0"
    assert _rule(css, "portrait", ".bar") == "bottom:0"  # the default layout: lower third


def test_a_page_without_layouts_places_the_button_off_the_middle_and_the_lower_third() -> None:
    css = placement_css({})
    for aspect in ("landscape", "portrait"):
        _, top = (float(v) for v in re.findall(r"([\d.]+)%", _rule(css, aspect, ".play")))
        assert top < 30, (aspect, top)
