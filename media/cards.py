"""Opening and closing title cards, typeset with Pillow over a gradient or a softened photo.

Customer text is drawn by us glyph by glyph (nothing goes into an ffmpeg filter string), so
apostrophes, colons, percent signs, backslashes and braces show exactly as typed. Text is
normalised to NFC, whitespace runs fold to one space and characters no bundled font can draw are
dropped (see :func:`media.fonts.missing_glyphs` to warn about them earlier).

Layout: lines are centred in a safe area (8% side margins; for ``social`` the top 12% and bottom
20% of the frame stay clear), wrap into balanced lines (at most 2-3) and shrink until every line
fits, so text never clips. :func:`text_layout` returns the ink boxes of the drawn lines and
:func:`text_mask` the glyph coverage, for tests and verifiers.
"""

from __future__ import annotations

import colorsys
import functools
import itertools
import math
import unicodedata
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from media import fonts
from media.overlay import blend_logo, card_logo_size, check_logo, scale_logo

RGB = tuple[int, int, int]

KINDS = ("opening", "closing")
STYLES = ("gift", "brand", "social")

# Fractions of the frame kept clear of text.
SIDE_MARGIN = 0.08
SOCIAL_TOP_CLEAR = 0.12
SOCIAL_BOTTOM_CLEAR = 0.20
# Widest line, in units of the frame's short side (keeps 16:9 lines from running edge to edge).
MAX_MEASURE_U = 1.36
DUOTONE_MAX = 0.85  # share of the palette duotone in the backdrop of a grey photo
DUOTONE_CHROMA = 0.14  # mean chroma (0..1) from which a photo keeps all its own colours
ENTRANCE_S = 0.6  # seconds over which a card's text fades and rises in
ENTRANCE_RISE = 0.018  # how far the text rises, in units of the frame's short side
LOGO_GAP = 0.04  # space between a card's logo and its text, in units of the short side
# 9:16 is width-limited: its type is this much larger (in units of its short side, the width),
# so a name reads as large on a phone as on a TV; the closing card's longer lines grow less.
PORTRAIT_BOOST = {("opening", "heading"): 1.3, ("opening", "title"): 1.3,
                  ("closing", "title"): 1.12, ("closing", "sub"): 1.1}


@dataclass(frozen=True)
class CardSpec:
    """What a title card says and how it should feel.

    ``lines``: opening: (occasion short name, recipient name); closing: (relationship line,
    optional short memory line). Missing or blank lines are left out. ``accent_hex``:
    ``#RRGGBB`` (or ``#RGB``) brand colour, or None for the house palette. ``gentle``: memorial
    or pet tribute (quieter palette, softer type). ``style``: ``gift``, ``brand`` or ``social``
    (bolder, bigger type inside the social safe area). ``lang``: optional BCP-47 hint that picks
    regional CJK glyph forms (``ja``, ``ko``, ``zh-Hans``, ``zh-Hant``, ``zh-HK``).
    """

    kind: str
    lines: tuple[str, ...]
    accent_hex: str | None = None
    gentle: bool = False
    style: str = "gift"
    lang: str | None = None

    def __post_init__(self) -> None:
        # Accept any sequence (e.g. a list from JSON) and None entries; keep the spec hashable.
        lines = tuple("" if line is None else str(line) for line in self.lines)
        object.__setattr__(self, "lines", lines)
        if self.kind not in KINDS:
            raise ValueError(f"card kind must be one of {KINDS}, not {self.kind!r}")
        if self.style not in STYLES:
            raise ValueError(f"card style must be one of {STYLES}, not {self.style!r}")
        if self.accent_hex is not None:
            parse_hex(self.accent_hex)


@dataclass(frozen=True)
class TextBox:
    """Where one drawn line's ink sits, in frame pixels (right and bottom exclusive).

    ``role`` is ``heading``, ``title``, ``sub`` or ``rule`` (the accent rule, ``text`` empty).
    """

    role: str
    text: str
    left: int
    top: int
    right: int
    bottom: int
    size: int

    @property
    def width(self) -> int:
        """Ink width in pixels."""
        return self.right - self.left

    @property
    def height(self) -> int:
        """Ink height in pixels."""
        return self.bottom - self.top


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


def parse_hex(value: str) -> RGB:
    """``#RRGGBB`` or ``#RGB`` (the ``#`` optional) to an RGB tuple; ValueError otherwise."""
    digits = value.strip().removeprefix("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    if len(digits) != 6 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError(f"not a hex colour: {value!r}")
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))


