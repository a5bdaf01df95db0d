"""The plan of a song: every musical decision (tempo, key, form, harmony, motifs, arrangement
palette) taken from an order's brief and a seed, before any note is placed or sound rendered.

Time grid: 4/4, the first beat is at 0.0 s (no pickup). The song is ``n_bars`` whole bars and
then the final tonic chord, which lands on the downbeat of bar ``n_bars`` and rings to the end.
The tempo is chosen inside the feel's range so that this fits ``length_sec`` exactly.

Mode: celebrations and romance (every occasion that is not gentle) are in major keys; a gentle
occasion is in major too (its plagal cadence borrows the minor iv: bittersweet, then home),
unless its tone is grieving ("somber", "mourning"...), when it may be minor.

Form follows the film (:func:`_form`): when the brief gives the cards' lengths, the intro lasts
the whole bars that cover the title card, the last chorus (the lift) starts on the bar nearest
:data:`LIFT_SHARE` of the film (the montage's peak), and the ending (cadence, then the final
chord ringing out) starts on the last bar at or before the closing card, so the song resolves
under the closing message.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace

import numpy as np

from media.song.palettes import PALETTES, Palette, palette_for

BEATS_PER_BAR = 4
MIN_LENGTH_S = 8.0
MAX_LENGTH_S = 600.0

_TEMPO_RANGE = {"gentle": (60.0, 76.0), "warm": (80.0, 96.0), "bright": (100.0, 124.0)}
_TAIL_S = {"gentle": 4.5, "warm": 3.6, "bright": 3.0}
_NOTE_NAMES = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
_MAJOR_TONICS = (0, 2, 3, 5, 7, 8, 9, 10, 4)
_MINOR_TONICS = (9, 4, 2, 11, 7, 0, 5)
_MAJOR_SCALE = (0, 2, 4, 5, 7, 9, 11)
_MINOR_SCALE = (0, 2, 3, 5, 7, 8, 10)

_BRIGHT_WORDS = ("joy", "celebrat", "happy", "fun", "playful", "upbeat", "excit", "festive",
                 "party", "cheer", "energ", "exuberan", "lively", "wild", "adventur", "bold",
                 "silly", "proud", "thrill", "sparkl", "sunny", "bright", "dance")
_CALM_WORDS = ("tender", "reflect", "calm", "peace", "somber", "sombre", "quiet", "gentle",
               "nostalg", "bittersweet", "solemn", "soft", "serene", "grief", "mourn",
               "remember", "missed", "miss", "cozy", "cosy", "grateful", "thankful", "still")
_GRIEF_WORDS = ("somber", "sombre", "solemn", "grief", "griev", "mourn")
"""A gentle occasion whose tone says one of these may be in a minor key; every other song is
major."""
_BRIGHT_TIMBRE_WORDS = ("bright", "sparkl", "sunny", "fresh", "light", "shine", "glow", "fun")
_DARK_TIMBRE_WORDS = ("cozy", "cosy", "deep", "soft", "warm", "dark", "velvet", "quiet")

@dataclass(frozen=True)
class SongBrief:
    """What the composer knows about the order. ``length_sec`` is the exact song length (s)."""

    occasion_slug: str
    tone: str
    gentle: bool
    recipient_name: str
    relationship: str
    memory: str
    story_note: str
    feeling_words: tuple[str, ...]
    style: str
    length_sec: float
    title_card_s: float = 0.0
    """How long the film's title card holds from 0 s (0: unknown); the intro covers it."""
    closing_card_s: float = 0.0
    """How long the film's closing card holds at the end (0: unknown); the song resolves under
    it."""


LIFT_SHARE = 0.67
"""Where the last chorus lifts in, as a share of the film: the montage's peak (the films build
to about two thirds of their length, before the closing)."""
LIFT_WINDOW = (0.6, 0.75)
"""The shares of the film the lift may land in (on a bar, so not always on the peak)."""
TITLE_MARGIN_S = 0.05
"""The intro ends at least this long after the title card would (frame rounding)."""
MAX_CADENCE_BARS = 4


