"""The corpus: a pool of photos transformed as phones and scanners make them, and order folders
drawn from it, deterministic from a seed, written into a cache directory (never the
repository).

``generate_corpus(cache_dir, seed, orders)`` writes ``pool/`` (each photo once, with its truth),
``clips/`` (the bundled clips and a synthetic one) and ``orders/<id>/`` (``order.json``,
``photos/`` and ``clips/`` hard-linked from the pool, ``truth.json``), and returns the cases.
A second call with the same seed, count and face labels reuses what is there.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from bench.corpus import transforms as tf
from bench.corpus.sources import (
    CLIPS,
    LABELS,
    Source,
    clip_path,
    labelled_sources,
    load_source,
    picture_of,
)
from bench.corpus.texts import TEXT_KINDS, WORDS
from bench.corpus.transforms import Face, Picture
from media.base.runner import tool_path

GENERATOR_VERSION = "1"
"""Bumped when the pool or the orders change for the same seed (the cache is keyed by it and
by the face labels: a corrected label makes the pool again)."""
PHOTO_COUNTS = (1, 2, 3, 5, 10, 30)
LENGTHS = (30, 30, 37, 45, 45, 60, 61, 90, 119, 120, 150, 173, 180)
OCCASIONS: tuple[dict[str, Any], ...] = (
    {"slug": "birthday", "name": "Birthday", "short_name": "Happy Birthday", "tone": "joyful"},
    {"slug": "anniversary", "name": "Anniversary", "short_name": "Happy Anniversary",
     "tone": "romantic"},
    {"slug": "memorial", "name": "Memorial", "short_name": "In Loving Memory",
     "tone": "tender", "gentle": True},
    {"slug": "pet-tribute", "name": "Pet Tribute", "short_name": "Forever Our Good Dog",
     "tone": "tender", "gentle": True},
    {"slug": "wedding", "name": "Wedding", "short_name": "Just Married", "tone": "loving"},
    {"slug": "graduation", "name": "Graduation", "short_name": "Congratulations, Graduate",
     "tone": "proud"},
    {"slug": "retirement", "name": "Retirement", "short_name": "Happy Retirement",
     "tone": "warm"},
    {"slug": "new-baby", "name": "New Baby", "short_name": "Welcome, Little One",
     "tone": "joyful"},
    {"slug": "mothers-day", "name": "Mother's Day", "short_name": "Happy Mother's Day",
     "tone": "warm"},
    {"slug": "fathers-day", "name": "Father's Day", "short_name": "Happy Father's Day",
     "tone": "warm"},
    {"slug": "valentines-day", "name": "Valentine's Day", "short_name": "Be Mine",
     "tone": "romantic"},
    {"slug": "thank-you", "name": "Thank You", "short_name": "Thank You", "tone": "grateful"},
)
TIERS = ("standard", "signature")
STYLES = ("gift", "brand", "social")
LOGO_URL = "https://logo.invalid/brand.png"
"""Brand orders' logo: a host that never resolves (the plan level never fetches it)."""

USABLE_KINDS = ("portrait", "closeup", "closeup_tilted", "closeup_profile", "closeup_partial",
                "group", "scenery", "pet", "old_scan", "phone_exif", "panorama",
                "tall_screenshot", "tiny")
BLANK_KINDS = ("blank_pocket", "blank_white", "blank_grey", "near_blank")
DEGENERATE_KINDS = ("degenerate_stripe", "degenerate_aspect", "degenerate_small")
DUPLICATE_KINDS = ("duplicate", "near_duplicate")
WHOLE_PICTURE_KINDS = ("portrait", "group", "scenery", "pet", "old_scan", "phone_exif", "tiny",
                       "tall_screenshot")
"""Kinds that show their source's whole picture, only rescaled, recoloured, grained or
trimmed to 4:3, or on a screenshot's plain canvas, which intake cuts away (a close-up or a
panorama's strip makes another one)."""
SCENARIOS: dict[str, dict[str, float]] = {
    "mixed": {k: 1.0 for k in USABLE_KINDS},
    "memorial_closeup": {"closeup": 2, "closeup_tilted": 3, "closeup_partial": 1,
                         "old_scan": 2, "portrait": 1},
    "people": {"portrait": 2, "group": 3, "closeup": 1, "closeup_profile": 1, "phone_exif": 1},
    "no_faces": {"scenery": 2, "pet": 2, "panorama": 1},
    "phone": {"phone_exif": 3, "tall_screenshot": 1, "panorama": 1, "portrait": 1},
    "scans": {"old_scan": 3, "tiny": 2, "portrait": 1},
    "blank_mix": {k: 1.0 for k in USABLE_KINDS},
    "degenerate_mix": {k: 1.0 for k in USABLE_KINDS},
    "duplicates": {k: 1.0 for k in USABLE_KINDS},
    "all_blank": {},
}


