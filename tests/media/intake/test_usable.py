"""Which prepared photos the film can show (media.intake.usable): blank, black, slivers and
thumbnails are left out with their reason; dark, faded, tiny and odd-shaped real photos are kept."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from skimage import data

from media.base import errors, yuv
from media.base.errors import MediaRejected
from media.frames import signal
from media.intake import usable
from media.intake.photos import prepare_photo

REPO = Path(__file__).resolve().parents[3]
REAL_PHOTOS = sorted([*REPO.glob("samples/*/photos/*.jpg"),
                      *REPO.glob("tests/fixtures/order/photos/*.jpg")])


def _rng() -> np.random.Generator:
    return np.random.default_rng(42)


def _plain(width: int, height: int, colour: tuple[int, int, int], noise: float) -> np.ndarray:
    """One colour with ``noise`` levels of Gaussian sensor noise."""
    pixels = np.empty((height, width, 3), np.float32)
    pixels[:] = colour
    pixels += _rng().normal(0.0, noise, pixels.shape) if noise else 0.0
    return np.clip(pixels, 0, 255).astype(np.uint8)


def _faded(pixels: np.ndarray, contrast: float, lift: float) -> np.ndarray:
    """Contrast squeezed to ``contrast`` about mid-grey, the levels lifted by ``lift``."""
    out = (pixels.astype(np.float32) - 128.0) * contrast + 128.0 + lift
    return np.clip(out, 0, 255).astype(np.uint8)


def _grain(pixels: np.ndarray, sigma: float) -> np.ndarray:
    noise = _rng().normal(0.0, sigma, pixels.shape[:2])[..., None]
    return np.clip(pixels.astype(np.float32) + noise, 0, 255).astype(np.uint8)


def _pocket_shot() -> np.ndarray:
    """A phone's shot from a pocket: near black, noisy."""
    return _plain(1600, 1200, (4, 3, 5), 4.0)


def _white_screenshot() -> np.ndarray:
    """A white phone screenshot: a light status bar with its dark clock and icons."""
    pixels = _plain(1170, 2532, (255, 255, 255), 0.0)
    pixels[:90] = 246
    pixels[30:60, 60:160] = 20  # the clock
    pixels[30:60, 1000:1110] = 30  # battery and signal
    return pixels


def _one_colour_jpeg_noise() -> np.ndarray:
    """A wall of one colour with sensor noise (saved at low JPEG quality by the test)."""
    return _plain(1200, 900, (176, 52, 40), 2.5)


def _night_scene() -> np.ndarray:
    """A street at night: a dark sky darkening upwards, a black skyline, lit windows, lamps."""
    height, width = 900, 1200
    sky = np.linspace(4, 22, height, dtype=np.float32)[:, None, None]
    pixels = np.broadcast_to(sky * np.array([0.8, 0.9, 1.3], np.float32),
                             (height, width, 3)).copy()
    pixels[560:] = 3
    rng = _rng()
    for _ in range(60):  # windows
        x, y = int(rng.integers(0, width - 20)), int(rng.integers(560, height - 30))
        pixels[y:y + 22, x:x + 14] = (230, 190, 110)
    for x in range(80, width, 220):  # street lamps with their glow
        yy, xx = np.ogrid[:height, :width]
        glow = np.exp(-((yy - 520) ** 2 + (xx - x) ** 2) / (2 * 30.0 ** 2))[..., None]
        pixels += glow * np.array([255, 210, 140], np.float32)
    return _grain(np.clip(pixels, 0, 255).astype(np.uint8), 3.0)


def _candle_lit_face() -> np.ndarray:
    """A face lit by a candle in a dark room: a warm oval fading into black, a flame below."""
    height, width = 1200, 900
    yy, xx = np.ogrid[:height, :width]
    oval = ((xx - 450) / 170.0) ** 2 + ((yy - 520) / 230.0) ** 2
    light = np.clip(1.15 - oval, 0.0, 1.0)[..., None]
    pixels = light * np.array([170, 110, 70], np.float32) + 2.0
    eyes = (((xx - 385) / 28.0) ** 2 + ((yy - 480) / 12.0) ** 2 < 1) | \
        (((xx - 515) / 28.0) ** 2 + ((yy - 480) / 12.0) ** 2 < 1)
    pixels[eyes] = 25
    flame = ((xx - 450) / 14.0) ** 2 + ((yy - 930) / 40.0) ** 2 < 1
    pixels[flame] = (255, 235, 170)
    return _grain(np.clip(pixels, 0, 255).astype(np.uint8), 3.0)


def _faded_scan() -> np.ndarray:
    """An old print scanned: sepia, its contrast faded to 20 %, the blacks lifted, grain."""
    rgb = data.astronaut().astype(np.float32)
    sepia = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])
    toned = np.clip(rgb @ sepia.T.astype(np.float32), 0, 255).astype(np.uint8)
    return _grain(_faded(toned, 0.2, 30.0), 4.0)


def _near_blank_dark() -> np.ndarray:
    """A real photo gone nearly black: contrast 4 %, 118 levels down, grain (a pocket shot
    that caught a little light)."""
    return _grain(_faded(data.astronaut(), 0.04, -118.0), 1.5)


def _near_blank_washed() -> np.ndarray:
    """A real photo washed nearly white: contrast 3 %, 120 levels up."""
    return _faded(data.coffee(), 0.03, 120.0)


def _stripe(width: int, height: int) -> np.ndarray:
    """A picture's strip (a gradient with detail) of ``width`` x ``height`` pixels."""
    row = data.astronaut()[200]
    xs = np.linspace(0, len(row) - 1, width).astype(int)
    return np.repeat(row[xs][None], height, axis=0)