@dataclass(frozen=True)
class Chord:
    """A diatonic chord: root scale degree, chromatic alterations and an optional added tone."""

    name: str
    root: int
    alter: tuple[tuple[int, int], ...] = ()
    add: int | None = None

    def degrees(self) -> tuple[int, ...]:
        """Scale degrees of the chord tones (root, third, fifth[, added tone])."""
        base = (self.root, self.root + 2, self.root + 4)
        return base if self.add is None else (*base, self.root + self.add)

    def triad_classes(self) -> frozenset[int]:
        """Scale degrees (mod 7) of the triad, used to keep the melody consonant."""
        return frozenset(d % 7 for d in self.degrees()[:3])


@dataclass(frozen=True)
class Motif:
    """A two-bar melodic cell: (onset, duration) in beats and scale-degree offsets."""

    rhythm: tuple[tuple[float, float], ...]
    contour: tuple[int, ...]


@dataclass(frozen=True)
class SongPlan:
    """Every musical decision, before any audio is rendered. Times in seconds, tempo in bpm."""

    seed: int
    length_sec: float
    feel: str
    energy: float
    brightness: float
    social: bool
    tempo_bpm: float
    tonic_pc: int
    minor: bool
    n_bars: int
    tail_s: float
    form: tuple[tuple[str, int, int], ...]
    chords: tuple[Chord, ...]
    verse_motif: Motif
    chorus_motif: Motif
    answer: str
    palette: int
    """Index of the arrangement palette in :data:`media.song.palettes.PALETTES` of the feel."""

    @property
    def beat_s(self) -> float:
        """Seconds per beat."""
        return 60.0 / self.tempo_bpm

    @property
    def bar_s(self) -> float:
        """Seconds per 4/4 bar."""
        return BEATS_PER_BAR * self.beat_s

    @property
    def arrangement(self) -> Palette:
        """The instruments and playing styles of this song."""
        return palette_for(self.feel, self.palette)

    @property
    def drums(self) -> bool:
        """True when a drum kit plays (never for gentle occasions)."""
        return self.arrangement.drum_kit is not None

    @property
    def key(self) -> str:
        """Key name, e.g. ``"D major"``."""
        return f"{_NOTE_NAMES[self.tonic_pc]} {'minor' if self.minor else 'major'}"

    @property
    def scale(self) -> tuple[int, ...]:
        """Semitones of the seven scale degrees above the tonic."""
        return _MINOR_SCALE if self.minor else _MAJOR_SCALE

    def section_at(self, bar: int) -> tuple[str, int, int, int]:
        """(name, bar index inside the section, section bars, occurrence of that name)."""
        seen: dict[str, int] = {}
        for name, start, bars in self.form:
            if start <= bar < start + bars or (name == "ending" and bar >= start):
                return name, bar - start, bars, seen.get(name, 0)
            seen[name] = seen.get(name, 0) + 1
        return "ending", 0, 1, 0


# --------------------------------------------------------------------------- seeds & plan


