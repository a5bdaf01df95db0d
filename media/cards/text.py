"""A title card's text: shaped, wrapped and placed (Pillow fonts; no pixels composited here).

Customer text is drawn by us glyph by glyph (nothing goes into an ffmpeg filter string), so
apostrophes, colons, percent signs, backslashes and braces show exactly as typed. Text is
normalised to NFC, bidi controls are neutralised, whitespace runs fold to one space; lines are
shaped by :mod:`media.cards.shaping` (any bundled script, right-to-left runs, colour emoji). Text no
bundled font can draw is never silently lost: :func:`drawn_text` leaves the line out (a letter)
or drops the symbol, and the layout's ``notes`` say so.

Layout: lines are set as the card's look says (:mod:`media.design.looks`: face, size as a share
of the frame's height per aspect, tracking, caps, pitch), centred in a safe area (8% side
margins; for a look's ``social_safe`` variant the top 12% and bottom 20% of the frame stay
clear), wrap into balanced lines (at most 2-3; a ``keep_phrase`` role keeps the words before its
first comma together) and shrink until every line fits, so text never clips. They never shrink
below the size a phone reads (:func:`media.design.reading.type_min_px`): a line too long for its
lines at that size takes more lines (up to :data:`LINES_MAX_AT_MIN`), and a card whose words do
not fit its safe area that way is one the planner must not make (:func:`reads_on_a_phone`).
:func:`text_layout` returns the ink boxes of the drawn lines and
:func:`text_mask` the glyph coverage, for tests and verifiers; :func:`layout_card` is the layout
:mod:`media.cards.draw` draws.
"""

from __future__ import annotations

import itertools
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image, ImageDraw

from media.base import heap
from media.base.spec import ASPECTS
from media.cards import bidi, fonts
from media.cards.overlay import card_logo_size
from media.cards.shaping import ShapedLine, clusters, draw_emoji, shape_line
from media.cards.spec import CardSpec, TextBox, card_look
from media.design import looks
from media.design.reading import type_min_px, word_count

# Fractions of the frame kept clear of text.
SIDE_MARGIN = 0.08
SOCIAL_TOP_CLEAR = 0.12
SOCIAL_BOTTOM_CLEAR = 0.20
# Widest line, in units of the frame's short side (keeps 16:9 lines from running edge to edge).
MAX_MEASURE_U = 1.36
LINES_MAX_AT_MIN = 12  # a role's lines may grow to this many rather than shrink below the minimum
LOGO_GAP = 0.04  # space between a card's logo and its text, in units of the short side
# Each card's lines, in order: (the engine's role name, the look's role).
CARD_ROLES = {"opening": (("heading", "occasion"), ("title", "name")),
              "closing": (("title", "greeting"), ("sub", "message"), ("sign", "sign")),
              "interlude": (("sub", "interlude_line"), ("words", "interlude_line"))}


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
        parts = clusters(word)
        piece = parts[0]
        space = word_index > 0 and bool(tokens)
        for prev, cur in itertools.pairwise(parts):
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


# --- layout -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextRole:
    """How one kind of line is set (from the look's role, :class:`media.design.looks.Role`):
    sizes as shares of the frame's height, spacing in em."""

    name: str        # heading | title | sub | sign | words
    landscape: float  # largest size in a landscape (or square) frame, share of its height
    portrait: float  # largest size in a portrait frame, share of its height
    max_lines: int
    tracking: float  # letter spacing in em
    caps: bool
    weight: str      # typeface key (media.cards.fonts.typeface)
    colour: str      # palette attribute
    pitch: float     # line pitch in em
    keep_phrase: bool = False  # the words before the first comma stay on one line
    display: bool = False  # set in the look's display face

    def size_px(self, width: int, height: int) -> float:
        """The largest size in pixels in a ``width`` x ``height`` frame."""
        return (self.portrait if height > width else self.landscape) * height

    @classmethod
    def of(cls, name: str, role: looks.Role, look: looks.Look) -> TextRole:
        """The engine's role ``name`` set as the look's ``role``."""
        return cls(name, role.size.landscape, role.size.portrait, role.max_lines, role.tracking,
                   role.caps, look.face(role), role.colour, role.pitch, role.keep_phrase,
                   role.face == "display")


