"""Harmony voicings and the lead melody of a planned song, in MIDI notes.

The melody is built in scale degrees from the plan's motifs (verse motif in verses, its chorus
variant with the same head in choruses, augmented in bridges, ornamented on repeats), kept
consonant with each bar's chord and inside a singable range (MIDI 65..86), then spelled in MIDI.
Voicings are four-note chords voice-led from bar to bar.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product

import numpy as np

from media.song.plan import BEATS_PER_BAR, Chord, Motif, SongPlan


def _semitones(scale: tuple[int, ...], degree: int, alter: tuple[tuple[int, int], ...]) -> int:
    octave, step = divmod(degree, 7)
    return 12 * octave + scale[step] + dict(alter).get(step, 0)


def _chord_classes(plan: SongPlan, chord: Chord) -> tuple[int, ...]:
    return tuple((plan.tonic_pc + _semitones(plan.scale, d, chord.alter)) % 12
                 for d in chord.degrees())


def _voice_cost(voicing: tuple[int, ...], prev: tuple[int, ...] | None) -> float:
    span = voicing[-1] - voicing[0]
    shape = (4.0 if span < 7 else 0.0) + (3.0 if voicing[1] - voicing[0] < 3 else 0.0)
    if prev is None:
        return shape + abs(sum(voicing) / len(voicing) - 61.0)
    if len(prev) == len(voicing):
        return shape + sum(abs(a - b) for a, b in zip(voicing, prev, strict=True))
    return shape + sum(min(abs(a - b) for b in prev) for a in voicing)


def _voicing(classes: tuple[int, ...], prev: tuple[int, ...] | None,
             low: int = 50, high: int = 72) -> tuple[int, ...]:
    """The closest voicing of the pitch classes (MIDI notes in [low, high]) to ``prev``."""
    options = [[m for m in range(low, high + 1) if m % 12 == pc] for pc in classes]
    best: tuple[float, tuple[int, ...]] | None = None
    for combo in product(*options):
        voicing = tuple(sorted(combo))
        if voicing[-1] - voicing[0] > 14:
            continue
        cost = _voice_cost(voicing, prev)
        if best is None or cost < best[0]:
            best = (cost, voicing)
    assert best is not None
    return best[1]


def voicings(plan: SongPlan) -> list[tuple[int, ...]]:
    """Voice-led pad/keys voicings, one per chord."""
    out: list[tuple[int, ...]] = []
    for chord in plan.chords:
        out.append(_voicing(_chord_classes(plan, chord), out[-1] if out else None))
    return out


def bass_root(plan: SongPlan, chord: Chord) -> int:
    pc = (plan.tonic_pc + _semitones(plan.scale, chord.root, chord.alter)) % 12
    return 36 + (pc - 36) % 12


def _nearest_tone(degree: int, chord: Chord, direction: int = 0) -> int:
    """The chord tone nearest ``degree``; ties go the way the melody is moving (else down)."""
    tones = chord.triad_classes()
    candidates = [degree + k for k in range(-3, 4) if (degree + k) % 7 in tones]
    return min(candidates, key=lambda d: (abs(d - degree), (degree - d) * (direction or -1)))


_MELODY_MIDI = (65, 86)
_CENTER_MIDI = {"verse": 73, "chorus": 77, "bridge": 72, "ending": 73}


@dataclass(frozen=True)
class _Register:
    """Where the melody sits: MIDI note of scale degree 0, the allowed degree window, and the
    degree each section's phrases are anchored near."""

    root: int
    low: int
    high: int
    centers: dict[str, int]


def _register(plan: SongPlan) -> _Register:
    root = 60 + plan.tonic_pc
    degrees = range(-10, 22)
    midi = {d: root + _semitones(plan.scale, d, ()) for d in degrees}
    low = min(d for d in degrees if midi[d] >= _MELODY_MIDI[0])
    high = max(d for d in degrees if midi[d] <= _MELODY_MIDI[1])
    centers = {name: min(degrees, key=lambda d, m=target: abs(midi[d] - m))
               for name, target in _CENTER_MIDI.items()}
    return _Register(root, low, high, centers)


