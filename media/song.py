"""An original instrumental song composed from an order's brief, synthesized in numpy.

Pipeline: ``plan_song`` (tempo, key, form and harmony decided from the brief and a seed) ->
``_arrange`` (voice-led chords, a bass line, a melody built from a recurring motif, drums) ->
``_render`` (FM electric piano, Karplus-Strong pluck, music-box bell, breathy flute, detuned
wavetable pad, saturated sine bass, sine/noise drums) -> mix (pan, algorithmic reverb, gentle
compression, fade-in, designed ending) -> master (-14 LUFS integrated, true peak below -1 dBTP
with a look-ahead limiter on 4x oversampled peaks).

Time grid: 4/4, the first beat is at 0.0 s (no pickup). The song is ``n_bars`` whole bars and
then the final tonic chord, which lands on the downbeat of bar ``n_bars`` and rings and decays
to silence at exactly ``length_sec``. The tempo is chosen inside the tone's range so that this
fits exactly.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata
import wave
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path

import numpy as np
import pyloudnorm as pyln
from scipy import signal
from scipy.ndimage import minimum_filter1d, uniform_filter1d

from media.spec import (
    AAC_OVERSHOOT_HEADROOM_DB,
    AUDIO_SAMPLE_RATE,
    MAX_TRUE_PEAK_DBTP,
    TARGET_LUFS,
)

BEATS_PER_BAR = 4
MIN_LENGTH_S = 8.0
MAX_LENGTH_S = 600.0
FADE_IN_S = 0.6
MASTER_TRUE_PEAK_DBTP = MAX_TRUE_PEAK_DBTP - AAC_OVERSHOOT_HEADROOM_DB
LIMITER_CEILING_DBTP = MASTER_TRUE_PEAK_DBTP - 0.5
TRUE_PEAK_OVERSAMPLING = 4

_TEMPO_RANGE = {"gentle": (60.0, 76.0), "warm": (80.0, 96.0), "bright": (100.0, 124.0)}
_TAIL_S = {"gentle": 4.5, "warm": 3.6, "bright": 3.0}
_REVERB_S = {"gentle": 2.6, "warm": 2.0, "bright": 1.6}
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
_BRIGHT_TIMBRE_WORDS = ("bright", "sparkl", "sunny", "fresh", "light", "shine", "glow", "fun")
_DARK_TIMBRE_WORDS = ("cozy", "cosy", "deep", "soft", "warm", "dark", "velvet", "quiet")


# --------------------------------------------------------------------------- public types


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


@dataclass(frozen=True)
class ComposedSong:
    """A mastered song with its musical facts. Times are seconds, loudness LUFS / dBTP."""

    audio: np.ndarray
    sample_rate: int
    tempo_bpm: float
    key: str
    beat_times: list[float]
    bar_times: list[float]
    sections: list[tuple[str, float, float]]
    lyrics: list[str]
    integrated_lufs: float
    true_peak_dbtp: float
    melody: tuple[float, ...] = ()
    """MIDI pitches of the lead melody in order (empty when not known, e.g. a provider's song)."""


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
    lead: str
    arp: str | None
    drums: bool
    reverb_s: float

    @property
    def beat_s(self) -> float:
        """Seconds per beat."""
        return 60.0 / self.tempo_bpm

    @property
    def bar_s(self) -> float:
        """Seconds per 4/4 bar."""
        return BEATS_PER_BAR * self.beat_s

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


def _form(n_bars: int) -> tuple[tuple[str, int, int], ...]:
    """Sections as (name, start bar, bars); the ending holds the cadence and the final chord."""
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
            names += [*[cad1, cad2][2 - (n_bars - start):], final]
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


_LEADS = {"bright": ("pluck", "bell", "epiano"), "warm": ("flute", "epiano", "bell"),
          "gentle": ("flute", "bell", "epiano")}
_ANSWERS = ("sequence", "answer", "echo")


def plan_song(brief: SongBrief, seed: int, variant: int = 0) -> SongPlan:
    """Decide tempo (bpm), key, form, harmony, motifs and instruments for a brief and seed.

    ``variant`` 0 is the default arrangement; other variants rotate the instrument palette
    (lead and arpeggio) and the phrase answer, and redraw the progressions and motifs."""
    length = float(brief.length_sec)
    if not math.isfinite(length) or not MIN_LENGTH_S <= length <= MAX_LENGTH_S:
        raise ValueError(f"song length must be {MIN_LENGTH_S}..{MAX_LENGTH_S} s, got {length}")
    rng = np.random.default_rng(seed)
    feel = _feel(brief)
    energy, brightness = _energy(brief, feel), _brightness(brief, feel)
    low, high = _TEMPO_RANGE[feel]
    preferred = low + (high - low) * (0.2 + 0.6 * energy) + rng.uniform(-2.0, 2.0)
    tempo, n_bars, tail = _fit_tempo(length, feel, preferred)
    minor_odds = {"gentle": 0.4, "warm": 0.15 if energy < 0.45 else 0.0, "bright": 0.0}[feel]
    minor = bool(rng.random() < minor_odds)
    tonics = _MINOR_TONICS if minor else _MAJOR_TONICS
    tonic = tonics[int(rng.integers(len(tonics)))]
    form = _form(n_bars)
    chords = _chord_sequence(rng, minor, feel, form, n_bars)
    verse_motif, chorus_motif = _motifs(rng, feel)
    lead = _pick(rng, _LEADS[feel])
    arp = None if feel == "gentle" else ("bell" if lead == "pluck" else "pluck")
    reverb = _REVERB_S[feel] * (0.85 if brief.style.lower() == "brand" else 1.0)
    plan = SongPlan(
        seed=seed, length_sec=length, feel=feel, energy=energy, brightness=brightness,
        social=brief.style.lower() == "social", tempo_bpm=tempo, tonic_pc=tonic, minor=minor,
        n_bars=n_bars, tail_s=tail, form=form, chords=chords, verse_motif=verse_motif,
        chorus_motif=chorus_motif, answer=_pick(rng, _ANSWERS),
        lead=lead, arp=arp, drums=feel != "gentle", reverb_s=reverb,
    )
    return plan if variant == 0 else _vary(plan, variant)


def _vary(plan: SongPlan, variant: int) -> SongPlan:
    """Arrangement ``variant`` of a plan: same tempo, key and form; the lead (and with it the
    arpeggio) and the phrase answer move ``variant`` places on; progressions and motifs are
    drawn again from a variant stream."""
    rng = np.random.default_rng([plan.seed, 6, variant])
    leads = _LEADS[plan.feel]
    lead = leads[(leads.index(plan.lead) + variant) % len(leads)]
    arp = None if plan.arp is None else ("bell" if lead == "pluck" else "pluck")
    answer = _ANSWERS[(_ANSWERS.index(plan.answer) + variant) % len(_ANSWERS)]
    chords = _chord_sequence(rng, plan.minor, plan.feel, plan.form, plan.n_bars)
    verse_motif, chorus_motif = _motifs(rng, plan.feel)
    return replace(plan, lead=lead, arp=arp, answer=answer, chords=chords,
                   verse_motif=verse_motif, chorus_motif=chorus_motif)


# --------------------------------------------------------------------------- lyrics

_SPLIT_SENTENCE = re.compile(r"[.!?;:\n\r。！？；：…]+")
_SPLIT_CLAUSE = re.compile(r"[,，、]+")
_OPENERS = {
    "birthday": "Happy birthday, {name}!", "wedding": "Here's to {name} on your wedding day",
    "anniversary": "Happy anniversary, {name}", "graduation": "Look at you now, {name}",
    "memorial": "For {name}, forever in our hearts",
    "pet-tribute": "For {name}, our faithful friend",
}
_CLOSERS = {
    "birthday": "Here's to another year of you", "wedding": "Two hearts, one road, forever",
    "anniversary": "Still choosing you, year after year",
    "memorial": "Your light still glows in every song we sing",
    "pet-tribute": "Little paws, big heart, forever home",
}


def _clean(text: str, max_chars: int) -> str:
    """Printable text with collapsed whitespace, cut at a word boundary to ``max_chars``."""
    kept = "".join(ch if not unicodedata.category(ch).startswith("C") else " " for ch in text)
    words = kept.split()
    out = ""
    for word in words:
        candidate = f"{out} {word}".strip()
        if len(candidate) > max_chars:
            return out or word[:max_chars]
        out = candidate
    return out


_DANGLING = frozenset({"a", "an", "and", "at", "because", "but", "for", "in", "my", "of", "on",
                       "or", "our", "that", "the", "to", "we", "when", "where", "while", "with"})


def _phrase(text: str) -> str:
    """The first clause of a memory or note, short enough to sing (<= 8 words / 48 chars);
    a cut clause does not end on a dangling word such as "the" or "when"."""
    for sentence in _SPLIT_SENTENCE.split(text or ""):
        clause = _SPLIT_CLAUSE.split(sentence)[0]
        all_words = _clean(clause, 200).split()
        words = _clean(clause, 48).split()[:8]
        while len(words) < len(all_words) and len(words) > 2 and words[-1].lower() in _DANGLING:
            words.pop()
        phrase = " ".join(words).strip(" \"'“”‘’«»()[]-")
        if phrase:
            return _lower_first(phrase)
    return ""


_LOWERABLE = frozenset({"a", "all", "an", "at", "each", "every", "going", "her", "his", "how",
                        "in", "it", "my", "on", "one", "our", "that", "the", "their", "there",
                        "these", "this", "those", "we", "what", "when", "your"})


def _lower_first(phrase: str) -> str:
    """Lower-case a leading common word ("The summer..." -> "the summer..."), not names."""
    first = phrase.split()[0]
    if first.lower() in _LOWERABLE and first[:1].isupper():
        return phrase[:1].lower() + phrase[1:]
    return phrase


def _relationship(text: str) -> str:
    rel = _clean(text, 32)
    lowered = rel.lower()
    for prefix in ("my ", "our ", "the ", "a "):
        if lowered.startswith(prefix):
            return rel[len(prefix):]
    return rel


def write_lyrics(brief: SongBrief) -> list[str]:
    """4-8 short lyric lines from the brief: name, relationship, a memory, feeling words.

    Gentle occasions (memorial, pet tribute) get tender wording. Any Unicode is kept as is;
    empty fields fall back to neutral lines."""
    name = _clean(brief.recipient_name, 40)
    rel = _relationship(brief.relationship)
    memory = _phrase(brief.memory) or _phrase(brief.story_note)
    feelings = [w for w in (_clean(f, 24).lower() for f in brief.feeling_words) if w]
    defaults = ["tender", "loved"] if brief.gentle else ["bright", "golden"]
    first, second = (feelings + defaults)[:2]
    slug = brief.occasion_slug.lower().strip()
    opener = _OPENERS.get(slug, "This song is for {name}").format(name=name or "you")
    if brief.gentle:
        lines = _tender_lines(name, rel, memory, f"{first.capitalize()} and {second}", slug)
    else:
        lines = [f"My {rel}, you mean the world to me"] if rel else []
        lines += [f"Remember {memory}?"] if memory else []
        lines += [f"{first.capitalize()} and {second}, that's what you bring",
                  f"Oh {name}, this one's for you" if name else "Oh, this one's for you",
                  _CLOSERS.get(slug, "Here's to you, today and always")]
    return [opener, *lines][:8]


def _tender_lines(name: str, rel: str, memory: str, feelings: str, slug: str) -> list[str]:
    lines = [f"We still remember {memory}" if memory else "We hold the days you gave us",
             f"{feelings}, the way you made us feel"]
    lines += [f"Our {rel}, we carry you with us"] if rel else []
    lines += [_CLOSERS.get(slug, "Your light still glows in every song we sing"),
              f"Rest easy, {name}, we love you still" if name else "Rest easy, we love you still"]
    return lines


# --------------------------------------------------------------------------- harmony & melody


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


def _voicings(plan: SongPlan) -> list[tuple[int, ...]]:
    """Voice-led pad/keys voicings, one per chord."""
    out: list[tuple[int, ...]] = []
    for chord in plan.chords:
        out.append(_voicing(_chord_classes(plan, chord), out[-1] if out else None))
    return out


def _bass_root(plan: SongPlan, chord: Chord) -> int:
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


# --------------------------------------------------------------------------- arrangement


@dataclass(frozen=True)
class _Event:
    """One note or hit: instrument, start/held seconds, MIDI pitch, velocity, mix settings."""

    kind: str
    start: float
    dur: float
    midi: float
    vel: float
    gain: float
    pan: float = 0.0
    send: float = 0.2


_LEAD_GAIN = {"pluck": 0.75, "bell": 0.45, "epiano": 0.55, "flute": 0.55}
_GAIN = {"pad": 0.041, "keys": 0.19, "keys_gentle": 0.27, "bass": 0.23, "bass_gentle": 0.17,
         "pluck": 0.25, "bell": 0.16}
_DRUM_LEVELS = {
    "bright": {"intro": 0, "verse": 2, "chorus": 3, "bridge": 1, "ending": 2},
    "warm": {"intro": 0, "verse": 1, "chorus": 2, "bridge": 1, "ending": 1},
    "gentle": {"intro": 0, "verse": 0, "chorus": 0, "bridge": 0, "ending": 0},
}
_SECTION_LEVEL = {"intro": 0.9, "verse": 0.85, "chorus": 1.0, "bridge": 0.8, "ending": 0.95}


def _melody_events(plan: SongPlan, rng: np.random.Generator) -> list[_Event]:
    reg = _register(plan)
    events: list[_Event] = []
    counts: dict[str, int] = {}
    for name, start, bars in plan.form:
        occurrence = counts.get(name, 0)
        counts[name] = occurrence + 1
        level = _SECTION_LEVEL[name]
        for note in _section_melody(plan, name, start, bars, occurrence, rng, reg):
            midi = reg.root + _semitones(plan.scale, note.degree, note.chord.alter)
            held = note.beats * plan.beat_s
            if note.beats == 0.0:
                held = plan.tail_s * 0.55
            elif plan.lead == "flute":
                held = max(0.08, held - 0.04)
            vel = note.vel * level * float(rng.uniform(0.94, 1.04))
            t = note.beat * plan.beat_s
            events.append(_Event(plan.lead, t, held, midi, vel, _LEAD_GAIN[plan.lead], 0.0, 0.3))
            if name == "chorus" or (name == "ending" and note.beats == 0.0):
                double = "epiano" if plan.lead == "bell" else "bell"
                octave = 12 if plan.lead != "bell" and midi + 12 <= 88 else 0
                events.append(_Event(double, t, held, midi + octave, vel * 0.8,
                                     _LEAD_GAIN[double] * 0.4, 0.2, 0.4))
    return events


_COMP_PATTERNS = {
    "bright": (((0, 1.5), (1.5, 1.0), (3, 1.0)), ((0, 1.0), (1.5, 0.5), (2, 1.5), (3.5, 0.5))),
    "warm": (((0, 2.0), (2, 1.5), (3.5, 0.5)), ((0, 1.5), (1.5, 2.5))),
}


def _keys_events(plan: SongPlan, voicings: list[tuple[int, ...]]) -> list[_Event]:
    """E-piano: syncopated comping (bright/warm) or pedalled broken chords (gentle)."""
    events: list[_Event] = []
    pattern = 0 if plan.seed % 2 == 0 else 1
    for bar in range(plan.n_bars):
        name, _index, _, _ = plan.section_at(bar)
        level = _SECTION_LEVEL[name]
        t0 = bar * plan.bar_s
        voicing = voicings[bar]
        if plan.feel == "gentle":
            events += _broken_chord(plan, voicing, t0, level)
            continue
        hits = _COMP_PATTERNS[plan.feel][pattern if name != "intro" else 0]
        for onset, beats in hits:
            accent = 1.0 if onset % 2 == 0 else 0.85
            for midi in voicing:
                events.append(_Event("keys", t0 + onset * plan.beat_s, beats * plan.beat_s,
                                     midi, 0.62 * accent * level, _GAIN["keys"], -0.25, 0.25))
    return events


def _broken_chord(plan: SongPlan, voicing: tuple[int, ...], t0: float,
                  level: float) -> list[_Event]:
    notes = [voicing[0] - 12, *voicing, voicing[1] + 12]
    order = (0, 2, 1, 3, 4, 3, 2, 1) if len(notes) > 4 else (0, 1, 2, 3, 2, 1, 2, 3)
    events = []
    for step, index in enumerate(order):
        onset = step * 0.5 * plan.beat_s
        held = plan.bar_s - onset
        vel = (0.58 if step % 2 == 0 else 0.48) * level
        events.append(_Event("keys", t0 + onset, held, notes[index % len(notes)], vel,
                             _GAIN["keys_gentle"],
                             -0.3 + 0.6 * (index / max(1, len(notes) - 1)), 0.35))
    return events


def _pad_events(plan: SongPlan, voicings: list[tuple[int, ...]]) -> list[_Event]:
    events = []
    gain = _GAIN["pad"] * (1.2 if plan.feel == "gentle" else 1.0)
    for bar in range(plan.n_bars):
        name = plan.section_at(bar)[0]
        for midi in voicings[bar]:
            events.append(_Event("pad", bar * plan.bar_s, plan.bar_s, midi,
                                 _SECTION_LEVEL[name], gain, 0.0, 0.45))
    return events


_BASS_PATTERNS = {
    "bright": ((0, 0.9, 0), (1.5, 0.45, 0), (2, 0.9, 7), (3, 0.45, 0), (3.5, 0.45, 12)),
    "warm": ((0, 1.85, 0), (2, 1.4, 7), (3.5, 0.45, 0)),
    "gentle": ((0, 2.9, 0), (3, 0.9, 7)),
    "sparse": ((0, 3.8, 0),),
}


def _bass_gain(plan: SongPlan) -> float:
    return _GAIN["bass_gentle" if plan.feel == "gentle" else "bass"]


def _bass_events(plan: SongPlan) -> list[_Event]:
    events = []
    for bar in range(plan.n_bars):
        name, index, bars, _ = plan.section_at(bar)
        if name == "intro" and not (bars >= 2 and index >= bars // 2):
            continue
        pattern = _BASS_PATTERNS["sparse" if name in ("bridge", "intro") else plan.feel]
        root = _bass_root(plan, plan.chords[bar])
        for onset, beats, interval in pattern:
            vel = (0.9 if onset == 0 else 0.75) * _SECTION_LEVEL[name]
            events.append(_Event("bass", (bar * 4 + onset) * plan.beat_s, beats * plan.beat_s,
                                 root + interval, vel, _bass_gain(plan), 0.0, 0.03))
    return events


def _arp_events(plan: SongPlan, voicings: list[tuple[int, ...]]) -> list[_Event]:
    """A plucked (or music-box) arpeggio that lifts the choruses and a bright intro."""
    if plan.arp is None:
        return []
    events = []
    gain = _GAIN[plan.arp]
    for bar in range(plan.n_bars):
        name = plan.section_at(bar)[0]
        if name not in ("chorus", "intro") or (name == "intro" and plan.feel != "bright"):
            continue
        notes = sorted(m + 12 for m in voicings[bar])
        sixteenths = name == "chorus" and (plan.feel == "bright" or plan.social)
        step = 0.25 if sixteenths else 0.5
        order = (0, 1, 2, 1, 3, 2, 1, 2)
        for i in range(int(BEATS_PER_BAR / step)):
            onset = i * step
            vel = (0.8 if onset % 1 == 0 else 0.6) * (0.7 if name == "intro" else 1.0)
            events.append(_Event(plan.arp, (bar * 4 + onset) * plan.beat_s,
                                 step * plan.beat_s * 1.5, notes[order[i % 8] % len(notes)], vel,
                                 gain, 0.4, 0.35))
    return events


def _drum_bar(level: int, social: bool, fill: bool) -> list[tuple[float, str, float]]:
    """Hits of one bar as (beat, drum, velocity) for an intensity level 0..3."""
    if level <= 0:
        return []
    hits: list[tuple[float, str, float]] = [(0, "kick", 1.0), (2, "kick", 0.85)]
    if level == 1:
        hits += [(1, "rim", 0.6), (3, "rim", 0.6)]
        hits += [(i / 2, "shaker", 0.55 if i % 2 else 0.4) for i in range(8)]
    else:
        hits += [(1, "clap", 0.85), (3, "clap", 0.9)]
        step = 0.25 if (level == 3 and social) else 0.5
        hits += [(i * step, "hat", 0.6 if (i * step) % 1 else 0.42)
                 for i in range(int(4 / step))]
    if level == 3:
        hits += [(1, "kick", 0.8), (3, "kick", 0.8)] + [(b + 0.5, "ohat", 0.35) for b in range(4)]
    if fill:
        hits += [(3.5, "kick", 0.7), (3.5, "clap", 0.5), (3.75, "clap", 0.65)]
    return hits


_DRUM_MIX = {  # drum: (gain, pan, reverb send)
    "kick": (0.44, 0.0, 0.03), "clap": (0.46, -0.1, 0.3), "rim": (0.3, -0.2, 0.25),
    "hat": (0.35, 0.3, 0.08), "ohat": (0.27, 0.3, 0.12), "shaker": (0.25, 0.4, 0.1),
    "crash": (0.125, -0.3, 0.25),
}


def _drum_events(plan: SongPlan, rng: np.random.Generator) -> list[_Event]:
    if not plan.drums:
        return []
    levels = _DRUM_LEVELS[plan.feel]
    adjust = (1 if plan.energy > 0.82 else 0) - (1 if plan.energy < 0.3 else 0)
    events = []
    for bar in range(plan.n_bars):
        name, index, bars, _ = plan.section_at(bar)
        social = 1 if plan.social and name == "verse" else 0
        level = min(3, max(0, levels[name] + adjust + social))
        next_name = plan.section_at(bar + 1)[0]
        fill = index == bars - 1 and next_name == "chorus" and level > 0
        if index == 0 and name == "chorus" and level >= 2:
            events.append(_drum_event("crash", bar * plan.bar_s, 0.8, rng))
        for beat, drum, vel in _drum_bar(level, plan.social, fill):
            events.append(_drum_event(drum, (bar * 4 + beat) * plan.beat_s, vel, rng))
    final = plan.n_bars * plan.bar_s
    events += [_drum_event("kick", final, 0.9, rng), _drum_event("crash", final, 0.9, rng)]
    return events


def _drum_event(drum: str, t: float, vel: float, rng: np.random.Generator) -> _Event:
    gain, pan, send = _DRUM_MIX[drum]
    return _Event(drum, t, 0.0, 0.0, vel * float(rng.uniform(0.92, 1.05)), gain, pan, send)


def _final_events(plan: SongPlan, voicings: list[tuple[int, ...]]) -> list[_Event]:
    """The final tonic chord on the last downbeat, left to ring to the end of the song."""
    t, tail = plan.n_bars * plan.bar_s, plan.tail_s
    chord, voicing = plan.chords[plan.n_bars], voicings[plan.n_bars]
    events = [_Event("pad", t, tail, m, 0.95, _GAIN["pad"], 0.0, 0.5) for m in voicing]
    events += [_Event("keys", t, tail, m, 0.7, _GAIN["keys"], -0.25, 0.35) for m in voicing]
    events.append(_Event("bass", t, tail * 0.6, _bass_root(plan, chord), 0.9, _bass_gain(plan),
                         0.0, 0.03))
    strum = "bell" if plan.feel == "gentle" or plan.arp is None else plan.arp
    for i, midi in enumerate(sorted(m + 12 for m in voicing)):
        events.append(_Event(strum, t + i * 0.06, tail * 0.7, midi, 0.6, _GAIN[strum], 0.35, 0.45))
    return events


def _arrange(plan: SongPlan) -> list[_Event]:
    """Every note and hit of the song."""
    rng = np.random.default_rng([plan.seed, 1])
    voicings = _voicings(plan)
    return (_pad_events(plan, voicings) + _keys_events(plan, voicings) + _bass_events(plan)
            + _arp_events(plan, voicings) + _melody_events(plan, rng)
            + _drum_events(plan, rng) + _final_events(plan, voicings))


# --------------------------------------------------------------------------- synthesis

_TABLE_SIZE = 4096
_VELOCITY_TIMBRES = frozenset({"keys", "epiano", "pluck"})


def _hz(midi: float) -> float:
    return 440.0 * 2.0 ** ((midi - 69.0) / 12.0)


def envelope(n: int, sr: int, attack_s: float, release_s: float, decay_s: float | None = None,
             sustain: float = 1.0) -> np.ndarray:
    """Amplitude envelope of ``n`` samples: starts at 0, optional exponential decay (seconds)
    towards ``sustain``, and a raised-cosine release that ends at exactly 0 (no clicks)."""
    if n <= 0:
        return np.zeros(0)
    t = np.arange(n) / sr
    env = np.ones(n) if decay_s is None else sustain + (1 - sustain) * np.exp(-t / decay_s)
    n_attack = min(n, max(2, int(attack_s * sr)))
    env[:n_attack] *= 0.5 - 0.5 * np.cos(np.pi * np.arange(n_attack) / n_attack)
    n_release = min(n - 1, max(2, int(release_s * sr)))
    env[n - n_release:] *= 0.5 + 0.5 * np.cos(np.pi * np.arange(1, n_release + 1) / n_release)
    return env


def _table(amps: np.ndarray) -> np.ndarray:
    """One cycle (plus a guard sample) with sine partials of the given amplitudes."""
    spectrum = np.zeros(_TABLE_SIZE // 2 + 1, dtype=complex)
    count = min(len(amps), _TABLE_SIZE // 2 - 1)
    spectrum[1:count + 1] = -0.5j * _TABLE_SIZE * amps[:count]
    cycle = np.fft.irfft(spectrum, _TABLE_SIZE)
    return np.append(cycle, cycle[0])


def _osc(table: np.ndarray, freq: float | np.ndarray, n: int, sr: int,
         phase0: float = 0.0) -> np.ndarray:
    """Wavetable oscillator at a fixed or per-sample frequency (Hz), linear interpolation."""
    if np.isscalar(freq):
        phase = phase0 + np.arange(n) * (float(freq) / sr)
    else:
        phase = phase0 + np.concatenate(([0.0], np.cumsum(freq[:-1]))) / sr
    pos = (phase % 1.0) * _TABLE_SIZE
    index = pos.astype(np.int64)
    frac = pos - index
    return table[index] + frac * (table[index + 1] - table[index])


class _Synth:
    """Renders notes of each instrument, caching identical notes (same pitch/length/velocity)."""

    def __init__(self, plan: SongPlan, sr: int) -> None:
        self.plan, self.sr = plan, sr
        self.cache: dict[tuple[str, float, int, int], np.ndarray] = {}
        self.tables: dict[tuple[str, float], np.ndarray] = {}
        self.drums = _drum_kit(sr, np.random.default_rng([plan.seed, 2]))

    def note(self, kind: str, midi: float, n_on: int, vel: float) -> np.ndarray:
        """Unit-level mono (stereo (2, n) for the pad) samples of a note held ``n_on`` samples;
        velocity changes the timbre of the e-piano and pluck only (level is set by the mix)."""
        if kind in self.drums:
            return self.drums[kind]
        timbre = round(vel * 4) if kind in _VELOCITY_TIMBRES else 4
        key = (kind, midi, n_on, timbre)
        if key not in self.cache:
            rng = np.random.default_rng([self.plan.seed, 3, int(midi * 100), n_on])
            render = getattr(self, f"_{kind}")
            self.cache[key] = np.ascontiguousarray(render(_hz(midi), n_on, timbre / 4, rng),
                                                   dtype=np.float32)
        return self.cache[key]

    def _harmonic_table(self, name: str, freq: float, amps: Callable[[np.ndarray], np.ndarray]
                        ) -> np.ndarray:
        key = (name, round(freq, 3))
        if key not in self.tables:
            count = max(1, int(0.45 * self.sr / freq))
            self.tables[key] = _table(amps(np.arange(1, count + 1, dtype=float)))
        return self.tables[key]

    def _pad(self, f: float, n_on: int, vel: float, rng: np.random.Generator) -> np.ndarray:
        cutoff = 900.0 + 2600.0 * self.plan.brightness
        table = self._harmonic_table("pad", f, lambda k: 1.0 / k / (1.0 + (k * f / cutoff) ** 2))
        release = 0.9 if self.plan.feel == "gentle" else 0.6
        n = n_on + int(release * self.sr)
        voices = [_osc(table, f * 2 ** (c / 1200), n, self.sr, float(rng.random()))
                  for c in (-7.0, 0.0, 6.0)]
        attack = 0.6 if self.plan.feel == "gentle" else 0.3
        env = envelope(n, self.sr, attack, release, decay_s=3.0, sustain=0.75)
        left, right = voices[0] + 0.6 * voices[1], voices[2] + 0.6 * voices[1]
        return np.stack([left * env, right * env])

    def _keys(self, f: float, n_on: int, vel: float, rng: np.random.Generator) -> np.ndarray:
        return self._epiano(f, n_on, vel, rng)

    def _epiano(self, f: float, n_on: int, vel: float, rng: np.random.Generator) -> np.ndarray:
        """FM electric piano: 1:1 modulator with a decaying index plus a soft high 'tine'."""
        n = n_on + int(0.12 * self.sr)
        t = np.arange(n) / self.sr
        decay = 1.5 * (261.6 / f) ** 0.4
        amp = envelope(n, self.sr, 0.002, 0.12, decay_s=decay, sustain=0.0)
        index = (0.4 + 1.6 * vel * (0.5 + self.plan.brightness)) * np.exp(-t / 0.3) + 0.2
        w = 2 * np.pi * f * t
        tone = np.sin(w + index * np.sin(w + 0.3))
        if 14 * f < 0.45 * self.sr:
            tine = 0.16 * vel * self.plan.brightness
            tone += tine * np.sin(14 * w) * np.exp(-t / 0.025)
        return tone * amp

    def _bell(self, f: float, n_on: int, vel: float, rng: np.random.Generator) -> np.ndarray:
        """Music-box / celesta: a few partials with faster-decaying overtones."""
        n = n_on + int(0.25 * self.sr)
        t = np.arange(n) / self.sr
        scale = (523.0 / f) ** 0.3
        out = np.zeros(n)
        for ratio, amp, decay in ((1.0, 1.0, 1.4), (2.0, 0.35, 0.6), (3.0, 0.12, 0.3),
                                  (4.17, 0.08, 0.12)):
            if ratio * f < 0.45 * self.sr:
                out += amp * np.sin(2 * np.pi * ratio * f * t) * np.exp(-t / (decay * scale))
        return out * envelope(n, self.sr, 0.002, 0.25)

    def _pluck(self, f: float, n_on: int, vel: float, rng: np.random.Generator) -> np.ndarray:
        """Karplus-Strong string (period-blocked numpy loop), retuned by interpolation."""
        sr = self.sr
        n = n_on + int(0.08 * sr)
        period = max(2, int(sr / f - 0.5))
        ratio = f / (sr / (period + 0.5))
        length = int(n * ratio) + 2
        t60 = min(4.0, max(0.8, 2.4 * (220.0 / f) ** 0.5))
        gain = 10.0 ** (-3.0 / (t60 * sr / (period + 0.5)))
        soft = 0.35 + 0.5 * (1 - vel)
        burst = signal.lfilter([1 - soft], [1, -soft], rng.uniform(-1, 1, period + 1))
        raw = _karplus_strong(burst - burst.mean(), gain, length)
        out = np.interp(np.arange(n) * ratio, np.arange(length), raw)
        return out * envelope(n, sr, 0.0015, 0.08) * 3.2

    def _flute(self, f: float, n_on: int, vel: float, rng: np.random.Generator) -> np.ndarray:
        """Soft breathy lead: sine with light harmonics, delayed vibrato and breath noise."""
        sr = self.sr
        n = n_on + int(0.15 * sr)
        t = np.arange(n) / sr
        table = self._harmonic_table("flute", f, lambda k: np.where(k <= 4, 0.9 ** (k * 6), 0.0)
                                     / np.where(k == 1, 1.0, 2.0))
        depth = 0.0035 * np.clip((t - 0.25) / 0.4, 0.0, 1.0)
        tone = _osc(table, f * (1 + depth * np.sin(2 * np.pi * 5.1 * t)), n, sr)
        breath = signal.lfilter([0.05], [1, -0.95], rng.standard_normal(n)) * np.exp(-t / 0.12)
        env = envelope(n, sr, 0.06, 0.15, decay_s=2.5, sustain=0.8)
        return (tone + 0.25 * breath) * env

    def _bass(self, f: float, n_on: int, vel: float, rng: np.random.Generator) -> np.ndarray:
        """Round bass: sine with a few harmonics through soft (tanh) saturation."""
        n = n_on + int(0.06 * self.sr)
        table = self._harmonic_table("bass", f, lambda k: np.where(k <= 4, 1.0 / k**2.2, 0.0))
        tone = np.tanh(1.8 * _osc(table, f, n, self.sr)) / np.tanh(1.8)
        return tone * envelope(n, self.sr, 0.006, 0.06, decay_s=0.8, sustain=0.55)


def _karplus_strong(burst: np.ndarray, gain: float, length: int) -> np.ndarray:
    """y[n] = gain * (y[n-P] + y[n-P-1]) / 2, computed one period at a time."""
    period = len(burst) - 1
    y = np.zeros(length + len(burst))
    y[: len(burst)] = burst
    pos = len(burst)
    while pos < length:
        end = min(pos + period, length)
        previous = y[pos - period - 1:end - period]
        y[pos:end] = 0.5 * gain * (previous[1:] + previous[:-1])
        pos = end
    return y[:length]


def _filtered_noise(rng: np.random.Generator, n: int, sr: int, band: tuple[float, float] | float,
                    kind: str) -> np.ndarray:
    sos = signal.butter(2, band, btype=kind, fs=sr, output="sos")
    return signal.sosfilt(sos, rng.standard_normal(n))


def _drum_kit(sr: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One sample of each drum; every sample starts and ends at zero."""
    def timeline(seconds: float) -> np.ndarray:
        return np.arange(int(seconds * sr)) / sr

    t = timeline(0.45)
    freq = 46.0 + 95.0 * np.exp(-t / 0.03)
    body = np.sin(2 * np.pi * np.cumsum(freq) / sr) * np.exp(-t / 0.2)
    click = _filtered_noise(rng, len(t), sr, 3000.0, "lowpass") * np.exp(-t / 0.004) * 0.4
    kick = np.tanh(1.6 * (body + click)) / np.tanh(1.6)
    t = timeline(0.3)
    bursts = sum(np.exp(-(t - d) / 0.007) * (t >= d) for d in (0.0, 0.011, 0.023))
    clap_env = 0.6 * bursts + np.exp(-np.maximum(t - 0.03, 0) / 0.09) * (t >= 0.03)
    clap = _filtered_noise(rng, len(t), sr, (900.0, 2600.0), "bandpass") * clap_env * 2.5
    t = timeline(0.12)
    rim = (np.sin(2 * np.pi * 820 * t) * 0.5
           + _filtered_noise(rng, len(t), sr, (1800.0, 5000.0), "bandpass") * 2.0) \
        * np.exp(-t / 0.018)
    hat = _filtered_noise(rng, len(t), sr, 7000.0, "highpass") * np.exp(-t / 0.022)
    shaker = _filtered_noise(rng, len(t), sr, (4500.0, 10000.0), "bandpass") \
        * (1 - np.exp(-t / 0.012)) * np.exp(-t / 0.045) * 2.2
    t = timeline(0.4)
    ohat = _filtered_noise(rng, len(t), sr, 6500.0, "highpass") * np.exp(-t / 0.1)
    t = timeline(2.5)
    crash = _filtered_noise(rng, len(t), sr, 3500.0, "highpass") * np.exp(-t / 0.7)
    kit = {"kick": kick, "clap": clap, "rim": rim, "hat": hat, "shaker": shaker, "ohat": ohat,
           "crash": crash}
    return {name: (x * envelope(len(x), sr, 0.0008, 0.02)).astype(np.float32)
            for name, x in kit.items()}


# --------------------------------------------------------------------------- mix


def _pan_gains(pan: float) -> tuple[float, float]:
    angle = (pan + 1.0) * np.pi / 4.0
    return math.cos(angle), math.sin(angle)


def _add_scaled(dest: np.ndarray, src: np.ndarray, gain: float, scratch: np.ndarray) -> None:
    """dest += gain * src in float32 without temporaries (BLAS-free: no thread contention)."""
    buf = scratch[: len(src)]
    np.multiply(src, np.float32(gain), out=buf)
    np.add(dest, buf, out=dest)


def _render(plan: SongPlan, events: list[_Event], n: int, sr: int) -> tuple[np.ndarray, np.ndarray]:
    """Dry stereo mix (n, 2) and mono reverb send (float32), each note at its exact sample."""
    synth = _Synth(plan, sr)
    left, right, send = (np.zeros(n, dtype=np.float32) for _ in range(3))
    scratch = np.empty(0, dtype=np.float32)
    for event in events:
        start = round(event.start * sr)
        if start >= n:
            continue
        sig = synth.note(event.kind, event.midi, max(1, round(event.dur * sr)), event.vel)
        scale = event.gain * event.vel
        end = min(n, start + sig.shape[-1])
        if len(scratch) < end - start:
            scratch = np.empty(max(end - start, 2 * len(scratch)), dtype=np.float32)
        if sig.ndim == 1:
            gain_l, gain_r = _pan_gains(event.pan)
            channels = ((left, sig, scale * gain_l), (right, sig, scale * gain_r),
                        (send, sig, scale * event.send))
        else:
            channels = ((left, sig[0], scale), (right, sig[1], scale),
                        (send, sig[0], 0.5 * scale * event.send),
                        (send, sig[1], 0.5 * scale * event.send))
        for dest, src, gain in channels:
            _add_scaled(dest[start:end], src[: end - start], gain, scratch)
    return np.stack([left, right], axis=1), send


def _reverb(send: np.ndarray, sr: int, rt60: float, seed: int, down: int = 3) -> np.ndarray:
    """Stereo reverb: convolution with a synthetic, frequency-damped decaying noise tail.

    The tail is dark (< 6 kHz), so it is computed at ``sr / down`` and interpolated back."""
    rate = sr // down
    rng = np.random.default_rng([seed, 4])
    n = int(min(rt60 * 1.1, 3.0) * rate)
    t = np.arange(n) / rate
    fast, slow = np.exp(-6.91 * t / (0.5 * rt60))[:, None], np.exp(-6.91 * t / rt60)[:, None]
    bright = _filtered_noise_2(rng, n, rate, 0.375 * rate) * fast
    dark = _filtered_noise_2(rng, n, rate, 2200.0) * slow
    ir = (bright + 1.5 * dark) * envelope(n, rate, 0.008, 0.2)[:, None]
    ir = np.concatenate([np.zeros((int(0.018 * rate), 2)), ir])
    ir /= np.sqrt(np.sum(ir**2) / 2)
    source = signal.sosfilt(signal.butter(2, 180.0, "highpass", fs=sr, output="sos"), send)
    small = signal.resample_poly(source, 1, down).astype(np.float32)
    wet = [signal.oaconvolve(small, ir[:, ch].astype(np.float32))[: len(small)] for ch in (0, 1)]
    full = signal.resample_poly(np.stack(wet, axis=1), down, 1, axis=0)[: len(send)]
    out = np.zeros((len(send), 2), dtype=np.float32)
    out[: len(full)] = full
    return out


def _filtered_noise_2(rng: np.random.Generator, n: int, sr: int, cutoff: float) -> np.ndarray:
    sos = signal.butter(2, cutoff, "lowpass", fs=sr, output="sos")
    return signal.sosfilt(sos, rng.standard_normal((n, 2)), axis=0)


def _compress(x: np.ndarray, sr: int, ratio: float = 2.0) -> np.ndarray:
    """Gentle bus compression: 2:1 above the 70th-percentile short-term level (50 ms RMS,
    100 ms gain smoothing), computed on 1 ms blocks and interpolated back per sample."""
    hop = max(1, sr // 1000)
    blocks = len(x) // hop
    if blocks < 8:
        return x
    power = x[: blocks * hop].astype(np.float64) ** 2
    power = power.reshape(blocks, hop, -1).mean(axis=(1, 2))
    a = math.exp(-1.0 / (0.05 * sr / hop))
    level = 10 * np.log10(signal.lfilter([1 - a], [1, -a], power) + 1e-12)
    threshold = np.percentile(level[level > level.max() - 40], 70)
    reduction = -np.maximum(level - threshold, 0.0) * (1 - 1 / ratio)
    b = math.exp(-1.0 / (0.1 * sr / hop))
    gain_db = signal.lfilter([1 - b], [1, -b], reduction)
    centers = (np.arange(blocks) + 0.5) * hop
    gain = 10 ** (np.interp(np.arange(len(x)), centers, gain_db) / 20)
    return (x * gain[:, None].astype(np.float32)).astype(np.float32)


def _shape(x: np.ndarray, sr: int, plan: SongPlan) -> np.ndarray:
    """High-pass (no DC), short fade-in, and the designed ending: a smooth fall to zero."""
    sos = signal.butter(2, 25.0, "highpass", fs=sr, output="sos").astype(np.float32)
    x = signal.sosfilt(sos, x, axis=0).astype(np.float32)
    n = len(x)
    gain = np.ones(n)
    fade_in = min(n, int(FADE_IN_S * sr))
    gain[:fade_in] = np.sin(0.5 * np.pi * np.arange(fade_in) / fade_in) ** 2
    tail_start = round((plan.n_bars * plan.bar_s + 0.35 * plan.tail_s) * sr)
    tail = n - tail_start
    if tail > 1:
        gain[tail_start:] *= np.cos(0.5 * np.pi * np.arange(1, tail + 1) / tail) ** 2
    gain[-1] = 0.0
    return x * gain.astype(np.float32)[:, None]


# --------------------------------------------------------------------------- mastering


_TRUE_PEAK_FIR = signal.firwin(49, 1.0 / TRUE_PEAK_OVERSAMPLING, window=("kaiser", 7.0))


def _peak_envelope(audio: np.ndarray) -> np.ndarray:
    """Per-sample absolute peak over the channels and the 4x oversampled inter-sample values.

    The interpolator is a 49-tap windowed-sinc (BS.1770-style) polyphase FIR: its phase 0 is
    the sample itself, phases 1..3 are 12-tap convolutions aligned on the sample."""
    x = np.asarray(audio, dtype=np.float32).reshape(len(audio), -1)
    taps = (_TRUE_PEAK_FIR * TRUE_PEAK_OVERSAMPLING).astype(np.float32)
    offset = (len(taps) - 1) // 2 // TRUE_PEAK_OVERSAMPLING
    out = np.zeros(len(x), dtype=np.float32)
    for channel in x.T:
        np.maximum(out, np.abs(channel), out=out)
        for phase in range(1, TRUE_PEAK_OVERSAMPLING):
            between = np.convolve(channel, taps[phase::TRUE_PEAK_OVERSAMPLING])
            np.maximum(out, np.abs(between[offset: offset + len(x)]), out=out)
    return out


def measure_loudness(audio: np.ndarray, sample_rate: int) -> tuple[float, float]:
    """(integrated loudness in LUFS per ITU-R BS.1770 via pyloudnorm, true peak in dBTP
    measured with 4x oversampling). Silence or audio under 0.4 s gives -inf LUFS."""
    data = np.asarray(audio)
    peak = float(_peak_envelope(data).max()) if len(data) else 0.0
    true_peak = 20 * math.log10(peak) if peak > 0 else -math.inf
    if len(data) < int(0.4 * sample_rate) + 1:
        return -math.inf, true_peak
    if not np.issubdtype(data.dtype, np.floating):
        data = data.astype(np.float64)
    loudness = pyln.Meter(sample_rate).integrated_loudness(data)
    return float(loudness), true_peak


def k_weighted_power(x: np.ndarray, sr: int) -> np.ndarray:
    """Per-sample K-weighted power summed over channels (the BS.1770 pre-filter)."""
    stages = (pyln.IIRfilter(4.0, 1 / np.sqrt(2), 1500.0, sr, "high_shelf"),
              pyln.IIRfilter(0.0, 0.5, 38.0, sr, "high_pass"))
    power = np.zeros(len(x))
    for channel in np.asarray(x).reshape(len(x), -1).T:
        y = channel.astype(np.float64)
        for stage in stages:
            y = signal.lfilter(stage.b, stage.a, y)
        power += y * y
    return power


def _gated_loudness(power: np.ndarray, sr: int) -> float:
    """BS.1770 gated integrated loudness (LUFS) from K-weighted power, blocked as pyloudnorm."""
    block, step = 0.4, 0.1
    count = round((len(power) / sr - block) / step) + 1
    cumulative = np.concatenate(([0.0], np.cumsum(power)))
    lows = (np.arange(count) * step * sr).astype(np.int64)
    highs = np.minimum(((np.arange(count) * step + block) * sr).astype(np.int64), len(power))
    z = (cumulative[highs] - cumulative[lows]) / (block * sr)
    with np.errstate(divide="ignore"):
        level = -0.691 + 10 * np.log10(z)
    z = z[level >= -70.0]
    if len(z) == 0:
        return -math.inf
    relative = -0.691 + 10 * np.log10(z.mean()) - 10.0
    gated = z[-0.691 + 10 * np.log10(z) > relative]
    return float(-0.691 + 10 * np.log10(gated.mean()))


def _limiter_gain(peaks: np.ndarray, sr: int, ceiling: float,
                  lookahead_s: float = 0.012) -> np.ndarray:
    """Look-ahead limiter gain for a peak envelope: the gain reaches its floor before the peak
    (minimum filter over +-look-ahead, then two box smoothings inside that window)."""
    need = np.minimum(1.0, ceiling / np.maximum(peaks, 1e-12))
    if need.min() >= 1.0:
        return need
    half = max(2, int(lookahead_s * sr))
    gain = minimum_filter1d(need, size=2 * half + 1, mode="nearest")
    for _ in range(2):
        gain = uniform_filter1d(gain, size=half + 1, mode="nearest")
    return np.minimum(gain, need)


def _makeup_gain(power: np.ndarray, peaks: np.ndarray, sr: int) -> np.ndarray:
    """Per-sample gain (make-up times limiter) that lands the mix on -14 LUFS with its 4x
    oversampled peaks under the limiter ceiling. Solved on the K-weighted power: the limiter
    gain is slow, so K(g * x) ~ g * K(x)."""
    ceiling, makeup = 10 ** (LIMITER_CEILING_DBTP / 20), 1.0
    for _ in range(8):
        gain = makeup * _limiter_gain(peaks * makeup, sr, ceiling)
        error = TARGET_LUFS - _gated_loudness(power * gain**2, sr)
        if abs(error) < 0.05:
            break
        makeup *= 10 ** (error / 20)
    return gain


def _master(mix: np.ndarray, sr: int) -> tuple[np.ndarray, float, float]:
    """Gain to -14 LUFS through a look-ahead true-peak limiter, then measure the result with
    pyloudnorm and a 4x true-peak meter (a last static trim if the peak is still too high)."""
    power = k_weighted_power(mix, sr)
    if not math.isfinite(_gated_loudness(power, sr)):
        return mix.astype(np.float32), -math.inf, -math.inf
    gain = _makeup_gain(power, _peak_envelope(mix), sr)
    del power
    audio = np.ascontiguousarray(mix * gain.astype(np.float32)[:, None])
    del gain
    lufs, true_peak = measure_loudness(audio, sr)
    if true_peak > MASTER_TRUE_PEAK_DBTP - 0.1:
        audio *= np.float32(10 ** ((MASTER_TRUE_PEAK_DBTP - 0.3 - true_peak) / 20))
        lufs, true_peak = measure_loudness(audio, sr)
    return audio, lufs, true_peak


def master(mix: np.ndarray, sample_rate: int) -> tuple[np.ndarray, float, float]:
    """Master a float (n, channels) mix at ``sample_rate`` Hz like the songs: -14 LUFS
    integrated, true peak under :data:`MASTER_TRUE_PEAK_DBTP` (the AAC headroom kept). Returns
    (audio float32, integrated LUFS, true peak dBTP); silence comes back unchanged."""
    return _master(np.asarray(mix, np.float32), sample_rate)


# --------------------------------------------------------------------------- public entry points


def beat_grid(plan: SongPlan) -> tuple[list[float], list[float]]:
    """(beat times, downbeat times) in seconds from 0.0 up to the end of the song."""
    count = math.floor(plan.length_sec / plan.beat_s - 1e-9) + 1
    beats = [round(i * plan.beat_s, 6) for i in range(count)]
    return beats, beats[::BEATS_PER_BAR]


def _sections(plan: SongPlan) -> list[tuple[str, float, float]]:
    out = []
    for name, start, bars in plan.form:
        end = plan.length_sec if name == "ending" else (start + bars) * plan.bar_s
        out.append((name, round(start * plan.bar_s, 6), round(end, 6)))
    return out


def melody_line(plan: SongPlan) -> tuple[float, ...]:
    """MIDI pitches of the lead melody's notes in order (the same notes ``_arrange`` plays:
    the melody is the first user of the arrangement's random stream)."""
    events = _melody_events(plan, np.random.default_rng([plan.seed, 1]))
    return tuple(event.midi for event in events if event.kind == plan.lead)


def _normalize(mix: np.ndarray, sr: int) -> tuple[np.ndarray, float, float]:
    """Static gain to -14 LUFS, no limiter: (audio, LUFS, sample peak in dBFS, may be > 0)."""
    lufs = _gated_loudness(k_weighted_power(mix, sr), sr)
    if not math.isfinite(lufs):
        return mix.astype(np.float32), -math.inf, -math.inf
    audio = (mix * np.float32(10 ** ((TARGET_LUFS - lufs) / 20))).astype(np.float32)
    peak = float(np.abs(audio).max())
    return audio, TARGET_LUFS, 20 * math.log10(peak) if peak > 0 else -math.inf


def compose_song(brief: SongBrief, seed: int, sample_rate: int = AUDIO_SAMPLE_RATE,
                 variant: int = 0, preview: bool = False) -> ComposedSong:
    """Compose, synthesize and master an instrumental song of exactly ``brief.length_sec``
    seconds (``round(length_sec * sample_rate)`` samples, stereo float32 at ``sample_rate`` Hz),
    at -14 LUFS integrated with the true peak under -1 dBTP. Deterministic for (brief, seed,
    variant: see :func:`plan_song`). ``preview`` skips the limiter (a cheap stand-in for
    scoring candidates: static gain to -14 LUFS, ``true_peak_dbtp`` is the sample peak)."""
    plan = plan_song(brief, seed, variant)
    n = round(plan.length_sec * sample_rate)
    dry, send = _render(plan, _arrange(plan), n, sample_rate)
    mix = dry + _reverb(send, sample_rate, plan.reverb_s, plan.seed) * np.float32(0.9)
    del dry, send
    mix = _shape(_compress(mix, sample_rate), sample_rate, plan)
    audio, lufs, true_peak = (_normalize if preview else _master)(mix, sample_rate)
    beats, bars = beat_grid(plan)
    return ComposedSong(
        audio=audio, sample_rate=sample_rate, tempo_bpm=round(plan.tempo_bpm, 6), key=plan.key,
        beat_times=beats, bar_times=bars, sections=_sections(plan), lyrics=write_lyrics(brief),
        integrated_lufs=round(lufs, 3), true_peak_dbtp=round(true_peak, 3),
        melody=melody_line(plan),
    )


def write_wav(path: Path, song: ComposedSong, bits: int = 24) -> None:
    """Write the song as a 24-bit (or 16-bit) PCM stereo WAV at its sample rate (Hz)."""
    if bits not in (16, 24):
        raise ValueError("bits must be 16 or 24")
    full_scale = 2 ** (bits - 1) - 1
    audio = np.clip(np.asarray(song.audio, dtype=np.float64), -1.0, 1.0)
    ints = np.ascontiguousarray(np.round(audio * full_scale).astype("<i4"))
    if bits == 24:
        data = ints.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    else:
        data = ints.astype("<i2").tobytes()
    with wave.open(str(path), "wb") as out:
        out.setnchannels(audio.shape[1] if audio.ndim == 2 else 1)
        out.setsampwidth(bits // 8)
        out.setframerate(song.sample_rate)
        out.writeframes(data)
