"""Read a rendered film's words back the way a phone shows them, and time how long each reads.

Every text the order puts on screen (the title's name, the closing's words, the interludes'
lines) is looked for with OCR (Debian's tesseract-ocr) in the film's frames scaled to a phone's
width (a 9:16 frame 390 px wide, a 16:9 frame 844 px wide), then enlarged 2x for tesseract as
the reading tests do (what the phone-sized picture holds, no more). A text *reads* in a frame
when all of the name's words, or at least :data:`READ_SHARE` of a message's words, come back.

A first pass at 1 fps finds where each text is; a second pass at ``--fps`` (5) around those
places times the longest stretch over which it reads (one missed sample inside a stretch is
bridged: OCR flickers on moving pictures). That is set against what reading needs
(:mod:`media.cards.reading`: the name 2.5 s, a message of W words max(3, 1 + W/3) s).

Usage::

    python -m bench.reading_holds FILM.mp4 ORDER_DIR [--fps 5] [--json OUT]

Nothing here is asserted in a test: it prints figures for the notes.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from activities.order_plan import cards_for
from app.order_folder import read_order_folder
from media.base.runner import tool_path
from media.cards.reading import TITLE_HOLD_S, message_hold_s

PHONE_WIDTH = {"landscape": 844, "portrait": 390}
READ_SHARE = 0.9
FIND_SHARE = 0.5  # the first pass: where at least this much of a text shows
SEARCH_MARGIN_S = 1.5
OCR_TIMEOUT_S = 60
DECODE_TIMEOUT_S = 900


@dataclass(frozen=True)
class Text:
    """One text the film must let a viewer read: its role, its words, how long it must read."""

    role: str
    text: str
    needs_s: float
    every_word: bool = False
    opening: bool = False  # the title: its stretch from the film's start, not a later one
    optional: bool = False  # an interlude's line: only long films show one


@dataclass(frozen=True)
class Hold:
    """How long a text read back in a film: its longest stretch (seconds, from when)."""

    role: str
    text: str
    needs_s: float
    reads_s: float
    from_s: float | None
    shown: bool = True

    @property
    def ok(self) -> bool:
        """True when the text read at least as long as reading needs (or, optional, was not
        shown at all)."""
        return not self.shown or self.reads_s + 1e-6 >= self.needs_s


def words(text: str) -> list[str]:
    """Words as OCR compares them: case and accents folded."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text)
                     if not unicodedata.combining(c))
    return [w.casefold() for w in re.findall(r"\w+", folded)]


def film_texts(order_dir: Path) -> list[Text]:
    """The texts an order's film shows: the title's name, the closing's words, and each line
    the interludes may carry (the customer's story line and memory, the feeling words)."""
    order, _ = read_order_folder(order_dir)
    _, closing = cards_for(order)
    closing_text = " ".join(line for line in closing.lines if line.strip())
    texts = [Text("title name", order.recipient_name, TITLE_HOLD_S, every_word=True,
                  opening=True),
             Text("closing", closing_text, message_hold_s(closing_text))]
    for role, line in (("story line", order.story_note), ("memory", order.memory),
                       ("feeling words", " · ".join(order.feeling_words))):
        if line and line.strip() and line not in closing.lines:
            texts.append(Text(role, line, message_hold_s(line), optional=True))
    return texts


def share_read(text: Text, seen: set[str]) -> float:
    """The share of ``text``'s words among the words OCR read."""
    wanted = words(text.text)
    return sum(w in seen for w in wanted) / max(1, len(wanted))


def reads(text: Text, seen: set[str]) -> bool:
    """True when ``text`` reads in a frame whose OCR gave ``seen``."""
    share = share_read(text, seen)
    return share >= 1.0 if text.every_word else share >= READ_SHARE


def _probe(film: Path) -> tuple[int, int, float]:
    out = subprocess.run([tool_path("ffprobe"), "-v", "error", "-select_streams", "v:0",
                          "-show_entries", "stream=width,height:format=duration", "-of", "json",
                          str(film)], capture_output=True, timeout=60, check=True, text=True)
    data = json.loads(out.stdout)
    stream = data["streams"][0]
    return int(stream["width"]), int(stream["height"]), float(data["format"]["duration"])