@dataclass
class PoolPhoto:
    """One photo of the pool: its file and what the generator knows of it."""

    id: str
    file: str
    kind: str
    source: str
    width: int
    height: int
    """The upright photo's size in pixels (after its EXIF orientation)."""
    faces: list[dict[str, Any]] = field(default_factory=list)
    """Faces, normalized to the upright photo: ``box``, ``core``, ``profile``, ``small``,
    ``cut_by_photo`` (the core reaches past the photo's edge: it can never be whole)."""
    blank: bool = False
    near_blank: bool = False
    degenerate: str = ""
    duplicate_of: str = ""
    exif_orientation: int = 1


@dataclass
class Case:
    """One corpus order: its folder, its scenario and the ground truth of its photos."""

    id: str
    folder: Path
    scenario: str
    text_kind: str
    photos: list[PoolPhoto]
    clips: list[str]

    def truth(self) -> dict[str, Any]:
        """The order's ground truth as JSON data."""
        order = json.loads((self.folder / "order.json").read_text(encoding="utf-8"))
        return {"id": self.id, "scenario": self.scenario, "text_kind": self.text_kind,
                "photos": [asdict(p) for p in self.photos], "clips": self.clips,
                "words": {k: order.get(k) for k in ("recipient_name", "relationship", "memory",
                                                    "story_note", "feeling_words")}}


# --- the pool ------------------------------------------------------------------------------


def _faces_json(picture: Picture) -> list[dict[str, Any]]:
    width, height = picture.size
    out = []
    for face in picture.faces:
        out.append({"box": [round(v, 5) for v in _norm(face.box, width, height)],
                    "core": [round(v, 5) for v in _norm(face.core, width, height)],
                    "profile": face.profile, "small": face.small,
                    "cut_by_photo": not tf.inside(face, picture.size)})
    return out


def _norm(box: tf.BoxPx, width: int, height: int) -> tuple[float, ...]:
    return box[0] / width, box[1] / height, box[2] / width, box[3] / height


_EXIF_INVERSE = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
                 4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
                 6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
                 8: Image.Transpose.ROTATE_270}
"""The pixels a camera stores for each EXIF orientation, from the upright picture."""


def _save(picture: Picture, path: Path, fmt: str, quality: int = 90,
          orientation: int = 1) -> None:
    image = Image.fromarray(picture.pixels)
    if orientation != 1:
        image = image.transpose(_EXIF_INVERSE[orientation])
        exif = Image.Exif()
        exif[0x0112] = orientation
        exif[0x010F] = "Corpus phone"
        image.save(path, "JPEG", quality=quality, exif=exif.tobytes())
        return
    if fmt == "PNG":
        image.save(path, "PNG", compress_level=1)
    elif fmt == "WEBP":
        image.save(path, "WEBP", quality=quality, method=0)
    else:
        image.save(path, "JPEG", quality=quality)


@dataclass
class _Maker:
    """Writes the pool's photos into ``folder``, each once."""

    folder: Path
    rng: np.random.Generator
    photos: list[PoolPhoto] = field(default_factory=list)

    def add(self, kind: str, source: str, picture: Picture, fmt: str = "JPEG", *,
            quality: int = 90, orientation: int = 1, **truth: Any) -> PoolPhoto:
        pid = f"{kind}-{len(self.photos):03d}"
        suffix = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}[fmt]
        path = self.folder / f"{pid}.{suffix}"
        if not path.exists():
            _save(picture, path, fmt, quality, orientation)
        width, height = picture.size
        photo = PoolPhoto(pid, path.name, kind, source, width, height, _faces_json(picture),
                          exif_orientation=orientation, **truth)
        self.photos.append(photo)
        return photo


