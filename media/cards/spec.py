"""What a title card says, as plain data: no Pillow, no OpenCV, so the film's planner
(:mod:`media.plan.planner`) and the API side can name a card without loading the drawing code
(:mod:`media.cards.draw`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

RGB = tuple[int, int, int]

KINDS = ("opening", "closing", "interlude")
BOLD = "bold"  # the Noto fallback chain's weights (media.cards.fonts)
REGULAR = "regular"
_LEAD = "|"  # between a typeface key's lead font file and its fallback weight
STYLES = ("gift", "brand", "social")
PARTS = ("", "occasion", "name")  # a title sequence's lead shots: the whole title, or one line


@dataclass(frozen=True)
class CardSpec:
    """What a title card says and how it should feel.

    ``lines``: opening: (occasion short name, recipient name); closing: (greeting with the
    name, the customer's line, the signature; see :mod:`media.cards.wording`); interlude: (one
    of the customer's lines, set as a quotation, or "" and a line set plainly: a line of their
    song, their feeling words; :func:`media.cards.wording.interlude_lines`).
    Missing or blank lines are left out. ``accent_hex``:
    ``#RRGGBB`` (or ``#RGB``) brand colour, or None for the house palette. ``gentle``: memorial
    or pet tribute (quieter palette, softer type). ``style``: ``gift``, ``brand`` or ``social``
    (bolder, bigger type inside the social safe area). ``lang``: optional BCP-47 hint that picks
    regional CJK glyph forms (``ja``, ``ko``, ``zh-Hans``, ``zh-Hant``, ``zh-HK``). ``look``:
    the name of the look it is drawn in (:mod:`media.cards.design`); "" picks it by ``gentle``.
    ``part``: an opening card that is one lead shot of the signature title sequence
    (:class:`media.cards.design.TitleSequence`): ``occasion`` or ``name`` alone, set larger;
    "" for a whole card.
    """

    kind: str
    lines: tuple[str, ...]
    accent_hex: str | None = None
    gentle: bool = False
    style: str = "gift"
    lang: str | None = None
    look: str = ""
    part: str = ""

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
        if self.part not in PARTS or (self.part and self.kind != "opening"):
            raise ValueError(f"card part must be one of {PARTS} (an opening's), "
                             f"not {self.part!r}")


@dataclass(frozen=True)
class TextBox:
    """Where one drawn line's ink sits, in frame pixels (right and bottom exclusive).

    ``role`` is ``heading``, ``title``, ``sub``, ``sign``, ``words`` (an interlude's plain line) or
    ``rule`` (the accent rule, ``text`` empty).
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
