"""prepare_photo: upright sRGB working copies, and a classified rejection for everything else."""

from __future__ import annotations

import io
import resource
import struct
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import ExifTags, Image

from media.analysis import framing
from media.analysis.framing import KEEP_MIN, MOVES, MoveRequest, plan_ken_burns
from media.analysis.subjects import Box, Subject
from media.base import errors
from media.base.errors import MediaRejected
from media.base.spec import ASPECTS
from media.frames.photo_shots import SOCIAL_PORTRAIT_KEEP_MIN
from media.intake.photos import (
    MAX_LONG_EDGE_PX,
    TIGHTEST_CROP_ZOOM,
    prepare_photo,
    working_long_edge,
)
from tests.helpers import EPS, SVG, png_bomb, png_bytes

# Distinct colours in the four quadrants of a landscape image: every EXIF orientation maps it to
# a different picture, so "matches the original" proves the right transform was applied.
QUADRANTS = {"tl": (220, 30, 30), "tr": (30, 200, 30), "bl": (30, 30, 220), "br": (240, 240, 240)}


def _quadrant_image(width: int = 64, height: int = 48) -> np.ndarray:
    pixels = np.zeros((height, width, 3), np.uint8)
    half_h, half_w = height // 2, width // 2
    pixels[:half_h, :half_w] = QUADRANTS["tl"]
    pixels[:half_h, half_w:] = QUADRANTS["tr"]
    pixels[half_h:, :half_w] = QUADRANTS["bl"]
    pixels[half_h:, half_w:] = QUADRANTS["br"]
    return pixels


def _quadrant_colours(path: Path) -> dict[str, np.ndarray]:
    pixels = np.asarray(Image.open(path).convert("RGB")).astype(int)
    height, width = pixels.shape[:2]
    spots = {"tl": (height // 4, width // 4), "tr": (height // 4, 3 * width // 4),
             "bl": (3 * height // 4, width // 4), "br": (3 * height // 4, 3 * width // 4)}
    return {name: pixels[y, x] for name, (y, x) in spots.items()}


def _assert_quadrants(path: Path, tolerance: int = 20) -> None:
    for name, colour in _quadrant_colours(path).items():
        assert np.abs(colour - np.array(QUADRANTS[name])).max() <= tolerance, (name, colour)


# How each orientation stores the upright picture (EXIF 2.32, tag 0x0112): the inverse of the
# transform a viewer applies for display.
STORED_FOR_ORIENTATION = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1, :],
    5: lambda a: a.transpose(1, 0, 2),
    6: lambda a: np.rot90(a, 1),  # displayed after a 90° clockwise turn
    7: lambda a: np.rot90(a, 2).transpose(1, 0, 2),
    8: lambda a: np.rot90(a, -1),  # displayed after a 90° counter-clockwise turn
}


@pytest.mark.parametrize("orientation", range(1, 9))
def test_every_exif_orientation_ends_upright(tmp_path: Path, orientation: int) -> None:
    upright = _quadrant_image()
    stored = np.ascontiguousarray(STORED_FOR_ORIENTATION[orientation](upright))
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = orientation
    exif[ExifTags.Base.Make] = "TestCam"
    exif.get_ifd(ExifTags.IFD.GPSInfo)[ExifTags.GPS.GPSLatitudeRef] = "N"
    src = tmp_path / "photo.upload"
    Image.fromarray(stored).save(src, "JPEG", quality=95, exif=exif.tobytes())

    info = prepare_photo(src, tmp_path / "out.jpg")

    assert (info.width, info.height) == (64, 48)
    assert info.source_format == "JPEG" and info.low_res
    _assert_quadrants(tmp_path / "out.jpg")
    out = Image.open(tmp_path / "out.jpg")
    assert "exif" not in out.info and len(out.getexif()) == 0


def test_cmyk_jpeg_becomes_rgb_with_the_right_colours(tmp_path: Path) -> None:
    src = tmp_path / "cmyk.jpg"
    Image.fromarray(_quadrant_image()).convert("CMYK").save(src, "JPEG", quality=95)
    assert Image.open(src).mode == "CMYK"

    prepare_photo(src, tmp_path / "out.jpg")

    assert Image.open(tmp_path / "out.jpg").mode == "RGB"
    _assert_quadrants(tmp_path / "out.jpg", tolerance=25)


def _s15(value: float) -> bytes:
    return struct.pack(">i", round(value * 65536))


def _xyz_tag(xyz: np.ndarray) -> bytes:
    return b"XYZ \0\0\0\0" + b"".join(_s15(v) for v in xyz)


def _rgb_to_xyz(primaries: list[tuple[float, float]], white: tuple[float, float]) -> np.ndarray:
    """RGB -> XYZ matrix from chromaticities (columns are the primaries' XYZ)."""
    def xyz(x: float, y: float) -> np.ndarray:
        return np.array([x / y, 1.0, (1 - x - y) / y])
    columns = np.stack([xyz(*p) for p in primaries], axis=1)
    return columns * np.linalg.solve(columns, xyz(*white))


BRADFORD = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367],
                     [0.0389, -0.0685, 1.0296]])
