"""``faces whole`` over the labelled set's photos planned in films: ``python -m bench.faces.whole
[--subjects new|truth] [--kinds ...] [--every N]``.

Each photo of the labelled set (:mod:`bench.faces.labelled`) is planned alone in a 30 s film
(its repeats: closer looks, the whole photo again) and in films of five photos of its kind
(layouts, cards over photos), standard and signature, from the subjects ``new``
(:func:`media.analysis.subjects.find_subject` on its pixels) or ``truth`` (its labels: what the
framing does with faces known exactly). Every frame of every move (every
:data:`bench.faces.crops.FRAME_STEP`-th) is checked against the labelled cores: a film passes
when no frame of either aspect cuts one (:func:`bench.faces.crops.cut_faces`). Prints the pass
rate per kind and the first failures.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence

import numpy as np

from bench.faces.crops import cut_faces
from bench.faces.labelled import KINDS, Case, labelled_set
from media.analysis.detail import texture_map
from media.analysis.framing import face_guard
from media.analysis.subjects import Box, Subject, find_subject, keep_whole, union
from media.cards.spec import CardSpec
from media.plan import planner
from media.plan.inputs import PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid, SongSection
from media.plan.timeline import Timeline

OPENING = CardSpec("opening", ("Happy Birthday", "Zoë O'Brien"), None, False, "gift")
CLOSING = CardSpec("closing", ("With love", "from all of us"), "#C0392B", False, "gift")
GROUP = 5  # photos in a film of one kind
BPM = 112.0
SECTION_S = 12.0  # seconds of a verse or a chorus


def song(length: float) -> SongGrid:
    """A steady song of ``length`` seconds: its beats, a bar every four, verses and choruses
    in turn every :data:`SECTION_S` after an intro (a signature film cuts its choruses into
    montages: flashes and punch-ins)."""
    beats = tuple(float(t) for t in np.arange(0.23, length, 60.0 / BPM))
    edges = [0.0, *np.arange(SECTION_S / 2, length, SECTION_S), length]
    names = ["intro", *(("verse", "chorus")[k % 2] for k in range(len(edges) - 3)), "ending"]
    return SongGrid(beat_times=beats, bar_times=beats[::4],
                    sections=tuple(SongSection(name, float(a), float(b))
                                   for name, a, b in zip(names, edges, edges[1:], strict=False)))


def photo_source(photo_id: str, size: tuple[int, int], subject: Subject) -> PhotoSource:
    """What the planner is told of a photo (as the order's plan tells it)."""
    width, height = size
    guard = face_guard(keep_whole(subject), width, height)
    hold = {} if guard is None else {"hold_w": (guard[2] - guard[0]) / width,
                                     "hold_h": (guard[3] - guard[1]) / height}
    face = max((b.y1 - b.y0 for b in subject.faces), default=0.0)
    return PhotoSource(photo_id, width, height, min(width, height) < 720, face_fraction=face,
                       focus_x=subject.focus.center[0], focus_y=subject.focus.center[1], **hold)


def film(sources: Sequence[PhotoSource], length: float, premium: bool) -> Timeline:
    """The plan of a film of ``sources`` (the first the subject's photo)."""
    return planner.plan(FilmSpec(
        length_sec=length, photos=tuple(sources),
        recipe=MotionRecipe(motion_shots=6 if premium else 4, premium=premium),
        subject_photo_id=sources[0].id, words=FilmWords(opening=OPENING, closing=CLOSING),
        song=song(length)))


def truth_cores(case: Case) -> tuple[Box, ...]:
    """The labelled faces' eyes-to-mouth cores (clipped to the photo): what no frame may cut."""
    height, width = case.picture.pixels.shape[:2]
    return tuple(_normalized(f.core, width, height) for f in case.picture.faces
                 if not f.optional)


def truth_subject(case: Case) -> Subject:
    """The subject a perfect detector would find: the labelled faces (clipped to the photo)
    with their cores."""
    height, width = case.picture.pixels.shape[:2]
    faces = [f for f in case.picture.faces if not f.optional]
    if not faces:
        return Subject((), Box(0.3, 0.3, 0.7, 0.7), "centre")
    boxes = tuple(_normalized(f.box, width, height) for f in faces)
    return Subject(boxes, union(boxes), "faces", cores=truth_cores(case))


def _normalized(box: tuple[float, float, float, float], width: int, height: int) -> Box:
    x0, y0, x1, y1 = box
    return Box(max(0.0, x0 / width), max(0.0, y0 / height), min(1.0, x1 / width),
               min(1.0, y1 / height))


@dataclasses.dataclass
class Tally:
    """Films planned and films whose frames cut a labelled face, with the first failures."""

    films: int = 0
    cut: int = 0
    failures: list[str] = dataclasses.field(default_factory=list)

    @property
    def rate(self) -> float:
        """Share of films that keep every face whole."""
        return 1.0 - self.cut / self.films if self.films else 1.0


def subjects_of(cases: Sequence[Case], how: str) -> list[Subject]:
    """Each case's subject: ``new`` found on its pixels, ``truth`` its labels."""
    return [find_subject(c.picture.pixels) if how == "new" else truth_subject(c) for c in cases]


def check(cases: Sequence[Case], subjects: Sequence[Subject],
          scale: float = 1.0) -> dict[str, Tally]:
    """Plan every case alone and in groups of its kind, both tiers, its size ``scale`` times
    its pixels' (the set's photos are at most 960 px long: a phone's are four times that);
    tally per kind."""
    tallies: dict[str, Tally] = {}
    facts = {}
    for k, case in enumerate(cases):
        pixels = case.picture.pixels
        height, width = pixels.shape[:2]
        found = subjects[k]
        gray = pixels.mean(axis=2).astype(np.uint8)
        size = (round(width * scale), round(height * scale))
        facts[f"p{k}"] = (case, size, found, truth_cores(case), texture_map(gray))
    by_kind: dict[str, list[str]] = {}
    for pid, (case, *_rest) in facts.items():
        by_kind.setdefault(case.kind, []).append(pid)
    films = [([pid], 30.0) for pid in facts]
    for ids in by_kind.values():
        films += [(ids[i:i + GROUP], 45.0) for i in range(0, len(ids), GROUP)]
    for ids, length in films:
        kind = facts[ids[0]][0].kind
        tally = tallies.setdefault(kind, Tally())
        sources = [photo_source(pid, facts[pid][1], facts[pid][2]) for pid in ids]
        for premium in (False, True):
            timeline = film(sources, length, premium)
            sizes = {pid: facts[pid][1] for pid in ids}
            lines = cut_faces(timeline, sizes, {pid: facts[pid][2] for pid in ids},
                              {pid: facts[pid][4] for pid in ids},
                              {pid: facts[pid][3] for pid in ids})
            tally.films += 1
            if lines:
                tally.cut += 1
                names = ", ".join(f"{pid}={facts[pid][0].name}" for pid in ids)
                tally.failures.append(f"{'signature' if premium else 'standard'} "
                                      f"{length:.0f}s [{names}]: {lines[0]} "
                                      f"(+{len(lines) - 1})")
    everything = Tally(sum(t.films for t in tallies.values()),
                       sum(t.cut for t in tallies.values()))
    return {**tallies, "all": everything}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subjects", choices=("new", "truth"), default="new")
    parser.add_argument("--kinds", nargs="*", default=[k for k in KINDS if k != "no face"])
    parser.add_argument("--every", type=int, default=1, help="every Nth photo only")
    parser.add_argument("--scales", type=float, nargs="*", default=[1.0, 4.0],
                        help="photo sizes times these")
    parser.add_argument("--failures", type=int, default=3, help="failures shown per kind")
    args = parser.parse_args(argv)
    cases = [c for c in labelled_set(kinds=tuple(args.kinds))[::args.every]]
    found = subjects_of(cases, args.subjects)
    for scale in args.scales:
        tallies = check(cases, found, scale)
        print(f"faces whole, subjects {args.subjects}, sizes x{scale:g}: films that cut no "
              "labelled face's core")
        for kind, tally in tallies.items():
            print(f"  {kind:16s} {tally.films - tally.cut:4d}/{tally.films:<4d} "
                  f"{tally.rate:6.1%}")
            for line in tally.failures[:args.failures]:
                print(f"      {line}")


if __name__ == "__main__":
    main()