# --- colour -----------------------------------------------------------------------------------


def _luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG relative luminance of an sRGB colour (0-255 channels)."""
    out = 0.0
    for channel, weight in zip(rgb, (0.2126, 0.7152, 0.0722), strict=True):
        c = channel / 255.0
        out += weight * (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    return out


def contrast_ratio(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG contrast ratio between two sRGB colours (1 to 21)."""
    la, lb = _luminance(a), _luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _hls(h: float, lightness: float, s: float) -> RGB:
    r, g, b = colorsys.hls_to_rgb(h % 1.0, min(1.0, max(0.0, lightness)), min(1.0, max(0.0, s)))
    return (round(r * 255), round(g * 255), round(b * 255))


def _lift(colour: RGB, against: tuple[float, float, float], ratio: float) -> RGB:
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
                       secondary=(214, 214, 214), heading=_lift(accent, bottom, 4.5),
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
                           heading=_lift(accent, (40, 48, 56), 4.5), accent=accent,
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
                       heading=_lift(accent, bottom, 4.5), accent=accent, shadow_alpha=0.55)
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


# --- text shaping helpers ---------------------------------------------------------------------

_NO_BREAK_BEFORE = frozenset(
    "、。，．,.!?！？:;：；%)）]］}｝」』】〉》〕〙〗ー…‥・々ゝゞヽヾ"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ゛゜"
)
_NO_BREAK_AFTER = frozenset("([{（［｛「『【〈《〔〘〖")
_GREEK_TONOS = frozenset((0x300, 0x301, 0x342, 0x313, 0x314, 0x345))


def _is_cjk(ch: str) -> bool:
    """Ideographs, kana and CJK punctuation: scripts that wrap between any two characters."""
    code = ord(ch)
    return (0x2E80 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0xFF00 <= code <= 0xFFEF
            or 0x20000 <= code <= 0x3FFFF)


def _clusters(text: str) -> list[str]:
    """Grapheme-ish clusters: a base character with its combining marks."""
    out: list[str] = []
    for ch in text:
        if out and unicodedata.combining(ch):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _caps(text: str) -> str:
    """Uppercase for tracked headings; Greek capitals drop their accents, as typesetters do."""
    decomposed = unicodedata.normalize("NFD", text.upper())
    out: list[str] = []
    base = ""
    for ch in decomposed:
        if unicodedata.combining(ch):
            if ord(ch) in _GREEK_TONOS and ("\u0370" <= base <= "\u03ff"
                                            or "\u1f00" <= base <= "\u1fff"):
                continue
        else:
            base = ch
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def _tokens(text: str, hard: bool) -> list[tuple[str, bool]]:
    """Unbreakable pieces of ``text`` as (piece, preceded by a space).

    Breaks fall at spaces, between CJK characters (kinsoku: no line starts with closing
    punctuation or small kana, none ends with an opening bracket), after a hyphen or slash, and
    with ``hard`` between any two characters (for a single word too long for the line).
    """
    tokens: list[tuple[str, bool]] = []
    for word_index, word in enumerate(text.split(" ")):
        if not word:
            continue
        clusters = _clusters(word)
        piece = clusters[0]
        space = word_index > 0 and bool(tokens)
        for prev, cur in itertools.pairwise(clusters):
            breakable = (hard or _is_cjk(prev[0]) or _is_cjk(cur[0])
                         or (prev in ("-", "/") and len(piece) > 1))
            if (breakable and cur[0] not in _NO_BREAK_BEFORE
                    and prev[-1] not in _NO_BREAK_AFTER):
                tokens.append((piece, space))
                piece, space = cur, False
            else:
                piece += cur
        tokens.append((piece, space))
    return tokens


@dataclass(frozen=True)
class _Pieces:
    """A line split into drawable pieces: (x offset from the pen, text, font)."""

    items: tuple[tuple[float, str, ImageFont.FreeTypeFont], ...]
    advance: float
    ink: tuple[float, float, float, float]  # left, top, right, bottom relative to pen/baseline


