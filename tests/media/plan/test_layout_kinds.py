"""Layouts are one registered function each (media.plan.layout_kinds): every one a look names
is registered, the planner reads a kind's facts from its registration alone, and the cells
sit where each kind says."""

from __future__ import annotations

import pytest

from media.base import spec
from media.design import looks
from media.plan import layout_kinds
from media.plan.inputs import PhotoSource
from media.plan.layout_kinds import (
    INSET,
    LAYOUT_KINDS,
    PORTRAIT_PAIR,
    SPLIT,
    TRIPTYCH,
    Box,
    Cell,
    CellPlan,
    layout,
    layout_kind,
    split_boxes,
)
from media.plan.layouts import Layout, cell_ratio, cells_of, plan_layouts, splits_in
from media.plan.shot_order import Slot

STYLES = ("gift", "brand", "social")


@pytest.mark.parametrize("name", looks.look_names())
@pytest.mark.parametrize("style", STYLES)
def test_every_layout_a_look_names_is_registered_as_one_a_repeat_may_become(
        name: str, style: str) -> None:
    for kind in looks.look(name, style).layouts.kinds:
        assert kind in LAYOUT_KINDS and layout_kind(kind).repeat, kind


def test_the_registered_layouts_keep_their_facts() -> None:
    assert {k: (v.partners, v.across, v.portrait, v.repeat) for k, v in LAYOUT_KINDS.items()} == {
        SPLIT: (1, 2, True, True), PORTRAIT_PAIR: (1, 2, False, False),
        TRIPTYCH: (2, 3, True, True), INSET: (1, 1, True, True)}


def test_an_unregistered_layout_is_refused_naming_the_registered_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown layout 'quad'.*triptych"):
        layout_kind("quad")


class _Frame:
    def size(self, photo: int) -> tuple[int, int]:
        return 4000, 3000

    def focus(self, cell: Cell, order: int) -> tuple[float, float, float, float]:
        return 0.0, 0.0, 100.0, 100.0  # the backdrop's subject in the top left corner


@pytest.mark.parametrize("aspect", spec.ASPECTS, ids=lambda a: a.name)
def test_each_layouts_cells_cover_the_frame_apart_from_its_gutters(aspect: spec.Aspect) -> None:
    look = looks.look(looks.DEFAULT_LOOK).layouts
    for kind in (SPLIT, TRIPTYCH):
        plan = layout_kind(kind).place(aspect, look, _Frame())
        assert plan.cells[0].photo == 0  # the shot's own photo first
        area = sum(b.w * b.h for b in (*(c.box for c in plan.cells), *plan.gutters))
        assert area == aspect.width * aspect.height, kind
    inset = layout_kind(INSET).place(aspect, look, _Frame())
    backdrop, print_cell = inset.cells
    assert backdrop == Cell(1, Box(0, 0, aspect.width, aspect.height))
    assert print_cell.photo == 0 and print_cell.box.x + print_cell.box.y > 100  # off the subject


def test_a_layout_registered_beside_its_peers_is_planned_with_no_other_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layout_kinds, "LAYOUT_KINDS", dict(LAYOUT_KINDS))

    @layout("mirror", partners=1, across=2, portrait=False)
    def mirror(aspect: spec.Aspect, look: looks.Layouts, frame: object) -> CellPlan:
        """A split with the partner first (left), in 16:9 only."""
        first, second = split_boxes(aspect, 0)
        return CellPlan((Cell(1, first), Cell(0, second)), ())

    assert splits_in("mirror", False) and not splits_in("mirror", True)
    assert cells_of("mirror") == 2 and cell_ratio("mirror", False) == cell_ratio(SPLIT, False)
    slots = [Slot("photo", i, 6.0, None, n) for n in range(3) for i in "abcde"]
    photos = {i: PhotoSource(i, 4000, 3000, False) for i in "abcde"}
    rules = looks.Layouts(split_share=1.0, portrait_pairs=False, kinds=("mirror",))
    layouts = plan_layouts(slots, photos, [6.0] * len(slots), rules, subject_id="a")
    assert {layout.kind for layout in layouts} == {"", "mirror"}
    assert all(layout.partner_id for layout in layouts if layout.kind == "mirror")
    assert Layout() in layouts
