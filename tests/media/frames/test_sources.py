"""Sources of a render: photos loaded, clip shots decoded and held, and which media a range of
frames reads (media.frames.sources)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from media.base import spec, yuv
from media.base.runner import Limits, ffmpeg_argv, run_tool
from media.cards.draw import render_card_image
from media.cards.motion import card_frame, card_frame_rgb
from media.cards.spec import CardSpec
from media.frames import clip_shots
from media.frames.card_shots import PreparedCard
from media.frames.clip_framing import ClipFraming, cover_framing, fit_box, frame_clip
from media.frames.clip_shots import PreparedClip
from media.frames.encode import ClipReader
from media.frames.grade import finished, grade_named, graded_i420
from media.frames.preparer import SourcePreparer
from media.frames.sources import (
    FilmSources,
    card_photo,
    load_photo,
    shot_photo,
    shots_in,
    sources_for,
)
from media.frames.stall import StallWatch
from media.plan import planner
from media.plan.inputs import ClipSource, PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid
from media.plan.timeline import Timeline
from tests.media.photo_sources import photo_paths, photo_source

pytestmark = pytest.mark.render

LIMITS = Limits(timeout_s=60)


def _testsrc_clip(path: Path, seconds: float) -> Path:
    """A 640x360 30 fps H.264 clip of ffmpeg's colour bars, BT.709 tagged."""
    run_tool(ffmpeg_argv("-f", "lavfi", "-i", "testsrc=size=640x360:rate=30", "-t", str(seconds),
                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                         "-colorspace", "bt709", "-color_primaries", "bt709",
                         "-color_trc", "bt709", "-color_range", "tv", str(path)), LIMITS)
    return path


def _timeline(photo_ids: list[str], clip_ids: list[str], length: float = 20.0) -> Timeline:
    """A planned film of ``length`` seconds over photos and clips that exist only as data."""
    photos = [PhotoSource(p, 1600, 1200, False) for p in photo_ids]
    clips = [ClipSource(c, 4.0, 640, 360, False) for c in clip_ids]
    beats = [i * 0.5 for i in range(int(length * 2) + 1)]
    return planner.plan(FilmSpec(
        length_sec=length, photos=photos, clips=clips, recipe=MotionRecipe(motion_shots=1),
        subject_photo_id=photo_ids[0],
        words=FilmWords(opening=CardSpec("opening", ("Hello",)),
                        closing=CardSpec("closing", ("Bye",))),
        song=SongGrid(beat_times=beats)))


def test_short_clip_holds_its_last_frame(tmp_path: Path) -> None:
    clip = _testsrc_clip(tmp_path / "clip.mp4", 4.0)
    reader = ClipReader(clip, 3.5, 40, (640, 360), LIMITS)  # only 15 frames left
    shot = PreparedClip(reader, StallWatch(60))
    try:
        frames = [shot.frame(spec.LANDSCAPE, i).copy() for i in range(40)]
    finally:
        shot.close()
    assert all(f.shape == yuv.frame_shape(1920, 1080) for f in frames)
    assert not np.array_equal(frames[0], frames[14])
    assert all(np.array_equal(frames[14], f) for f in frames[15:])


def test_a_clip_shot_decodes_straight_to_i420_and_holds_its_last_frame(tmp_path: Path) -> None:
    clip = _testsrc_clip(tmp_path / "clip.mp4", 4.0)
    reader = ClipReader(clip, 3.7, 10, (640, 360), LIMITS, yuv.PIX_FMT)  # 9 frames left
    shot = PreparedClip(reader, StallWatch(60))
    try:
        frames = [shot.frame(spec.PORTRAIT, i) for i in range(10)]
    finally:
        shot.close()
    assert all(f.shape == yuv.frame_shape(1080, 1920) for f in frames)
    assert frames[9] is frames[8]  # held: the same framed frame, not composed again
    luma = yuv.planes(frames[0])[0]
    assert luma.min() >= 16 and luma.max() <= 235 and luma.std() > 20  # limited-range bars


def test_a_gentle_film_grades_its_clips_in_rgb_then_converts_them(tmp_path: Path) -> None:
    clip = _testsrc_clip(tmp_path / "clip.mp4", 2.0)
    frames = {}
    for name, pix_fmt in (("natural", yuv.PIX_FMT), ("gentle", "rgb24")):
        shot = PreparedClip(ClipReader(clip, 0.5, 2, (640, 360), LIMITS, pix_fmt),
                            StallWatch(60), None, grade_named(name))
        try:
            frames[name] = shot.frame(spec.LANDSCAPE, 0)
        finally:
            shot.close()
    assert frames["gentle"].shape == frames["natural"].shape == yuv.frame_shape(1920, 1080)

    def colourfulness(frame: np.ndarray) -> float:
        return float(np.abs(yuv.chroma_rows(frame).astype(np.float32) - 128).mean())

    assert colourfulness(frames["gentle"]) < 0.9 * colourfulness(frames["natural"])


