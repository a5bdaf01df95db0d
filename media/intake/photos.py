"""Photo prep: identify a customer's photo by its bytes and write an upright sRGB JPEG copy.

Only JPEG, PNG and WebP are decoded (by content, never by file name). Every Pillow failure is
turned into :class:`media.base.errors.MediaRejected` with a reason code; reading ``src`` or writing
``dest_jpeg`` failing (a missing file, a full disk) is our fault and raised unchanged.
"""

from __future__ import annotations

import io
import math
import os
import struct
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
from PIL import Image, ImageCms, ImageOps

from media.base import errors
from media.base.errors import MediaRejected
from media.base.spec import ASPECTS, Aspect
from media.intake.borders import PixelBox

ALLOWED_FORMATS: tuple[str, ...] = ("JPEG", "PNG", "WEBP")
MAX_PIXELS = 50_000_000
"""Largest decoded image accepted (pixels), well below Pillow's own bomb limit."""
MIN_EDGE_PX = 16
"""Shortest edge (pixels) of any image decoded, refused by its declared size (logos too); a
photo the film shows needs more (:data:`media.intake.usable.MIN_SHORT_EDGE_PX`)."""
MAX_JPEG_SCANS = 100
"""Most scans (SOS markers) in a JPEG: baseline has 1 per component, progressive encoders write
about 10; every scan is a pass over all the image's blocks, so tens of thousands of them cost
minutes of CPU in 4 MB. Counted before any decode."""
SIXTEEN_BIT_ROWS_PER_STEP = 256
"""Rows of a 16-bit image scaled to 8 bits at a time (bounds the temporary integer copy)."""
MAX_LONG_EDGE_PX = 4096
"""Longest edge of any working copy (pixels): a 16:9 photo's tightest 9:16 crop needs 4029."""
TIGHTEST_CROP_ZOOM = 1.18
"""How much tighter than its largest crop of an aspect the film's camera ever frames a photo:
:data:`media.analysis.framing.FULL_ZOOM` (a test pins them equal; not imported, so the decoding
child does not load OpenCV and SciPy)."""
LOW_RES_LONG_EDGE_PX = 1280
JPEG_QUALITY = 92
FLATTEN_BACKGROUND: tuple[int, int, int] = (255, 255, 255)
"""Colour transparent pixels are flattened onto (sRGB, 8 bit)."""

_SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))
_SRGB_ICC = _SRGB.tobytes()
_ICC_SPACE_FOR_MODE = {"RGB": "RGB", "CMYK": "CMYK", "L": "GRAY"}
_SIXTEEN_BIT_GRAY = frozenset({"I", "I;16", "I;16B", "I;16L", "I;16N", "F"})
_HEIF_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1",
                          b"msf1", b"avif", b"avis"})
_OTHER_IMAGE_MAGIC: tuple[bytes, ...] = (
    b"GIF87a", b"GIF89a", b"II*\x00", b"MM\x00*", b"BM", b"8BPS", b"%!PS", b"\xc5\xd0\xd3\xc6",
    b"\xff\x0a", b"\x00\x00\x00\x0cJXL ", b"\x00\x00\x01\x00", b"<svg", b"<?xml",
    b"<!DOCTYPE svg",
)
_JPEG_MAGIC = b"\xff\xd8\xff"
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_ALLOWED_MAGIC: tuple[bytes, ...] = (_JPEG_MAGIC, _PNG_MAGIC)
_JPEG_SOS = b"\xff\xda"
_PNG_TEXT_CHUNKS = frozenset({b"tEXt", b"zTXt", b"iTXt"})
_PNG_CHUNK_OVERHEAD = 12
"""Bytes of a PNG chunk around its data: length (4), type (4), CRC (4)."""
_CORRUPT_ERRORS: tuple[type[BaseException], ...] = (
    SyntaxError, ValueError, struct.error, OverflowError, zlib.error, IndexError, KeyError,
)


@dataclass(frozen=True)
class PhotoInfo:
    """The working copy written by :func:`prepare_photo` (pixels, after rotation/downscale)."""

    width: int
    height: int
    low_res: bool
    """Long edge below ``LOW_RES_LONG_EDGE_PX``: kept, but the planner should show it small."""
    source_format: str
    """Pillow's name of the customer's format: ``JPEG``, ``PNG`` or ``WEBP``."""
    trimmed_from: tuple[float, float, float, float] | None = None
    """When flat borders were cut away (:mod:`media.intake.borders`): the picture's box
    ``(left, top, right, bottom)`` in shares of the upright photo; ``None`` when kept whole."""


