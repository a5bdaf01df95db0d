"""Fuzz the prep stage: mutated JPEG, PNG, WebP, MP4, MOV and WebM files through ``run_prep``.

Seeds are the test order's photos and clips (``tests/fixtures/order``) plus small files of every
accepted format made here (Pillow, ffmpeg's lavfi). Each mutant (bit flips, interesting bytes,
truncation, a duplicated or zeroed stretch, inserted garbage; header bytes more often) is
uploaded to a local storage as a customer's file and prepped exactly as an order would be, in a
child process that is killed past ``--hang-s`` (the media code bounds every decode itself; this
catches what it misses). Every outcome is classified:

- ``kept`` / ``refused:<reason>``: prep's own answers (a named reason);
- ``unclassified:<type>``: prep raised something else (a fault of ours, or a missing mapping);
- ``crash``: a tool or the prep child died of a signal;
- ``hang``: the file took longer than ``--hang-s``.

``python -m bench.fuzz_prep [--files N] [--budget-s S] [--hang-s S] [--seed K] [--keep DIR]``
prints the counts and every finding; exits 1 when there is a crash, a hang or an unclassified
error. Mutants that produced a finding are copied to ``--keep`` when given.
"""

from __future__ import annotations

import argparse
import collections
import io
import multiprocessing
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE_ORDER = REPO / "tests" / "fixtures" / "order"
PHOTO_EXTS = ("jpg", "png", "webp")
CLIP_EXTS = ("mp4", "mov", "webm")
DEFAULT_FILES = 200
DEFAULT_BUDGET_S = 600.0
DEFAULT_HANG_S = 60.0
"""Longer than any bound prep puts on one photo (60 s) or one probe (20 s) of a small file."""
INTERESTING_BYTES = (0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF)
HEADER_BYTES = 512
FINDING_KINDS = ("crash", "hang", "unclassified")


@dataclass
class FuzzReport:
    """Counts per outcome and the findings (mutant name -> outcome)."""

    tried: int = 0
    elapsed_s: float = 0.0
    outcomes: collections.Counter[str] = field(default_factory=collections.Counter)
    findings: dict[str, str] = field(default_factory=dict)

    def count(self, kind: str) -> int:
        """Mutants whose outcome starts with ``kind`` (``crash``, ``hang``, ``unclassified``)."""
        return sum(n for outcome, n in self.outcomes.items() if outcome.startswith(kind))

    def summary(self) -> str:
        """One line of figures."""
        return (f"files tried {self.tried}, crashes {self.count('crash')}, hangs "
                f"{self.count('hang')}, unclassified {self.count('unclassified')} "
                f"in {self.elapsed_s:.0f} s")


# --- seeds -------------------------------------------------------------------------------------


def make_seeds(folder: Path) -> list[Path]:
    """The seed files: the test order's media and one small file per accepted format."""
    from PIL import Image

    from tests.media.lavfi import lavfi_clip, x264

    folder.mkdir(parents=True, exist_ok=True)
    seeds = [*sorted((FIXTURE_ORDER / "photos").glob("*.jpg"))[:2],
             *sorted((FIXTURE_ORDER / "clips").glob("*"))]
    picture = Image.radial_gradient("L").resize((96, 64)).convert("RGB")
    for ext, options in (("jpg", {"progressive": True}), ("png", {}), ("webp", {})):
        picture.save(folder / f"seed.{ext}", **options)
        seeds.append(folder / f"seed.{ext}")
    Image.new("I;16", (80, 60), 40000).save(folder / "seed16.png")
    seeds.append(folder / "seed16.png")
    graph = "testsrc2=s=96x64:r=30:d=0.6"
    seeds.append(lavfi_clip(folder / "seed.mp4", graph, *x264(), "-c:a", "aac",
                            audio="sine=d=0.6"))
    seeds.append(lavfi_clip(folder / "seed.mov", graph, *x264(), "-f", "mov"))
    seeds.append(lavfi_clip(folder / "seed.webm", graph, "-c:v", "libvpx", "-b:v", "200k"))
    return seeds


# --- mutations ---------------------------------------------------------------------------------


def _offset(rng: random.Random, data: bytearray) -> int:
    """A position, in the header half the time (where the parsers branch)."""
    span = min(len(data), HEADER_BYTES) if rng.random() < 0.5 else len(data)
    return rng.randrange(max(1, span))


def flip_bits(rng: random.Random, data: bytearray) -> None:
    for _ in range(rng.randint(1, 8)):
        data[_offset(rng, data)] ^= 1 << rng.randrange(8)


def interesting_bytes(rng: random.Random, data: bytearray) -> None:
    for _ in range(rng.randint(1, 4)):
        at = _offset(rng, data)
        data[at:at + rng.choice((1, 2, 4))] = bytes([rng.choice(INTERESTING_BYTES)]) * 4


def truncate(rng: random.Random, data: bytearray) -> None:
    del data[rng.randrange(1, len(data)):]


def duplicate_stretch(rng: random.Random, data: bytearray) -> None:
    start = _offset(rng, data)
    stretch = data[start:start + rng.randint(1, 4096)]
    at = _offset(rng, data)
    data[at:at] = stretch * rng.randint(1, 8)


def zero_stretch(rng: random.Random, data: bytearray) -> None:
    start = _offset(rng, data)
    data[start:start + rng.randint(1, 2048)] = bytes(min(2048, len(data) - start))


def insert_garbage(rng: random.Random, data: bytearray) -> None:
    at = _offset(rng, data)
    data[at:at] = rng.randbytes(rng.randint(1, 256))


MUTATORS: tuple[Callable[[random.Random, bytearray], None], ...] = (
    flip_bits, interesting_bytes, truncate, duplicate_stretch, zero_stretch, insert_garbage)