def build_pool(folder: Path, seed: int) -> list[PoolPhoto]:
    """Every photo of the pool, written into ``folder`` (existing files are kept)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, 42])
    make = _Maker(folder, rng)
    sources = labelled_sources()
    loaded = {s.key: load_source(s) for s in sources}
    with_faces = [s for s in sources if s.has_faces]
    no_faces = [s for s in sources if not s.has_faces]
    for s in with_faces:  # as they come: small photos from an album
        make.add("group" if s.kind == "group" else "portrait", s.key, loaded[s.key])
    for s in no_faces:
        make.add("pet" if s.kind == "pet" else "scenery", s.key, loaded[s.key])
    _close_ups(make, with_faces, loaded)
    _scans_and_phones(make, sources, loaded)
    _odd_shapes(make, sources, no_faces, loaded)
    _blanks_and_degenerates(make, loaded)
    _duplicates(make)
    return make.photos


def _biggest(picture: Picture) -> Face:
    return max(picture.faces, key=lambda f: (f.box[2] - f.box[0]) * (f.box[3] - f.box[1]))


def _close_ups(make: _Maker, with_faces: list[Source], loaded: dict[str, Picture]) -> None:
    """Faces filling the photo: straight, tilted up to 30 degrees, in profile, partly out."""
    rng = make.rng
    for k, s in enumerate(with_faces):
        picture = loaded[s.key]
        face = _biggest(picture)
        ratio = (3 / 4, 4 / 3, 1.0)[k % 3]
        fill = float(rng.uniform(0.75, 0.98))
        close = tf.long_edge(tf.close_up(picture, face, fill, ratio), int(rng.integers(1200,
                                                                                         2000)))
        make.add("closeup", s.key, close)
        angle = float(rng.choice([-1, 1]) * rng.uniform(10, 30))
        make.add("closeup_tilted", s.key, tf.rotate(tf.long_edge(tf.close_up(
            picture, face, fill * 0.9, ratio), 1600), angle), quality=85)
        offset = (float(rng.choice([-1, 1]) * rng.uniform(0.2, 0.32)), float(rng.uniform(-0.1,
                                                                                         0.25)))
        make.add("closeup_partial", s.key, tf.long_edge(tf.close_up(picture, face, 0.9, ratio,
                                                                    offset), 1400))
        for prof in (f for f in picture.faces if f.profile):
            make.add("closeup_profile", s.key,
                     tf.long_edge(tf.close_up(picture, prof, 0.8, 4 / 5), 1200))


def _scans_and_phones(make: _Maker, sources: tuple[Source, ...],
                      loaded: dict[str, Picture]) -> None:
    """Old scans (small, sepia, faded, grain, dust) and 12 MP phone JPEGs, every EXIF
    orientation 2-8 among them."""
    rng = make.rng
    people = [s for s in sources if s.has_faces]
    for s in people[::2]:
        make.add("old_scan", s.key, tf.old_scan(loaded[s.key], rng, int(rng.integers(400, 720))),
                 quality=80)
    picks = [*people[1::3], *(s for s in sources if not s.has_faces)][:10]
    for k, s in enumerate(picks):
        picture = loaded[s.key]
        width, height = picture.size
        size = (4000, 3000) if width >= height else (3000, 4000)
        big = tf.grain(tf.resize(tf.crop(picture, _ratio_box(picture.size, size)), size),
                       2.0, rng)
        make.add("phone_exif", s.key, big, quality=82, orientation=2 + k % 7)


def _ratio_box(size: tuple[int, int], target: tuple[int, int]) -> tf.BoxPx:
    """The largest centred box of ``size`` with ``target``'s ratio."""
    width, height = size
    ratio = target[0] / target[1]
    w, h = (height * ratio, height) if width / height > ratio else (width, width / ratio)
    return (width - w) / 2, (height - h) / 2, (width + w) / 2, (height + h) / 2


