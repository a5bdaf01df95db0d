"""The transitions from one shot into the next, each one registered function beside its peers.

A transition is named by the looks (``[pacing] transition``, ``[transitions] chorus``) and by
each shot of the timeline (:class:`media.plan.timeline.Transition`). Its function gives the
opacities (0..1) of the incoming and of the outgoing shot at progress ``u`` through it: frame
``k`` of a transition ``n`` frames long is at ``u = (k + 0.5) / n`` (below 0 before it, above 1
after, so a function clamps). ``overlaps`` says whether both shots are on screen for the whole
of it (a dissolve) or each only on its own side of the cut (through black). A transition with
a ``travel`` moves the shots instead of fading them (a swipe): both at full opacity, side by
side, the incoming one having travelled ``travel(u)`` of the frame in; nothing is laid over
anything. The planner (where each shot is visible, how much of it plays under a transition)
and the renderer (the weights and the shifts, :mod:`media.frames.blend`) read nothing else of a
transition. A transition of no frames is a cut whatever its name.

A new transition: a function here under ``@transition("name")``, and its name in a look's
TOML.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Weights = tuple[float, float]
"""The opacities of the incoming and of the outgoing shot (0..1; what they leave is black)."""
WeightsAt = Callable[[float], Weights]

CUT, CROSSFADE, FADE_BLACK, DIP, SWIPE = "cut", "crossfade", "fade_black", "dip", "swipe"
Travel = Callable[[float], float]
"""The share of the frame (0..1) the incoming shot has travelled in at a progress."""
DIP_LEVEL = 0.35  # a dip's darkest frame keeps this much of the picture's light


@dataclass(frozen=True)
class TransitionKind:
    """A registered transition: its ``name``, its ``weights`` at a progress, whether both
    shots are on screen all through it (``overlaps``) and, for one that moves the shots rather
    than fading them, how far the incoming shot has travelled in (``travel``)."""

    name: str
    weights: WeightsAt
    overlaps: bool = True
    travel: Travel | None = None

    @property
    def lays_over(self) -> bool:
        """True when one shot shows through the other (a dissolve): what lays a face over a
        face."""
        return self.overlaps and self.travel is None

    def under(self, frames: int) -> int:
        """How many frames of a shot play under this transition ``frames`` long, at the end
        of the shot it joins: all of them in a dissolve, half through black."""
        return frames if self.overlaps else frames // 2


TRANSITIONS: dict[str, TransitionKind] = {}
"""Every transition by name (:func:`transition` registers one)."""


def transition(name: str, *, overlaps: bool = True, travel: Travel | None = None
               ) -> Callable[[WeightsAt], WeightsAt]:
    """Register the decorated weights function as the transition ``name`` (see the module)."""
    def register(weights: WeightsAt) -> WeightsAt:
        TRANSITIONS[name] = TransitionKind(name, weights, overlaps, travel)
        return weights
    return register


def transition_kind(name: str) -> TransitionKind:
    """The transition registered as ``name`` (ValueError naming the registered ones if none
    is)."""
    found = TRANSITIONS.get(name)
    if found is None:
        raise ValueError(f"unknown transition {name!r}; registered: {sorted(TRANSITIONS)}")
    return found


def _clamped(value: float) -> float:
    return min(max(value, 0.0), 1.0)


@transition(CUT)
def cut(u: float) -> Weights:
    """A hard cut: the next shot at once (a cut is planned with no frames)."""
    return (1.0, 0.0) if u >= 0.5 else (0.0, 1.0)


@transition(CROSSFADE)
def crossfade(u: float) -> Weights:
    """A dissolve: the incoming shot's opacity rises linearly as the outgoing one's falls."""
    incoming = _clamped(u)
    return incoming, 1.0 - incoming


@transition(FADE_BLACK, overlaps=False)
def fade_black(u: float) -> Weights:
    """Through black: the outgoing shot fades out over the first half, the incoming one in
    over the second."""
    return _clamped(2 * u - 1), _clamped(1 - 2 * u)


@transition(DIP, overlaps=False)
def dip(u: float) -> Weights:
    """A soft dip: the outgoing shot dims to :data:`DIP_LEVEL` of its light over the first
    half, the incoming one rises from there over the second; never both on screen, so a face
    is never laid over another (a gentle film's dissolve between two faces), and never near
    black (a memorial does not drop to a dark frame between two photos)."""
    if u < 0.5:
        return 0.0, 1.0 - (1.0 - DIP_LEVEL) * _clamped(2 * u)
    return DIP_LEVEL + (1.0 - DIP_LEVEL) * _clamped(2 * u - 1), 0.0


def swipe_travel(u: float) -> float:
    """A swipe's travel at progress ``u``: a cubic ease in and out (soft off the mark, quick
    in the middle, a soft landing), what a phone's own swipe between stories feels like; a
    steeper ease leaves the middle to two or three frames, which judder without motion
    blur."""
    u = _clamped(u)
    return 4 * u ** 3 if u < 0.5 else 1 - (-2 * u + 2) ** 3 / 2


@transition(SWIPE, travel=swipe_travel)
def swipe(u: float) -> Weights:
    """A swipe: the incoming shot pushes the outgoing one off the frame (along its long side,
    :func:`media.frames.blend.layer_shifts`), both at full opacity all through it: two faces
    pass side by side, never one through the other."""
    return (1.0 if u > 0.0 else 0.0), (1.0 if u < 1.0 else 0.0)
