"""Bundled fonts: every script a customer may type has real glyphs, and the face follows the
script and the language hint (media.cards.fonts)."""

from __future__ import annotations

import pytest
from PIL import ImageFont

from media.cards import fonts
from tests.media.card_names import HARD_NAMES


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


def test_bundled_fonts_are_present_licensed_and_listed() -> None:
    files = fonts.all_font_files()
    assert sum(p.stat().st_size for p in files) < 36 * 1024 * 1024
    assert "SIL OPEN FONT LICENSE" in (fonts.FONT_DIR / "OFL.txt").read_text()
    sources = (fonts.FONT_DIR / "README.md").read_text()
    for path in files:
        size = fonts.EMOJI_PX if path == fonts.EMOJI_PATH else 20
        assert isinstance(ImageFont.truetype(str(path), size), ImageFont.FreeTypeFont)
        assert f"`{path.name}`" in sources, f"{path.name} has no row in the fonts README"
    # Nothing bundled that the chain does not use.
    bundled = {p.name for p in fonts.FONT_DIR.glob("*.tt[fc]")}
    assert bundled == {p.name for p in files}


def test_face_choice() -> None:
    assert fonts.face_for("さくら") == fonts.FACE_JA
    assert fonts.face_for("김민준") == fonts.FACE_KO
    assert fonts.face_for("美咲", "zh-Hant-TW") == fonts.FACE_ZH_HANT
    assert fonts.face_for("Anna", "en") == fonts.FACE_JA