FindPicture = Callable[[Image.Image], PixelBox | None]
"""Where the picture lies inside a decoded photo's flat borders (pixels), ``None``: all of it."""


def prepare_photo(src: Path, dest_jpeg: Path,
                  find_picture: FindPicture | None = None) -> PhotoInfo:
    """Decode ``src`` (JPEG/PNG/WebP by content), make it upright 8-bit sRGB without alpha,
    cap its long edge at what the film can show of it (:func:`working_long_edge`), cut away its
    flat borders where ``find_picture`` finds some (a screenshot's bars, a scan's margin: the
    prep stage's :func:`media.intake.usable.showable_picture_box`; ``None``: keep them)
    and write it to ``dest_jpeg`` (quality 92, sRGB ICC profile, no EXIF/XMP/comments).

    Raises :class:`MediaRejected` when the file is not a usable photo.
    """
    with open(src, "rb") as fp:
        head = fp.read(64)
        fp.seek(0)
        if not head:
            raise MediaRejected(errors.NOT_AN_IMAGE, "empty file")
        image, source_format = _decode(fp, head)
    box = find_picture(image) if find_picture is not None else None
    trimmed_from = None
    if box is not None:
        trimmed_from = box_shares(box, *image.size)
        image = image.crop(box)
    _save_jpeg(image, dest_jpeg)
    width, height = image.size
    return PhotoInfo(width=width, height=height,
                     low_res=max(width, height) < LOW_RES_LONG_EDGE_PX,
                     source_format=source_format, trimmed_from=trimmed_from)


def box_shares(box: PixelBox, width: int, height: int) -> tuple[float, float, float, float]:
    """A pixel ``box`` of a ``width`` x ``height`` image as shares of its sides (5 decimals)."""
    left, top, right, bottom = box
    return (round(left / width, 5), round(top / height, 5), round(right / width, 5),
            round(bottom / height, 5))


def decode_image(fp: IO[bytes], head: bytes, *, keep_alpha: bool = False,
                 max_pixels: int = MAX_PIXELS) -> tuple[Image.Image, str]:
    """Decode ``fp`` exactly as a customer photo is decoded (JPEG/PNG/WebP by content, size
    caps, upright, sRGB); ``keep_alpha`` keeps transparency as ``RGBA`` instead of flattening
    (brand logos); an image declaring more than ``max_pixels`` is refused before any pixel is
    decoded. ``head`` is the file's first bytes. Returns the image and its format name.

    Raises :class:`MediaRejected` when the bytes are not a usable image.
    """
    return _decode(fp, head, keep_alpha=keep_alpha, max_pixels=max_pixels)


