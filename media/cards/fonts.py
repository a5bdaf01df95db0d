"""The bundled fonts and the per-character fallback chain that draws customers' text.

OFL Noto families (see ``assets/fonts/README.md`` for sources and licence), first choice first:

* Noto Sans Bold / Regular: Latin (all of Extended-A/B, Vietnamese), Greek, Cyrillic, Devanagari.
* Noto Sans Arabic, Hebrew, Thai, Armenian, Georgian and the scripts of India (Bengali, Tamil,
  Telugu, Gujarati, Gurmukhi, Kannada, Malayalam), Bold and Regular; Ethiopic, Khmer, Lao,
  Sinhala, Myanmar in Bold only (their regular lines are drawn bold).
* Noto Sans CJK Bold (one collection): kana, Hangul, the CJK ideographs, full-width forms. Its
  faces (JP, KR, SC, TC, HK) differ only in the regional forms of some ideographs;
  :func:`face_for` picks one from a language hint or from the text itself.
* Noto Color Emoji (colour bitmaps, drawn at :data:`EMOJI_PX` and scaled), with ``colour``.

Text is split into runs (:func:`font_runs`): each character goes to the first font of the chain
that maps it to a real glyph; spaces, digits and punctuation stay with their neighbours' font;
marks, joiners, variation selectors and emoji modifiers stay with the character they follow;
a character asked for in emoji presentation (U+FE0F) or a pictograph from U+1F000 on goes to
the emoji font. Coverage is read from each font's own ``cmap`` table (a small parser here, no
fontTools: every bundled face read in 0.06 CPU s here against fontTools' 0.19 s and 34 MB
more), so a caller can tell before rendering whether a customer's text would show as blank
boxes ("tofu"). Shaping and right-to-left order are :mod:`media.cards.text`'s (RAQM).
"""

from __future__ import annotations

import bisect
import functools
import struct
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from PIL import ImageFont

from media.cards.bidi import neutralise
from media.design.values import BOLD, REGULAR, split_typeface

FONT_DIR = Path(__file__).resolve().parent / "assets" / "fonts"
LATIN_BOLD_PATH = FONT_DIR / "NotoSans-Bold.ttf"
LATIN_REGULAR_PATH = FONT_DIR / "NotoSans-Regular.ttf"
CJK_PATH = FONT_DIR / "NotoSansCJK-Bold.ttc"
EMOJI_PATH = FONT_DIR / "NotoColorEmoji.ttf"
EMOJI_PX = 109  # the one size of Noto Color Emoji's bitmaps: drawn at it, then scaled
_BOTH_WEIGHTS = ("Arabic", "Hebrew", "Thai", "Armenian", "Georgian", "Bengali", "Tamil",
                 "Telugu", "Gujarati", "Gurmukhi", "Kannada", "Malayalam")
_BOLD_ONLY = ("Ethiopic", "Khmer", "Lao", "Sinhala", "Myanmar")

# FreeType faces are not safe to use from two threads at once and the fonts here are cached
# and shared: hold this lock while measuring or drawing with them (an activity may render
# cards on several worker threads).
LOCK = threading.RLock()


FACE_JA = 0
FACE_KO = 1
FACE_ZH_HANS = 2
FACE_ZH_HANT = 3
FACE_ZH_HK = 4
_LANG_FACES: dict[str, int] = {
    "ja": FACE_JA,
    "ko": FACE_KO,
    "zh": FACE_ZH_HANS,
    "zh-hans": FACE_ZH_HANS,
    "zh-cn": FACE_ZH_HANS,
    "zh-sg": FACE_ZH_HANS,
    "zh-hant": FACE_ZH_HANT,
    "zh-tw": FACE_ZH_HANT,
    "zh-hk": FACE_ZH_HK,
    "zh-mo": FACE_ZH_HK,
}


def face_for(text: str, lang: str | None = None) -> int:
    """Index of the CJK collection face to draw ``text`` with.

    A BCP-47 ``lang`` hint wins (``ja``, ``ko``, ``zh-Hans``, ``zh-Hant``, ``zh-HK``...). Without
    one: kana means Japanese, Hangul means Korean, anything else (including ideographs alone,
    which are ambiguous) uses the Japanese face, the collection's default.
    """
    if lang:
        key = lang.strip().lower().replace("_", "-")
        while key:
            if key in _LANG_FACES:
                return _LANG_FACES[key]
            key = key.rpartition("-")[0]
    for ch in text:
        code = ord(ch)
        if 0x3040 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF or 0xFF66 <= code <= 0xFF9F:
            return FACE_JA
        if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF or 0x3130 <= code <= 0x318F:
            return FACE_KO
    return FACE_JA


