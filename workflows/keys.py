"""The storage key layout: where every object of an order lives, spelled once.

Light (standard library only), like :mod:`workflows.contract`: the order API writes the inputs
by this layout and the contract validates their keys with it. Everything else (the stages, the
command line, the tests) builds its keys here::

    orders/{gift_id}/photos/{pNN}.{ext}        inputs, written by the order API
    orders/{gift_id}/clips/{cNN}.{ext}
    orders/{gift_id}/runs/{attempt}/           one attempt's working files (RunKeys)
        prep/photos/{id}.jpg  prep/clips/{id}.mp4
        assets/photos/{id}.jpg  assets/framing.json  assets/restore.json
        assets/song.wav  assets/song.json  assets/logo.png  assets/motion/{id}.mp4
        render/timeline.json  render/soundtrack.wav  render/{aspect}.mp4
        render/poster.jpg  render/poster-9x16.jpg  render/manifest.json
        render/segments/{index:03d}/{aspect}.mp4  render/segments/{index:03d}/manifest.json
    films/{share_slug}/                        the delivery, public
        16x9.mp4  9x16.mp4  poster.jpg (16:9, og:image)  poster-9x16.jpg  index.html
        logo.png (brand style)  manifest.json
    outcomes/{workflow_id}.json                the local outcome sink (no order API configured)

Work keys depend only on the run (gift id and attempt), so a retried activity overwrites its own
files; delivery keys only on the public share slug, so the public folder names no private id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PHOTOS = "photos"
CLIPS = "clips"
PAGE_NAME = "index.html"
POSTER_NAME = "poster.jpg"
PORTRAIT_POSTER_NAME = "poster-9x16.jpg"
LOGO_NAME = "logo.png"
MANIFEST_NAME = "manifest.json"


# --- Inputs, written by the order API ------------------------------------------------------------


def media_key(gift_id: str, folder: str, slot: str, ext: str) -> str:
    """Key of one customer file: ``orders/{gift_id}/{photos|clips}/{slot}.{ext}``."""
    return f"orders/{gift_id}/{folder}/{slot}.{ext}"


def photo_key(gift_id: str, photo_id: str, ext: str) -> str:
    """Key of an order's photo ``photo_id`` (``p01``..) with extension ``ext`` (no dot)."""
    return media_key(gift_id, PHOTOS, photo_id, ext)


def clip_key(gift_id: str, clip_id: str, ext: str) -> str:
    """Key of an order's clip ``clip_id`` (``c01``..) with extension ``ext`` (no dot)."""
    return media_key(gift_id, CLIPS, clip_id, ext)


MEDIA_EXT_PATTERN = "[a-z0-9]{2,5}"
"""The extension of a customer file's key (any 2-5 lower-case letters or digits)."""


def media_key_pattern(gift_id: str, folder: str, slot: str) -> re.Pattern[str]:
    """What the key of customer file ``slot`` must match (any 2-5 character extension)."""
    return re.compile(rf"^{re.escape(media_key(gift_id, folder, slot, ''))}{MEDIA_EXT_PATTERN}$")


# --- One attempt's working files -----------------------------------------------------------------


def run_prefix(gift_id: str, attempt: int) -> str:
    """Prefix of one attempt's working files: ``orders/{gift_id}/runs/{attempt}``."""
    return f"orders/{gift_id}/runs/{attempt}"


def run_key(gift_id: str, attempt: int, name: str) -> str:
    """Key of working file ``name`` (``/``-separated) of one attempt."""
    return f"{run_prefix(gift_id, attempt)}/{name}"


