"""Every note of a planned song, per part: the accompaniment the plan's palette calls for (the
keys in the palette's registered style, :data:`KEYS_STYLES`: comping, a guitar strum or broken
chords; sustained pad; bass line; chorus arpeggio), the drum kit's hits for pop and acoustic
feels, the lead melody and the final chord.

Notes are :class:`media.song.melody.Note` (seconds, MIDI key and velocity); the renderer
(:mod:`media.song.synth`) maps parts to the palette's General MIDI instruments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from media.song.melody import (
    SECTION_LEVEL,
    Note,
    bass_root,
    melody_notes,
    velocity,
    voicings,
)
from media.song.plan import BEATS_PER_BAR, SongPlan

DRUM_KEYS = {"kick": 36, "rim": 37, "snare": 38, "clap": 39, "hat": 42, "ohat": 46,
             "crash": 49, "shaker": 70, "ride": 51}
"""General MIDI percussion keys (channel 10) of the drums the arrangement uses."""

_COMP_PATTERNS = {
    "bright": (((0, 1.5), (1.5, 1.0), (3, 1.0)), ((0, 1.0), (1.5, 0.5), (2, 1.5), (3.5, 0.5))),
    "warm": (((0, 2.0), (2, 1.5), (3.5, 0.5)), ((0, 1.5), (1.5, 2.5))),
}
_STRUM = ((0, 1.0, 1), (1, 0.5, 1), (1.5, 0.5, -1), (2.5, 0.5, -1), (3, 0.5, 1), (3.5, 0.5, -1))
"""A folk-pop strum: (beat, beats held, direction 1 down / -1 up)."""
_BASS_PATTERNS = {
    "bright": ((0, 0.9, 0), (1.5, 0.45, 0), (2, 0.9, 7), (3, 0.45, 0), (3.5, 0.45, 12)),
    "warm": ((0, 1.85, 0), (2, 1.4, 7), (3.5, 0.45, 0)),
    "gentle": ((0, 1.9, 0), (2, 1.9, 7)),
    "sparse": ((0, 3.8, 0),),
}
_DRUM_LEVELS = {
    "bright": {"intro": 1, "verse": 2, "chorus": 3, "bridge": 1, "ending": 2},
    "warm": {"intro": 0, "verse": 1, "chorus": 2, "bridge": 1, "ending": 1},
}


@dataclass(frozen=True)
class KeysBar:
    """One bar of the keys part as a voicing plays it: the section's ``name`` (``intro``,
    ``verse``...), the bar's chord ``voicing`` (MIDI keys), when it starts (``t0``, seconds)
    and the section's ``level`` (0-1, :data:`media.song.melody.SECTION_LEVEL`)."""

    name: str
    voicing: tuple[int, ...]
    t0: float
    level: float


KeysStyle = Callable[[SongPlan, KeysBar], list[Note]]
KEYS_STYLES: dict[str, KeysStyle] = {}
"""How the keys play, by the name a palette gives (:attr:`media.song.palettes.Palette.keys_style`):
one function per style, writing one bar's notes. A new arrangement is a palette in
:mod:`media.song.palettes` and, when it plays the keys in a new way, its voicing here."""


def keys_style(name: str) -> Callable[[KeysStyle], KeysStyle]:
    """Register the decorated function as the keys style ``name``."""
    def register(voicing: KeysStyle) -> KeysStyle:
        KEYS_STYLES[name] = voicing
        return voicing
    return register


def _keys_notes(plan: SongPlan, chords: list[tuple[int, ...]]) -> list[Note]:
    """The keys part, bar by bar, as the palette's keys style plays it."""
    style = KEYS_STYLES[plan.arrangement.keys_style]
    notes: list[Note] = []
    for bar in range(plan.n_bars):
        name = plan.section_at(bar)[0]
        notes += style(plan, KeysBar(name, chords[bar], bar * plan.bar_s, SECTION_LEVEL[name]))
    return notes


