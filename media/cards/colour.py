"""A title card's colours: the palette from its look and brand colour, and WCAG
contrast (pure Python: colours are sRGB 0-255 channel tuples)."""

from __future__ import annotations

import colorsys
from dataclasses import dataclass, replace

from media.cards.spec import CardSpec, card_look
from media.design.values import RGB, parse_hex


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


def palette(card: CardSpec) -> Palette:
    """The card's colours: its look's (:mod:`media.design.looks`, in the card's style); a brand
    colour (``accent_hex``) becomes the accent and the backdrop's hue."""
    colours = card_look(card).colours
    rgb = colours.rgb
    house = Palette(top=rgb("top"), bottom=rgb("bottom"), glow=rgb("glow"),
                    glow_strength=colours.glow_strength, vignette=colours.vignette,
                    text=rgb("text"), secondary=rgb("secondary"), heading=rgb("heading"),
                    accent=rgb("accent"), shadow_alpha=colours.shadow)
    if not card.accent_hex:
        return house
    return _branded(house, parse_hex(card.accent_hex), colours.brand_saturation)


def _branded(house: Palette, accent: RGB, saturation: float) -> Palette:
    """``house`` with a brand colour: a dark one (navy, forest, black) is the backdrop itself
    (a slightly deeper top fading into it); a lighter one pops against a deep, quiet backdrop
    of its hue, at most ``saturation`` saturated. The heading is the brand colour lifted to
    read, the rule the brand colour itself."""
    h, lightness, s = colorsys.rgb_to_hls(*(c / 255.0 for c in accent))
    if contrast_ratio(accent, (255, 255, 255)) >= 7.0:
        return replace(house, top=_hls(h, lightness * 0.55, s), bottom=accent, glow=accent,
                       glow_strength=0.0, heading=lift_contrast(accent, accent, 4.5),
                       accent=accent)
    sat = min(s, saturation)
    if 0.09 <= h <= 0.22:
        sat *= 0.45  # dark yellows turn olive: keep those backdrops nearly neutral
    top = _hls(h + 0.02, 0.07, sat * 0.8)
    bottom = _hls(h - 0.02, 0.16 + 0.1 * max(0.0, saturation - 0.32), sat)
    glow = _hls(h, 0.55, min(1.0, sat * 1.3))
    return replace(house, top=top, bottom=bottom, glow=glow,
                   glow_strength=max(house.glow_strength, 0.14),
                   heading=lift_contrast(accent, bottom, 4.5), accent=accent)


def accent_rgb(card: CardSpec) -> RGB:
    """The accent colour drawn on the card (the brand colour when one is given)."""
    return palette(card).accent
