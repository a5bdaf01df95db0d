"""One line of customer text shaped for drawing: bidi runs in display order (FriBiDi's,
:mod:`media.cards.bidi`), one font per run (:mod:`media.cards.fonts`), each drawn by Pillow's RAQM
layout (HarfBuzz shaping, FriBiDi inside the run) in its own direction; colour emoji drawn at
their native size and scaled; letters are user-perceived characters (``regex``'s ``\\X``).

Pure Pillow, no layout decisions: :mod:`media.cards.text` wraps and places the lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import regex
from PIL import Image, ImageChops, ImageDraw, ImageFont

from media.base import heap
from media.cards import bidi, fonts

_GRAPHEME = regex.compile(r"\X")


def clusters(text: str) -> list[str]:
    """``text``'s user-perceived characters (extended grapheme clusters, UAX #29): a base
    character with its marks, joiners and selectors; an emoji ZWJ sequence or a flag whole."""
    return _GRAPHEME.findall(text)


@dataclass(frozen=True)
class Piece:
    """One drawn piece of a line: pen offset ``x`` from the line's start (pixels), its text,
    font, direction (``ltr``/``rtl``), ``scale`` (emoji: ``size / EMOJI_PX``, else 1) and the
    logical index of the ``word`` it belongs to (spaces separate words)."""

    x: float
    text: str
    font: ImageFont.FreeTypeFont
    direction: str
    scale: float
    word: int


@dataclass(frozen=True)
class ShapedLine:
    """A line split into drawable pieces, in display order left to right."""

    items: tuple[Piece, ...]
    advance: float
    ink: tuple[float, float, float, float]  # left, top, right, bottom relative to pen/baseline


def line_segments(text: str, size: int, weight: str, face: int,
                  resolved: bidi.Resolved) -> list[tuple[str, ImageFont.FreeTypeFont, int, int]]:
    """``text`` cut into (text, font, bidi level, word index) pieces in logical order: one
    font, one direction and one word (or one space) each, the levels ``resolved``'s
    (:func:`media.cards.bidi.resolve`)."""
    owner: list[ImageFont.FreeTypeFont] = []
    for run, font in fonts.font_runs(text, size, weight, face, colour=True):
        owner.extend([font] * len(run))
    keys: list[tuple[ImageFont.FreeTypeFont, int, int]] = []
    word = 0
    for pos, ch in enumerate(text):
        if ch != " " and pos > 0 and text[pos - 1] == " ":
            word += 1
        keys.append((owner[pos], resolved.levels[pos], -1 if ch == " " else word))
    out: list[tuple[str, ImageFont.FreeTypeFont, int, int]] = []
    start = 0
    for pos in range(1, len(text) + 1):
        if pos == len(text) or keys[pos] != keys[start]:
            out.append((text[start:pos], *keys[start]))
            start = pos
    return out


def _display_order(segments: list[tuple[str, ImageFont.FreeTypeFont, int, int]],
                   resolved: bidi.Resolved) -> list[int]:
    """The indices of ``segments`` (in logical order, each of one level) left to right on
    screen: by where the bidi algorithm shows their first character."""
    starts = [0]
    for run, *_ in segments[:-1]:
        starts.append(starts[-1] + len(run))
    return sorted(range(len(segments)), key=lambda index: resolved.visual[starts[index]])


@heap.activity_cache(maxsize=4096)
def shape_line(text: str, size: int, weight: str, face: int, tracking: float,
               level: int | None = None) -> ShapedLine:
    """``text`` shaped and placed on one line: bidi runs in display order, each drawn by RAQM
    in its own direction; letters spaced by ``tracking`` pixels where the script allows.
    ``level``: the paragraph's bidi level (a wrapped line keeps its paragraph's direction);
    None: from the line's own first strong character."""
    resolved = bidi.resolve(text, level)
    segments = line_segments(text, size, weight, face, resolved)
    order = _display_order(segments, resolved)
    items: list[Piece] = []
    pen = 0.0
    left = top = math.inf
    right = bottom = -math.inf
    for index in order:
        run, font, level, word = segments[index]
        direction = "rtl" if level % 2 else "ltr"
        scale = size / fonts.EMOJI_PX if fonts.is_colour(font) else 1.0
        split = tracking and direction == "ltr" and fonts.trackable(run)
        for part in (clusters(run) if split else [run]):
            piece = Piece(pen, part, font, direction, scale, word)
            if not part.isspace():
                items.append(piece)
                x0, y0, x1, y1 = font.getbbox(part, anchor="ls", direction=direction)
                if x1 > x0 and y1 > y0:
                    left, top = min(left, pen + x0 * scale), min(top, y0 * scale)
                    right, bottom = max(right, pen + x1 * scale), max(bottom, y1 * scale)
            pen += font.getlength(part, direction=direction) * scale + tracking
    if tracking and segments:
        pen -= tracking
    if left == math.inf:
        left = top = right = bottom = 0.0
    return ShapedLine(tuple(items), pen, (left, top, right, bottom))


def draw_emoji(image: Image.Image, piece: Piece, x: float, y: float) -> None:
    """Draw a colour emoji piece at its native size, scale it and composite it with its pen at
    (``x``, baseline ``y``) pixels: over an RGBA layer, or as coverage into an L mask."""
    x0, y0, x1, y1 = piece.font.getbbox(piece.text, anchor="ls", direction=piece.direction)
    if x1 <= x0 or y1 <= y0:
        return
    native = Image.new("RGBA", (x1 - x0, y1 - y0), (0, 0, 0, 0))
    ImageDraw.Draw(native).text((-x0, -y0), piece.text, font=piece.font, anchor="ls",
                                embedded_color=True, direction=piece.direction)
    width = max(1, round((x1 - x0) * piece.scale))
    height = max(1, round((y1 - y0) * piece.scale))
    sprite = native.resize((width, height), Image.Resampling.LANCZOS)
    left, top = round(x + x0 * piece.scale), round(y + y0 * piece.scale)
    # Clip to the image (alpha_composite wants the destination inside it).
    cx0, cy0 = max(0, -left), max(0, -top)
    cx1, cy1 = min(width, image.width - left), min(height, image.height - top)
    if cx1 <= cx0 or cy1 <= cy0:
        return
    sprite = sprite.crop((cx0, cy0, cx1, cy1))
    dest = (left + cx0, top + cy0)
    if image.mode == "RGBA":
        image.alpha_composite(sprite, dest)
    else:
        box = (*dest, dest[0] + sprite.width, dest[1] + sprite.height)
        image.paste(ImageChops.lighter(image.crop(box), sprite.getchannel("A")), box)