@keys_style("comp")
def _comp(plan: SongPlan, bar: KeysBar) -> list[Note]:
    """Block chords on the feel's comping rhythm (one of two, by the seed; the intro's first)."""
    hits = _COMP_PATTERNS["warm" if plan.feel == "gentle" else plan.feel]
    notes: list[Note] = []
    for onset, beats in hits[plan.seed % 2 if bar.name != "intro" else 0]:
        accent = 1.0 if onset % 2 == 0 else 0.85
        notes += [Note("keys", bar.t0 + onset * plan.beat_s, beats * plan.beat_s, m,
                       velocity(0.62 * accent * bar.level)) for m in bar.voicing]
    return notes


@keys_style("strum")
def _strum(plan: SongPlan, bar: KeysBar) -> list[Note]:
    """A guitar strum: six strings (the chord over its root) swept 12 ms apart, softer in the
    intro."""
    level = bar.level * (0.8 if bar.name == "intro" else 1.0)
    strings = sorted({bar.voicing[0] - 12, *bar.voicing, bar.voicing[1] + 12})
    notes = []
    for onset, beats, direction in _STRUM:
        order = strings if direction > 0 else strings[::-1]
        vel = (0.7 if onset % 1 == 0 else 0.55) * level
        for i, midi in enumerate(order):
            notes.append(Note("keys", bar.t0 + onset * plan.beat_s + 0.012 * i,
                              beats * plan.beat_s, midi, velocity(vel * (0.9 + 0.1 * direction))))
    return notes


@keys_style("broken")
def _broken_chord(plan: SongPlan, bar: KeysBar) -> list[Note]:
    """Pedalled broken chord in eighths (piano, harp or fingerpicked guitar)."""
    notes = [bar.voicing[0] - 12, *bar.voicing, bar.voicing[1] + 12]
    order = (0, 2, 1, 3, 4, 3, 2, 1) if len(notes) > 4 else (0, 1, 2, 3, 2, 1, 2, 3)
    out = []
    for step, index in enumerate(order):
        onset = step * 0.5 * plan.beat_s
        vel = (0.75 if step % 2 == 0 else 0.38) * bar.level
        out.append(Note("keys", bar.t0 + onset, plan.bar_s - onset, notes[index % len(notes)],
                        velocity(vel)))
    return out


def _pad_notes(plan: SongPlan, chords: list[tuple[int, ...]]) -> list[Note]:
    """Sustained chords, one per bar (held across repeated chords)."""
    notes = []
    for bar in range(plan.n_bars):
        level = SECTION_LEVEL[plan.section_at(bar)[0]]
        notes += [Note("pad", bar * plan.bar_s, plan.bar_s, m, velocity(0.7 * level))
                  for m in chords[bar]]
    return notes