def frames_at(film: Path, fps: float, spans: Sequence[tuple[float, float]],
              phone_width: int, size: tuple[int, int]) -> Iterator[tuple[float, np.ndarray]]:
    """(time, phone-sized RGB frame) at ``fps`` inside each of ``spans`` (seconds)."""
    width, height = size
    out_h = 2 * round(height * phone_width / width / 2)
    for start, end in spans:
        argv = [tool_path("ffmpeg"), "-v", "error", "-ss", f"{start:.3f}", "-t",
                f"{end - start:.3f}", "-i", str(film), "-vf",
                f"fps={fps},scale={phone_width}:{out_h}:flags=area", "-f", "rawvideo",
                "-pix_fmt", "rgb24", "-"]
        raw = subprocess.run(argv, capture_output=True, timeout=DECODE_TIMEOUT_S,
                             check=True).stdout
        step = phone_width * out_h * 3
        for k in range(len(raw) // step):
            frame = np.frombuffer(raw, np.uint8, step, k * step).reshape(out_h, phone_width, 3)
            yield start + k / fps, frame


def ocr(frame: np.ndarray, layouts: Sequence[str] = ("6", "11")) -> set[str]:
    """The words tesseract reads in a phone-sized frame enlarged 2x (block, then sparse text:
    what either reads is read)."""
    seen = cv2.resize(frame, (2 * frame.shape[1], 2 * frame.shape[0]),
                      interpolation=cv2.INTER_CUBIC)
    ok, png = cv2.imencode(".png", cv2.cvtColor(seen, cv2.COLOR_RGB2BGR))
    if not ok:
        return set()
    read: set[str] = set()
    for layout in layouts:
        done = subprocess.run(["tesseract", "stdin", "stdout", "--psm", layout],
                              input=png.tobytes(), capture_output=True, timeout=OCR_TIMEOUT_S)
        read |= set(words(done.stdout.decode("utf-8", "replace")))
    return read


def _ocr_all(frames: list[tuple[float, np.ndarray]], layouts: Sequence[str]
             ) -> list[tuple[float, set[str]]]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        seen = list(pool.map(lambda f: ocr(f[1], layouts), frames))
    return [(t, s) for (t, _), s in zip(frames, seen, strict=True)]


def _merge(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def stretches(times: Sequence[float], hits: Sequence[bool], step: float
              ) -> list[tuple[float, float]]:
    """The stretches (start, seconds) of ``hits`` sampled every ``step`` seconds, in order, one
    missed sample inside a stretch bridged."""
    found: list[tuple[float, float]] = []
    last_hit = None
    for t, hit in zip(times, hits, strict=True):
        if not hit:
            continue
        if found and last_hit is not None and t - last_hit <= 2 * step + 1e-6:
            found[-1] = (found[-1][0], t - found[-1][0] + step)
        else:
            found.append((t, step))
        last_hit = t
    return found


def measure(film: Path, texts: Sequence[Text], fps: float = 5.0) -> list[Hold]:
    """Each text's longest reading stretch in ``film`` (see the module's docstring)."""
    width, height, duration = _probe(film)
    phone = PHONE_WIDTH["portrait" if height > width else "landscape"]
    coarse = _ocr_all(list(frames_at(film, 1.0, [(0.0, duration)], phone, (width, height))),
                      ("11",))
    spans = [(max(0.0, t - SEARCH_MARGIN_S), min(duration, t + SEARCH_MARGIN_S))
             for t, seen in coarse for text in texts if share_read(text, seen) >= FIND_SHARE]
    fine = _ocr_all(list(frames_at(film, fps, _merge(spans), phone, (width, height))),
                    ("6", "11")) if spans else []
    fine.sort(key=lambda item: item[0])
    holds = []
    for text in texts:
        found = stretches([t for t, _ in fine], [reads(text, s) for _, s in fine], 1.0 / fps)
        if text.opening:  # the name also closes the film: the title's is the first stretch
            found = found[:1] if found and found[0][0] < duration / 4 else []
        start, length = max(found, key=lambda f: f[1], default=(None, 0.0))
        shown = not text.optional or any(share_read(text, s) >= FIND_SHARE for _, s in coarse)
        holds.append(Hold(text.role, text.text, round(text.needs_s, 2), round(length, 2),
                          None if start is None else round(start, 2), shown))
    return holds


def main(argv: Sequence[str] | None = None) -> int:
    """Print each text's reading hold per film; exit 0 (figures, not a test)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("films", type=Path, nargs="+", help="rendered films (MP4)")
    parser.add_argument("--order", type=Path, required=True, help="the order folder")
    parser.add_argument("--fps", type=float, default=5.0)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    texts = film_texts(args.order)
    report = {}
    for film in args.films:
        holds = measure(film, texts, args.fps)
        report[str(film)] = [asdict(h) | {"ok": h.ok} for h in holds]
        print(f"{film}")
        for h in holds:
            if not h.shown:
                print(f"  --   {h.role:13s} not in this film: {h.text[:60]}")
                continue
            where = "not read" if h.from_s is None else f"from {h.from_s:6.1f} s"
            print(f"  {'ok ' if h.ok else 'MISS'} {h.role:13s} reads {h.reads_s:5.1f} s of "
                  f"{h.needs_s:4.1f} s needed, {where}: {h.text[:60]}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
