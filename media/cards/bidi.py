"""Right-to-left text in a line: invisible controls neutralised, then each character's
embedding level and the visual order of runs (the Unicode Bidirectional Algorithm, UAX #9,
for one paragraph without explicit embeddings).

Customers' text never carries explicit embeddings here: :func:`neutralise` removes every bidi
control first (an override U+202E in a name would otherwise reverse the whole card), so the
algorithm needs only its implicit rules: W1-W7, N1-N2, I1-I2 and L2. Shaping inside a run
(Arabic joining, the order of glyphs within a right-to-left run) is left to Pillow's RAQM
layout, called once per run with the run's direction.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Arabic letter mark, LRM/RLM, embeddings/overrides/pop, isolates: never drawn, never obeyed."""
_KEPT_FORMAT = frozenset("\u200c\u200d")  # ZWNJ and ZWJ shape Indic, Persian and emoji
_STRONG_R = frozenset(("R", "AL"))
_NEUTRAL = frozenset(("B", "S", "WS", "ON", "BN"))


def neutralise(text: str) -> str:
    """``text`` without bidi controls or other invisible format characters (soft hyphen,
    zero-width space, word joiner...); ZWJ and ZWNJ stay, they change how letters join."""
    return "".join(ch for ch in text if ch not in BIDI_CONTROLS and (
        ch in _KEPT_FORMAT or unicodedata.category(ch) != "Cf"))


def base_level(text: str) -> int:
    """The paragraph's level (P2-P3): 1 (right-to-left) when its first strong character is
    Hebrew, Arabic or another right-to-left letter, else 0."""
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind == "L":
            return 0
        if kind in _STRONG_R:
            return 1
    return 0


def levels(text: str, base: int | None = None) -> list[int]:
    """The resolved embedding level of every character of ``text`` (even: left to right, odd:
    right to left) in a paragraph of level ``base`` (default: :func:`base_level`)."""
    para = base_level(text) if base is None else base
    sos = "R" if para % 2 else "L"
    types = [unicodedata.bidirectional(ch) or "L" for ch in text]
    _weak_types(types, sos)
    _neutral_types(types, sos, "R" if para % 2 else "L")
    out = []
    for kind in types:
        if para % 2 == 0:
            out.append(para + (1 if kind == "R" else 2 if kind in ("AN", "EN") else 0))
        else:
            out.append(para + (1 if kind in ("L", "EN", "AN") else 0))
    return out


def _weak_types(types: list[str], sos: str) -> None:
    """W1-W7 in place (no isolates or embeddings: the whole line is one run sequence)."""
    prev = sos
    for i, kind in enumerate(types):  # W1: marks take the type of what they follow
        if kind == "NSM":
            types[i] = prev if prev not in ("LRI", "RLI", "FSI", "PDI") else "ON"
        prev = types[i]
    strong = sos
    for i, kind in enumerate(types):  # W2: European digits after Arabic letters are Arabic
        if kind in ("L", "R", "AL"):
            strong = kind
        elif kind == "EN" and strong == "AL":
            types[i] = "AN"
    for i, kind in enumerate(types):  # W3
        if kind == "AL":
            types[i] = "R"
    for i in range(1, len(types) - 1):  # W4: one separator between two numbers of a kind
        before, kind, after = types[i - 1], types[i], types[i + 1]
        if kind == "ES" and before == after == "EN":
            types[i] = "EN"
        elif kind == "CS" and before == after and before in ("EN", "AN"):
            types[i] = before
    for i, kind in enumerate(types):  # W5: terminators next to European digits
        if kind != "ET":
            continue
        j = i
        while j < len(types) and types[j] == "ET":
            j += 1
        if (i > 0 and types[i - 1] == "EN") or (j < len(types) and types[j] == "EN"):
            for k in range(i, j):
                types[k] = "EN"
    for i, kind in enumerate(types):  # W6
        if kind in ("ES", "ET", "CS"):
            types[i] = "ON"
    strong = sos
    for i, kind in enumerate(types):  # W7: European digits in left-to-right context are L
        if kind in ("L", "R"):
            strong = kind
        elif kind == "EN" and strong == "L":
            types[i] = "L"


def _neutral_types(types: list[str], sos: str, embedding: str) -> None:
    """N1-N2 in place: a run of neutrals between two strong types of one direction takes it
    (numbers count as right to left); otherwise the paragraph's direction."""
    def direction(kind: str) -> str:
        return "L" if kind == "L" else "R"

    i = 0
    while i < len(types):
        if types[i] not in _NEUTRAL:
            i += 1
            continue
        j = i
        while j < len(types) and types[j] in _NEUTRAL:
            j += 1
        before = direction(types[i - 1]) if i > 0 else sos
        after = direction(types[j]) if j < len(types) else sos
        resolved = before if before == after else embedding
        for k in range(i, j):
            types[k] = resolved
        i = j


def visual_order(run_levels: Sequence[int]) -> list[int]:
    """Indices of runs (given in logical order with their levels) in left-to-right display
    order (L2: from the highest level down, reverse every sequence at that level or above)."""
    order = list(range(len(run_levels)))
    if not run_levels:
        return order
    lowest_odd = min(run_levels) | 1
    for level in range(max(run_levels), lowest_odd - 1, -1):
        i = 0
        while i < len(order):
            if run_levels[order[i]] < level:
                i += 1
                continue
            j = i
            while j < len(order) and run_levels[order[j]] >= level:
                j += 1
            order[i:j] = order[i:j][::-1]
            i = j
    return order
