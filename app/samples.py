"""The samples catalog: one team-made demo film per occasion of a small built-in set.

``filmworker samples OUT_DIR`` renders each demo order folder under ``samples/`` with the same
pipeline as ``filmworker render`` (into ``OUT_DIR/{occasion_slug}/``) and writes
``OUT_DIR/samples.json`` in the order API's ``GET /v1/samples`` shape::

    {"caption": str, "samples": [{"video_url", "poster_url", "description",
                                  "occasion_slug", "duration_sec", "note"?}]}

Each demo folder holds its own ``order.json``, ``photos/`` (freely licensed photographs from
Debian packages: people in the birthday and anniversary demos, a dog in the pet tribute's),
``clips/`` where it has any (the birthday demo's one short clip) and ``SOURCES.md`` (origin,
author, licence and changes of every file). The caption and notes are verbatim public text: the
caption discloses that every sample is a team-made demo, and a note names each paid-provider step
that the demo replaced with a local one.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from media.base.spec import LANDSCAPE
from workflows.contract import FilmOutcome, FilmState

SAMPLES_ROOT = Path(__file__).resolve().parent.parent / "samples"
CATALOG_NAME = "samples.json"
VIDEO_NAME = f"{LANDSCAPE.name}.mp4"
POSTER_NAME = "poster.jpg"

CAPTION = ("Every film shown here is a demo our team made from freely licensed photos and "
           "clips. None of them is a customer's film.")

LOCAL_STEPS = {
    "song": "the song was composed by our local composer",
    "motion": "the photo motion was made by our local motion engine",
}
"""Paid-provider steps a demo may replace with a local one, and how the note says so."""


@dataclass(frozen=True)
class DemoOccasion:
    """One demo of the built-in set: its order folder and its public wording."""

    occasion_slug: str
    folder: str
    description: str
    """Verbatim description; ``{seconds}`` is replaced with the rendered length and
    ``{photos}`` with the number of photos in the folder (in words); the photo credits of its
    ``SOURCES.md`` follow it."""
    local_steps: tuple[str, ...] = ("song", "motion")


BUILT_IN: tuple[DemoOccasion, ...] = (
    DemoOccasion("birthday", "birthday",
                 "Birthday demo: a {seconds}-second film for Mads's fortieth from his friends, "
                 "made from {photos} photos, most of them of him across the years, and a short "
                 "clip, set to an original upbeat song."),
    DemoOccasion("anniversary", "anniversary",
                 "Anniversary demo: a {seconds}-second film for a couple, Lene & Mads, from "
                 "their friends, made from {photos} photos of the two of them and the sea they "
                 "love, set to a warm original song."),
    DemoOccasion("pet-tribute", "pet-tribute",
                 "Pet tribute demo: a quiet {seconds}-second film in memory of Honey the cocker "
                 "spaniel, made from {photos} photos of her and her walks, set to a gentle "
                 "original song."),
)


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve")
SOURCES_NAME = "SOURCES.md"
_CREDIT_ROW = re.compile(r"^\|\s*(?:photos|clips)/[^|]+\|[^|]*\|[^|]*"
                         r"\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|", re.MULTILINE)


def photo_credits(folder: Path) -> list[str]:
    """The photo (and clip) credits of a demo folder, from its ``SOURCES.md`` table (columns
    file, size, package, author, licence, ...): ``"Author (LICENCE)"`` once per author and
    licence, in table order. Attribution licences (CC BY, CC BY-SA) ask for this wherever the
    film is shown."""
    credits: list[str] = []
    for author, licence in _CREDIT_ROW.findall((folder / SOURCES_NAME).read_text("utf-8")):
        name = re.sub(r",\s*\d{4}", "", author).replace(";", " and").strip()  # drop years
        credit = f"{name} ({licence.split()[0].rstrip(';,')})"
        if credit not in credits:
            credits.append(credit)
    return credits


def photo_count(folder: Path) -> int:
    """How many photos a demo folder holds."""
    return sum(1 for path in (folder / "photos").iterdir() if path.is_file())


def describe(demo: DemoOccasion, duration_sec: float, samples_root: Path = SAMPLES_ROOT) -> str:
    """The demo's public description: its wording with the length and photo count filled in,
    then its photo credits."""
    folder = samples_root / demo.folder
    count = photo_count(folder) if (folder / "photos").is_dir() else 0
    words = NUMBER_WORDS[count] if count < len(NUMBER_WORDS) else str(count)
    text = demo.description.format(seconds=round(duration_sec), photos=words)
    credits = photo_credits(folder) if (folder / SOURCES_NAME).is_file() else []
    return f"{text} Photos: {'; '.join(credits)}." if credits else text


@dataclass(frozen=True)
class RenderedDemo:
    """A demo that rendered: its occasion and its film's length in seconds."""

    demo: DemoOccasion
    duration_sec: float


