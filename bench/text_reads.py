"""How long each text of a rendered film reads back on a phone: seconds read against seconds
needed.

A text is read in the tesseract languages of its scripts (:func:`ocr_languages`: Latin, Arabic,
Hebrew, Cyrillic, Devanagari, Han, kana, Hangul, with Debian's ``tesseract-ocr-<lang>``
packages); a text in a script without an installed language is not judged.

``.venv/bin/python -m bench.text_reads OUT_DIR [--fps 5] [--json FILE]``

``OUT_DIR`` is a ``render --storyboard`` output folder (its ``16x9.mp4``, ``9x16.mp4`` and the
``timeline.json`` the storyboard was drawn from; a film without one names its order folder
with ``--order``: its title is looked for in its first 8 s, its closing in its last 12 s).
Every card shot (the title and each lead shot of the signature's title sequence, the
interludes, the closing) is sampled at ``--fps`` over
the frames it is on screen, each frame scaled to a phone's width (9:16 to 390 px, 16:9 to 844
px, as the cards' OCR tests do) and read by tesseract (Debian's tesseract-ocr) band by band
(:data:`BANDS`). A frame reads a
text when it gives back the title's name whole (a lead shot's line whole), 90 % of a closing's
words, or every word of an interlude. Printed per film and text: the seconds it read back and
the seconds reading needs (:mod:`media.design.reading`: the name 2.5 s, a message of ``W`` words
``max(3, 1 + W / 3)`` s; a lead shot of the title sequence has no hold of its own, its words
are held on the lockup after it).
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import subprocess
import unicodedata
from pathlib import Path

import cv2
import numpy as np

from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.base.spec import ASPECTS
from media.cards.spec import CardSpec
from media.design.reading import TITLE_HOLD_S, message_hold_s, phone_width_px
from media.plan.timeline import Timeline, timeline_from_dict

PHONE_WIDTH = {a.name: phone_width_px(a.width, a.height) for a in ASPECTS}
"""The width each film is seen at on the phone, by its aspect's name."""
SCRIPT_LANGUAGES = {"LATIN": "eng", "ARABIC": "ara", "HEBREW": "heb", "CYRILLIC": "rus",
                    "DEVANAGARI": "hin", "CJK": "chi_sim+chi_tra", "HIRAGANA": "jpn",
                    "KATAKANA": "jpn", "HANGUL": "kor"}
"""Unicode script (the first word of a letter's name) -> the tesseract languages that read it."""
_ONE_WORD_A_SIGN = re.compile(r"([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])")
LIMITS = Limits(timeout_s=600.0)
TITLE_SEARCH_S = 8.0  # a film without its timeline: the title is looked for this far in
CLOSING_SEARCH_S = 12.0  # and the closing over this much of its end


def words(text: str) -> list[str]:
    """Words as OCR compares them: case and accents (and Arabic and Hebrew vowel marks)
    folded; each Han ideograph or kana a word of its own (those scripts set no spaces)."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text)
                     if not unicodedata.combining(c))
    return [w.casefold() for w in re.findall(r"\w+", _ONE_WORD_A_SIGN.sub(r" \1 ", folded))]


@functools.cache
def installed_languages() -> frozenset[str]:
    """The languages this machine's tesseract reads (empty without tesseract)."""
    try:
        done = subprocess.run(["tesseract", "--list-langs"], capture_output=True, timeout=30,
                              check=True)
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(done.stdout.decode("utf-8", "replace").split()[1:])


def ocr_languages(text: str) -> str | None:
    """The tesseract ``-l`` argument that reads every letter of ``text`` (e.g. ``eng+heb``),
    or None when a script in it has no installed language (then it is not judged)."""
    codes: list[str] = []
    names = (unicodedata.name(c, "?") for c in text if c.isalpha())
    for script in sorted({re.split(r"[ -]", name)[0] for name in names}):
        code = SCRIPT_LANGUAGES.get(script)
        if code is None or not set(code.split("+")) <= installed_languages():
            return None
        codes += [c for c in code.split("+") if c not in codes]
    return "+".join(codes or ["eng"])


BANDS = ((0.0, 0.45), (0.3, 0.75), (0.55, 1.0))
"""The bands of a frame (shares of its height, full width) read one by one, as an eye scans
it: tesseract's page layout is thrown by a picture's sun or sky beside the words."""


ZOOMS = (2, 1)
"""How many times a phone's pixels the OCR reads a frame at: doubled first (small type, as
the cards' OCR tests do), then at the phone's own size when that misses words, since
tesseract loses large display type doubled (the signature's lead shots: a name 60-80 px tall
on the phone, plain to the eye, read as nothing at twice that)."""


def _band_words(seen: np.ndarray, lang: str) -> set[str]:
    read: set[str] = set()
    height = seen.shape[0]
    for top, bottom in BANDS:
        band = seen[round(top * height):round(bottom * height)]
        ok, png = cv2.imencode(".png", cv2.cvtColor(band, cv2.COLOR_RGB2BGR))
        assert ok
        done = subprocess.run(["tesseract", "stdin", "stdout", "-l", lang, "--psm", "6"],
                              input=png.tobytes(), capture_output=True, timeout=300, check=True)
        read |= set(words(done.stdout.decode("utf-8", "replace")))
    return read


