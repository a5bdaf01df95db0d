"""Watch a rendered film the way a viewer does: which photo is on screen, which part of it, how
far the camera travels, and how often the film shows the same thing again.

Every sampled frame is registered to the order's source photos (ORB features, a RANSAC
similarity transform: a Ken Burns frame is a scaled, shifted part of its photo), which gives the
photo on screen and the region of it the frame shows. From that:

- the **showings**: runs of frames on the same photo, in order;
- the **repeated-run share**: of the runs of three consecutive showings, the share whose photos
  (in order) already ran earlier in the film;
- the **mostly-same share**: of the showings of a photo already shown, the share whose frames lie
  mostly (median > 80 % of the frame's area) inside what earlier showings of it showed, at about
  the same scale (a showing 1.5x closer or wider than every earlier one is a new framing: issue
  30 counts a scale change of 1.5x as visibly different);
- the **near-empty share**: frames with almost no detail (under 20 % of 16 px tiles textured:
  plain sky, blur), between the first and the last frame on a photo (the title and closing
  cards left out: their plain grounds are designed, not empty crops);
- each showing's **travel**: the camera's scale change or pan distance between its first and last
  steady frames, as a share of the frame (what issue 30 asks to be at least 6 %, 4 % gentle); a
  pan or tilt in frame widths on both axes, as the planner counts it
  (:func:`media.analysis.camera.travel`);
- the **subject share**: frames on the subject photos;
- the **layouts** (``splits`` in the figures): frames whose cells show different photos are
  their own picture: two halves (side by side in 16:9, stacked in 9:16) a split ``A|B``, three
  columns or rows a triptych ``A|B|C``, a print over a photo filling the frame an inset
  ``A|B``; a layout is neither a repeat of its photos nor measured for travel or for what is
  new (``layout_cells`` counts the layouts' frames by how many photos they show).

Usage::

    python -m bench.showings FILM.mp4 PHOTOS_DIR [--fps 2] [--subject NAME ...] [--json OUT]

Nothing here is asserted in a test: it prints figures for the notes.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from media.base.runner import tool_path

PHOTO_LONG_EDGE = 1000  # photos are matched at this size (features, not pixels, matter)
FRAME_LONG_EDGE = 640
MIN_INLIERS = 18
RATIO_TEST = 0.75
MOSTLY_SAME = 0.8
NEW_SCALE = 1.5  # a repeat this much closer or wider than every earlier showing is new
TILE = 16
TEXTURED_TILE_STD = 6.0  # grey levels: a tile with less spread is flat (sky, blur)
NEAR_EMPTY_TEXTURED = 0.2
MASK = 256  # raster of a photo for "what was shown already"
DECODE_TIMEOUT_S = 600


@dataclass(frozen=True)
class View:
    """One sampled frame: time, the photo it shows (None: a clip, a card, unregistered), the
    frame's corners in that photo (normalized 0..1, 4x2, clockwise from top-left), the share of
    textured tiles."""

    t: float
    photo: str | None
    corners: tuple[tuple[float, float], ...] | None
    textured: float
    tall: float = 1.0  # the photo's height over its width: a pan's y is measured in widths


@dataclass
class Showing:
    """Consecutive views of one photo."""

    photo: str
    views: list[View] = field(default_factory=list)

    @property
    def start(self) -> float:
        """Time of the first view (s)."""
        return self.views[0].t

    @property
    def end(self) -> float:
        """Time of the last view (s)."""
        return self.views[-1].t


def decode_gray(film: Path, fps: float) -> Iterator[tuple[float, np.ndarray]]:
    """Grey frames of ``film`` at ``fps``, long edge :data:`FRAME_LONG_EDGE`."""
    probe = cv2.VideoCapture(str(film))
    w, h = int(probe.get(cv2.CAP_PROP_FRAME_WIDTH)), int(probe.get(cv2.CAP_PROP_FRAME_HEIGHT))
    probe.release()
    k = FRAME_LONG_EDGE / max(w, h)
    ow, oh = 2 * round(w * k / 2), 2 * round(h * k / 2)
    cmd = [tool_path("ffmpeg"), "-v", "error", "-i", str(film), "-vf",
           f"fps={fps},scale={ow}:{oh}", "-f", "rawvideo", "-pix_fmt", "gray", "-"]
    raw = subprocess.run(cmd, capture_output=True, check=True, timeout=DECODE_TIMEOUT_S).stdout
    size = ow * oh
    for i in range(len(raw) // size):
        yield i / fps, np.frombuffer(raw, np.uint8, size, i * size).reshape(oh, ow)


@dataclass(frozen=True)
class PhotoFeatures:
    """A photo's ORB keypoints (in the matching size) and descriptors."""

    name: str
    size: tuple[int, int]  # matching size, (w, h)
    points: np.ndarray
    descriptors: np.ndarray


