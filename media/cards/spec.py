"""What a title card says, as plain data: no Pillow, no OpenCV, so the film's planner
(:mod:`media.plan.planner`) and the API side can name a card without loading the drawing code
(:mod:`media.cards.draw`)."""

from __future__ import annotations

from dataclasses import dataclass

from media.design import looks
from media.design.values import STYLES, parse_hex

KINDS = ("opening", "closing", "interlude")
PARTS = ("", "occasion", "name")  # a title sequence's lead shots: the whole title, or one line


@dataclass(frozen=True)
class CardSpec:
    """What a title card says and how it should feel.

    ``lines``: opening: (occasion short name, recipient name); closing: (greeting with the
    name, the customer's line, the signature; see :mod:`media.cards.wording`); interlude: (one
    of the customer's texts or sentences as they wrote it, set as a quotation, or "" and a line
    set plainly: their feeling words; :func:`media.cards.wording.interlude_lines`).
    Missing or blank lines are left out. ``accent_hex``:
    ``#RRGGBB`` (or ``#RGB``) brand colour, or None for the house palette. ``gentle``: memorial
    or pet tribute (quieter palette, softer type). ``style``: ``gift``, ``brand`` or ``social``
    (bolder, bigger type inside the social safe area). ``lang``: optional BCP-47 hint that picks
    regional CJK glyph forms (``ja``, ``ko``, ``zh-Hans``, ``zh-Hant``, ``zh-HK``). ``look``:
    the name of the look it is drawn in (:mod:`media.design.looks`); "" picks it by ``gentle``.
    ``part``: an opening card that is one lead shot of the signature title sequence
    (:class:`media.design.looks.TitleSequence`): ``occasion`` or ``name`` alone, set larger;
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


def card_look(card: CardSpec) -> looks.Look:
    """The look ``card`` is drawn in: the one it names, else by its ``gentle`` flag, in its
    style."""
    return looks.look(card.look or (looks.GENTLE_LOOK if card.gentle else looks.DEFAULT_LOOK),
                      card.style)
