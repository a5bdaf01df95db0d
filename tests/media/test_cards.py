"""Title cards: hard names fit in both aspects, every glyph is real, the accent shows, palettes
differ, text over a photo stays legible."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import ImageFont

from media import fonts
from media.cards import (
    ENTRANCE_S,
    CardSpec,
    accent_rgb,
    contrast_ratio,
    entrance_frame,
    palette,
    parse_hex,
    render_card,
    render_card_image,
    safe_area,
    text_layout,
    text_mask,
)

LONG_80 = "Maximiliana Josephine Alexandra von Hohenzollern-Sigmaringen de la Cruz Pérez II"
HARD_NAMES = [
    "Zoë O'Brien: 100%",
    "Анна",
    "美咲",
    "Ελένη",
    "a\\b {x} %d",
    "김민준",
    "さくら",
    "Łukasz Wąsowicz-Şahin",
    LONG_80,
    "W" * 80,  # one 80-character "word": must break inside it rather than overflow
    "美咲" * 40,  # 80 ideographs, no spaces
]
ASPECTS = [(1920, 1080), (1080, 1920)]
MARGIN = 0.06


def test_long_name_is_80_chars() -> None:
    assert len(LONG_80) == 80


def _check_inside(card: CardSpec, width: int, height: int) -> list:
    boxes = text_layout(card, width, height)
    left, right = MARGIN * width, (1 - MARGIN) * width
    top, bottom = (0.12 * height, 0.80 * height) if card.style == "social" else (0, height)
    for box in boxes:
        assert box.left >= left and box.right <= right, (box, width)
        assert box.top >= top and box.bottom <= bottom, (box, height)
        assert box.width > 0 and box.height > 0
    return boxes


@pytest.mark.parametrize(("width", "height"), ASPECTS)
@pytest.mark.parametrize("style", ["gift", "social"])
@pytest.mark.parametrize("name", HARD_NAMES)
def test_hard_names_fit_inside_margins(name: str, style: str, width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", name), None, False, style)
    boxes = _check_inside(card, width, height)
    titles = [b for b in boxes if b.role == "title"]
    assert 1 <= len(titles) <= 3
    # Nothing lost or reinterpreted: the lines put back together are the name as typed.
    assert "".join(b.text for b in titles).replace(" ", "") == name.replace(" ", "")
    # Shrunk, but still readable (80 capitals or ideographs on three 9:16 lines is the floor).
    floor = 0.05 if len(name) <= 40 else 0.028
    assert min(b.size for b in titles) >= floor * min(width, height)


@pytest.mark.parametrize(("width", "height"), ASPECTS)
@pytest.mark.parametrize("gentle", [False, True])
def test_closing_card_fits(width: int, height: int, gentle: bool) -> None:
    card = CardSpec("closing", ("With love, from your sister and the whole Kowalczyk family",
                                "Remember the lake house summer when it rained for a week?"),
                    "#7A1F5C", gentle, "gift")
    boxes = _check_inside(card, width, height)
    assert {b.role for b in boxes} == {"title", "sub", "rule"}


@pytest.mark.parametrize(("width", "height"), ASPECTS)
@pytest.mark.parametrize("name", ["Zoë O'Brien: 100%", "美咲", LONG_80, "a\\b {x} %d"])
def test_drawn_ink_stays_in_its_boxes(name: str, width: int, height: int) -> None:
    """The boxes are truthful: every glyph pixel actually drawn lies inside them."""
    card = CardSpec("opening", ("Happy Birthday", name), None, False, "gift")
    mask = text_mask(card, width, height) > 0.02
    assert mask.any()
    allowed = np.zeros_like(mask)
    for box in text_layout(card, width, height):
        allowed[box.top - 1 : box.bottom + 1, box.left - 1 : box.right + 1] = True
    assert not (mask & ~allowed).any()
    cols = np.flatnonzero(mask.any(axis=0))
    assert cols[0] >= MARGIN * width and cols[-1] < (1 - MARGIN) * width


def test_text_is_drawn_exactly_as_typed() -> None:
    name = "a\\b {x} %d: 100% O'Brien"
    card = CardSpec("opening", ("Happy Birthday", name), None, False, "gift")
    titles = [b.text for b in text_layout(card, 1920, 1080) if b.role == "title"]
    assert " ".join(titles) == name


@pytest.mark.parametrize("name", [*HARD_NAMES, "Nguyễn Thị Minh Khai", "Şükrü Çağlar",
                                  "Ђорђе Ћосић", "Ὀδυσσεύς", "「美咲」、ありがとう！"])
def test_every_character_has_a_real_glyph(name: str) -> None:
    face = fonts.face_for(name)
    assert fonts.missing_glyphs(name, face) == []
    # Belt and braces: the font each run is drawn with renders a glyph, not its .notdef box.
    for run, font in fonts.font_runs(name, 48, fonts.BOLD, face):
        notdef = bytes(font.getmask("\U0010fffd"))
        for ch in run:
            if ch.isspace():
                continue
            mask = font.getmask(ch)
            assert mask.getbbox() is not None, ch
            assert bytes(mask) != notdef, f"{ch!r} is tofu in {font.getname()}"


def test_unsupported_characters_are_reported_and_dropped() -> None:
    assert fonts.missing_glyphs("Anna 😀 ❤\ufe0f") == ["😀", "❤", "\ufe0f"]
    assert fonts.drawable("  Anna\n😀\tO'Brien ") == "Anna O'Brien"
    card = CardSpec("opening", ("Happy Birthday", "😀"), None, False, "gift")
    assert [b.role for b in text_layout(card, 1920, 1080)] == ["heading", "rule"]


def test_bundled_fonts_are_present_and_licensed() -> None:
    files = [fonts.LATIN_BOLD_PATH, fonts.LATIN_REGULAR_PATH, fonts.CJK_PATH]
    assert sum(p.stat().st_size for p in files) < 22 * 1024 * 1024
    assert "SIL OPEN FONT LICENSE" in (fonts.FONT_DIR / "OFL.txt").read_text()
    for path in files:
        assert isinstance(ImageFont.truetype(str(path), 20), ImageFont.FreeTypeFont)


def test_face_choice() -> None:
    assert fonts.face_for("さくら") == fonts.FACE_JA
    assert fonts.face_for("김민준") == fonts.FACE_KO
    assert fonts.face_for("美咲", "zh-Hant-TW") == fonts.FACE_ZH_HANT
    assert fonts.face_for("Anna", "en") == fonts.FACE_JA


def _count_colour(image: np.ndarray, rgb: tuple[int, int, int], tol: int = 0) -> int:
    low = np.asarray([max(0, c - tol) for c in rgb], np.uint8)
    high = np.asarray([min(255, c + tol) for c in rgb], np.uint8)
    return int(cv2.countNonZero(cv2.inRange(image, low, high)))


@pytest.mark.parametrize("accent", ["#2E7D6B", "#E4572E", "#1A237E", "#FFD400", "#000000"])
@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_brand_accent_is_visible(accent: str, width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), accent, False, "brand")
    rgb = parse_hex(accent)
    assert accent_rgb(card) == rgb
    image = render_card(card, width, height)
    assert _count_colour(image, rgb) >= 150  # the rule (or the brand-coloured field) exactly
    # And the heading is drawn in a (lifted) version of the accent, readable on the backdrop.
    assert contrast_ratio(palette(card).heading, palette(card).bottom) >= 3.0


def test_house_accent_without_brand_colour() -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift")
    assert _count_colour(render_card(card, 1920, 1080), accent_rgb(card)) >= 150


def test_gentle_palette_is_quieter() -> None:
    loud = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift")
    quiet = CardSpec("opening", ("In Loving Memory", "Anna"), None, True, "gift")
    a = render_card(loud, 1080, 1920).astype(np.float32)
    b = render_card(quiet, 1080, 1920).astype(np.float32)
    assert np.abs(a.mean(axis=(0, 1)) - b.mean(axis=(0, 1))).max() > 8

    def saturation(image: np.ndarray) -> float:
        hsv = cv2.cvtColor(image.astype(np.uint8), cv2.COLOR_RGB2HSV)
        return float(hsv[..., 1].mean())

    assert saturation(b) < saturation(a) * 0.8
    assert palette(quiet).shadow_alpha < palette(loud).shadow_alpha


def _busy_background(width: int, height: int) -> np.ndarray:
    """Bright and busy: white sky, a black-and-white checkerboard, saturated blocks."""
    image = np.full((height, width, 3), 245, np.uint8)
    yy, xx = np.mgrid[0:height, 0:width]
    checks = ((yy // 40 + xx // 40) % 2).astype(bool)
    image[height // 3 :][checks[height // 3 :]] = 10
    image[: height // 4, : width // 3] = (255, 220, 0)
    image[height // 2 :, width // 2 :] = (0, 200, 255)
    return image


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_text_over_a_photo_is_legible(width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Zoë O'Brien"), None, False, "gift")
    background = _busy_background(width, height)
    image = render_card(card, width, height, background)
    plain = render_card(card, width, height)
    assert not np.array_equal(image, plain)
    # The photo still shows through (darkened): bright areas stay brighter than dark ones.
    luma = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY).astype(np.float32)
    bg_luma = cv2.cvtColor(background, cv2.COLOR_RGB2GRAY).astype(np.float32)
    corner = (slice(0, height // 8), slice(0, width // 8))
    assert luma[corner].mean() < bg_luma[corner].mean() * 0.6  # darkened

    mask = text_mask(card, width, height)
    core = mask > 0.95
    near = cv2.dilate((mask > 0.02).astype(np.uint8), np.ones((25, 25), np.uint8)) > 0
    ring = near & (mask <= 0.02)
    assert core.sum() > 500 and ring.sum() > 500
    text_rgb = tuple(float(v) for v in np.median(image[core], axis=0))
    around = tuple(float(v) for v in np.percentile(image[ring], 95, axis=0))
    assert contrast_ratio(text_rgb, around) >= 4.5


def test_background_of_another_size_is_fitted() -> None:
    card = CardSpec("closing", ("With love", ""), None, False, "gift")
    image = render_card(card, 1080, 1920, _busy_background(640, 360))
    assert image.shape == (1920, 1080, 3)


def test_empty_and_missing_lines() -> None:
    blank = CardSpec("opening", ("", "   "), None, False, "gift")
    assert text_layout(blank, 1920, 1080) == []
    image = render_card(blank, 1920, 1080)
    assert image.shape == (1080, 1920, 3) and image.dtype == np.uint8
    only_name = CardSpec("opening", ("", "Anna"), None, False, "gift")
    assert [b.role for b in text_layout(only_name, 1920, 1080)] == ["title", "rule"]
    one_line = CardSpec("closing", ("With love, Mum",), None, True, "gift")
    assert [b.role for b in text_layout(one_line, 1080, 1920)] == ["title", "rule"]
    no_lines = CardSpec("closing", (), None, False, "brand")
    assert text_layout(no_lines, 1080, 1920) == []


def test_rejects_bad_spec() -> None:
    with pytest.raises(ValueError):
        CardSpec("middle", ("a", "b"), None, False, "gift")
    with pytest.raises(ValueError):
        CardSpec("opening", ("a", "b"), None, False, "tiktok")
    with pytest.raises(ValueError):
        CardSpec("opening", ("a", "b"), "red", False, "gift")
    assert parse_hex("#abc") == (0xAA, 0xBB, 0xCC)


def test_social_cards_respect_safe_area_and_are_bolder() -> None:
    gift = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift")
    social = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "social")
    left, top, right, bottom = safe_area(social, 1080, 1920)
    assert top >= 0.12 * 1920 and bottom <= 0.80 * 1920
    assert left >= 0.06 * 1080 and right <= 0.94 * 1080
    size = {b.role: b.size for b in text_layout(gift, 1080, 1920)}
    social_size = {b.role: b.size for b in text_layout(social, 1080, 1920)}
    assert social_size["title"] > size["title"] and social_size["heading"] > size["heading"]


def test_greek_heading_caps_drop_tonos() -> None:
    card = CardSpec("opening", ("Χρόνια πολλά", "Ελένη"), None, False, "gift")
    heading = [b.text for b in text_layout(card, 1920, 1080) if b.role == "heading"]
    assert heading == ["ΧΡΟΝΙΑ ΠΟΛΛΑ"]


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_render_is_well_formed(width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Zoë O'Brien"), "#E4572E", False, "gift")
    image = render_card(card, width, height)
    assert image.shape == (height, width, 3) and image.dtype == np.uint8


def test_rendering_is_deterministic_across_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    cards = [CardSpec("opening", ["Happy Birthday", name], None, False, "gift")  # type: ignore[arg-type]
             for name in ("Zoë", "美咲", "Анна", "김민준")]
    serial = [render_card(card, 960, 540) for card in cards]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda card: render_card(card, 960, 540), cards))
    for a, b in zip(serial, parallel, strict=True):
        assert np.array_equal(a, b)


# --- sized for a TV and a phone, a designed closing, the entrance, the brand logo ------------


@pytest.mark.parametrize(("style", "gentle", "name_floor"), [("gift", False, 0.10),
                                                             ("gift", True, 0.09),
                                                             ("social", False, 0.10)])
def test_opening_type_reads_on_a_tv_and_bigger_on_a_phone(style: str, gentle: bool,
                                                          name_floor: float) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Eileen"), None, gentle, style)
    wide = {b.role: b for b in text_layout(card, 1920, 1080)}
    tall = {b.role: b for b in text_layout(card, 1080, 1920)}
    # Ink heights as a fraction of the 16:9 frame's height: the name about a tenth of it,
    # the capitals of the heading at least 3.3%.
    assert wide["title"].height >= name_floor * 1080
    assert wide["heading"].height >= 0.033 * 1080
    # 9:16 is width-limited: the same name is drawn larger there, and fills more of the width.
    assert tall["title"].size >= 1.2 * wide["title"].size
    assert tall["heading"].size >= 1.1 * wide["heading"].size


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_long_names_still_fit_at_the_larger_sizes(width: int, height: int) -> None:
    for name in (LONG_80, "Maximiliana Josephine", "W" * 30):
        card = CardSpec("opening", ("Happy 100th Birthday", name), None, False, "gift")
        boxes = _check_inside(card, width, height)
        titles = [b for b in boxes if b.role == "title"]
        assert "".join(b.text for b in titles).replace(" ", "") == name.replace(" ", "")


def _grey_photo(width: int, height: int) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width]
    grey = (90 + 80 * np.sin(xx / 97.0) * np.cos(yy / 61.0)).astype(np.uint8)
    return np.repeat(grey[..., None], 3, axis=2)


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_closing_card_over_a_grey_photo_is_not_flat_grey(width: int, height: int) -> None:
    card = CardSpec("closing", ("From all of us at mission control",
                                "Forty years young and still reaching for the stars."))
    image = render_card(card, width, height, _grey_photo(width, height))
    hsv = cv2.cvtColor(image, cv2.COLOR_RGB2HSV)
    assert float(hsv[..., 1].mean()) > 40  # the palette's colour, not grey
    boxes = text_layout(card, width, height)
    title = next(b for b in boxes if b.role == "title")
    sub = [b for b in boxes if b.role == "sub"]
    assert title.size > 1.3 * sub[0].size  # a clear hierarchy
    assert sub[0].text.startswith("\u201c") and sub[-1].text.endswith("\u201d")  # quoted


def test_text_fades_and_rises_in() -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), None, False, "gift")
    image = render_card_image(card, 960, 540)
    assert np.array_equal(entrance_frame(image, -0.1), image.base)
    assert entrance_frame(image, ENTRANCE_S) is image.final
    mask = text_mask(card, 960, 540) > 0.9
    base, final = image.base[mask].astype(float), image.final[mask].astype(float)
    middle = entrance_frame(image, ENTRANCE_S * 0.3)
    changed = np.abs(middle[mask].astype(float) - base).mean()
    assert 0.1 * np.abs(final - base).mean() < changed < 0.95 * np.abs(final - base).mean()
    # Still rising: the text's ink sits lower than in the finished card.
    rows = np.arange(540)[:, None]
    weight_mid = np.abs(middle.astype(float) - image.base).sum(axis=2)
    weight_end = np.abs(image.final.astype(float) - image.base).sum(axis=2)
    centre = [float((rows * w).sum() / w.sum()) for w in (weight_mid, weight_end)]
    assert centre[0] > centre[1] + 1.0


def _logo() -> np.ndarray:
    logo = np.zeros((100, 300, 4), np.uint8)
    logo[20:80, 20:280] = (0, 200, 90, 255)  # opaque green bar in a transparent margin
    return logo


@pytest.mark.parametrize(("width", "height"), ASPECTS)
def test_card_logo_is_large_above_the_text(width: int, height: int) -> None:
    card = CardSpec("opening", ("Happy Birthday", "Anna"), "#1E88E5", False, "brand")
    image = render_card(card, width, height, None, _logo())
    green = cv2.inRange(image, (0, 190, 80), (10, 210, 100)) > 0
    ys, xs = np.nonzero(green)
    assert len(ys) > 0
    text = text_layout(card, width, height, _logo())
    assert ys.max() < min(b.top for b in text)  # above the text, never over it
    assert abs((xs.min() + xs.max()) / 2 - width / 2) < 3  # centred
    assert xs.max() - xs.min() >= 0.25 * min(width, height)  # large on the card
    top = safe_area(card, width, height)[1]
    assert ys.min() >= top

