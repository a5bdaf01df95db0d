"""Prep's photos alone: wall and CPU seconds of ``run_prep`` on the photos of order folders.

``PYTHONPATH=TREE .venv/bin/python bench/prep_photos.py FOLDER [FOLDER...] [--rounds N]``
uploads each folder's ``photos/`` to a local storage as one order (no clips), runs the real
``run_prep`` ``--rounds`` times and prints one JSON line per run: the folder, the photos kept
and refused, the wall seconds, the CPU seconds of this process and every child it reaped
(sandboxes included), and a digest of what prep made (each working JPEG's bytes, but for the
second its ICC profile was made, and each ``PreparedPhoto``), so two trees (``PYTHONPATH``) can
be compared run for run and byte for byte.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import tempfile
import time
from pathlib import Path


def _cpu_s() -> float:
    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def without_icc_date(jpeg: bytes) -> bytes:
    """``jpeg`` with its ICC profile's creation date zeroed: the sRGB profile is made when a
    process imports :mod:`media.intake.photos` and carries that second."""
    at = jpeg.find(b"ICC_PROFILE\0")
    if at < 0:
        return jpeg
    date = at + len(b"ICC_PROFILE\0") + 2 + 24  # after the chunk numbers, the header's date
    return jpeg[:date] + bytes(12) + jpeg[date + 12:]


def prep_run(folder: Path, root: Path) -> dict[str, object]:
    """One ``run_prep`` of ``folder``'s photos under ``root``: its figures and digest."""
    from activities.prep import run_prep
    from services.storage.local import LocalStorage
    from tests.stages import local_context, order_with_media

    photos = sorted(p for p in (folder / "photos").iterdir() if p.is_file())
    storage = LocalStorage(root / "storage")
    order = order_with_media("prepbench", [(f"p{i:02d}", "jpg") for i in range(1, len(photos) + 1)])
    for ref, path in zip(order.photos, photos, strict=True):
        storage.put_bytes(ref.key, path.read_bytes())
    cpu, started = _cpu_s(), time.monotonic()
    result = run_prep(local_context(root, storage), order)
    wall, cpu = time.monotonic() - started, _cpu_s() - cpu
    digest = hashlib.sha256()
    for prepared in result.photos:
        digest.update(repr(prepared).encode())
        digest.update(without_icc_date(storage.get_bytes(prepared.key, 1 << 30)))
    digest.update(repr(result.rejected).encode())
    return {"folder": folder.name, "photos": len(photos), "kept": len(result.photos),
            "refused": len(result.rejected), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "digest": digest.hexdigest()[:16]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    for _ in range(args.rounds):
        for folder in args.folders:
            with tempfile.TemporaryDirectory(prefix="prep-bench-") as tmp:
                print(json.dumps(prep_run(folder, Path(tmp))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
