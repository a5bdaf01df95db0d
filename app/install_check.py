"""``filmworker check-install``: whether this installation can render, in a second and without a
server. Every look loads in every style (its typefaces found), the bundled fonts and the gate's
word list are readable, the sample orders are there, ffmpeg, ffprobe and the temporal CLI run,
libfluidsynth loads. The Docker image runs it as its smoke check: a package
built without its data files (a look, a font) fails here, not at the first order."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

TOOL_TIMEOUT_S = 30.0


def _looks() -> str:
    from media.design.looks import LOOK_DIR, look, look_names
    from media.design.values import STYLES

    names = look_names()
    if not names:
        raise FileNotFoundError(f"no look in {LOOK_DIR}")
    for name in names:
        for style in STYLES:
            look(name, style)  # validates the look, its faces' files included
    return f"{len(names)} looks x {len(STYLES)} styles"


def _fonts() -> str:
    from media.cards.fonts import all_font_files

    files = all_font_files()
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"missing fonts: {', '.join(missing)}")
    return f"{len(files)} fonts"


def _word_list() -> str:
    from services.text_policy import BUILTIN_WORDS_PATH

    BUILTIN_WORDS_PATH.read_text(encoding="utf-8")
    return "word list"


def _samples() -> str:
    from app.samples import BUILT_IN, SAMPLES_ROOT

    missing = [demo.folder for demo in BUILT_IN
               if not (SAMPLES_ROOT / demo.folder / "order.json").is_file()]
    if missing:
        raise FileNotFoundError(f"sample orders missing from {SAMPLES_ROOT}: {missing}")
    return f"{len(BUILT_IN)} sample orders"


def _first_line(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TOOL_TIMEOUT_S,
                          check=True)
    return (done.stdout or done.stderr).strip().splitlines()[0]


def _tools() -> str:
    from app.devserver import temporal_cli_path
    from app.media_tools import use_media_tools
    from media.base.runner import tool_path
    from services.settings import Settings

    settings = Settings()
    use_media_tools(settings)  # FFMPEG_BINARY / FFPROBE_BINARY, as a worker runs them
    for name in ("ffmpeg", "ffprobe"):
        _first_line([tool_path(name), "-version"])
    return f"ffmpeg, ffprobe, {_first_line([temporal_cli_path(settings), '--version'])}"


def _fluidsynth() -> str:
    from media.song.compose import load_fluidsynth

    load_fluidsynth()
    return "libfluidsynth"


def _right_to_left() -> str:
    from PIL import features

    if not (features.check_feature("raqm") and features.check_feature("fribidi")):
        raise RuntimeError("right-to-left words need Pillow's RAQM layout with FriBiDi "
                           "(Debian's libfribidi0)")
    return f"FriBiDi {features.version_feature('fribidi')}"


CHECKS: dict[str, Callable[[], str]] = {
    "looks": _looks, "fonts": _fonts, "word list": _word_list, "samples": _samples,
    "tools": _tools, "fluidsynth": _fluidsynth, "right-to-left": _right_to_left,
}
"""Each check: what it found, or an exception saying what is missing."""


def install_report() -> tuple[list[str], list[str]]:
    """(what was found, what is missing): one entry per check."""
    found, problems = [], []
    for name, check in CHECKS.items():
        try:
            found.append(check())
        except (Exception, SystemExit) as error:
            problems.append(f"{name}: {error}")
    return found, problems
