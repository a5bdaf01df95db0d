"""The plain values a look is written in: colours (``#RRGGBB`` to an RGB tuple), the styles a
look has a variant for, and typeface keys (a look's font file leading the Noto fallback chain
of a weight, :func:`media.cards.fonts.chain`)."""

from __future__ import annotations

from pathlib import Path

RGB = tuple[int, int, int]

STYLES = ("gift", "brand", "social")
BOLD = "bold"  # the Noto fallback chain's weights (media.cards.fonts)
REGULAR = "regular"
_LEAD = "|"  # between a typeface key's lead font file and its fallback weight


def parse_hex(value: str) -> RGB:
    """``#RRGGBB`` or ``#RGB`` (the ``#`` optional) to an RGB tuple; ValueError otherwise."""
    digits = value.strip().removeprefix("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    if len(digits) != 6 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError(f"not a hex colour: {value!r}")
    return (int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16))


def typeface(path: Path, weight: str) -> str:
    """A typeface key: the font file at ``path`` first, then the Noto chain of ``weight``
    (:data:`BOLD` or :data:`REGULAR`) for whatever it does not draw. The text engine takes
    such a key wherever it takes a weight (:func:`media.cards.fonts.chain`)."""
    if weight not in (BOLD, REGULAR):
        raise ValueError(f"weight must be {BOLD!r} or {REGULAR!r}, not {weight!r}")
    return f"{path}{_LEAD}{weight}"


def split_typeface(key: str) -> tuple[Path | None, str]:
    """(the lead font file or None, the Noto weight) of a weight or :func:`typeface` key."""
    if _LEAD not in key:
        return None, key
    path, _, weight = key.rpartition(_LEAD)
    return Path(path), weight