def ocr(rgb: np.ndarray, width: int, lang: str = "eng",
        want: list[str] | None = None) -> set[str]:
    """The words tesseract reads (in the languages ``lang``) in ``rgb`` shown ``width`` pixels
    wide, in each of the :data:`BANDS`: doubled, then (when ``want`` is given and not all of
    it was read) at the phone's size too (:data:`ZOOMS`)."""
    height = round(rgb.shape[0] * width / rgb.shape[1])
    small = cv2.resize(rgb, (width, height), interpolation=cv2.INTER_AREA)
    read: set[str] = set()
    for zoom in ZOOMS:
        seen = small if zoom == 1 else cv2.resize(small, (zoom * width, zoom * height),
                                                  interpolation=cv2.INTER_CUBIC)
        read |= _band_words(seen, lang)
        if want is None or set(want) <= read:
            break
    return read


def wanted(card: CardSpec) -> tuple[list[str], float, float | None]:
    """(the words a frame must read back, the share of them, the seconds reading needs)."""
    if card.kind == "opening":
        line = card.lines[0] if card.part == "occasion" else card.lines[1]
        return words(line), 1.0, None if card.part else TITLE_HOLD_S
    text = " ".join(line for line in card.lines if line.strip())
    share = 0.9 if card.kind == "closing" else 1.0
    return words(text), share, message_hold_s(text)


def frames(video: Path, start_s: float, seconds: float, fps: float) -> list[np.ndarray]:
    """The frames of ``video`` from ``start_s`` for ``seconds`` at ``fps``, full size RGB."""
    width, height = (1920, 1080) if video.stem == "16x9" else (1080, 1920)
    out = run_tool(ffmpeg_argv("-ss", f"{start_s:.3f}", "-t", f"{seconds:.3f}", "-i", str(video),
                               "-vf", f"fps={fps},scale=in_color_matrix=bt709:in_range=tv",
                               "-pix_fmt", "rgb24", "-f", "rawvideo", "pipe:1"), LIMITS)
    raw = np.frombuffer(out.stdout, np.uint8)
    count = raw.size // (width * height * 3)
    return list(raw[:count * width * height * 3].reshape(count, height, width, 3))


def card_windows(folder: Path, order: Path | None) -> list[tuple[int, CardSpec, float, float]]:
    """(shot index, card, start s, seconds on screen) of every card of the film in ``folder``:
    from its ``timeline.json``; for a film rendered without one, from the ``order`` folder's
    cards, the title searched over the film's first :data:`TITLE_SEARCH_S` and the closing
    over its last :data:`CLOSING_SEARCH_S`."""
    plan = folder / "timeline.json"
    if plan.exists():
        timeline: Timeline = timeline_from_dict(json.loads(plan.read_text(encoding="utf-8")))
        return [(i, s.card, s.visible_in / timeline.fps, s.frames / timeline.fps)
                for i, s in enumerate(timeline.shots) if s.kind == "card" and s.card]
    if order is None:
        raise SystemExit(f"{folder} has no timeline.json: name the order folder (--order)")
    from activities.order_plan import cards_for
    from app.order_folder import read_order_folder

    film, _ = read_order_folder(order)
    opening, closing = cards_for(film)
    return [(0, opening, 0.0, TITLE_SEARCH_S),
            (-1, closing, film.length_sec - CLOSING_SEARCH_S, CLOSING_SEARCH_S)]


def film_reads(folder: Path, fps: float, order: Path | None = None) -> list[dict]:
    """Per film and card shot: what it says, the seconds it reads back, the seconds needed."""
    rows = []
    for aspect, width in PHONE_WIDTH.items():
        for index, card, start, length in card_windows(folder, order):
            want, share, need = wanted(card)
            text = " / ".join(line for line in card.lines if line)
            lang = ocr_languages(text)
            read = [] if lang is None else [
                len([w for w in want if w in ocr(f, width, lang, want)]) >= share * len(want)
                for f in frames(folder / f"{aspect}.mp4", start, length, fps)]
            rows.append({"film": aspect, "shot": index, "kind": card.kind, "part": card.part,
                         "text": text, "on_screen_s": round(length, 2),
                         "read_s": None if lang is None else round(sum(read) / fps, 2),
                         "need_s": need})
    return rows


def main() -> None:
    """Print (and with ``--json`` write) the seconds each text reads back."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--fps", type=float, default=5.0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--order", type=Path, help="the order folder of a film rendered "
                        "without its timeline.json (a baseline)")
    args = parser.parse_args()
    rows = film_reads(args.folder, args.fps, args.order)
    for row in rows:
        need = "-" if row["need_s"] is None else f"{row['need_s']:.1f}"
        if row["read_s"] is None:
            print(f"{row['film']:5s} #{row['shot']:02d} {row['kind']:9s} not judged (no OCR "
                  f"language installed for its script)  {row['text'][:60]}")
            continue
        verdict = "" if row["need_s"] is None else (
            "ok" if row["read_s"] >= row["need_s"] else "SHORT")
        print(f"{row['film']:5s} #{row['shot']:02d} {row['kind']:9s} {row['part'] or '':8s} "
              f"read {row['read_s']:5.1f} s of {row['on_screen_s']:5.1f} on screen, needs "
              f"{need:>4s} {verdict}  {row['text'][:60]}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
