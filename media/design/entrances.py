"""The type animations: how a card's words and its accent rule come in, one registered
function each.

A look names its entrances (:class:`media.design.looks.Entrance`: ``text`` for the words,
``rule`` for the accent rule, with their parameters); the engine
(:func:`media.cards.motion.card_motion`) asks the registered function where each word is at
each frame of its entrance. A new animation is one function here, registered under its name
with :func:`text_entrance` (or :func:`rule_entrance`), and its parameters in the look files.

Every entrance is eased out to rest by the end of it (:attr:`Moment.u` reaches 1):

* ``settle``: the words start ``scale_from`` times larger and, cut into letters
  (:func:`cuts_letters`), ``tracking_from`` further apart; scale and tracking settle together.
* ``rise``: the words come in one after another in reading order, each rising
  :attr:`Moment.rise_px` into place (and fading in, on the closing).
* ``fade``: the words fade in one after another in place.
* ``land``: the words drop in ``scale_from`` times larger from ``rise`` above their place,
  fading in over the first :data:`LAND_FADE` of the entrance, and land with a small bounce
  (:func:`ease_out_back`).
* the accent rule either draws out from its centre (``draw_line``) or fades in with its turn
  (``fade``).

Pure arithmetic: no drawing and nothing of the rest of the room, so the looks' model can
validate a name against :data:`TEXT_ENTRANCES` and :data:`RULE_ENTRANCES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

LAND_BACK = 1.2  # a landing's back-ease constant: it passes its rest by about 6 %
LAND_FADE = 0.3  # share of a landing's entrance over which its words fade in


class EntranceParameters(Protocol):
    """What an animation reads of its look's entrance (:class:`media.design.looks.Entrance`)."""

    @property
    def scale_from(self) -> float: ...

    @property
    def tracking_from(self) -> float: ...


@dataclass(frozen=True)
class Moment:
    """Where one word is in its entrance: ``u`` (0 at its start, 1 at rest; below 0 before it,
    above 1 after), whether the card's words ``fade`` in (the closing and the interludes; the
    opening's are on screen from its first frame) and ``rise_px``, how far (pixels) the look
    lets words travel up as they come in."""

    u: float
    fades: bool
    rise_px: float

    @property
    def eased(self) -> float:
        """``u`` eased out (cubic), clamped to 0-1."""
        return ease_out(self.u)

    @property
    def faded_in(self) -> float:
        """The word's opacity (0-1) when it simply fades in with its turn."""
        return self.eased if self.fades else 1.0


@dataclass(frozen=True)
class Pose:
    """A word (or the rule) relative to its rest: ``grow`` (share larger), ``apart`` (share of
    its distance from the block's centre further out), ``lift`` (pixels below its place;
    negative: above), its ``opacity`` (0-1) and ``reveal`` (the share of its width shown,
    about its centre: a rule drawing out)."""

    grow: float = 0.0
    apart: float = 0.0
    lift: float = 0.0
    opacity: float = 1.0
    reveal: float = 1.0


Animation = Callable[[EntranceParameters, Moment], Pose]


@dataclass(frozen=True)
class TextEntrance:
    """A registered animation of the words: its ``pose`` at a moment, and whether it moves the
    title's letters one by one (``letters``: the drawing then cuts its words into letters)."""

    pose: Animation
    letters: Callable[[EntranceParameters], bool]


TEXT_ENTRANCES: dict[str, TextEntrance] = {}
"""The words' animations by the name a look gives them
(:attr:`media.design.looks.Entrance.text`)."""
RULE_ENTRANCES: dict[str, Animation] = {}
"""The accent rule's animations by name (:attr:`media.design.looks.Entrance.rule`)."""


def _no_letters(entrance: EntranceParameters) -> bool:
    return False


def text_entrance(name: str, letters: Callable[[EntranceParameters], bool] = _no_letters
                  ) -> Callable[[Animation], Animation]:
    """Register the decorated function as the words' animation ``name``; ``letters`` says for
    which parameters it moves the title's letters apart (default: never)."""
    def register(pose: Animation) -> Animation:
        TEXT_ENTRANCES[name] = TextEntrance(pose, letters)
        return pose
    return register


def rule_entrance(name: str) -> Callable[[Animation], Animation]:
    """Register the decorated function as the accent rule's animation ``name``."""
    def register(pose: Animation) -> Animation:
        RULE_ENTRANCES[name] = pose
        return pose
    return register


def text_pose(name: str, entrance: EntranceParameters, moment: Moment) -> Pose:
    """Where a word of the words' animation ``name`` is at ``moment``."""
    return TEXT_ENTRANCES[name].pose(entrance, moment)


def rule_pose(name: str, entrance: EntranceParameters, moment: Moment) -> Pose:
    """Where the accent rule of the rule's animation ``name`` is at ``moment``."""
    return RULE_ENTRANCES[name](entrance, moment)


def cuts_letters(name: str, entrance: EntranceParameters) -> bool:
    """True when the words' animation ``name`` moves the title's letters one by one."""
    return TEXT_ENTRANCES[name].letters(entrance)


def ease_out(u: float) -> float:
    """Cubic ease-out of ``u`` clamped to 0-1: fast, then settling to rest."""
    u = min(max(u, 0.0), 1.0)
    return 1.0 - (1.0 - u) ** 3


def ease_out_back(u: float) -> float:
    """Ease-out (back, :data:`LAND_BACK`) that passes its rest by about 5 % and comes back: a
    landing's bounce."""
    u = min(max(u, 0.0), 1.0)
    c = LAND_BACK
    return 1.0 + (c + 1.0) * (u - 1.0) ** 3 + c * (u - 1.0) ** 2


# --- the words ---------------------------------------------------------------------------------


def _tracked(entrance: EntranceParameters) -> bool:
    return entrance.tracking_from > 0.0


@text_entrance("settle", letters=_tracked)
def settle(entrance: EntranceParameters, moment: Moment) -> Pose:
    """Larger and tracked out at first; scale and tracking settle to rest together."""
    rest = 1.0 - moment.eased
    return Pose(grow=(entrance.scale_from - 1.0) * rest, apart=entrance.tracking_from * rest,
                opacity=moment.faded_in)


@text_entrance("rise")
def rise(entrance: EntranceParameters, moment: Moment) -> Pose:
    """Rising :attr:`Moment.rise_px` into place."""
    return Pose(lift=moment.rise_px * (1.0 - moment.eased), opacity=moment.faded_in)


@text_entrance("fade")
@rule_entrance("fade")
def fade(entrance: EntranceParameters, moment: Moment) -> Pose:
    """In place, fading in with its turn."""
    return Pose(opacity=moment.faded_in)


@text_entrance("land")
def land(entrance: EntranceParameters, moment: Moment) -> Pose:
    """Dropping in larger from above, fading in over :data:`LAND_FADE` of the entrance, and
    landing with a small bounce."""
    landed = ease_out_back(moment.u)
    opacity = min(1.0, max(moment.u, 0.0) / LAND_FADE) if moment.fades else 1.0
    return Pose(grow=(entrance.scale_from - 1.0) * (1.0 - landed),
                lift=-moment.rise_px * (1.0 - landed), opacity=opacity)


# --- the accent rule ---------------------------------------------------------------------------


@rule_entrance("draw_line")
def draw_line(entrance: EntranceParameters, moment: Moment) -> Pose:
    """Drawing out from its centre, whole in opacity from the start."""
    return Pose(reveal=moment.eased)
