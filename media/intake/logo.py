"""Brand logo prep: validate a downloaded logo like any photo, keep its alpha, write a PNG.

The bytes go through the same decoder as customer photos (:func:`media.intake.photos.decode_image`:
JPEG/PNG/WebP by content, pixel cap, upright, sRGB) but transparency is kept. SVG is refused
outright (scriptable, external references, and not decoded by us). The result is trimmed to
its visible content and its long edge capped, then written as an RGBA PNG without metadata.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from media.base import errors
from media.base.errors import MediaRejected
from media.intake.photos import cap_long_edge, decode_image

LOGO_MAX_LONG_EDGE_PX = 1024
LOGO_MAX_PIXELS = 4096 * 4096
"""Largest logo decoded (pixels, as declared in its header): four times the long edge kept is
plenty, and it bounds the decode at ~64 MB of RGBA (a PNG of zeros declaring 400 Mpx is a
few hundred KB: refused as ``image_too_large`` before any pixel is decoded)."""
SNIFF_BYTES = 1024
_SVG_STARTS: tuple[bytes, ...] = (b"<?xml", b"<svg", b"<!doctype svg")


@dataclass(frozen=True)
class LogoInfo:
    """The PNG written by :func:`prepare_logo`."""

    width: int
    height: int
    source_format: str
    """Pillow's name of the downloaded format: ``JPEG``, ``PNG`` or ``WEBP``."""
    translucent: bool
    """Some pixel is not fully opaque (the logo has real transparency)."""


def looks_like_svg(head: bytes) -> bool:
    """True when ``head`` (a file's first bytes) is SVG or other XML markup."""
    text = head[:SNIFF_BYTES].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith(_SVG_STARTS):
        return True
    return text.startswith(b"<") and b"<svg" in text


def prepare_logo(src: Path, dest_png: Path, *,
                 max_long_edge: int = LOGO_MAX_LONG_EDGE_PX) -> LogoInfo:
    """Decode ``src``, keep alpha, trim to the visible content, cap the long edge at
    ``max_long_edge`` and write an RGBA PNG to ``dest_png`` (atomically, no metadata).

    Raises :class:`MediaRejected` (``svg_refused``, ``logo_empty`` or a photo reason such as
    ``not_an_image``) when the bytes are not a usable logo.
    """
    with open(src, "rb") as fp:
        head = fp.read(SNIFF_BYTES)
        fp.seek(0)
        if not head:
            raise MediaRejected(errors.NOT_AN_IMAGE, "empty file")
        if looks_like_svg(head):
            raise MediaRejected(errors.SVG_REFUSED, "SVG logos are not accepted")
        image, source_format = decode_image(fp, head, keep_alpha=True,
                                            max_pixels=LOGO_MAX_PIXELS)
    # Pillow resizes RGBA on premultiplied alpha, so edges do not darken.
    logo = cap_long_edge(_trim(image.convert("RGBA")), max_long_edge)
    _save_png(logo, dest_png)
    alpha_min, _ = logo.getchannel("A").getextrema()
    return LogoInfo(width=logo.width, height=logo.height, source_format=source_format,
                    translucent=alpha_min < 255)


def _trim(image: Image.Image) -> Image.Image:
    """Crop to the bounding box of the non-transparent pixels."""
    box = image.getchannel("A").getbbox()
    if box is None:
        raise MediaRejected(errors.LOGO_EMPTY, "every pixel is transparent")
    return image if box == (0, 0, *image.size) else image.crop(box)


def _save_png(image: Image.Image, dest_png: Path) -> None:
    """Write atomically (temp file + rename) without any metadata chunk."""
    image.info = {}
    partial = dest_png.with_name(f".{dest_png.name}.part")
    try:
        image.save(partial, "PNG", optimize=False)
        os.replace(partial, dest_png)
    finally:
        partial.unlink(missing_ok=True)