def drawn_text(text: str, face: int) -> tuple[str, str | None]:
    """What of ``text`` a card draws, and a note when that is not all of it.

    Bidi controls and invisible format characters go silently (they draw nothing). Symbols no
    bundled font draws (a pictograph newer than the emoji font) are dropped and noted. If a
    letter, mark or digit cannot be drawn, the whole line is left out (returns ``""``) and
    noted: a name is never drawn misspelled, the card falls back to its layout without it.
    """
    missing = fonts.missing_glyphs(text, face)
    if not missing:
        return fonts.drawable(text, face, colour=True), None
    codes = " ".join(f"U+{ord(ch):04X}" for ch in missing)
    if any(unicodedata.category(ch)[0] in "LMN" for ch in missing):
        return "", f"left out: no bundled font draws {codes}"
    return (fonts.drawable(text, face, colour=True),
            f"dropped symbols no bundled font draws: {codes}")


def undrawn_notes(card: CardSpec) -> tuple[str, ...]:
    """What of ``card``'s text will not be drawn and why (empty when all of it is): for the
    film's plan, so ops can see it (see :func:`drawn_text`)."""
    return tuple(_roles_and_notes(card)[1])


def _roles_and_notes(card: CardSpec) -> tuple[list[tuple[str, TextRole]], list[str]]:
    """The card's non-empty lines with the typographic role of each, and notes on any text
    that could not be drawn (see :func:`drawn_text`)."""
    look = card_look(card)
    raw = [*card.lines, "", "", ""]
    roles = tuple(_scaled(TextRole.of(name, getattr(look.roles, key), look),
                          _size_scale(card, look))
                  for name, key in CARD_ROLES[card.kind])
    if card.part == "occasion":  # large and alone: tracked tighter than the lockup's caps
        roles = tuple(replace(role, tracking=look.title_sequence.occasion_tracking)
                      if role.name == "heading" else role for role in roles)
    face = fonts.face_for(" ".join(card.lines), card.lang)
    out = []
    notes = []
    for text, role in zip(raw, roles, strict=False):
        clean, note = drawn_text(text, face)
        if note:
            notes.append(f"{card.kind} card {role.name} line {note}")
        if role.caps:
            clean = fonts.drawable(_caps(clean), face, colour=True)
        if clean and role.name == "sub":
            clean = _quoted(clean, face)
        if clean:
            out.append((clean, role))
    return out, notes


def _size_scale(card: CardSpec, look: looks.Look) -> float:
    """How much larger than its roles a card's lines are set: a title sequence's lead part
    (the occasion or the name alone, :class:`media.design.looks.TitleSequence`), and an
    interlude's short line (:attr:`media.design.looks.Interlude.short_words`)."""
    if card.part:
        return getattr(look.title_sequence, f"{card.part}_scale")
    rules = look.interlude
    if card.kind == "interlude" and word_count(" ".join(card.lines)) <= rules.short_words:
        return rules.short_scale
    return 1.0


def _scaled(role: TextRole, scale: float) -> TextRole:
    """``role`` with its sizes ``scale`` times larger (the same role when 1)."""
    if scale == 1.0:
        return role
    return replace(role, landscape=role.landscape * scale, portrait=role.portrait * scale)


_QUOTES = frozenset("\"'“”‘’«»„「『")


def _quoted(text: str, face: int) -> str:
    """A memory line set as a quotation (curly quotes added unless it is already quoted)."""
    if text[0] in _QUOTES or text[-1] in _QUOTES or bidi.base_level(text) == 1:
        return text  # right-to-left quotation marks differ by language: none added
    quoted = f"\u201c{text}\u201d"
    return quoted if fonts.drawable(quoted, face, colour=True) == quoted else text


def _balanced(widths: list[float], spaces: list[bool], space_w: float,
              lines: int) -> list[tuple[list[int], float]]:
    """Split tokens into 1, 2, ... ``lines`` lines minimising the widest; return (line starts,
    width) for each count of lines, in order (one pass for all of them)."""
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
    out = []
    for total in range(1, lines + 1):
        starts = []
        j = count
        for k in range(total, 0, -1):
            i = back[k][j]
            starts.append(i)
            j = i
        out.append((starts[::-1], best[total][count]))
    return out


_REF = 100