@functools.lru_cache(maxsize=4096)
def _pieces(text: str, size: int, weight: str, face: int, tracking: float) -> _Pieces:
    items: list[tuple[float, str, ImageFont.FreeTypeFont]] = []
    pen = 0.0
    left = top = math.inf
    right = bottom = -math.inf
    for run, font in fonts.font_runs(text, size, weight, face):
        parts = _clusters(run) if tracking else [run]
        for part in parts:
            items.append((pen, part, font))
            if not part.isspace():
                x0, y0, x1, y1 = font.getbbox(part, anchor="ls")
                if x1 > x0 and y1 > y0:
                    left, top = min(left, pen + x0), min(top, y0)
                    right, bottom = max(right, pen + x1), max(bottom, y1)
            pen += font.getlength(part) + tracking
    if tracking and items:
        pen -= tracking
    if left == math.inf:
        left = top = right = bottom = 0.0
    return _Pieces(tuple(items), pen, (left, top, right, bottom))


# --- layout -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Role:
    name: str        # heading | title | sub
    size: float      # largest size, in units of the frame's short side
    max_lines: int
    tracking: float  # letter spacing in em
    caps: bool
    weight: str
    colour: str      # palette attribute
    pitch: float     # line pitch in em


def _roles(card: CardSpec) -> list[tuple[str, _Role]]:
    """The card's non-empty lines with the typographic role of each."""
    social = card.style == "social"
    gentle = card.gentle
    regular_if_gentle = fonts.REGULAR if gentle else fonts.BOLD
    raw = [*card.lines, "", ""]
    if card.kind == "opening":
        first = _Role("heading", 0.064 if social else (0.046 if gentle else 0.050), 2,
                      0.22 if gentle else 0.18, True, regular_if_gentle, "heading", 1.45)
        second = _Role("title", 0.19 if social else (0.135 if gentle else 0.155), 3, 0.0,
                       False, regular_if_gentle, "text", 1.14)
    else:
        first = _Role("title", 0.10 if social else (0.076 if gentle else 0.084), 3, 0.0,
                      False, regular_if_gentle, "text", 1.28)
        second = _Role("sub", 0.06 if social else (0.048 if gentle else 0.052), 3, 0.0,
                       False, fonts.REGULAR, "secondary", 1.38)
    face = fonts.face_for(" ".join(card.lines), card.lang)
    out = []
    for text, role in ((raw[0], first), (raw[1], second)):
        clean = fonts.drawable(text, face)
        if role.caps:
            clean = fonts.drawable(_caps(clean), face)
        if clean and role.name == "sub":
            clean = _quoted(clean, face)
        if clean:
            out.append((clean, role))
    return out


_QUOTES = frozenset("\"'“”‘’«»„「『")


def _quoted(text: str, face: int) -> str:
    """A memory line set as a quotation (curly quotes added unless it is already quoted)."""
    if text[0] in _QUOTES or text[-1] in _QUOTES:
        return text
    quoted = f"\u201c{text}\u201d"
    return quoted if fonts.drawable(quoted, face) == quoted else text


def _balanced(widths: list[float], spaces: list[bool], space_w: float,
              lines: int) -> tuple[list[int], float]:
    """Split tokens into ``lines`` lines minimising the widest; return (line starts, width)."""
    count = len(widths)
    pw = [0.0]
    ps = [0]
    for w, s in zip(widths, spaces, strict=True):
        pw.append(pw[-1] + w)
        ps.append(ps[-1] + int(s))

    def width(i: int, j: int) -> float:
        return pw[j] - pw[i] + space_w * (ps[j] - ps[i + 1])

    inf = math.inf
    best = [[inf] * (count + 1) for _ in range(lines + 1)]
    back = [[0] * (count + 1) for _ in range(lines + 1)]
    best[0][0] = 0.0
    for k in range(1, lines + 1):
        for j in range(k, count + 1):
            for i in range(k - 1, j):
                if best[k - 1][i] == inf:
                    continue
                cand = max(best[k - 1][i], width(i, j))
                if cand < best[k][j]:
                    best[k][j] = cand
                    back[k][j] = i
    starts = []
    j = count
    for k in range(lines, 0, -1):
        i = back[k][j]
        starts.append(i)
        j = i
    return starts[::-1], best[lines][count]


_REF = 100