def _fold(degree: int, reg: _Register) -> int:
    """Bring a stray note back into range by thirds (a small leap, not an octave)."""
    while degree > reg.high:
        degree -= 2
    while degree < reg.low:
        degree += 2
    return degree


@dataclass(frozen=True)
class _MelodyNote:
    beat: float
    beats: float
    degree: int
    chord: Chord
    vel: float


def _half(motif: Motif, contour: tuple[int, ...], bar0: int, limit_bars: int, center: int,
          chord_at: Callable[[int], Chord]) -> list[_MelodyNote]:
    """One two-bar statement of a rhythm/contour starting at ``bar0``."""
    anchor = _nearest_tone(center, chord_at(bar0))
    notes: list[_MelodyNote] = []
    previous = contour[0]
    for (onset, beats), step in zip(motif.rhythm, contour, strict=False):
        bar = bar0 + int(onset // BEATS_PER_BAR)
        if bar >= bar0 + limit_bars:
            break
        chord = chord_at(bar)
        degree = anchor + step
        if onset % 2 == 0 or beats >= 1.5:
            degree = _nearest_tone(degree, chord, int(np.sign(step - previous)))
        previous = step
        vel = 0.85 if onset % BEATS_PER_BAR == 0 else 0.72
        notes.append(_MelodyNote(bar0 * BEATS_PER_BAR + onset, beats, degree, chord, vel))
    return notes


def _answer_contour(motif: Motif, kind: str) -> tuple[int, ...]:
    if kind == "answer":
        return tuple(-c for c in motif.contour)
    if kind == "echo":
        return motif.contour[: max(1, len(motif.contour) // 2)] + (0,) * len(motif.contour)
    return motif.contour


def _phrase_notes(motif: Motif, answer: str, bar0: int, bars: int, center: int,
                  chord_at: Callable[[int], Chord], reg: _Register) -> list[_MelodyNote]:
    """A phrase of up to 4 bars: the motif, then its answer; the last note is held."""
    notes = _half(motif, motif.contour, bar0, min(2, bars), center, chord_at)
    if bars > 2:
        notes += _half(motif, _answer_contour(motif, answer), bar0 + 2, bars - 2, center + 1,
                       chord_at)
    if notes:
        last = notes[-1]
        bar_end = (math.floor(last.beat / BEATS_PER_BAR) + 1) * BEATS_PER_BAR
        held = max(last.beats, bar_end - last.beat - 0.5)
        settle = _nearest_tone((last.degree + center) // 2, last.chord)
        notes[-1] = _MelodyNote(last.beat, held, settle, last.chord, last.vel)
    return _fit_range(notes, reg, center)


def _fit_range(notes: list[_MelodyNote], reg: _Register, center: int) -> list[_MelodyNote]:
    """Move a whole phrase by an octave if that fits the melody range better (no octave
    jumps inside a phrase); notes still outside are folded back by thirds."""
    if not notes:
        return notes
    degrees = [n.degree for n in notes]

    def badness(shift: int) -> float:
        outside = sum(1 for d in degrees if not reg.low <= d + shift <= reg.high)
        return outside + abs(sum(degrees) / len(degrees) + shift - center) / 1.5

    shift = min((0, -7, 7), key=badness)
    return [_MelodyNote(n.beat, n.beats, _fold(n.degree + shift, reg), n.chord, n.vel)
            for n in notes]


def _ornament(notes: list[_MelodyNote], rng: np.random.Generator,
              reg: _Register) -> list[_MelodyNote]:
    """Vary a repeat: split one long-ish note into two with a neighbour tone."""
    candidates = [i for i, n in enumerate(notes[:-1]) if n.beats >= 1.0]
    if not candidates:
        return notes
    i = candidates[int(rng.integers(len(candidates)))]
    note, half = notes[i], notes[i].beats / 2
    step = 1 if rng.random() < 0.5 else -1
    if not reg.low <= note.degree + step <= reg.high:
        step = -step
    split = [_MelodyNote(note.beat, half, note.degree, note.chord, note.vel),
             _MelodyNote(note.beat + half, half, _fold(note.degree + step, reg), note.chord,
                         0.68)]
    return notes[:i] + split + notes[i + 1:]


def _augment(motif: Motif) -> Motif:
    return Motif(tuple((o * 2, d * 2) for o, d in motif.rhythm if o < 4), motif.contour)


def _section_melody(plan: SongPlan, name: str, start: int, bars: int, occurrence: int,
                    rng: np.random.Generator, reg: _Register) -> list[_MelodyNote]:
    """The melody of one section, in scale degrees: the verse motif in verses, its chorus
    variant (same head) in choruses, augmented in bridges; ornamented on repeats."""
    def chord_at(bar: int) -> Chord:
        return plan.chords[min(bar, plan.n_bars)]

    if name == "intro":
        return []
    if name == "bridge":
        return _phrase_notes(_augment(plan.verse_motif), "sequence", start, bars,
                             reg.centers["bridge"], chord_at, reg)
    motif = plan.chorus_motif if name == "chorus" else plan.verse_motif
    center = reg.centers[name] + (1 if occurrence >= 2 else 0)
    notes: list[_MelodyNote] = []
    cadence_bars = bars - 1 if name == "ending" else bars
    for offset in range(0, cadence_bars, 4):
        phrase = _phrase_notes(motif, plan.answer, start + offset,
                               min(4, cadence_bars - offset), center, chord_at, reg)
        notes += _ornament(phrase, rng, reg) if occurrence or offset else phrase
    if name == "ending":
        last = notes[-1].degree if notes else reg.centers["ending"]
        tonic = min(range(reg.low, reg.high + 1, 1), key=lambda d: (d % 7 != 0, abs(d - last)))
        notes.append(_MelodyNote(plan.n_bars * BEATS_PER_BAR, 0.0, tonic,
                                 plan.chords[plan.n_bars], 0.8))
    return notes




# --------------------------------------------------------------------------- notes


@dataclass(frozen=True)
class Note:
    """One note or drum hit: the part that plays it (``lead``, ``keys``, ``drums``...), start
    and held time (seconds), MIDI key and MIDI velocity (1..127)."""

    part: str
    start: float
    dur: float
    key: int
    velocity: int


SECTION_LEVEL = {"intro": 0.9, "verse": 0.85, "chorus": 1.0, "bridge": 0.8, "ending": 0.95}
"""How hard each section plays (scales velocities)."""


def velocity(value: float) -> int:
    """A 0..1 loudness as a MIDI velocity 1..127."""
    return max(1, min(127, round(value * 127)))


def melody_notes(plan: SongPlan, rng: np.random.Generator) -> list[Note]:
    """The lead line as notes on the ``lead`` part, with the ``double`` part an octave up (or
    in unison when that would be too high) in the choruses and on the final note."""
    reg = _register(plan)
    notes: list[Note] = []
    counts: dict[str, int] = {}
    for name, start, bars in plan.form:
        occurrence = counts.get(name, 0)
        counts[name] = occurrence + 1
        for note in _section_melody(plan, name, start, bars, occurrence, rng, reg):
            midi = reg.root + _semitones(plan.scale, note.degree, note.chord.alter)
            held = note.beats * plan.beat_s if note.beats else plan.tail_s * 0.55
            vel = note.vel * SECTION_LEVEL[name] * float(rng.uniform(0.94, 1.04))
            t = note.beat * plan.beat_s
            notes.append(Note("lead", t, max(0.08, held - 0.03), midi, velocity(vel)))
            if name == "chorus" or (name == "ending" and note.beats == 0.0):
                octave = 12 if midi + 12 <= 96 else 0
                notes.append(Note("double", t, held, midi + octave, velocity(vel * 0.85)))
    return notes
