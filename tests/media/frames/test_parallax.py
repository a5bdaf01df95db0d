"""Premium motion: 2.5D parallax (media.frames.parallax), its fallback, and its place in the
timeline
and the renderer."""

from __future__ import annotations

import dataclasses
import functools
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from skimage import data

from media.analysis.camera import MAX_ACCEL_PX, Motion, Rect
from media.analysis.framing import MoveRequest, plan_ken_burns
from media.analysis.subjects import Box, Subject, find_subject
from media.base import yuv
from media.base.spec import ASPECTS, Aspect
from media.cards.spec import CardSpec
from media.frames.compose import (
    prescale,
    prescale_factor,
    prescale_i420,
    render_crop,
    render_crop_i420,
    viewport_matrix,
)
from media.frames.matte import AREA_MAX, AREA_MIN, QUALITY_MIN, Separation, judge, matte_cut
from media.frames.parallax import (
    BACKGROUND_RATE,
    MAX_SHIFT,
    PREMULTIPLY_ROWS,
    ParallaxLayer,
    ParallaxLayers,
    background_motion,
    bounded_rate,
    build_layers,
    cut_subject,
    exposure_score,
    layers_from_cut,
    matte_score,
    relative_shift,
    scale_layers,
    separate_subject,
)
from media.frames.preparer import SourcePreparer
from media.frames.roll import RollPushLayer, roll_zoom
from media.frames.sources import FilmSources, load_photo
from media.plan import planner
from media.plan.shots import PARALLAX_MAX_SHARE
from media.plan.spec import FilmSpec, FilmWords, MotionRecipe
from media.plan.timeline import (
    KEN_BURNS,
    PARALLAX,
    PUSH,
    ROLL,
)
from tests.media.photo_sources import photo_paths, photo_source

pytestmark = pytest.mark.render

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
SMALL = Aspect("small16x9", 640, 360)  # a small frame keeps the rendering tests quick
JITTER_BOUND = MAX_ACCEL_PX + 0.01  # output px / frame^2 (the framing budget, and rounding)


@functools.cache
def astronaut() -> np.ndarray:
    return data.astronaut()


@functools.cache
def astronaut_layers() -> object:
    """The astronaut's layers from her cut (the matte is good; her flag and shuttle are too busy
    for the fill to hide a slide, so the render would not give her parallax: these layers test
    the mechanics)."""
    piece, separation = matte_cut(astronaut(), find_subject(astronaut()))
    assert piece is not None, separation
    return layers_from_cut(astronaut(), piece, separation)


def portrait(busy: float = 0.0, size: tuple[int, int] = (720, 1280)
             ) -> tuple[np.ndarray, np.ndarray, Subject]:
    """A synthetic head and shoulders over a smooth backdrop, fine strands of hair (one pixel
    wide, drawn partly transparent) standing off the head by up to 3 % of the width; ``busy``
    adds a fine texture of that RMS (0..255) to the backdrop. Returns the photo, where the
    strands are, and its subject (the face)."""
    h, w = size
    rng = np.random.default_rng(5)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    back = np.dstack([150 + 40 * xx / w, 170 + 20 * yy / h, 200 - 30 * xx / w])
    if busy:
        grain = cv2.GaussianBlur(np.random.default_rng(99).normal(0, 1, (h, w)).astype(
            np.float32), (0, 0), 2.0)
        back += busy * grain[..., None] / grain.std()
    image = np.clip(back, 0, 255).astype(np.uint8)
    cx, cy, rx, ry = w // 2, int(h * 0.42), int(w * 0.075), int(h * 0.16)
    hair = (150, 105, 40)
    cv2.ellipse(image, (cx, int(h * 1.02)), (int(w * 0.2), int(h * 0.4)), 0, 0, 360,
                (40, 60, 120), -1, cv2.LINE_AA)
    cv2.rectangle(image, (cx - int(rx * 0.45), cy), (cx + int(rx * 0.45), int(h * 0.7)),
                  (205, 160, 130), -1)
    cv2.ellipse(image, (cx, cy - int(ry * 0.15)), (int(rx * 1.12), int(ry * 1.1)), 0, 0, 360,
                hair, -1, cv2.LINE_AA)
    cv2.ellipse(image, (cx, cy + int(ry * 0.1)), (rx, ry), 0, 0, 360, (225, 180, 150), -1,
                cv2.LINE_AA)
    strands = np.zeros((h, w), np.uint8)
    for _ in range(70):
        angle = rng.uniform(-2.6, -0.5)
        points = [(cx + rx * 1.05 * np.cos(angle), cy - ry * 0.15 + ry * np.sin(angle))]
        length = rng.uniform(0.015, 0.03) * w
        for _ in range(12):
            angle += rng.normal(0, 0.08)
            points.append((points[-1][0] + np.cos(angle) * length / 12,
                           points[-1][1] + np.sin(angle) * length / 12))
        cv2.polylines(strands, [np.round(np.array(points) * 4).astype(np.int32)], False, 255,
                      1, cv2.LINE_AA, shift=2)
    cover = strands.astype(np.float32)[..., None] / 255 * 0.85
    image = np.clip(image * (1 - cover) + np.array(hair, np.float32) * cover, 0, 255)
    face = Box((cx - rx * 0.8) / w, (cy - ry * 0.55) / h, (cx + rx * 0.8) / w,
               (cy + ry * 0.9) / h)
    return image.astype(np.uint8), strands > 60, Subject((face,), face, "faces")


