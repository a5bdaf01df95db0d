"""A film's pacing: how long its shots, transitions and cards last, from its look (pure).

The look (:mod:`media.design.looks`) says the shot lengths and the transitions in each style;
the cards last what reading their words needs (:mod:`media.design.reading`,
:func:`card_lengths`), within the share of the film the cards may take
(:data:`CARD_SHARE_MAX`); the subject photo keeps to its share of the photo time
(:data:`SUBJECT_SHARE_MAX`). Seconds throughout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from media.cards.spec import CardSpec
from media.design import looks
from media.design.reading import (
    MESSAGE_MIN_HOLD_S,
    TEXT_EXIT_S,
    TITLE_HOLD_S,
    TITLE_IN_S,
    WORDS_IN_S,
    message_hold_s,
)
from media.plan.moves import TransitionStyle
from media.plan.transitions import CUT

READING_RULES_FROM_S = 30.0  # the shortest film sold (the contract's LENGTH_MIN_SEC)
CARD_SHARE_MAX = 0.5
"""The share of the film the two cards' words may take: reading wins. The title needs about 4 s
(its entrance, 2.5 s held, its exit); a closing with the greeting, the customer's line of 12-15
words as they wrote it and a signature of up to 7 words needs 6-9 s held (``1 + W / 3``) plus
its entrance and the fade: together about 15 s of a 30 s film (the pictures yield before the
customer's words do). The closing's wording keeps its words within what is left
(:func:`closing_budget_s`); a line too long for that goes to an interlude. Putting the cards'
boundaries on the beat may lengthen each by up to a beat more
(:func:`media.plan.beat_snap.card_bounds`)."""
CLOSING_HOLD_MAX_S = 9.0  # the longest the closing words need to hold, whatever the film
SHOT_MAX_S = 15.0
"""The house's longest photo shot: a slow move held this long still reads as meant (a long
take), longer reads as stuck. A film of few photos holds its shots up to this long rather than
show a photo more often than it can be framed anew (:func:`media.plan.slots.plan_middle`)."""


@dataclass(frozen=True)
class Pacing:
    """Pacing of a look in a style: shot lengths and transitions in seconds, and the look's
    transition set by section of the song."""

    shot_s: float
    min_shot_s: float
    clip_s: float
    transition: str
    transition_s: float
    fade_s: float
    hold_s: float
    """The longest a photo holds before any photo is shown a second time."""
    transitions: TransitionStyle = field(default_factory=TransitionStyle)

    @property
    def cuts_hard(self) -> bool:
        """True for a pacing that cuts hard everywhere (a look's social variant)."""
        return self.transition == CUT


def film_look(style: str, gentle: bool, look: str = "") -> looks.Look:
    """The look a film is made in (:mod:`media.design.looks`): the one named ``look``, else
    the memorial look when ``gentle``, else the celebration look, in ``style``."""
    return looks.look(look or (looks.GENTLE_LOOK if gentle else looks.DEFAULT_LOOK), style)


def pacing_of(look: looks.Look) -> Pacing:
    """The pacing of ``look`` (in its style: gift, brand, social): its shot lengths,
    transitions and transition set."""
    return Pacing(**look.pacing.model_dump(),
                  transitions=TransitionStyle(**look.transitions.model_dump()))


def closing_budget_s(length_sec: float, look: looks.Look) -> float:
    """The longest the closing's words may hold in a film of ``length_sec`` seconds made in
    ``look`` (seconds): what the wording of the closing must fit
    (:func:`media.cards.wording.closing`)."""
    return _closing_budget(length_sec, pacing_of(look))


def card_seconds(length_sec: float, closing: CardSpec,
                 look: looks.Look) -> tuple[float, float]:
    """How long the opening and closing cards of a film of ``length_sec`` seconds made in
    ``look`` need (seconds, before their boundaries are snapped onto the song's bars): the
    title's hold, and the ``closing`` text's reading time within the film's budget. What the
    song's form is built around (:class:`media.song.plan.SongBrief`), composed before the
    timeline is planned."""
    pacing = pacing_of(look)
    budget = _closing_budget(length_sec, pacing)
    text = " ".join(line for line in closing.lines if line.strip())
    hold = min(message_hold_s(text), max(MESSAGE_MIN_HOLD_S, budget))
    opening_s, closing_s = card_lengths(TITLE_HOLD_S, hold, pacing.transition_s, pacing.fade_s)
    # A film shorter than any sold (a few seconds: previews, tests) keeps its pictures: its
    # cards shrink with it. Every length sold gives them all that reading needs.
    shrink = min(1.0, length_sec / READING_RULES_FROM_S)
    return opening_s * shrink, closing_s * shrink


def card_lengths(title_hold_s: float, closing_hold_s: float, transition_s: float,
                 fade_s: float) -> tuple[float, float]:
    """Shortest opening and closing cards (seconds) whose words can be read.

    Opening: the title comes to rest (:data:`TITLE_IN_S`), is held ``title_hold_s``, then its
    words fade out (:data:`TEXT_EXIT_S`) before the dissolve into the first picture (half of
    ``transition_s`` before the cut).
    Closing, from its cut: the dissolve into it ends (half of ``transition_s``), the words come
    in (:data:`WORDS_IN_S`), hold ``closing_hold_s``, then the film fades out over ``fade_s``."""
    return (TITLE_IN_S + title_hold_s + TEXT_EXIT_S + transition_s / 2,
            transition_s / 2 + WORDS_IN_S + closing_hold_s + fade_s)


def _closing_budget(length_sec: float, pacing: Pacing) -> float:
    """The longest the closing's words may hold in a ``length_sec``-second film: the cards
    together within :data:`CARD_SHARE_MAX` of it, at most :data:`CLOSING_HOLD_MAX_S`."""
    opening_s, closing_base_s = card_lengths(TITLE_HOLD_S, 0.0, pacing.transition_s,
                                             pacing.fade_s)
    return min(CLOSING_HOLD_MAX_S, CARD_SHARE_MAX * length_sec - opening_s - closing_base_s)


def card_dissolve_s(pacing: Pacing, gentle: bool) -> float:
    """The longest dissolve into or out of a card (see :mod:`media.plan.shots`): what an
    interlude's length allows for either side of its words."""
    style = pacing.transitions
    return max(pacing.transition_s, style.dissolve_s, style.gentle_change_s if gentle else 0.0)


SUBJECT_SHARE_MAX = 0.3
"""With :data:`SUBJECT_SHARE_FROM` photos or more the subject photo takes at most this share of
the photo shots' time ("about a quarter": the film is about the person, not one picture)."""
SUBJECT_SHARE_FROM = 4  # photos
FEW_PHOTOS = 3  # a film of this many photos or fewer: its shots hold longer, and never flash;
# of this many pictures or fewer, its showings are spread by picture (a photo and a crop of it)


def subject_share(subject_id: str | None, shots: Sequence[tuple[Sequence[str], int]]) -> float:
    """The subject photo's share (0..1) of the photo ``shots``' time: each shot as the photos
    its cells show and its length (frames); a layout's cells share their shot."""
    total = mine = 0.0
    for cells, frames in shots:
        if cells:
            total += frames
            mine += frames * list(cells).count(subject_id) / len(cells)
    return mine / total if total else 0.0