@dataclass(frozen=True)
class ScriptFont:
    """One family of the chain: its bold file and, when bundled, its regular one."""

    bold: Path
    regular: Path | None

    def path(self, weight: str) -> Path:
        """The file of ``weight`` (bold when the family has no regular)."""
        return self.regular if weight == REGULAR and self.regular is not None else self.bold


SCRIPT_FONTS: tuple[ScriptFont, ...] = (
    *(ScriptFont(FONT_DIR / f"NotoSans{s}-Bold.ttf", FONT_DIR / f"NotoSans{s}-Regular.ttf")
      for s in _BOTH_WEIGHTS),
    *(ScriptFont(FONT_DIR / f"NotoSans{s}-Bold.ttf", None) for s in _BOLD_ONLY),
)
"""The per-script families between Noto Sans and Noto Sans CJK."""


def chain(weight: str = BOLD, face: int = FACE_JA,
          colour: bool = False) -> tuple[tuple[Path, int], ...]:
    """The fallback chain, as (font file, face index) pairs, first choice first; with
    ``colour`` the emoji font ends it. ``weight`` may be a typeface key
    (:func:`media.cards.spec.typeface`): its font leads the chain."""
    lead, weight = split_typeface(weight)  # a look's face first, when the key names one
    latin = LATIN_REGULAR_PATH if weight == REGULAR else LATIN_BOLD_PATH
    scripts = tuple((f.path(weight), 0) for f in SCRIPT_FONTS)
    return (*(((lead, 0),) if lead is not None else ()), (latin, 0), *scripts, (CJK_PATH, face),
            *(((EMOJI_PATH, 0),) if colour else ()))


def all_font_files() -> list[Path]:
    """Every bundled font file."""
    files = [LATIN_BOLD_PATH, LATIN_REGULAR_PATH, CJK_PATH, EMOJI_PATH]
    for family in SCRIPT_FONTS:
        files += [family.bold] + ([family.regular] if family.regular else [])
    return files


def is_colour(font: ImageFont.FreeTypeFont) -> bool:
    """True for the colour emoji font (drawn with ``embedded_color`` at :data:`EMOJI_PX`)."""
    return Path(str(font.path)) == EMOJI_PATH


@functools.lru_cache(maxsize=256)
def load_font(path: Path, size: int, index: int = 0) -> ImageFont.FreeTypeFont:
    """One font file at ``size`` pixels (cached; FreeType reads the file lazily); the emoji
    font always at :data:`EMOJI_PX`, its only size."""
    size = EMOJI_PX if path == EMOJI_PATH else max(1, int(size))
    return ImageFont.truetype(str(path), size, index=index)


# --- coverage from the cmap table ------------------------------------------------------------


def _read(handle: BinaryIO, offset: int, length: int) -> bytes:
    handle.seek(offset)
    data = handle.read(length)
    if len(data) != length:
        raise ValueError("truncated font file")
    return data


def _face_offset(handle: BinaryIO, face: int) -> int:
    head = _read(handle, 0, 12)
    if head[:4] != b"ttcf":
        if face != 0:
            raise ValueError("not a font collection")
        return 0
    (count,) = struct.unpack(">I", head[8:12])
    if not 0 <= face < count:
        raise ValueError(f"face {face} not in collection of {count}")
    (offset,) = struct.unpack(">I", _read(handle, 12 + 4 * face, 4))
    return offset


def _format4_ranges(sub: bytes) -> list[tuple[int, int]]:
    seg_count = struct.unpack(">H", sub[6:8])[0] // 2
    ends = struct.unpack(f">{seg_count}H", sub[14 : 14 + 2 * seg_count])
    base = 16 + 2 * seg_count
    starts = struct.unpack(f">{seg_count}H", sub[base : base + 2 * seg_count])
    deltas = struct.unpack(f">{seg_count}h", sub[base + 2 * seg_count : base + 4 * seg_count])
    ro_pos = base + 4 * seg_count
    range_offsets = struct.unpack(f">{seg_count}H", sub[ro_pos : ro_pos + 2 * seg_count])
    ranges: list[tuple[int, int]] = []
    for i in range(seg_count):
        start, end, delta = starts[i], ends[i], deltas[i]
        if start == 0xFFFF or start > end:
            continue
        if range_offsets[i] == 0:
            # Glyph = (code + delta) mod 65536: only the code that lands on 0 is .notdef.
            hole = (-delta) & 0xFFFF
            ranges.extend(r for r in ((start, min(end, hole - 1)), (max(start, hole + 1), end))
                          if r[0] <= r[1])
            continue
        for code in range(start, end + 1):
            pos = ro_pos + 2 * i + range_offsets[i] + 2 * (code - start)
            glyph = struct.unpack(">H", sub[pos : pos + 2])[0] if pos + 2 <= len(sub) else 0
            if glyph and (glyph + delta) & 0xFFFF:
                ranges.append((code, code))
    return ranges


