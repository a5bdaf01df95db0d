"""400 % crops around the matte's edge of every parallax shot of a rendered film, at 10 fps over
the whole shot: where a smear, a ghost or a halo would show.

``.venv/bin/python -m bench.parallax_crops FILM_DIR --run RUN_DIR | --order ORDER_DIR
[--timeline JSON] [--out DIR] [--name PREFIX] [--fps 10] [--zoom 4] [--window 96] [--points 3]``

``FILM_DIR`` holds the rendered ``16x9.mp4`` and ``9x16.mp4`` and the render's timeline
(``FILM_DIR/timeline.json``, which ``render --storyboard`` keeps, else ``--timeline``). The
photos are the render's own: a kept run's (``RUN_DIR/assets/photos/*.jpg`` with
``RUN_DIR/assets/framing.json``), or an order folder's prepared and restored again as the prep
and assets stages do (:func:`order_photos`). Each shot is prepared as the renderer prepares it
(:class:`media.frames.preparer.SourcePreparer`), so the crop windows follow the very move of the
film: for each parallax shot and aspect, ``--points`` points on the subject's outline (where the
background beside it is busiest, spread along the outline; :func:`edge_points`) are followed
with the subject, ``--window`` output pixels square, scaled ``--zoom`` times (nearest
neighbour), every film frame at ``--fps`` in a sheet of six columns:
``OUT/PREFIX-s{shot}-{aspect}-e{point}.png``; ``OUT/PREFIX-index.json`` lists the shots, the
matte's verdict and the sheets. A shot whose parallax fell back (roll push, split) is listed
with what was drawn instead.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image

from media.analysis.subjects import Subject, find_subject, subject_from_dict
from media.base import spec
from media.frames.fill import FILL_ALPHA, background_detail, covered
from media.frames.parallax import ParallaxLayer
from media.frames.preparer import SourcePreparer
from media.frames.sources import FilmSources, load_photo
from media.frames.stall import StallWatch
from media.plan.timeline import PARALLAX, Timeline, timeline_from_dict

COLUMNS = 6
MIN_SPACING = 0.12  # edge points are at least this share of the outline's extent apart


def order_photos(order_dir: Path, work: Path) -> tuple[dict[str, Path], dict[str, Subject]]:
    """An order folder's photos as the render sees them: prepared (prep), restored at the size
    the film shows them and their subjects found (assets), cached in ``work``."""
    from app.order_folder import read_order_folder
    from media.intake.restore import cover_long_edge, restore_photo, save_jpeg
    from media.intake.sandbox import prepare_photo_bounded
    from services.settings import Settings

    order, uploads = read_order_folder(order_dir)
    recipe = Settings().recipe(order.tier).restore
    work.mkdir(parents=True, exist_ok=True)
    photos = [u for u in uploads if "/photos/" in u.key]
    paths, subjects = {}, {}
    for ref, upload in zip(order.photos, photos, strict=True):
        dest = work / f"{ref.id}.jpg"
        if not dest.exists():
            prepared = work / f"{ref.id}.prepared.jpg"
            prepare_photo_bounded(upload.path, prepared)
            with Image.open(prepared) as image:
                rgb = np.asarray(image.convert("RGB"))
            restored, report = restore_photo(rgb, recipe, cover_long_edge(rgb.shape[1],
                                                                          rgb.shape[0]))
            if report.applied:
                save_jpeg(restored, dest)
            else:
                prepared.rename(dest)
        paths[ref.id] = dest
        subjects[ref.id] = find_subject(load_photo(dest))
    return paths, subjects


def run_photos(run: Path) -> tuple[dict[str, Path], dict[str, Subject]]:
    """A kept run's restored photos and the subjects its assets stage found."""
    framing = json.loads((run / "assets" / "framing.json").read_text())
    return ({pid: run / "assets" / "photos" / f"{pid}.jpg" for pid in framing},
            {pid: subject_from_dict(s) for pid, s in framing.items()})


def _alpha_of(layer: ParallaxLayer) -> tuple[np.ndarray, float, float]:
    """The foreground's alpha (float32 0..1) as the layer holds it, with its pixels per photo
    pixel (x, y)."""
    clear = layer.layers.transparency.y
    return 1.0 - clear.image.astype(np.float32) / 255.0, clear.sx, clear.sy


