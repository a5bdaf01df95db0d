"""Every order of the corpus fixture through the plan-level invariants: pass rates, the
spread, the worst orders, the failures as JSON.

    python -m bench.corpus.report [--fixture FILE] [--every N] [--workers 2] [--json FILE]
    python -m bench.corpus.report --order ID [--order ID ...]

It reads the fixture ``python -m bench.corpus.generate`` wrote (no photo is decoded): each
order's spec is planned (:func:`media.plan.planner.plan`) and its shots framed as the renderer
frames them (:mod:`bench.corpus.framing`). ``--order`` prints one order's timeline and every
failure of its own instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.corpus import fixture
from bench.corpus.analysis import analysis_key
from bench.corpus.fixture import Corpus, CorpusOrder
from bench.corpus.invariants import INVARIANTS, check_order
from bench.corpus.orders import OCCASIONS
from bench.corpus.specs import with_current_words
from media.plan.planner import plan
from workflows.contract import FilmOrder

OCCASION_CYCLE = len(OCCASIONS)


@dataclass
class OrderResult:
    """One order's invariants (failures per check; None: not applicable) and its spread."""

    id: str
    facts: dict[str, Any]
    checks: dict[str, list[str] | None]

    @property
    def failing(self) -> list[str]:
        """The checks this order fails."""
        return [name for name, fails in self.checks.items() if fails]


def check(corpus: Corpus, order: CorpusOrder) -> OrderResult:
    """``order`` of ``corpus`` through every invariant."""
    return OrderResult(order.id, order.facts, check_order(order, corpus.photos_of(order)))


def spread_subset(count: int, every: int) -> list[int]:
    """About one in ``every`` of ``count`` orders' indices, spread like the whole: the generator
    cycles occasions every 12 orders (and scenarios, photo counts, tiers and styles at other
    periods), so each run of 12 keeps another residue modulo ``every`` and every occasion,
    scenario, photo count, tier and style stays in."""
    return [k for k in range(count) if k % every == (k // OCCASION_CYCLE) % every]


_CORPUS: list[Corpus] = []


def _check_chunk(args: tuple[Path, list[int]]) -> list[OrderResult]:
    path, indices = args
    if not _CORPUS:
        _CORPUS.append(fixture.load(path))
    corpus = _CORPUS[0]
    return [check(corpus, corpus.orders[k]) for k in indices]


def run_corpus(path: Path = fixture.FIXTURE, every: int = 1,
               workers: int = 1) -> list[OrderResult]:
    """About one in ``every`` orders of the fixture at ``path`` (:func:`spread_subset`)
    checked, on ``workers`` processes."""
    corpus = fixture.load(path)
    indices = spread_subset(len(corpus.orders), every)
    if workers <= 1:
        return [check(corpus, corpus.orders[k]) for k in indices]
    chunks = [indices[k::workers * 4] for k in range(workers * 4)]
    with ProcessPoolExecutor(workers) as pool:
        results = [r for chunk in pool.map(_check_chunk, [(path, c) for c in chunks])
                   for r in chunk]
    rank = {o.id: k for k, o in enumerate(corpus.orders)}
    return sorted(results, key=lambda r: rank[r.id])


def pass_rates(results: list[OrderResult]) -> dict[str, tuple[int, int]]:
    """Per check: (orders passing, orders it applies to)."""
    rates = {}
    for name in INVARIANTS:
        applied = [r for r in results if r.checks.get(name) is not None]
        rates[name] = (sum(1 for r in applied if not r.checks[name]), len(applied))
    return rates


def worst(results: list[OrderResult], count: int = 10) -> list[OrderResult]:
    """The orders failing the most checks (then with the most failures)."""
    return sorted(results, key=lambda r: (-len(r.failing),
                                          -sum(len(v or []) for v in r.checks.values()),
                                          r.id))[:count]


def spread(results: list[OrderResult]) -> dict[str, Counter[Any]]:
    """The corpus's spread: counts per kind of photo, photo count, occasion and so on."""
    def bucket(seconds: float) -> str:
        return next(f"{lo}-{hi}s" for lo, hi in ((30, 44), (45, 89), (90, 134), (135, 180))
                    if seconds <= hi)
    out: dict[str, Counter[Any]] = {name: Counter() for name in (
        "photo kind", "photos", "clips", "occasion", "tier", "style", "length", "text",
        "scenario", "subject photo")}
    for r in results:
        f = r.facts
        out["photo kind"].update(f["photo_kinds"])
        out["photos"][f["photos"]] += 1
        out["clips"][f["clips"]] += 1
        out["occasion"][f["occasion"]] += 1
        out["tier"][f["tier"]] += 1
        out["style"][f["style"]] += 1
        out["length"][bucket(f["length_sec"])] += 1
        out["text"][f["text_kind"]] += 1
        out["scenario"][f["scenario"]] += 1
        out["subject photo"]["set" if f["subject_photo"] else "not set"] += 1
    return out


def print_report(results: list[OrderResult], seconds: float, out: Any = sys.stdout) -> None:
    """The pass rates, the spread and the worst orders, for people."""
    print(f"{len(results)} orders checked in {seconds:.1f}s", file=out)
    print("\ninvariant                 pass rate", file=out)
    for name, (ok, applied) in pass_rates(results).items():
        rate = f"{100 * ok / applied:5.1f} %" if applied else "   n/a"
        print(f"  {name:24s}{rate}  ({ok}/{applied})", file=out)
    every = sum(1 for r in results if not r.failing)
    print(f"  {'all of them':24s}{100 * every / len(results):5.1f} %  ({every}/{len(results)})",
          file=out)
    print("\nspread", file=out)
    for name, counts in spread(results).items():
        items = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=lambda kv: str(
            kv[0])))
        print(f"  {name}: {items}", file=out)
    print("\nworst orders", file=out)
    for r in worst(results):
        f = r.facts
        print(f"  {r.id} ({f['photos']} photos, {f['occasion']}, {f['tier']}, {f['style']}, "
              f"{f['length_sec']}s, {f['text_kind']} text): fails {', '.join(r.failing)}",
              file=out)
        for name in r.failing:
            for line in (r.checks[name] or [])[:2]:
                print(f"      {name}: {line}", file=out)


