"""Customer images (photos, brand logos) are decoded in a child process with CPU, memory and
wall-clock limits.

A picture's bytes can cost far more than their size: a 4 MB progressive JPEG of tens of
thousands of scans costs minutes of CPU, a 430 KB 16-bit PNG a gigabyte of pixels.
:func:`prepare_photo_bounded` runs :func:`media.intake.photos.prepare_photo` (and judges the
working copy showable, :mod:`media.intake.usable`), and
:func:`prepare_logo_bounded` runs :func:`media.intake.logo.prepare_logo`, in
``python -m media.intake.sandbox KIND SRC DEST`` through :mod:`media.base.runner` (own process
group,
``RLIMIT_AS``, ``RLIMIT_CPU``, ``RLIMIT_FSIZE``, a wall-clock timeout), so the worker process
never decodes customer bytes itself and what exceeds the limits is refused as
``image_decode_limit``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from media.base import errors
from media.base.errors import MediaRejected
from media.base.runner import Limits, ToolError, ToolTimeoutError, run_tool

if TYPE_CHECKING:  # numpy and Pillow load in the child only after its thread settings
    from media.intake.logo import LogoInfo
    from media.intake.photos import PhotoInfo

PHOTO_DECODE_TIMEOUT_S = 60.0
"""Wall seconds one photo may take in its child (a 50 Mpx photo takes 2-3 s of CPU; the rest is
room for a busy machine)."""
PHOTO_DECODE_CPU_S = 20
"""CPU seconds one photo may take (SIGXCPU past it)."""
PHOTO_DECODE_ADDRESS_SPACE_BYTES = 1536 * 1024**2
"""Address space of the child (bytes): the interpreter, Pillow and numpy (about 400 MB mapped,
little of it resident) plus the largest photo accepted (50 Mpx) decoded and converted."""
PHOTO_OUTPUT_FILE_BYTES = 64 * 1024**2
"""Largest file the child may write (the working JPEG: 4096 px at quality 92 is ~10 MB)."""
PHOTO_LIMITS = Limits(timeout_s=PHOTO_DECODE_TIMEOUT_S, cpu_s=PHOTO_DECODE_CPU_S,
                      address_space_bytes=PHOTO_DECODE_ADDRESS_SPACE_BYTES,
                      output_file_bytes=PHOTO_OUTPUT_FILE_BYTES)
LOGO_DECODE_TIMEOUT_S = 30.0
"""Wall seconds the brand logo may take in its child (a 16 Mpx logo takes under 1 s of CPU)."""
LOGO_DECODE_CPU_S = 10
"""CPU seconds the logo may take."""
LOGO_DECODE_ADDRESS_SPACE_BYTES = 1024 * 1024**2
"""Address space of the logo's child: the interpreter (about 400 MB mapped) plus the largest
logo accepted (:data:`media.intake.logo.LOGO_MAX_PIXELS`, RGBA) decoded, converted and trimmed."""
LOGO_OUTPUT_FILE_BYTES = 16 * 1024**2
"""Largest file the logo's child may write (the RGBA PNG, 1024 px long edge: a few MB)."""
LOGO_LIMITS = Limits(timeout_s=LOGO_DECODE_TIMEOUT_S, cpu_s=LOGO_DECODE_CPU_S,
                     address_space_bytes=LOGO_DECODE_ADDRESS_SPACE_BYTES,
                     output_file_bytes=LOGO_OUTPUT_FILE_BYTES)
PHOTO = "photo"
LOGO = "logo"
_SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
_LIMIT_SIGNALS = frozenset({-signal.SIGXCPU, -signal.SIGKILL, -signal.SIGSEGV,
                            -signal.SIGABRT, -signal.SIGBUS})
"""How a child dies of its limits: CPU (SIGXCPU), or an allocation the address-space limit
refused inside C code (segfault or abort)."""


def prepare_photo_bounded(src: Path, dest_jpeg: Path, limits: Limits = PHOTO_LIMITS
                          ) -> PhotoInfo:
    """:func:`media.intake.photos.prepare_photo` in a child process under ``limits`` (flat
    borders cut away: ``trimmed_from``), the working copy then judged showable there
    (:func:`media.intake.usable.prepare_usable_photo`).

    Raises :class:`MediaRejected` for the customer's file (its own reasons, those of a photo
    that cannot be shown such as ``image_blank``, or ``image_decode_limit`` when the child ran
    out of time, CPU or memory); a child that fails any other way (a bug, a missing file) is our
    fault and raises :class:`ToolError`.
    """
    from media.intake.photos import PhotoInfo

    info = _bounded(PHOTO, src, dest_jpeg, limits)
    if info.get("trimmed_from") is not None:
        info["trimmed_from"] = tuple(info["trimmed_from"])
    return PhotoInfo(**info)


def prepare_logo_bounded(src: Path, dest_png: Path, limits: Limits = LOGO_LIMITS) -> LogoInfo:
    """:func:`media.intake.logo.prepare_logo` in a child process under ``limits``: the brand logo is
    customer bytes like a photo and is never decoded in the worker process.

    Raises :class:`MediaRejected` as :func:`prepare_photo_bounded` does (the logo's own
    reasons, such as ``svg_refused`` or ``image_too_large``, or ``image_decode_limit``).
    """
    from media.intake.logo import LogoInfo

    return LogoInfo(**_bounded(LOGO, src, dest_png, limits))


def _bounded(kind: str, src: Path, dest: Path, limits: Limits) -> dict[str, Any]:
    """Run the child for ``kind`` on ``src``; the info fields it answered."""
    argv = [sys.executable, "-m", "media.intake.sandbox", kind, str(src), str(dest)]
    try:
        result = run_tool(argv, limits)
    except ToolTimeoutError as exc:
        raise MediaRejected(errors.IMAGE_DECODE_LIMIT,
                            f"not decoded in {limits.timeout_s:.0f} s") from exc
    except ToolError as exc:
        if exc.returncode in _LIMIT_SIGNALS or "MemoryError" in exc.stderr_tail:
            raise MediaRejected(errors.IMAGE_DECODE_LIMIT,
                                f"child ended by signal {exc.returncode}") from exc
        raise
    return _parse_answer(result.stdout)


def _parse_answer(stdout: bytes) -> dict[str, Any]:
    """The child's one JSON line: ``{"info": {...}}`` or ``{"rejected": [reason, detail]}``."""
    answer = json.loads(stdout.decode("utf-8").strip().splitlines()[-1])
    if "rejected" in answer:
        reason, detail = answer["rejected"]
        raise MediaRejected(str(reason), str(detail))
    info: dict[str, Any] = answer["info"]
    return info


def _child(kind: str, src: str, dest: str) -> int:
    """In the child: prepare the photo or logo, print the answer as one JSON line."""
    # imported here, after the thread settings
    if kind == PHOTO:
        from media.intake.usable import prepare_usable_photo as prepare
    elif kind == LOGO:
        from media.intake.logo import prepare_logo as prepare
    else:
        print(f"unknown kind {kind!r}", file=sys.stderr)
        return 2
    try:
        info = prepare(Path(src), Path(dest))
    except MediaRejected as rejection:
        print(json.dumps({"rejected": [rejection.reason, rejection.detail[:300]]}))
        return 0
    print(json.dumps({"info": asdict(info)}))
    return 0


if __name__ == "__main__":
    # The child's own process setup, not a setting read: its BLAS libraries take their thread
    # counts from its environment when numpy loads, so one thread keeps it inside its limits.
    os.environ.update(_SINGLE_THREADED)
    sys.exit(_child(*sys.argv[1:4]))