def _on_canvas(picture: np.ndarray, canvas: tuple[int, int], top: int) -> np.ndarray:
    """``picture`` pasted on a black canvas of ``canvas`` (width, height): a tall screenshot."""
    pixels = np.zeros((canvas[1], canvas[0], 3), np.uint8)
    pixels[top:top + picture.shape[0], :picture.shape[1]] = picture
    return pixels


def _prepared(tmp_path: Path, pixels: np.ndarray, fmt: str = "JPEG", **save: object) -> Path:
    """``pixels`` uploaded as ``fmt`` and prepared as prep prepares a photo: its working copy."""
    src = tmp_path / f"upload.{fmt.lower()}"
    Image.fromarray(pixels).save(src, fmt, **save)
    working = tmp_path / "working.jpg"
    prepare_photo(src, working)
    return working


def _reason(working: Path) -> str:
    """The reason the photo is left out, or "kept"."""
    try:
        usable.check_usable(working)
    except MediaRejected as rejection:
        return rejection.reason
    return "kept"


@pytest.mark.parametrize(("name", "make", "fmt", "reason"), [
    ("pocket shot", _pocket_shot, "JPEG", errors.IMAGE_BLANK),
    ("small pocket shot", lambda: _plain(200, 150, (4, 3, 5), 5.0), "PNG", errors.IMAGE_BLANK),
    ("white screenshot", _white_screenshot, "PNG", errors.IMAGE_BLANK),
    ("one colour with JPEG noise", _one_colour_jpeg_noise, "JPEG", errors.IMAGE_BLANK),
    ("photo faded nearly black", _near_blank_dark, "JPEG", errors.IMAGE_BLANK),
    ("photo washed nearly white", _near_blank_washed, "JPEG", errors.IMAGE_BLANK),
    ("20000 x 20 stripe", lambda: _stripe(20000, 20), "PNG", errors.IMAGE_ASPECT),
    ("6:1 strip", lambda: _stripe(3000, 500), "JPEG", errors.IMAGE_ASPECT),
    ("1:6 strip", lambda: _stripe(500, 3000), "JPEG", errors.IMAGE_ASPECT),
    ("50 x 50 icon", lambda: data.astronaut()[::10, ::10][:50, :50].copy(), "PNG",
     errors.IMAGE_TOO_SMALL),
])
def test_blank_and_degenerate_photos_are_left_out_with_their_reason(
        tmp_path: Path, name: str, make, fmt: str, reason: str) -> None:
    working = _prepared(tmp_path, make(), fmt, **({"quality": 30} if fmt == "JPEG" else {}))

    assert _reason(working) == reason, name


@pytest.mark.parametrize(("name", "make"), [
    ("night scene", _night_scene),
    ("candle-lit face", _candle_lit_face),
    ("faded old scan", _faded_scan),
    ("4:1 panorama", lambda: _stripe(4000, 1000)),
    ("4:1 panorama a pixel short", lambda: _stripe(3000, 749)),
    ("tall screenshot of a photo on black", lambda: _on_canvas(
        data.astronaut(), (1170, 2532), 900)),
    ("thumbnail 114 x 64", lambda: np.asarray(Image.fromarray(data.astronaut()).resize(
        (114, 64), Image.Resampling.LANCZOS))),
])
def test_dark_faded_odd_and_small_real_photos_are_kept(tmp_path: Path, name: str, make) -> None:
    working = _prepared(tmp_path, make(), "JPEG", quality=85)

    assert _reason(working) == "kept", name


@pytest.mark.parametrize("photo", REAL_PHOTOS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_sample_and_fixture_photo_is_kept(tmp_path: Path, photo: Path) -> None:
    working = tmp_path / "working.jpg"
    prepare_photo(photo, working)

    assert _reason(working) == "kept"


def test_the_shape_limits_are_4_to_1_and_a_64_px_short_side() -> None:
    usable.check_shape(4000, 1000)
    usable.check_shape(64, 256)
    with pytest.raises(MediaRejected) as sliver:
        usable.check_shape(4096, 4)
    assert sliver.value.reason == errors.IMAGE_ASPECT
    with pytest.raises(MediaRejected) as small:
        usable.check_shape(63, 100)
    assert small.value.reason == errors.IMAGE_TOO_SMALL


def test_a_picture_a_little_lit_in_the_dark_is_judged_by_the_verifiers_black() -> None:
    dark = _plain(400, 300, (20, 20, 20), 0.0)  # luma 20: black to the verifier
    dark[:, :60] = 200  # a lit strip of 15 %: spread enough, and a real picture
    usable.check_content(dark)
    dark[:, 5:60] = 20  # 1.25 % lit: the verifier would call it a black frame
    with pytest.raises(MediaRejected) as caught:
        usable.check_content(dark)
    assert caught.value.reason == errors.IMAGE_TOO_DARK


def test_intakes_black_is_the_verifiers_black() -> None:
    limited = yuv.BLACK_Y + usable.BLACK_LUMA * (235 - yuv.BLACK_Y) / 255
    assert limited == pytest.approx(signal.BLACK_LUMA, abs=0.05)
    assert usable.BLACK_PICTURE_SHARE == signal.BLACK_PICTURE_RATIO


def test_an_image_file_of_4096_x_4_is_refused_before_its_content_is_read(tmp_path: Path) -> None:
    path = tmp_path / "sliver.png"
    Image.fromarray(_stripe(4096, 4)).save(path)
    with pytest.raises(MediaRejected) as caught:
        usable.check_usable(path)
    assert caught.value.reason == errors.IMAGE_ASPECT
