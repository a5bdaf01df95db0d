"""What the cards and the gift page say, from the order's own words: rules as data per occasion
family (celebration, romance, memorial, pet tribute).

The closing says what a person would write: the occasion's greeting with the recipient's name
("Happy Birthday, Marta", "Forever in our hearts, Honey"), the customer's story line or memory
exactly as they wrote it (never cut or rewritten: their pronouns stay theirs; left out when the
film is too short to read it), and who it is from when the relationship says so ("From your
hiking club"). A relationship that describes the recipient ("Our parents") is not a signature.
The gift page says the same: the kicker above the name, never a catalogue label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from media.design.reading import message_hold_s


@dataclass(frozen=True)
class FamilyWording:
    """One occasion family's words. ``kicker``: what is said to the recipient, before their
    name, on the closing card ("{kicker}, {name}") and above the name on the gift page;
    ``{greeting}`` there is the catalog's short name of the occasion ("Happy Birthday")."""

    kicker: str


FAMILIES: dict[str, FamilyWording] = {
    "celebration": FamilyWording(kicker="{greeting}"),
    "romance": FamilyWording(kicker="{greeting}"),
    "memorial": FamilyWording(kicker="Forever in our hearts"),
    "pet_tribute": FamilyWording(kicker="Forever in our hearts"),
}
FAMILY_BY_SLUG = {
    "birthday": "celebration", "graduation": "celebration", "retirement": "celebration",
    "new-baby": "celebration", "mothers-day": "celebration", "fathers-day": "celebration",
    "anniversary": "romance", "wedding": "romance", "valentines-day": "romance",
    "engagement": "romance", "memorial": "memorial", "pet-tribute": "pet_tribute",
}
ROMANTIC_TONES = frozenset({"romantic", "loving"})
SIGNATURE_PREFIXES = ("from ", "love from ", "with love from ")


@dataclass(frozen=True)
class OccasionWords:
    """The order's words the wording reads (plain strings: no contract models here)."""

    slug: str
    greeting: str  # the catalog's short name, e.g. "Happy Birthday"
    tone: str
    gentle: bool
    name: str
    relationship: str
    lines: Sequence[str] = ()  # the customer's story line and memory, in preference order


@dataclass(frozen=True)
class Closing:
    """The closing card's lines: the greeting with the name, the customer's line (or ""), and
    the signature (or "")."""

    greeting: str
    message: str
    signature: str

    @property
    def lines(self) -> tuple[str, str, str]:
        """As :attr:`media.cards.spec.CardSpec.lines` of a closing card."""
        return self.greeting, self.message, self.signature

    @property
    def hold_s(self) -> float:
        """Seconds the whole closing must stay fully visible to be read."""
        return message_hold_s(" ".join(line for line in self.lines if line))


def family_of(words: OccasionWords) -> str:
    """The occasion's family: by its slug, else memorial when gentle, romance by tone, else
    celebration."""
    if words.slug in FAMILY_BY_SLUG:
        return FAMILY_BY_SLUG[words.slug]
    if words.gentle:
        return "memorial"
    return "romance" if words.tone.strip().lower() in ROMANTIC_TONES else "celebration"


def kicker(words: OccasionWords) -> str:
    """What is said to the recipient before their name ("Happy Birthday", "Forever in our
    hearts"): the gift page's line above the name, never a catalogue label."""
    return FAMILIES[family_of(words)].kicker.format(greeting=" ".join(words.greeting.split()))


def signature(relationship: str) -> str:
    """The relationship as a signature when it reads as one ("From your hiking club"), else
    ""."""
    text = " ".join(relationship.split())
    return text if text.lower().startswith(SIGNATURE_PREFIXES) else ""


def closing(words: OccasionWords, hold_budget_s: float) -> Closing:
    """The closing: greeting with the name, the first of the customer's lines that can be read
    within ``hold_budget_s`` seconds together with the rest (verbatim; none when none fits),
    and the signature."""
    greeting = f"{kicker(words)}, {' '.join(words.name.split())}"
    sign = signature(words.relationship)
    for line in (" ".join(text.split()) for text in words.lines):
        if line:
            candidate = Closing(greeting, line, sign)
            if candidate.hold_s <= hold_budget_s:
                return candidate
    return Closing(greeting, "", sign)



@dataclass(frozen=True)
class InterludeLine:
    """One interlude's words: ``text``, set as a quotation when ``quoted`` (the customer's own
    sentence), else plainly (a song line, the feeling words)."""

    text: str
    quoted: bool

    @property
    def lines(self) -> tuple[str, str]:
        """As :attr:`media.cards.spec.CardSpec.lines` of an interlude card: (a quotation, a
        plain line), one of them empty."""
        return (self.text, "") if self.quoted else ("", self.text)


CLAUSE_MIN_WORDS = 3  # a song line quoting fewer of the customer's words names nothing of theirs
FEELING_WORDS_MAX = 4  # an interlude of feeling words names at most this many
FEELING_WORD_MAX_WORDS = 3  # a feeling "word" longer than this is a sentence, not a feeling
FEELING_SEPARATOR = " \u00b7 "  # "grateful · warm · tender"


def interlude_lines(customer_lines: Sequence[str], shown: Sequence[str],
                    song_lines: Sequence[str], feeling_words: Sequence[str],
                    hold_max_s: float,
                    customer_clauses: Sequence[str] = ()) -> tuple[InterludeLine, ...]:
    """The lines a long film's interludes may carry, best first, each readable within
    ``hold_max_s`` and none already ``shown`` (the closing's message): the customer's own lines
    verbatim (whitespace collapsed, never cut); then the song's lines that quote one of the
    ``customer_clauses`` (the whole clauses of their lines, as the lyric writer splits them,
    :func:`media.song.lyrics.clauses`) not already on screen (the song names what the customer
    named: "Remember the July morning in Skagen", never a stock line); then the feeling words
    as one short line."""
    on_screen = [" ".join(text.split()) for text in shown if text.strip()]
    out: list[str] = []
    for line in (" ".join(text.split()) for text in customer_lines):
        if line and line not in on_screen and line not in out \
                and message_hold_s(line) <= hold_max_s:
            out.append(line)
    quotes = len(out)
    quoted = [c.lower() for c in customer_clauses if len(c.split()) >= CLAUSE_MIN_WORDS]
    for line in (" ".join(text.split()) for text in song_lines):
        clause = next((c for c in quoted if c in line.lower()), None)
        seen = [*on_screen, *out]
        if clause and not any(clause in text.lower() for text in seen) \
                and message_hold_s(line) <= hold_max_s:
            out.append(line)
    feelings = feeling_line(feeling_words)
    if feelings and feelings not in out and message_hold_s(feelings) <= hold_max_s:
        out.append(feelings)
    return tuple(InterludeLine(text, i < quotes) for i, text in enumerate(out))


def feeling_line(feeling_words: Sequence[str]) -> str:
    """The customer's feeling words as one line ("grateful · warm · tender"), as they typed
    them; "" without any."""
    words = [" ".join(w.split()) for w in feeling_words]
    kept = [w for w in words if w and len(w.split()) <= FEELING_WORD_MAX_WORDS]
    return FEELING_SEPARATOR.join(dict.fromkeys(kept[:FEELING_WORDS_MAX]))
