"""Right-to-left text in a line: invisible controls neutralised, then each character's embedding
level and its place in display order from FriBiDi, the Unicode Bidirectional Algorithm (UAX #9)
that Pillow's RAQM layout runs inside each run it shapes.

Customers' text never carries explicit embeddings: :func:`neutralise` removes every bidi control
first (an override U+202E in a name would otherwise reverse the whole card). A line is drawn as
runs of one font and one direction (:mod:`media.cards.shaping`), each shaped by RAQM in its own
direction, so the levels that cut the runs and their display order are FriBiDi's own
(:func:`resolve`), the same library RAQM asks inside a run. FriBiDi is called through ctypes:
python-bidi's API returns only the reordered string, not the levels a line's runs are cut by.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import unicodedata
from dataclasses import dataclass

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Arabic letter mark, LRM/RLM, embeddings/overrides/pop, isolates: never drawn, never obeyed."""
_KEPT_FORMAT = frozenset("\u200c\u200d")  # ZWNJ and ZWJ shape Indic, Persian and emoji
_RIGHT_TO_LEFT = frozenset(("R", "AL", "AN"))  # bidi classes that can raise a level above 0
# FriBiDi's paragraph directions (fribidi-bidi-types.h): strong left to right, strong right to
# left, and "the first strong character decides" (P2-P3).
_PAR_LTR, _PAR_RTL, _PAR_ON = 0x110, 0x111, 0x40


def neutralise(text: str) -> str:
    """``text`` without bidi controls or other invisible format characters (soft hyphen,
    zero-width space, word joiner...); ZWJ and ZWNJ stay, they change how letters join."""
    return "".join(ch for ch in text if ch not in BIDI_CONTROLS and (
        ch in _KEPT_FORMAT or unicodedata.category(ch) != "Cf"))


@dataclass(frozen=True)
class Resolved:
    """A line as the bidi algorithm resolves it: the paragraph's ``base`` level (0 left to
    right, 1 right to left), every character's embedding ``levels`` (even: left to right, odd:
    right to left) and its place in display order (``visual``, 0 leftmost)."""

    base: int
    levels: tuple[int, ...]
    visual: tuple[int, ...]


def resolve(text: str, base: int | None = None) -> Resolved:
    """``text`` (one line, controls neutralised) resolved by FriBiDi in a paragraph of level
    ``base`` (None: its first strong character decides, left to right without one).

    A line with nothing right to left in a left-to-right paragraph (no Hebrew, Arabic or
    Arabic digits: every sample film's) is level 0 and in logical order throughout, as UAX #9
    resolves it, without asking FriBiDi: kept because such films then need no system FriBiDi
    (the Docker image has none) and it costs 19 us a line against FriBiDi's 62 us."""
    if base != 1 and not any(unicodedata.bidirectional(ch) in _RIGHT_TO_LEFT for ch in text):
        return Resolved(0, (0,) * len(text), tuple(range(len(text))))
    return _fribidi_resolve(text, base)


def base_level(text: str) -> int:
    """The paragraph's level (P2-P3): 1 (right to left) when its first strong character is
    Hebrew, Arabic or another right-to-left letter, else 0."""
    return resolve(text).base


def levels(text: str, base: int | None = None) -> list[int]:
    """The resolved embedding level of every character of ``text`` (even: left to right, odd:
    right to left) in a paragraph of level ``base`` (default: :func:`base_level`)."""
    return list(resolve(text, base).levels)


@functools.cache
def _fribidi() -> ctypes.CDLL:
    """The system's FriBiDi (Debian's ``libfribidi0``), the one Pillow's RAQM layout loads."""
    name = ctypes.util.find_library("fribidi") or "libfribidi.so.0"
    try:
        library = ctypes.CDLL(name)
    except OSError as exc:
        raise RuntimeError("right-to-left text needs FriBiDi (Debian's libfribidi0), which "
                           "Pillow's RAQM layout shapes it with") from exc
    index_array = ctypes.POINTER(ctypes.c_int)
    library.fribidi_log2vis.argtypes = (
        ctypes.POINTER(ctypes.c_uint32), ctypes.c_int, ctypes.POINTER(ctypes.c_uint32),
        ctypes.POINTER(ctypes.c_uint32), index_array, index_array,
        ctypes.POINTER(ctypes.c_int8))
    library.fribidi_log2vis.restype = ctypes.c_int8
    return library


def _fribidi_resolve(text: str, base: int | None) -> Resolved:
    """FriBiDi's ``fribidi_log2vis``: the levels and the logical-to-visual map of ``text``."""
    count = len(text)
    chars = (ctypes.c_uint32 * max(1, count))(*map(ord, text))
    direction = ctypes.c_uint32(_PAR_ON if base is None else _PAR_RTL if base % 2 else _PAR_LTR)
    to_visual = (ctypes.c_int * max(1, count))()
    embedding = (ctypes.c_int8 * max(1, count))()
    if count and not _fribidi().fribidi_log2vis(chars, count, ctypes.byref(direction), None,
                                                to_visual, None, embedding):
        raise RuntimeError(f"FriBiDi could not resolve {text!r}")
    return Resolved(1 if direction.value == _PAR_RTL else 0, tuple(embedding[:count]),
                    tuple(to_visual[:count]))
