"""How far the I420 render's frames are from the old RGB render's, per plane (PSNR, dB).

``.venv/bin/python -m bench.yuv_psnr RUN --base-tree /work/wt/base22 [--every 10] [--scratch D]``

``RUN`` is a kept run (the folder holding ``prep/``, ``assets/``, ``render/``) or a case's
storage folder holding one (found by :func:`bench.exact_floor.run_dir`), e.g. from
``run_case(CaseSpec(30, "standard", stop_after="render"), WORKDIR)`` of :mod:`bench.cases`
(``WORKDIR/storage``). The same run is composed twice
with :func:`bench.exact_floor.tap_frames`: by the code at ``--base-tree`` (a worktree of the
commit before the I420 render: it pipes rgb24), in a child Python with that tree first on its
path, and by this tree (it pipes yuv420p). The old frames are converted to yuv420p exactly as the
old encoder did (ffmpeg's swscale, ``scale=out_color_matrix=bt709:out_range=tv,
format=yuv420p``), then every ``--every``-th frame is compared plane by plane. Printed per aspect
and plane: min and mean PSNR over the frames compared, and the frame with the min. Raw frames
(~11 GB rgb24 plus ~5 GB yuv420p for 30 s) go to ``--scratch`` and are kept there for a rerun
(a tap whose files are complete is not redone; ``--fresh`` redoes both).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from media.base import spec, yuv
from media.base.runner import ffmpeg_argv

TAP_SCRIPT = """
import json, sys
from pathlib import Path
from bench.exact_floor import tap_frames
outs = tap_frames(Path(sys.argv[1]), Path(sys.argv[2]))
print(json.dumps({k: str(v) for k, v in outs.items()}))
"""


def tap(run: Path, out_dir: Path, tree: Path) -> dict[str, Path]:
    """The raw frames of ``run`` composed by the code at ``tree``, one file per aspect."""
    out_dir.mkdir(parents=True, exist_ok=True)
    done = out_dir / "done.json"
    if done.exists():
        return {k: Path(v) for k, v in json.loads(done.read_text()).items()}
    result = subprocess.run([sys.executable, "-c", TAP_SCRIPT, str(run), str(out_dir)],
                            cwd=tree, env=_env(tree), check=True, capture_output=True,
                            text=True)
    done.write_text(result.stdout.strip().splitlines()[-1])
    return {k: Path(v) for k, v in json.loads(done.read_text()).items()}


def _env(tree: Path) -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    return env


def swscale_i420(rgb_path: Path, aspect: spec.Aspect) -> Iterator[np.ndarray]:
    """The rgb24 frames in ``rgb_path`` converted to I420 by ffmpeg as the old encoder did."""
    argv = ffmpeg_argv("-f", "rawvideo", "-pix_fmt", "rgb24",
                       "-s", f"{aspect.width}x{aspect.height}", "-i", str(rgb_path),
                       "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                       "-f", "rawvideo", "-pix_fmt", "yuv420p", "pipe:1")
    size = aspect.width * aspect.height * 3 // 2
    shape = yuv.frame_shape(aspect.width, aspect.height)
    with subprocess.Popen(argv, stdout=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        while len(data := proc.stdout.read(size)) == size:
            yield np.frombuffer(data, np.uint8).reshape(shape)


def i420_frames(path: Path, aspect: spec.Aspect) -> Iterator[np.ndarray]:
    """The I420 frames in the raw file ``path``."""
    size = aspect.width * aspect.height * 3 // 2
    shape = yuv.frame_shape(aspect.width, aspect.height)
    with path.open("rb") as raw:
        while len(data := raw.read(size)) == size:
            yield np.frombuffer(data, np.uint8).reshape(shape)


def compare(old: Iterator[np.ndarray], new: Iterator[np.ndarray], every: int
            ) -> dict[str, dict[str, float]]:
    """Per plane: min, mean PSNR and the frame index of the min over every ``every``-th frame
    of two same-length I420 streams."""
    scores: dict[str, list[float]] = {"Y": [], "U": [], "V": []}
    frames = 0
    for index, (a, b) in enumerate(zip(old, new, strict=True)):
        frames += 1
        if index % every:
            continue
        for name, pa, pb in zip("YUV", yuv.planes(a), yuv.planes(b), strict=True):
            scores[name].append(yuv.psnr(pa, pb))
    out: dict[str, dict[str, float]] = {}
    for name, values in scores.items():
        finite = np.array([min(v, 99.0) for v in values])  # identical planes count as 99 dB
        out[name] = {"min": float(finite.min()), "mean": float(finite.mean()),
                     "min_frame": float(int(finite.argmin()) * every), "frames": float(frames),
                     "compared": float(len(values))}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.yuv_psnr",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path,
                        help="a kept run folder (prep/, assets/, render/) or a storage holding one")
    parser.add_argument("--base-tree", type=Path, required=True,
                        help="a worktree of the RGB render's commit")
    parser.add_argument("--every", type=int, default=10, help="compare every N-th frame")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/yuv-psnr"))
    parser.add_argument("--fresh", action="store_true", help="tap both renders again")
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parents[1]
    run = args.run.resolve()
    if not (run / "render" / "timeline.json").exists():
        from bench.exact_floor import run_dir

        run = run_dir(run)
    if args.fresh:
        for side in ("base", "i420"):
            (args.scratch / side / "done.json").unlink(missing_ok=True)
    old = tap(run, args.scratch / "base", args.base_tree.resolve())
    new = tap(run, args.scratch / "i420", here)
    worst = float("inf")
    for aspect in spec.ASPECTS:
        result = compare(swscale_i420(old[aspect.name], aspect),
                         i420_frames(new[aspect.name], aspect), args.every)
        for plane, r in result.items():
            worst = min(worst, r["min"])
            print(f"{aspect.name} {plane}: min {r['min']:.2f} dB (frame {r['min_frame']:.0f}), "
                  f"mean {r['mean']:.2f} dB over {r['compared']:.0f} of {r['frames']:.0f} frames")
    print(f"worst plane of any compared frame: {worst:.2f} dB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