def print_orders(path: Path, ids: list[str], out: Any = sys.stdout) -> None:
    """Each order of ``ids``: its spread, its timeline as planned and every failure."""
    corpus = fixture.load(path)
    by_id = {o.id: o for o in corpus.orders}
    for order_id in ids:
        order = by_id[order_id]
        print(f"{order_id}: {order.facts}; expected {order.expected}", file=out)
        if order.spec is not None:
            spec = with_current_words(order.spec, FilmOrder.model_validate(order.order))
            print(plan(spec).describe(), file=out)
        for name, fails in check(corpus, order).checks.items():
            for line in fails or []:
                print(f"  {name}: {line}", file=out)


def main(argv: list[str] | None = None) -> int:
    """The report command."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixture", type=Path, default=fixture.FIXTURE)
    parser.add_argument("--every", type=int, default=1,
                        help="check one order in N, spread like the whole")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None,
                        help="write every failing order's failures here")
    parser.add_argument("--order", action="append", default=[],
                        help="print this order's timeline and failures (repeatable)")
    args = parser.parse_args(argv)
    if args.order:
        print_orders(args.fixture, args.order)
        return 0
    made_with = fixture.load(args.fixture).header.get("analysis")
    if made_with != analysis_key():
        print(f"the fixture was made with analysis {made_with}, the code's is {analysis_key()}: "
              "python -m bench.corpus.generate makes it again", file=sys.stderr)
    start = time.monotonic()
    results = run_corpus(args.fixture, args.every, args.workers)
    print_report(results, time.monotonic() - start)
    if args.json:
        failures = {r.id: {"facts": r.facts, "failures": {k: v for k, v in r.checks.items()
                                                         if v}}
                    for r in results if r.failing}
        rates = {k: {"passed": ok, "applied": n} for k, (ok, n) in pass_rates(results).items()}
        args.json.write_text(json.dumps({"pass_rates": rates, "orders": failures},
                                        ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"\nfailures written to {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
