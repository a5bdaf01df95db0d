"""Every corpus order through the plan-level invariants: pass rates, the worst orders, the
failures as JSON.

    python -m bench.corpus.report [--orders 300] [--seed 42] [--cache DIR] [--json FILE]

The photos are generated and analysed once into the cache (``FILM_CORPUS_CACHE``, default
``~/.cache/filmworker-corpus``); each order's results are kept there too, keyed by the order and
by the code that planned and checked it (any change to ``media/``, ``activities/``,
``services/``, ``workflows/``, ``bench/corpus/`` or the labels plans and checks again).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.corpus.analysis import analyse_all, clip_facts
from bench.corpus.generate import Case, generate_corpus
from bench.corpus.invariants import INVARIANTS, check_order
from bench.corpus.planning import plan_case
from bench.corpus.sources import LABELS, REPO

DEFAULT_ORDERS = 300
DEFAULT_SEED = 42
CODE_FOLDERS = ("media", "activities", "services", "workflows", "bench/corpus")


def default_cache() -> Path:
    """Where the corpus and its analysis live (``FILM_CORPUS_CACHE``)."""
    return Path(os.environ.get("FILM_CORPUS_CACHE")
                or Path.home() / ".cache" / "filmworker-corpus")


def code_key() -> str:
    """A hash of the code and data the results depend on."""
    digest = hashlib.sha256(LABELS.read_bytes())
    for folder in CODE_FOLDERS:
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(REPO)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


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


def _facts(case: Case, order: dict[str, Any]) -> dict[str, Any]:
    return {"scenario": case.scenario, "text_kind": case.text_kind,
            "photos": len(case.photos), "photo_kinds": [p.kind for p in case.photos],
            "clips": len(case.clips), "occasion": order["occasion"]["slug"],
            "tier": order["tier"], "style": order["style"], "length_sec": order["length_sec"],
            "subject_photo": "subject_photo" in order}


def _run_one(case: Case, cache: Path, key: str) -> OrderResult:
    order = json.loads((case.folder / "order.json").read_text(encoding="utf-8"))
    stamp = hashlib.sha256((case.folder / "truth.json").read_bytes()
                           + (case.folder / "order.json").read_bytes()).hexdigest()[:12]
    stored = cache / "results" / key / f"{case.id}-{stamp}.json"
    if stored.exists():
        checks = json.loads(stored.read_text(encoding="utf-8"))
    else:
        checks = check_order(lambda: plan_case(case, cache))
        stored.parent.mkdir(parents=True, exist_ok=True)
        partial = stored.with_suffix(f".{os.getpid()}.part")
        partial.write_text(json.dumps(checks, ensure_ascii=False), encoding="utf-8")
        partial.replace(stored)
    return OrderResult(case.id, _facts(case, order), checks)


def _run_chunk(args: tuple[list[Case], Path, str]) -> list[OrderResult]:
    cases, cache, key = args
    return [_run_one(case, cache, key) for case in cases]


def run_corpus(cache: Path | None = None, seed: int = DEFAULT_SEED,
               orders: int = DEFAULT_ORDERS, workers: int = 2) -> list[OrderResult]:
    """Generate (or find) the corpus, analyse its photos, plan and check every order."""
    cache = cache or default_cache()
    cases = generate_corpus(cache, seed, orders)
    analyse_all([c.folder / "photos" / f"{k + 1:02d}-{p.file}" for c in cases
                 for k, p in enumerate(c.photos)], cache, threads=workers)
    for path in {p for c in cases for p in (c.folder / "clips").iterdir()}:
        clip_facts(path, cache)
    key = code_key()
    chunks = [cases[k::workers * 4] for k in range(workers * 4)]
    if workers <= 1:
        results = _run_chunk((cases, cache, key))
    else:
        with ProcessPoolExecutor(workers) as pool:
            results = [r for chunk in pool.map(_run_chunk, [(c, cache, key) for c in chunks])
                       for r in chunk]
    order = {c.id: k for k, c in enumerate(cases)}
    return sorted(results, key=lambda r: order[r.id])


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


def main(argv: list[str] | None = None) -> int:
    """The report command."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--orders", type=int, default=DEFAULT_ORDERS)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None,
                        help="write every failing order's failures here")
    args = parser.parse_args(argv)
    start = time.monotonic()
    results = run_corpus(args.cache, args.seed, args.orders, args.workers)
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