def photo_features(photos: Sequence[Path], orb: cv2.ORB) -> list[PhotoFeatures]:
    """Features of every photo, at :data:`PHOTO_LONG_EDGE`."""
    out = []
    for path in photos:
        img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        if img is None:
            continue
        k = PHOTO_LONG_EDGE / max(img.shape)
        img = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        kp, des = orb.detectAndCompute(img, None)
        if des is not None:
            out.append(PhotoFeatures(path.stem, (img.shape[1], img.shape[0]),
                                     np.float32([p.pt for p in kp]), des))
    return out


def register(gray: np.ndarray, photos: Sequence[PhotoFeatures], orb: cv2.ORB,
             matcher: cv2.BFMatcher) -> tuple[str, tuple[tuple[float, float], ...]] | None:
    """The photo ``gray`` shows and the frame's corners in it (normalized), or None."""
    kp, des = orb.detectAndCompute(gray, None)
    if des is None:
        return None
    return register_features(np.float32([p.pt for p in kp]), des, gray.shape, photos, matcher)


def register_features(frame_pts: np.ndarray, des: np.ndarray, shape: tuple[int, ...],
                      photos: Sequence[PhotoFeatures], matcher: cv2.BFMatcher
                      ) -> tuple[str, tuple[tuple[float, float], ...]] | None:
    """:func:`register` from a frame's (or a cell's) keypoints ``frame_pts`` (pixels of a
    ``shape`` image) and their descriptors."""
    if len(frame_pts) < MIN_INLIERS:
        return None
    best: tuple[int, str, np.ndarray, tuple[int, int]] | None = None
    for photo in photos:
        pairs = matcher.knnMatch(des, photo.descriptors, k=2)
        good = [m for m, *rest in pairs if rest and m.distance < RATIO_TEST * rest[0].distance]
        if len(good) < MIN_INLIERS:
            continue
        src = frame_pts[[m.queryIdx for m in good]]
        dst = photo.points[[m.trainIdx for m in good]]
        model, inliers = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC,
                                                     ransacReprojThreshold=4.0)
        count = int(inliers.sum()) if inliers is not None else 0
        if model is not None and count >= MIN_INLIERS and (best is None or count > best[0]):
            best = (count, photo.name, model, photo.size)
    if best is None:
        return None
    _, name, model, (pw, ph) = best
    h, w = shape[:2]
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    mapped = corners @ model[:, :2].T + model[:, 2]
    return name, tuple((float(x / pw), float(y / ph)) for x, y in mapped)