def _odd_shapes(make: _Maker, sources: tuple[Source, ...], no_faces: list[Source],
                loaded: dict[str, Picture]) -> None:
    """Panoramas (3:1 to 4:1), tall phone screenshots of a photo, tiny photos."""
    rng = make.rng
    wide = [s for s in no_faces if loaded[s.key].size[0] >= 1600] or no_faces
    for k, s in enumerate(wide[:4]):
        picture = loaded[s.key]
        width, height = picture.size
        ratio = (3.0, 3.5, 4.0, 3.2)[k]
        strip_h = width / ratio
        top = float(rng.uniform(0, max(0.0, height - strip_h)))
        strip = tf.crop(picture, (0, top, width, top + strip_h))
        make.add("panorama", s.key, tf.long_edge(strip, 4000 if k % 2 else 3000))
    people = [s for s in sources if s.has_faces]
    for k, s in enumerate(people[:5]):
        shot = tf.long_edge(loaded[s.key], 1170)
        canvas = (1170, 2532)
        top = int(rng.integers(300, max(301, 2532 - shot.size[1] - 300)))
        colour = (255, 255, 255) if k % 2 else (0, 0, 0)
        make.add("tall_screenshot", s.key, tf.on_canvas(shot, canvas, (0, top), colour),
                 "PNG" if k % 2 else "JPEG")
    for k, s in enumerate(sources[::4]):
        make.add("tiny", s.key, tf.long_edge(loaded[s.key], int(rng.integers(120, 320))),
                 "WEBP" if k % 3 == 0 else "JPEG")


def _blanks_and_degenerates(make: _Maker, loaded: dict[str, Picture]) -> None:
    """Pocket shots, white screenshots, grey frames, near-blank ones; a 20000x20 stripe, a
    6:1 strip, photos under the usable size."""
    rng = make.rng
    for k in range(3):
        make.add("blank_pocket", "", tf.plain((4032, 3024) if k else (3024, 4032), (4, 3, 5),
                                              float(rng.uniform(2, 5)), rng), quality=85,
                 blank=True)
    for k in range(2):
        white = tf.plain((1170, 2532), (255, 255, 255), 0, rng)
        white.pixels[:90] = 246  # a status bar
        make.add("blank_white", "", white, "PNG" if k else "JPEG", blank=True)
    make.add("blank_grey", "", tf.plain((1600, 1200), (128, 128, 128), 0, rng), blank=True)
    make.add("blank_grey", "", tf.plain((800, 800), (200, 198, 190), 0.5, rng), "WEBP",
             blank=True)
    scenic = loaded["samples/anniversary/photos/05-skagen.jpg"]
    dark = tf.grain(tf.faded(scenic, 0.04, -118), 1.5, rng)
    make.add("near_blank", scenic and "samples/anniversary/photos/05-skagen.jpg", dark,
             near_blank=True)
    washed = tf.faded(loaded["tests/fixtures/order/photos/03-coffee.jpg"], 0.03, 120)
    make.add("near_blank", "tests/fixtures/order/photos/03-coffee.jpg", washed, near_blank=True)
    stripe = tf.resize(tf.crop(scenic, (0, 200, scenic.size[0], 204)), (20000, 20))
    make.add("degenerate_stripe", "samples/anniversary/photos/05-skagen.jpg", stripe, "PNG",
             degenerate="aspect_beyond_4_to_1")
    strip = tf.crop(scenic, (0, 150, scenic.size[0], 150 + scenic.size[0] / 6))
    make.add("degenerate_aspect", "samples/anniversary/photos/05-skagen.jpg",
             tf.long_edge(strip, 3000), degenerate="aspect_beyond_4_to_1")
    portrait = loaded["samples/birthday/photos/01-portrait.jpg"]
    make.add("degenerate_small", "samples/birthday/photos/01-portrait.jpg",
             tf.long_edge(portrait, 14), "PNG", degenerate="below_usable_size")
    make.add("degenerate_small", "samples/birthday/photos/01-portrait.jpg",
             tf.long_edge(portrait, 48), degenerate="below_usable_size")


def _duplicates(make: _Maker) -> None:
    """Exact copies (the same file sent twice) and near-copies (recompressed, cropped 2-5 %)
    of some usable photos."""
    rng = make.rng
    originals = [p for p in make.photos if p.kind in ("portrait", "group", "scenery", "pet",
                                                       "closeup")][::3]
    for k, original in enumerate(originals):
        path = make.folder / original.file
        with Image.open(path) as image:
            picture = Picture(np.asarray(image.convert("RGB")))
        faces = tuple(Face(tuple(_denorm(f["box"], original)), tuple(_denorm(f["core"],
                                                                             original)),
                           f["profile"], f["small"]) for f in original.faces)
        picture = Picture(picture.pixels, faces)
        if k % 2 == 0:
            copy = make.add("duplicate", original.source, picture, duplicate_of=original.id)
            shutil.copyfile(path, make.folder / copy.file)  # byte for byte
            continue
        width, height = picture.size
        cut = float(rng.uniform(0.02, 0.05))
        near = tf.recompressed(tf.crop(picture, (width * cut, height * cut / 2,
                                                 width * (1 - cut / 2), height * (1 - cut))),
                               int(rng.integers(45, 70)))
        make.add("near_duplicate", original.source, near, duplicate_of=original.id, quality=70)