def gradient() -> np.ndarray:
    ramp = np.tile(np.linspace(40, 220, 600, dtype=np.float32), (400, 1))
    return np.dstack([ramp, ramp * 0.9, ramp * 0.7]).astype(np.uint8)


# --- separation ------------------------------------------------------------------------------


def test_astronaut_separates_into_one_compact_subject_covering_her_face() -> None:
    piece, separation = matte_cut(astronaut(), find_subject(astronaut()))
    assert separation.ok and piece is not None, separation.reason
    layers = layers_from_cut(astronaut(), piece, separation)
    assert AREA_MIN <= separation.area <= AREA_MAX
    assert separation.face_cover >= 0.95 and separation.compactness >= 0.95
    assert separation.edge_agreement >= 0.6
    alpha = layers.foreground[..., 3]
    assert alpha.shape == astronaut().shape[:2]
    assert alpha[110, 220] == 255  # her face
    assert alpha[30, 30] == 0 and alpha[60, 480] == 0  # flag, shuttle: background


@pytest.mark.parametrize("name", ["gradient", "coffee"])
def test_parallax_falls_back_on_a_photo_without_a_clear_subject(name: str) -> None:
    image = gradient() if name == "gradient" else data.coffee()
    layers, separation = separate_subject(image, find_subject(image))
    assert layers is None and not separation.ok
    assert separation.reason


def test_filled_background_hides_the_subject() -> None:
    layers = astronaut_layers()
    face = layers.background[80:140, 190:250].astype(np.float32)
    original = astronaut()[80:140, 190:250].astype(np.float32)
    assert float(np.abs(face - original).mean()) > 30  # her face is gone from the background
    assert np.array_equal(layers.background[5:40, 470:505], astronaut()[5:40, 470:505])


# --- motion ----------------------------------------------------------------------------------


def _match_shift(first: np.ndarray, last: np.ndarray, box: tuple[int, int, int, int]) -> float:
    """Horizontal shift (output px) of the patch ``box`` (x0, y0, x1, y1) of ``first`` found in
    ``last`` by normalized cross-correlation with a parabolic sub-pixel peak."""
    x0, y0, x1, y1 = box
    score = cv2.matchTemplate(last, first[y0:y1, x0:x1], cv2.TM_CCOEFF_NORMED)
    _, _, _, (px, py) = cv2.minMaxLoc(score)
    left, right = score[py, max(0, px - 1)], score[py, min(score.shape[1] - 1, px + 1)]
    peak = score[py, px]
    denom = left - 2 * peak + right
    return px + (0.5 * (left - right) / denom if denom else 0.0) - x0


