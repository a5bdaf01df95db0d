"""The posters: a plain frame grab (the fallback), and a designed poster per aspect with the
name in its lower part, made from the film of that aspect (media.deliver.poster)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from media.analysis.subjects import Box
from media.base import yuv
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.cards.spec import CardSpec
from media.deliver import poster as poster_module
from media.deliver.layout import CENTRE_SUBJECT
from media.deliver.poster import (
    PostersFromFrames,
    design_poster,
    design_poster_with_layout,
    extract_poster,
    grab_picture,
    make_poster,
    make_posters,
    picture_rows,
    write_poster,
)

pytestmark = pytest.mark.render


def _film(path: Path) -> Path:
    """2 s at 320x180: red for the first second, blue for the second, BT.709 limited range."""
    graph = "color=red:s=320x180:r=30:d=1[a];color=blue:s=320x180:r=30:d=1[b];[a][b]concat=n=2"
    run_tool(ffmpeg_argv("-filter_complex", graph, "-c:v", "libx264", "-preset", "ultrafast",
                         "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries",
                         "bt709", "-color_trc", "bt709", "-color_range", "tv", str(path)),
             Limits(timeout_s=60))
    return path


def test_the_poster_is_the_frame_at_the_given_second_at_full_size(tmp_path: Path) -> None:
    film = _film(tmp_path / "film.mp4")
    early = extract_poster(film, 0.5, tmp_path / "early.jpg")
    late = extract_poster(film, 1.5, tmp_path / "late.jpg")
    with Image.open(early) as image:
        assert image.format == "JPEG" and image.size == (320, 180)
        red = np.asarray(image.convert("RGB"), np.float64).mean(axis=(0, 1))
    with Image.open(late) as image:
        blue = np.asarray(image.convert("RGB"), np.float64).mean(axis=(0, 1))
    assert red[0] > 200 and red[2] < 40
    assert blue[2] > 200 and blue[0] < 40


TITLE = CardSpec("opening", ("Happy Birthday", "Sara سارة"))


def _picture(width: int, height: int) -> np.ndarray:
    """A bright, busy stand-in photo: the scrim and the shadows must make the name read."""
    rng = np.random.default_rng(3)
    small = rng.integers(90, 255, (6, 8, 3), dtype=np.uint8)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1080, 1920)])
def test_each_aspect_has_a_designed_poster_with_the_name_in_its_lower_part(
        width: int, height: int) -> None:
    picture = _picture(width, height)
    poster = design_poster(picture, TITLE)
    assert poster.shape == (height, width, 3) and poster.dtype == np.uint8
    # The name is drawn: compare with a poster of the same picture with no words (nor shade).
    bare = design_poster(picture, CardSpec("opening", ("", "")))
    changed = (poster.astype(int) - bare).sum(axis=2) > 60  # brighter: the letters
    rows = np.flatnonzero(changed.any(axis=1))
    assert changed.sum() > 0.004 * width * height
    assert rows[0] > 0.45 * height and rows[-1] < 0.97 * height  # lower part, on the poster
    # Readable: the drawn name is bright against the scrim.
    title = poster[changed]
    assert np.percentile(title.mean(axis=1), 90) > 200
    # The picture itself stays sharp at the top (not the card's blurred backdrop).
    top = slice(0, height // 5)
    assert np.abs(poster[top].astype(int) - picture[top]).mean() < 2.0


def _coloured_film(path: Path, width: int, height: int) -> Path:
    graph = f"testsrc2=s={width}x{height}:r=30:d=1"
    run_tool(ffmpeg_argv("-f", "lavfi", "-i", graph, "-c:v", "libx264", "-preset", "ultrafast",
                         "-pix_fmt", "yuv420p", "-colorspace", "bt709", str(path)),
             Limits(timeout_s=60))
    return path


@pytest.mark.parametrize(("width", "height"), [(320, 180), (180, 320)])
def test_poster_of_a_film_is_its_own_size_and_not_black(tmp_path: Path, width: int,
                                                        height: int) -> None:
    film = _coloured_film(tmp_path / "film.mp4", width, height)
    poster = make_poster(film, 0.5, TITLE, tmp_path / "poster.jpg").path
    plain = extract_poster(film, 0.5, tmp_path / "plain.jpg")
    with Image.open(poster) as image, Image.open(plain) as frame:
        assert image.format == "JPEG" and image.size == (width, height)
        drawn = np.asarray(image.convert("RGB"), np.float64)
        grabbed = np.asarray(frame.convert("RGB"), np.float64)
    assert drawn.mean() > 30
    lower = slice(height // 2, height)
    assert np.abs(drawn[lower] - grabbed[lower]).mean() > 10  # the words and the scrim


def test_the_grabbed_picture_is_ffmpegs_own_rgb_decode_of_that_frame(tmp_path: Path) -> None:
    film = _coloured_film(tmp_path / "film.mp4", 320, 180)
    raw = run_tool(ffmpeg_argv("-ss", "0.500", "-i", str(film), "-frames:v", "1", "-vf",
                               "scale=in_color_matrix=bt709:in_range=tv", "-pix_fmt", "rgb24",
                               "-f", "rawvideo", "pipe:1"), Limits(timeout_s=60)).stdout
    picture = grab_picture(film, 0.5)
    assert picture is not None and picture.dtype == np.uint8
    assert np.array_equal(picture, np.frombuffer(raw, np.uint8).reshape(180, 320, 3))
    assert grab_picture(film, 5.0) is None  # past the end


def test_posters_made_together_are_the_posters_made_one_by_one(tmp_path: Path) -> None:
    films = [_coloured_film(tmp_path / f"{w}x{h}.mp4", w, h) for w, h in ((320, 180), (180, 320))]
    together = make_posters([(film, tmp_path / f"{film.stem}-a.jpg") for film in films], 0.5,
                            TITLE)
    for film, made in zip(films, together, strict=True):
        alone = make_poster(film, 0.5, TITLE, tmp_path / f"{film.stem}-b.jpg")
        assert made.path == tmp_path / f"{film.stem}-a.jpg"
        assert made.path.read_bytes() == alone.path.read_bytes()
        assert made.layout == alone.layout


def test_a_picture_inside_a_blurred_fill_keeps_the_name_off_the_picture() -> None:
    """The 9:16 film shows a landscape photo it does not crop inside a blurred fill: the poster
    sets the name in the free band, not across the photo."""
    width, height = 1080, 1920
    fill = cv2.GaussianBlur(_picture(width, height), (0, 0), 40)
    photo = np.random.default_rng(5).integers(0, 255, (608, 1080, 3), dtype=np.uint8)
    frame = fill.copy()
    frame[656:1264] = photo
    top, bottom = picture_rows(frame) or (0, 0)
    assert abs(top - 656) <= 8 and abs(bottom - 1264) <= 8  # measured at a quarter scale
    assert picture_rows(_picture(width, height)) is None  # sharp edge to edge
    poster = design_poster(frame, TITLE)
    bare = design_poster(frame, CardSpec("opening", ("", "")))
    changed = (poster.astype(int) - bare).sum(axis=2) > 60
    rows = np.flatnonzero(changed.any(axis=1))
    assert rows.size and (rows[0] >= 1264 or rows[-1] < 656)


def _words(picture: np.ndarray, card: CardSpec, subject: Box | None) -> np.ndarray:
    """The pixels the words brighten on the poster (a mask), against the same poster without
    words."""
    poster = design_poster(picture, card, subject)
    bare = design_poster(picture, CardSpec("opening", ("", "")), subject)
    return (poster.astype(int) - bare).sum(axis=2) > 60


def _covers(words: np.ndarray, box: Box) -> int:
    height, width = words.shape
    x0, y0, x1, y1 = (round(v) for v in box.to_pixels(width, height))
    return int(words[y0:y1, x0:x1].sum())


@pytest.mark.parametrize(("width", "height", "subject"), [
    (1920, 1080, Box(0.4, 0.45, 0.6, 0.95)),  # room beside it
    (1080, 1920, Box(0.25, 0.45, 0.75, 0.65)),  # room below it
], ids=["16x9", "9x16"])
def test_the_name_moves_off_a_subject_in_the_lower_third(width: int, height: int,
                                                         subject: Box) -> None:
    # a face or a pet's head where the name would go
    picture = _picture(width, height)
    assert _covers(_words(picture, TITLE, None), subject) > 0  # where it went before
    words = _words(picture, TITLE, subject)
    assert words.sum() > 0.004 * width * height and _covers(words, subject) == 0



def test_a_subject_above_the_lower_third_leaves_the_name_where_it_was() -> None:
    picture = _picture(1920, 1080)
    assert (_words(picture, TITLE, Box(0.3, 0.05, 0.7, 0.4)) == _words(picture, TITLE, None)).all()


def test_posters_from_frames_are_designed_from_the_composed_frame_at_the_poster_index(
        tmp_path: Path) -> None:
    pictures = {"16x9": _picture(1920, 1080), "9x16": _picture(1080, 1920)}
    outputs = {name: tmp_path / f"{name}.jpg" for name in pictures}
    with PostersFromFrames(7, TITLE, outputs) as posters:
        for index in range(10):
            for name, picture in pictures.items():
                shown = picture if index == 7 else np.zeros_like(picture)  # others: black
                posters(index, name, yuv.rgb_to_i420(shown))
        made = posters.result()
    assert {name: poster.path for name, poster in made.items()} == outputs
    for name, picture in pictures.items():
        expected = write_poster(yuv.i420_to_rgb(yuv.rgb_to_i420(picture)), TITLE,
                                tmp_path / f"{name}-expected.jpg")
        assert made[name].path.read_bytes() == expected.path.read_bytes()
        assert made[name].layout == expected.layout


def test_posters_from_frames_say_so_when_the_render_never_reached_the_poster_frame(
        tmp_path: Path) -> None:
    with PostersFromFrames(50, TITLE, {"16x9": tmp_path / "p.jpg"}) as posters:
        posters(3, "16x9", yuv.rgb_to_i420(_picture(320, 180)))
        with pytest.raises(ValueError, match="no frame 50"):
            posters.result()


@pytest.mark.parametrize(("width", "height", "subject"), [
    (1920, 1080, None), (1080, 1920, None),
    (1920, 1080, Box(0.4, 0.45, 0.6, 0.95)), (1080, 1920, Box(0.25, 0.45, 0.75, 0.65)),
], ids=["16x9", "9x16", "16x9-beside-subject", "9x16-below-subject"])
def test_the_poster_reports_where_its_words_landed(width: int, height: int,
                                                   subject: Box | None) -> None:
    # a darker photo: the gold heading brightens it too (over a bright one it darkens)
    picture = _picture(width, height) // 2
    words = _words(picture, TITLE, subject)
    _, box = design_poster_with_layout(picture, TITLE, subject)
    assert box is not None
    x0, y0, x1, y1 = box.to_pixels(width, height)
    rows, cols = np.flatnonzero(words.any(axis=1)), np.flatnonzero(words.any(axis=0))
    slack = 0.01 * max(width, height)  # the brightened mask and the glyphs' alpha edge
    assert abs(rows[0] - y0) <= slack and abs(rows[-1] + 1 - y1) <= slack
    assert abs(cols[0] - x0) <= slack and abs(cols[-1] + 1 - x1) <= slack


def test_a_poster_without_words_reports_no_words_box() -> None:
    _, box = design_poster_with_layout(_picture(320, 180), CardSpec("opening", ("", "")), None)
    assert box is None


def test_the_written_poster_reports_its_subject_or_the_middle_when_nothing_stands_out(
        tmp_path: Path) -> None:
    flat = np.full((180, 320, 3), 120, np.uint8)
    poster = write_poster(flat, TITLE, tmp_path / "flat.jpg")
    assert poster.layout.subject == CENTRE_SUBJECT and poster.layout.text is not None
    spot = np.full((180, 320, 3), 40, np.uint8)
    cv2.circle(spot, (250, 50), 22, (250, 200, 40), -1)  # a bright, compact subject
    found = write_poster(spot, TITLE, tmp_path / "spot.jpg").layout.subject
    assert found is not None and found.x0 < 250 / 320 < found.x1 and found.y0 < 50 / 180 < found.y1


@pytest.mark.parametrize("text_x", [None, 300.0])
def test_the_poster_scrim_stays_within_the_picture_levels_so_truncating_needs_no_clip(
        text_x: float | None) -> None:
    picture = np.full((360, 640, 3), 255, np.uint8)
    picture[::7] = 0
    shaded = poster_module._scrim(picture, 250.0, text_x)
    assert shaded.min() >= 0.0 and shaded.max() <= 255.0
    assert np.array_equal(poster_module._as_uint8(shaded),
                          np.clip(shaded, 0, 255).astype(np.uint8))
