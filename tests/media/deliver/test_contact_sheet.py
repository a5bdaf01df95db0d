"""Contact sheets and storyboards from short lavfi test films."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.deliver.contact_sheet import (
    DEFAULT_FRAMES,
    contact_sheet,
    even_times,
    format_time,
    grab_frame,
    probe,
    sheet_geometry,
    storyboard,
)


def _film(dest: Path, size: str) -> Path:
    run_tool(ffmpeg_argv("-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30:duration=4",
                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                         str(dest)), Limits(timeout_s=60))
    return dest


@pytest.fixture(scope="module")
def films(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("films")
    return {"16x9": _film(folder / "land: 16x9.mp4", "640x360"),
            "9x16": _film(folder / "port.mp4", "360x640")}


def _tiles_look_like_frames(sheet: np.ndarray, geo, video: Path, times: list[float]) -> None:
    for index, time_s in enumerate(times):
        x0, y0, x1, y1 = geo.tile(index)
        tile = sheet[y0:y1, x0:x1].astype(np.float32)
        frame = grab_frame(video, time_s, geo.thumb_w, geo.thumb_h)
        assert frame is not None
        assert np.abs(tile - np.asarray(frame, np.float32)).mean() < 2.0


def test_probe_and_times(films: dict[str, Path]) -> None:
    info = probe(films["16x9"])
    assert (info.width, info.height) == (640, 360)
    assert info.duration_s == pytest.approx(4.0, abs=0.1)
    times = even_times(4.0, 8)
    assert times == [0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.25, 3.75]
    assert even_times(0.0) == [0.0]
    assert format_time(75.5) == "1:15.50"


def test_default_contact_sheet(films: dict[str, Path], tmp_path: Path) -> None:
    out = contact_sheet(films["16x9"], tmp_path / "sheet.png", label="Order 1234 · 美咲 · Zoë")
    assert out == tmp_path / "sheet.png"
    geo = sheet_geometry(DEFAULT_FRAMES, 6, 320, 180)
    assert (geo.columns, geo.rows) == (6, 3)
    with Image.open(out) as image:
        assert image.format == "PNG"
        assert image.size == (geo.width, geo.height)
        sheet = np.asarray(image.convert("RGB"))
    # Every one of the 18 tiles holds a colourful test-pattern frame, not the sheet background.
    for index in range(DEFAULT_FRAMES):
        x0, y0, x1, y1 = geo.tile(index)
        assert sheet[y0:y1, x0:x1].std() > 40
    # The title band and the timestamp strips carry text (light pixels on the dark sheet).
    assert (sheet[: geo.title_h] > 200).any()
    x0, _, x1, y1 = geo.tile(0)
    assert (sheet[y1 : y1 + geo.stamp_h, x0:x1] > 200).any()


def test_explicit_times_match_the_film(films: dict[str, Path], tmp_path: Path) -> None:
    times = [0.5, 2.0, 3.9]
    out = contact_sheet(films["16x9"], tmp_path / "three.png", times=times, columns=2,
                        thumb_width=200)
    geo = sheet_geometry(3, 2, 200, 112)
    with Image.open(out) as image:
        assert image.size == (geo.width, geo.height)
        sheet = np.asarray(image.convert("RGB"))
    _tiles_look_like_frames(sheet, geo, films["16x9"], times)
    # Different times really are different frames.
    a = sheet[slice(*geo.tile(0)[1::2]), slice(*geo.tile(0)[0::2])].astype(np.float32)
    b = sheet[slice(*geo.tile(1)[1::2]), slice(*geo.tile(1)[0::2])].astype(np.float32)
    assert np.abs(a - b).mean() > 5


def test_time_past_the_end_leaves_a_placeholder(films: dict[str, Path], tmp_path: Path) -> None:
    out = contact_sheet(films["16x9"], tmp_path / "late.png", times=[1.0, 60.0],
                        thumb_width=160)
    geo = sheet_geometry(2, 6, 160, 90)
    with Image.open(out) as image:
        sheet = np.asarray(image.convert("RGB"))
    x0, y0, x1, y1 = geo.tile(1)
    assert sheet[y0:y1, x0:x1].std() < 30  # placeholder, not a frame


def test_storyboard_stacks_both_aspects(films: dict[str, Path], tmp_path: Path) -> None:
    times = [0.5, 1.5, 2.5, 3.5]
    out = storyboard(films, tmp_path / "board.png", times, thumb_height=120, label="Order 1")
    land = sheet_geometry(4, 6, 214, 120)
    # 9:16 thumbs get the same height; with more columns available they sit on one row.
    port = sheet_geometry(4, 4, 68, 120)
    with Image.open(out) as image:
        assert image.size == (max(land.width, port.width), land.height + port.height)
        board = np.asarray(image.convert("RGB"))
    _tiles_look_like_frames(board[: land.height], land, films["16x9"], times)
    _tiles_look_like_frames(board[land.height :], port, films["9x16"], times)


def test_storyboard_needs_a_video(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        storyboard({}, tmp_path / "none.png", [1.0])


def test_film_storyboard_has_one_frame_per_shot(films: dict[str, Path], tmp_path: Path) -> None:
    from media.cards.spec import CardSpec
    from media.deliver.contact_sheet import film_storyboard, shot_times
    from media.plan.inputs import PhotoSource
    from media.plan.planner import plan
    from media.plan.spec import FilmSpec, FilmWords, SongGrid

    photos = [PhotoSource(f"p{i}", 1600, 1200, False) for i in range(2)]
    timeline = plan(FilmSpec(
        length_sec=4.0, photos=photos, subject_photo_id="p0",
        words=FilmWords(opening=CardSpec("opening", ("Hi", "Anna")),
                        closing=CardSpec("closing", ("Bye",))),
        song=SongGrid(beat_times=[i * 0.5 for i in range(8)])))
    times, captions = shot_times(timeline)
    assert len(times) == len(timeline.shots) and captions[0] == "card" and captions[1] == "p1"
    for shot, t in zip(timeline.shots, times, strict=True):
        assert shot.cut_in <= t * 30 < shot.cut_out
    out = film_storyboard(films, timeline, tmp_path / "storyboard.png", thumb_height=120)
    land = sheet_geometry(len(times), len(times), 214, 120)
    with Image.open(out) as image:
        assert image.size[1] >= land.height  # both aspects, every shot on one row each
        board = np.asarray(image.convert("RGB"))
    _tiles_look_like_frames(board[: land.height], land, films["16x9"], times)
