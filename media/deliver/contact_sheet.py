"""Contact sheets and storyboards: a grid of frames pulled from a rendered film, one PNG a person
(or a reviewing model) can look at to judge a film without playing it.

Frames come from ffmpeg through :mod:`media.base.runner` (one fast, accurate seek per frame, scaled
down inside ffmpeg, PNG over a pipe); the tiling and lettering are Pillow, with the bundled fonts
so a customer's name in any supported script prints correctly in a label.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from media.base.runner import Limits, ffmpeg_argv, ffprobe_argv, run_tool
from media.cards import fonts
from media.plan.timeline import Timeline

DEFAULT_FRAMES = 18
_BG = (17, 17, 19)
_TILE_BG = (34, 34, 38)
_BORDER = (58, 58, 64)
_TEXT = (236, 236, 238)
_MUTED = (160, 160, 168)
_GRAB_LIMITS = Limits(timeout_s=60.0)
_PROBE_LIMITS = Limits(timeout_s=30.0)


@dataclass(frozen=True)
class VideoInfo:
    """What a contact sheet needs to know about a film."""

    width: int
    height: int
    duration_s: float


def _input(path: Path) -> str:
    # "file:" stops ffmpeg reading a colon in the name as a protocol prefix.
    return f"file:{Path(path).resolve()}"


def probe(video_path: Path) -> VideoInfo:
    """Frame size (display orientation not applied) and duration of the first video stream."""
    result = run_tool(ffprobe_argv(
        "-select_streams", "v:0", "-show_entries", "stream=width,height,duration:format=duration",
        "-of", "default=noprint_wrappers=1", _input(video_path)), _PROBE_LIMITS)
    values: dict[str, str] = {}
    for raw in result.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = raw.strip().partition("=")
        if value and value != "N/A":
            values.setdefault(key, value)  # the stream's duration comes before the format's
    try:
        width, height = int(values["width"]), int(values["height"])
    except (KeyError, ValueError) as exc:
        raise ValueError(f"{video_path} has no video stream") from exc
    try:
        duration = float(values.get("duration", "0"))
    except ValueError:
        duration = 0.0
    return VideoInfo(width, height, duration)


def even_times(duration_s: float, count: int = DEFAULT_FRAMES) -> list[float]:
    """``count`` times spread over the film, each in the middle of its slice (never the very
    first or last frame, which are usually designed fades)."""
    if count <= 0 or duration_s <= 0:
        return [0.0] if count > 0 else []
    return [round((i + 0.5) * duration_s / count, 3) for i in range(count)]


def grab_frame(video_path: Path, time_s: float, width: int, height: int) -> Image.Image | None:
    """The frame at ``time_s`` scaled to ``width`` x ``height``, or None past the end."""
    result = run_tool(ffmpeg_argv(
        "-ss", f"{max(0.0, time_s):.3f}", "-i", _input(video_path), "-map", "0:v:0",
        "-frames:v", "1", "-vf", f"scale={int(width)}:{int(height)}:flags=area",
        "-pix_fmt", "rgb24", "-f", "image2pipe", "-c:v", "png", "pipe:1"), _GRAB_LIMITS)
    if not result.stdout:
        return None
    with Image.open(io.BytesIO(result.stdout)) as image:
        return image.convert("RGB")


def format_time(seconds: float) -> str:
    """``m:ss.cc`` for a timestamp label."""
    seconds = max(0.0, seconds)
    minutes = int(seconds // 60)
    return f"{minutes}:{seconds - 60 * minutes:05.2f}"


def _text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int,
          fill: tuple[int, int, int], *, anchor_centre: bool = False,
          weight: str = fonts.REGULAR, max_width: float | None = None) -> None:
    """Draw ``text`` (any supported script) with its left edge or centre at ``xy``, baseline y;
    shrunk (down to half ``size``) to fit ``max_width`` pixels when given."""
    clean = fonts.drawable(text)
    face = fonts.face_for(clean)
    with fonts.LOCK:
        runs = fonts.font_runs(clean, size, weight, face)
        width = sum(font.getlength(run) for run, font in runs)
        if max_width is not None and width > max_width and size > 8:
            size = max(size // 2, int(size * max_width / width))
            runs = fonts.font_runs(clean, size, weight, face)
            width = sum(font.getlength(run) for run, font in runs)
        x, y = xy
        if anchor_centre:
            x -= width / 2
        for run, font in runs:
            draw.text((x, y), run, font=font, anchor="ls", fill=fill)
            x += font.getlength(run)


def _even(value: float) -> int:
    return max(2, round(value / 2) * 2)


def _grab_all(video_path: Path, times: Sequence[float], width: int,
              height: int) -> list[Image.Image | None]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda t: grab_frame(video_path, t, width, height), times))


@dataclass(frozen=True)
class SheetGeometry:
    """Where everything sits on one sheet (pixels)."""

    count: int
    columns: int
    rows: int
    thumb_w: int
    thumb_h: int
    pad: int
    stamp_size: int
    stamp_h: int
    title_size: int
    title_h: int
    width: int
    height: int

    def tile(self, index: int) -> tuple[int, int, int, int]:
        """(left, top, right, bottom) of thumbnail ``index`` (right/bottom exclusive)."""
        row, col = divmod(index, self.columns)
        x = self.pad + col * (self.thumb_w + self.pad)
        y = self.title_h + self.pad + row * (self.thumb_h + self.stamp_h + self.pad)
        return x, y, x + self.thumb_w, y + self.thumb_h


def sheet_geometry(count: int, columns: int, thumb_w: int, thumb_h: int) -> SheetGeometry:
    """The layout of a sheet of ``count`` tiles of ``thumb_w`` x ``thumb_h``."""
    columns = max(1, min(columns, count or 1))
    rows = max(1, math.ceil(count / columns))
    pad = max(8, thumb_h // 16)
    stamp_size = max(12, min(28, thumb_h // 9))
    title_size = max(16, min(40, round(stamp_size * 1.5)))
    stamp_h = round(stamp_size * 1.7)
    title_h = round(title_size * 1.5 + stamp_size * 1.6 + pad)
    return SheetGeometry(count, columns, rows, thumb_w, thumb_h, pad, stamp_size, stamp_h,
                         title_size, title_h, width=pad + columns * (thumb_w + pad),
                         height=title_h + pad + rows * (thumb_h + stamp_h + pad))


def _sheet(video_path: Path, times: Sequence[float] | None, columns: int, thumb_w: int,
           thumb_h: int, title: str, info: VideoInfo,
           captions: Sequence[str] | None = None) -> Image.Image:
    """Tiles with timestamps (and ``captions``) under each and a title band on top."""
    if times is None:
        times = even_times(info.duration_s)
    times = list(times)
    frames = _grab_all(video_path, times, thumb_w, thumb_h)
    geo = sheet_geometry(len(times), columns, thumb_w, thumb_h)
    sheet = Image.new("RGB", (geo.width, geo.height), _BG)
    draw = ImageDraw.Draw(sheet)
    pad, size = geo.pad, geo.stamp_size
    _text(draw, (pad, pad + geo.title_size), title, geo.title_size, _TEXT, weight=fonts.BOLD)
    meta = (f"{info.width}x{info.height}  ·  {format_time(info.duration_s)}  ·  "
            f"{len(times)} frames")
    _text(draw, (pad, pad + geo.title_size * 1.5 + size), meta, size, _MUTED)
    for index, (time_s, frame) in enumerate(zip(times, frames, strict=True)):
        x, y, x1, y1 = geo.tile(index)
        draw.rectangle((x - 1, y - 1, x1, y1), outline=_BORDER, fill=_TILE_BG)
        if frame is not None:
            sheet.paste(frame, (x, y))
        else:
            _text(draw, (x + thumb_w / 2, y + thumb_h / 2 + size * 0.35), "no frame", size,
                  _MUTED, anchor_centre=True)
        stamp = format_time(time_s)
        if captions is not None and index < len(captions) and captions[index]:
            stamp = f"{stamp} {captions[index]}"
        _text(draw, (x + thumb_w / 2, y1 + size * 1.25), stamp, size, _TEXT,
              anchor_centre=True, max_width=thumb_w + pad * 0.8)
    return sheet


def contact_sheet(video_path: Path, out_png: Path, *, times: list[float] | None = None,
                  columns: int = 6, thumb_width: int = 320, label: str = "") -> Path:
    """Write a PNG grid of frames from ``video_path`` and return its path.

    Frames at ``times`` (seconds) or, by default, :data:`DEFAULT_FRAMES` evenly spaced; each
    tile is ``thumb_width`` wide (height from the film's aspect) with its timestamp under it;
    ``label`` (default: the file name) titles the sheet above a line of size and duration.
    """
    info = probe(video_path)
    thumb_w = _even(thumb_width)
    thumb_h = _even(thumb_width * info.height / info.width)
    sheet = _sheet(video_path, times, columns, thumb_w, thumb_h,
                   label or Path(video_path).name, info)
    out_png = Path(out_png)
    out_png.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out_png, format="PNG")
    return out_png


def storyboard(videos: dict[str, Path], out_png: Path, times: list[float] | None = None, *,
               thumb_height: int = 240, columns: int = 6, label: str = "",
               captions: list[str] | None = None) -> Path:
    """Stack one sheet per film (e.g. ``{"16x9": ..., "9x16": ...}``) into a single PNG.

    Every film's thumbnails get the same height, so a 9:16 frame is as tall as a 16:9 one;
    narrower films get more columns so every sheet is about as wide as the widest one.
    ``times`` apply to every film (default: evenly spaced over each); ``captions`` (one per
    time) follow the timestamps.
    """
    if not videos:
        raise ValueError("storyboard needs at least one video")
    infos = {name: probe(path) for name, path in videos.items()}
    thumb_h = _even(thumb_height)
    widths = {name: _even(thumb_h * info.width / info.height) for name, info in infos.items()}
    pad = max(8, thumb_h // 16)
    widest = max(widths.values())
    target = pad + columns * (widest + pad)
    sheets = []
    for name, path in videos.items():
        count = len(times) if times is not None else DEFAULT_FRAMES
        cols = max(1, min(count, (target - pad) // (widths[name] + pad)))
        title = f"{label}  ·  {name}" if label else name
        sheets.append(_sheet(path, times, cols, widths[name], thumb_h, title, infos[name],
                             captions))
    width = max(sheet.width for sheet in sheets)
    board = Image.new("RGB", (width, sum(sheet.height for sheet in sheets)), _BG)
    y = 0
    for sheet in sheets:
        board.paste(sheet, (0, y))
        y += sheet.height
        if y < board.height:
            ImageDraw.Draw(board).line((0, y - 1, width, y - 1), fill=_BORDER)
    out_png = Path(out_png)
    out_png.parent.mkdir(parents=True, exist_ok=True)
    board.save(out_png, format="PNG")
    return out_png


def shot_times(timeline: Timeline) -> tuple[list[float], list[str]]:
    """One time per shot of ``timeline`` (seconds: the middle of the shot, cards included) and
    a caption for it (``card``, or the photo or clip id; a split shot's two photos)."""
    times, captions = [], []
    for shot in timeline.shots:
        times.append(round((shot.cut_in + shot.cut_out) / 2 / timeline.fps, 3))
        partner = f"+{shot.partner_id}" if shot.partner_id else ""
        captions.append(f"{shot.source_id}{partner}" if shot.source_id and shot.kind != "card"
                        else shot.kind)
    return times, captions


def film_storyboard(videos: dict[str, Path], timeline: Timeline, out_png: Path, *,
                    label: str = "", thumb_height: int = 240) -> Path:
    """A storyboard of the rendered films of ``timeline``: one frame per shot and card, every
    shot of a film on one row where it fits."""
    times, captions = shot_times(timeline)
    return storyboard(videos, out_png, times, thumb_height=thumb_height,
                      columns=min(len(times), 10), label=label, captions=captions)
