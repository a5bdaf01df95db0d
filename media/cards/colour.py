"""A title card's colours: the palette from its accent, ``gentle`` and ``style``, and WCAG
contrast (pure Python: colours are sRGB 0-255 channel tuples)."""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

from media.cards.spec import RGB, CardSpec, parse_hex


@dataclass(frozen=True)
class Palette:
    """Colours of one card: backdrop gradient, glow, text and accent."""

    top: RGB
    bottom: RGB
    glow: RGB
    glow_strength: float
    vignette: float
    text: RGB
    secondary: RGB
    heading: RGB
    accent: RGB
    shadow_alpha: float


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG relative luminance of an sRGB colour (0-255 channels)."""
    out = 0.0
    for channel, weight in zip(rgb, (0.2126, 0.7152, 0.0722), strict=True):
        c = channel / 255.0
        out += weight * (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def contrast_ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG contrast ratio between two sRGB colours (1 to 21)."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _hls(h: float, lightness: float, s: float) -> RGB:
    r, g, b = colorsys.hls_to_rgb(h % 1.0, min(1.0, max(0.0, lightness)), min(1.0, max(0.0, s)))
    return (round(r * 255), round(g * 255), round(b * 255))


def lift_contrast(colour: RGB, against: tuple[float, float, float], ratio: float) -> RGB:
    """``colour`` lightened (same hue) until it reaches ``ratio`` contrast with ``against``."""
    if contrast_ratio(colour, against) >= ratio:
        return colour
    h, lightness, s = colorsys.rgb_to_hls(*(c / 255.0 for c in colour))
    for step in range(1, 41):
        candidate = _hls(h, lightness + (1.0 - lightness) * step / 40, s)
        if contrast_ratio(candidate, against) >= ratio:
            return candidate
    return (255, 255, 255)


_GOLD: RGB = (233, 196, 112)
_CHAMPAGNE: RGB = (206, 190, 160)


def palette(card: CardSpec) -> Palette:
    """The card's colours, from its accent, ``gentle`` and ``style``."""
    accent = parse_hex(card.accent_hex) if card.accent_hex else None
    if accent is not None and contrast_ratio(accent, (255, 255, 255)) >= 7.0:
        # A dark brand colour (navy, forest, black) is the backdrop itself: a slightly deeper
        # top fading into the exact brand colour, with light type and a lifted-accent heading.
        h, lightness, s = colorsys.rgb_to_hls(*(c / 255.0 for c in accent))
        bottom = accent
        if card.gentle:
            # Quieter: the brand hue, but dimmer and greyer (the rule then shows it lifted).
            bottom = _hls(h, min(lightness, 0.16), min(s, 0.28))
            lightness, s = min(lightness, 0.16), min(s, 0.28)
        return Palette(top=_hls(h, lightness * 0.55, s), bottom=bottom, glow=bottom,
                       glow_strength=0.0, vignette=0.22 if card.gentle else 0.30,
                       text=(240, 236, 229) if card.gentle else (255, 252, 247),
                       secondary=(214, 214, 214), heading=lift_contrast(accent, bottom, 4.5),
                       accent=accent, shadow_alpha=0.38 if card.gentle else 0.5)
    if card.gentle:
        # Dusk slate: low saturation, low contrast glow, warm off-white type.
        base = Palette(top=(24, 31, 39), bottom=(52, 63, 73), glow=(150, 162, 172),
                       glow_strength=0.16, vignette=0.30, text=(240, 236, 229),
                       secondary=(204, 203, 198), heading=_CHAMPAGNE,
                       accent=accent or _CHAMPAGNE, shadow_alpha=0.38)
        if accent:
            h, _, s = colorsys.rgb_to_hls(*(c / 255.0 for c in accent))
            # Keep the quiet slate but let the brand hue breathe into it a little.
            base = Palette(top=_hls(h, 0.09, min(s, 0.22)), bottom=_hls(h, 0.22, min(s, 0.16)),
                           glow=_hls(h, 0.60, min(s, 0.18)), glow_strength=0.14,
                           vignette=0.30, text=base.text, secondary=base.secondary,
                           heading=lift_contrast(accent, (40, 48, 56), 4.5), accent=accent,
                           shadow_alpha=0.38)
        return base
    social = card.style == "social"
    if accent is not None:
        # A deep, quiet version of the brand hue, so the brand colour itself pops against it.
        h, _lightness, s = colorsys.rgb_to_hls(*(c / 255.0 for c in accent))
        sat = min(s, 0.45 if social else 0.32)
        if 0.09 <= h <= 0.22:
            sat *= 0.45  # dark yellows turn olive: keep those backdrops nearly neutral
        top = _hls(h + 0.02, 0.07, sat * 0.8)
        bottom = _hls(h - 0.02, 0.19 if social else 0.16, sat)
        glow = _hls(h, 0.55, min(1.0, sat * 1.3))
        return Palette(top=top, bottom=bottom, glow=glow, glow_strength=0.30 if social else 0.22,
                       vignette=0.38, text=(255, 252, 247), secondary=(232, 228, 222),
                       heading=lift_contrast(accent, bottom, 4.5), accent=accent, shadow_alpha=0.55)
    if card.style == "brand":
        # Neutral charcoal that sits under any product's look.
        return Palette(top=(17, 19, 24), bottom=(44, 48, 57), glow=(120, 130, 150),
                       glow_strength=0.18, vignette=0.35, text=(250, 250, 250),
                       secondary=(214, 218, 226), heading=_GOLD, accent=_GOLD,
                       shadow_alpha=0.5)
    if social:
        # Deep violet to magenta, a touch more saturated for feeds.
        return Palette(top=(33, 17, 64), bottom=(128, 38, 86), glow=(236, 116, 128),
                       glow_strength=0.34, vignette=0.38, text=(255, 251, 246),
                       secondary=(244, 226, 232), heading=(250, 206, 120),
                       accent=(250, 206, 120), shadow_alpha=0.58)
    # Gift: midnight plum to wine with a warm rose glow, gold accents.
    return Palette(top=(27, 22, 48), bottom=(88, 34, 60), glow=(206, 118, 124),
                   glow_strength=0.26, vignette=0.36, text=(255, 248, 240),
                   secondary=(236, 222, 212), heading=_GOLD, accent=_GOLD, shadow_alpha=0.55)


def accent_rgb(card: CardSpec) -> RGB:
    """The accent colour drawn on the card (the brand colour when one is given)."""
    return palette(card).accent
