"""Make the corpus fixture: the orders from a seed (:mod:`bench.corpus.orders`), each through
the real intake, the gate and the render stage's film spec (:mod:`bench.corpus.specs`), with
its ground truth, into ``tests/fixtures/corpus/orders.jsonl.gz`` (:mod:`bench.corpus.fixture`).

    python -m bench.corpus.generate [--orders 300] [--seed 42] [--cache DIR] [--out FILE]

Everything slow is cached under ``--cache`` (``FILM_CORPUS_CACHE``, default
``~/.cache/filmworker-corpus``): the pool's photos and the order folders (per seed), each
photo's intake and analysis (per content and the analysis code: a new face detector analyses
again, a fix of the camera does not), each photo's traits and matte per tier. Run it again
after a change to intake or analysis (``media/intake``, ``media/analysis``) or to how an order
becomes a spec, and commit the fixture it writes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.corpus import fixture
from bench.corpus.analysis import PhotoFacts, analyse_all, analysis_key, clip_facts
from bench.corpus.fixture import CorpusOrder, CorpusPhoto, TruthFace
from bench.corpus.orders import Case, PoolPhoto, generate_corpus, same_picture
from bench.corpus.sources import CLIP_PICTURES, picture_of
from bench.corpus.specs import PLANNED, Prepared, cached_sources, gate_outcome, order_spec, prepare

DEFAULT_ORDERS = 300
DEFAULT_SEED = 42
CONSENT_AT = "2026-01-01T00:00:00Z"
"""The consent time every corpus order carries (the fixture is the same for the same code)."""


def default_cache() -> Path:
    """Where the corpus's photos and their analysis are cached (``FILM_CORPUS_CACHE``)."""
    return Path(os.environ.get("FILM_CORPUS_CACHE")
                or Path.home() / ".cache" / "filmworker-corpus")


Shares = tuple[float, float, float, float]
WHOLE: Shares = (0.0, 0.0, 1.0, 1.0)


def _scaled(box: list[float], width: int, height: int, trimmed_from: Shares = WHOLE
            ) -> tuple[float, float, float, float]:
    """A ``box`` in shares of the upright photo in pixels of its ``width`` x ``height`` working
    copy, which shows the photo's ``trimmed_from`` box (its flat borders cut away)."""
    left, top, right, bottom = trimmed_from
    sx, sy = width / (right - left), height / (bottom - top)
    return ((box[0] - left) * sx, (box[1] - top) * sy, (box[2] - left) * sx,
            (box[3] - top) * sy)


def _truth_face(face: dict[str, Any], facts: PhotoFacts) -> TruthFace:
    """A labelled face moved into the working copy's pixels (cut by the photo when intake's
    trim reached into its core, which it never should)."""
    w, h, trim = facts.width, facts.height, facts.trimmed_from or WHOLE
    core = _scaled(face["core"], w, h, trim)
    outside = core[0] < 0 or core[1] < 0 or core[2] > w or core[3] > h
    return TruthFace(_scaled(face["box"], w, h, trim), core, face["profile"], face["small"],
                     face["cut_by_photo"] or outside)


def corpus_photo(pool: PoolPhoto, facts: PhotoFacts, picture: str = ""
                 ) -> tuple[CorpusPhoto, dict[str, Any] | None]:
    """A pool photo as the fixture holds it (its labelled faces moved into its working copy's
    pixels, through intake's trim of its flat borders; the ``picture`` it shows whole:
    :func:`bench.corpus.orders.same_picture`), and its subject as JSON data."""
    w, h = facts.width, facts.height
    faces = tuple(_truth_face(f, facts) for f in pool.faces) if w else ()
    photo = CorpusPhoto(pool.id, pool.kind, facts.rejected, w, h, facts.subject,
                        facts.texture_map(), faces, pool.blank, pool.near_blank,
                        pool.degenerate, pool.duplicate_of, picture,
                        picture_of(pool.source) if pool.source else "")
    return photo, asdict(facts.subject) if facts.subject else None