def _wrap(text: str, role: _Role, max_px: float, measure: float, weight: str,
          face: int) -> tuple[int, list[str]]:
    """Largest size (<= ``max_px``) and balanced lines (<= ``role.max_lines``) that fit."""
    tracking_ref = role.tracking * _REF
    space_w = _pieces(" ", _REF, weight, face, 0.0).advance + tracking_ref
    best: tuple[float, int, list[str]] | None = None  # score, size, lines
    for hard in (False, True):
        tokens = _tokens(text, hard)
        widths = [_pieces(t, _REF, weight, face, tracking_ref).advance + tracking_ref
                  for t, _ in tokens]
        spaces = [s for _, s in tokens]
        for n in range(1, min(role.max_lines, len(tokens)) + 1):
            starts, widest = _balanced(widths, spaces, space_w, n)
            size = min(max_px, _REF * measure / max(widest, 1.0) * 0.985)
            # A second or third line must buy clearly bigger type to be worth it.
            score = size * 0.86 ** (n - 1) - (0.5 if hard else 0.0)
            if best is None or score > best[0]:
                lines = []
                for a, b in zip(starts, [*starts[1:], len(tokens)], strict=True):
                    lines.append("".join((" " if s and k > a else "") + t
                                         for k, (t, s) in enumerate(tokens[a:b], start=a)))
                best = (score, max(1, int(size)), lines)
        if best is not None and best[1] >= 0.45 * max_px:
            break  # soft breaks were good enough: never split words needlessly
    assert best is not None
    return best[1], best[2]


@dataclass(frozen=True)
class _Line:
    role: _Role
    text: str
    size: int
    x: float          # pen position of the line's start
    baseline: float
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class _Layout:
    lines: tuple[_Line, ...]
    rule: tuple[int, int, int, int] | None
    safe: tuple[int, int, int, int]
    face: int


