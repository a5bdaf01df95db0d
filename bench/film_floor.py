"""A content-matched floor: the encode alone of the very frames a case delivered.

The mosaic floor (:mod:`bench.floor`) pans whole-pixel windows over still photos, which x264
predicts almost for free; a film of Ken Burns zooms, parallax and crossfades is harder to
encode (at the same CRF its files are ~1.5x larger and x264 works longer). So this floor takes
a case's delivered films, decodes each back to raw rgb24 (``media.render.decoder_argv``) and
pipes it, process to process, into ``media.render.encoder_argv`` (the product's settings), both
aspects at once as the renderer does. A decode-only pass is measured the same way, and
``encode = decode and encode - decode`` (CPU seconds) is the floor; the wall estimate scales the
decode-and-encode wall by the encode's share of its CPU.

``.venv/bin/python -m bench.film_floor RESULTS_JSON CASE`` (the run must have kept its
workdir: ``--workdir`` or ``--keep``) prints the figures and the render stage's ratios to them.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from media.render import decoder_argv, encoder_argv
from media.spec import ASPECTS

TIMEOUT_S = 3600


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_pairs(films: dict[str, Path], frames: int, song: Path | None, out: Path,
              preset: str) -> dict[str, float]:
    """Wall and CPU seconds of decoding every film (and, with ``song``, encoding it again)."""
    cpu, started = _children_cpu(), time.monotonic()
    procs = []
    for aspect in ASPECTS:
        decoder = subprocess.Popen(decoder_argv(films[aspect.name], 0.0, frames),
                                   stdout=subprocess.PIPE if song else subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        procs.append(decoder)
        if song is not None:
            encoder = subprocess.Popen(
                encoder_argv(aspect, song, out / f"{aspect.name}.mp4", preset),
                stdin=decoder.stdout, stderr=subprocess.DEVNULL)
            assert decoder.stdout is not None
            decoder.stdout.close()  # the encoder holds the pipe now
            procs.append(encoder)
    codes = [p.wait(timeout=TIMEOUT_S) for p in procs]
    if any(codes):
        raise RuntimeError(f"ffmpeg exited {codes}")
    return {"wall_s": time.monotonic() - started, "cpu_s": _children_cpu() - cpu}


def film_floor(case: dict[str, Any], workdir: Path, preset: str) -> dict[str, Any]:
    """Decode-only and decode-and-encode of ``case``'s delivered films; the encode's share."""
    storage = workdir / case["label"] / "storage"
    films = {a.name: next(storage.rglob(f"render/{a.name}.mp4")) for a in ASPECTS}
    frames = case["timeline"]["total_frames"]
    song = Path(case["artifacts"]["song"])
    with tempfile.TemporaryDirectory(prefix="film-floor-") as scratch:
        decode = run_pairs(films, frames, None, Path(scratch), preset)
        both = run_pairs(films, frames, song, Path(scratch), preset)
    encode_cpu = both["cpu_s"] - decode["cpu_s"]
    return {"decode": decode, "decode_encode": both, "encode_cpu_s": encode_cpu,
            "encode_wall_s": both["wall_s"] * encode_cpu / both["cpu_s"]}


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: print the content-matched floor of one case of a saved run."""
    parser = argparse.ArgumentParser(prog="python -m bench.film_floor",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a bench/results JSON with a kept workdir")
    parser.add_argument("case", help="case label, e.g. 60s-standard")
    args = parser.parse_args(argv)
    record = json.loads(args.results.read_text(encoding="utf-8"))
    case = record["results"]["cases"][args.case]
    floor = film_floor(case, Path(record["workdir"]), case["preset"])
    render = case["stages"]["render"]
    d, b = floor["decode"], floor["decode_encode"]
    print(f"== content-matched floor of {args.case} ({case['timeline']['total_frames']} frames "
          f"per film, both aspects at once)")
    print(f"decode only:       wall {d['wall_s']:6.1f} s  cpu {d['cpu_s']:6.1f} s")
    print(f"decode and encode: wall {b['wall_s']:6.1f} s  cpu {b['cpu_s']:6.1f} s")
    print(f"encode alone:      wall {floor['encode_wall_s']:6.1f} s (est.)  "
          f"cpu {floor['encode_cpu_s']:6.1f} s")
    print(f"render stage:      wall {render['wall_s']:6.1f} s  cpu {render['cpu_s']:6.1f} s  "
          f"-> render/floor {render['wall_s'] / floor['encode_wall_s']:.2f} wall, "
          f"{render['cpu_s'] / floor['encode_cpu_s']:.2f} cpu; end to end/floor "
          f"{case['stages_wall_s'] / floor['encode_wall_s']:.2f} wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