def edge_points(alpha: np.ndarray, image_rgb: np.ndarray, count: int,
                within: tuple[float, float, float, float] | None = None
                ) -> list[tuple[int, int]]:
    """``count`` points (x, y, in ``alpha``'s pixels) on the matte's outline (alpha 0.5), inside
    ``within`` (x0, y0, x1, y1; what the shot shows throughout), where the background beside it
    is busiest (:func:`media.frames.fill.background_detail`), at least
    :data:`MIN_SPACING` of the outline's extent apart."""
    hard = (alpha >= 0.5).astype(np.uint8)
    contours, _ = cv2.findContours(hard, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return []
    outline = np.vstack([c[:, 0, :] for c in contours])
    h, w = alpha.shape
    x0, y0, x1, y1 = within if within is not None else (0, 0, w, h)
    inside = (outline[:, 0] > max(2, x0)) & (outline[:, 0] < min(w - 3, x1)) \
        & (outline[:, 1] > max(2, y0)) & (outline[:, 1] < min(h - 3, y1))
    outline = outline[inside] if inside.any() else outline
    hidden = covered(alpha > FILL_ALPHA)
    detail = background_detail(image_rgb, hidden)
    grow = max(3, round(0.02 * max(h, w)) | 1)
    near = cv2.dilate(detail, np.ones((grow, grow), np.uint8))  # the busiest value nearby
    scores = near[outline[:, 1], outline[:, 0]]
    extent = max(float(np.ptp(outline[:, 0])), float(np.ptp(outline[:, 1])), 1.0)
    picked: list[tuple[int, int]] = []
    for index in np.argsort(-scores, kind="stable"):
        x, y = (int(v) for v in outline[index])
        if all(math.hypot(x - px, y - py) >= MIN_SPACING * extent for px, py in picked):
            picked.append((x, y))
        if len(picked) == count:
            break
    return picked


def _shown(layer: ParallaxLayer, sx: float, sy: float, window: int
           ) -> tuple[float, float, float, float]:
    """What every frame of the shot shows (x0, y0, x1, y1 in the layer's pixels ``sx``, ``sy``
    per photo pixel), less half a crop window on each side."""
    rects = [layer.motion.rect_at(i) for i in (0, layer.motion.frames // 2,
                                                layer.motion.frames - 1)]
    margin = max(r.w for r in rects) * window / 2 / layer.out_w
    return (max(r.x for r in rects) + margin) * sx, (max(r.y for r in rects) + margin) * sy, \
        (min(r.x + r.w for r in rects) - margin) * sx, (min(r.y + r.h for r in rects) - margin) * sy


def _film_frames(film: Path, first: int, last: int, step: int) -> dict[int, np.ndarray]:
    """Frames ``first``, ``first + step``, .. up to ``last`` (inclusive) of ``film`` (RGB)."""
    capture = cv2.VideoCapture(str(film))
    capture.set(cv2.CAP_PROP_POS_FRAMES, first)
    frames, index = {}, first
    while index <= last:
        ok, bgr = capture.read()
        if not ok:
            break
        if (index - first) % step == 0:
            frames[index] = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        index += 1
    capture.release()
    return frames


def _window(frame: np.ndarray, cx: float, cy: float, size: int, zoom: int) -> np.ndarray:
    """The ``size`` square of ``frame`` centred on (cx, cy) (clamped inside), ``zoom`` times."""
    h, w = frame.shape[:2]
    x0 = int(min(max(0, round(cx - size / 2)), max(0, w - size)))
    y0 = int(min(max(0, round(cy - size / 2)), max(0, h - size)))
    crop = frame[y0:y0 + size, x0:x0 + size]
    return cv2.resize(crop, (crop.shape[1] * zoom, crop.shape[0] * zoom),
                      interpolation=cv2.INTER_NEAREST)


def _sheet(tiles: list[tuple[str, np.ndarray]], path: Path) -> None:
    """Tiles in rows of :data:`COLUMNS`, each labelled, saved as a PNG."""
    th, tw = tiles[0][1].shape[:2]
    rows = math.ceil(len(tiles) / COLUMNS)
    sheet = np.full((rows * (th + 4), COLUMNS * (tw + 4), 3), 24, np.uint8)
    for k, (label, tile) in enumerate(tiles):
        y, x = (k // COLUMNS) * (th + 4), (k % COLUMNS) * (tw + 4)
        sheet[y:y + tile.shape[0], x:x + tile.shape[1]] = tile
        cv2.putText(sheet, label, (x + 6, y + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3)
        cv2.putText(sheet, label, (x + 6, y + 22), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                    (255, 255, 0), 1)
    Image.fromarray(sheet).save(path)


@dataclass(frozen=True)
class CropSheets:
    """How the crops are cut: film frames sampled at ``fps``, ``points`` edge points per shot
    and aspect, each followed in a ``window`` output pixels square scaled ``zoom`` times."""

    fps: float = 10.0
    zoom: int = 4
    window: int = 96
    points: int = 3


def crop_film(film_dir: Path, timeline: Timeline, sources: FilmSources, out: Path, name: str,
              sheets_of: CropSheets | None = None) -> dict[str, Any]:
    """The crops of every parallax shot of the film in ``film_dir`` rendered from ``sources``
    (photos and their subjects; see module doc), cut as ``sheets_of`` says; returns the index
    it writes."""
    cut = sheets_of or CropSheets()
    fps, zoom, window, points = cut.fps, cut.zoom, cut.window, cut.points
    paths = sources.photos
    out.mkdir(parents=True, exist_ok=True)
    preparer = SourcePreparer(timeline, spec.ASPECTS, sources, StallWatch(3600))
    step = max(1, round(timeline.fps / fps))
    shots: list[dict[str, Any]] = []
    for index, shot in enumerate(timeline.shots):
        if shot.motion != PARALLAX or shot.source_id is None:
            continue
        prepared = preparer.prepare(index)
        entry: dict[str, Any] = {"shot": index, "photo": shot.source_id,
                                 "seconds": [round(shot.visible_in / timeline.fps, 2),
                                             round(shot.visible_out / timeline.fps, 2)],
                                 "aspects": {}}
        for aspect in spec.ASPECTS:
            layer = getattr(prepared, "layers", {}).get(aspect.name)
            if not isinstance(layer, ParallaxLayer):
                entry["aspects"][aspect.name] = {"drawn": type(layer).__name__}
                continue
            alpha, sx, sy = _alpha_of(layer)
            photo = cv2.resize(load_photo(paths[shot.source_id]), (alpha.shape[1],
                                                                   alpha.shape[0]),
                               interpolation=cv2.INTER_AREA)
            found = edge_points(alpha, photo, points, _shown(layer, sx, sy, window))
            frames = _film_frames(film_dir / f"{aspect.name}.mp4", shot.visible_in,
                                  shot.visible_out - 1, step)
            sheets = []
            for k, (ex, ey) in enumerate(found):
                px, py = ex / sx, ey / sy  # photo pixels
                tiles = []
                for frame_no, frame in frames.items():
                    rect = layer.motion.rect_at(frame_no - shot.visible_in)
                    scale = aspect.width / rect.w
                    cx, cy = (px - rect.x) * scale, (py - rect.y) * scale
                    tiles.append((f"{frame_no / timeline.fps:.1f}s",
                                  _window(frame, cx, cy, window, zoom)))
                if tiles:
                    path = out / f"{name}-s{index:02d}-{aspect.name}-e{k}.png"
                    _sheet(tiles, path)
                    sheets.append({"sheet": path.name, "photo_px": [round(px), round(py)]})
            entry["aspects"][aspect.name] = {
                "drawn": "ParallaxLayer", "rate": round(layer.rate, 3),
                "quality": layer.layers.quality, "sheets": sheets}
        shots.append(entry)
        prepared.close()
    index_data = {"film": str(film_dir), "parallax_shots": shots, "notes": preparer.notes}
    (out / f"{name}-index.json").write_text(json.dumps(index_data, indent=1))
    return index_data


def main() -> None:
    """Parse the arguments, find the parallax shots and write their crops."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("film_dir", type=Path)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--run", type=Path, help="a kept run: assets/photos, assets/framing.json")
    source.add_argument("--order", type=Path, help="the order folder the film was rendered from")
    parser.add_argument("--timeline", type=Path)
    parser.add_argument("--out", type=Path, default=Path("crops"))
    parser.add_argument("--name", default="film")
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--zoom", type=int, default=4)
    parser.add_argument("--window", type=int, default=96)
    parser.add_argument("--points", type=int, default=3)
    args = parser.parse_args()
    timeline_path = args.timeline or args.film_dir / "timeline.json"
    timeline = timeline_from_dict(json.loads(timeline_path.read_text()))
    sheets_of = CropSheets(args.fps, args.zoom, args.window, args.points)
    if args.run:
        paths, subjects = run_photos(args.run)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            paths, subjects = order_photos(args.order, Path(tmp))
            index = crop_film(args.film_dir, timeline, FilmSources(paths, subjects=subjects),
                              args.out, args.name, sheets_of)
            print(json.dumps(index, indent=1))
            return
    index = crop_film(args.film_dir, timeline, FilmSources(paths, subjects=subjects), args.out,
                      args.name, sheets_of)
    print(json.dumps(index, indent=1))


if __name__ == "__main__":
    main()