def _phrase_kept(tokens: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """``tokens`` with those up to and including the first one ending in a comma joined into
    one unbreakable piece, when there is text after it ("Happy birthday," / "Marta")."""
    end = next((i for i, (piece, _) in enumerate(tokens) if piece.endswith((",", "，", "、"))),
               None)
    if end is None or end == 0 or end == len(tokens) - 1:
        return tokens
    phrase = "".join((" " if space and i else "") + piece
                     for i, (piece, space) in enumerate(tokens[:end + 1]))
    return [(phrase, tokens[0][1]), *tokens[end + 1:]]


def _wrap(text: str, role: TextRole, px_range: tuple[float, float], measure: float,
          weight: str, face: int) -> tuple[int, list[str]]:
    """Largest size (within ``px_range``: the smallest a phone reads, the role's largest) and
    balanced lines (<= ``role.max_lines``, more when fewer would need type below the
    smallest) that fit ``measure``."""
    min_px, max_px = px_range
    tracking_ref = role.tracking * _REF
    space_w = shape_line(" ", _REF, weight, face, 0.0).advance + tracking_ref
    best: tuple[float, int, list[str]] | None = None  # score, size, lines
    for hard in (False, True):
        tokens = _tokens(text, hard)
        if role.keep_phrase and not hard:
            tokens = _phrase_kept(tokens)
        widths = [shape_line(t, _REF, weight, face, tracking_ref).advance + tracking_ref
                  for t, _ in tokens]
        spaces = [s for _, s in tokens]
        splits = _balanced(widths, spaces, space_w, min(LINES_MAX_AT_MIN, len(tokens)))
        for n, (starts, widest) in enumerate(splits, start=1):
            size = min(max_px, _REF * measure / max(widest, 1.0) * 0.985)
            if n > role.max_lines and (best is None or best[1] >= min_px):
                break  # more lines than the look sets only to keep the type readable
            # A second or third line must buy clearly bigger type to be worth it.
            score = size * 0.86 ** (n - 1) - (0.5 if hard else 0.0)
            if n > role.max_lines or best is None or score > best[0]:
                lines = []
                for a, b in zip(starts, [*starts[1:], len(tokens)], strict=True):
                    lines.append("".join((" " if s and k > a else "") + t
                                         for k, (t, s) in enumerate(tokens[a:b], start=a)))
                best = (score, max(1, int(size)), lines)
        enough = max(min_px, 0.45 * max_px)
        words_fit = max(widths, default=0.0) * min_px / _REF <= measure
        if best is not None and (best[1] >= enough or words_fit):
            break  # soft breaks were good enough, or every word fits at a size a phone reads:
            # the type shrinks rather than split a word ("CONGRATULATI / ONS", "Robert J / ames")
    assert best is not None
    return max(best[1], math.ceil(min_px)), best[2]


@dataclass(frozen=True)
class LaidLine:
    """One placed line: its type ``size`` and pen start ``x``/``baseline`` (pixels), and the
    ``box`` (left, top, right, bottom pixels) its ink covers."""

    role: TextRole
    text: str
    size: int
    x: float          # pen position of the line's start
    baseline: float
    box: tuple[int, int, int, int]
    level: int = 0    # the bidi level of the paragraph the line was wrapped from


@dataclass(frozen=True)
class CardLayout:
    """A card's placed lines, its accent ``rule`` box, the ``safe`` box the text keeps inside
    (pixels), the font ``face`` (see :func:`media.cards.fonts.face_for`) and ``notes`` on text it
    could not draw."""

    lines: tuple[LaidLine, ...]
    rule: tuple[int, int, int, int] | None
    safe: tuple[int, int, int, int]
    face: int
    notes: tuple[str, ...] = ()  # text the card could not draw (see drawn_text)


def safe_area(card: CardSpec, width: int, height: int) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) pixel box all text stays inside."""
    side = round(width * SIDE_MARGIN)
    if card_look(card).social_safe:
        top = math.ceil(height * SOCIAL_TOP_CLEAR) + round(height * 0.01)
        bottom = math.floor(height * (1 - SOCIAL_BOTTOM_CLEAR)) - round(height * 0.01)
    else:
        top, bottom = round(height * 0.08), round(height * 0.92)
    return side, top, width - side, bottom


@heap.activity_cache(maxsize=64)
def layout_card(card: CardSpec, width: int, height: int, reserve_top: int = 0,
                at: tuple[float, float, float] | None = None) -> CardLayout:
    """Lines placed inside the safe area, whose top ``reserve_top`` pixels are left free (for
    a logo above the text): centred (an interlude's low, at its look's ``text_y``), or with
    ``at`` (centre x, centre y pixels, scale) centred there with its type ``scale`` times its
    size (a card over its photo, its words off the photo's subject), kept inside the safe
    area."""
    if width < 16 or height < 16:
        raise ValueError(f"card too small: {width}x{height}")
    unit = min(width, height)
    safe = safe_area(card, width, height)
    safe = (safe[0], min(safe[1] + reserve_top, (safe[1] + safe[3]) // 2), safe[2], safe[3])
    measure = min(safe[2] - safe[0], MAX_MEASURE_U * unit)
    roles, notes = _roles_and_notes(card)
    face = fonts.face_for(" ".join(card.lines), card.lang)
    look = card_look(card)
    social = look.social_safe
    rule_len = round(unit * look.rule.length)
    rule_thick = max(2, round(unit * look.rule.thickness))
    gap = unit * 0.034

    min_px = type_min_px(width, height)
    wrapped = [(role, *_wrap(text, role, (min_px, role.size_px(width, height)), measure,
                             role.weight, face)) for text, role in roles]
    levels = {role.name: bidi.base_level(text) for text, role in roles}
    if not wrapped:
        return CardLayout((), None, safe, face, tuple(notes))

    def fitted(role: TextRole, lines: list[str], px: int) -> int:
        """Largest size <= px at which every line's real ink fits the measure (kerning and
        hinting can differ slightly from the estimate); one size for the whole role, never
        below the smallest a phone reads."""
        px = max(px, min_px)
        while px > min_px:
            widths = [shape_line(t, px, role.weight, face, role.tracking * px,
                                 levels[role.name]).ink for t in lines]
            if max(r - left for left, _, r, _ in widths) <= measure:
                break
            px = max(min_px, int(px * 0.97))
        return px

    # a lead shot of the title sequence (one line alone) has no rule under it
    rule_after = -1 if card.part else 0 if look.rule.after == "first" else next(
        (i for i, (role, _, _) in enumerate(wrapped) if role.display), 0)

    def place(scale: float) -> tuple[list[LaidLine], tuple[int, int, int, int] | None]:
        stack: list[tuple[TextRole | None, str, int]] = []  # (role or None for the rule, text, px)
        for index, (role, size, lines) in enumerate(wrapped):
            px = fitted(role, lines, max(1, int(size * scale)))
            stack.extend((role, line, px) for line in lines)
            if index == rule_after:
                stack.append((None, "", 0))  # the accent rule: between the blocks, or below one
        heights = [rule_thick + 2 * gap * scale if role is None else role.pitch * px
                   for role, _, px in stack]
        centre_x = width / 2
        centre_y = (safe[1] + safe[3]) / 2 - (0.0 if social else height * 0.012)
        if at is not None:
            inks = [shape_line(text, px, role.weight, face, role.tracking * px,
                               levels[role.name]).ink for role, text, px in stack if role]
            half_w = max([(r - left) / 2 for left, _, r, _ in inks] + [rule_len * scale / 2])
            centre_x = min(max(at[0], safe[0] + half_w), safe[2] - half_w)
            centre_y = min(max(at[1], safe[1] + sum(heights) / 2), safe[3] - sum(heights) / 2)
        elif card.kind == "interlude":  # low in the frame, off the faces, inside the safe area
            centre_y = min(safe[1] + (safe[3] - safe[1]) * look.interlude.text_y,
                           safe[3] - sum(heights) / 2)
        y = centre_y - sum(heights) / 2
        lines_out: list[LaidLine] = []
        rule_box = None
        for (role, text, px), h in zip(stack, heights, strict=True):
            if role is None:
                top = round(y + (h - rule_thick) / 2)
                left = round(centre_x - rule_len / 2)
                rule_box = (left, top, left + rule_len, top + rule_thick)
            else:
                level = levels[role.name]
                ink_left, ink_top, ink_right, ink_bottom = shape_line(
                    text, px, role.weight, face, role.tracking * px, level).ink
                baseline = y + h / 2 + 0.36 * px
                x = centre_x - (ink_left + ink_right) / 2
                box = (math.floor(x + ink_left), math.floor(baseline + ink_top),
                       math.ceil(x + ink_right), math.ceil(baseline + ink_bottom))
                lines_out.append(LaidLine(role, text, px, x, baseline, box, level))
            y += h
        return lines_out, rule_box

    scale = 1.0 if at is None else at[2]
    for _ in range(60):
        lines_out, rule_box = place(scale)
        if _inside(lines_out, rule_box, safe) or scale < 0.05 or all(
                line.size <= min_px for line in lines_out):
            break
        scale *= 0.95  # too tall for the safe area: shrink everything a step
    return CardLayout(tuple(lines_out), rule_box, safe, face, tuple(notes))


def _inside(lines: list[LaidLine], rule: tuple[int, int, int, int] | None,
            safe: tuple[int, int, int, int]) -> bool:
    """True when the ink of ``lines`` and the ``rule`` stays within the ``safe`` box's height."""
    boxes = [line.box for line in lines] + ([rule] if rule else [])
    return min(b[1] for b in boxes) >= safe[1] and max(b[3] for b in boxes) <= safe[3]