def textured_share(gray: np.ndarray) -> float:
    """Share of :data:`TILE` px tiles whose grey levels spread more than
    :data:`TEXTURED_TILE_STD`."""
    h, w = (s - s % TILE for s in gray.shape)
    tiles = gray[:h, :w].reshape(h // TILE, TILE, w // TILE, TILE).astype(np.float32)
    return float((tiles.std(axis=(1, 3)) > TEXTURED_TILE_STD).mean())


def _halves(shape: tuple[int, ...]) -> tuple[tuple[int, int, int, int], ...]:
    """The two halves (x, y, w, h) a split shot shows its photos in: left and right of a
    landscape frame, top and bottom of a portrait one."""
    h, w = shape[:2]
    if w >= h:
        return (0, 0, w // 2, h), (w // 2, 0, w - w // 2, h)
    return (0, 0, w, h // 2), (0, h // 2, w, h - h // 2)


def _thirds(shape: tuple[int, ...]) -> tuple[tuple[int, int, int, int], ...]:
    """The three cells (x, y, w, h) a triptych shows its photos in: columns of a landscape
    frame, rows of a portrait one."""
    h, w = shape[:2]
    if w >= h:
        return tuple((k * w // 3, 0, w // 3, h) for k in range(3))
    return tuple((0, k * h // 3, w, h // 3) for k in range(3))


INSET_PROBE = (0.26, 0.3)  # a probe this share of the frame (long side, short side) ...
INSET_CENTRES = (0.27, 0.73)  # ... centred this far along the long side (a print's side)
INSET_ZOOM = 2.0


def _inset_probes(gray: np.ndarray) -> list[np.ndarray]:
    """Where an inset print may sit (:func:`media.plan.layout_kinds.clear_of`: either side of the
    long axis, centred or in a corner across it): the middle of each such place, small enough
    to lie inside a print of any ratio."""
    h, w = gray.shape
    landscape = w >= h
    long_side, short_side = (w, h) if landscape else (h, w)
    pl, ps = round(INSET_PROBE[0] * long_side), round(INSET_PROBE[1] * short_side)
    probes = []
    for along in INSET_CENTRES:
        for across in (0.5, 0.3, 0.7):
            c_long, c_short = round(along * long_side), round(across * short_side)
            l0, s0 = max(0, c_long - pl // 2), max(0, c_short - ps // 2)
            probe = gray[s0:s0 + ps, l0:l0 + pl] if landscape else gray[l0:l0 + pl, s0:s0 + ps]
            # a print is a quarter of the frame: looked at twice as large, its features fall
            # within the scales ORB matches against the photo's
            probes.append(cv2.resize(probe, None, fx=INSET_ZOOM, fy=INSET_ZOOM,
                                     interpolation=cv2.INTER_LINEAR))
    return probes


Features = tuple[np.ndarray, np.ndarray]  # a frame's keypoints (pixels) and descriptors


def _cell_names(features: Features, shape: tuple[int, ...],
                cells: Sequence[tuple[int, int, int, int]], photos: Sequence[PhotoFeatures],
                matcher: cv2.BFMatcher) -> list[str | None]:
    """The photo each cell (x, y, w, h) of a frame registers to, from the frame's own
    keypoints inside it (no detection again)."""
    points, des = features
    names: list[str | None] = []
    for x, y, w, h in cells:
        inside = ((points[:, 0] >= x) & (points[:, 0] < x + w)
                  & (points[:, 1] >= y) & (points[:, 1] < y + h))
        found = register_features(points[inside] - np.float32([x, y]), des[inside],
                                  (h, w), photos, matcher) if inside.any() else None
        names.append(found[0] if found else None)
    return names


def _split(gray: np.ndarray, photos: Sequence[PhotoFeatures], orb: cv2.ORB,
           matcher: cv2.BFMatcher, whole: str | None = None,
           features: Features | None = None) -> str | None:
    """The frame's name when its cells show different photos (``A|B`` for a split or an
    inset, ``A|B|C`` for a triptych; each sorted), else None. ``whole``: the photo the whole
    frame registers to (an inset's backdrop), if any; ``features``: the frame's keypoints and
    descriptors, when already found."""
    if features is None:
        kp, des = orb.detectAndCompute(gray, None)
        if des is None:
            return None
        features = (np.float32([p.pt for p in kp]), des)
    thirds = _cell_names(features, gray.shape, _thirds(gray.shape), photos, matcher)
    if None not in thirds and len(set(thirds)) == 3:
        return "|".join(sorted(thirds))  # type: ignore[arg-type]
    names = _cell_names(features, gray.shape, _halves(gray.shape), photos, matcher)
    if None not in names and names[0] != names[1]:
        return "|".join(sorted(names))  # type: ignore[arg-type]
    if whole is not None:
        for probe in _inset_probes(gray):
            found = register(probe, photos, orb, matcher)
            if found is not None and found[0] != whole:
                return "|".join(sorted((whole, found[0])))
    return None


def watch(film: Path, photos: Sequence[Path], fps: float) -> list[View]:
    """Every sampled frame of ``film`` registered to ``photos`` (a split frame as ``A|B``)."""
    orb = cv2.ORB_create(nfeatures=1500)
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    features = photo_features(photos, orb)
    tall = {f.name: f.size[1] / f.size[0] for f in features}
    views = []
    for t, gray in decode_gray(film, fps):
        kp, des = orb.detectAndCompute(gray, None)
        points = np.float32([p.pt for p in kp]) if des is not None else None
        found = (register_features(points, des, gray.shape, features, matcher)
                 if points is not None else None)
        split = (_split(gray, features, orb, matcher, found[0] if found else None,
                        (points, des)) if points is not None else None)
        views.append(View(t, split or (found[0] if found else None),
                          None if split or not found else found[1], textured_share(gray),
                          tall.get(found[0], 1.0) if found and not split else 1.0))
    return views


JUMP_SCALE = 0.15  # log scale change between two samples that no smooth move makes: a cut
JUMP_SHIFT = 0.25  # ... or a jump of the frame's centre, in frame widths


def _jumped(a: View, b: View) -> bool:
    """True when ``b`` shows its photo framed far from ``a`` (a cut to another framing of the
    same photo, as a one-photo film makes)."""
    if not a.corners or not b.corners:
        return False
    pa, pb = np.array(a.corners), np.array(b.corners)
    wa, wb = np.linalg.norm(pa[1] - pa[0]), np.linalg.norm(pb[1] - pb[0])
    if wa <= 0 or wb <= 0:
        return False
    shift = np.linalg.norm(pa.mean(axis=0) - pb.mean(axis=0)) / ((wa + wb) / 2)
    return abs(math.log(wb / wa)) > JUMP_SCALE or shift > JUMP_SHIFT


def lone_layouts_dropped(views: Sequence[View]) -> list[View]:
    """``views`` with a layout frame whose neighbours are not that layout left unregistered:
    a dissolve's blend of two photos reads as two cells for a frame, a layout holds for
    seconds."""
    out = list(views)
    for i, view in enumerate(views):
        if is_split(view.photo) and not any(
                0 <= j < len(views) and views[j].photo == view.photo for j in (i - 1, i + 1)):
            out[i] = View(view.t, None, None, view.textured)
    return out


def group_showings(views: Sequence[View], max_gap: int = 1) -> list[Showing]:
    """Runs of views on the same photo; up to ``max_gap`` unregistered views (a dissolve, a
    card's edge) do not break a run, a jump to another framing of the photo does."""
    showings: list[Showing] = []
    gap = 0
    for view in views:
        if view.photo is None:
            gap += 1
            continue
        last = showings[-1] if showings else None
        if (last is not None and last.photo == view.photo and gap <= max_gap
                and not _jumped(last.views[-1], view)):
            last.views.append(view)
        else:
            showings.append(Showing(view.photo, [view]))
        gap = 0
    return showings


def repeated_run_share(order: Sequence[str], run: int = 3) -> float:
    """Share of the ``run``-long windows of ``order`` that already appeared earlier."""
    windows = [tuple(order[i:i + run]) for i in range(len(order) - run + 1)]
    seen: set[tuple[str, ...]] = set()
    repeats = 0
    for window in windows:
        repeats += window in seen
        seen.add(window)
    return repeats / len(windows) if windows else 0.0


def _mask(corners: Sequence[tuple[float, float]]) -> np.ndarray:
    mask = np.zeros((MASK, MASK), np.uint8)
    cv2.fillConvexPoly(mask, np.int32([[x * MASK, y * MASK] for x, y in corners]), 1)
    return mask.astype(bool)


def _width(corners: Sequence[tuple[float, float]]) -> float:
    """The frame's width on its photo (normalized)."""
    (x0, y0), (x1, y1) = corners[0], corners[1]
    return math.hypot(x1 - x0, y1 - y0)


def _median_width(showing: Showing) -> float:
    return float(np.median([_width(v.corners) for v in showing.views if v.corners]))


def new_shares(showings: Sequence[Showing]) -> list[tuple[int, float, bool]]:
    """For every showing of a photo shown before: (index, the median share of its frames, on
    the photo, that earlier showings of it had not shown, whether its scale is
    :data:`NEW_SCALE` away from every earlier showing's)."""
    shown: dict[str, np.ndarray] = {}
    widths: dict[str, list[float]] = {}
    out = []
    for i, showing in enumerate(showings):
        if is_split(showing.photo):
            continue
        masks = [_mask(v.corners) for v in showing.views if v.corners]
        before = shown.get(showing.photo)
        width = _median_width(showing)
        if before is not None:
            fresh = [float((m & ~before).sum() / max(1, m.sum())) for m in masks if m.sum()]
            rescaled = all(abs(math.log(width / w)) >= math.log(NEW_SCALE)
                           for w in widths[showing.photo] if w > 0 and width > 0)
            out.append((i, float(np.median(fresh)) if fresh else 0.0, rescaled))
        union = np.logical_or.reduce(masks) if masks else np.zeros((MASK, MASK), bool)
        shown[showing.photo] = union if before is None else before | union
        widths.setdefault(showing.photo, []).append(width)
    return out


def is_split(photo: str | None) -> bool:
    """True for a split showing's name (``A|B``)."""
    return photo is not None and "|" in photo


def _between_cards(views: Sequence[View]) -> Sequence[View]:
    """The views from the first to the last one on a photo."""
    on_photo = [i for i, v in enumerate(views) if v.photo]
    return views[on_photo[0]:on_photo[-1] + 1] if on_photo else views


def travel(showing: Showing) -> float | None:
    """The camera's travel over a showing, as a share of the frame: the larger of the scale
    change and the pan distance (in frame widths) between its first and last steady views (the
    transitions' views at either end left out); None for showings under three views."""
    steady = [v for v in showing.views if v.corners][1:-1]
    if len(steady) < 2:
        return None
    widths = np.array([1.0, steady[0].tall])  # normalized corners to photo widths, both axes
    a, b = np.array(steady[0].corners) * widths, np.array(steady[-1].corners) * widths
    wa, wb = np.linalg.norm(a[1] - a[0]), np.linalg.norm(b[1] - b[0])
    scale = abs(math.log(wb / wa)) if wa > 0 and wb > 0 else 0.0
    pan = float(np.linalg.norm(a.mean(axis=0) - b.mean(axis=0)) / ((wa + wb) / 2))
    return max(scale, pan)


def summarize(views: Sequence[View], subjects: Sequence[str] = ()) -> dict[str, object]:
    """The figures of one film (see the module docstring)."""
    views = lone_layouts_dropped(views)
    showings = group_showings(views)
    order = [s.photo for s in showings]
    fresh = new_shares(showings)
    travels = [t for t in (travel(s) for s in showings) if t is not None]
    seen: dict[str, float] = {}
    spacings = []
    for s in showings:
        if s.photo in seen:
            spacings.append(round(s.start - seen[s.photo], 1))
        seen[s.photo] = s.end
    registered = [v for v in views if v.photo]
    middle = _between_cards(views)
    return {
        "frames": len(views),
        "registered_share": round(len(registered) / max(1, len(views)), 3),
        "showings": len(showings),
        "order": order,
        "repeats": len(fresh),
        "repeated_run_share": round(repeated_run_share(order), 3),
        "mostly_same_share": round(sum(f < 1 - MOSTLY_SAME and not rescaled
                                       for _, f, rescaled in fresh) / max(1, len(fresh)), 3),
        "mostly_same_area_only_share": round(sum(f < 1 - MOSTLY_SAME for _, f, _ in fresh)
                                             / max(1, len(fresh)), 3),
        "repeat_new_share_median": round(float(np.median([f for _, f, _ in fresh])), 3)
        if fresh else None,
        "repeat_spacing_s_min": min(spacings) if spacings else None,
        "near_empty_share": round(sum(v.textured < NEAR_EMPTY_TEXTURED for v in middle)
                                  / max(1, len(middle)), 3),
        "travel_pct": _quantiles([100 * t for t in travels]),
        "travel_under_6pct": sum(t < 0.06 for t in travels),
        "subject_share": round(sum(v.photo in subjects or (is_split(v.photo) and any(
            part in subjects for part in v.photo.split("|"))) for v in views)
            / max(1, len(views)), 3) if subjects else None,
        "splits": sum(is_split(s.photo) for s in showings),
        "split_frames_share": round(sum(is_split(v.photo) for v in views) / max(1, len(views)),
                                    3),
        "layout_cells": {str(n): sum(v.photo is not None and v.photo.count("|") + 1 == n
                                     for v in views) for n in (2, 3)},
        "shots": [(s.photo, round(s.start, 1), round(s.end - s.start, 1),
                   None if travel(s) is None else round(100 * travel(s), 1)) for s in showings],
    }


def _quantiles(values: Sequence[float]) -> dict[str, float] | None:
    if not values:
        return None
    q = np.percentile(values, [0, 25, 50, 75, 100])
    return dict(zip(("min", "p25", "median", "p75", "max"), (round(float(x), 1) for x in q),
                    strict=True))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures of a film (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("film", type=Path)
    parser.add_argument("photos", type=Path, help="the order's photos folder")
    parser.add_argument("--fps", type=float, default=2.0)
    parser.add_argument("--subject", action="append", default=[],
                        help="a subject photo's file stem (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    photos = sorted(p for p in args.photos.iterdir() if p.suffix.lower() in
                    (".jpg", ".jpeg", ".png", ".webp", ".heic", ".tif", ".tiff"))
    figures = summarize(watch(args.film, photos, args.fps), args.subject)
    text = json.dumps(figures, indent=1, ensure_ascii=False)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    shots = figures.pop("shots")
    print(json.dumps(figures, ensure_ascii=False))
    for shot in shots:  # type: ignore[union-attr]
        print("  ", *shot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