def test_a_signature_clip_is_graded_on_its_way_to_the_planes(tmp_path: Path) -> None:
    """Each decoded RGB frame of a finished film's clip is graded straight into I420
    (:func:`media.frames.grade.graded_i420`), then framed."""
    clip = _testsrc_clip(tmp_path / "clip.mp4", 2.0)
    grade = grade_named(finished("natural"))
    reader = ClipReader(clip, 0.5, 2, (640, 360), LIMITS, "rgb24")
    decoded = reader.next(float("inf"))
    reader.close()
    assert decoded is not None
    expected = frame_clip(graded_i420(decoded.copy(), grade),
                          cover_framing((640, 360), spec.LANDSCAPE))
    shot = PreparedClip(ClipReader(clip, 0.5, 2, (640, 360), LIMITS, "rgb24"), StallWatch(60),
                        None, grade)
    try:
        assert np.array_equal(shot.frame(spec.LANDSCAPE, 0), expected)
    finally:
        shot.close()


def _card(aspect: spec.Aspect) -> PreparedCard:
    image = render_card_image(CardSpec("opening", ("Hello",)), aspect.width, aspect.height)
    return PreparedCard({aspect.name: image}, None, 60)


def test_a_card_reaches_the_film_as_its_own_i420_frame_close_to_the_rgb_drawing() -> None:
    aspect = spec.Aspect("small16x9", 320, 180)
    card = _card(aspect)
    frame = card.frame(aspect, 10)
    args = (card.images[aspect.name], 10 / spec.FPS, 60 / spec.FPS, None)
    assert frame.shape == yuv.frame_shape(320, 180)
    assert np.array_equal(frame, card_frame(*args))
    drawn = yuv.planes(yuv.rgb_to_i420(card_frame_rgb(*args)))
    assert min(yuv.psnr(a, b) for a, b in zip(yuv.planes(frame), drawn, strict=True)) >= 45


def test_a_photo_of_any_mode_loads_as_rgb_uint8(tmp_path: Path) -> None:
    Image.new("LA", (30, 20), (200, 128)).save(tmp_path / "grey.png")
    photo = load_photo(tmp_path / "grey.png")
    assert photo.dtype == np.uint8 and photo.shape == (20, 30, 3)
    assert (photo == 200).all()


def test_the_title_shows_its_own_photo_and_the_closing_a_photo_other_than_the_last_shots(
        ) -> None:
    timeline = dataclasses.replace(_timeline(["a", "b", "c"], []), subject_photo_id=None)
    photo_shots = [s.source_id for s in timeline.shots if s.kind == "photo"]
    last = len(timeline.shots) - 1
    assert timeline.shots[0].kind == timeline.shots[last].kind == "card"
    assert card_photo(timeline, 0) == shot_photo(timeline, 0) == "a"  # the title's showing
    assert photo_shots[0] != "a"  # so the middle opens on another photo
    closing = card_photo(timeline, last)
    assert closing == shot_photo(timeline, last) and closing != photo_shots[-1]


def test_a_clip_shot_shows_no_photo() -> None:
    timeline = _timeline(["a", "b"], ["c01"])
    clip_shot = next(i for i, s in enumerate(timeline.shots) if s.kind == "clip")
    assert shot_photo(timeline, clip_shot) is None


def test_shots_in_a_frame_range_are_those_on_screen_there() -> None:
    timeline = _timeline(["a", "b", "c"], [])
    second = timeline.shots[1]
    visible = shots_in(timeline, (second.visible_in, second.visible_in + 1))
    assert 1 in visible
    assert all(timeline.shots[i].visible_in <= second.visible_in < timeline.shots[i].visible_out
               for i in visible)
    assert shots_in(timeline, (0, timeline.total_frames)) == range(len(timeline.shots))


def test_a_segment_reads_only_the_media_its_frames_show() -> None:
    timeline = _timeline(["a", "b", "c", "d"], ["c01"])
    photos, clips = sources_for(timeline)
    assert photos == {"a", "b", "c", "d"} and clips == {"c01"}
    first = timeline.shots[0]
    photos, clips = sources_for(timeline, (first.visible_in, first.visible_in + 1))
    assert photos == {card_photo(timeline, 0)} and clips == set()


