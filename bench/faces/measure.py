"""Recall and precision of the face detectors on each kind of the labelled set, and their cost
per photo: ``python -m bench.faces.measure [--kinds ...] [--every N]``.

``old`` is the frontal Haar cascade with its companions (what ``find_subject`` used before issue
42); ``new`` is :func:`media.analysis.subjects.subject_faces`; ``possible`` those and the
possible faces beside them (:func:`possible_detector`). A found face matches a labelled one
when the label's core centre lies in the found box and the found core's centre in the label's
box (one to one, most confident first). Recall counts the required faces; precision the found
faces, less those matching an optional label. ``core kept`` is the mean share of a matched
label's core (its part inside the photo) that the found core covers: what a frame keeping the
found core keeps of the eyes and mouth.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from bench.faces.labelled import KINDS, Case, labelled_set
from bench.faces.transforms import BoxPx, Face

Found = tuple[tuple[BoxPx, BoxPx], ...]  # (box, core) in pixels, most confident first
Detector = Callable[[np.ndarray], Found]


def old_detector(pixels: np.ndarray) -> Found:
    """The frontal Haar cascade, its companions, without bodies, as ``find_subject`` had it
    (its core: the box itself, all it knew)."""
    from media.analysis.subjects import companion_faces, detect_faces, drop_bodies

    faces = detect_faces(pixels)
    faces = drop_bodies((*faces, *companion_faces(pixels, faces)))
    height, width = pixels.shape[:2]
    return tuple((box, box) for box in (f.to_pixels(width, height) for f in faces))


def new_detector(pixels: np.ndarray) -> Found:
    """The faces ``find_subject`` keeps now, whole and with their cores."""
    from media.analysis.subjects import subject_faces

    height, width = pixels.shape[:2]
    return tuple((face.to_pixels(width, height), core.to_pixels(width, height))
                 for face, core in subject_faces(pixels))


def possible_detector(pixels: np.ndarray) -> Found:
    """The faces ``find_subject`` keeps and its possible faces after them (what framing keeps
    whole or out, :func:`media.analysis.subjects.subject_face_tiers`): its recall over
    ``new``'s is the tier's hits on faces the detector misses, its precision the tier's false
    alarms (on pets and scenery among them)."""
    from media.analysis.subjects import subject_face_tiers

    height, width = pixels.shape[:2]
    faces, possible = subject_face_tiers(pixels)
    return tuple((face.to_pixels(width, height), core.to_pixels(width, height))
                 for face, core in (*faces, *possible))


DETECTORS: dict[str, Detector] = {"old": old_detector, "new": new_detector,
                                  "possible": possible_detector}


def _inside(point: tuple[float, float], box: BoxPx) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _centre(box: BoxPx) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _rect(box: BoxPx) -> np.ndarray:
    x0, y0, x1, y1 = box
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def _covered(label: Face, cover: BoxPx, size: tuple[int, int]) -> float:
    """Share of ``label``'s core (its turned quad, clipped to the photo) inside ``cover``."""
    photo = _rect((0.0, 0.0, float(size[0]), float(size[1])))
    area, seen = cv2.intersectConvexConvex(label.quad.astype(np.float32), photo)
    if area <= 0 or seen is None:
        return 1.0
    kept, _ = cv2.intersectConvexConvex(seen.reshape(-1, 2).astype(np.float32), _rect(cover))
    return float(kept / area)


@dataclass
class Tally:
    """Counts over the photos of one kind."""

    photos: int = 0
    required: int = 0
    found_required: int = 0
    found: int = 0
    false: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    core_kept: list[float] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found_required / self.required if self.required else float("nan")

    @property
    def precision(self) -> float:
        return 1 - self.false / self.found if self.found else float("nan")


def score(case: Case, found: Found, tally: Tally) -> None:
    """Add ``case``'s matches against ``found`` to ``tally``."""
    labels: list[Face] = list(case.picture.faces)
    tally.photos += 1
    tally.required += len(case.required)
    for box, core in found:
        match = next((label for label in labels if _inside(_centre(label.core), box)
                      and _inside(_centre(core), label.box)), None)
        if match is None:
            tally.found += 1
            tally.false += 1
            continue
        labels.remove(match)
        if not match.optional:
            tally.found += 1
            tally.found_required += 1
            tally.core_kept.append(_covered(match, core, case.picture.size))


def measure(cases: Iterable[Case], detectors: dict[str, Detector]) -> dict[str, dict[str, Tally]]:
    """Per detector, per kind (and ``all``), the :class:`Tally` of ``cases``."""
    out: dict[str, dict[str, Tally]] = {name: {} for name in detectors}
    for case in cases:
        for name, detect in detectors.items():
            started, cpu = time.perf_counter(), time.process_time()
            found = detect(case.picture.pixels)
            spent, cpu_spent = time.perf_counter() - started, time.process_time() - cpu
            for kind in (case.kind, "all"):
                tally = out[name].setdefault(kind, Tally())
                score(case, found, tally)
                tally.seconds += spent
                tally.cpu_seconds += cpu_spent
    return out


def _pct(value: float) -> str:
    return "  -  " if value != value else f"{100 * value:5.1f}"


def table(results: dict[str, dict[str, Tally]]) -> str:
    """The results as a text table: per kind, photos and faces, then per detector recall,
    precision, core kept, and milliseconds per photo (wall clock, and CPU time of all the
    process's threads: the machine's load stretches the first far more)."""
    names = list(results)
    head = f"{'kind':<16}{'photos':>7}{'faces':>6}" + "".join(
        f" | {n + ' recall':>11}{'precision':>10}{'core kept':>10}{'ms':>6}{'cpu ms':>7}"
        for n in names)
    lines = [head, "-" * len(head)]
    for kind in (*KINDS, "all"):
        first = results[names[0]].get(kind)
        if first is None:
            continue
        row = f"{kind:<16}{first.photos:>7}{first.required:>6}"
        for name in names:
            t = results[name][kind]
            kept = float(np.mean(t.core_kept)) if t.core_kept else float("nan")
            row += (f" | {_pct(t.recall):>11}{_pct(t.precision):>10}{_pct(kept):>10}"
                    f"{1000 * t.seconds / t.photos:>6.0f}{1000 * t.cpu_seconds / t.photos:>7.0f}")
        lines.append(row)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", nargs="*", default=list(KINDS))
    parser.add_argument("--every", type=int, default=1, help="measure every Nth case only")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    cases = labelled_set(args.seed, tuple(args.kinds))[::args.every]
    results = measure(cases, DETECTORS)
    print(table(results))
    print(f"\n{len(cases)} photos; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores while measuring")


if __name__ == "__main__":
    main()
