"""How each sample order's song fits its occasion and its film (plain prints, not a test).

For each order folder (``samples/birthday`` ...; ``FOLDER:SECONDS`` overrides the length) it
composes the song as the assets stage does (the order's brief with its cards' lengths, its
seed, the tier's number of candidates), sends it through the films' AAC encoder and prints one
JSON line: key, tempo, arrangement, what a viewer hears (:func:`media.song.audio.sound_character`:
spectral centroid, shares above 2 and 6 kHz, phone loss, LUFS, true peak), the song's sections and
the cards' times as the timeline will snap them onto the song's bars (title end, closing start),
and where the last chorus lifts in (seconds, % of the film).

Run from the repository root: ``.venv/bin/python bench/song_fit.py samples/birthday
samples/anniversary samples/pet-tribute samples/anniversary:90``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from activities.assets import order_song_seed, song_brief
from app.order_folder import read_order_folder
from media.base.spec import AUDIO_SAMPLE_RATE, FPS
from media.plan.beat_snap import card_bounds, frame_grid
from media.song.audio import aac_round_trip, sound_character
from media.song.score import compose_best
from services.settings import DEFAULT_RECIPES


def fit(folder: Path, length_s: float | None = None) -> dict[str, Any]:
    """The song facts of the order in ``folder`` (at ``length_s`` seconds when given)."""
    order, _ = read_order_folder(folder)
    if length_s:
        order = order.model_copy(update={"length_sec": length_s})
    brief = song_brief(order)
    song, _, _ = compose_best(brief, order_song_seed(order),
                              DEFAULT_RECIPES[order.tier].song_candidates)
    with tempfile.TemporaryDirectory() as scratch:
        heard = sound_character(aac_round_trip(song.audio, song.sample_rate, Path(scratch)),
                                AUDIO_SAMPLE_RATE)
    total = round(brief.length_sec * FPS)
    title_end, closing_start = card_bounds(
        brief.title_card_s, brief.closing_card_s, FPS, total,
        frame_grid(song.beat_times, FPS, total), frame_grid(song.bar_times, FPS, total))
    lift = max((start for name, start, _ in song.sections if name == "chorus"), default=None)
    return {"sample": folder.name, "length_s": brief.length_sec, "key": song.key,
            "tempo_bpm": round(song.tempo_bpm, 1), "arrangement": song.arrangement,
            "centroid_hz": round(heard.centroid_hz), "above_2k_pct":
            round(100 * heard.share_above_2k, 1), "above_6k_pct":
            round(100 * heard.share_above_6k, 2), "phone_loss_lu": round(heard.phone_loss_lu, 2),
            "lufs": round(heard.lufs, 2), "true_peak_dbtp": round(heard.true_peak_dbtp, 2),
            "title_end_s": round(title_end / FPS, 2),
            "closing_start_s": round(closing_start / FPS, 2),
            "sections": [(name, round(a, 2), round(b, 2)) for name, a, b in song.sections],
            "lift_s": lift, "lift_pct": None if lift is None
            else round(100 * lift / brief.length_sec)}


def main() -> None:
    """One JSON line per ``FOLDER[:SECONDS]`` argument."""
    for arg in sys.argv[1:]:
        folder, _, length = arg.partition(":")
        print(json.dumps(fit(Path(folder), float(length) if length else None)), flush=True)


if __name__ == "__main__":
    main()