def reads_on_a_phone(card: CardSpec) -> bool:
    """True when every line of ``card`` is set at least at the size a phone reads
    (:func:`media.design.reading.type_min_px`) inside its safe area, in both aspects: what
    the wording checks before it puts the customer's words on a card."""
    for aspect in ASPECTS:
        with fonts.LOCK:
            lay = layout_card(card, aspect.width, aspect.height)
        if lay.lines and not (_inside(list(lay.lines), lay.rule, lay.safe) and all(
                line.box[0] >= lay.safe[0] and line.box[2] <= lay.safe[2]
                for line in lay.lines)):
            return False
    return True


def logo_reserve(width: int, height: int, logo: np.ndarray | None) -> tuple[int, int, int]:
    """(logo width, logo height, pixels kept free above the text) on a card; zeros without."""
    if logo is None:
        return 0, 0, 0
    lw, lh = card_logo_size(width, height, logo.shape[1], logo.shape[0])
    return lw, lh, lh + round(LOGO_GAP * min(width, height))


def text_layout(card: CardSpec, width: int, height: int,
                logo: np.ndarray | None = None) -> list[TextBox]:
    """Ink boxes of every drawn line (and the accent rule, role ``rule``) in frame pixels, on
    a card drawn with ``logo`` (which moves the text down to make room) or without."""
    reserve = logo_reserve(width, height, logo)[2]
    with fonts.LOCK:
        lay = layout_card(card, width, height, reserve)
    boxes = [TextBox(line.role.name, line.text, *line.box, line.size) for line in lay.lines]
    if lay.rule is not None:
        boxes.append(TextBox("rule", "", *lay.rule, 0))
    return boxes


