"""Prep's cost: wall and CPU seconds of ``run_prep`` on the photos (and clips) of order folders.

``PYTHONPATH=TREE .venv/bin/python bench/prep_photos.py FOLDER [FOLDER...] [--rounds N]
[--with-clips]`` uploads each folder's ``photos/`` (and ``clips/``) to a local storage as one
order, runs the real ``run_prep`` ``--rounds`` times and prints one JSON line per run: the
folder, the photos kept
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


def prep_run(folder: Path, root: Path, with_clips: bool = False) -> dict[str, object]:
    """One ``run_prep`` of ``folder``'s photos (and its clips, ``with_clips``) under ``root``:
    its figures and digest."""
    from activities.prep import run_prep
    from services.storage.local import LocalStorage
    from tests.stages import local_context, order_with_media

    photos = sorted(p for p in (folder / "photos").iterdir() if p.is_file())
    clips = sorted(p for p in (folder / "clips").glob("*") if p.is_file()) if with_clips else []
    storage = LocalStorage(root / "storage")
    order = order_with_media("prepbench", [(f"p{i:02d}", "jpg") for i in range(1, len(photos) + 1)],
                             [(f"c{i:02d}", p.suffix[1:]) for i, p in enumerate(clips, 1)])
    for ref, path in zip([*order.photos, *order.clips], [*photos, *clips], strict=True):
        storage.put_bytes(ref.key, path.read_bytes())
    cpu, started = _cpu_s(), time.monotonic()
    result = run_prep(local_context(root, storage), order)
    wall, cpu = time.monotonic() - started, _cpu_s() - cpu
    digest = hashlib.sha256()
    for prepared in result.photos:
        digest.update(repr(prepared).encode())
        digest.update(without_icc_date(storage.get_bytes(prepared.key, 1 << 30)))
    digest.update(repr(result.rejected).encode())
    return {"folder": folder.name, "photos": len(photos), "clips": len(result.clips),
            "kept": len(result.photos),
            "refused": len(result.rejected), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "digest": digest.hexdigest()[:16]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--with-clips", action="store_true", help="the folder's clips/ too")
    args = parser.parse_args(argv)
    for _ in range(args.rounds):
        for folder in args.folders:
            with tempfile.TemporaryDirectory(prefix="prep-bench-") as tmp:
                print(json.dumps(prep_run(folder, Path(tmp), args.with_clips)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
