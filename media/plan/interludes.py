"""The customer's words through a long film: where its interludes sit and over which photo.

An interlude is a card (:class:`media.cards.spec.CardSpec` of kind ``interlude``) holding one
of the customer's lines (:func:`media.cards.wording.interlude_lines`) over a photo, between
runs of pictures. The rules are the look's data (:class:`media.design.looks.Interlude`):

* **How many.** One for each of the look's ``from_s`` the film reaches: by default none under
  60 s (the opening and the closing already take about a third of a short film, and its middle
  is a single run of pictures), one from 60 s (its middle, about 45 s, splits into two runs of
  about 20 s, each a verse or more of the song), two from 120 s (three runs of 30 s or more).
  Never more than there are lines to carry; none for a film whose words are empty. The
  customer's words the film promises (the ``required`` first cards: the memory or story line
  the closing does not carry, :mod:`media.cards.wording`) are shown whatever the length: when
  the look's rules leave no room for them, the runs of pictures between the cards shorten
  (down to :data:`PICTURES_BETWEEN_MIN_S`) and the interludes may take more of the middle
  (up to :data:`REQUIRED_SHARE_MAX`): the pictures yield before the customer's words do.
* **Where.** Evenly through the middle, each starting where a song section starts (a verse or
  the bridge first: a breath in the music, never the lift into the last chorus), else on a bar,
  else on a beat, and ending on a bar where one is within reach; at least ``pictures_between_s``
  of pictures before and after every interlude, so none is next to the opening, the closing or
  another interlude; together at most ``share_max`` of the middle (the middle stays pictures).
* **How long.** The dissolves in and out, the words' entrance
  (:data:`media.design.reading.WORDS_IN_S`), the reading time of the line
  (:func:`media.design.reading.message_hold_s`, at least its minimum) and the words' exit.
* **Over which photo.** A photo with content: the film's subject, else one with a face, else
  the most colourful; not a close-up of a face (the words would cross it) nor a
  low-resolution one when another will do, not one another interlude sits over, and not one
  shown in a picture shot (or behind another card) within ``photo_apart_s`` of the
  interlude.

Everything here is frames and ids: nothing touches pixels.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import pairwise

from media.cards.spec import CardSpec, card_look
from media.design import looks
from media.design.reading import TEXT_EXIT_S, WORDS_IN_S, message_hold_s
from media.plan.beat_snap import CARD_SNAP_REACH_S
from media.plan.inputs import PhotoSource
from media.plan.moves import BRIDGE
from media.plan.spec import SongFrames

QUIET_SECTIONS = ("verse", BRIDGE)  # where words come best: a breath in the song
# Seconds a start is held as far from its ideal place as these are (a verse's start first).
SECTION_PENALTY_S = 2.0
BAR_PENALTY_S = 6.0
BEAT_PENALTY_S = 9.0
OFF_GRID_PENALTY_S = 12.0
PICTURES_BETWEEN_MIN_S = 3.0  # the shortest run of pictures around a required interlude
REQUIRED_SHARE_MAX = 0.6  # the most of the middle interludes take to show the promised words
RELAX_STEPS = 6  # how many steps the look's rules relax in towards those limits


@dataclass(frozen=True)
class InterludeSpan:
    """An interlude's place: its card on screen from ``start`` to ``end`` (film frames, the
    cuts either side)."""

    start: int
    end: int
    card: CardSpec

    @property
    def frames(self) -> int:
        """Frames between its cuts."""
        return self.end - self.start


def rules_for(card: CardSpec) -> looks.Interlude:
    """The interlude rules of the look ``card`` is drawn in."""
    return card_look(card).interlude


def interlude_count(length_sec: float, rules: looks.Interlude) -> int:
    """How many interludes a film of ``length_sec`` seconds gets: one per ``from_s`` reached."""
    return sum(1 for start in rules.from_s if length_sec >= start - 1e-9)


def interlude_seconds(card: CardSpec, dissolve_s: float) -> float:
    """How long an interlude must be, cut to cut: half a dissolve in, the words' entrance,
    their reading time, their exit, half a dissolve out."""
    text = " ".join(line for line in card.lines if line.strip())
    return dissolve_s + WORDS_IN_S + message_hold_s(text) + TEXT_EXIT_S


def place_interludes(cards: Sequence[CardSpec], length_sec: float, middle: tuple[int, int],
                     song: SongFrames, fps: int, dissolve_s: float,
                     required: int = 0) -> list[InterludeSpan]:
    """Where the interludes of ``cards`` (best first) sit in the ``middle`` of a film of
    ``length_sec`` seconds (frames: the opening's end and the closing's start), on the
    ``song``'s grid: as many as the film's length earns and the rules allow (see the module),
    fewer when they do not fit, and the first ``required`` of them whenever they fit with the
    rules relaxed. ``dissolve_s``: the longest dissolve into or out of a card."""
    if not cards:
        return []
    rules = rules_for(cards[0])
    required = min(required, len(cards))
    earned = min(max(interlude_count(length_sec, rules), required), len(cards))
    middle_s = (middle[1] - middle[0]) / fps
    for step, (gap_s, share) in enumerate(_relaxed(rules, required)):
        # the look's own rules place what the film earns; relaxed, only the promised words
        for count in range(earned if step == 0 else required, max(required, 1) - 1, -1):
            chosen = _fitting(cards, count, share * middle_s, dissolve_s)
            if chosen[:required] != list(cards[:required]):
                continue
            spans = _spans(chosen, (gap_s, share), middle, song, fps, dissolve_s)
            if spans:
                return spans
    if required:  # not all the promised words fit: as many of them as do
        return place_interludes(cards[:required - 1], length_sec, middle, song, fps,
                                dissolve_s, required - 1)
    return []


def _relaxed(rules: looks.Interlude, required: int) -> list[tuple[float, float]]:
    """The (pictures between, share of the middle) the interludes are placed with: the look's
    own; with ``required`` interludes, then steps towards :data:`PICTURES_BETWEEN_MIN_S` and
    :data:`REQUIRED_SHARE_MAX`."""
    own = (rules.pictures_between_s, rules.share_max)
    if not required:
        return [own]
    gap_min = min(PICTURES_BETWEEN_MIN_S, rules.pictures_between_s)
    share_max = max(REQUIRED_SHARE_MAX, rules.share_max)
    return [own, *((own[0] + (gap_min - own[0]) * k / RELAX_STEPS,
                    own[1] + (share_max - own[1]) * k / RELAX_STEPS)
                   for k in range(1, RELAX_STEPS + 1))]


def _fitting(cards: Sequence[CardSpec], count: int, budget_s: float,
             dissolve_s: float) -> list[CardSpec]:
    """Up to ``count`` of ``cards``, best first, whose lengths together fit ``budget_s``
    (a long line that does not fit gives way to a shorter one after it)."""
    chosen: list[CardSpec] = []
    used = 0.0
    for card in cards:
        seconds = interlude_seconds(card, dissolve_s)
        if len(chosen) < count and used + seconds <= budget_s:
            chosen.append(card)
            used += seconds
    return chosen


def _spans(cards: Sequence[CardSpec], room: tuple[float, float], bounds: tuple[int, int],
           song: SongFrames, fps: int, dissolve_s: float) -> list[InterludeSpan]:
    """``cards`` placed in order (see :func:`place_interludes`) with ``room``'s seconds of
    pictures between cards and share of the middle they may take, or [] when they do not
    fit."""
    pictures_between_s, share_max = room
    open_end, close_start = bounds
    beats, bars = song.beats, song.bars
    middle = close_start - open_end
    if not cards:
        return []
    lengths = [math.ceil(interlude_seconds(card, dissolve_s) * fps) for card in cards]
    gap = math.ceil(pictures_between_s * fps)
    if sum(lengths) > share_max * middle or sum(lengths) + gap * (len(cards) + 1) > middle:
        return []
    starts = _start_grid(song, fps)
    reach = max(round(CARD_SNAP_REACH_S * fps), _beat_frames(beats))
    spans: list[InterludeSpan] = []
    earliest = open_end + gap
    for k, (card, length) in enumerate(zip(cards, lengths, strict=True)):
        later = sum(lengths[k + 1:]) + gap * (len(cards) - k)
        latest = close_start - later - length - reach
        ideal = open_end + middle * (k + 1) / (len(cards) + 1) - length / 2
        start = _best_start(starts, earliest, latest, ideal, fps)
        if start is None:
            return []
        end = _end_on_bar(start + length, start + length + reach, bars, beats)
        spans.append(InterludeSpan(start, end, card))
        earliest = end + gap
    return spans


def _beat_frames(beats: Sequence[int]) -> int:
    """The typical beat length in frames (0 without a grid)."""
    gaps = sorted(b - a for a, b in pairwise(beats))
    return gaps[len(gaps) // 2] if len(gaps) > 1 else 0


def _start_grid(song: SongFrames, fps: int) -> dict[int, float]:
    """Every frame an interlude may start on, with its penalty in frames (see the module)."""
    grid = {b: BEAT_PENALTY_S * fps for b in song.beats}
    grid.update({b: BAR_PENALTY_S * fps for b in song.bars})
    for section in song.sections[1:]:  # the first section's start is the film's
        quiet = section.name in QUIET_SECTIONS
        grid[section.start] = 0.0 if quiet else SECTION_PENALTY_S * fps
    return grid


def _best_start(grid: dict[int, float], earliest: int, latest: int, ideal: float,
                fps: int) -> int | None:
    """The start in ``earliest..latest`` nearest ``ideal`` counting its penalty; off the grid
    (the ideal frame itself, clamped) when no grid frame fits; None when the range is empty."""
    if latest < earliest:
        return None
    clamped = min(max(round(ideal), earliest), latest)
    options = [(abs(f - ideal) + penalty, f) for f, penalty in grid.items()
               if earliest <= f <= latest]
    options.append((abs(clamped - ideal) + OFF_GRID_PENALTY_S * fps, clamped))
    return min(options)[1]


def _end_on_bar(lo: int, hi: int, bars: Sequence[int], beats: Sequence[int]) -> int:
    """The first bar in ``lo..hi``, else the first beat, else ``lo``."""
    for grid in (bars, beats):
        i = bisect.bisect_left(grid, lo)
        if i < len(grid) and grid[i] <= hi:
            return grid[i]
    return lo


def interlude_photo(span: tuple[int, int], showings: Sequence[tuple[str, int, int]],
                    photos: Sequence[PhotoSource], subject_id: str | None,
                    apart_frames: int, taken: Collection[str] = ()) -> str | None:
    """The photo behind the interlude on screen over the frames ``span`` (start, end; see the
    module): ``showings`` are (photo id, first frame, end frame) of every picture shot and card
    backdrop so far; a photo ``taken`` by another interlude comes after the others."""
    if not photos:
        return None

    def near(photo_id: str) -> bool:
        return any(pid == photo_id and start < span[1] + apart_frames
                   and end > span[0] - apart_frames for pid, start, end in showings)

    def rank(item: tuple[int, PhotoSource]) -> tuple[bool, bool, bool, bool, bool, float, int]:
        order, photo = item
        return (near(photo.id), photo.id in taken, photo.low_res, photo.close,
                photo.id != subject_id,
                -(photo.face_fraction + 0.2 * photo.saturation), order)

    return min(enumerate(photos), key=rank)[1].id


def group_by_runs(lengths_s: Sequence[float], runs_s: Sequence[float]) -> list[int] | None:
    """How many of the middle's shots (their ``lengths_s``, in order) fall in each run of
    pictures (``runs_s`` seconds each, in order): a shot goes to the run its middle falls in.
    None when a run would get no shot."""
    edges, total = [], 0.0
    for run in runs_s:
        total += run
        edges.append(total * sum(lengths_s) / max(sum(runs_s), 1e-9))
    counts = [0] * len(runs_s)
    start = 0.0
    for length in lengths_s:
        counts[min(bisect.bisect_right(edges, start + length / 2), len(runs_s) - 1)] += 1
        start += length
    return counts if all(counts) else None


def interlude_photos(items: Sequence[tuple[str, str]], cuts: Sequence[int],
                     interludes: Sequence[int], photos: Sequence[PhotoSource],
                     subject_id: str | None, apart_frames: int,
                     opening_id: str | None = None) -> dict[int, str]:
    """The photo behind each interlude (by index into the middle's ``items``: (kind, source
    id) of each shot, ``cuts`` the film's cut frames, the opening card's first), chosen in film
    order with :func:`interlude_photo`; the opening's photo (``opening_id``, else the first
    picture's) and the closing's count as showings."""
    picture_ids = [source for kind, source in items if kind == "photo"]
    showings = [(source, cuts[i + 1], cuts[i + 2]) for i, (kind, source) in enumerate(items)
                if kind == "photo"]
    if picture_ids:
        showings.append((opening_id or picture_ids[0], cuts[0], cuts[1]))
        showings.append((subject_id or picture_ids[-1], cuts[-2], cuts[-1]))
    chosen: dict[int, str] = {}
    for i in interludes:
        span = (cuts[i + 1], cuts[i + 2])
        photo = interlude_photo(span, showings, photos, subject_id, apart_frames,
                                set(chosen.values()))
        if photo is not None:
            chosen[i] = photo
            showings.append((photo, *span))
    return chosen
