"""The film's colour grade (media.frames.grade): gentle films are softer, warmer, less saturated."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image
from skimage import data

from media.analysis.arc import look
from media.base import spec, yuv
from media.cards.spec import CardSpec
from media.frames.grade import GRADES, apply_grade, finished, grade_named, graded_i420
from media.frames.preparer import SourcePreparer
from media.frames.render import RenderRequest, render_films
from media.frames.sources import FilmSources
from media.plan import planner
from media.plan.inputs import PhotoSource
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe, SongGrid


def _contrast(image: np.ndarray) -> float:
    luma = image.astype(np.float32) @ np.asarray([0.2126, 0.7152, 0.0722], np.float32)
    return float(luma.std())


def test_a_gentle_grade_is_softer_warmer_and_less_saturated() -> None:
    photo = data.coffee()
    graded = apply_grade(photo, grade_named("gentle"))
    assert graded.shape == photo.shape and graded.dtype == np.uint8
    saturation, graded_saturation = look(photo)[2], look(graded)[2]
    assert graded_saturation < 0.9 * saturation
    grey = np.dstack([np.tile(np.linspace(0, 255, 256, dtype=np.uint8), (16, 1))] * 3)
    warmed = apply_grade(grey, grade_named("gentle")).astype(int)
    assert (warmed[..., 0] >= warmed[..., 2]).all()  # neutral tones turn warm
    assert (warmed[:, 64:192, 0] - warmed[:, 64:192, 2]).mean() > 8
    assert _contrast(graded) < 0.92 * _contrast(photo)
    assert graded.min() >= 8  # blacks lifted, never crushed


def test_the_natural_grade_leaves_pictures_untouched() -> None:
    photo = data.astronaut()
    assert apply_grade(photo, GRADES["natural"]) is photo
    assert grade_named("unknown") == GRADES["natural"]


@pytest.mark.render
def test_a_gentle_film_grades_its_photos(tmp_path: Path) -> None:
    photo = data.coffee()
    Image.fromarray(photo).save(tmp_path / "a.png")
    timelines = {}
    for gentle in (False, True):
        timelines[gentle] = planner.plan(FilmSpec(
            length_sec=12.0, photos=[PhotoSource("a", 600, 400, False)],
            gentle=gentle, recipe=MotionRecipe(motion_shots=1), subject_photo_id="a",
            words=FilmWords(opening=CardSpec("opening", ("Hi",)),
                            closing=CardSpec("closing", ("Bye",))),
            song=SongGrid(beat_times=[i * 0.5 for i in range(40)])))
    frames = {}
    for gentle, tl in timelines.items():
        index = next(i for i, s in enumerate(tl.shots) if s.kind == "photo")
        preparer = SourcePreparer(tl, (spec.LANDSCAPE,), FilmSources({"a": tmp_path / "a.png"}))
        frames[gentle] = yuv.i420_to_rgb(preparer.prepare(index).frame(spec.LANDSCAPE, 0))
    assert look(frames[True])[2] < 0.9 * look(frames[False])[2]


# --- the signature finish ----------------------------------------------------------------------


@pytest.mark.render
def test_a_signature_frame_is_its_graded_shots_with_nothing_drawn_over_them(
        tmp_path: Path) -> None:
    """No grain and no vignette over the composed frames: neither shows at a phone's width, and
    the grain cost x264 half the film's bytes. The same held picture is the same frame. (A
    photo of the frame's shape: its repeat shows it whole, filling the frame, no backdrop.)"""
    Image.new("RGB", (1920, 1080), (120, 120, 120)).save(tmp_path / "a.png")
    timeline = planner.plan(FilmSpec(
        length_sec=6.0, photos=[PhotoSource("a", 1920, 1080, False)],
        recipe=MotionRecipe(motion_shots=0), subject_photo_id="a", grade=finished("natural"),
        words=FilmWords(opening=CardSpec("opening", ("Hi",)),
                        closing=CardSpec("closing", ("Bye",))),
        song=SongGrid(beat_times=[i * 0.5 for i in range(13)])))
    frames: list[np.ndarray] = []
    render_films(timeline, FilmSources({"a": tmp_path / "a.png"}),
                 {spec.LANDSCAPE.name: tmp_path / "a.mp4"},
                 RenderRequest(on_frame=lambda index, name, frame: frames.append(frame.copy())),
                 encoder=spec.EncoderSettings(preset="ultrafast"))
    shot = next(s for s in timeline.shots if s.kind == "photo")
    middle = frames[(shot.visible_in + shot.visible_out) // 2]
    luma = yuv.luma_rows(middle).astype(np.float32)
    assert float(np.abs(luma - float(np.median(luma))).max()) <= 1  # flat: no grain, no corners


def _phone(image: np.ndarray) -> np.ndarray:
    """``image`` as a phone shows it: 390 pixels across (float)."""
    h, w = image.shape[:2]
    return cv2.resize(image, (390, round(390 * h / w)), interpolation=cv2.INTER_AREA).astype(
        np.float32)


def test_the_signature_grade_shows_at_phone_size() -> None:
    """Beside the standard film's untouched pictures: tones visibly moved (at least 8 levels
    on average at 390 pixels across), more contrast, warm highlights over cool shadows."""
    grade = grade_named(finished("natural"))
    for photo in (data.coffee(), data.astronaut(), data.chelsea()):
        graded = apply_grade(photo, grade)
        assert float(np.abs(_phone(graded) - _phone(photo)).mean()) > 8
        assert _contrast(graded) > 1.05 * _contrast(photo)
    grey = np.dstack([np.tile(np.arange(256, dtype=np.uint8), (4, 1))] * 3)
    ramp = apply_grade(grey, replace(grade, bloom=0.0)).astype(int)[0]
    assert ramp[48, 2] > ramp[48, 0] + 2  # shadows cool
    assert ramp[200, 0] > ramp[200, 2] + 10  # highlights warm
    assert ramp[0].max() <= 8 and ramp[255].min() >= 250  # the curve clips neither end


def test_only_finished_grades_have_a_warm_glow_around_highlights() -> None:
    assert grade_named("natural").bloom == 0 and grade_named("gentle").bloom == 0
    assert finished(finished("gentle")) == finished("gentle")
    image = np.full((240, 320, 3), 40, np.uint8)
    image[100:140, 140:180] = 255  # a bright window
    finish = grade_named(finished("natural"))
    glowing = apply_grade(image, finish).astype(int)
    plain = apply_grade(image, replace(finish, bloom=0.0)).astype(int)
    near, far = (slice(90, 100), slice(150, 170)), (slice(0, 10), slice(0, 10))
    assert (glowing[near][..., 0] - plain[near][..., 0]).mean() > 3  # the glow spreads
    glow = glowing[near] - plain[near]
    assert (glow[..., 0] - glow[..., 2]).mean() > 1  # and it is warm
    assert np.abs(glowing[far] - plain[far]).max() <= 1
    fog = np.full((240, 320, 3), 215, np.uint8)  # a bright picture glows far less: no wash-out
    lifted = apply_grade(fog, finish).astype(int) - apply_grade(
        fog, replace(finish, bloom=0.0)).astype(int)
    assert lifted.mean() < 5


@pytest.mark.parametrize("name", ["gentle", finished("natural"), finished("gentle")])
def test_a_clip_frame_graded_into_i420_is_the_rgb_grade_converted(name: str) -> None:
    """A clip frame's grade on its way to the planes (the saturation in the conversion's
    matrix, the glow added to the planes) is the RGB grade converted, invisibly apart: as a
    player shows them, above 45 dB. (Where the glow pushes a channel past white, the planes
    differ more, 40 dB on the coffee's highlights: the RGB grade clipped that channel, the
    player clips it instead.)"""
    grade = grade_named(name)
    for photo in (data.astronaut(), data.coffee()[:400, :598], data.chelsea()[:300, :450]):
        photo = np.ascontiguousarray(photo)
        expected = yuv.rgb_to_i420(apply_grade(photo, grade))
        got = graded_i420(photo.copy(), grade)
        assert yuv.psnr(yuv.i420_to_rgb(expected), yuv.i420_to_rgb(got)) > 45
        for want, have in zip(yuv.planes(expected), yuv.planes(got), strict=True):
            assert yuv.psnr(want, have) > 40


def test_a_clip_frames_glow_is_added_to_its_planes_warm() -> None:
    image = np.full((240, 320, 3), 40, np.uint8)
    image[100:140, 140:180] = 255  # a bright window
    finish = grade_named(finished("natural"))
    glowing = graded_i420(image.copy(), finish).astype(int)
    plain = graded_i420(image.copy(), replace(finish, bloom=0.0)).astype(int)
    y, u, v = (a - b for a, b in zip(yuv.planes(glowing), yuv.planes(plain), strict=True))
    assert y[90:100, 150:170].mean() > 2 and np.abs(y[:10, :10]).max() <= 1
    assert v[45:50, 75:85].mean() > 0 > u[45:50, 75:85].mean()  # warm: red up, blue down


@pytest.mark.render
def test_the_signature_finish_costs_the_encoder_little(tmp_path: Path) -> None:
    """A film of a textured photo finished (grade, halation) encodes at most 10 %
    larger than the same film unfinished: the finish changes what a viewer sees, not what x264
    has to spend (the film grain it had doubled the birthday sample's bytes)."""
    photo = cv2.resize(data.coffee(), (1600, 1067), interpolation=cv2.INTER_CUBIC)
    Image.fromarray(photo).save(tmp_path / "a.png")
    timeline = planner.plan(FilmSpec(
        length_sec=4.0, photos=[PhotoSource("a", 1600, 1067, False)],
        recipe=MotionRecipe(motion_shots=1), subject_photo_id="a",
        words=FilmWords(opening=CardSpec("opening", ("Hi",)),
                        closing=CardSpec("closing", ("Bye",))),
        song=SongGrid(beat_times=[i * 0.5 for i in range(9)])))
    sizes = {}
    for grade in ("natural", finished("natural")):
        out = tmp_path / f"{grade}.mp4"
        render_films(replace(timeline, grade=grade), FilmSources({"a": tmp_path / "a.png"}),
                     {spec.LANDSCAPE.name: out}, encoder=spec.EncoderSettings(preset="superfast"))
        sizes[grade] = out.stat().st_size
    assert sizes[finished("natural")] <= 1.1 * sizes["natural"], sizes
