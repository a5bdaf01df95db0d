"""A title card's colours: palettes by accent, mood and style, and WCAG contrast
(media.cards.colour)."""

from __future__ import annotations

import pytest

from media.cards.colour import accent_rgb, contrast_ratio, lift_contrast, luminance, palette
from media.cards.spec import CardSpec
from media.design.values import STYLES


def test_contrast_runs_from_1_for_equal_colours_to_21_for_black_on_white() -> None:
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio((90, 30, 60), (90, 30, 60)) == pytest.approx(1.0)
    assert luminance((255, 255, 255)) == pytest.approx(1.0)


def test_a_colour_is_lifted_in_its_own_hue_until_it_reads() -> None:
    dark_red = (120, 20, 20)
    lifted = lift_contrast(dark_red, (30, 30, 30), 4.5)
    assert contrast_ratio(lifted, (30, 30, 30)) >= 4.5
    assert lifted[0] > lifted[1] and lifted[0] > lifted[2]  # still red
    assert lift_contrast((250, 250, 250), (0, 0, 0), 4.5) == (250, 250, 250)  # already reads


@pytest.mark.parametrize("accent", ["#2E7D6B", "#E4572E", "#1A237E", "#FFD400", "#000000"])
def test_the_brand_colour_is_the_accent_and_the_heading_reads_on_the_backdrop(accent: str) -> None:
    for gentle in (False, True):
        card = CardSpec("opening", ("Happy Birthday", "Anna"), accent, gentle, "brand")
        assert accent_rgb(card) == palette(card).accent
        assert contrast_ratio(palette(card).heading, palette(card).bottom) >= 3.0


def test_a_dark_brand_colour_is_the_backdrop_itself() -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), "#1A237E", False, "brand")
    assert palette(card).bottom == (0x1A, 0x23, 0x7E)


@pytest.mark.parametrize("style", STYLES)
def test_every_house_palette_sets_light_text_on_a_dark_backdrop(style: str) -> None:
    for gentle in (False, True):
        colours = palette(CardSpec("opening", ("Hello",), None, gentle, style))
        assert contrast_ratio(colours.text, colours.bottom) >= 4.5
        assert contrast_ratio(colours.text, colours.top) >= 4.5


def test_gentle_cards_have_a_softer_shadow() -> None:
    loud = palette(CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift"))
    quiet = palette(CardSpec("opening", ("In Loving Memory", "Anna"), None, True, "gift"))
    assert quiet.shadow_alpha < loud.shadow_alpha