def _decode(fp: IO[bytes], head: bytes, *, keep_alpha: bool = False,
            max_pixels: int = MAX_PIXELS) -> tuple[Image.Image, str]:
    """Decode and normalize under a classification of every Pillow failure."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            return _decode_unchecked(fp, keep_alpha=keep_alpha, max_pixels=max_pixels)
        except Image.UnidentifiedImageError as exc:
            raise MediaRejected(_unidentified_reason(head), str(exc)) from exc
        except (Image.DecompressionBombError, Image.DecompressionBombWarning,
                MemoryError) as exc:
            raise MediaRejected(errors.IMAGE_TOO_LARGE, str(exc)) from exc
        except EOFError as exc:
            raise MediaRejected(errors.IMAGE_TRUNCATED, str(exc)) from exc
        except NotImplementedError as exc:
            raise MediaRejected(errors.UNSUPPORTED_IMAGE_FORMAT, str(exc)) from exc
        except OSError as exc:
            reason = errors.IMAGE_TRUNCATED if "truncated" in str(exc) else errors.IMAGE_CORRUPT
            raise MediaRejected(reason, str(exc)) from exc
        except _CORRUPT_ERRORS as exc:
            raise MediaRejected(errors.IMAGE_CORRUPT, f"{type(exc).__name__}: {exc}") from exc


def _unidentified_reason(head: bytes) -> str:
    """``image_corrupt`` for a broken JPEG/PNG/WebP header, ``unsupported_image_format`` for a
    recognisably different image format, else ``not_an_image``."""
    if head.startswith(_ALLOWED_MAGIC) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP"):
        return errors.IMAGE_CORRUPT
    if head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS:
        return errors.UNSUPPORTED_IMAGE_FORMAT
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if any(text.startswith(magic) or head.startswith(magic) for magic in _OTHER_IMAGE_MAGIC):
        return errors.UNSUPPORTED_IMAGE_FORMAT
    return errors.NOT_AN_IMAGE


def _decode_unchecked(fp: IO[bytes], *, keep_alpha: bool = False,
                      max_pixels: int = MAX_PIXELS) -> tuple[Image.Image, str]:
    image = Image.open(_screened(fp), formats=list(ALLOWED_FORMATS))
    source_format = str(image.format)
    _check_size(*image.size, max_pixels=max_pixels)
    icc = image.info.get("icc_profile")
    _draft_jpeg(image)
    image.load()
    image = _upright(image)
    image = _to_srgb(image, icc)
    if not keep_alpha:
        image = _flatten(image)
        return cap_long_edge(image, working_long_edge(*image.size), reducing_gap=3.0), \
            source_format
    return cap_long_edge(image, MAX_LONG_EDGE_PX, reducing_gap=3.0), source_format


def working_long_edge(width: int, height: int, aspects: tuple[Aspect, ...] = ASPECTS) -> int:
    """Long edge (pixels) past which a ``width`` x ``height`` photo's pixels never reach a film
    frame: the film's tightest framing of it in any aspect (its largest crop of that aspect's
    ratio, :data:`TIGHTEST_CROP_ZOOM` tighter) shown 1:1, at most :data:`MAX_LONG_EDGE_PX`.

    Fitted and filled photos, cards and posters show less of the photo per output pixel than
    that crop, and the render pre-scales every source down to its tightest viewport anyway
    (:func:`media.frames.compose.prescale_factor`), so pixels beyond this edge only cost memory and
    time. A 4:3 phone photo needs 3021 px (its 9:16 crop), a 16:9 one 4029 px.
    """
    need = 0.0  # output pixels per photo pixel at the tightest framing
    for aspect in aspects:
        crop_w = min(float(width), height * aspect.width / aspect.height)
        need = max(need, aspect.width * TIGHTEST_CROP_ZOOM / crop_w)
    return min(MAX_LONG_EDGE_PX, math.ceil(max(width, height) * need))


def _screened(fp: IO[bytes]) -> IO[bytes]:
    """The file's bytes (photos and logos are a few MB) after the checks made before decoding:
    a JPEG's scan count is capped, a PNG's text chunks (metadata we never use, which Pillow
    refuses past 1 MB decompressed) are dropped."""
    data = fp.read()
    if data.startswith(_JPEG_MAGIC):
        scans = data.count(_JPEG_SOS)  # entropy data stuffs 0xFF as FF00: an upper bound
        if scans > MAX_JPEG_SCANS:
            raise MediaRejected(errors.IMAGE_TOO_COMPLEX,
                                f"{scans} scans, more than {MAX_JPEG_SCANS}")
    elif data.startswith(_PNG_MAGIC):
        data = without_png_text(data)
    return io.BytesIO(data)


def without_png_text(data: bytes) -> bytes:
    """A PNG's bytes without its tEXt, zTXt and iTXt chunks (anything after a malformed chunk
    header is kept as it is, for the decoder to judge)."""
    kept, pos = [data[:len(_PNG_MAGIC)]], len(_PNG_MAGIC)
    while pos + _PNG_CHUNK_OVERHEAD <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + length + _PNG_CHUNK_OVERHEAD
        if end > len(data):
            break
        if kind not in _PNG_TEXT_CHUNKS:
            kept.append(data[pos:end])
        pos = end
    kept.append(data[pos:])
    return b"".join(kept)


def _check_size(width: int, height: int, max_pixels: int = MAX_PIXELS) -> None:
    """Reject by the declared size, before any pixel is decoded."""
    if width * height > max_pixels:
        raise MediaRejected(errors.IMAGE_TOO_LARGE, f"{width}x{height} exceeds {max_pixels} px")
    if min(width, height) < MIN_EDGE_PX:
        raise MediaRejected(errors.IMAGE_TOO_SMALL, f"{width}x{height}")


def _draft_jpeg(image: Image.Image) -> None:
    """Let libjpeg decode a huge JPEG at 1/2, 1/4 or 1/8 scale, never below the working copy's
    size (:func:`working_long_edge`; an EXIF rotation keeps the photo's shape class)."""
    width, height = image.size
    long_edge, keep = max(width, height), working_long_edge(width, height)
    if image.format != "JPEG" or long_edge < 2 * keep:
        return
    ratio = keep / long_edge
    image.draft(None, (math.ceil(width * ratio), math.ceil(height * ratio)))


def _upright(image: Image.Image) -> Image.Image:
    """Apply the EXIF orientation; a broken EXIF block counts as orientation 1."""
    try:
        transposed = ImageOps.exif_transpose(image)
    except (*_CORRUPT_ERRORS, OSError):
        return image
    return transposed if transposed is not None else image


def _to_srgb(image: Image.Image, icc: bytes | None) -> Image.Image:
    """8-bit sRGB ``RGB`` or ``RGBA``: embedded ICC profile honoured, other modes converted."""
    base, alpha = _split_alpha(_eight_bit(image))
    converted = _apply_icc(base, icc) if icc else None
    if converted is None:
        converted = base if base.mode == "RGB" else base.convert("RGB")
    if alpha is not None:
        converted.putalpha(alpha)
    return converted


def _eight_bit(image: Image.Image) -> Image.Image:
    """Palette, 1-bit and 16-bit grayscale images as 8-bit L/LA/RGB/RGBA/CMYK."""
    mode = image.mode
    if mode in ("P", "PA"):
        transparent = mode == "PA" or "transparency" in image.info
        return image.convert("RGBA" if transparent else "RGB")
    if mode in _SIXTEEN_BIT_GRAY:
        return _sixteen_bit_to_l(image)
    if mode == "1":
        return image.convert("L")
    if mode in ("La", "RGBa"):
        return image.convert(mode.upper())
    if mode in ("L", "LA", "RGB", "RGBA", "CMYK"):
        return image
    return image.convert("RGBA" if "A" in mode else "RGB")


def _sixteen_bit_to_l(image: Image.Image) -> Image.Image:
    """16-bit (or 32-bit int/float) grayscale as 8-bit ``L``: level / 257, rounded, clipped to
    0..255, a band of SIXTEEN_BIT_ROWS_PER_STEP rows at a time (a 50 Mpx image never gets a
    float64 copy: 1.35 GB for 7071x7071 px)."""
    levels = np.asarray(image)
    scaled = np.empty(levels.shape, np.uint8)
    for top in range(0, levels.shape[0], SIXTEEN_BIT_ROWS_PER_STEP):
        band = levels[top:top + SIXTEEN_BIT_ROWS_PER_STEP].astype(np.float32)
        np.clip(np.rint(band / 257.0), 0, 255, out=band)
        scaled[top:top + SIXTEEN_BIT_ROWS_PER_STEP] = band
    return Image.fromarray(scaled, "L")


def _split_alpha(image: Image.Image) -> tuple[Image.Image, Image.Image | None]:
    if image.mode == "RGBA":
        return image.convert("RGB"), image.getchannel("A")
    if image.mode == "LA":
        return image.convert("L"), image.getchannel("A")
    return image, None


def _apply_icc(image: Image.Image, icc: bytes) -> Image.Image | None:
    """Convert with the embedded profile; ``None`` when it is unusable or does not fit the mode
    (then the pixels are taken as sRGB)."""
    try:
        profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        space = profile.profile.xcolor_space.strip()
    except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
        return None
    if _ICC_SPACE_FOR_MODE.get(image.mode) != space:
        return None
    try:
        transform = ImageCms.buildTransform(
            profile, _SRGB, image.mode, "RGB", ImageCms.Intent.PERCEPTUAL,
            ImageCms.Flags.BLACKPOINTCOMPENSATION)
        return ImageCms.applyTransform(image, transform)
    except (ImageCms.PyCMSError, OSError, ValueError):
        return None


def _flatten(image: Image.Image) -> Image.Image:
    """Composite RGBA onto ``FLATTEN_BACKGROUND``."""
    if image.mode != "RGBA":
        return image
    background = Image.new("RGB", image.size, FLATTEN_BACKGROUND)
    background.paste(image, mask=image.getchannel("A"))
    return background


def cap_long_edge(image: Image.Image, max_long_edge: int,
                  reducing_gap: float | None = None) -> Image.Image:
    """Downscale (Lanczos) so the long edge is at most ``max_long_edge`` pixels; smaller images
    are returned as they are. ``reducing_gap`` is Pillow's fast pre-reduction (None: off)."""
    width, height = image.size
    long_edge = max(width, height)
    if long_edge <= max_long_edge:
        return image
    ratio = max_long_edge / long_edge
    size = (max(1, round(width * ratio)), max(1, round(height * ratio)))
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=reducing_gap)


def _save_jpeg(image: Image.Image, dest_jpeg: Path) -> None:
    """Write atomically (temp file + rename) with only the sRGB profile as metadata."""
    image.info = {}
    partial = dest_jpeg.with_name(f".{dest_jpeg.name}.part")
    try:
        image.save(partial, "JPEG", quality=JPEG_QUALITY, icc_profile=_SRGB_ICC)
        os.replace(partial, dest_jpeg)
    finally:
        partial.unlink(missing_ok=True)