def test_the_closing_card_sits_over_the_subjects_photo_not_the_last_shot() -> None:
    photos = [PhotoSource(p, 1600, 1200, False) for p in "abcd"]
    beats = [i * 0.5 for i in range(61)]
    timeline = planner.plan(FilmSpec(
        length_sec=30.0, photos=photos, gentle=True, recipe=MotionRecipe(motion_shots=2),
        subject_photo_id="b",
        words=FilmWords(opening=CardSpec("opening", ("Hello",)),
                        closing=CardSpec("closing", ("Bye",))),
        song=SongGrid(beat_times=beats)))
    last = len(timeline.shots) - 1
    assert timeline.shots[last - 1].source_id != "b"  # the film's last shot is another photo
    assert card_photo(timeline, last) == "b"
    assert "b" in sources_for(timeline, (timeline.shots[last].cut_in, timeline.total_frames))[0]


def _scenery_film(tmp_path: Path) -> tuple[Timeline, dict[str, Path]]:
    """A 14 s film of one landscape photo (the pet tribute sample's stream), shown several
    times."""
    with Image.open(Path(__file__).resolve().parents[3]
                    / "samples/pet-tribute/photos/04-stream.jpg") as image:
        trail = np.asarray(image.convert("RGB").resize((1200, 900)))
    photo = photo_source(tmp_path, "trail", trail)
    timeline = planner.plan(FilmSpec(
        length_sec=14.0, photos=[photo], subject_photo_id="trail",
        words=FilmWords(opening=CardSpec("opening", ("Happy", "Ana")),
                        closing=CardSpec("closing", ("Love",)))))
    return timeline, photo_paths(tmp_path, [photo])


def test_a_second_showing_of_scenery_in_9x16_shows_it_whole_or_another_part_of_it(
        tmp_path: Path) -> None:
    timeline, paths = _scenery_film(tmp_path)
    portrait = spec.Aspect("small9x16", 270, 480)
    preparer = SourcePreparer(timeline, (portrait,), FilmSources(paths))
    showings = [i for i, s in enumerate(timeline.shots) if s.kind == "photo" or i == 0]
    assert len(showings) >= 2  # the title over the photo is its first showing
    ends = []
    for index in showings[:2]:
        layer = preparer.prepare(index).layers[portrait.name]  # type: ignore[attr-defined]
        ends.append(layer.motion.rect_at(layer.motion.frames - 1))
    first, second = ends
    whole = second.contains((0.0, 0.0, 1200.0, 900.0), tol=1.0)  # the landscape whole, fitted
    elsewhere = abs(first.cx - second.cx) / 1200 > 0.2  # another part of it
    assert whole or elsewhere, ends


def test_a_card_that_names_no_photo_stands_alone_and_the_render_reads_no_photo_for_it() -> None:
    planned = _timeline(["a", "b", "c"], [])
    last = len(planned.shots) - 1
    shots = [*planned.shots[:last], dataclasses.replace(planned.shots[last], source_id="")]
    timeline = dataclasses.replace(planned, shots=shots)
    assert card_photo(timeline, last) is None and shot_photo(timeline, last) is None
    photos, _ = sources_for(timeline)
    assert "" not in photos
    FilmSources(photos={p: Path(p) for p in photos}).check(timeline, (0, timeline.total_frames))


class _Frames:
    """A clip reader's stand-in: ``count`` I420 frames of ``size``, each a little brighter."""

    def __init__(self, count: int, size: tuple[int, int]) -> None:
        self.left, self.size, self.shown = count, size, 0

    def next(self, deadline: float) -> np.ndarray | None:
        if self.left == 0:
            return None
        self.left -= 1
        self.shown += 1
        frame = yuv.black(*self.size)
        frame[:] = np.uint8(40 + 10 * self.shown)
        return frame

    def close(self) -> None:
        pass


def test_a_fitted_clips_backdrop_is_made_every_few_frames_and_held_between(
        monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []
    original = clip_shots.clip_backdrop
    monkeypatch.setattr(clip_shots, "clip_backdrop",
                        lambda frame, framing: made.append(int(frame[0, 0])) or original(
                            frame, framing))
    framing = ClipFraming("fit", fit_box(120, 160, 1920, 1080), 1920, 1080)
    shot = PreparedClip(_Frames(10, (120, 160)), StallWatch(60),  # type: ignore[arg-type]
                        {spec.LANDSCAPE.name: framing})
    frames = [shot.frame(spec.LANDSCAPE, i) for i in range(10)]
    every = clip_shots.BACKDROP_EVERY
    assert made == [40 + 10 * (i + 1) for i in range(0, 10, every)]  # frames 0, 3, 6, 9
    print_box = np.s_[framing.box[1] + 5:framing.box[1] + 10, framing.box[0] + 5:]
    for index, frame in enumerate(frames):  # the clip itself is each frame's own
        assert (frame[print_box][:, :5] == 40 + 10 * (index + 1)).all(), index