def safe_area(card: CardSpec, width: int, height: int) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) pixel box all text stays inside."""
    side = round(width * SIDE_MARGIN)
    if card.style == "social":
        top = math.ceil(height * SOCIAL_TOP_CLEAR) + round(height * 0.01)
        bottom = math.floor(height * (1 - SOCIAL_BOTTOM_CLEAR)) - round(height * 0.01)
    else:
        top, bottom = round(height * 0.08), round(height * 0.92)
    return side, top, width - side, bottom


@functools.lru_cache(maxsize=64)
def _layout(card: CardSpec, width: int, height: int, reserve_top: int = 0) -> _Layout:
    """Lines placed inside the safe area, whose top ``reserve_top`` pixels are left free (for
    a logo above the text)."""
    if width < 16 or height < 16:
        raise ValueError(f"card too small: {width}x{height}")
    unit = min(width, height)
    safe = safe_area(card, width, height)
    safe = (safe[0], min(safe[1] + reserve_top, (safe[1] + safe[3]) // 2), safe[2], safe[3])
    measure = min(safe[2] - safe[0], MAX_MEASURE_U * unit)
    roles = _roles(card)
    face = fonts.face_for(" ".join(card.lines), card.lang)
    social = card.style == "social"
    rule_len = round(unit * (0.11 if social else (0.06 if card.gentle else 0.08)))
    rule_thick = max(2, round(unit * (0.0058 if social else (0.003 if card.gentle else 0.0045))))
    gap = unit * 0.034
    portrait = height > width

    wrapped = [(role, *_wrap(text, role, role.size * unit * (
        PORTRAIT_BOOST.get((card.kind, role.name), 1.0) if portrait else 1.0),
        measure, role.weight, face)) for text, role in roles]
    if not wrapped:
        return _Layout((), None, safe, face)

    def fitted(role: _Role, lines: list[str], px: int) -> int:
        """Largest size <= px at which every line's real ink fits the measure (kerning and
        hinting can differ slightly from the estimate); one size for the whole role."""
        while px > 4:
            widths = [_pieces(t, px, role.weight, face, role.tracking * px).ink for t in lines]
            if max(r - left for left, _, r, _ in widths) <= measure:
                break
            px = max(4, int(px * 0.97))
        return px

    def place(scale: float) -> tuple[list[_Line], tuple[int, int, int, int] | None]:
        stack: list[tuple[_Role | None, str, int]] = []  # (role or None for the rule, text, px)
        for index, (role, size, lines) in enumerate(wrapped):
            px = fitted(role, lines, max(1, int(size * scale)))
            stack.extend((role, line, px) for line in lines)
            if index == 0:
                stack.append((None, "", 0))  # the accent rule: between the blocks, or below one
        heights = [rule_thick + 2 * gap * scale if role is None else role.pitch * px
                   for role, _, px in stack]
        centre_y = (safe[1] + safe[3]) / 2 - (0.0 if social else height * 0.012)
        y = centre_y - sum(heights) / 2
        lines_out: list[_Line] = []
        rule_box = None
        for (role, text, px), h in zip(stack, heights, strict=True):
            if role is None:
                top = round(y + (h - rule_thick) / 2)
                left = round(width / 2 - rule_len / 2)
                rule_box = (left, top, left + rule_len, top + rule_thick)
            else:
                ink_left, ink_top, ink_right, ink_bottom = _pieces(
                    text, px, role.weight, face, role.tracking * px).ink
                baseline = y + h / 2 + 0.36 * px
                x = width / 2 - (ink_left + ink_right) / 2
                box = (math.floor(x + ink_left), math.floor(baseline + ink_top),
                       math.ceil(x + ink_right), math.ceil(baseline + ink_bottom))
                lines_out.append(_Line(role, text, px, x, baseline, box))
            y += h
        return lines_out, rule_box

    scale = 1.0
    for _ in range(60):
        lines_out, rule_box = place(scale)
        boxes = [line.box for line in lines_out] + ([rule_box] if rule_box else [])
        if (min(b[1] for b in boxes) >= safe[1] and max(b[3] for b in boxes) <= safe[3]) \
                or scale < 0.05:
            break
        scale *= 0.95  # too tall for the safe area: shrink everything a step
    return _Layout(tuple(lines_out), rule_box, safe, face)


def text_layout(card: CardSpec, width: int, height: int,
                logo: np.ndarray | None = None) -> list[TextBox]:
    """Ink boxes of every drawn line (and the accent rule, role ``rule``) in frame pixels, on
    a card drawn with ``logo`` (which moves the text down to make room) or without."""
    reserve = _logo_reserve(width, height, logo)[2]
    with fonts.LOCK:
        lay = _layout(card, width, height, reserve)
    boxes = [TextBox(line.role.name, line.text, *line.box, line.size) for line in lay.lines]
    if lay.rule is not None:
        boxes.append(TextBox("rule", "", *lay.rule, 0))
    return boxes


def _draw_text(draw: ImageDraw.ImageDraw, lay: _Layout, origin: tuple[int, int],
               colours: dict[str, tuple[int, ...]] | None) -> None:
    ox, oy = origin
    for line in lay.lines:
        fill = colours[line.role.colour] if colours else 255
        tracking = line.role.tracking * line.size
        pieces = _pieces(line.text, line.size, line.role.weight, lay.face, tracking)
        for dx, part, font in pieces.items:
            draw.text((line.x + dx - ox, line.baseline - oy), part, font=font, anchor="ls",
                      fill=fill)


def text_mask(card: CardSpec, width: int, height: int) -> np.ndarray:
    """Glyph coverage of the card's text (float32, 0-1, shape (height, width)); no rule, no
    shadow. Lets a test find exactly which pixels are text."""
    image = Image.new("L", (width, height), 0)
    with fonts.LOCK:
        lay = _layout(card, width, height)
        _draw_text(ImageDraw.Draw(image), lay, (0, 0), None)
    return np.asarray(image, dtype=np.float32) / 255.0


# --- backdrops --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _dither(width: int, height: int) -> np.ndarray:
    """Fixed, tiled +-1.5 LSB luma noise (height, width): keeps gradients from banding once
    encoded to 8-bit 4:2:0."""
    tile = np.random.default_rng(20240607).triangular(-1.5, 0.0, 1.5, (128, 128))
    reps = (height // 128 + 1, width // 128 + 1)
    return np.ascontiguousarray(np.tile(tile.astype(np.float32), reps)[:height, :width])


def _grid(width: int, height: int, step: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    sw, sh = max(2, width // step), max(2, height // step)
    ys = (np.arange(sh, dtype=np.float32) + 0.5) / sh
    xs = (np.arange(sw, dtype=np.float32) + 0.5) / sw
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    return yy, xx, sw, sh


def _shade(colour: np.ndarray, pal: Palette, width: int, height: int, yy: np.ndarray,
           xx: np.ndarray, glow_centre_y: float) -> np.ndarray:
    """Glow (screen blend) and vignette over a low-resolution colour field."""
    unit = min(width, height)
    dx = (xx - 0.5) * width / unit
    dy = (yy - glow_centre_y) * height / unit
    glow = np.exp(-(dx**2 + dy**2) / (2 * 0.42**2))[..., None] * pal.glow_strength
    colour = 255.0 - (255.0 - colour) * (1.0 - glow * np.asarray(pal.glow, np.float32) / 255.0)
    r2 = ((xx - 0.5) * 2) ** 2 + ((yy - 0.5) * 2) ** 2
    colour *= (1.0 - pal.vignette * np.clip(r2 / 2.0, 0.0, 1.0) ** 1.4)[..., None]
    return colour


def _gradient(pal: Palette, width: int, height: int) -> np.ndarray:
    yy, xx, _, _ = _grid(width, height, 8)
    t = np.clip(0.72 * yy + 0.28 * xx, 0.0, 1.0)
    if pal.glow_strength == 0.0:
        t = np.clip(t * 2.2, 0.0, 1.0)  # flat brand colour over most of the frame
    t = (t * t * (3 - 2 * t))[..., None]
    top = np.asarray(pal.top, np.float32)
    bottom = np.asarray(pal.bottom, np.float32)
    colour = top * (1 - t) + bottom * t
    colour = _shade(colour, pal, width, height, yy, xx, 0.40)
    return cv2.resize(colour.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)


def _fit_background(background: np.ndarray, width: int, height: int) -> np.ndarray:
    image = np.asarray(background)
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(f"background must be an RGB image, got shape {image.shape}")
    image = image[..., :3]
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    h, w = image.shape[:2]
    if (h, w) != (height, width):
        # Cover: scale to fill, centre-crop.
        scale = max(width / w, height / h)
        nw, nh = max(width, round(w * scale)), max(height, round(h * scale))
        image = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
        x0, y0 = (nw - width) // 2, (nh - height) // 2
        image = image[y0 : y0 + height, x0 : x0 + width]
    return image


def _duotone(small: np.ndarray, pal: Palette) -> np.ndarray:
    """A grey or washed-out photo takes the palette's colours by its own light (shadows in the
    palette's deep tone, highlights in its glow), so a black-and-white photo gives a warm
    backdrop rather than a flat grey one; colourful photos keep their colours."""
    chroma = float((small.max(axis=-1) - small.min(axis=-1)).mean()) / 255.0
    weight = DUOTONE_MAX * float(np.clip(1.0 - chroma / DUOTONE_CHROMA, 0.0, 1.0))
    if weight <= 0.0:
        return small
    luma = (small @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)) / 255.0
    shadow = np.asarray(pal.top, np.float32)
    light = np.asarray(pal.glow, np.float32)
    duo = shadow + (light - shadow) * luma[..., None]
    return small * (1.0 - weight) + duo * weight


def _photo_backdrop(background: np.ndarray, pal: Palette, width: int, height: int,
                    focus_y: float) -> np.ndarray:
    """A darkened, softly blurred, palette-tinted copy of a frame, calm behind the text."""
    image = _fit_background(background, width, height)
    step = 6
    sw, sh = max(2, width // step), max(2, height // step)
    small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32)
    unit_small = min(sw, sh)
    small = cv2.GaussianBlur(small, (0, 0), sigmaX=max(1.0, unit_small * 0.016))
    small = _duotone(small, pal)
    luma = small @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)
    mean = float(luma.mean())
    small *= float(np.clip(70.0 / max(mean, 1.0), 0.22, 0.62))
    # Soft knee: no highlight stays bright enough to fight white type.
    luma = small @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)
    knee = 58.0
    squeezed = np.where(luma > knee, knee + (luma - knee) * 0.3, luma)
    small *= (squeezed / np.maximum(luma, 1e-3))[..., None]
    tint = np.asarray(pal.top, np.float32) * 0.55 + np.asarray(pal.bottom, np.float32) * 0.45
    small = small * 0.8 + tint * 0.2
    yy, xx, _, _ = _grid(width, height, step)
    yy, xx = yy[:sh, :sw], xx[:sh, :sw]
    unit = min(width, height)
    dy = (yy - focus_y) * height / unit
    dx = (xx - 0.5) * width / unit
    scrim = 1.0 - 0.28 * np.exp(-(dx**2 * 0.5 + dy**2) / (2 * 0.32**2))
    r2 = ((xx - 0.5) * 2) ** 2 + ((yy - 0.5) * 2) ** 2
    small *= (scrim * (1.0 - 0.32 * np.clip(r2 / 2.0, 0.0, 1.0) ** 1.4))[..., None]
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


# --- rendering --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardImage:
    """A rendered card: ``final`` (uint8 RGB), its ``base`` (the backdrop alone), the ``box``
    (x0, y0, x1, y1 pixels) outside which they are equal, and how far (pixels) the text rises
    during its entrance (see :func:`entrance_frame`)."""

    final: np.ndarray
    base: np.ndarray
    box: tuple[int, int, int, int]
    rise_px: float


def render_card(card: CardSpec, width: int, height: int,
                background: np.ndarray | None = None,
                logo: np.ndarray | None = None) -> np.ndarray:
    """The card as a uint8 RGB array of shape (height, width, 3).

    Without ``background``: the palette's gradient backdrop. With one (uint8 RGB, ideally the
    same size; another size is cover-fitted): text over a darkened, softly blurred copy of it.
    ``logo`` (RGBA uint8) is drawn above the text, larger than on the film's shots.
    """
    return render_card_image(card, width, height, background, logo, entrance=False).final


def _logo_reserve(width: int, height: int, logo: np.ndarray | None) -> tuple[int, int, int]:
    """(logo width, logo height, pixels kept free above the text) on a card; zeros without."""
    if logo is None:
        return 0, 0, 0
    lw, lh = card_logo_size(width, height, logo.shape[1], logo.shape[0])
    return lw, lh, lh + round(LOGO_GAP * min(width, height))


def render_card_image(card: CardSpec, width: int, height: int,
                      background: np.ndarray | None = None,
                      logo: np.ndarray | None = None, *, entrance: bool = True) -> CardImage:
    """The card with its parts for the entrance animation (see :func:`render_card`); without
    ``entrance`` the base is not kept (``base`` is ``final``, the box empty)."""
    rgba_logo = check_logo(logo) if logo is not None else None
    logo_w, logo_h, reserve = _logo_reserve(width, height, rgba_logo)
    with fonts.LOCK:
        lay = _layout(card, width, height, reserve)
    pal = palette(card)
    if lay.lines:
        focus = (min(b.box[1] for b in lay.lines) + max(b.box[3] for b in lay.lines)) / 2
    else:
        focus = height / 2
    if background is None:
        base = _gradient(pal, width, height)
    else:
        base = _photo_backdrop(background, pal, width, height, focus / height)
    base += _dither(width, height)[:, :, None]  # the same luma noise on R, G and B
    plain = _to_uint8(base) if entrance or not lay.lines else None
    boxes = [line.box for line in lay.lines] + ([lay.rule] if lay.rule else [])
    if lay.lines:
        _composite_text(base, lay, pal, card.gentle)
    final = _to_uint8(base) if lay.lines or plain is None else plain.copy()
    if rgba_logo is not None:
        top = min((b[1] for b in boxes), default=height // 2 - logo_h // 2 + reserve)
        logo_box = ((width - logo_w) // 2, max(0, top - reserve), logo_w, logo_h)
        final = blend_logo(final, scale_logo(rgba_logo, logo_box))
        boxes.append((logo_box[0], logo_box[1], logo_box[0] + logo_w, logo_box[1] + logo_h))
    if plain is None:
        return CardImage(final, final, (0, 0, 0, 0), 0.0)
    return CardImage(final, plain, *_changed_box(boxes, card, width, height))


def _changed_box(boxes: list[tuple[int, int, int, int]], card: CardSpec, width: int,
                 height: int) -> tuple[tuple[int, int, int, int], float]:
    """The region text, shadow and logo may touch, with room below for the entrance rise;
    and the rise (pixels)."""
    unit = min(width, height)
    rise = ENTRANCE_RISE * unit * (0.6 if card.gentle else 1.0)
    if not boxes:
        return (0, 0, 0, 0), rise
    pad = math.ceil(unit * 0.06)
    return (max(0, min(b[0] for b in boxes) - pad), max(0, min(b[1] for b in boxes) - pad),
            min(width, max(b[2] for b in boxes) + pad),
            min(height, max(b[3] for b in boxes) + pad + math.ceil(rise))), rise


def _composite_text(base: np.ndarray, lay: _Layout, pal: Palette, gentle: bool) -> None:
    """Draw the laid-out lines and the accent rule, with a soft shadow, onto ``base`` (float32
    RGB, in place)."""
    height, width = base.shape[:2]
    unit = min(width, height)
    sigma = unit * (0.010 if gentle else 0.008)
    pad = math.ceil(sigma * 4 + unit * 0.01)
    boxes = [line.box for line in lay.lines] + ([lay.rule] if lay.rule else [])
    x0 = max(0, min(b[0] for b in boxes) - pad)
    y0 = max(0, min(b[1] for b in boxes) - pad)
    x1 = min(width, max(b[2] for b in boxes) + pad)
    y1 = min(height, max(b[3] for b in boxes) + pad)
    region = base[y0:y1, x0:x1]

    # Make sure every line reads against what is actually behind it.
    colours: dict[str, tuple[int, ...]] = {}
    for line in lay.lines:
        bx0, by0, bx1, by1 = line.box
        behind = base[max(0, by0):max(by0 + 1, by1), max(0, bx0):max(bx0 + 1, bx1)]
        behind_rgb = tuple(float(v) for v in
                           np.percentile(behind[::3, ::3].reshape(-1, 3), 90, axis=0))
        want = getattr(pal, line.role.colour)
        lifted = _lift(want, behind_rgb, 4.5)  # type: ignore[arg-type]
        prior = colours.get(line.role.colour)
        if prior is None or _luminance(lifted) > _luminance(prior[:3]):  # type: ignore[arg-type]
            colours[line.role.colour] = (*lifted, 255)

    layer = Image.new("RGBA", (x1 - x0, y1 - y0), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    with fonts.LOCK:
        _draw_text(draw, lay, (x0, y0), colours)
    if lay.rule is not None:
        rx0, ry0, rx1, ry1 = (lay.rule[0] - x0, lay.rule[1] - y0, lay.rule[2] - x0 - 1,
                              lay.rule[3] - y0 - 1)
        behind_rule = tuple(float(v) for v in region[ry0 : ry1 + 1, rx0 : rx1 + 1]
                            .reshape(-1, 3).mean(axis=0))
        rule_colour = pal.accent
        if contrast_ratio(rule_colour, behind_rule) < 1.5:  # type: ignore[arg-type]
            rule_colour = _lift(pal.accent, behind_rule, 3.0)  # type: ignore[arg-type]
        draw.rectangle((rx0, ry0, rx1, ry1), fill=(*rule_colour, 255))
    rgba = np.asarray(layer)
    alpha = rgba[..., 3].astype(np.float32) * (1.0 / 255.0)

    # Soft drop shadow: blur the coverage at half resolution, nudge it down.
    ah, aw = alpha.shape
    half = cv2.resize(alpha, (max(1, aw // 2), max(1, ah // 2)), interpolation=cv2.INTER_AREA)
    half = cv2.GaussianBlur(half, (0, 0), sigmaX=max(0.5, sigma / 2))
    blurred = cv2.resize(half, (aw, ah), interpolation=cv2.INTER_LINEAR)
    shift = max(1, round(unit * 0.003))
    shadow = np.zeros_like(blurred)
    shadow[shift:] = blurred[:-shift]
    # One multiplier per pixel (shadow darkening times what the glyph leaves uncovered), then
    # the glyph colour premultiplied by its coverage on top.
    np.multiply(shadow, 1.6, out=shadow)
    np.clip(shadow, 0.0, 1.0, out=shadow)
    keep = 1.0 - pal.shadow_alpha * shadow
    keep *= 1.0 - alpha
    region *= keep[..., None]
    region += rgba[..., :3].astype(np.float32) * alpha[..., None]


def entrance_frame(image: CardImage, seconds: float) -> np.ndarray:
    """The card ``seconds`` into its entrance: the text (and logo) fade in and rise
    ``image.rise_px`` into place over :data:`ENTRANCE_S` (ease-out, sub-pixel). Before 0 the
    bare backdrop, from :data:`ENTRANCE_S` on the finished card (the same array, no copy)."""
    progress = seconds / ENTRANCE_S
    if progress >= 1.0:
        return image.final
    if progress <= 0.0:
        return image.base
    eased = 1.0 - (1.0 - progress) ** 3
    x0, y0, x1, y1 = image.box
    if x1 <= x0 or y1 <= y0:
        return image.final
    base = image.base[y0:y1, x0:x1].astype(np.float32)
    delta = image.final[y0:y1, x0:x1].astype(np.float32) - base
    shift = np.float64([[1.0, 0.0, 0.0], [0.0, 1.0, image.rise_px * (1.0 - eased)]])
    moved = cv2.warpAffine(delta, shift, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    out = image.base.copy()
    out[y0:y1, x0:x1] = _to_uint8(base + moved * eased)
    return out


def _to_uint8(image: np.ndarray) -> np.ndarray:
    # Rounds and saturates in one pass (backdrops never go meaningfully below zero).
    return cv2.convertScaleAbs(image)
