"""Rendering both aspects in one pass: spec compliance, BT.709 colour, failures
(media.frames.render)."""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
import time
import types
import wave
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

import media.frames.stall
from bench.exact_floor import raw_writer_argv
from media.base import spec, yuv
from media.base.runner import (
    Limits,
    ToolError,
    ToolTimeoutError,
    ffmpeg_argv,
    ffprobe_argv,
    run_tool,
)
from media.cards.draw import words_box, words_wanted
from media.cards.overlay import film_logo_box
from media.cards.spec import CardSpec
from media.cards.text import logo_reserve
from media.frames.encode import open_encoders
from media.frames.render import COMPOSE_OPENCV_THREADS, RenderRequest, RenderStats, render_films
from media.frames.sources import FilmSources
from media.plan import planner
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline

pytestmark = pytest.mark.render

LENGTH_S = 6.0
GRAY = (128, 128, 128)
RED = (255, 0, 0)
BLUE = (30, 60, 160)  # the subject's photo: the title and the closing stand over it
ENCODER = spec.EncoderSettings(preset="superfast")  # still High profile; keeps the test quick
LOGO_RGB = (250, 120, 20)
LIMITS = Limits(timeout_s=60)
STALL_S = 3.0  # the stall limit of the stalled encoder's render (seconds)
SLOW_STALL_S = 60.0  # the stall limit of the renders made slow by their watch's clock
SLOW_FRAMES = 6  # frames of the slow render, each taking half of it


@dataclasses.dataclass(frozen=True)
class Film:
    timeline: Timeline
    outputs: dict[str, Path]
    stats: RenderStats
    progress: list[float]


def _solid_photo(path: Path, rgb: tuple[int, int, int]) -> PhotoSource:
    Image.new("RGB", (1600, 1200), rgb).save(path)  # lossless: exact colours
    return PhotoSource(path.stem, 1600, 1200, False)