D65 = (0.3127, 0.3290)
D50_XYZ = np.array([0.9642, 1.0, 0.8249])
ADOBE_RGB = [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)]
SRGB = [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
ADOBE_GAMMA = 563 / 256


def _adobe_rgb_icc() -> bytes:
    """A minimal ICC v2 matrix/TRC display profile with the Adobe RGB (1998) primaries."""
    d65 = _rgb_to_xyz(ADOBE_RGB, D65) @ np.ones(3)
    adapt = np.linalg.inv(BRADFORD) @ np.diag((BRADFORD @ D50_XYZ) / (BRADFORD @ d65)) @ BRADFORD
    to_pcs = adapt @ _rgb_to_xyz(ADOBE_RGB, D65)
    curve = b"curv\0\0\0\0" + struct.pack(">IH", 1, 563) + b"\0\0"
    desc_text = b"Test Adobe RGB\0"
    desc = (b"desc\0\0\0\0" + struct.pack(">I", len(desc_text)) + desc_text
            + b"\0" * 8 + b"\0\0\0" + b"\0" * 67)
    tags = [(b"desc", desc), (b"wtpt", _xyz_tag(D50_XYZ)), (b"rXYZ", _xyz_tag(to_pcs[:, 0])),
            (b"gXYZ", _xyz_tag(to_pcs[:, 1])), (b"bXYZ", _xyz_tag(to_pcs[:, 2])),
            (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve),
            (b"cprt", b"text\0\0\0\0none\0")]
    offset = 128 + 4 + 12 * len(tags)
    table, data = b"", b""
    for signature, body in tags:
        body += b"\0" * (-len(body) % 4)
        table += signature + struct.pack(">II", offset + len(data), len(body))
        data += body
    size = offset + len(data)
    header = (struct.pack(">I", size) + b"\0" * 4 + struct.pack(">I", 0x02100000) + b"mntrRGB XYZ "
              + b"\0" * 12 + b"acsp" + b"\0" * 24 + b"".join(_s15(v) for v in D50_XYZ))
    header += b"\0" * (128 - len(header))
    return header + struct.pack(">I", len(tags)) + table + data


def _expected_srgb(adobe: np.ndarray) -> np.ndarray:
    linear = (adobe / 255.0) ** ADOBE_GAMMA
    xyz = _rgb_to_xyz(ADOBE_RGB, D65) @ linear
    srgb_linear = np.clip(np.linalg.solve(_rgb_to_xyz(SRGB, D65), xyz), 0, 1)
    encoded = np.where(srgb_linear <= 0.0031308, 12.92 * srgb_linear,
                       1.055 * srgb_linear ** (1 / 2.4) - 0.055)
    return encoded * 255


def test_embedded_adobe_rgb_profile_is_converted_to_srgb(tmp_path: Path) -> None:
    adobe = np.array([60, 170, 80])
    src = tmp_path / "adobe.png"
    Image.new("RGB", (64, 48), tuple(int(v) for v in adobe)).save(src, icc_profile=_adobe_rgb_icc())

    prepare_photo(src, tmp_path / "out.jpg")

    out = np.asarray(Image.open(tmp_path / "out.jpg").convert("RGB"))[24, 32].astype(float)
    expected = _expected_srgb(adobe)
    assert np.abs(out - expected).max() <= 4, (out, expected)
    assert np.abs(out - adobe).max() >= 20  # i.e. not just copied through as if sRGB


@pytest.mark.parametrize(("mode", "fill", "expected"), [
    ("RGBA", (255, 0, 0, 128), (255, 127, 127)),
    ("LA", (0, 0), (255, 255, 255)),
    ("RGBA", (0, 0, 255, 255), (0, 0, 255)),
])
def test_alpha_is_flattened_on_white(tmp_path: Path, mode: str, fill: tuple[int, ...],
                                     expected: tuple[int, int, int]) -> None:
    src = tmp_path / "alpha.png"
    Image.new(mode, (40, 30), fill).save(src)

    prepare_photo(src, tmp_path / "out.jpg")

    out = Image.open(tmp_path / "out.jpg")
    assert out.mode == "RGB"
    assert np.abs(np.array(out.getpixel((20, 15))) - expected).max() <= 3


def test_palette_png_with_transparency(tmp_path: Path) -> None:
    image = Image.new("P", (40, 30), 1)
    image.putpalette([0, 0, 0, 200, 40, 40] + [0] * 762)
    image.paste(0, (0, 0, 20, 30))
    src = tmp_path / "palette.png"
    image.save(src, transparency=0)

    prepare_photo(src, tmp_path / "out.jpg")

    out = Image.open(tmp_path / "out.jpg")
    assert np.abs(np.array(out.getpixel((5, 15))) - (255, 255, 255)).max() <= 3
    assert np.abs(np.array(out.getpixel((35, 15))) - (200, 40, 40)).max() <= 6


def test_sixteen_bit_pngs(tmp_path: Path) -> None:
    gray = tmp_path / "gray16.png"
    Image.fromarray(np.full((30, 40), 40000, np.uint16)).save(gray)
    row = b"\0" + struct.pack(">HHH", 65535, 32896, 0) * 40
    rgb = tmp_path / "rgb16.png"
    rgb.write_bytes(png_bytes(40, 30, 16, 2, zlib.compress(row * 30)))

    prepare_photo(gray, tmp_path / "gray.jpg")
    prepare_photo(rgb, tmp_path / "rgb.jpg")

    assert np.abs(np.array(Image.open(tmp_path / "gray.jpg").getpixel((20, 15)))
                  - (156, 156, 156)).max() <= 2
    assert np.abs(np.array(Image.open(tmp_path / "rgb.jpg").getpixel((20, 15)))
                  - (255, 128, 0)).max() <= 4


def test_grayscale_jpeg_becomes_rgb(tmp_path: Path) -> None:
    src = tmp_path / "gray.jpg"
    Image.new("L", (40, 30), 90).save(src)

    prepare_photo(src, tmp_path / "out.jpg")

    out = Image.open(tmp_path / "out.jpg")
    assert out.mode == "RGB" and np.abs(np.array(out.getpixel((5, 5))) - 90).max() <= 2


def test_animated_webp_keeps_its_first_frame(tmp_path: Path) -> None:
    src = tmp_path / "anim.webp"
    frames = [Image.new("RGB", (40, 30), colour) for colour in ((200, 20, 20), (20, 20, 200))]
    frames[0].save(src, save_all=True, append_images=frames[1:], duration=100, lossless=True)

    info = prepare_photo(src, tmp_path / "out.jpg")

    assert info.source_format == "WEBP"
    assert np.abs(np.array(Image.open(tmp_path / "out.jpg").getpixel((20, 15)))
                  - (200, 20, 20)).max() <= 6


@pytest.mark.render
def test_large_photos_are_downscaled_and_small_ones_flagged(tmp_path: Path) -> None:
    big_png, wide_jpeg, hd = tmp_path / "big.png", tmp_path / "wide.jpg", tmp_path / "hd.jpg"
    Image.new("RGB", (4200, 2100), (10, 120, 200)).save(big_png, compress_level=1)
    Image.new("RGB", (8200, 1000), (10, 120, 200)).save(wide_jpeg)  # decoded at half scale
    Image.new("RGB", (1280, 720), (10, 120, 200)).save(hd)

    big = prepare_photo(big_png, tmp_path / "big.out.jpg")
    wide = prepare_photo(wide_jpeg, tmp_path / "wide.out.jpg")
    full_hd = prepare_photo(hd, tmp_path / "hd.out.jpg")

    assert (big.width, big.height, big.low_res) == (MAX_LONG_EDGE_PX, 2048, False)
    assert (wide.width, wide.height) == (MAX_LONG_EDGE_PX, 500)
    assert Image.open(tmp_path / "wide.out.jpg").size == (MAX_LONG_EDGE_PX, 500)
    assert (full_hd.width, full_hd.height, full_hd.low_res) == (1280, 720, False)


def _truncated_jpeg() -> bytes:
    noise = np.random.default_rng(1).integers(0, 255, (200, 200, 3), np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(noise).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()[: len(buffer.getvalue()) // 2]


HEIC = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + b"\0" * 64


@pytest.mark.parametrize(("name", "make", "reason"), [
    ("zero_bytes", lambda: b"", errors.NOT_AN_IMAGE),
    ("random_bytes", lambda: np.random.default_rng(7).bytes(4096), errors.NOT_AN_IMAGE),
    ("text", lambda: b"hello, this is not a photo\n" * 20, errors.NOT_AN_IMAGE),
    ("truncated_jpeg", _truncated_jpeg, errors.IMAGE_TRUNCATED),
    ("gif", lambda: b"GIF89a\x10\x00\x10\x00\x80\x00\x00" + b"\0" * 64,
     errors.UNSUPPORTED_IMAGE_FORMAT),
    ("svg_named_png", lambda: SVG, errors.UNSUPPORTED_IMAGE_FORMAT),
    ("eps_named_png", lambda: EPS, errors.UNSUPPORTED_IMAGE_FORMAT),
    ("heic", lambda: HEIC, errors.UNSUPPORTED_IMAGE_FORMAT),
    ("png_bomb_30000_1bit", lambda: png_bomb(30000, 0, 1), errors.IMAGE_TOO_LARGE),
    ("png_bomb_8000_palette", lambda: png_bomb(8000, 3, 8), errors.IMAGE_TOO_LARGE),
    ("png_bad_pixel_data", lambda: png_bytes(20, 20, 8, 0, b"not a zlib stream"),
     errors.IMAGE_CORRUPT),
    ("png_bad_header_crc", lambda: png_bytes(20, 20, 8, 0, b"")[:29] + b"\0\0\0\0" + b"\0" * 12,
     errors.IMAGE_CORRUPT),
    ("tiny_png", lambda: png_bytes(4, 4, 8, 0, zlib.compress(b"\0" * 5 * 4)),
     errors.IMAGE_TOO_SMALL),
])
def test_unusable_files_are_rejected_quickly(tmp_path: Path, name: str, make, reason: str) -> None:
    src = tmp_path / f"{name}.png"
    src.write_bytes(make())
    dest = tmp_path / "out.jpg"
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    started = time.monotonic()
    with pytest.raises(MediaRejected) as caught:
        prepare_photo(src, dest)
    elapsed = time.monotonic() - started

    assert caught.value.reason == reason, caught.value
    assert elapsed < 10.0  # refused before any full decode (a decode would hang or OOM)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before < 100 * 1024  # kB
    assert not dest.exists()


def test_missing_source_is_our_fault_not_a_rejection(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        prepare_photo(tmp_path / "never-downloaded.jpg", tmp_path / "out.jpg")


def test_the_working_copy_zoom_is_the_framing_full_zoom() -> None:
    assert TIGHTEST_CROP_ZOOM == framing.FULL_ZOOM


@pytest.mark.parametrize("size", [(4032, 3024), (3024, 4032), (5120, 2880), (2880, 5120),
                                  (6000, 4000), (4000, 6000), (5000, 5000)])
def test_the_working_copy_keeps_every_pixel_the_tightest_framing_shows(
        size: tuple[int, int]) -> None:
    """On the capped copy, no planned camera move (any aspect, move, subject, crop rule) frames
    tighter than 1:1, and some move frames it about 1:1 (the cap keeps nothing to spare)."""
    long_edge = working_long_edge(*size)
    assert long_edge < max(size)
    k = long_edge / max(size)
    width, height = round(size[0] * k), round(size[1] * k)
    subjects = [Subject((), Box(0.4, 0.4, 0.6, 0.6), "centre"),
                Subject((Box(0.45, 0.3, 0.55, 0.42),), Box(0.45, 0.3, 0.55, 0.42), "faces"),
                Subject((), Box(0.05, 0.05, 0.3, 0.3), "saliency")]
    scales = [aspect.width / min(m.start.w, m.end.w)
              for aspect in ASPECTS for subject in subjects for move in MOVES
              for keep_min in (KEEP_MIN, SOCIAL_PORTRAIT_KEEP_MIN)
              for m in [plan_ken_burns((width, height), subject, aspect, 90,
                                       MoveRequest(move=move, keep_min=keep_min))]]
    assert max(scales) <= 1.0 + 1e-3
    assert max(scales) >= 0.97


def test_a_phone_photo_is_kept_at_the_size_its_tightest_crop_needs(tmp_path: Path) -> None:
    src = tmp_path / "phone.jpg"
    Image.new("RGB", (4032, 3024), (10, 120, 200)).save(src, quality=80)

    info = prepare_photo(src, tmp_path / "out.jpg")

    assert (info.width, info.height) == (3021, 2266)  # 9:16 crop: 2266 * 9/16 * 1.18 = 1080