def _rgb_parallax_frame(layers: object, motion: object, index: int,
                        rate: float) -> np.ndarray:
    """A parallax frame composed in RGB at full resolution (the warp of both layers, then
    "over"), as renders did before frames were I420."""
    fg = layers.foreground  # type: ignore[attr-defined]
    rect, back_rect = motion.rect_at(index), background_motion(motion, rate).rect_at(index)  # type: ignore[attr-defined, arg-type]
    out = render_crop(prescale(layers.background, 1.0), back_rect, SMALL.width,  # type: ignore[attr-defined]
                      SMALL.height).astype(np.float32)
    src = prescale(fg, 1.0, margin=False)
    matrix = viewport_matrix(rect, src, SMALL.width, SMALL.height)
    warped = cv2.warpAffine(fg, matrix, (SMALL.width, SMALL.height),
                            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32)
    alpha = warped[..., 3:] / 255.0
    return np.clip(out * (1 - alpha) + warped[..., :3] * alpha + 0.5, 0, 255).astype(np.uint8)


def test_a_parallax_frame_in_i420_equals_the_rgb_composite_converted() -> None:
    subject = find_subject(astronaut())
    motion = plan_ken_burns((512, 512), subject, SMALL, 60, MoveRequest(choice=2))
    layers = astronaut_layers()
    layer = ParallaxLayer(scale_layers(layers, 1.0), motion, SMALL.width, SMALL.height)
    for index in (0, 31, 59):
        planar = layer.frame(index)
        expected = yuv.rgb_to_i420(_rgb_parallax_frame(layers, motion, index, layer.rate))
        for a, b in zip(yuv.planes(planar), yuv.planes(expected), strict=True):
            assert yuv.psnr(a, b) >= 40


def test_background_and_subject_move_at_different_rates_within_the_matte_bound() -> None:
    subject = find_subject(astronaut())
    motion = plan_ken_burns((512, 512), subject, SMALL, 90, MoveRequest(choice=2))  # a pan
    assert motion.move == "pan" and motion.start.w == pytest.approx(motion.end.w)
    layer = ParallaxLayer(scale_layers(astronaut_layers(), prescale_factor(motion, SMALL.width)),
                          motion, SMALL.width, SMALL.height)
    first, last = yuv.i420_to_rgb(layer.frame(0)), yuv.i420_to_rgb(layer.frame(89))
    k = SMALL.width / motion.start.w  # output px per photo px
    planned = (motion.start.x - motion.end.x) * k
    face = subject.faces[0].to_pixels(512, 512)
    fx0, fy0 = (face[0] - motion.start.x) * k, (face[1] - motion.start.y) * k
    face_box = (round(fx0), round(fy0), round(fx0 + 50), round(fy0 + 60))
    fg_shift = _match_shift(first, last, face_box)
    bg_shift = _match_shift(first, last, (8, 8, 60, 100))  # the flag, top left
    assert abs(planned) > 15
    assert fg_shift == pytest.approx(planned, abs=1.5)
    assert bg_shift == pytest.approx(layer.rate * planned, abs=1.5)
    allowed = layer.layers.quality * MAX_SHIFT * SMALL.width  # at either end of the shot
    assert layer.rate > BACKGROUND_RATE  # the astronaut's matte is good, not perfect
    assert abs(fg_shift - bg_shift) == pytest.approx(2 * allowed, abs=2.0)