def _song(path: Path, seconds: float) -> None:
    rate = spec.AUDIO_SAMPLE_RATE
    t = np.arange(round(seconds * rate)) / rate
    tone = (0.2 * np.sin(2 * np.pi * 330 * t) * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(np.repeat(tone, 2).tobytes())


def _clip(path: Path) -> ClipSource:
    run_tool(ffmpeg_argv("-f", "lavfi", "-i", "testsrc=size=640x360:rate=30", "-t", "4",
                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                         "-colorspace", "bt709", "-color_primaries", "bt709",
                         "-color_trc", "bt709", "-color_range", "tv", str(path)), LIMITS)
    return ClipSource("clip", 4.0, 640, 360, False)


def _logo() -> np.ndarray:
    """A synthetic RGBA brand logo: an orange block in a transparent margin."""
    logo = np.zeros((120, 240, 4), np.uint8)
    logo[10:-10, 10:-10] = (*LOGO_RGB, 255)
    return logo


def _inputs(tmp: Path) -> tuple[list[PhotoSource], list[ClipSource], Path]:
    photos = [_solid_photo(tmp / "gray.png", GRAY), _solid_photo(tmp / "red.png", RED),
              _solid_photo(tmp / "blue.png", BLUE)]
    clips = [_clip(tmp / "clip.mp4")]
    _song(tmp / "song.wav", LENGTH_S)
    return photos, clips, tmp / "song.wav"


def _timeline(photos: list[PhotoSource], clips: list[ClipSource], length: float) -> Timeline:
    beats = [i * 0.5 for i in range(int(length * 2) + 1)]
    return planner.plan(FilmSpec(
        length_sec=length, photos=photos, clips=clips, recipe=MotionRecipe(motion_shots=1),
        subject_photo_id="blue" if any(p.id == "blue" for p in photos) else "gray",
        words=FilmWords(opening=CardSpec("opening", ("Happy Birthday", "Zoë O'Brien")),
                        closing=CardSpec("closing", ("With love",))),
        song=SongGrid(beat_times=beats)))


@pytest.fixture(scope="module")
def film(tmp_path_factory: pytest.TempPathFactory) -> Film:
    tmp = tmp_path_factory.mktemp("render")
    photos, clips, song = _inputs(tmp)
    timeline = _timeline(photos, clips, LENGTH_S)
    outputs = {a.name: tmp / f"{a.name}.mp4" for a in spec.ASPECTS}
    progress: list[float] = []
    sources = FilmSources({p.id: tmp / f"{p.id}.png" for p in photos}, {"clip": tmp / "clip.mp4"},
                          logo=_logo(), audio=song)
    stats = render_films(timeline, sources, outputs, RenderRequest(on_progress=progress.append),
                         ENCODER)
    return Film(timeline, outputs, stats, progress)


def _probe(path: Path) -> dict:
    out = run_tool(ffprobe_argv("-count_packets", "-show_streams", "-show_format", "-of", "json",
                                str(path)), LIMITS)
    return json.loads(out.stdout)


def _frame_yuv(path: Path, index: int, width: int,
               height: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    out = run_tool(ffmpeg_argv("-i", str(path), "-vf", f"select=eq(n\\,{index})",
                               "-fps_mode", "passthrough", "-frames:v", "1", "-f", "rawvideo",
                               "-pix_fmt", "yuv420p", "pipe:1"), LIMITS).stdout
    luma = width * height
    y = np.frombuffer(out[:luma], np.uint8).reshape(height, width).astype(np.float64)
    u = np.frombuffer(out[luma:luma * 5 // 4], np.uint8).reshape(height // 2, width // 2)
    v = np.frombuffer(out[luma * 5 // 4:luma * 3 // 2], np.uint8).reshape(height // 2, width // 2)
    return y, u.astype(np.float64), v.astype(np.float64)


def _frame_rgb(path: Path, index: int, width: int, height: int) -> np.ndarray:
    """Decoded by ffmpeg following the file's own colour tags."""
    out = run_tool(ffmpeg_argv("-i", str(path), "-vf", f"select=eq(n\\,{index})",
                               "-fps_mode", "passthrough", "-frames:v", "1", "-f", "rawvideo",
                               "-pix_fmt", "rgb24", "pipe:1"), LIMITS).stdout
    return np.frombuffer(out, np.uint8).reshape(height, width, 3).astype(np.float64)


def _bt709_limited(rgb: tuple[int, int, int]) -> tuple[float, float, float]:
    r, g, b = (c / 255 for c in rgb)
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return 16 + 219 * y, 128 + 224 * (b - y) / 1.8556, 128 + 224 * (r - y) / 1.5748


def _yuv_to_rgb_bt709(y: float, u: float, v: float) -> np.ndarray:
    yy, cb, cr = (y - 16) / 219, (u - 128) / 224, (v - 128) / 224
    r = yy + 1.5748 * cr
    b = yy + 1.8556 * cb
    g = (yy - 0.2126 * r - 0.0722 * b) / 0.7152
    return np.clip(np.array([r, g, b]) * 255, 0, 255)


def _middle(plane: np.ndarray) -> np.ndarray:
    """The middle quarter of an image plane."""
    h, w = plane.shape[:2]
    return plane[h * 3 // 8:h * 5 // 8, w * 3 // 8:w * 5 // 8]


def _middle_frame(timeline: Timeline, source_id: str) -> int:
    """The middle frame of the first picture shot of ``source_id`` (not a card over it)."""
    shot = next(s for s in timeline.shots if s.source_id == source_id and s.kind != "card")
    return (shot.cut_in + shot.cut_out) // 2


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_output_matches_the_spec(film: Film, aspect: spec.Aspect) -> None:
    info = _probe(film.outputs[aspect.name])
    video = next(s for s in info["streams"] if s["codec_type"] == "video")
    audio = next(s for s in info["streams"] if s["codec_type"] == "audio")
    assert (video["codec_name"], video["profile"]) == (spec.VIDEO_CODEC, spec.VIDEO_PROFILE)
    assert (video["width"], video["height"]) == (aspect.width, aspect.height)
    assert video["pix_fmt"] == spec.PIX_FMT
    assert video["color_space"] == spec.COLOR_SPACE
    assert video["color_primaries"] == spec.COLOR_PRIMARIES
    assert video["color_transfer"] == spec.COLOR_TRANSFER
    assert video["color_range"] == spec.COLOR_RANGE
    assert video["r_frame_rate"] == "30/1" and video["avg_frame_rate"] == "30/1"
    assert int(video["nb_read_packets"]) == film.timeline.total_frames
    assert float(info["format"]["duration"]) == pytest.approx(LENGTH_S, abs=0.1)
    assert (audio["codec_name"], audio["profile"]) == (spec.AUDIO_CODEC, spec.AUDIO_PROFILE)
    assert int(audio["sample_rate"]) == spec.AUDIO_SAMPLE_RATE
    assert audio["channels"] == spec.AUDIO_CHANNELS
    with film.outputs[aspect.name].open("rb") as fh:  # +faststart: moov before mdat
        head = fh.read(1 << 16)
    assert 0 <= head.find(b"moov") < max(head.find(b"mdat"), 1 << 16)


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
@pytest.mark.parametrize("colour", [GRAY, RED], ids=["gray", "red"])
def test_colour_uses_bt709_throughout(film: Film, aspect: spec.Aspect,
                                      colour: tuple[int, int, int]) -> None:
    path, w, h = film.outputs[aspect.name], aspect.width, aspect.height
    index = _middle_frame(film.timeline, "gray" if colour == GRAY else "red")
    y, u, v = _frame_yuv(path, index, w, h)
    window = (slice(h // 2 - 100, h // 2 + 100), slice(w // 2 - 100, w // 2 + 100))
    half = (slice(h // 4 - 50, h // 4 + 50), slice(w // 4 - 50, w // 4 + 50))
    measured = (y[window].mean(), u[half].mean(), v[half].mean())
    expected = _bt709_limited(colour)
    assert measured == pytest.approx(expected, abs=2.0)  # BT.601 red would have Y ~ 82
    assert np.abs(_yuv_to_rgb_bt709(*measured) - colour).max() <= 4
    decoded = _frame_rgb(path, index, w, h)[window].reshape(-1, 3).mean(axis=0)
    assert np.abs(decoded - colour).max() <= 4


def test_clip_frames_are_shown(film: Film) -> None:
    index = _middle_frame(film.timeline, "clip")
    for aspect in spec.ASPECTS:
        rgb = _frame_rgb(film.outputs[aspect.name], index, aspect.width, aspect.height)
        assert rgb.std() > 40  # testsrc's colour bars, not a flat or black frame


def test_progress_and_stats(film: Film) -> None:
    assert film.progress[-1] == 1.0
    assert all(a <= b for a, b in zip(film.progress, film.progress[1:], strict=False))
    assert len(film.progress) <= film.stats.elapsed_s * 4 + 3
    assert film.stats.frames == film.timeline.total_frames
    assert set(film.stats.aspects) == {a.name for a in spec.ASPECTS}
    assert film.stats.frames_per_s > 0


def _our_processes(marker: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker in text:
            found.append(text)
    return found


def test_failing_encoder_raises_with_its_stderr(tmp_path: Path) -> None:
    photos = [_solid_photo(tmp_path / "gray.png", GRAY)]
    _song(tmp_path / "song.wav", 4.0)
    timeline = _timeline(photos, [], 4.0)
    outputs = {"16x9": tmp_path / "missing" / "a.mp4", "9x16": tmp_path / "b.mp4"}
    started = time.monotonic()
    with pytest.raises(ToolError) as failure:
        render_films(timeline, _gray(photos, tmp_path), outputs, encoder=ENCODER)
    assert time.monotonic() - started < 30
    assert "No such file or directory" in failure.value.stderr_tail
    assert _our_processes(str(tmp_path)) == []


def _gray(photos: list[PhotoSource], tmp_path: Path) -> FilmSources:
    """The gray photo and the song of ``tmp_path`` as a render's sources."""
    return FilmSources({"gray": tmp_path / "gray.png"}, audio=tmp_path / "song.wav")


def _raw_film(tmp_path: Path) -> tuple[Timeline, FilmSources, dict[str, Path], int]:
    """A one-photo film (the middle frame of its photo shot), its sources and raw outputs."""
    photos = [_solid_photo(tmp_path / "red.png", RED)]
    timeline = _timeline(photos, [], 4.0)
    outputs = {a.name: tmp_path / f"{a.name}.yuv" for a in spec.ASPECTS}
    sources = FilmSources({"red": tmp_path / "red.png"})
    return timeline, sources, outputs, _middle_frame(timeline, "red")


RAW_WRITERS = functools.partial(open_encoders, argv_for=raw_writer_argv)


class _SlowClock:
    """The stall watch's clock (:mod:`media.frames.stall`) run ahead by :meth:`lose` seconds:
    a render made as slow as a test needs without waiting for it (or racing the host's load)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ahead = 0.0
        monkeypatch.setattr(media.frames.stall, "time",
                            types.SimpleNamespace(monotonic=self.monotonic))

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead

    def lose(self, seconds: float) -> None:
        self.ahead += seconds


def test_a_stalled_render_is_stopped_and_kills_everything(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    timeline, sources, outputs, middle = _raw_film(tmp_path)
    clock = _SlowClock(monkeypatch)

    def stall(index: int, aspect: str, image: np.ndarray) -> None:
        if index == middle + 3:
            clock.lose(SLOW_STALL_S)  # frame 3 takes the whole limit, in each aspect

    with pytest.raises(ToolTimeoutError, match="stalled"):
        render_films(timeline, sources, outputs,
                     RenderRequest((middle, middle + 6), on_frame=stall, stall_s=SLOW_STALL_S),
                     encoders=RAW_WRITERS)
    assert _our_processes(str(tmp_path)) == []


def test_a_slow_render_that_keeps_finishing_frames_is_not_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    timeline, sources, outputs, middle = _raw_film(tmp_path)
    clock = _SlowClock(monkeypatch)

    def crawl(index: int, aspect: str, image: np.ndarray) -> None:
        if aspect == spec.LANDSCAPE.name:
            clock.lose(SLOW_STALL_S / 2)  # every frame takes half the stall limit

    started = clock.monotonic()
    stats = render_films(timeline, sources, outputs,
                         RenderRequest((middle, middle + SLOW_FRAMES), on_frame=crawl,
                                       stall_s=SLOW_STALL_S), encoders=RAW_WRITERS)
    assert clock.monotonic() - started > 2 * SLOW_STALL_S  # far longer than the limit in all
    assert stats.frames == SLOW_FRAMES


def test_an_encoder_that_takes_no_frame_stalls_the_render(tmp_path: Path) -> None:
    timeline, sources, outputs, middle = _raw_film(tmp_path)

    def deaf_encoder(aspect: spec.Aspect, sound: object, out_path: Path,
                     settings: spec.EncoderSettings) -> list[str]:
        # reads nothing on its stdin; the output path in its command line marks it as ours
        return [sys.executable, "-c", "import time; time.sleep(600)", str(out_path)]

    started = time.monotonic()
    with pytest.raises(ToolTimeoutError, match="encoder"):
        render_films(timeline, sources, outputs,
                     RenderRequest((middle, middle + 12), stall_s=STALL_S),
                     encoders=functools.partial(open_encoders, argv_for=deaf_encoder))
    assert time.monotonic() - started < 30
    assert _our_processes(str(tmp_path)) == []


def test_frames_are_composed_with_opencv_single_threaded_and_its_setting_restored_after(
        tmp_path: Path) -> None:
    photos = [_solid_photo(tmp_path / "gray.png", GRAY)]
    _song(tmp_path / "song.wav", 4.0)
    timeline = _timeline(photos, [], 4.0)
    seen: list[tuple[float, int]] = []
    before = cv2.getNumThreads()
    cv2.setNumThreads(3)
    try:
        render_films(timeline, _gray(photos, tmp_path),
                     {a.name: tmp_path / f"{a.name}.mp4" for a in spec.ASPECTS},
                     RenderRequest(on_progress=lambda done: seen.append(
                         (done, cv2.getNumThreads()))), ENCODER)
        assert {threads for done, threads in seen if done < 1.0} == {COMPOSE_OPENCV_THREADS}
        assert cv2.getNumThreads() == 3
        with pytest.raises(ToolError):  # restored after a failed render too
            render_films(timeline, _gray(photos, tmp_path),
                         {"16x9": tmp_path / "missing" / "a.mp4"}, encoder=ENCODER)
        assert cv2.getNumThreads() == 3
    finally:
        cv2.setNumThreads(before)


def test_composed_frames_go_to_the_encoders_it_is_given(tmp_path: Path) -> None:
    photos = [_solid_photo(tmp_path / "red.png", RED)]
    timeline = _timeline(photos, [], 4.0)
    middle = _middle_frame(timeline, "red")
    outputs = {a.name: tmp_path / f"{a.name}.yuv" for a in spec.ASPECTS}
    stats = render_films(timeline, FilmSources({"red": tmp_path / "red.png"}), outputs,
                         RenderRequest(frames=(middle, middle + 2)),
                         encoders=functools.partial(open_encoders, argv_for=raw_writer_argv))
    assert stats.frames == 2
    for aspect in spec.ASPECTS:
        raw = outputs[aspect.name].read_bytes()
        frame_bytes = aspect.width * aspect.height * 3 // 2  # I420: what the encoders read
        assert len(raw) == 2 * frame_bytes
        first = np.frombuffer(raw[:frame_bytes], np.uint8).reshape(
            yuv.frame_shape(aspect.width, aspect.height))
        # a one-photo film's later showings frame the photo whole, over its blur: the
        # middle of the frame is the photo
        y, u, v = (float(_middle(p).mean()) for p in yuv.planes(first))
        assert np.abs(np.array((y, u, v)) - _bt709_limited(RED)).max() < 1


def test_every_composed_frame_is_shown_to_on_frame_as_the_encoders_get_it(
        tmp_path: Path) -> None:
    photos = [_solid_photo(tmp_path / "red.png", RED)]
    timeline = _timeline(photos, [], 4.0)
    middle = _middle_frame(timeline, "red")
    outputs = {a.name: tmp_path / f"{a.name}.yuv" for a in spec.ASPECTS}
    seen: list[tuple[int, str, bytes]] = []
    render_films(timeline, FilmSources({"red": tmp_path / "red.png"}), outputs,
                 RenderRequest(frames=(middle, middle + 3),
                               on_frame=lambda index, aspect, i420: seen.append(
                                   (index, aspect, i420.tobytes()))),
                 encoders=functools.partial(open_encoders, argv_for=raw_writer_argv))
    names = [a.name for a in spec.ASPECTS]
    assert [(index, aspect) for index, aspect, _ in seen] == [
        (index, name) for index in range(middle, middle + 3) for name in names]
    for name in names:
        assert b"".join(pixels for _, aspect, pixels in seen
                        if aspect == name) == outputs[name].read_bytes()


def test_unknown_aspect_is_rejected(tmp_path: Path) -> None:
    timeline = _timeline([_solid_photo(tmp_path / "gray.png", GRAY)], [], 4.0)
    with pytest.raises(ValueError, match="unknown aspects"):
        render_films(timeline, FilmSources(audio=tmp_path / "song.wav"),
                     {"4x3": tmp_path / "x.mp4"})


def _box_mean(rgb: np.ndarray, box: tuple[int, int, int, int], inset: float = 0.3) -> np.ndarray:
    x, y, w, h = box
    dx, dy = round(w * inset), round(h * inset)
    return rgb[y + dy:y + h - dy, x + dx:x + w - dx].reshape(-1, 3).mean(axis=0)


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_logo_is_small_on_shots_and_large_on_cards(film: Film, aspect: spec.Aspect) -> None:
    box = film_logo_box(aspect, 240, 120)
    shot = _frame_rgb(film.outputs[aspect.name], _middle_frame(film.timeline, "gray"),
                      aspect.width, aspect.height)
    assert np.abs(_box_mean(shot, box) - LOGO_RGB).max() < 25  # in its corner on the shot
    opening = film.timeline.shots[0]
    card = _frame_rgb(film.outputs[aspect.name], opening.cut_out - 8, aspect.width,
                      aspect.height)
    assert np.abs(_box_mean(card, box) - LOGO_RGB).max() > 60  # not in the corner on a card
    orange = np.all(np.abs(card - LOGO_RGB) < 30, axis=2)
    ys, xs = np.nonzero(orange)
    # the words over the (plain grey) photo sit where the look wants them: nothing to avoid
    wanted = words_wanted(opening.card, aspect.width, aspect.height, _logo())
    assert wanted is not None
    reserve = logo_reserve(aspect.width, aspect.height, _logo())[2]
    words = words_box(opening.card, aspect.width, aspect.height, reserve, (*wanted[0], 1.0))
    assert words is not None and ys.max() < words[1]
    assert xs.max() - xs.min() > 2 * box[2]  # but larger, above the card's text
    assert abs((xs.min() + xs.max()) / 2 - aspect.width / 2) < 8


def test_crossfade_blends_the_two_shots(film: Film) -> None:
    red = next(s for s in film.timeline.shots if s.source_id == "red")
    assert red.transition_in.kind == "crossfade"
    aspect = spec.LANDSCAPE
    start = red.transition_in.start(red.cut_in)
    # the shot before is the title over the gray photo, under its scrim: the blend is measured
    # against both shots as they look alone, clear of the words (the frame's upper left)

    def patch(frame: int) -> np.ndarray:
        rgb = _frame_rgb(film.outputs[aspect.name], frame, aspect.width, aspect.height)
        return rgb[120:200, 160:280].reshape(-1, 3).mean(axis=0)

    before, after = patch(start - 1), patch(start + red.transition_in.frames)
    assert np.abs(before - after).max() > 40  # two different pictures
    share = (red.cut_in - start + 0.5) / red.transition_in.frames
    expected = (1 - share) * before + share * after
    assert np.abs(patch(red.cut_in) - expected).max() < 8  # both shots at once
