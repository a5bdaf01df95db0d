"""Arrangement palettes: which General MIDI instruments play each part, per feel.

A feel has three palettes (the default and two variants, so the signature tier's best-of-3
candidates differ in arrangement): joyful ("bright") is pop with a drum kit, anniversaries and
other warm occasions ("warm") are acoustic with brushes, gentle occasions (memorial, pet
tribute) are piano or harp with strings and no drums. The lead is always a voice from the bank
("Voice Oohs" or "Choir Aahs"): the line a singer would sing. A gentle song's lead is always
"Choir Aahs": with no drums the lead carries about two thirds of the song's energy, and "Voice
Oohs" (a near-sine "oo") sounds at little more than its fundamental (its spectral centroid
about 635 Hz in F4-F5), which put gentle songs under the 800 Hz a phone needs (the pet
tribute's "piano and choir" 764 Hz after the AAC); the "oo" stays as that palette's choir pad.

Levels are MIDI values 0..127 (CC7 volume, CC91 reverb send, CC93 chorus send); pan is CC10
(64 centre).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Part:
    """One instrument of a palette: GM program (bank 0), channel volume, pan, reverb and chorus
    sends (MIDI 0..127) and a transposition in semitones, applied by the synth on top of the
    notes the arrangement writes (the ``double`` is already written an octave over the lead)."""

    program: int
    volume: int
    pan: int = 64
    reverb: int = 40
    chorus: int = 0
    transpose: int = 0


@dataclass(frozen=True)
class Palette:
    """A whole arrangement: its name, the parts by role (lead, double, keys, pad, bass, arp),
    how the keys play (a style registered in :data:`media.song.arrangement.KEYS_STYLES`:
    ``comp`` block chords, ``strum`` a guitar strum, ``broken`` arpeggiated chords) and the
    drum kit (GM bank 128 preset, None for no drums)."""

    name: str
    parts: dict[str, Part]
    keys_style: str
    drum_kit: int | None
    drum_volume: int = 100


VOICE_OOHS, CHOIR_AAHS = 53, 52
_POP_DRUMS, _BRUSH_DRUMS = 0, 40

PALETTES: dict[str, tuple[Palette, ...]] = {
    "bright": (
        Palette("pop piano", {
            "lead": Part(VOICE_OOHS, 112, 64, 50, 20), "double": Part(9, 62, 84, 50),
            "keys": Part(1, 96, 44, 35), "pad": Part(48, 50, 64, 60, 40),
            "bass": Part(33, 80, 64, 5), "arp": Part(9, 66, 90, 45)}, "comp", _POP_DRUMS, 112),
        Palette("pop guitar", {
            "lead": Part(CHOIR_AAHS, 110, 64, 50, 20), "double": Part(73, 62, 80, 50),
            "keys": Part(25, 98, 40, 30, 30), "pad": Part(89, 52, 64, 60, 50),
            "bass": Part(34, 88, 64, 5), "arp": Part(27, 66, 92, 45, 40)}, "strum",
            _POP_DRUMS, 110),
        Palette("pop keys", {
            "lead": Part(VOICE_OOHS, 112, 64, 55, 20), "double": Part(72, 52, 84, 50),
            "keys": Part(2, 100, 44, 35, 30), "pad": Part(49, 44, 64, 60, 30),
            "bass": Part(33, 78, 64, 5), "arp": Part(9, 84, 90, 40)}, "comp", _POP_DRUMS, 118),
    ),
    "warm": (
        Palette("nylon guitar", {
            "lead": Part(VOICE_OOHS, 112, 64, 60, 20), "double": Part(73, 60, 80, 60),
            "keys": Part(24, 110, 46, 40), "pad": Part(48, 56, 64, 70, 30),
            "bass": Part(32, 96, 64, 10), "arp": Part(46, 62, 88, 55)}, "broken",
            _BRUSH_DRUMS, 80),
        Palette("steel guitar", {
            "lead": Part(CHOIR_AAHS, 110, 64, 60, 20), "double": Part(42, 62, 76, 60, 0, -12),
            "keys": Part(25, 100, 44, 40, 25), "pad": Part(49, 58, 64, 70, 30),
            "bass": Part(32, 96, 64, 10), "arp": Part(8, 58, 88, 55)}, "strum", _BRUSH_DRUMS,
            80),
        Palette("piano and guitar", {
            "lead": Part(VOICE_OOHS, 112, 64, 60, 20), "double": Part(71, 60, 80, 60),
            "keys": Part(0, 100, 48, 45), "pad": Part(48, 56, 64, 70, 30),
            "bass": Part(32, 96, 64, 10), "arp": Part(24, 76, 86, 50)}, "comp", _BRUSH_DRUMS,
            80),
    ),
    "gentle": (
        Palette("piano and strings", {
            "lead": Part(CHOIR_AAHS, 112, 64, 70, 20), "double": Part(40, 66, 80, 70),
            "keys": Part(0, 112, 52, 55), "pad": Part(49, 70, 64, 80, 30),
            "bass": Part(42, 80, 70, 50, 0, 12), "arp": Part(8, 50, 90, 70)}, "broken", None),
        Palette("harp and strings", {
            "lead": Part(CHOIR_AAHS, 112, 64, 70, 20), "double": Part(73, 62, 80, 70),
            "keys": Part(46, 116, 50, 55), "pad": Part(48, 72, 64, 80, 30),
            "bass": Part(42, 80, 70, 50, 0, 12), "arp": Part(10, 50, 90, 70)}, "broken", None),
        Palette("piano and choir", {
            "lead": Part(CHOIR_AAHS, 112, 64, 70, 20), "double": Part(40, 62, 76, 70),
            "keys": Part(0, 112, 56, 55), "pad": Part(VOICE_OOHS, 56, 64, 80, 30),
            "bass": Part(42, 76, 70, 50, 0, 12), "arp": Part(11, 52, 90, 70)}, "broken", None),
    ),
}
"""Three palettes per feel; a plan's ``palette`` indexes into its feel's tuple."""


def palette_for(feel: str, index: int) -> Palette:
    """Palette ``index`` (wrapping) of ``feel`` (``bright``, ``warm`` or ``gentle``)."""
    options = PALETTES[feel]
    return options[index % len(options)]
