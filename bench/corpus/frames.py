"""Frame-level checks on a rendered sample of the corpus: what the customer sees, not the plan.

    python -m bench.corpus.frames [--orders ID ...] [--samples] --out DIR [--json F]

Picks a dozen corpus orders spanning the corpus (:data:`DEFAULT_ORDERS`; ``--orders`` names
others, ``--samples`` takes the three samples in both tiers instead), renders each through the
real pipeline (``filmworker render ORDER --out DIR/NAME --no-ui --storyboard``: both films and
their ``timeline.json``; a render already in ``DIR/NAME`` is kept, and so are its checks,
``DIR/NAME/frames-check.json``, while the checking code is the same), then reads both films back
at :data:`SAMPLE_FPS` (half resolution; faces at :data:`FACE_FPS`) and checks, per order:

- ``faces_whole`` and ``faces_unhidden``: on every frame where one photo shot (or a card over
  a photo) alone is on screen, each labelled face core (the corpus's ground truth; the
  samples' hand labels) of a photo the shot shows is whole or absent. Where the photo lies is
  found by registering the frame back to the photo (:mod:`bench.corpus.registration`); a core
  is whole when :data:`WHOLE_SHARE` of it is shown, absent under :data:`ABSENT_SHARE`, and
  shown means the frame agrees with the photo there. ``faces_whole`` fails on a core the
  frame's edge cuts (the plan-level promise of the same name); ``faces_unhidden`` on one that
  lies inside the frame but is hidden in part: words (or their darker ground), a layout's cell
  or a print's edge over it.
- ``words_read``: every card's words (title, the memory and story interludes, the closing)
  read back by OCR at phone size (:mod:`bench.text_reads`) for the seconds
  :mod:`media.design.reading` asks, in both films, in the languages of the text's scripts
  (:func:`bench.text_reads.ocr_languages`; a script without an installed tesseract language is
  not judged); only the frames where the timeline puts a card are read, each cropped to the
  band where its words were found.
- ``first_round`` and ``no_back_to_back``: which photo each shot shows (the best match; a
  layout's best matches, one per cell), by registration of its
  middle frame against every photo of the order: no photo is shown again before every photo of
  the film was shown once, and none twice in a row (cards over photos count).
- ``shots_as_planned``: the photo registration finds is the one the timeline names.

Prints each invariant's pass rate over the orders it applies to and writes 1 fps phone-size
contact sheets of the five worst films (``DIR/worst-N-NAME-ASPECT.png``, their failures in
``DIR/worst.txt``). A bench command, not a CI test: on the shared 2-core machine (load 12-21)
a render took 3-10 s of wall time per second of film and its checks 2-8 s (the faces at 1
fps, the OCR of each card frame at 2 fps), so the default dozen takes well over an
hour the first time; a second run reads the kept checks and only prints and draws.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageOps

from bench.corpus import registration as reg
from bench.corpus.generate import default_cache
from bench.corpus.orders import corpus_root
from bench.corpus.sources import picture_of
from bench.text_reads import PHONE_WIDTH, ocr, ocr_languages, wanted, words
from media.base.runner import Limits, ffmpeg_argv, ffprobe_argv, run_tool
from media.plan.pacing import FEW_PHOTOS
from media.plan.timeline import Shot, Timeline, timeline_from_dict

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "tests" / "fixtures" / "faces" / "labels.json"
FILMWORKER = REPO / ".venv" / "bin" / "filmworker"

DEFAULT_ORDERS = (
    "o011-memorial_closeup",  # 1 photo, memorial close-up, a clip; standard, social, 30 s
    "o060-mixed",  # 1 photo, Hebrew; signature, gift, 45 s
    "o045-scans",  # 2 old scans, Arabic; signature, brand, 45 s
    "o002-people",  # 3 photos, group and portraits, Chinese; standard, brand, 30 s
    "o013-no_faces",  # 3 photos, scenery and a pet, 3 clips; signature, gift, 37 s
    "o030-mixed",  # 5 photos, a 500-character text; standard, gift, 45 s
    "o041-memorial_closeup",  # 5 close-ups, 500 characters, 2 clips; signature, social, 30 s
    "o015-scans",  # 10 old scans; signature, brand, 45 s
    "o004-phone",  # 10 phone photos (EXIF turned), a clip; standard, social, 37 s
    "o010-mixed",  # 30 photos of every kind; standard, social, 60 s
    "o021-memorial_closeup",  # 30 close-ups and scans; signature, brand, 45 s
    "o032-people",  # 30 people photos, 3 clips; standard, brand, 45 s
)
"""The default dozen: 1, 2, 3, 5, 10 and 30 photos, both tiers, the three styles, a memorial
close-up, scans, no faces, right-to-left text, a 500-character text, clips; 30-60 s films."""
SAMPLES = ("birthday", "anniversary", "pet-tribute")
TIERS = ("standard", "signature")

SAMPLE_FPS = 2.0  # frames read back per second of film (the words)
FACE_FPS = 1.0  # of which faces are checked on this many per second
DECODE_SCALE = 0.5  # the films are read at half their resolution
PHOTO_SIDE = 1200  # photos are registered at most this many pixels on their long side
WHOLE_SHARE = 0.9  # a face core this much shown is whole
ABSENT_SHARE = 0.1  # and this little, absent
WORST = 5
SHEET_WIDTH = {"16x9": 422, "9x16": 195}  # half a phone's width (text_reads.PHONE_WIDTH)
SHEET_COLUMNS = {"16x9": 6, "9x16": 10}
LIMITS = Limits(timeout_s=900.0)
RENDER_TIME = "render-seconds.txt"
INVARIANTS = ("faces_whole", "faces_unhidden", "words_read", "first_round", "no_back_to_back",
              "shots_as_planned")
CHECKS_VERSION = 2  # raised when what a check finds changes: the kept checks are made again
REPEATS_VERSION = 3  # and this when only the repeats' checks change: they alone are made again
WORDS_VERSION = 3  # and this when only how the words are read changes: they alone are read again
EDGE_CUT = "cut by the frame's edge"
HIDDEN = "hidden in the frame (words or their ground, a cell's or print's edge)"


# --- the orders ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PhotoTruth:
    """One photo of an order: its file, its duplicate group (the pool photo it copies, else
    itself), whether the film must leave it out, its labelled face cores (0..1 of the
    upright photo; cores the photo's edge cuts left out) and the picture it was cut from
    (its group when none is known)."""

    path: Path
    group: str
    cores: tuple[reg.Box, ...] = ()
    unusable: bool = False
    picture: str = ""


@dataclass(frozen=True)
class BenchOrder:
    """An order to render: its ``name`` (the render's folder), its order ``folder`` and its
    photos by the slot the worker gives them (``p01``... in name order)."""

    name: str
    folder: Path
    photos: dict[str, PhotoTruth]


def _slots(folder: Path) -> list[tuple[str, Path]]:
    files = sorted(p for p in (folder / "photos").iterdir() if p.is_file())
    return [(f"p{i:02d}", p) for i, p in enumerate(files, start=1)]


def corpus_orders(cache: Path | None = None, seed: int = 42) -> Path:
    """Where ``python -m bench.corpus.generate`` made the order folders (under
    ``FILM_CORPUS_CACHE``)."""
    return corpus_root(cache or default_cache(), seed) / "orders"


def corpus_order(order_id: str, orders: Path | None = None) -> BenchOrder:
    """A corpus order's folder and its photos' ground truth (``truth.json``)."""
    folder = (orders or corpus_orders()) / order_id
    if not (folder / "truth.json").exists():
        raise SystemExit(f"{folder} is missing: run python -m bench.corpus.generate "
                         "(with FILM_CORPUS_CACHE set as it was)")
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    by_file = {p["file"]: p for p in truth["photos"]}
    photos = {}
    for slot, path in _slots(folder):
        p = by_file[path.name.split("-", 1)[1]]
        cores = tuple(tuple(f["core"]) for f in p["faces"] if not f["cut_by_photo"])
        photos[slot] = PhotoTruth(path, p["duplicate_of"] or p["id"], cores,
                                  p["blank"] or p["near_blank"] or bool(p["degenerate"]),
                                  picture_of(p["source"]) if p["source"] else "")
    return BenchOrder(order_id, folder, photos)


def sample_order(sample: str, tier: str, dest: Path) -> BenchOrder:
    """``samples/SAMPLE`` in ``tier``, copied to ``dest/SAMPLE-TIER`` (as the benchmark cases
    and the base renders make the six sample orders), its faces from the hand labels."""
    source, folder = REPO / "samples" / sample, dest / f"{sample}-{tier}"
    if not (folder / "order.json").exists():
        shutil.copytree(source, folder, dirs_exist_ok=True)
        fields = json.loads((source / "order.json").read_text(encoding="utf-8"))
        fields["tier"] = tier
        (folder / "order.json").write_text(json.dumps(fields, ensure_ascii=False, indent=2),
                                           encoding="utf-8")
    labels = json.loads(LABELS.read_text(encoding="utf-8"))["photos"]
    photos = {}
    for slot, path in _slots(folder):
        label = labels.get(f"samples/{sample}/photos/{path.name}", {"faces": [], "angle": 0})
        cores = tuple(tuple(f["core"]) for f in label["faces"]
                      if not f.get("optional") and not label["angle"])
        photos[slot] = PhotoTruth(path, path.name, cores)
    return BenchOrder(folder.name, folder, photos)


def render(order: BenchOrder, out: Path) -> float:
    """Render ``order`` into ``out/NAME`` unless its films and timeline are there; the wall
    seconds it took (kept in :data:`RENDER_TIME` beside the films; 0 when unknown)."""
    folder = out / order.name
    timing = folder / RENDER_TIME
    if all((folder / f).exists() for f in ("16x9.mp4", "9x16.mp4", "timeline.json")):
        return float(timing.read_text()) if timing.exists() else 0.0
    start = time.monotonic()
    subprocess.run(["nice", "-n", "10", str(FILMWORKER), "render", str(order.folder), "--out",
                    str(folder), "--no-ui", "--storyboard", "--json"], check=True,
                   stdout=subprocess.DEVNULL, cwd=REPO)
    seconds = time.monotonic() - start
    timing.write_text(f"{seconds:.1f}\n")
    return seconds


# --- reading the films ---------------------------------------------------------------------


@dataclass
class Film:
    """One rendered film read back: every ``step``-th frame (film frame ``k * step`` is
    ``frames[k]``), RGB at :data:`DECODE_SCALE`."""

    aspect: str
    step: int
    frames: list[np.ndarray]

    def at(self, frame: int) -> np.ndarray | None:
        """The sampled frame for film frame ``frame`` (a multiple of ``step``)."""
        k = frame // self.step
        return self.frames[k] if frame % self.step == 0 and k < len(self.frames) else None


def read_film(video: Path, step: int) -> Film:
    """Every ``step``-th frame of ``video`` from its first, RGB at :data:`DECODE_SCALE`."""
    full = (1920, 1080) if video.stem == "16x9" else (1080, 1920)
    width, height = (round(v * DECODE_SCALE) for v in full)
    out = run_tool(ffmpeg_argv(
        "-i", str(video), "-vf",
        f"select='not(mod(n\\,{step}))',scale={width}:{height}:in_color_matrix=bt709:"
        "in_range=tv:flags=area", "-fps_mode", "passthrough", "-pix_fmt", "rgb24",
        "-f", "rawvideo", "pipe:1"), LIMITS)
    raw = np.frombuffer(out.stdout, np.uint8)
    count = raw.size // (width * height * 3)
    return Film(video.stem, step, list(raw[:count * width * height * 3]
                                       .reshape(count, height, width, 3)))


@dataclass
class Photo:
    """A photo as registration uses it: upright, at most :data:`PHOTO_SIDE` on its long side,
    grey, with its features and its face cores in these pixels."""

    grey: np.ndarray
    features: reg.Features
    cores: list[reg.Box]


def load_photo(truth: PhotoTruth) -> Photo:
    """``truth``'s photo, upright (EXIF), scaled for registration."""
    with Image.open(truth.path) as image:
        upright = ImageOps.exif_transpose(image).convert("L")
        scale = min(1.0, PHOTO_SIDE / max(upright.size))
        if scale < 1:
            upright = upright.resize((round(upright.width * scale),
                                      round(upright.height * scale)), Image.Resampling.LANCZOS)
        grey = np.asarray(upright)
    height, width = grey.shape
    cores = [(x0 * width, y0 * height, x1 * width, y1 * height) for x0, y0, x1, y1 in truth.cores]
    return Photo(grey, reg.features(grey), cores)


def alone_on_screen(timeline: Timeline, frame: int) -> tuple[int, Shot] | None:
    """The shot (index, shot) on screen at ``frame`` when it is the only one and the film is
    not fading in or out."""
    if frame < timeline.fade_in_frames or frame >= timeline.total_frames \
            - timeline.fade_out_frames:
        return None
    on = [(i, s) for i, s in enumerate(timeline.shots) if s.visible_in <= frame < s.visible_out]
    return on[0] if len(on) == 1 else None


def shown_photos(shot: Shot) -> list[str]:
    """The photo slots a shot shows (its own, a layout's partners); none for a clip or a
    photo brought to motion by the motion provider."""
    if shot.kind == "clip" or shot.plays_clip or shot.source_id is None \
            or not shot.source_id.startswith("p"):
        return []
    return [s for s in (shot.source_id, shot.partner_id, shot.second_partner_id) if s]


# --- (a) faces -----------------------------------------------------------------------------


@dataclass
class FaceCount:
    """Face cores seen on sampled frames: ``whole``, ``absent``, ``cut`` and photos the shot
    shows that registration did not find (``unregistered``)."""

    whole: int = 0
    absent: int = 0
    cut: int = 0
    unregistered: int = 0
    frames: int = 0
    failures: list[str] = field(default_factory=list)


def face_checks(timeline: Timeline, film: Film, photos: dict[str, Photo],
                count: FaceCount) -> None:
    """Every face core of the photos on ``film``'s sampled frames, added to ``count``."""
    every = max(1, round(SAMPLE_FPS / FACE_FPS))
    for k, rgb in enumerate(film.frames):
        frame = k * film.step
        if k % every:
            continue
        alone = alone_on_screen(timeline, frame)
        slots = [s for s in shown_photos(alone[1]) if photos[s].cores] if alone else []
        if not slots:
            continue
        count.frames += 1
        frame_grey = reg.grey(rgb)
        frame_features = reg.features(frame_grey)
        for slot in slots:
            photo = photos[slot]
            placement = reg.register(photo.features, frame_features)
            if placement is None:
                count.unregistered += 1
                continue
            shown = reg.shown_region(photo.grey, frame_grey, placement)
            for core in photo.cores:
                share = reg.core_shown(core, placement, shown)
                if share >= WHOLE_SHARE:
                    count.whole += 1
                elif share <= ABSENT_SHARE:
                    count.absent += 1
                else:
                    count.cut += 1
                    framed = reg.core_shown(core, placement, np.ones_like(shown))
                    how = EDGE_CUT if framed < WHOLE_SHARE else HIDDEN
                    count.failures.append(f"{film.aspect} {frame / timeline.fps:5.1f}s "
                                          f"#{alone[0]} {alone[1].kind} {slot}: face core "
                                          f"{share:.0%} shown, {how}")


# --- (c) which photo each shot shows -------------------------------------------------------


def middle_frame(timeline: Timeline, index: int, step: int) -> int | None:
    """The sampled frame nearest the middle of the frames shot ``index`` is alone on screen."""
    shot = timeline.shots[index]
    alone = [f for f in range(shot.visible_in - shot.visible_in % step, shot.visible_out, step)
             if (on := alone_on_screen(timeline, f)) and on[0] == index]
    return alone[len(alone) // 2] if alone else None


def photos_on(frame_features: reg.Features, photos: dict[str, Photo], cells: int) -> list[str]:
    """The slots of the ``cells`` photos registration finds best on a frame (one, or a
    layout's), best first: photos cut from one picture (a close-up and its tilted copy) match
    each other too, with fewer inliers."""
    found = {slot: p for slot, photo in photos.items()
             if (p := reg.register(photo.features, frame_features))}
    return sorted(found, key=lambda s: -found[s].inliers)[:cells]


@dataclass(frozen=True)
class Showing:
    """A shot that shows photos: its index, the slots the timeline plans, the slots
    registration found on its middle frame."""

    index: int
    planned: tuple[str, ...]
    found: tuple[str, ...]


def showings(timeline: Timeline, film: Film, photos: dict[str, Photo]) -> list[Showing]:
    """Every shot that shows photos, with what registration finds on its middle frame."""
    out = []
    for index, shot in enumerate(timeline.shots):
        planned = shown_photos(shot)
        frame = middle_frame(timeline, index, film.step) if planned else None
        rgb = film.at(frame) if frame is not None else None
        if rgb is None:
            continue
        found = photos_on(reg.features(rgb), photos, len(planned))
        out.append(Showing(index, tuple(planned), tuple(found)))
    return out


def repeat_failures(shows: list[Showing], groups: dict[str, str],
                    pictures: dict[str, str] | None = None) -> dict[str, list[str] | None]:
    """``first_round``, ``no_back_to_back`` and ``shots_as_planned`` over the registered
    showings (a photo's duplicates are one photo: ``groups``); None where a check does not
    apply (one photo: every shot shows it). A shot registered as another photo cut from the
    picture it plans (``pictures``: a close-up and the group photo it came from) shows what
    it plans: registration cannot tell the two apart. In a film of
    :data:`media.plan.pacing.FEW_PHOTOS` pictures or fewer the first round is complete once
    every picture was shown (the plan-level promise's rule)."""
    picture = {slot: (pictures or {}).get(slot) or group for slot, group in groups.items()}
    seen_groups = [{groups[s] for s in show.found} for show in shows]
    everyone = set().union(*seen_groups) if seen_groups else set()
    shown_pictures = {picture[s] for show in shows for s in show.found}
    round_of = picture if len(shown_pictures) <= FEW_PHOTOS else groups  # as the plan's promise
    rounds = [{round_of[s] for s in show.found} for show in shows]
    every_round = set().union(*rounds) if rounds else set()
    first: list[str] = []
    seen: set[str] = set()
    seen_rounds: set[str] = set()
    for show, gs, rs in zip(shows, seen_groups, rounds, strict=True):
        again = gs & seen
        if again and not first and not every_round <= seen_rounds:
            first.append(f"#{show.index} shows {sorted(again)[0]} again before "
                         f"{len(every_round - seen_rounds)} unseen")
        seen |= gs
        seen_rounds |= rs
    back = [f"#{a.index}->#{b.index} {sorted(ga & gb)[0]}"
            for (a, ga), (b, gb) in itertools.pairwise(zip(shows, seen_groups, strict=True))
            if b.index == a.index + 1 and ga & gb]
    off = [f"#{show.index} plans {show.planned[0]} shows "
           f"{show.found[0] if show.found else 'no photo found'}"
           for show in shows if not show.found or picture[show.found[0]]
           not in {picture[s] for s in show.planned}]
    several = len(everyone) >= 2
    return {"first_round": first if several else None,
            "no_back_to_back": back if several else None, "shots_as_planned": off}


# --- (b) words -----------------------------------------------------------------------------


def phone_view(rgb: np.ndarray, width: int) -> np.ndarray:
    """``rgb`` as a phone shows it ``width`` pixels wide, doubled for OCR (as
    :func:`bench.text_reads.ocr` does)."""
    height = round(rgb.shape[0] * width / rgb.shape[1])
    small = cv2.resize(rgb, (width, height), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (2 * width, 2 * height), interpolation=cv2.INTER_CUBIC)


def _tesseract(rgb: np.ndarray, lang: str, *extra: str, layout: str = "6") -> str:
    """What tesseract reads in ``rgb`` in the languages ``lang``, as one block of text
    (``layout`` is its ``--psm``: 6 one block, 3 its own page layout)."""
    ok, png = cv2.imencode(".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
    assert ok
    done = subprocess.run(["tesseract", "stdin", "stdout", "-l", lang, "--psm", layout, *extra],
                          input=png.tobytes(), capture_output=True, timeout=120, check=True)
    return done.stdout.decode("utf-8", "replace")


def _found_rows(view: np.ndarray, want: list[str], lang: str) -> list[tuple[int, int]]:
    """The rows (top, bottom) of each word of ``want`` tesseract finds in ``view``, band by
    band."""
    found = []
    for band_top, band_bottom in ((0.0, 0.45), (0.3, 0.75), (0.55, 1.0)):
        top = round(band_top * view.shape[0])
        tsv = _tesseract(view[top:round(band_bottom * view.shape[0])], lang, "tsv")
        for row in tsv.splitlines()[1:]:
            cells = row.split("\t")
            if len(cells) == 12 and set(words(cells[11])) & set(want):
                found.append((top + int(cells[7]), top + int(cells[7]) + int(cells[9])))
    return found


def _halved(view: np.ndarray) -> np.ndarray:
    """A phone view (doubled) at the phone's own size."""
    return cv2.resize(view, (view.shape[1] // 2, view.shape[0] // 2), interpolation=cv2.INTER_AREA)


def text_band(view: np.ndarray, want: list[str], lang: str) -> tuple[int, int] | None:
    """The rows (top, bottom) of ``view`` where OCR finds any of the ``want`` words (in the
    doubled view, else at the phone's size: large type), with a margin of a line's height;
    None when it finds none."""
    found = _found_rows(view, want, lang) or [(2 * t, 2 * b) for t, b in
                                              _found_rows(_halved(view), want, lang)]
    if not found:
        return None
    line = max(b - t for t, b in found)
    return (max(0, min(t for t, _ in found) - 2 * line),
            min(view.shape[0], max(b for _, b in found) + 2 * line))


def reads(view: np.ndarray, band: tuple[int, int] | None, want: list[str], share: float,
          width: int, lang: str) -> bool:
    """Whether ``view`` (a phone view) gives back ``share`` of the ``want`` words, read in the
    languages ``lang``: in ``band`` doubled, then at the phone's size, then band by band over
    the whole frame (both sizes, :func:`bench.text_reads.ocr`), then the whole frame at the
    phone's size in tesseract's own page layout; each read only while words are still missing
    (a band around a picture's busy detail can throw the block read of words a reader sees, and
    a block read of two scripts set large, a Latin occasion over an Arabic name, reads
    neither)."""
    def enough(read: set[str]) -> bool:
        return len([w for w in want if w in read]) >= share * len(want)

    read: set[str] = set()
    if band is not None:
        read |= set(words(_tesseract(view[band[0]:band[1]], lang)))
        if enough(read):
            return True
        read |= set(words(_tesseract(_halved(view[band[0]:band[1]]), lang)))
        if enough(read):
            return True
    read |= ocr(_halved(view), width, lang, want)
    if enough(read):
        return True
    read |= set(words(_tesseract(_halved(view), lang, layout="3")))
    return enough(read) or enough(read | set(words(" ".join(lines_read(_halved(view), lang)))))


LINE_MIN_PX = 8  # a run of inked rows shorter than this is a rule or a speck, not a line


def lines_read(rgb: np.ndarray, lang: str) -> list[str]:
    """What tesseract reads in each line of ``rgb`` on its own (``--psm 7``): the lines are
    the runs of rows with ink in the frame's Otsu split (the lesser share is ink, light words
    on a dark ground or dark on light), each set dark on white with a third of its height
    around it. Tesseract's own layout can skip a whole line of large Arabic (the second line
    of a 9:16 memory) that it reads alone."""
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    ink = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]
    if ink.mean() > 127:
        ink = 255 - ink
    inked = np.flatnonzero((ink > 0).sum(axis=1) > 2)
    runs = np.split(inked, np.flatnonzero(np.diff(inked) > 1) + 1) if inked.size else []
    out = []
    for run in (r for r in runs if r.size >= LINE_MIN_PX):
        pad = run.size // 3
        line = 255 - ink[max(0, run[0] - pad):run[-1] + 1 + pad]
        line = cv2.copyMakeBorder(line, 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=255)
        out.append(" ".join(_tesseract(cv2.cvtColor(line, cv2.COLOR_GRAY2RGB), lang,
                                       layout="7").split()))
    return out


def word_checks(timeline: Timeline, film: Film) -> tuple[list[dict[str, Any]], list[str]]:
    """Each card of ``film``: the seconds its words read back against the seconds needed;
    the rows and the failures (a text that reads shorter than it needs, or never)."""
    width = PHONE_WIDTH[film.aspect]
    rows, failures = [], []
    for index, shot in enumerate(timeline.shots):
        if shot.kind != "card" or shot.card is None:
            continue
        text = " / ".join(line for line in shot.card.lines if line)
        want, share, need = wanted(shot.card)
        lang = ocr_languages(text)
        if not want or lang is None:
            rows.append({"film": film.aspect, "shot": index, "kind": shot.card.kind,
                         "text": text, "read_s": None, "need_s": need})
            continue
        sampled = [f for f in range(shot.visible_in - shot.visible_in % film.step,
                                    shot.visible_out, film.step) if f >= shot.visible_in]
        views = [phone_view(rgb, width) for f in sampled if (rgb := film.at(f)) is not None]
        band = None
        for probe in (views[len(views) * 2 // 3:] + views[:len(views) * 2 // 3])[:3]:
            band = band or text_band(probe, want, lang)
        read_s = sum(reads(v, band, want, share, width, lang) for v in views) / SAMPLE_FPS
        rows.append({"film": film.aspect, "shot": index, "kind": shot.card.kind,
                     "part": shot.card.part, "text": text, "read_s": read_s, "need_s": need,
                     "on_screen_s": round(shot.frames / timeline.fps, 2)})
        short = need is not None and read_s + 1 / SAMPLE_FPS < need
        if short or read_s == 0:
            failures.append(f"{film.aspect} #{index} {shot.card.kind} read {read_s:.1f} s of "
                            f"{shot.frames / timeline.fps:.1f} on screen, needs "
                            f"{need or 0:.1f}: {text[:40]!r}")
    return rows, failures


# --- one order, all orders -----------------------------------------------------------------


@dataclass
class OrderResult:
    """One rendered order's frame-level checks: failures per invariant (None: not
    applicable), the faces counted, the texts read, the wall seconds."""

    name: str
    checks: dict[str, list[str] | None]
    faces: dict[str, int] = field(default_factory=dict)
    texts: list[dict[str, Any]] = field(default_factory=list)
    render_s: float = 0.0
    check_s: float = 0.0

    @property
    def failing(self) -> list[str]:
        """The invariants this order fails."""
        return [name for name, fails in self.checks.items() if fails]


def repeat_checks(order: BenchOrder, folder: Path) -> dict[str, list[str] | None]:
    """``first_round``, ``no_back_to_back`` and ``shots_as_planned`` alone, of the 16:9 film
    in ``folder``."""
    timeline = timeline_from_dict(json.loads((folder / "timeline.json").read_text("utf-8")))
    film = read_film(folder / "16x9.mp4", max(1, round(timeline.fps / SAMPLE_FPS)))
    photos = {slot: load_photo(truth) for slot, truth in order.photos.items()}
    return repeat_failures(showings(timeline, film, photos),
                           {slot: truth.group for slot, truth in order.photos.items()},
                           {slot: truth.picture for slot, truth in order.photos.items()})


def words_checks(folder: Path) -> tuple[list[str] | None, list[dict[str, Any]]]:
    """``words_read`` alone (None when no card's script is judged) and the rows of what each
    card read, of both films in ``folder``."""
    timeline = timeline_from_dict(json.loads((folder / "timeline.json").read_text("utf-8")))
    texts, failures = [], []
    for aspect in PHONE_WIDTH:
        rows, fails = word_checks(timeline, read_film(folder / f"{aspect}.mp4",
                                                      max(1, round(timeline.fps / SAMPLE_FPS))))
        texts += rows
        failures += fails
    return (failures if any(r["read_s"] is not None for r in texts) else None), texts


def check_rendered(order: BenchOrder, folder: Path) -> OrderResult:
    """The frame-level checks of the films rendered for ``order`` in ``folder``."""
    timeline = timeline_from_dict(json.loads((folder / "timeline.json").read_text("utf-8")))
    step = max(1, round(timeline.fps / SAMPLE_FPS))
    photos = {slot: load_photo(truth) for slot, truth in order.photos.items()}
    groups = {slot: truth.group for slot, truth in order.photos.items()}
    count, texts, word_failures = FaceCount(), [], []
    checks: dict[str, list[str] | None] = {}
    for aspect in PHONE_WIDTH:
        film = read_film(folder / f"{aspect}.mp4", step)
        face_checks(timeline, film, photos, count)
        rows, fails = word_checks(timeline, film)
        texts += rows
        word_failures += fails
        if aspect == "16x9":
            checks.update(repeat_failures(showings(timeline, film, photos), groups,
                                          {s: t.picture for s, t in order.photos.items()}))
    has_faces = any(p.cores for p in photos.values())
    judged_faces = has_faces and count.frames
    checks["faces_whole"] = [f for f in count.failures if f.endswith(EDGE_CUT)] \
        if judged_faces else None
    checks["faces_unhidden"] = [f for f in count.failures if f.endswith(HIDDEN)] \
        if judged_faces else None
    judged = [r for r in texts if r["read_s"] is not None]
    checks["words_read"] = word_failures if judged else None
    return OrderResult(order.name, {name: checks.get(name) for name in INVARIANTS},
                       {"whole": count.whole, "absent": count.absent, "cut": count.cut,
                        "unregistered": count.unregistered, "frames": count.frames}, texts)


def badness(result: OrderResult) -> tuple[int, int]:
    """How bad a film is: (invariants failed, failures counted over them)."""
    return len(result.failing), sum(len(result.checks[n] or []) for n in result.failing)


def worst(results: Iterable[OrderResult], count: int = WORST) -> list[OrderResult]:
    """The ``count`` worst films that fail anything, worst first (most invariants failed, then
    most failures; ties by name)."""
    failing = [r for r in results if r.failing]
    return sorted(failing, key=lambda r: (-badness(r)[0], -badness(r)[1], r.name))[:count]


def pass_rates(results: list[OrderResult]) -> dict[str, tuple[int, int]]:
    """Per invariant: (orders passing, orders it applies to)."""
    rates = {}
    for name in INVARIANTS:
        applied = [r for r in results if r.checks[name] is not None]
        rates[name] = (sum(not r.checks[name] for r in applied), len(applied))
    return rates


def contact_sheet(video: Path, out: Path, width: int, cols: int = 10) -> None:
    """A 1 fps contact sheet of ``video``, each frame ``width`` pixels wide and stamped with
    its second."""
    seconds = _duration(video)
    rows = -(-int(np.ceil(seconds)) // cols)
    font = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
    run_tool(ffmpeg_argv(
        "-i", str(video), "-vf",
        f"fps=1,scale={width}:-2,drawtext=fontfile={font}:text='%{{eif\\:t\\:d}}s':x=4:y=4:"
        f"fontsize=14:fontcolor=yellow:box=1:boxcolor=black@0.6,tile={cols}x{rows}:padding=2",
        "-frames:v", "1", str(out)), LIMITS)


def _duration(video: Path) -> float:
    out = run_tool(ffprobe_argv("-show_entries", "format=duration", "-of", "csv=p=0",
                                str(video)), LIMITS)
    return float(out.stdout.decode().strip())


# --- the command ---------------------------------------------------------------------------


def bench_orders(ids: list[str] | None, samples: bool, out: Path) -> list[BenchOrder]:
    """The orders to render: ``ids`` (else :data:`DEFAULT_ORDERS`), or with ``samples`` the
    three samples in both tiers (their order folders made under ``out/orders``; ``ids`` picks
    among them, ``birthday-standard``...)."""
    if samples:
        return [sample_order(s, t, out / "orders") for s in SAMPLES for t in TIERS
                if not ids or f"{s}-{t}" in ids]
    return [corpus_order(i) for i in ids or DEFAULT_ORDERS]


CHECKED = "frames-check.json"  # a film's checks, kept beside it while the checking code holds


def checks_key() -> str:
    """What the checks run, hashed: :data:`CHECKS_VERSION`, registration, the OCR's reading."""
    digest = hashlib.sha256(str(CHECKS_VERSION).encode())
    for module in (Path(reg.__file__), REPO / "bench" / "text_reads.py"):
        digest.update(module.read_bytes())
    return digest.hexdigest()[:16]


def checked(order: BenchOrder, out: Path) -> OrderResult:
    """The checks of ``order``'s films in ``out/NAME``: kept from an earlier run by the same
    code (:data:`CHECKED`), else run and kept."""
    folder, key = out / order.name, checks_key()
    kept = folder / CHECKED
    if kept.exists():
        data = json.loads(kept.read_text(encoding="utf-8"))
        if data.pop("key") == key and data.pop("films") == _films_stamp(folder):
            stale_repeats = data.pop("repeats", None) != REPEATS_VERSION
            stale_words = data.pop("words", None) != WORDS_VERSION
            if stale_repeats:
                data["checks"].update(repeat_checks(order, folder))
            if stale_words:
                data["checks"]["words_read"], data["texts"] = words_checks(folder)
            if stale_repeats or stale_words:
                _keep(kept, key, folder, OrderResult(**data))
            return OrderResult(**data)
    began = time.monotonic()
    result = check_rendered(order, folder)
    result.check_s = time.monotonic() - began
    _keep(kept, key, folder, result)
    return result


def _keep(kept: Path, key: str, folder: Path, result: OrderResult) -> None:
    kept.write_text(json.dumps({"key": key, "films": _films_stamp(folder),
                                "repeats": REPEATS_VERSION, "words": WORDS_VERSION,
                                **vars(result)},
                               ensure_ascii=False), encoding="utf-8")


def _films_stamp(folder: Path) -> list[float]:
    return [(folder / f).stat().st_mtime for f in ("16x9.mp4", "9x16.mp4", "timeline.json")]


_FACE_LINE = re.compile(r"^(\S+)\s+([\d.]+)s (#\d+ \w+ p\d+): face core (\d+)% shown, (.*)$")


def summarized(lines: list[str]) -> list[str]:
    """Failure lines with the faces on one shot told once: ``16x9 #1 card p01: 4 cores over
    3.0-6.0 s, 29-86 % of a core shown, cut by the frame's edge`` (a core on a frame is one);
    others as they are, in order."""
    runs: dict[tuple[str, str, str], list[tuple[float, int]]] = {}
    out: list[str | tuple[str, str, str]] = []
    for line in lines:
        match = _FACE_LINE.match(line)
        if not match:
            out.append(line)
            continue
        aspect, at, shot, share, how = match.groups()
        key = (aspect, shot, how)
        if key not in runs:
            runs[key] = []
            out.append(key)
        runs[key].append((float(at), int(share)))
    return [item if isinstance(item, str) else
            f"{item[0]} {item[1]}: {len(runs[item])} cores over "
            f"{min(t for t, _ in runs[item]):.1f}-{max(t for t, _ in runs[item]):.1f} s, "
            f"{min(v for _, v in runs[item])}-{max(v for _, v in runs[item])} % of a core "
            f"shown, {item[2]}" for item in out]


def print_report(results: list[OrderResult], wall_s: float) -> None:
    """Each order's failures, then each invariant's pass rate."""
    for r in results:
        faces = r.faces
        print(f"{r.name:24s} render {r.render_s:5.0f} s check {r.check_s:4.0f} s  faces "
              f"{faces['whole']} whole {faces['absent']} absent {faces['cut']} cut "
              f"({faces['unregistered']} unregistered)  fails: {', '.join(r.failing) or '-'}")
        for name in r.failing:
            for line in summarized(r.checks[name] or [])[:6]:
                print(f"    {name}: {line}")
    print()
    for name, (passed, applied) in pass_rates(results).items():
        rate = f"{100 * passed / applied:5.1f} %" if applied else "   n/a"
        print(f"{name:18s} {rate}  ({passed}/{applied} orders)")
    renders, checks = sum(r.render_s for r in results), sum(r.check_s for r in results)
    print(f"wall time {wall_s:.0f} s for {len(results)} orders this run; as measured when "
          f"made: renders {renders:.0f} s, checks {checks:.0f} s")


def write_worst(results: list[OrderResult], out: Path) -> list[Path]:
    """The contact sheets of the :data:`WORST` worst films, both aspects, and
    ``out/worst.txt`` naming their failures; the sheets' paths."""
    sheets, lines = [], []
    for rank, result in enumerate(worst(results), start=1):
        lines.append(f"{rank}. {result.name}: fails {', '.join(result.failing)}")
        for name in result.failing:
            lines += [f"   {name}: {line}" for line in summarized(result.checks[name] or [])]
        for aspect, width in SHEET_WIDTH.items():
            sheet = out / f"worst-{rank}-{result.name}-{aspect}.png"
            contact_sheet(out / result.name / f"{aspect}.mp4", sheet, width,
                          SHEET_COLUMNS[aspect])
            sheets.append(sheet)
    (out / "worst.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sheets


def main(argv: list[str] | None = None) -> None:
    """Render the chosen orders, check their frames, print the pass rates, draw the worst."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", nargs="+", metavar="ID",
                        help="corpus order ids (with --samples: birthday-standard...)")
    parser.add_argument("--samples", action="store_true",
                        help="the three samples in both tiers instead of corpus orders")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    start, results = time.monotonic(), []
    for order in bench_orders(args.orders, args.samples, args.out):
        render_s = render(order, args.out)
        result = checked(order, args.out)
        result.render_s = render_s
        results.append(result)
        print(f"{order.name}: {', '.join(result.failing) or 'ok'} "
              f"({render_s:.0f} + {result.check_s:.0f} s)", file=sys.stderr, flush=True)
    print_report(results, time.monotonic() - start)
    write_worst(results, args.out)
    if args.json:
        args.json.write_text(json.dumps([vars(r) for r in results], indent=1,
                                        ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