def line_pieces(lay: CardLayout, line: LaidLine) -> ShapedLine:
    """The shaped pieces of one laid line (pen offsets from ``line.x``)."""
    return shape_line(line.text, line.size, line.role.weight, lay.face,
                      line.role.tracking * line.size, line.level)


def draw_text(image: Image.Image, lay: CardLayout, origin: tuple[int, int],
              colours: dict[str, tuple[int, ...]] | None,
              only: Callable[[int, int], bool] | None = None) -> None:
    """Draw ``lay``'s lines onto ``image`` (RGBA, or L for a mask), which starts at ``origin``
    (frame pixels), in ``colours`` by palette attribute (None: full coverage, 255, for a mask).
    ``only(line index, word index)`` picks which words to draw (default: all). Emoji keep their
    own colours. Hold :data:`media.cards.fonts.LOCK`."""
    draw = ImageDraw.Draw(image)
    ox, oy = origin
    for index, line in enumerate(lay.lines):
        fill = colours[line.role.colour] if colours else 255
        for piece in line_pieces(lay, line).items:
            if only is not None and not only(index, piece.word):
                continue
            x, y = line.x + piece.x - ox, line.baseline - oy
            if fonts.is_colour(piece.font):
                draw_emoji(image, piece, x, y)
            else:
                draw.text((x, y), piece.text, font=piece.font, anchor="ls", fill=fill,
                          direction=piece.direction)


def text_mask(card: CardSpec, width: int, height: int) -> np.ndarray:
    """Glyph coverage of the card's text (float32, 0-1, shape (height, width)); no rule, no
    shadow. Lets a test find exactly which pixels are text."""
    image = Image.new("L", (width, height), 0)
    with fonts.LOCK:
        lay = layout_card(card, width, height)
        draw_text(image, lay, (0, 0), None)
    return np.asarray(image, dtype=np.float32) / 255.0