@dataclass(frozen=True)
class RunKeys:
    """The working files of one attempt, by what they hold."""

    gift_id: str
    attempt: int

    @property
    def prefix(self) -> str:
        """``orders/{gift_id}/runs/{attempt}``."""
        return run_prefix(self.gift_id, self.attempt)

    def key(self, name: str) -> str:
        """Key of working file ``name`` of this attempt."""
        return run_key(self.gift_id, self.attempt, name)

    def prepared_photo(self, photo_id: str) -> str:
        """A photo's upright sRGB working copy (prep)."""
        return self.key(f"prep/photos/{photo_id}.jpg")

    def prepared_clip(self, clip_id: str) -> str:
        """A clip's normalized mezzanine (prep)."""
        return self.key(f"prep/clips/{clip_id}.mp4")

    def restored_photo(self, photo_id: str) -> str:
        """A photo as the film shows it, restored per the tier (assets)."""
        return self.key(f"assets/photos/{photo_id}.jpg")

    @property
    def framing(self) -> str:
        """The subjects found on the restored photos (assets)."""
        return self.key("assets/framing.json")

    @property
    def restore_report(self) -> str:
        """What restoration did to each photo (assets)."""
        return self.key("assets/restore.json")

    @property
    def song(self) -> str:
        """The mastered song (assets)."""
        return self.key("assets/song.wav")

    @property
    def song_meta(self) -> str:
        """The song's beats, bars, sections and lyrics (assets)."""
        return self.key("assets/song.json")

    @property
    def logo(self) -> str:
        """The brand logo, fetched and checked (assets, brand style)."""
        return self.key(f"assets/{LOGO_NAME}")

    def motion_clip(self, photo_id: str) -> str:
        """A photo brought to motion by the motion provider, normalized (assets)."""
        return self.key(f"assets/motion/{photo_id}.mp4")

    @property
    def film_spec(self) -> str:
        """The film's spec, what its timeline was planned from (render)."""
        return self.key("render/spec.json")

    @property
    def timeline(self) -> str:
        """The film's planned timeline (render)."""
        return self.key("render/timeline.json")

    @property
    def soundtrack(self) -> str:
        """The song mixed with the clips' sound (render, when a clip shot has sound)."""
        return self.key("render/soundtrack.wav")

    def film(self, aspect: str) -> str:
        """The rendered film of ``aspect`` (``16x9``, ``9x16``) before delivery."""
        return self.key(f"render/{aspect}.mp4")

    def frame_signal(self, aspect: str) -> str:
        """What the frames of the film of ``aspect`` looked like as they were composed
        (render; :class:`media.frames.signal.FrameSignal` as ``.npz``), for verify."""
        return self.key(f"render/{aspect}.signal.npz")

    @property
    def poster(self) -> str:
        """The 16:9 poster made from the rendered landscape film."""
        return self.key(f"render/{POSTER_NAME}")

    @property
    def portrait_poster(self) -> str:
        """The 9:16 poster made from the rendered portrait film."""
        return self.key(f"render/{PORTRAIT_POSTER_NAME}")

    @property
    def render_manifest(self) -> str:
        """What the finished render stored, with checksums (written last; see
        :mod:`activities.resume`)."""
        return self.key("render/manifest.json")

    def segment_manifest(self, index: int) -> str:
        """What render segment ``index`` stored, with checksums (written last)."""
        return f"{self.segments_prefix}{index:03d}/manifest.json"

    @property
    def segments_prefix(self) -> str:
        """Prefix of the render segments' films (``.../render/segments/``)."""
        return self.key("render/segments/")

    def segment_film(self, index: int, aspect: str) -> str:
        """Segment ``index``'s film of ``aspect``, video only."""
        return f"{self.segments_prefix}{index:03d}/{aspect}.mp4"

    def segment_signal(self, index: int, aspect: str) -> str:
        """Segment ``index``'s frame signal of ``aspect`` (see :meth:`frame_signal`)."""
        return f"{self.segments_prefix}{index:03d}/{aspect}.signal.npz"


# --- Delivery and the local outcome sink ---------------------------------------------------------


def film_prefix(share_slug: str) -> str:
    """Prefix of the delivered, public folder: ``films/{share_slug}``."""
    return f"films/{share_slug}"


def film_key(share_slug: str, name: str) -> str:
    """Key of delivered file ``name`` (``16x9.mp4``, ``poster.jpg``, ``index.html``..)."""
    return f"{film_prefix(share_slug)}/{name}"


def film_name(aspect: str) -> str:
    """The delivered file name of the film of ``aspect``: ``{aspect}.mp4``."""
    return f"{aspect}.mp4"


def outcome_key(workflow_id: str) -> str:
    """Key of the local outcome sink's JSON file for one run."""
    return f"outcomes/{workflow_id}.json"
