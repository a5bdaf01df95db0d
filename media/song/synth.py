"""Render a song's notes with sampled instruments: a General MIDI SoundFont played by FluidSynth
(libfluidsynth through pyfluidsynth), offline and sample-exact to the 64-sample block.

The SoundFont is found in this order: the one given to :func:`use_soundfont` (process setup
passes the settings' ``FILM_SOUNDFONT``), Debian's ``fluid-soundfont-gm``
(FluidR3_GM.sf2), MuseScore General (``musescore-general-soundfont``), the system's default GM
bank. ``make install`` and the Dockerfile install libfluidsynth3 and fluid-soundfont-gm.
FluidSynth's own reverb and chorus (the parts' CC91/CC93 sends) give the room; the bus is
finished in :mod:`media.song.mix`.
"""

from __future__ import annotations

import sys
from contextlib import redirect_stdout
from ctypes import c_int, c_void_p
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from media.song.melody import Note
from media.song.palettes import Palette

SOUNDFONT_CANDIDATES = (
    Path("/usr/share/sounds/sf2/FluidR3_GM.sf2"),
    Path("/usr/share/sounds/sf3/MuseScore_General.sf3"),
    Path("/usr/share/sounds/sf2/default-GM.sf2"),
    Path("/usr/share/sounds/sf3/default-GM.sf3"),
)
PART_CHANNELS = {"lead": 0, "double": 1, "keys": 2, "pad": 3, "bass": 4, "arp": 5, "drums": 9}
"""MIDI channel of each part (channel 10, index 9, is the GM drum channel)."""
SYNTH_GAIN = 0.4
REVERB = {"bright": (0.55, 0.4, 0.9, 0.7), "warm": (0.7, 0.45, 1.0, 0.8),
          "gentle": (0.85, 0.5, 0.8, 0.75)}
"""FluidSynth reverb per feel: (room size, damping, width, level), each 0..1."""


class SoundFontMissing(RuntimeError):
    """No General MIDI SoundFont (or no libfluidsynth) on this machine: run ``make install``."""


_soundfont: Path | None = None


def use_soundfont(path: Path | None) -> Path | None:
    """Play the SoundFont at ``path`` in this process from now on (None: the first of
    :data:`SOUNDFONT_CANDIDATES` installed); returns the one given before. Process setup calls
    it once with the settings' ``FILM_SOUNDFONT`` (media/ reads no environment)."""
    global _soundfont
    previous, _soundfont = _soundfont, path
    return previous


def soundfont_path() -> Path:
    """The General MIDI bank to play (see the module doc for the search order)."""
    candidates = (_soundfont,) if _soundfont else SOUNDFONT_CANDIDATES
    for path in candidates:
        if path.is_file():
            return path
    raise SoundFontMissing(f"no General MIDI SoundFont at {', '.join(map(str, candidates))}; "
                           "install fluid-soundfont-gm (make install) or set FILM_SOUNDFONT")


@cache
def load_fluidsynth() -> tuple[Any, Any]:
    """The pyfluidsynth module and a float writer (pyfluidsynth only wraps the int16 one)."""
    try:
        # pyfluidsynth prints where it found the library when CI is set; stdout is the CLI's
        with redirect_stdout(sys.stderr):
            import fluidsynth
    except (ImportError, OSError) as exc:
        raise SoundFontMissing(f"libfluidsynth is not installed ({exc}); run make install"
                               ) from exc
    write_float = fluidsynth.cfunc(
        "fluid_synth_write_float", c_int, ("synth", c_void_p, 1), ("len", c_int, 1),
        ("lout", c_void_p, 1), ("loff", c_int, 1), ("lincr", c_int, 1),
        ("rout", c_void_p, 1), ("roff", c_int, 1), ("rincr", c_int, 1))
    return fluidsynth, write_float


def _events(notes: list[Note], palette: Palette, sample_rate: int,
            n: int) -> list[tuple[int, int, int, int, int]]:
    """(sample, 0 off / 1 on, channel, key, velocity), note-offs first at equal times; each
    part's key moved by its palette transposition."""
    out = []
    for note in notes:
        start = round(note.start * sample_rate)
        if start >= n:
            continue
        channel = PART_CHANNELS[note.part]
        end = min(n - 1, start + max(1, round(note.dur * sample_rate)))
        part = palette.parts.get(note.part)
        key = max(0, min(127, note.key + (part.transpose if part else 0)))
        out.append((start, 1, channel, key, note.velocity))
        if channel != PART_CHANNELS["drums"]:
            out.append((end, 0, channel, key, 0))
    out.sort()
    return out


def _setup(synth: Any, palette: Palette, feel: str) -> None:
    """Load the bank and give each part its instrument, level, pan and effect sends."""
    font = synth.sfload(str(soundfont_path()))
    if font < 0:
        raise SoundFontMissing(f"FluidSynth could not load {soundfont_path()}")
    for part, channel in PART_CHANNELS.items():
        if part == "drums":
            synth.program_select(channel, font, 128, palette.drum_kit or 0)
            settings = (palette.drum_volume, 64, 25, 0)
        else:
            spec = palette.parts[part]
            synth.program_select(channel, font, 0, spec.program)
            settings = (spec.volume, spec.pan, spec.reverb, spec.chorus)
        for control, value in zip((7, 10, 91, 93), settings, strict=True):
            synth.cc(channel, control, value)
    synth.set_reverb(*REVERB[feel])
    synth.set_chorus(nr=3, level=1.2, speed=0.3, depth=8.0, type=0)


def render_notes(notes: list[Note], palette: Palette, feel: str, n: int,
                 sample_rate: int) -> np.ndarray:
    """Play ``notes`` on the palette's instruments: float32 stereo (n, 2) at ``sample_rate`` Hz,
    with FluidSynth's reverb and chorus. Deterministic (no real-time clock involved)."""
    fluidsynth, write_float = load_fluidsynth()
    synth = fluidsynth.Synth(gain=SYNTH_GAIN, samplerate=float(sample_rate))
    try:
        synth.setting("synth.polyphony", 256)
        _setup(synth, palette, feel)
        out = np.zeros((n, 2), np.float32)
        position = 0
        for sample, on, channel, key, vel in _events(notes, palette, sample_rate, n):
            if sample > position:
                chunk = out[position:sample]
                write_float(synth.synth, len(chunk), chunk.ctypes.data, 0, 2,
                            chunk.ctypes.data, 1, 2)
                position = sample
            if on:
                synth.noteon(channel, key, vel)
            else:
                synth.noteoff(channel, key)
        if position < n:
            chunk = out[position:]
            write_float(synth.synth, len(chunk), chunk.ctypes.data, 0, 2, chunk.ctypes.data, 1, 2)
        return out
    finally:
        synth.delete()
