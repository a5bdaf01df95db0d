"""Brand logo prep: photo-grade validation, alpha kept, trimmed, capped, SVG refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from media.base import errors
from media.base.errors import MediaRejected
from media.base.runner import Limits
from media.intake.logo import LOGO_MAX_LONG_EDGE_PX, LOGO_MAX_PIXELS, looks_like_svg, prepare_logo
from media.intake.sandbox import LOGO_LIMITS, prepare_logo_bounded


def _save(image: Image.Image, path: Path, fmt: str) -> Path:
    image.save(path, fmt)
    return path


@pytest.mark.render
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


def test_a_logo_over_the_pixel_cap_is_refused_before_decoding(tmp_path: Path) -> None:
    src = _save(Image.new("L", (4200, 4200), 0), tmp_path / "in.png", "PNG")
    assert LOGO_MAX_PIXELS < 4200 * 4200

    with pytest.raises(MediaRejected) as caught:
        prepare_logo(src, tmp_path / "out.png")

    assert caught.value.reason == errors.IMAGE_TOO_LARGE and "4200x4200" in caught.value.detail


@pytest.mark.render
def test_a_logo_decode_past_its_child_time_limit_is_refused_as_image_decode_limit(
        tmp_path: Path) -> None:
    src = _save(Image.new("RGBA", (4096, 4096), (0, 0, 0, 255)), tmp_path / "in.png", "PNG")
    tight = Limits(timeout_s=0.05, cpu_s=LOGO_LIMITS.cpu_s,
                   address_space_bytes=LOGO_LIMITS.address_space_bytes)

    with pytest.raises(MediaRejected) as caught:
        prepare_logo_bounded(src, tmp_path / "out.png", tight)

    assert caught.value.reason == errors.IMAGE_DECODE_LIMIT
    assert not (tmp_path / "out.png").exists()


@pytest.mark.render
def test_a_logo_needing_more_memory_than_its_child_has_is_refused_not_decoded_here(
        tmp_path: Path) -> None:
    src = _save(Image.new("RGBA", (4096, 4096), (0, 0, 0, 255)), tmp_path / "in.png", "PNG")
    tight = Limits(timeout_s=LOGO_LIMITS.timeout_s, cpu_s=LOGO_LIMITS.cpu_s,
                   address_space_bytes=160 * 1024**2)  # the interpreter fits, 64 MB RGBA not

    with pytest.raises(MediaRejected) as caught:
        prepare_logo_bounded(src, tmp_path / "out.png", tight)

    assert caught.value.reason in (errors.IMAGE_DECODE_LIMIT, errors.IMAGE_TOO_LARGE)
    assert not (tmp_path / "out.png").exists()


@pytest.mark.render
def test_a_logo_at_the_pixel_cap_is_prepared_within_the_default_child_limits(
        tmp_path: Path) -> None:
    src = _save(Image.new("RGBA", (4096, 4096), (0, 90, 200, 255)), tmp_path / "in.png", "PNG")

    info = prepare_logo_bounded(src, tmp_path / "out.png")

    assert (info.width, info.height, info.source_format) == (1024, 1024, "PNG")
    assert not info.translucent
