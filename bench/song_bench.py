"""How the composed songs sound, in numbers, and what they cost (plain prints, not a test).

Per occasion tone (joyful birthday, romantic anniversary, tender pet tribute) and length
(30/60/180 s) it composes the standard song, sends it through the films' AAC encoder and
measures what a viewer hears (:func:`media.song.audio.sound_character`): median spectral centroid,
shares of energy above 2 kHz and above 6 kHz, loudness lost on a phone speaker, spectral flatness
60 Hz-8 kHz, stereo side/mid, LUFS and true peak; plus the CPU seconds of the compose. Then best
of three at 180 s per tone (signature), CPU seconds.

Run from the repository root: ``.venv/bin/python bench/song_bench.py [--lengths 30 60 180]
[--tones joyful romantic tender] [--no-best] [--json FILE]``.  ``--measure FILE`` measures a
delivered film's (or any file's) audio instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from media.base.spec import AUDIO_SAMPLE_RATE
from media.song.audio import SoundCharacter, aac_round_trip, decode_audio, sound_character
from media.song.compose import SongBrief, compose_song, song_seed
from media.song.score import compose_best

TONES = {  # tone: (occasion slug, gentle, relationship, memory)
    "joyful": ("birthday", False, "sister", "The summer we drove to the coast"),
    "romantic": ("anniversary", False, "wife", "Our first dance in the kitchen"),
    "tender": ("pet-tribute", True, "best friend", "You slept on the warm camera bag"),
}
TARGETS = {"joyful": (1000.0, 0.10, 1.5), "romantic": (800.0, 0.03, 1.0),
           "tender": (800.0, 0.02, 1.0)}
"""Per tone: (centroid at least Hz, share above 2 kHz at least, phone loss at most LU)."""


def brief(tone: str, length: float) -> SongBrief:
    """The bench's order brief for ``tone`` and ``length`` seconds."""
    slug, gentle, relationship, memory = TONES[tone]
    return SongBrief(occasion_slug=slug, tone=tone, gentle=gentle, recipient_name="Anna",
                     relationship=relationship, memory=memory, story_note="",
                     feeling_words=("grateful", "happy"), style="gift", length_sec=length)


def _row(label: str, character: SoundCharacter, cpu_s: float | None) -> str:
    cpu = "" if cpu_s is None else f" {cpu_s:6.2f}"
    return (f"{label:18s} {character.centroid_hz:7.0f} {100 * character.share_above_2k:6.1f} "
            f"{100 * character.share_above_6k:6.2f} {character.phone_loss_lu:6.2f} "
            f"{character.flatness:8.5f} {character.side_to_mid:6.3f} {character.lufs:7.2f} "
            f"{character.true_peak_dbtp:6.2f}{cpu}")


HEADER = (f"{'song':18s} {'centr':>7s} {'>2k%':>6s} {'>6k%':>6s} {'phone':>6s} {'flat':>8s} "
          f"{'side':>6s} {'LUFS':>7s} {'dBTP':>6s} {'CPU-s':>6s}")


def bench(tones: list[str], lengths: list[float], best: bool) -> list[dict[str, object]]:
    """Compose, AAC round-trip and measure every (tone, length); best of 3 at 180 s."""
    rows: list[dict[str, object]] = []
    print(HEADER)
    with tempfile.TemporaryDirectory() as scratch:
        for tone in tones:
            for length in lengths:
                cpu = time.process_time()
                song = compose_song(brief(tone, length), song_seed("bench", tone, str(length)))
                cpu = time.process_time() - cpu
                heard = sound_character(aac_round_trip(song.audio, song.sample_rate,
                                                       Path(scratch)), AUDIO_SAMPLE_RATE)
                print(_row(f"{tone} {length:.0f}s", heard, cpu), flush=True)
                rows.append({"tone": tone, "length_s": length, "cpu_s": round(cpu, 2),
                             **asdict(heard)})
            if best:
                cpu = time.process_time()
                song, scores, chosen = compose_best(brief(tone, 180.0),
                                                    song_seed("bench", tone, "best"), 3)
                cpu = time.process_time() - cpu
                heard = sound_character(aac_round_trip(song.audio, song.sample_rate,
                                                       Path(scratch)), AUDIO_SAMPLE_RATE)
                print(_row(f"{tone} best3 180s", heard, cpu) + f"  chose {chosen} of "
                      f"[{', '.join(f'{s.total:.3f}' for s in scores)}]", flush=True)
                rows.append({"tone": tone, "length_s": 180.0, "best_of": 3,
                             "cpu_s": round(cpu, 2), **asdict(heard)})
    return rows


def main() -> None:
    """Parse the arguments and print the table (or one file's measures with ``--measure``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", type=float, nargs="+", default=[30.0, 60.0, 180.0])
    parser.add_argument("--tones", nargs="+", default=list(TONES), choices=list(TONES))
    parser.add_argument("--no-best", action="store_true", help="skip best of 3 at 180 s")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--measure", type=Path, help="measure this file's audio and stop")
    args = parser.parse_args()
    if args.measure:
        print(HEADER)
        print(_row(args.measure.name, sound_character(decode_audio(args.measure),
                                                      AUDIO_SAMPLE_RATE), None))
        return
    rows = bench(args.tones, args.lengths, not args.no_best)
    print("targets: joyful centroid >= 1000 Hz, >= 10 % above 2 kHz, phone loss <= 1.5 LU; "
          "romantic >= 800 Hz, >= 3 %, <= 1 LU; tender >= 800 Hz, >= 2 %, <= 1 LU; "
          "-14 +-1 LUFS, <= -1 dBTP; best of 3 < 30 CPU-s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