def song_seed(*parts: str) -> int:
    """A stable 63-bit seed from order identity strings (SHA-256, independent of hash())."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def _count_words(text: str, words: tuple[str, ...]) -> int:
    lowered = text.lower()
    return sum(1 for word in words if word in lowered)


def _feel(brief: SongBrief) -> str:
    if brief.gentle:
        return "gentle"
    tone = brief.tone.lower()
    if _count_words(tone, _BRIGHT_WORDS) > _count_words(tone, _CALM_WORDS):
        return "bright"
    return "warm"


def _energy(brief: SongBrief, feel: str) -> float:
    """0..1: drives tempo inside the range, drum density and arrangement."""
    energy = {"gentle": 0.25, "warm": 0.5, "bright": 0.72}[feel]
    energy -= 0.12 * min(1, _count_words(brief.tone, _CALM_WORDS))
    feelings = " ".join(brief.feeling_words)
    nudge = 0.06 * (_count_words(feelings, _BRIGHT_WORDS) - _count_words(feelings, _CALM_WORDS))
    energy += max(-0.2, min(0.2, nudge))
    energy += 0.12 if brief.style.lower() == "social" else 0.0
    return max(0.0, min(0.4 if feel == "gentle" else 1.0, energy))


def _brightness(brief: SongBrief, feel: str) -> float:
    """0..1: pad/keys filter openness and how present the hats are."""
    value = {"gentle": 0.3, "warm": 0.5, "bright": 0.7}[feel]
    words = " ".join((*brief.feeling_words, brief.tone))
    nudge = 0.08 * (_count_words(words, _BRIGHT_TIMBRE_WORDS)
                    - _count_words(words, _DARK_TIMBRE_WORDS))
    value += max(-0.2, min(0.2, nudge)) + (0.1 if brief.style.lower() == "social" else 0.0)
    return max(0.1, min(0.95, value))


def _minor_odds(brief: SongBrief) -> float:
    """Chance of a minor key: none for celebrations and romance (every occasion that is not
    gentle), none for a gentle one unless its tone grieves (see the module doc)."""
    return 0.5 if brief.gentle and _count_words(brief.tone, _GRIEF_WORDS) else 0.0


def _fit_tempo(length_s: float, feel: str, preferred: float) -> tuple[float, int, float]:
    """(bpm, whole bars before the final chord, tail seconds) that fill ``length_s`` exactly."""
    low, high = _TEMPO_RANGE[feel]
    tail = min(_TAIL_S[feel], 0.4 * length_s)
    body = length_s - tail
    best: tuple[float, int] | None = None
    for bars in range(1, int(body * high / 240.0) + 2):
        bpm = bars * 240.0 / body
        if low <= bpm <= high and (best is None or abs(bpm - preferred) < abs(best[0] - preferred)):
            best = (bpm, bars)
    if best is None:
        bars = max(1, int(body * preferred / 240.0))
        return preferred, bars, length_s - bars * 240.0 / preferred
    return best[0], best[1], tail


def _form(n_bars: int, bar_s: float, brief: SongBrief) -> tuple[tuple[str, int, int], ...]:
    """Sections as (name, start bar, bars); the ending holds the cadence and the final chord.
    With the cards' lengths in the brief the form follows the film (:func:`_film_anchors`):
    intro under the title, verses (and a bridge) up to the lift, the last chorus from the lift
    to the closing card, the ending under it. Without them, a fixed form by length."""
    anchors = _film_anchors(n_bars, bar_s, brief)
    if anchors is None:
        return _fixed_form(n_bars)
    intro, lift, ending = anchors
    sections: list[tuple[str, int, int]] = [("intro", 0, intro)]
    bar = intro
    for name, bars in _before_lift(lift - intro):
        sections.append((name, bar, bars))
        bar += bars
    return (*sections, ("chorus", lift, ending - lift), ("ending", ending, n_bars - ending + 1))


def _film_anchors(n_bars: int, bar_s: float, brief: SongBrief) -> tuple[int, int, int] | None:
    """(intro bars, bar the last chorus lifts in on, bar the ending starts on) for the brief's
    cards. The intro is the whole bars covering the title card. The lift is the bar nearest
    :data:`LIFT_SHARE` of the film inside :data:`LIFT_WINDOW`, one that leaves the last chorus
    two bars if there is one.
    The ending starts on the last bar at or before the closing card (at most
    :data:`MAX_CADENCE_BARS` before the final chord, at least one). None when the brief does
    not give the cards or the song is too short to hold all three."""
    if brief.title_card_s <= 0 or brief.closing_card_s <= 0:
        return None
    intro = max(1, math.ceil((brief.title_card_s + TITLE_MARGIN_S) / bar_s))
    closing_at = math.floor((brief.length_sec - brief.closing_card_s) / bar_s + 1e-9)
    ending = max(n_bars - MAX_CADENCE_BARS, min(n_bars - 1, closing_at))
    if ending - intro < 2:
        return None
    options = range(intro + 1, ending)
    at_peak = [b for b in options
               if LIFT_WINDOW[0] <= b * bar_s / brief.length_sec <= LIFT_WINDOW[1]]
    roomy = [b for b in at_peak if ending - b >= 2]
    target = LIFT_SHARE * brief.length_sec / bar_s
    lift = min(roomy or at_peak or options, key=lambda b: abs(b - target))
    return intro, lift, ending


def _before_lift(bars: int) -> list[tuple[str, int]]:
    """The sections between the intro and the lift: one verse under 12 bars (a bridge there
    would take the energy out of half a short film), else verses and choruses then a four-bar
    bridge, so the last chorus never follows another chorus."""
    if bars < 12:
        return [("verse", bars)] if bars > 0 else []
    return [*_units(bars - 4, ("verse", "chorus")), ("bridge", 4)]


def _units(bars: int, names: tuple[str, ...]) -> list[tuple[str, int]]:
    """``bars`` split into sections of 4 bars (8 from 24 bars on) named in turn from ``names``;
    a remainder under 4 bars joins the last section."""
    unit = 8 if bars >= 24 else 4
    out: list[tuple[str, int]] = []
    remaining = bars
    while remaining > 0:
        size = min(unit, remaining)
        if 0 < remaining - size < 4:
            size = remaining
        out.append((names[len(out) % len(names)], size))
        remaining -= size
    return out


def _fixed_form(n_bars: int) -> tuple[tuple[str, int, int], ...]:
    """The form by length alone (a brief without the cards' lengths)."""
    intro = 1 if n_bars < 10 else 2 if n_bars < 24 else 4
    intro = min(intro, max(0, n_bars - 3))
    cadence = min(2, n_bars - intro)
    middle = n_bars - intro - cadence
    sections: list[tuple[str, int, int]] = [("intro", 0, intro)] if intro else []
    bar = intro
    for name, bars in _middle_sections(middle):
        sections.append((name, bar, bars))
        bar += bars
    sections.append(("ending", bar, cadence + 1))
    return tuple(sections)


def _middle_sections(bars: int) -> list[tuple[str, int]]:
    if bars <= 0:
        return []
    if bars < 8:
        first = max(1, bars // 2)
        return [("verse", first)] + ([("chorus", bars - first)] if bars > first else [])
    unit = 8 if bars >= 24 else 4
    names = ("verse", "chorus", "verse", "chorus", "bridge", "chorus", "chorus")
    loop = ("verse", "chorus", "bridge", "chorus")
    out: list[tuple[str, int]] = []
    index, remaining = 0, bars
    while remaining > 0:
        name = names[index] if index < len(names) else loop[(index - len(names)) % len(loop)]
        size = min(4 if name == "bridge" else unit, remaining)
        if 0 < remaining - size < 4:
            size = remaining
        out.append((name, size))
        remaining -= size
        index += 1
    return out


_MAJOR_CHORDS = {
    "I": Chord("I", 0), "ii": Chord("ii", 1), "iii": Chord("iii", 2), "IV": Chord("IV", 3),
    "V": Chord("V", 4), "vi": Chord("vi", 5), "iv": Chord("iv", 3, ((5, -1),)),
}
_MINOR_CHORDS = {
    "i": Chord("i", 0), "III": Chord("III", 2), "iv": Chord("iv", 3), "V": Chord("V", 4, ((6, 1),)),
    "VI": Chord("VI", 5), "VII": Chord("VII", 6), "I": Chord("I", 0, ((2, 1),)),
}
_MAJOR_PROGRESSIONS = (
    ("I", "V", "vi", "IV"), ("I", "vi", "IV", "V"), ("vi", "IV", "I", "V"),
    ("I", "IV", "vi", "V"), ("IV", "I", "V", "vi"), ("I", "iii", "IV", "V"),
    ("I", "V", "IV", "V"), ("I", "ii", "IV", "V"),
)
_MINOR_PROGRESSIONS = (
    ("i", "VI", "III", "VII"), ("i", "iv", "VI", "V"), ("i", "VII", "VI", "VII"),
    ("VI", "VII", "i", "i"), ("i", "III", "VII", "VI"), ("i", "VI", "iv", "V"),
)
_MAJOR_BRIDGES = (("IV", "V", "iii", "vi"), ("vi", "V", "IV", "V"), ("ii", "IV", "vi", "V"))
_MINOR_BRIDGES = (("VI", "VII", "III", "V"), ("iv", "VI", "VII", "V"), ("III", "VII", "iv", "V"))
_COLOR_ADDS = {"I": 8, "IV": 8, "vi": 6, "ii": 6, "i": 8, "VI": 8, "III": 8}


def _progressions(rng: np.random.Generator, minor: bool) -> dict[str, tuple[str, ...]]:
    pool = _MINOR_PROGRESSIONS if minor else _MAJOR_PROGRESSIONS
    bridges = _MINOR_BRIDGES if minor else _MAJOR_BRIDGES
    verse, chorus = rng.choice(len(pool), size=2, replace=False)
    return {"verse": pool[verse], "chorus": pool[chorus],
            "bridge": bridges[int(rng.integers(len(bridges)))]}


def _cadence(rng: np.random.Generator, minor: bool, feel: str) -> tuple[tuple[str, str], str]:
    """The two bars before the final chord, and the final chord (V-I or IV-I style)."""
    if minor:
        return ("iv", "V"), ("I" if rng.random() < 0.5 else "i")
    if feel == "gentle":
        return ("IV", "iv"), "I"
    return (("IV", "V") if rng.random() < 0.6 else ("ii", "V")), "I"


def _chord_sequence(rng: np.random.Generator, minor: bool, feel: str,
                    form: tuple[tuple[str, int, int], ...], n_bars: int) -> tuple[Chord, ...]:
    """One chord per bar plus the final chord (index ``n_bars``)."""
    table = _MINOR_CHORDS if minor else _MAJOR_CHORDS
    progressions = _progressions(rng, minor)
    (cad1, cad2), final = _cadence(rng, minor, feel)
    color = rng.random() < (0.3 if feel == "bright" else 0.7)
    names: list[str] = []
    for name, start, bars in form:
        if name == "ending":
            cadence = (*progressions["chorus"][:MAX_CADENCE_BARS - 2], cad1, cad2)
            names += [*cadence[len(cadence) - (n_bars - start):], final]
            continue
        prog = progressions.get(name, progressions["verse"])
        names += [prog[i % 4] for i in range(bars)]
    chords = [table[n] for n in names]
    if color:
        chords = [Chord(c.name, c.root, c.alter, _COLOR_ADDS.get(c.name)) for c in chords]
    return tuple(chords)


_RHYTHMS = (
    ((0, 1), (1, 0.5), (1.5, 0.5), (2, 2), (4, 1), (5, 1), (6, 2)),
    ((0, 1.5), (1.5, 0.5), (2, 1), (3, 1), (4, 3)),
    ((0.5, 0.5), (1, 1), (2, 1), (3, 1), (4, 1.5), (5.5, 0.5), (6, 2)),
    ((0, 0.5), (0.5, 0.5), (1, 1), (2, 2), (4, 0.5), (4.5, 0.5), (5, 1), (6, 2)),
    ((0, 1), (1, 1), (2, 1.5), (3.5, 0.5), (4, 4)),
    ((0, 0.5), (0.5, 1), (1.5, 0.5), (2, 1.5), (3.5, 0.5), (4, 2), (6, 1), (7, 1)),
)
_GENTLE_RHYTHMS = (
    ((0, 2), (2, 1), (3, 1), (4, 4)),
    ((0, 1), (1, 1), (2, 2), (4, 3), (7, 1)),
    ((0, 1.5), (1.5, 0.5), (2, 2), (4, 2), (6, 2)),
    ((0, 3), (3, 1), (4, 2), (6, 2)),
)


def _contour(rng: np.random.Generator, notes: int, head: tuple[int, ...] = ()) -> tuple[int, ...]:
    """Scale-degree offsets: an arch (up then down) of mostly steps, keeping ``head``."""
    for _ in range(20):
        values = list(head[:notes]) or [0]
        while len(values) < notes:
            rising = len(values) < notes / 2
            steps = (1, 2, -1, 0, 3, -2) if rising else (-1, -2, 1, 0, -3, 2)
            step = steps[int(rng.choice(6, p=(0.4, 0.22, 0.2, 0.04, 0.08, 0.06)))]
            values.append(max(-3, min(4, values[-1] + step)))
        if max(values) - min(values) >= 2 and len(set(values)) >= min(3, notes):
            break
    return tuple(values)


def _motifs(rng: np.random.Generator, feel: str) -> tuple[Motif, Motif]:
    """The verse motif and the chorus motif, which keeps the verse motif's head."""
    pool = _GENTLE_RHYTHMS if feel == "gentle" else _RHYTHMS
    verse_r, chorus_r = rng.choice(len(pool), size=2, replace=False)
    verse = Motif(pool[verse_r], _contour(rng, len(pool[verse_r])))
    head = verse.contour[:3]
    chorus = Motif(pool[chorus_r], _contour(rng, len(pool[chorus_r]), head))
    return verse, chorus


def _pick(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


_ANSWERS = ("sequence", "answer", "echo")


def plan_song(brief: SongBrief, seed: int, variant: int = 0) -> SongPlan:
    """Decide tempo (bpm), key, form, harmony, motifs and instruments for a brief and seed.

    ``variant`` 0 is the default arrangement; other variants move to the feel's next palette
    (other instruments and playing style) and phrase answer, and redraw progressions and
    motifs."""
    length = float(brief.length_sec)
    if not math.isfinite(length) or not MIN_LENGTH_S <= length <= MAX_LENGTH_S:
        raise ValueError(f"song length must be {MIN_LENGTH_S}..{MAX_LENGTH_S} s, got {length}")
    rng = np.random.default_rng(seed)
    feel = _feel(brief)
    energy, brightness = _energy(brief, feel), _brightness(brief, feel)
    low, high = _TEMPO_RANGE[feel]
    preferred = low + (high - low) * (0.2 + 0.6 * energy) + rng.uniform(-2.0, 2.0)
    tempo, n_bars, tail = _fit_tempo(length, feel, preferred)
    minor = bool(rng.random() < _minor_odds(brief))
    tonics = _MINOR_TONICS if minor else _MAJOR_TONICS
    tonic = tonics[int(rng.integers(len(tonics)))]
    form = _form(n_bars, BEATS_PER_BAR * 60.0 / tempo, brief)
    chords = _chord_sequence(rng, minor, feel, form, n_bars)
    verse_motif, chorus_motif = _motifs(rng, feel)
    palette = int(rng.integers(len(PALETTES[feel])))
    plan = SongPlan(
        seed=seed, length_sec=length, feel=feel, energy=energy, brightness=brightness,
        social=brief.style.lower() == "social", tempo_bpm=tempo, tonic_pc=tonic, minor=minor,
        n_bars=n_bars, tail_s=tail, form=form, chords=chords, verse_motif=verse_motif,
        chorus_motif=chorus_motif, answer=_pick(rng, _ANSWERS),
        palette=palette,
    )
    return plan if variant == 0 else _vary(plan, variant)


def _vary(plan: SongPlan, variant: int) -> SongPlan:
    """Arrangement ``variant`` of a plan: same tempo, key and form; the palette and the phrase
    answer move ``variant`` places on; progressions and motifs are
    drawn again from a variant stream."""
    rng = np.random.default_rng([plan.seed, 6, variant])
    palette = (plan.palette + variant) % len(PALETTES[plan.feel])
    answer = _ANSWERS[(_ANSWERS.index(plan.answer) + variant) % len(_ANSWERS)]
    chords = _chord_sequence(rng, plan.minor, plan.feel, plan.form, plan.n_bars)
    verse_motif, chorus_motif = _motifs(rng, plan.feel)
    return replace(plan, palette=palette, answer=answer, chords=chords,
                   verse_motif=verse_motif, chorus_motif=chorus_motif)


# --------------------------------------------------------------------------- lyrics
