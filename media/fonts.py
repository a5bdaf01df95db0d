"""The bundled fonts and the per-character fallback chain that draws customers' text.

Two OFL families (see ``assets/fonts/README.md`` for sources and licence):

* Noto Sans Bold / Regular: Latin (all of Extended-A/B, Vietnamese), Greek with tonos, Cyrillic.
* Noto Sans CJK Bold (one collection): kana, Hangul, the CJK ideographs, full-width forms. Its
  faces (JP, KR, SC, TC, HK) differ only in the regional forms of some ideographs;
  :func:`face_for` picks one from a language hint or from the text itself.

Text is split into runs (:func:`font_runs`): each character goes to the first font of the chain
that maps it to a real glyph; spaces, digits and punctuation stay with their neighbours' font.
Coverage is read from each font's own ``cmap`` table (a small parser here, no fontTools), so a
caller can tell before rendering whether a customer's text would show as blank boxes ("tofu").
"""

from __future__ import annotations

import bisect
import functools
import struct
import threading
import unicodedata
from pathlib import Path
from typing import BinaryIO

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parent / "assets" / "fonts"
LATIN_BOLD_PATH = FONT_DIR / "NotoSans-Bold.ttf"
LATIN_REGULAR_PATH = FONT_DIR / "NotoSans-Regular.ttf"
CJK_PATH = FONT_DIR / "NotoSansCJK-Bold.ttc"

# FreeType faces are not safe to use from two threads at once and the fonts here are cached
# and shared: hold this lock while measuring or drawing with them (an activity may render
# cards on several worker threads).
LOCK = threading.RLock()

BOLD = "bold"
REGULAR = "regular"

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


def chain(weight: str = BOLD, face: int = FACE_JA) -> tuple[tuple[Path, int], ...]:
    """The fallback chain, as (font file, face index) pairs, first choice first."""
    latin = LATIN_REGULAR_PATH if weight == REGULAR else LATIN_BOLD_PATH
    return ((latin, 0), (CJK_PATH, face))


@functools.lru_cache(maxsize=128)
def load_font(path: Path, size: int, index: int = 0) -> ImageFont.FreeTypeFont:
    """One font file at ``size`` pixels (cached; FreeType reads the file lazily)."""
    return ImageFont.truetype(str(path), max(1, int(size)), index=index)


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


@functools.lru_cache(maxsize=8)
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


def has_glyph(ch: str, weight: str = BOLD, face: int = FACE_JA) -> bool:
    """True if some font of the chain draws ``ch`` with a real glyph (not .notdef)."""
    return any(font_has_glyph(ch, path, index) for path, index in chain(weight, face))


def missing_glyphs(text: str, face: int = FACE_JA) -> list[str]:
    """Characters of ``text`` (after NFC) no bundled font can draw, in order, without repeats.

    Whitespace is never reported. Use it to warn a customer before their film renders.
    """
    seen: dict[str, None] = {}
    for ch in unicodedata.normalize("NFC", text):
        if not ch.isspace() and not has_glyph(ch, BOLD, face):
            seen.setdefault(ch, None)
    return list(seen)


def drawable(text: str, face: int = FACE_JA) -> str:
    """``text`` in NFC with every character no bundled font can draw removed, every run of
    whitespace (including newlines and tabs) folded to one space, stripped at both ends."""
    kept = []
    for ch in unicodedata.normalize("NFC", text):
        if ch.isspace():
            kept.append(" ")
        elif has_glyph(ch, BOLD, face):
            kept.append(ch)
    return " ".join("".join(kept).split())


def _is_neutral(ch: str) -> bool:
    """Spaces, digits, punctuation and symbols: drawn in whatever font their neighbours use."""
    return ch.isspace() or unicodedata.category(ch)[0] in "PNSZ"


def font_runs(text: str, size: int, weight: str = BOLD,
              face: int = FACE_JA) -> list[tuple[str, ImageFont.FreeTypeFont]]:
    """Split ``text`` into (run, font) pairs along the fallback chain, at ``size`` pixels.

    Characters no font covers go to the first font (they show as its .notdef box); pass text
    through :func:`drawable` first to drop them. Combining marks stay with their base.
    """
    fonts = chain(weight, face)

    def first(ch: str) -> int:
        for i, (path, index) in enumerate(fonts):
            if font_has_glyph(ch, path, index):
                return i
        return 0

    choice: list[int | None] = []
    for ch in text:
        if unicodedata.combining(ch) and choice:
            choice.append(-1)  # follows its base
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
            pick = next((c for c in (before, after) if c is not None
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