def same_picture(photo: PoolPhoto, pool: Mapping[str, PoolPhoto]) -> str:
    """The picture ``photo`` shows whole (:func:`bench.corpus.sources.picture_of` of its
    source) when it is a :data:`WHOLE_PICTURE_KINDS` photo or a copy of one, else "": two
    photos with the same one are the same picture to a viewer (an old scan and a phone's
    re-save of one print, a small copy of it), as the worker's near-duplicate test finds."""
    original = pool.get(photo.duplicate_of, photo)
    return picture_of(original.source) if original.kind in WHOLE_PICTURE_KINDS else ""


def _denorm(box: list[float], photo: PoolPhoto) -> tuple[float, ...]:
    return (box[0] * photo.width, box[1] * photo.height, box[2] * photo.width,
            box[3] * photo.height)


# --- clips ---------------------------------------------------------------------------------


def build_clips(folder: Path) -> list[Path]:
    """The bundled clips (copied) and a synthetic 3 s one made with ffmpeg."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for key in CLIPS:
        target = folder / Path(key).name
        if not target.exists():
            shutil.copyfile(clip_path(key), target)
        out.append(target)
    synthetic = folder / "04-synthetic.mp4"
    if not synthetic.exists():
        subprocess.run([tool_path("ffmpeg"), "-v", "error", "-y", "-f", "lavfi", "-i",
                        "testsrc2=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i",
                        "sine=frequency=440:duration=3", "-c:v", "libx264", "-preset",
                        "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                        str(synthetic)], check=True)
    out.append(synthetic)
    return out


# --- orders --------------------------------------------------------------------------------


def _pick_photos(rng: np.random.Generator, pool: list[PoolPhoto], scenario: str,
                 count: int) -> list[PoolPhoto]:
    by_kind: dict[str, list[PoolPhoto]] = {}
    for p in pool:
        by_kind.setdefault(p.kind, []).append(p)
    if scenario == "all_blank":
        kinds = [*BLANK_KINDS, *DEGENERATE_KINDS]
        return [_one(rng, by_kind[kinds[int(rng.integers(len(kinds)))]])
                for _ in range(min(count, 3))]
    weights = SCENARIOS[scenario]
    names = list(weights)
    odds = np.array([weights[n] for n in names], float)
    odds /= odds.sum()
    special = {"blank_mix": BLANK_KINDS, "degenerate_mix": DEGENERATE_KINDS,
               "duplicates": DUPLICATE_KINDS}.get(scenario, ())
    extra = min(count - 1, int(rng.integers(1, 4))) if special and count > 1 else 0
    chosen: list[PoolPhoto] = []
    while len(chosen) < count - extra:
        left = [p for n in names for p in by_kind[n] if p not in chosen]
        if not left:  # the scenario's kinds are used up: any usable photo
            names = list(USABLE_KINDS)
            odds = np.full(len(names), 1 / len(names))
            continue
        photo = _one(rng, by_kind[names[int(rng.choice(len(names), p=odds))]])
        if photo not in chosen:
            chosen.append(photo)
    for _ in range(extra):
        kind = special[int(rng.integers(len(special)))]
        photo = _one(rng, by_kind[kind])
        if kind in DUPLICATE_KINDS:  # its original is in the order too
            original = next(p for p in pool if p.id == photo.duplicate_of)
            if original not in chosen:
                chosen[int(rng.integers(len(chosen)))] = original
        chosen.insert(int(rng.integers(len(chosen) + 1)), photo)
    return chosen[:count] if scenario != "duplicates" else chosen


def _one(rng: np.random.Generator, photos: list[PoolPhoto]) -> PoolPhoto:
    return photos[int(rng.integers(len(photos)))]


def _order_json(index: int, rng: np.random.Generator, text_kind: str,
                photos: list[str]) -> dict[str, Any]:
    occasion = OCCASIONS[index % len(OCCASIONS)]
    tier = TIERS[(index // len(OCCASIONS)) % 2]
    style = STYLES[(index // 2) % 3]
    words = WORDS[text_kind]
    order: dict[str, Any] = {
        "tier": tier, "style": style, "occasion": dict(occasion),
        "recipient_name": words.recipient, "relationship": words.relationship,
        "memory": words.memory, "story_note": words.story,
        "feeling_words": list(words.feelings),
        "length_sec": LENGTHS[(index * 7 + int(rng.integers(3))) % len(LENGTHS)],
    }
    if style == "brand":
        order["brand"] = {"logo_url": LOGO_URL, "color": f"#{int(rng.integers(1 << 24)):06X}"}
    if photos and rng.random() < 0.5:
        order["subject_photo"] = photos[int(rng.integers(len(photos)))]
    return order


def _link(source: Path, target: Path) -> None:
    if target.exists():
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def corpus_root(cache_dir: Path, seed: int = 42) -> Path:
    """Where the corpus of ``seed`` lives under ``cache_dir``: named after the generator's
    version, the seed and the face labels, so a change to any of them makes it anew."""
    labels = hashlib.sha256(LABELS.read_bytes()).hexdigest()
    key = hashlib.sha256(f"{GENERATOR_VERSION}:{seed}:{labels}".encode()).hexdigest()[:10]
    return cache_dir / f"corpus-{key}"


def generate_corpus(cache_dir: Path, seed: int = 42, orders: int = 300) -> list[Case]:
    """The corpus of ``orders`` orders from ``seed`` under ``cache_dir`` (made when missing;
    see the module's docstring)."""
    root = corpus_root(cache_dir, seed)
    listing = root / "pool" / "pool.json"
    if listing.exists():
        pool = [PoolPhoto(**row) for row in json.loads(listing.read_text())]
    else:
        pool = build_pool(root / "pool", seed)
        listing.write_text(json.dumps([asdict(p) for p in pool], indent=1))
    clips = build_clips(root / "clips")
    cases = []
    scenarios = list(SCENARIOS)
    for index in range(orders):
        cases.append(_make_order(root, index, seed, pool, clips, scenarios))
    return cases


def _make_order(root: Path, index: int, seed: int, pool: list[PoolPhoto], clips: list[Path],
                scenarios: list[str]) -> Case:
    rng = np.random.default_rng([seed, index])
    scenario = scenarios[index % len(scenarios)]
    count = PHOTO_COUNTS[(index // len(scenarios) + index) % len(PHOTO_COUNTS)]
    photos = _pick_photos(rng, pool, scenario, count)
    text_kind = TEXT_KINDS[(index * 3) % len(TEXT_KINDS)]
    chosen_clips = [clips[int(k)] for k in rng.choice(len(clips), int(rng.integers(0, 4)),
                                                      replace=False)] if index % 3 else []
    case_id = f"o{index:03d}-{scenario}"
    folder = root / "orders" / case_id
    (folder / "photos").mkdir(parents=True, exist_ok=True)
    (folder / "clips").mkdir(exist_ok=True)
    names = [f"{k + 1:02d}-{p.file}" for k, p in enumerate(photos)]
    for name, photo in zip(names, photos, strict=True):
        _link(root / "pool" / photo.file, folder / "photos" / name)
    for k, clip in enumerate(chosen_clips):
        _link(clip, folder / "clips" / f"{k + 1:02d}-{clip.name}")
    order = _order_json(index, rng, text_kind, names)
    (folder / "order.json").write_text(json.dumps(order, ensure_ascii=False, indent=1),
                                       encoding="utf-8")
    case = Case(case_id, folder, scenario, text_kind, photos, [c.name for c in chosen_clips])
    (folder / "truth.json").write_text(json.dumps(case.truth(), ensure_ascii=False, indent=1),
                                       encoding="utf-8")
    return case


def load_cases(cache_dir: Path, seed: int = 42, orders: int = 300) -> list[Case]:
    """:func:`generate_corpus` (cheap when the pool is already there)."""
    return generate_corpus(cache_dir, seed, orders)