def _bass_notes(plan: SongPlan) -> list[Note]:
    notes = []
    for bar in range(plan.n_bars):
        name, index, bars, _ = plan.section_at(bar)
        if name == "intro" and not (bars >= 2 and index >= bars // 2):
            continue
        pattern = _BASS_PATTERNS["sparse" if name in ("bridge", "intro") else plan.feel]
        root = bass_root(plan, plan.chords[bar])
        for onset, beats, interval in pattern:
            vel = (0.9 if onset == 0 else 0.75) * SECTION_LEVEL[name]
            notes.append(Note("bass", (bar * 4 + onset) * plan.beat_s, beats * plan.beat_s,
                              root + interval, velocity(vel)))
    return notes


def _arp_notes(plan: SongPlan, chords: list[tuple[int, ...]]) -> list[Note]:
    """An arpeggio an octave up that lifts the choruses (and a bright intro)."""
    notes = []
    for bar in range(plan.n_bars):
        name = plan.section_at(bar)[0]
        if name not in ("chorus", "intro") or (name == "intro" and plan.feel != "bright"):
            continue
        keys = sorted(m + 12 for m in chords[bar])
        step = 0.25 if plan.feel == "bright" and plan.social and name == "chorus" else 0.5
        order = (0, 1, 2, 1, 3, 2, 1, 2)
        for i in range(int(BEATS_PER_BAR / step)):
            onset = i * step
            vel = (0.75 if onset % 1 == 0 else 0.58) * (0.7 if name == "intro" else 1.0)
            notes.append(Note("arp", (bar * 4 + onset) * plan.beat_s, step * plan.beat_s * 1.5,
                              keys[order[i % 8] % len(keys)], velocity(vel)))
    return notes


def _drum_bar(level: int, social: bool, fill: bool) -> list[tuple[float, str, float]]:
    """Hits of one bar as (beat, drum, velocity 0..1) for an intensity level 0..3."""
    if level <= 0:
        return []
    hits: list[tuple[float, str, float]] = [(0, "kick", 0.95), (2, "kick", 0.8)]
    if level == 1:
        hits += [(1, "rim", 0.6), (3, "rim", 0.6)]
        hits += [(i / 2, "shaker", 0.55 if i % 2 else 0.4) for i in range(8)]
    else:
        hits += [(1, "snare", 0.8), (3, "snare", 0.85)]
        step = 0.25 if (level == 3 and social) else 0.5
        hits += [(i * step, "hat", 0.62 if (i * step) % 1 else 0.45)
                 for i in range(int(4 / step))]
    if level == 3:
        hits += [(1, "clap", 0.55), (3, "clap", 0.6), (2.5, "kick", 0.6)]
    if fill:
        hits += [(3.5, "snare", 0.6), (3.75, "snare", 0.75)]
    return hits


def _drum_notes(plan: SongPlan, rng: np.random.Generator) -> list[Note]:
    """The kit's hits, bar by bar; a crash opens each chorus and ends the song."""
    if not plan.drums:
        return []
    levels = _DRUM_LEVELS[plan.feel]
    adjust = (1 if plan.energy > 0.82 else 0) - (1 if plan.energy < 0.3 else 0)
    notes = []
    for bar in range(plan.n_bars):
        name, index, bars, _ = plan.section_at(bar)
        social = 1 if plan.social and name == "verse" else 0
        level = min(3, max(0, levels[name] + adjust + social))
        fill = index == bars - 1 and plan.section_at(bar + 1)[0] == "chorus" and level > 0
        if index == 0 and name == "chorus" and level >= 2:
            notes.append(_hit("crash", bar * plan.bar_s, 0.75, rng))
        for beat, drum, vel in _drum_bar(level, plan.social, fill):
            notes.append(_hit(drum, (bar * 4 + beat) * plan.beat_s, vel, rng))
    final = plan.n_bars * plan.bar_s
    return [*notes, _hit("kick", final, 0.85, rng), _hit("crash", final, 0.8, rng)]


def _hit(drum: str, t: float, vel: float, rng: np.random.Generator) -> Note:
    return Note("drums", t, 0.25, DRUM_KEYS[drum], velocity(vel * float(rng.uniform(0.9, 1.05))))


def _final_notes(plan: SongPlan, chords: list[tuple[int, ...]]) -> list[Note]:
    """The final tonic chord on the last downbeat, left to ring to the end of the song."""
    t, tail = plan.n_bars * plan.bar_s, plan.tail_s
    voicing = chords[plan.n_bars]
    notes = [Note("pad", t, tail * 0.8, m, 80) for m in voicing]
    notes += [Note("keys", t, tail * 0.8, m, 80) for m in (voicing[0] - 12, *voicing)]
    notes.append(Note("bass", t, tail * 0.6, bass_root(plan, plan.chords[plan.n_bars]), 96))
    notes += [Note("arp", t + i * 0.06, tail * 0.7, m, 70)
              for i, m in enumerate(sorted(m + 12 for m in voicing))]
    return notes


def arrange(plan: SongPlan) -> list[Note]:
    """Every note and hit of the song (melody first: it draws first from the random stream)."""
    rng = np.random.default_rng([plan.seed, 1])
    chords = voicings(plan)
    melody = melody_notes(plan, rng)
    return (melody + _pad_notes(plan, chords) + _keys_notes(plan, chords) + _bass_notes(plan)
            + _arp_notes(plan, chords) + _drum_notes(plan, rng) + _final_notes(plan, chords))


def melody_line(plan: SongPlan) -> tuple[float, ...]:
    """MIDI keys of the lead melody's notes in order (the notes :func:`arrange` plays)."""
    notes = melody_notes(plan, np.random.default_rng([plan.seed, 1]))
    return tuple(float(n.key) for n in notes if n.part == "lead")
