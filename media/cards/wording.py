"""What the cards and the gift page say, from the order's own words: rules as data per occasion
family (celebration, romance, memorial, pet tribute).

The closing says what a person would write: the occasion's greeting with the recipient's name
("Happy Birthday, Marta", "Forever in our hearts, Honey"), the customer's story line or memory
exactly as they wrote it, and who it is from when the relationship says so ("From your hiking
club"). A relationship that describes the recipient ("Our parents") is not a signature. The gift
page says the same: the kicker above the name, never a catalogue label.

The customer's words are shown as they wrote them, never rewritten (their pronouns stay
theirs, no "Remember when..." before them) and never cut inside a sentence: a card shows a text
whole, else one of its sentences whole (:func:`passages`; a sentence too long for any card, its
first whole clauses). A film of :data:`BOTH_WORDS_FROM_S` or more shows the memory and the story
line, a shorter one at least one of them (:func:`interlude_lines` says how many of its
interludes the film must show).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
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
BOTH_WORDS_FROM_S = 45.0  # a film this long shows the memory and the story line; shorter, one
_SENTENCE_END = re.compile(r"(?<=[.!?؟])(?![.!?؟])\s+|(?<=[。！？])\s*")
_CLAUSE_END = re.compile(r"(?<=[,;:，、；：—])\s+")
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


def sentences(text: str) -> tuple[str, ...]:
    """The sentences of a customer's ``text`` as they wrote them (whitespace collapsed): split
    after a sentence's end (``.``, ``!``, ``?``, ``。``, ...) and at line breaks."""
    out = []
    for paragraph in text.splitlines():
        flat = " ".join(paragraph.split())
        out.extend(p.strip() for p in _SENTENCE_END.split(flat) if p.strip())
    return tuple(out)


def passages(text: str) -> tuple[str, ...]:
    """What of a customer's ``text`` a card may show, best first, each verbatim (whitespace
    collapsed): the whole text, then each of its sentences in order when it has several."""
    whole = " ".join(text.split())
    if not whole:
        return ()
    parts = sentences(text)
    return (whole, *parts) if len(parts) > 1 else (whole,)


def lead_clauses(sentence: str) -> tuple[str, ...]:
    """The beginnings of ``sentence`` that end on a clause's end (after a comma, semicolon,
    colon or dash), longest first: what a card shows of a sentence too long for any card."""
    ends = [m.start() for m in _CLAUSE_END.finditer(sentence)]
    return tuple(sentence[:end].rstrip() for end in reversed(ends))


Fits = Callable[[tuple[str, ...]], bool]
"""Whether a card with these lines reads on a phone (set large enough inside its safe area:
:func:`media.cards.text.reads_on_a_phone`)."""


def _fits_all(lines: tuple[str, ...]) -> bool:
    return True


def closing(words: OccasionWords, hold_budget_s: float, fits: Fits = _fits_all) -> Closing:
    """The closing: greeting with the name, the customer's words that can be read within
    ``hold_budget_s`` seconds together with the rest, and the signature. Their words are a
    whole text (the story line first), else the first sentence of one (none when nothing fits:
    an interlude carries them, :func:`interlude_lines`); ``fits`` says whether the card's lines
    can be set at a size a phone reads."""
    greeting = f"{kicker(words)}, {' '.join(words.name.split())}"
    sign = signature(words.relationship)
    texts = [text for text in words.lines if text.strip()]
    choices = [*(" ".join(text.split()) for text in texts),
               *(sentences(text)[0] for text in texts if len(sentences(text)) > 1)]
    for line in choices:
        candidate = Closing(greeting, line, sign)
        if candidate.hold_s <= hold_budget_s and fits(candidate.lines):
            return candidate
    return Closing(greeting, "", sign)



@dataclass(frozen=True)
class InterludeLine:
    """One interlude's words: ``text``, set as a quotation when ``quoted`` (the customer's own
    sentence), else plainly (their feeling words). ``required``: the film must show it (the
    memory or the story line the closing does not carry, see the module)."""

    text: str
    quoted: bool
    required: bool = False

    @property
    def lines(self) -> tuple[str, str]:
        """As :attr:`media.cards.spec.CardSpec.lines` of an interlude card: (a quotation, a
        plain line), one of them empty."""
        return (self.text, "") if self.quoted else ("", self.text)


FEELING_WORDS_MAX = 4  # an interlude of feeling words names at most this many
FEELING_WORD_MAX_WORDS = 3  # a feeling "word" longer than this is a sentence, not a feeling
FEELING_SEPARATOR = " \u00b7 "  # "grateful · warm · tender"


def interlude_lines(customer_lines: Sequence[str], shown: str, feeling_words: Sequence[str],
                    hold_max_s: float, length_s: float,
                    fits: Fits = _fits_all) -> tuple[InterludeLine, ...]:
    """The lines a film's interludes may carry, best first, each readable within
    ``hold_max_s`` on a card that ``fits``, none already ``shown`` (the closing's message):
    each of the customer's texts (``customer_lines``: story line, memory) the closing does not
    carry, whole or its first sentence (or its first whole clauses), ``required`` when the
    film's ``length_s`` promises it (see the module); then their other sentences, in order;
    then the feeling words as one short line. Never a rewrite of theirs (a song's line that
    quotes them is sung, not shown)."""
    texts = [text for text in customer_lines if text.strip()]
    closed = [text for text in texts if shown and shown in " ".join(text.split())]
    out: list[InterludeLine] = []
    for text in texts:
        if text in closed:
            continue
        line = next((p for p in (*passages(text), *lead_clauses(sentences(text)[0]))
                     if _readable(p, hold_max_s, fits)), None)
        if line is not None:
            required = length_s >= BOTH_WORDS_FROM_S or not (closed or out)
            out.append(InterludeLine(line, True, required))
    on_screen = {shown, *(line.text for line in out)}
    for text in texts:
        covered = [p for p in on_screen if p and p in " ".join(text.split())]
        for sentence in sentences(text) if len(sentences(text)) > 1 else ():
            if not any(sentence in p for p in covered) and _readable(sentence, hold_max_s, fits):
                out.append(InterludeLine(sentence, True))
    feelings = feeling_line(feeling_words)
    if feelings and _readable(feelings, hold_max_s, fits):
        out.append(InterludeLine(feelings, False))
    return tuple(out)


def left_out_notes(texts: dict[str, str], lines: Sequence[str]) -> tuple[str, ...]:
    """What of the customer's ``texts`` (by name: "memory", "story line") none of the cards'
    ``lines`` carries, one note per text (counts only: their words stay out of the plan's
    notes); none when every sentence of every text is on a card."""
    out = []
    for name, text in texts.items():
        parts = sentences(text)
        missing = [p for p in parts if not any(p in line for line in lines if line)]
        if missing:
            out.append(f"their {name}: {len(missing)} of its {len(parts)} sentences on no card "
                       "(longer than the film's cards can hold for their reading time)")
    return tuple(out)


def _readable(text: str, hold_max_s: float, fits: Fits) -> bool:
    """``text`` on an interlude card reads within ``hold_max_s`` at a size a phone reads."""
    return message_hold_s(text) <= hold_max_s and fits((text, ""))


def feeling_line(feeling_words: Sequence[str]) -> str:
    """The customer's feeling words as one line ("grateful · warm · tender"), as they typed
    them; "" without any."""
    words = [" ".join(w.split()) for w in feeling_words]
    kept = [w for w in words if w and len(w.split()) <= FEELING_WORD_MAX_WORDS]
    return FEELING_SEPARATOR.join(dict.fromkeys(kept[:FEELING_WORDS_MAX]))
