"""Time composing + mastering a 60 s and a 180 s song, and best of three (plain prints, not a
test).

Run from the repository root: ``.venv/bin/python bench/song_bench.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from media.song import SongBrief, compose_song, song_seed
from media.song_score import compose_best


def _brief(tone: str, gentle: bool, length: float) -> SongBrief:
    return SongBrief(
        occasion_slug="memorial" if gentle else "birthday", tone=tone, gentle=gentle,
        recipient_name="Anna", relationship="sister",
        memory="The summer we drove to the coast", story_note="",
        feeling_words=("grateful", "happy"), style="gift", length_sec=length,
    )


def main() -> None:
    """Compose a joyful and a gentle song at 60 s and 180 s; then best of three of the joyful
    one (previews scored, winner rendered). Prints wall-clock and CPU time."""
    single: dict[float, float] = {}
    for tone, gentle in (("joyful", False), ("tender", True)):
        for length in (60.0, 180.0):
            start, cpu = time.perf_counter(), time.process_time()
            song = compose_song(_brief(tone, gentle, length), song_seed("bench", tone, str(length)))
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            single.setdefault(length, cpu)
            print(f"{tone:7s} {length:5.0f} s: {elapsed:5.2f} s wall ({cpu:5.2f} s CPU) to "
                  f"compose+master "
                  f"({song.key}, {song.tempo_bpm:.1f} bpm, {song.integrated_lufs:.2f} LUFS, "
                  f"{song.true_peak_dbtp:.2f} dBTP)")
    for length in (60.0, 180.0):
        start, cpu = time.perf_counter(), time.process_time()
        song, scores, chosen = compose_best(_brief("joyful", False, length),
                                            song_seed("bench", "joyful", str(length)), 3)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        totals = ", ".join(f"{s.total:.3f}" for s in scores)
        print(f"best of 3 {length:5.0f} s: {elapsed:5.2f} s wall ({cpu:5.2f} s CPU; three full "
              f"composes would be ~{3 * single[length]:5.2f} s CPU), scores [{totals}], chose "
              f"{chosen} ({song.key}, {song.tempo_bpm:.1f} bpm, {song.integrated_lufs:.2f} LUFS)")


if __name__ == "__main__":
    main()