def note_for(local_steps: tuple[str, ...]) -> str | None:
    """The verbatim note for a demo whose ``local_steps`` replaced paid providers (or None)."""
    if not local_steps:
        return None
    clauses = " and ".join(LOCAL_STEPS[step] for step in local_steps)
    return f"This demo skips paid-provider steps: {clauses}."


def sample_entry(rendered: RenderedDemo, base_url: str) -> dict[str, Any]:
    """One ``Sample`` of the catalog; the demo's files are under ``{base_url}/{slug}/``."""
    slug = rendered.demo.occasion_slug
    base = f"{base_url.rstrip('/')}/{slug}"
    entry: dict[str, Any] = {
        "video_url": f"{base}/{VIDEO_NAME}",
        "poster_url": f"{base}/{POSTER_NAME}",
        "description": describe(rendered.demo, rendered.duration_sec),
        "occasion_slug": slug,
        "duration_sec": round(rendered.duration_sec, 2),
    }
    note = note_for(rendered.demo.local_steps)
    if note is not None:
        entry["note"] = note
    return entry


def build_catalog(rendered: list[RenderedDemo], base_url: str) -> dict[str, Any]:
    """The ``GET /v1/samples`` body: the caption and one sample per rendered demo."""
    return {"caption": CAPTION, "samples": [sample_entry(r, base_url) for r in rendered]}


def write_catalog(out_dir: Path, catalog: dict[str, Any]) -> Path:
    """Write ``OUT_DIR/samples.json`` (UTF-8, indented)."""
    path = out_dir / CATALOG_NAME
    path.write_text(json.dumps(catalog, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


RenderFolder = Callable[..., Awaitable[FilmOutcome]]
"""``app.local_run.render_folder``: ``(folder, out_dir, *, ui) -> FilmOutcome``."""


async def render_demos(render: RenderFolder, out_dir: Path, *, ui: bool = False,
                       samples_root: Path = SAMPLES_ROOT,
                       demos: tuple[DemoOccasion, ...] = BUILT_IN,
                       ) -> tuple[list[RenderedDemo], list[str]]:
    """Render every demo, one after the other: ``(rendered, failures)``."""
    rendered, failures = [], []
    for demo in demos:
        outcome = await render(samples_root / demo.folder, out_dir / demo.occasion_slug, ui=ui)
        if outcome.state is FilmState.SUCCEEDED and outcome.duration_sec:
            rendered.append(RenderedDemo(demo, outcome.duration_sec))
        else:
            failures.append(f"{demo.occasion_slug}: {outcome.state.value} ({outcome.reason})")
    return rendered, failures


def add_samples_parser(commands: Any) -> None:
    """Register ``filmworker samples OUT_DIR [--base-url URL] [--no-ui]``."""
    parser = commands.add_parser("samples", help="render the demo films of the samples "
                                 "catalog and write OUT_DIR/samples.json")
    parser.add_argument("out_dir", type=Path,
                        help="where each demo's folder and samples.json are written")
    parser.add_argument("--base-url", default=None,
                        help="public URL OUT_DIR will be served at (default: OUT_DIR's "
                        "file:// URL)")
    parser.add_argument("--no-ui", action="store_true", help="do not start the Temporal UI")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document on stdout (no progress bar)")


def samples_command(args: argparse.Namespace, render: RenderFolder) -> int:
    """Run ``filmworker samples``: 0 when every demo rendered and the catalog was written."""
    out_dir: Path = args.out_dir.absolute()
    base_url = args.base_url or out_dir.as_uri()
    rendered, failures = asyncio.run(render_demos(functools.partial(render, quiet=args.json),
                                                  out_dir, ui=not args.no_ui))
    out_dir.mkdir(parents=True, exist_ok=True)
    catalog = write_catalog(out_dir, build_catalog(rendered, base_url))
    if args.json:
        print(json.dumps({"catalog": str(catalog), "failures": failures}, ensure_ascii=False))
    else:
        print(f"wrote {catalog}")
        for failure in failures:
            print(f"demo not rendered: {failure}")
    return 1 if failures else 0
