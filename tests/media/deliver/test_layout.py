"""Where the gift page's play button and control bar go over a poster's reported layout
(media.deliver.layout)."""

from __future__ import annotations

import pytest

from media.analysis.subjects import Box
from media.deliver.layout import (
    CLEARANCE,
    PosterLayout,
    controls_edge,
    layout_from_dict,
    place_button,
    reach,
)

PILL, ROUND = (0.34, 0.15), (0.11, 0.18)
LAYOUTS = {
    "pet-close-up": PosterLayout(text=Box(0.2, 0.66, 0.8, 0.84), subject=Box(0.3, 0.15, 0.7, 0.62)),
    "name-at-the-top": PosterLayout(text=Box(0.1, 0.05, 0.9, 0.3),
                                    subject=Box(0.05, 0.45, 0.5, 0.95)),
    "name-beside-a-face": PosterLayout(text=Box(0.55, 0.4, 0.95, 0.6),
                                       subject=Box(0.1, 0.2, 0.45, 0.7)),
    "no-words": PosterLayout(text=None, subject=Box(0.3, 0.3, 0.7, 0.7)),
}


def _overlap(a: Box, b: Box) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _button_at(spot: Box, size: tuple[float, float]) -> Box:
    (x, y), (w, h) = spot.center, size
    return Box(x - w / 2, y - h / 2, x + w / 2, y + h / 2)


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_the_button_covers_neither_the_words_nor_the_subject(name: str) -> None:
    layout = LAYOUTS[name]
    spot = place_button(layout, (PILL, ROUND))
    button = _button_at(spot.box, (PILL, ROUND)[spot.size])
    assert spot.clear
    assert button.x0 >= 0 and button.x1 <= 1 and button.y0 >= 0 and button.y1 <= 1
    assert not any(_overlap(button, box) for box in layout.kept())


def test_the_button_takes_the_largest_clear_spot() -> None:
    """A small face on the left, the name at the top: of the band under the name and the
    wide spot right of the face, the button takes the larger, the spot right of the face."""
    layout = PosterLayout(text=Box(0.1, 0.05, 0.9, 0.25), subject=Box(0.05, 0.4, 0.25, 0.7))
    spot = place_button(layout, (PILL,))
    assert spot.clear
    assert spot.box.x0 == pytest.approx(0.25 + 0.35 * 0.2 + CLEARANCE)
    assert (spot.box.y0, spot.box.x1, spot.box.y1) == pytest.approx((0.25 + CLEARANCE, 1, 1))


def test_a_smaller_round_button_is_used_where_the_labelled_one_fits_nowhere() -> None:
    tight = PosterLayout(text=Box(0.15, 0.7, 0.85, 0.9), subject=Box(0.25, 0.05, 0.75, 0.68))
    spot = place_button(tight, (PILL, ROUND))
    assert spot.size == 1 and spot.clear
    assert not any(_overlap(_button_at(spot.box, ROUND), box) for box in tight.kept())


def test_with_no_room_beside_the_subject_the_button_still_keeps_off_the_words() -> None:
    crowded = PosterLayout(text=Box(0.1, 0.75, 0.9, 0.9), subject=Box(0.0, 0.0, 1.0, 0.72))
    spot = place_button(crowded, (PILL, ROUND))
    assert not spot.clear
    assert crowded.text is not None
    assert not _overlap(_button_at(spot.box, (PILL, ROUND)[spot.size]), crowded.text)


def test_the_button_keeps_a_clearance_from_what_it_avoids() -> None:
    layout = LAYOUTS["name-beside-a-face"]
    spot = place_button(layout, (PILL,))
    button = _button_at(spot.box, PILL)
    grown = [Box(b.x0 - CLEARANCE, b.y0 - CLEARANCE, b.x1 + CLEARANCE, b.y1 + CLEARANCE)
             for b in layout.kept()]
    assert not any(_overlap(button, box) for box in grown)


@pytest.mark.parametrize(("text", "edge"), [
    (Box(0.1, 0.6, 0.9, 0.8), "bottom"),  # the lower third: the bar goes below it
    (Box(0.1, 0.8, 0.9, 0.95), "top"),  # words at the foot: the bar goes to the top
    (None, "bottom"),
])
def test_the_control_bar_goes_along_the_edge_that_keeps_off_the_words(
        text: Box | None, edge: str) -> None:
    assert controls_edge(PosterLayout(text=text, subject=Box(0.3, 0.2, 0.7, 0.5)), 0.16) == edge


def test_a_layout_survives_its_json_form() -> None:
    for layout in LAYOUTS.values():
        assert layout_from_dict(layout.to_dict()) == layout


def test_the_button_keeps_off_the_ears_and_hair_a_subject_box_leaves_out() -> None:
    """The pet sample's spaniel: its salient box held the face; the ears hung outside it, where
    the button went when it kept off the box alone."""
    spaniel = PosterLayout(text=Box(0.1, 0.6, 0.4, 0.85), subject=Box(0.43, 0.17, 0.66, 0.83))
    spot = place_button(spaniel, (PILL, ROUND))
    button = _button_at(spot.box, (PILL, ROUND)[spot.size])
    assert spaniel.subject is not None
    head = reach(spaniel.subject)
    assert head.x0 < 0.36 and head.x1 > 0.73  # the ears, roughly
    assert spot.clear and not _overlap(button, head)


def _covered_area(button: Box, box: Box) -> float:
    return (max(0.0, min(button.x1, box.x1) - max(button.x0, box.x0))
            * max(0.0, min(button.y1, box.y1) - max(button.y0, box.y0)))


def test_with_no_clear_room_the_button_covers_as_little_of_the_subject_as_it_can() -> None:
    """A sunset whose salient sky and boats fill the poster above and around the words: the
    button goes where it covers least of them, not over the middle of the largest free band."""
    crowded = PosterLayout(text=Box(0.15, 0.49, 0.85, 0.8), subject=Box(0.0, 0.0, 1.0, 0.85))
    spot = place_button(crowded, (PILL, ROUND))
    button = _button_at(spot.box, (PILL, ROUND)[spot.size])
    assert not spot.clear and crowded.subject is not None and crowded.text is not None
    assert not _overlap(button, crowded.text)
    centred = _button_at(Box(0.0, 0.0, 1.0, 0.49 - CLEARANCE), PILL)  # the band above the words
    assert _covered_area(button, crowded.subject) < _covered_area(centred, crowded.subject)
