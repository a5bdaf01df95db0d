"""Time composing + mastering a 60 s and a 180 s song (plain prints, not a test).

Run from the repository root: ``.venv/bin/python bench/song_bench.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from media.song import SongBrief, compose_song, song_seed


def main() -> None:
    """Compose a joyful and a gentle song at 60 s and 180 s; print wall-clock and CPU time."""
    for tone, gentle in (("joyful", False), ("tender", True)):
        for length in (60.0, 180.0):
            brief = SongBrief(
                occasion_slug="memorial" if gentle else "birthday", tone=tone, gentle=gentle,
                recipient_name="Anna", relationship="sister",
                memory="The summer we drove to the coast", story_note="",
                feeling_words=("grateful", "happy"), style="gift", length_sec=length,
            )
            start, cpu = time.perf_counter(), time.process_time()
            song = compose_song(brief, song_seed("bench", tone, str(length)))
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            print(f"{tone:7s} {length:5.0f} s: {elapsed:5.2f} s wall ({cpu:5.2f} s CPU) to "
                  f"compose+master "
                  f"({song.key}, {song.tempo_bpm:.1f} bpm, {song.integrated_lufs:.2f} LUFS, "
                  f"{song.true_peak_dbtp:.2f} dBTP)")


if __name__ == "__main__":
    main()