def mutate(rng: random.Random, seed_bytes: bytes) -> bytes:
    """One mutant: one to three mutations of ``seed_bytes``."""
    data = bytearray(seed_bytes)
    for _ in range(rng.randint(1, 3)):
        if len(data) > 1:
            rng.choice(MUTATORS)(rng, data)
    return bytes(data)


# --- prepping one file in a child --------------------------------------------------------------


def _classify(error: BaseException) -> str:
    from media.base.runner import ToolError, ToolMissingError

    if isinstance(error, ToolError) and error.returncode is not None and error.returncode < 0:
        return f"crash:tool signal {-error.returncode}"
    if isinstance(error, ToolMissingError):
        raise error  # the fuzz run cannot go on without ffmpeg
    return f"unclassified:{type(error).__name__}"


def prep_one(root: Path, path: Path) -> str:
    """Upload ``path`` as the order's one photo (or as its clip, beside a good photo) and prep
    it; return the classified outcome."""
    from activities.prep import run_prep
    from services.storage.local import LocalStorage
    from tests.stages import local_context, order_with_media

    ext = path.suffix.removeprefix(".")
    is_clip = ext in CLIP_EXTS
    storage = LocalStorage(root / "storage")
    photos = [("p01", "png" if is_clip else ext)]
    order = order_with_media("fuzz0001", photos, [("c01", ext)] if is_clip else [])
    storage.put_file(order.photos[0].key, path if not is_clip else root / "good.png")
    if is_clip:
        storage.put_file(order.clips[0].key, path)
    try:
        result = run_prep(local_context(root, storage), order)
    except Exception as error:
        return _classify(error)
    target = "c01" if is_clip else "p01"
    reasons = [r.reason for r in result.rejected if r.id == target]
    return f"refused:{reasons[0]}" if reasons else "kept"


def _serve(connection: Connection, root: str) -> None:
    """The child: prep each path it is sent, answer its outcome."""
    from PIL import Image

    Image.new("RGB", (64, 48), (90, 90, 90)).save(Path(root) / "good.png")
    while True:
        path = connection.recv()
        if path is None:
            return
        connection.send(prep_one(Path(root), Path(path)))


class PrepChild:
    """A spawned child that preps files one at a time; restarted after a hang or a death."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._context = multiprocessing.get_context("spawn")
        self._start()

    def _start(self) -> None:
        self.connection, child_end = self._context.Pipe()
        self.process = self._context.Process(target=_serve, args=(child_end, str(self.root)),
                                             daemon=True)
        self.process.start()

    def prep(self, path: Path, hang_s: float) -> str:
        """The outcome of prepping ``path``, ``hang`` past ``hang_s`` seconds, ``crash`` when
        the child died."""
        self.connection.send(str(path))
        if not self.connection.poll(hang_s):
            self.restart()
            return "hang"
        try:
            return str(self.connection.recv())
        except EOFError:
            self.restart()
            return f"crash:prep child exit {self.process.exitcode}"

    def restart(self) -> None:
        """Kill the child and start a fresh one."""
        self.process.kill()
        self.process.join(10)
        self._start()

    def close(self) -> None:
        """Stop the child."""
        if self.process.is_alive():
            self.connection.send(None)
            self.process.join(10)
        self.process.kill()


# --- the run -----------------------------------------------------------------------------------


def fuzz(files: int = DEFAULT_FILES, budget_s: float = DEFAULT_BUDGET_S,
         hang_s: float = DEFAULT_HANG_S, seed: int = 0, keep: Path | None = None,
         work: Path | None = None) -> FuzzReport:
    """Prep up to ``files`` mutants within ``budget_s`` seconds; the report of what happened."""
    rng = random.Random(seed)
    report = FuzzReport()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-prep-", dir=work) as scratch:
        root = Path(scratch)
        seeds = [(path.suffix.lower(), path.read_bytes()) for path in make_seeds(root / "seeds")]
        child = PrepChild(root / "child")
        (root / "child").mkdir()
        try:
            while report.tried < files and time.monotonic() - started < budget_s:
                suffix, seed_bytes = rng.choice(seeds)
                suffix = ".jpg" if suffix == ".jpeg" else suffix
                mutant = root / "mutants" / f"m{report.tried:05d}{suffix}"
                mutant.parent.mkdir(exist_ok=True)
                mutant.write_bytes(mutate(rng, seed_bytes))
                outcome = child.prep(mutant, hang_s)
                report.tried += 1
                report.outcomes[outcome] += 1
                if outcome.startswith(FINDING_KINDS):
                    report.findings[mutant.name] = outcome
                    if keep is not None:
                        keep.mkdir(parents=True, exist_ok=True)
                        shutil.copy(mutant, keep / mutant.name)
                mutant.unlink()
        finally:
            child.close()
    report.elapsed_s = time.monotonic() - started
    return report


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz_prep", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=DEFAULT_FILES)
    parser.add_argument("--budget-s", type=float, default=DEFAULT_BUDGET_S)
    parser.add_argument("--hang-s", type=float, default=DEFAULT_HANG_S)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args(argv)
    report = fuzz(args.files, args.budget_s, args.hang_s, args.seed, args.keep)
    out = io.StringIO()
    for outcome, count in sorted(report.outcomes.items(), key=lambda item: -item[1]):
        print(f"{count:6d}  {outcome}", file=out)
    for name, outcome in sorted(report.findings.items()):
        print(f"finding {name}: {outcome}", file=out)
    print(report.summary(), file=out)
    sys.stdout.write(out.getvalue())
    return 1 if any(report.count(kind) for kind in FINDING_KINDS) else 0


if __name__ == "__main__":
    sys.exit(main())
