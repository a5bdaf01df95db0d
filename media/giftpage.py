"""The hosted gift page: a static, self-contained HTML page that plays the delivered film."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape


@dataclass(frozen=True)
class GiftPage:
    """What the page shows. Every string is customer-typed or derived: all are escaped."""

    recipient_name: str
    occasion_name: str
    relationship: str
    gentle: bool
    lyrics: list[str] = field(default_factory=list)
    accent_hex: str | None = None
    landscape_src: str = "16x9.mp4"
    portrait_src: str = "9x16.mp4"
    poster_src: str = "poster.jpg"


_CSP = ("default-src 'none'; media-src 'self'; img-src 'self'; style-src 'unsafe-inline'; "
        "base-uri 'none'; form-action 'none'")


def render_gift_page(page: GiftPage) -> str:
    """The page's HTML (UTF-8). No scripts, fonts or requests beyond its own films and poster."""
    accent = page.accent_hex if page.accent_hex else ("#8a7f74" if page.gentle else "#c8553d")
    title = escape(f"{page.occasion_name} · {page.recipient_name}")
    lyrics = "".join(f"<p>{escape(line)}</p>" for line in page.lyrics)
    lyrics_block = f'<section class="lyrics" aria-label="Song lyrics">{lyrics}</section>' \
        if lyrics else ""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{escape(_CSP)}">
<meta name="robots" content="noindex">
<title>{title}</title>
<style>
body{{margin:0;background:{'#1d1b1a' if page.gentle else '#111'};color:#f4efe9;
font-family:system-ui,sans-serif;text-align:center}}
main{{max-width:960px;margin:0 auto;padding:24px 16px}}
h1{{font-weight:600;margin:.2em 0}} .occasion{{color:{escape(accent)};letter-spacing:.12em;
text-transform:uppercase;font-size:.9rem}}
video{{width:100%;max-height:80vh;background:#000;border-radius:8px}}
.portrait{{display:none}}
@media (orientation: portrait){{.landscape{{display:none}} .portrait{{display:block;
margin:0 auto;max-width:min(100%,56vh)}}}}
.lyrics p{{margin:.3em 0;opacity:.85}}
</style>
</head>
<body>
<main>
<p class="occasion">{escape(page.occasion_name)}</p>
<h1>{escape(page.recipient_name)}</h1>
<video class="landscape" controls playsinline preload="metadata"
 poster="{escape(page.poster_src)}" src="{escape(page.landscape_src)}"
 aria-label="{escape('Film for ' + page.recipient_name)}"></video>
<video class="portrait" controls playsinline preload="metadata"
 poster="{escape(page.poster_src)}" src="{escape(page.portrait_src)}"
 aria-label="{escape('Vertical film for ' + page.recipient_name)}"></video>
<p>{escape(page.relationship)}</p>
{lyrics_block}
</main>
</body>
</html>
"""