def _format12_ranges(sub: bytes) -> list[tuple[int, int]]:
    (groups,) = struct.unpack(">I", sub[12:16])
    ranges = []
    for i in range(groups):
        start, end, glyph = struct.unpack(">III", sub[16 + 12 * i : 28 + 12 * i])
        if glyph == 0:
            start += 1  # the first code of the group maps to .notdef
        if start <= end:
            ranges.append((start, end))
    return ranges


@functools.lru_cache(maxsize=64)
def _coverage(path: str, face: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Sorted, merged (starts, ends) of the code points the face maps to a real glyph."""
    with open(path, "rb") as handle:
        base = _face_offset(handle, face)
        (num_tables,) = struct.unpack(">H", _read(handle, base + 4, 2))
        records = _read(handle, base + 12, 16 * num_tables)
        cmap_offset = cmap_length = None
        for i in range(num_tables):
            tag, _, offset, length = struct.unpack(">4sIII", records[16 * i : 16 * i + 16])
            if tag == b"cmap":
                cmap_offset, cmap_length = offset, length
        if cmap_offset is None or cmap_length is None:
            raise ValueError("font has no cmap table")
        cmap = _read(handle, cmap_offset, cmap_length)
    (count,) = struct.unpack(">H", cmap[2:4])
    best: tuple[int, int] | None = None  # (preference, subtable offset)
    preference = {(3, 10): 0, (0, 4): 1, (0, 6): 1, (0, 3): 2, (3, 1): 2}
    for i in range(count):
        platform, encoding, offset = struct.unpack(">HHI", cmap[4 + 8 * i : 12 + 8 * i])
        rank = preference.get((platform, encoding))
        if rank is not None and (best is None or rank < best[0]):
            best = (rank, offset)
    if best is None:
        raise ValueError("font has no Unicode cmap")
    sub = cmap[best[1] :]
    (fmt,) = struct.unpack(">H", sub[:2])
    if fmt == 12:
        ranges = _format12_ranges(sub)
    elif fmt == 4:
        ranges = _format4_ranges(sub)
    else:
        raise ValueError(f"unsupported cmap format {fmt}")
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple(r[0] for r in merged), tuple(r[1] for r in merged)


def font_has_glyph(ch: str, path: Path, index: int = 0) -> bool:
    """True if the font file (face ``index``) maps the character ``ch`` to a real glyph."""
    starts, ends = _coverage(str(path), index)
    code = ord(ch)
    i = bisect.bisect_right(starts, code) - 1
    return i >= 0 and code <= ends[i]


def has_glyph(ch: str, weight: str = BOLD, face: int = FACE_JA, colour: bool = False) -> bool:
    """True if some font of the chain draws ``ch`` with a real glyph (not .notdef)."""
    return any(font_has_glyph(ch, path, index) for path, index in chain(weight, face, colour))


def is_follower(ch: str) -> bool:
    """Marks, joiners, variation selectors, emoji modifiers and tags: drawn by the font of the
    character before them, never on their own."""
    code = ord(ch)
    return (unicodedata.category(ch)[0] == "M" or ch in "\u200c\u200d"
            or 0xFE00 <= code <= 0xFE0F or 0x1F3FB <= code <= 0x1F3FF
            or 0xE0020 <= code <= 0xE007F)


def _is_invisible(ch: str) -> bool:
    """Joiners, variation selectors and tags: they change the glyph before them, draw nothing
    themselves, and no font needs to map them."""
    code = ord(ch)
    return ch in "\u200c\u200d" or 0xFE00 <= code <= 0xFE0F or 0xE0020 <= code <= 0xE007F


def clean(text: str) -> str:
    """``text`` in NFC without bidi controls or invisible format characters (see
    :func:`media.cards.bidi.neutralise`), every run of whitespace folded to one space, stripped."""
    return " ".join(neutralise(unicodedata.normalize("NFC", text)).split())


def missing_glyphs(text: str, face: int = FACE_JA, colour: bool = True) -> list[str]:
    """Characters of ``text`` (after :func:`clean`) no bundled font can draw, in order, without
    repeats (with ``colour``, the emoji font counts). Whitespace, joiners and variation
    selectors are never reported. Use it to warn a customer before their film renders."""
    seen: dict[str, None] = {}
    for ch in clean(text):
        if ch.isspace() or _is_invisible(ch):
            continue
        if not has_glyph(ch, BOLD, face, colour):
            seen.setdefault(ch, None)
    return list(seen)


def drawable(text: str, face: int = FACE_JA, colour: bool = False) -> str:
    """``text`` after :func:`clean` with every character no bundled font can draw removed (and
    the joiners and selectors that followed it); with ``colour`` the emoji font counts."""
    kept: list[str] = []
    dropped = False
    for ch in clean(text):
        if ch.isspace():
            kept.append(" ")
            dropped = False
        elif _is_invisible(ch):
            if kept and not dropped:
                kept.append(ch)
        elif has_glyph(ch, BOLD, face, colour):
            kept.append(ch)
            dropped = False
        else:
            dropped = True
    return " ".join("".join(kept).split())


def _is_neutral(ch: str) -> bool:
    """Spaces, digits, punctuation and symbols: drawn in whatever font their neighbours use."""
    return ch.isspace() or unicodedata.category(ch)[0] in "PNSZ"


def _wants_emoji(text: str, pos: int) -> bool:
    """True when the character at ``pos`` asks for the emoji font: a pictograph from U+1F000
    on, or anything followed by U+FE0F (emoji presentation) or U+20E3 (keycap)."""
    nxt = text[pos + 1] if pos + 1 < len(text) else ""
    return ord(text[pos]) >= 0x1F000 or nxt in ("\ufe0f", "\u20e3")


def font_runs(text: str, size: int, weight: str = BOLD, face: int = FACE_JA,
              colour: bool = False) -> list[tuple[str, ImageFont.FreeTypeFont]]:
    """Split ``text`` into (run, font) pairs along the fallback chain, at ``size`` pixels (the
    emoji font, with ``colour``, at :data:`EMOJI_PX`: scale it by ``size / EMOJI_PX``).

    Characters no font covers go to the first font (they show as its .notdef box); pass text
    through :func:`drawable` first to drop them. Marks and joiners stay with their base.
    """
    fonts = chain(weight, face, colour)
    emoji = len(fonts) - 1 if colour else None

    def first(ch: str) -> int:
        for i, (path, index) in enumerate(fonts):
            if font_has_glyph(ch, path, index):
                return i
        return 0

    choice: list[int | None] = []
    for pos, ch in enumerate(text):
        if is_follower(ch) and choice:
            choice.append(-1)  # follows its base
        elif emoji is not None and _wants_emoji(text, pos) and font_has_glyph(ch, EMOJI_PATH):
            choice.append(emoji)
        elif _is_neutral(ch):
            choice.append(None)
        else:
            choice.append(first(ch))
    resolved: list[int] = []
    for pos, ch in enumerate(text):
        pick = choice[pos]
        if pick == -1:
            resolved.append(resolved[-1])
            continue
        if pick is None:
            before = resolved[-1] if resolved else None
            after = next((c for c in choice[pos + 1 :] if c is not None and c >= 0), None)
            pick = next((c for c in (before, after) if c is not None and c != emoji
                         and font_has_glyph(ch, *fonts[c])), first(ch))
        resolved.append(pick)
    runs: list[tuple[str, ImageFont.FreeTypeFont]] = []
    start = 0
    for pos in range(1, len(text) + 1):
        if pos == len(text) or resolved[pos] != resolved[start]:
            path, index = fonts[resolved[start]]
            runs.append((text[start:pos], load_font(path, size, index)))
            start = pos
    return runs


_TRACKABLE = ((0x0000, 0x058F), (0x10A0, 0x10FF), (0x1C90, 0x1CBF), (0x1E00, 0x1FFF),
              (0x2000, 0x2BFF), (0x2E80, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF),
              (0xFF00, 0xFFEF))


def trackable(run: str) -> bool:
    """True when letters of ``run`` may be spaced apart one by one (Latin, Greek, Cyrillic,
    Armenian, Georgian, CJK, Hangul): not for scripts whose letters join or stack."""
    return all(any(a <= ord(ch) <= b for a, b in _TRACKABLE) for ch in run)
