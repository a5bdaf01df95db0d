"""Brand logo prep: photo-grade validation, alpha kept, trimmed, capped, SVG refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from media import errors
from media.errors import MediaRejected
from media.logo import LOGO_MAX_LONG_EDGE_PX, looks_like_svg, prepare_logo


def _save(image: Image.Image, path: Path, fmt: str) -> Path:
    image.save(path, fmt)
    return path


def test_large_translucent_logo_is_trimmed_and_capped_with_alpha_kept(tmp_path: Path) -> None:
    image = Image.new("RGBA", (3000, 1000), (0, 0, 0, 0))
    image.paste((0, 90, 200, 160), (500, 100, 2500, 900))
    src = _save(image, tmp_path / "in.webp", "WEBP")

    info = prepare_logo(src, tmp_path / "out.png", max_long_edge=LOGO_MAX_LONG_EDGE_PX)

    with Image.open(tmp_path / "out.png") as out:
        assert out.format == "PNG" and out.mode == "RGBA"
        assert out.size == (1024, 410) == (info.width, info.height)
        assert abs(out.getpixel((512, 200))[3] - 160) <= 2
    assert info.translucent and info.source_format == "WEBP"


def test_fully_transparent_logo_is_refused(tmp_path: Path) -> None:
    src = _save(Image.new("RGBA", (64, 64), (255, 0, 0, 0)), tmp_path / "in.png", "PNG")

    with pytest.raises(MediaRejected) as caught:
        prepare_logo(src, tmp_path / "out.png")

    assert caught.value.reason == errors.LOGO_EMPTY


@pytest.mark.parametrize(("payload", "reason"), [
    (b'<svg xmlns="http://www.w3.org/2000/svg"/>', errors.SVG_REFUSED),
    (b"\xef\xbb\xbf  <?xml version='1.0'?><svg/>", errors.SVG_REFUSED),
    (b"<!-- made by hand -->\n<svg/>", errors.SVG_REFUSED),
    (b"GIF89a" + b"\0" * 64, errors.UNSUPPORTED_IMAGE_FORMAT),
    (b"plain text", errors.NOT_AN_IMAGE),
    (b"", errors.NOT_AN_IMAGE),
])
def test_svg_and_non_images_are_refused_by_their_bytes(payload: bytes, reason: str,
                                                       tmp_path: Path) -> None:
    src = tmp_path / "logo.png"
    src.write_bytes(payload)

    with pytest.raises(MediaRejected) as caught:
        prepare_logo(src, tmp_path / "out.png")

    assert caught.value.reason == reason
    assert not (tmp_path / "out.png").exists()


def test_png_bytes_are_not_mistaken_for_svg() -> None:
    assert not looks_like_svg(b"\x89PNG\r\n\x1a\n" + b"<svg" * 4)