@pytest.mark.parametrize("aspect", ASPECTS, ids=lambda a: a.name)
def test_parallax_paths_are_smooth_and_keep_the_face_in_frame(aspect: Aspect) -> None:
    subject = find_subject(astronaut())
    faces = [f.to_pixels(512, 512) for f in subject.faces]
    for frames in (45, 96, 150):
        for choice in range(4):
            motion = plan_ken_burns((512, 512), subject, aspect, frames, MoveRequest(choice=choice))
            for path in (motion, background_motion(motion)):
                rects = [path.rect_at(i) for i in range(frames)]
                to_out = aspect.width / rects[frames // 2].w
                # the centre, and each edge of the frame: a zoom moves an edge by half the
                # width's change (image points accelerate as MAX_ACCEL_PX allows; the pushes
                # of a seen 6 % travel zoom up to 1.22 over a 1.5 s shot)
                for values in ([r.cx for r in rects], [r.cy for r in rects],
                               [r.w / 2 for r in rects]):
                    v = np.array(values) * to_out
                    assert float(np.abs(v[2:] - 2 * v[1:-1] + v[:-2]).max()) < JITTER_BOUND
                for r in rects:  # both layers stay inside the photo: no bare edges
                    assert r.x >= -1e-6 and r.x + r.w <= 512 + 1e-6
                    assert r.y >= -1e-6 and r.y + r.h <= 512 + 1e-6
            for i in range(frames):
                for face in faces:  # the subject layer follows the face-safe move
                    assert motion.rect_at(i).contains(face)


# --- timeline and renderer -------------------------------------------------------------------


def _words() -> FilmWords:
    return FilmWords(opening=CardSpec("opening", ("Happy Birthday", "Eileen")),
                     closing=CardSpec("closing", ("Love",)))


def test_premium_gives_parallax_to_the_clean_matte_within_its_share_of_the_film(
        tmp_path: Path) -> None:
    face, _, subject = portrait()
    photos = [dataclasses.replace(photo_source(tmp_path, "flat", gradient()),
                                  matte=matte_score(gradient(), find_subject(gradient()))),
              dataclasses.replace(photo_source(tmp_path, "face", face),
                                  matte=matte_score(face, subject))]
    assert photos[0].matte == 0.0 and photos[1].matte >= QUALITY_MIN
    plain = planner.plan(FilmSpec(length_sec=30.0, photos=photos, words=_words(),
                                  recipe=MotionRecipe(motion_shots=6)))
    premium = planner.plan(FilmSpec(length_sec=30.0, photos=photos, words=_words(),
                                    recipe=MotionRecipe(motion_shots=6, premium=True)))
    assert {s.motion for s in plain.shots if s.kind == "photo"} <= {KEN_BURNS, PUSH}
    shots = [s for s in premium.shots if s.kind == "photo"]
    parallax = [s for s in shots if s.motion == PARALLAX]
    assert parallax and {s.source_id for s in parallax} == {"face"}
    assert KEN_BURNS in {s.motion for s in shots if s not in parallax}
    share = sum(s.cut_out - s.cut_in for s in parallax) / premium.total_frames
    assert share <= PARALLAX_MAX_SHARE + 0.05  # nominal lengths, then snapped to beats


def test_renderer_uses_parallax_and_falls_back_to_the_roll_push(tmp_path: Path) -> None:
    face, _, subject = portrait()
    photos = [photo_source(tmp_path, "face", face),
              photo_source(tmp_path, "flat", gradient()),
              photo_source(tmp_path, "title", gradient())]  # the cards stand over it
    timeline = planner.plan(FilmSpec(length_sec=12.0, photos=photos, words=_words(),
                                     recipe=MotionRecipe(motion_shots=6), subject_photo_id="title"))
    timeline = dataclasses.replace(timeline, shots=tuple(
        dataclasses.replace(s, motion=PARALLAX) if s.kind == "photo" else s
        for s in timeline.shots))
    preparer = SourcePreparer(timeline, (SMALL,), FilmSources(photo_paths(tmp_path, photos),
                                                              subjects={"face": subject}))
    kinds = {}
    for index, shot in enumerate(timeline.shots):
        if shot.kind == "photo":
            layer = preparer.prepare(index).layers[SMALL.name]
            kinds[shot.source_id] = type(layer)
            assert layer.frame(0).shape == yuv.frame_shape(SMALL.width, SMALL.height)
    assert kinds == {"face": ParallaxLayer, "flat": RollPushLayer}
    assert any("flat" in note and "fell back" in note for note in preparer.notes)


def test_foreground_premultiplied_in_strips_equals_it_premultiplied_whole() -> None:
    rng = np.random.default_rng(4)
    rows = 2 * PREMULTIPLY_ROWS + 37  # a last strip shorter than the others
    foreground = rng.integers(0, 256, (rows, 90, 4), dtype=np.uint8)
    layers = ParallaxLayers(foreground, foreground[..., :3].copy(), (0, 0, 90, rows),
                            Separation(True, ""), 1.0)
    weight = foreground[..., 3].astype(np.float32) / 255.0
    whole = [np.clip(plane * weight + 0.5, 0, 255).astype(np.uint8)
             for plane in np.moveaxis(yuv.rgb_to_yuv444(foreground), 2, 0)]
    scaled = scale_layers(layers, 1.0).premultiplied
    np.testing.assert_array_equal(scaled.y.image, whole[0])


# --- the matte's quality, the fill, the bound, the fallback ------------------------------------


def _discs(colours: list[tuple[int, int, int]], background: tuple[int, int, int],
           size: tuple[int, int] = (360, 640)) -> np.ndarray:
    """A textured photo with discs of ``colours`` in a row over ``background``."""
    rng = np.random.default_rng(7)
    image = np.clip(np.array(background, np.float32)
                    + rng.normal(0, 14, (*size, 3)).astype(np.float32), 0, 255).astype(np.uint8)
    for k, colour in enumerate(colours):
        cx = round(size[1] * (k + 1) / (len(colours) + 1))
        cv2.circle(image, (cx, size[0] // 2), size[0] // 6, colour, -1, cv2.LINE_AA)
    return image


def _judged(image: np.ndarray, disc: int, count: int) -> Separation:
    """The verdict on a mask that is exactly disc ``disc`` of ``count`` (see :func:`_discs`)."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    cv2.circle(mask, (round(w * (disc + 1) / (count + 1)), h // 2), h // 6, 1, -1)
    focus = Box(0.3, 0.3, 0.7, 0.7)
    verdict, _ = judge(mask > 0, image, Subject((), focus, "saliency"), 2, 0.0)
    return verdict


def test_a_doubtful_matte_gets_no_parallax() -> None:
    alike = _discs([(200, 120, 60)] * 5, (200, 120, 60))  # a boat among boats: same colours
    clean = _discs([(245, 205, 40)], (90, 110, 140))  # a yellow fruit on a blue-grey table
    doubtful, good = _judged(alike, 2, 5), _judged(clean, 0, 1)
    assert doubtful.quality < QUALITY_MIN and not doubtful.ok
    assert "doubtful matte" in doubtful.reason
    assert good.quality >= 0.9 and good.ok, good.reason


def test_the_subjects_slide_over_the_background_is_bounded_by_the_matte_quality() -> None:
    motion = Motion("crop", Rect(0, 0, 1200, 675), Rect(400, 0, 1200, 675), 90, "pan")
    bbox = (500.0, 200.0, 900.0, 600.0)
    for quality in (1.0, 0.6):
        rate = bounded_rate(motion, bbox, 640, quality)
        shift = relative_shift(motion, background_motion(motion, rate), bbox, 640)
        assert shift <= quality * MAX_SHIFT * 640 + 1e-6
        assert shift >= 0.9 * quality * MAX_SHIFT * 640  # bounded, not removed
    assert bounded_rate(motion, bbox, 640, 0.5) < bounded_rate(motion, bbox, 640, 0.3)


def test_what_the_moving_subject_uncovers_is_the_filled_background_never_its_ghost() -> None:
    image = _discs([(230, 30, 30)], (60, 140, 90), (540, 960))  # a sharp red disc, textured
    h, w = image.shape[:2]
    piece = np.zeros((h // 3, w // 3), np.uint8)
    cv2.circle(piece, (w // 6, h // 6), h // 18, 1, -1)
    layers = build_layers(image, piece > 0, Separation(True, "", quality=1.0))
    assert float(layers.background[..., 0][layers.foreground[..., 3] > 0].max()) < 170
    motion = Motion("crop", Rect(0, 0, 640, 360), Rect(320, 180, 640, 360), 30, "pan")
    layer = ParallaxLayer(scale_layers(layers, 1.0), motion, SMALL.width, SMALL.height)
    last = yuv.i420_to_rgb(layer.frame(29)).astype(np.float32)
    back = yuv.i420_to_rgb(render_crop_i420(scale_layers(layers, 1.0).background,
                                            layer.back_motion.rect_at(29), SMALL.width,
                                            SMALL.height)).astype(np.float32)
    radius = h // 6
    where_bg = _disc_mask(layer.back_motion.rect_at(29), (w // 2, h // 2), radius + 4)
    where_fg = _disc_mask(motion.rect_at(29), (w // 2, h // 2), radius + 6)
    uncovered = where_bg & ~where_fg
    assert uncovered.sum() > 300  # the subject did move off part of where it stood
    assert float(np.abs(last[uncovered] - back[uncovered]).mean()) < 3
    assert float(last[uncovered][:, 0].mean()) < 150  # not the subject's red


def _disc_mask(rect: Rect, centre: tuple[int, int], radius: int) -> np.ndarray:
    """Output pixels of ``SMALL`` showing the photo disc at ``centre`` through ``rect``."""
    mask = np.zeros((SMALL.height, SMALL.width), np.uint8)
    k = SMALL.width / rect.w
    cv2.circle(mask, (round((centre[0] - rect.x) * k), round((centre[1] - rect.y) * k)),
               round(radius * k), 1, -1)
    return mask > 0


def test_the_roll_push_turns_and_pushes_without_showing_beyond_the_planned_viewport() -> None:
    image = np.zeros((540, 960, 3), np.uint8)
    image[:] = (255, 0, 255)  # magenta wherever the plan never looks
    start, end = Rect(100, 60, 640, 360), Rect(220, 120, 640, 360)
    rng = np.random.default_rng(3)
    image[60:480, 100:860] = rng.integers(40, 200, (420, 760, 3), dtype=np.uint8)
    motion = Motion("crop", start, end, 45, "pan")
    layer = RollPushLayer(prescale_i420(image, 1.0), motion, SMALL.width, SMALL.height)
    assert layer.turn_at(0)[0] == 0 and abs(layer.turn_at(44)[0]) > 0.02
    for index in (0, 22, 44):
        rgb = yuv.i420_to_rgb(layer.frame(index)).astype(int)
        magenta = (rgb[..., 0] > 220) & (rgb[..., 1] < 40) & (rgb[..., 2] > 220)
        assert not magenta.any()
    assert layer.turn_at(44)[1] > layer.turn_at(0)[1] >= roll_zoom(math.radians(1.0), 640, 360)


def test_a_roll_shot_gets_the_roll_push_without_separating_its_subject(tmp_path: Path) -> None:
    photos = [photo_source(tmp_path, "face", astronaut()),
              photo_source(tmp_path, "flat", gradient())]
    timeline = planner.plan(FilmSpec(length_sec=12.0, photos=photos, words=_words(),
                                     recipe=MotionRecipe(motion_shots=6), subject_photo_id="face"))
    timeline = dataclasses.replace(timeline, shots=tuple(
        dataclasses.replace(s, motion=ROLL) if s.kind == "photo" else s
        for s in timeline.shots))
    preparer = SourcePreparer(timeline, (SMALL,), FilmSources(photo_paths(tmp_path, photos)))
    for index, shot in enumerate(timeline.shots):
        if shot.kind == "photo":
            assert isinstance(preparer.prepare(index).layers[SMALL.name], RollPushLayer)
    assert preparer.store.layered == set() and not preparer.notes  # no GrabCut, no fallback


# --- clean or absent: what the fill exposes, hair with the subject -----------------------------


def test_a_busy_background_beside_the_subject_bounds_the_slide_or_refuses_parallax() -> None:
    plain, _, subject = portrait()
    piece, verdict = matte_cut(plain, subject)
    assert piece is not None and verdict.quality >= 0.9, verdict.reason
    scores = {busy: exposure_score(portrait(busy)[0], piece)[0] for busy in (0, 3, 6, 10, 20)}
    assert scores[0] == scores[3] == 1.0  # a smooth backdrop: the full slide
    assert QUALITY_MIN <= scores[6] < 0.9  # some texture: a shorter slide
    assert scores[10] == scores[20] == 0.0  # busy: the fill would show
    motion = Motion("crop", Rect(0, 0, 960, 540), Rect(320, 0, 960, 540), 90, "pan")
    bbox = tuple(float(v) for v in (560, 150, 720, 720))
    shifts = [relative_shift(motion, background_motion(motion, bounded_rate(
        motion, bbox, 640, min(verdict.quality, scores[busy]))), bbox, 640) for busy in (0, 6)]
    assert shifts[1] <= scores[6] * MAX_SHIFT * 640 + 1e-6 < shifts[0]
    _, busy_verdict = cut_subject(portrait(20)[0], subject)
    assert not busy_verdict.ok and "busy background" in busy_verdict.reason
    assert busy_verdict.detail > 9 and busy_verdict.quality < QUALITY_MIN


def test_hair_strands_beyond_the_cut_go_with_the_subject_and_leave_no_ghost() -> None:
    image, strands, subject = portrait()
    piece, verdict = cut_subject(image, subject)
    assert piece is not None and verdict.ok, verdict.reason
    layers = build_layers(image, piece, verdict)
    h, w = image.shape[:2]
    cut = cv2.resize(piece.astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    beyond = strands & (cv2.dilate(cut, np.ones((5, 5), np.uint8)) == 0)
    assert beyond.sum() > 500  # GrabCut's cut left most of them out
    alpha = layers.foreground[..., 3][beyond]
    assert float((alpha >= 0.3 * 255).mean()) >= 0.85  # they go with the subject
    hair = np.array((150, 105, 40), np.float32)
    colour = layers.foreground[..., :3][beyond].astype(np.float32)
    heavy = alpha >= 0.5 * 255  # their colour is the hair's, not the backdrop's
    assert float(np.abs(colour[heavy] - hair).mean()) < 25
    ys, xs = np.nonzero(beyond)  # and nothing of them stays behind: the backdrop is whole
    backdrop = np.stack([150 + 40 * xs / w, 170 + 20 * ys / h, 200 - 30 * xs / w], axis=1)
    behind = layers.background[beyond].astype(np.float32)
    assert float(np.abs(behind - backdrop).mean()) < 6
    assert float(np.abs(behind - hair).sum(axis=1).min()) > 80


def test_the_anniversary_canyon_gets_no_parallax() -> None:
    canyon = load_photo(SAMPLES / "anniversary" / "photos" / "02-grand-canyon.jpg")
    subject = find_subject(canyon)
    piece, verdict = cut_subject(canyon, subject)
    assert piece is None and not verdict.ok
    assert matte_score(canyon, subject) == 0.0
    if verdict.matte >= QUALITY_MIN:  # cut cleanly: the rock beside her refuses it
        assert "busy background" in verdict.reason and verdict.detail > 9


def test_the_render_slides_the_subject_by_the_score_the_planner_read(tmp_path: Path) -> None:
    face, _, subject = portrait(busy=6)
    photos = [photo_source(tmp_path, "face", face)]
    score = matte_score(face, subject)
    assert QUALITY_MIN <= score < 0.9  # bounded, not full
    timeline = planner.plan(FilmSpec(length_sec=8.0, photos=photos, words=_words(),
                                     recipe=MotionRecipe(motion_shots=6), subject_photo_id="face"))
    timeline = dataclasses.replace(timeline, shots=tuple(
        dataclasses.replace(s, motion=PARALLAX) if s.kind == "photo" else s
        for s in timeline.shots))
    preparer = SourcePreparer(timeline, (SMALL,), FilmSources(photo_paths(tmp_path, photos[:1]),
                                                              subjects={"face": subject}))
    index = next(i for i, s in enumerate(timeline.shots) if s.kind == "photo")
    layer = preparer.prepare(index).layers[SMALL.name]
    assert isinstance(layer, ParallaxLayer)
    assert layer.layers.quality == score
    shift = relative_shift(layer.motion, layer.back_motion, layer.layers.bbox, SMALL.width)
    assert shift <= score * MAX_SHIFT * SMALL.width + 1e-6