def _facts(case: Case, order: Prepared) -> dict[str, Any]:
    o = order.order
    return {"scenario": case.scenario, "text_kind": case.text_kind,
            "photos": len(case.photos), "photo_kinds": [p.kind for p in case.photos],
            "clips": len(case.clips), "occasion": o.occasion.slug, "tier": o.tier.value,
            "style": o.style.value, "length_sec": o.length_sec,
            "subject_photo": o.subject_photo_id is not None}


def corpus_order(case: Case, prepared: Prepared) -> CorpusOrder:
    """The case as the fixture holds it: its spec (when the gate lets it through and the spec
    is made), the pool photo behind each photo id, its words and its expected outcome
    (``planned``, ``held:<reason>`` or ``failed:<error>`` when making the spec raised)."""
    by_file = {p.file: p.id for p in case.photos}
    photos = {pid: by_file[name.split("-", 1)[1]] for pid, name in prepared.names.items()}
    expected, spec = gate_outcome(prepared), None
    if expected == PLANNED:
        try:
            spec = order_spec(prepared)
        except Exception as error:  # the render stage would fail the run: a finding
            expected = f"failed:{type(error).__name__}: {' '.join(str(error).split())[:200]}"
    o = prepared.order
    words = {"recipient_name": o.recipient_name, "relationship": o.relationship,
             "memory": o.memory, "story_note": o.story_note,
             "feeling_words": list(o.feeling_words)}
    received = o.model_dump(mode="json")
    received["consent"]["at"] = CONSENT_AT  # read_order_folder stamps the time it read it
    clip_pictures = {f"c{k + 1:02d}": CLIP_PICTURES[name] for k, name in enumerate(case.clips)
                     if name in CLIP_PICTURES}
    return CorpusOrder(case.id, spec, photos, words, expected, _facts(case, prepared), received,
                       clip_pictures)


def build(cache: Path, seed: int, orders: int, out: Path, workers: int = 2) -> dict[str, float]:
    """Generate the corpus into ``cache`` and write its fixture to ``out``; the seconds each
    step took."""
    times: dict[str, float] = {}
    start = time.monotonic()
    cases = generate_corpus(cache, seed, orders)
    times["orders"] = time.monotonic() - start
    paths = {c.folder / "photos" / f"{k + 1:02d}-{p.file}": p for c in cases
             for k, p in enumerate(c.photos)}
    count = len({p.id for p in paths.values()})
    print(f"{len(cases)} orders, {count} photos: analysing", file=sys.stderr)
    facts = analyse_all(list(paths), cache, threads=workers)
    for case in cases:
        for path in (case.folder / "clips").iterdir():
            clip_facts(path, cache)
    times["analysis"] = time.monotonic() - start - sum(times.values())
    photos = {}
    pool_by_id = {p.id: p for c in cases for p in c.photos}
    for path, pool in paths.items():
        photos.setdefault(pool.id, corpus_photo(pool, facts[path],
                                                same_picture(pool, pool_by_id)))
    made = []
    with cached_sources(cache):
        for count, case in enumerate(cases, 1):
            made.append(corpus_order(case, prepare(case.folder, cache)))
            if count % 50 == 0:
                print(f"{count} orders made into specs", file=sys.stderr)
    times["specs"] = time.monotonic() - start - sum(times.values())
    header = {"seed": seed, "orders": orders, "analysis": analysis_key()}
    lines = [fixture.photo_line(p, s) for _, (p, s) in sorted(photos.items())]
    fixture.write(out, header, [*lines, *(fixture.order_line(o) for o in made)])
    times["total"] = time.monotonic() - start
    return times


def main(argv: list[str] | None = None) -> int:
    """The generate command."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=DEFAULT_ORDERS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=fixture.FIXTURE)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    times = build(args.cache or default_cache(), args.seed, args.orders, args.out,
                  args.workers)
    size = args.out.stat().st_size
    print(f"{args.orders} orders written to {args.out} ({size / 1e6:.2f} MB): "
          + ", ".join(f"{k} {v:.0f}s" for k, v in times.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
