"""A layout shot's frames: a split's two photos in their halves, a triptych's three in columns or
rows, an inset's print over a photo filling the frame, over the look's gutter, faces whole, and
9:16 stacking or showing a tall photo alone (media.frames.split, media.frames.sources)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from media.analysis.framing import face_guard
from media.analysis.subjects import Box, Subject
from media.base import spec, yuv
from media.cards.spec import CardSpec
from media.design import looks
from media.frames.photo_shots import PreparedSplit
from media.frames.preparer import SourcePreparer
from media.frames.sources import FilmSources, sources_for
from media.frames.split import SplitLayer, colour_yuv, stagger_frames
from media.plan import layout_kinds
from media.plan.layout_kinds import (
    INSET,
    PORTRAIT_PAIR,
    SPLIT,
    TRIPTYCH,
    between,
    gutter_width,
    ring,
    split_boxes,
    triptych_boxes,
)
from media.plan.timeline import KEN_BURNS, Shot, Timeline, Transition

pytestmark = pytest.mark.render

FRAMES = 45
RED, BLUE = (200, 40, 40), (40, 60, 200)
FACE = Subject(faces=(Box(0.42, 0.3, 0.58, 0.55),), focus=Box(0.42, 0.3, 0.58, 0.55),
               source="faces")


def _photo(path: Path, colour: tuple[int, int, int], size: tuple[int, int]) -> Path:
    """A flat colour with a little texture (so the crops have something to resample)."""
    rng = np.random.default_rng(len(path.name))
    noise = rng.integers(-12, 13, (size[1], size[0], 1))
    Image.fromarray(np.clip(np.array(colour) + noise, 0, 255).astype(np.uint8)).save(path)
    return path


def _prepared(tmp_path: Path, layout: str, tall: bool = False) -> SplitLayer | PreparedSplit:
    size = (900, 1200) if tall else (1200, 900)
    paths = {"red": _photo(tmp_path / "red.png", RED, size),
             "blue": _photo(tmp_path / "blue.png", BLUE, (1200, 900))}
    card = CardSpec("opening", ("Hello",))
    shots = (Shot("card", None, 0, 2, 0, 2, Transition(), card=card),
             Shot("photo", "red", 2, 2 + FRAMES, 2, 2 + FRAMES, Transition(), KEN_BURNS,
                  move="push_in", layout=layout, partner_id="blue"))
    timeline = Timeline(spec.FPS, 2 + FRAMES, (2 + FRAMES) / spec.FPS, "gift", False, shots, 0, 0)
    preparer = SourcePreparer(timeline, spec.ASPECTS,
                              FilmSources(paths, subjects={"red": FACE, "blue": FACE}))
    prepared = preparer.prepare(1)
    assert isinstance(prepared, PreparedSplit)
    return prepared


def _mean_chroma(frame: np.ndarray, box: tuple[int, int, int, int]) -> tuple[float, float]:
    _, u, v = yuv.planes(frame)
    x, y, w, h = (c // 2 for c in box)
    return float(u[y:y + h, x:x + w].mean()), float(v[y:y + h, x:x + w].mean())


def _reddish(chroma: tuple[float, float]) -> bool:
    return chroma[1] > 150 > 128 > chroma[0]


def _bluish(chroma: tuple[float, float]) -> bool:
    return chroma[0] > 150 and chroma[1] < 128


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_both_photos_show_each_in_its_half_over_the_looks_gutter(tmp_path: Path,
                                                                 aspect: spec.Aspect) -> None:
    prepared = _prepared(tmp_path, SPLIT)
    look = looks.look(looks.DEFAULT_LOOK)
    gutter = gutter_width(aspect, look.layouts.gutter)
    first, second = split_boxes(aspect, gutter)
    colour = colour_yuv(look.colours.rgb(look.layouts.gutter_colour))
    for index in (0, FRAMES // 2, FRAMES - 1):
        frame = prepared.frame(aspect, index)
        assert frame.shape == yuv.frame_shape(aspect.width, aspect.height)
        assert _reddish(_mean_chroma(frame, first)) and _bluish(_mean_chroma(frame, second))
        y = yuv.planes(frame)[0]
        strip = (y[:, first.w:second.x] if not aspect.is_portrait
                 else y[first.h:second.y, :])
        assert strip.size and (strip == colour[0]).all()


def test_halves_are_equal_and_even_and_the_gutter_is_thin() -> None:
    for aspect in spec.ASPECTS:
        for share in (0.008, 0.011):
            gutter = gutter_width(aspect, share)
            first, second = split_boxes(aspect, gutter)
            assert (first.w, first.h) == (second.w, second.h)
            assert all(v % 2 == 0 for v in (*first, *second))
            assert 4 <= gutter <= 16


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_no_face_is_cut_in_either_half(tmp_path: Path, aspect: spec.Aspect) -> None:
    layer = _prepared(tmp_path, SPLIT).layers[aspect.name]
    assert isinstance(layer, SplitLayer)
    for half, size, lead in zip(layer.halves, ((1200, 900), (1200, 900)),
                                (0, layer.lead), strict=True):
        guard = face_guard(FACE, *size)
        assert guard is not None
        for index in range(FRAMES):
            assert half.motion.rect_at(index + lead).contains(guard, tol=1e-3)


def test_the_halves_move_out_of_step(tmp_path: Path) -> None:
    layer = _prepared(tmp_path, SPLIT).layers[spec.LANDSCAPE.name]
    assert isinstance(layer, SplitLayer) and layer.lead == stagger_frames() > 0
    first, second = layer.halves
    assert first.motion.frames == FRAMES and second.motion.frames == FRAMES + 2 * layer.lead
    widths = [(first.motion.rect_at(i).w, second.motion.rect_at(i + layer.lead).w)
              for i in (0, FRAMES - 1)]
    assert widths[1][0] < widths[0][0] and widths[1][1] > widths[0][1]  # in, and out


def test_a_tall_photo_pairs_in_16x9_and_fills_9x16_alone(tmp_path: Path) -> None:
    prepared = _prepared(tmp_path, PORTRAIT_PAIR, tall=True)
    assert isinstance(prepared.layers[spec.LANDSCAPE.name], SplitLayer)
    assert not isinstance(prepared.layers[spec.PORTRAIT.name], SplitLayer)
    portrait = prepared.frame(spec.PORTRAIT, FRAMES // 2)
    assert _reddish(_mean_chroma(portrait, (0, 0, spec.PORTRAIT.width, spec.PORTRAIT.height)))


def test_a_split_shot_reads_both_photos(tmp_path: Path) -> None:
    card = CardSpec("opening", ("Hello",))
    shots = (Shot("card", None, 0, 2, 0, 2, Transition(), card=card),
             Shot("photo", "red", 2, 40, 2, 40, Transition(), layout=SPLIT, partner_id="blue"))
    timeline = Timeline(spec.FPS, 40, 40 / spec.FPS, "gift", False, shots, 0, 0)
    assert sources_for(timeline) == ({"red", "blue"}, set())


def test_a_photo_shown_in_a_half_again_shows_another_part_of_itself(tmp_path: Path) -> None:
    paths = {"red": _photo(tmp_path / "red.png", RED, (1600, 900)),
             "blue": _photo(tmp_path / "blue.png", BLUE, (1600, 900)),
             "green": _photo(tmp_path / "green.png", (40, 180, 60), (1600, 900))}
    card = CardSpec("opening", ("Hello",))
    shots = (Shot("card", None, 0, 2, 0, 2, Transition(), card=card),
             Shot("photo", "red", 2, 47, 2, 47, Transition(), move="push_in", layout=SPLIT,
                  partner_id="blue"),
             Shot("photo", "green", 47, 92, 47, 92, Transition(), move="push_in", layout=SPLIT,
                  partner_id="blue"))
    timeline = Timeline(spec.FPS, 92, 92 / spec.FPS, "gift", False, shots, 0, 0)
    preparer = SourcePreparer(timeline, (spec.LANDSCAPE,), FilmSources(paths))
    first, again = (preparer.prepare(i).layers[spec.LANDSCAPE.name] for i in (1, 2))
    assert isinstance(first, SplitLayer) and isinstance(again, SplitLayer)
    assert first.halves[1].motion.move != "pan" and again.halves[1].motion.move == "pan"


GREEN = (40, 180, 60)


def _layout(tmp_path: Path, layout: str, *, third: bool) -> PreparedSplit:
    """A layout shot of red (the shot's photo) with blue (and green) partners, faces on all."""
    paths = {"red": _photo(tmp_path / "red.png", RED, (1200, 900)),
             "blue": _photo(tmp_path / "blue.png", BLUE, (1200, 900)),
             "green": _photo(tmp_path / "green.png", GREEN, (1200, 900))}
    card = CardSpec("opening", ("Hello",))
    shots = (Shot("card", None, 0, 2, 0, 2, Transition(), card=card),
             Shot("photo", "red", 2, 2 + FRAMES, 2, 2 + FRAMES, Transition(), KEN_BURNS,
                  move="push_in", layout=layout, partner_id="blue",
                  second_partner_id="green" if third else None))
    timeline = Timeline(spec.FPS, 2 + FRAMES, (2 + FRAMES) / spec.FPS, "gift", False, shots, 0, 0)
    scenery = Subject((), Box(0.1, 0.1, 0.3, 0.3), "saliency", compact=False)
    preparer = SourcePreparer(timeline, spec.ASPECTS, FilmSources(
        paths, subjects={"red": FACE, "green": FACE, "blue": FACE if third else scenery}))
    prepared = preparer.prepare(1)
    assert isinstance(prepared, PreparedSplit)
    return prepared


def _greenish(chroma: tuple[float, float]) -> bool:
    return chroma[0] < 128 and chroma[1] < 128


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_a_triptych_shows_its_photo_in_the_middle_cell_over_the_looks_gutter(
        tmp_path: Path, aspect: spec.Aspect) -> None:
    prepared = _layout(tmp_path, TRIPTYCH, third=True)
    look = looks.look(looks.DEFAULT_LOOK)
    first, middle, last = triptych_boxes(aspect, gutter_width(aspect, look.layouts.gutter))
    colour = colour_yuv(look.colours.rgb(look.layouts.gutter_colour))
    for index in (0, FRAMES // 2, FRAMES - 1):
        frame = prepared.frame(aspect, index)
        assert _bluish(_mean_chroma(frame, first))
        assert _reddish(_mean_chroma(frame, middle))
        assert _greenish(_mean_chroma(frame, last))
        for a, b in ((first, middle), (middle, last)):
            for plane, value, k in zip(yuv.planes(frame), colour, (1, 2, 2), strict=True):
                gap = between(a, b)
                strip = plane[gap.y // k:(gap.y + gap.h) // k, gap.x // k:(gap.x + gap.w) // k]
                assert strip.size and (strip == value).all()


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_an_inset_is_a_framed_print_of_its_photo_over_a_photo_filling_the_frame(
        tmp_path: Path, aspect: spec.Aspect) -> None:
    layer = _layout(tmp_path, INSET, third=False).layers[aspect.name]
    assert isinstance(layer, SplitLayer)
    look = looks.look(looks.DEFAULT_LOOK)
    colour = colour_yuv(look.colours.rgb(look.layouts.gutter_colour))
    full, print_box = layer.boxes
    assert (full.w, full.h) == (aspect.width, aspect.height)
    assert print_box.w * print_box.h == pytest.approx(
        look.layouts.inset_area * aspect.width * aspect.height, rel=0.1)
    border = max(2, round(look.layouts.inset_border * min(aspect.width, aspect.height)))
    for index in (0, FRAMES // 2, FRAMES - 1):
        frame = layer.frame(index)
        assert _reddish(_mean_chroma(frame, print_box))
        clear = (0, 0, aspect.width, 16) if print_box.y > 64 else (
            0, aspect.height - 16, aspect.width, 16)
        assert _bluish(_mean_chroma(frame, clear))
        for strip_box in ring(print_box, border, aspect):
            for plane, value, k in zip(yuv.planes(frame), colour, (1, 2, 2), strict=True):
                strip = plane[strip_box.y // k:(strip_box.y + strip_box.h) // k,
                              strip_box.x // k:(strip_box.x + strip_box.w) // k]
                assert strip.size and (strip == value).all()


@pytest.mark.parametrize("layout", [TRIPTYCH, INSET])
@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_no_face_is_cut_in_any_cell_on_any_frame(tmp_path: Path, layout: str,
                                                 aspect: spec.Aspect) -> None:
    layer = _layout(tmp_path, layout, third=layout == TRIPTYCH).layers[aspect.name]
    assert isinstance(layer, SplitLayer)
    guard = face_guard(FACE, 1200, 900)
    assert guard is not None
    faced = layer.halves if layout == TRIPTYCH else layer.halves[1:]  # the backdrop: scenery
    for k, cell in enumerate(layer.halves):
        if cell not in faced:
            continue
        for index in range(FRAMES):
            assert cell.motion.rect_at(index + k * layer.lead).contains(guard, tol=1e-3)
            assert cell.motion.mode == "crop"  # a cell is never a print over its own blur


def test_a_layout_shot_reads_all_its_photos() -> None:
    card = CardSpec("opening", ("Hello",))
    shots = (Shot("card", None, 0, 2, 0, 2, Transition(), card=card),
             Shot("photo", "red", 2, 40, 2, 40, Transition(), layout=TRIPTYCH,
                  partner_id="blue", second_partner_id="green"))
    timeline = Timeline(spec.FPS, 40, 40 / spec.FPS, "gift", False, shots, 0, 0)
    assert sources_for(timeline) == ({"red", "blue", "green"}, set())


def test_a_layout_registered_beside_its_peers_is_drawn_with_no_other_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layout_kinds, "LAYOUT_KINDS", dict(layout_kinds.LAYOUT_KINDS))

    @layout_kinds.layout("mirror", partners=1, across=2, portrait=False)
    def mirror(aspect: spec.Aspect, look: looks.Layouts,
               frame: layout_kinds.CellFrame) -> layout_kinds.CellPlan:
        """A split with the partner first (left), in 16:9 only, without a gutter."""
        first, second = split_boxes(aspect, 0)
        return layout_kinds.CellPlan((layout_kinds.Cell(1, first), layout_kinds.Cell(0, second)),
                                     ())

    prepared = _prepared(tmp_path, "mirror")
    first, second = split_boxes(spec.LANDSCAPE, 0)
    frame = prepared.frame(spec.LANDSCAPE, FRAMES // 2)
    assert _bluish(_mean_chroma(frame, first)) and _reddish(_mean_chroma(frame, second))
    assert not isinstance(prepared.layers[spec.PORTRAIT.name], SplitLayer)  # alone in 9:16
    whole = (0, 0, spec.PORTRAIT.width, spec.PORTRAIT.height)
    assert _reddish(_mean_chroma(prepared.frame(spec.PORTRAIT, FRAMES // 2), whole))
