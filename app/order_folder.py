"""Local order folders: ``order.json`` plus ``photos/`` and ``clips/``, uploaded to storage and
turned into the ``FilmOrder`` the order API would send."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from activities.context import StageContext
from services.settings import Settings
from services.storage.base import Storage, feed_digest
from workflows.contract import FilmOrder
from workflows.keys import CLIPS, PHOTOS, media_key

PHOTO_SUFFIXES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png",
                  ".webp": "image/webp"}
CLIP_SUFFIXES = {".mp4": "video/mp4", ".mov": "video/quicktime", ".webm": "video/webm"}


def _files(folder: Path, suffixes: dict[str, str]) -> list[Path]:
    """The files of ``folder`` with one of ``suffixes``, in name order."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in suffixes and p.is_file())


def _upload_media(storage: Storage, gift_id: str, folder: str, slot_prefix: str,
                  files: list[Path], suffixes: dict[str, str]) -> list[dict[str, str]]:
    """Upload ``files`` to their slots (``p01``.. or ``c01``..) as the order API would."""
    refs = []
    for index, path in enumerate(files, start=1):
        slot, mime = f"{slot_prefix}{index:02d}", suffixes[path.suffix.lower()]
        key = media_key(gift_id, folder, slot, path.suffix.lower().removeprefix("."))
        storage.put_file(key, path, content_type=mime)
        refs.append({"id": slot, "key": key, "mime": mime})
    return refs


def load_order_folder(folder: Path, settings: Settings, gift_id: str | None = None) -> FilmOrder:
    """Upload an order folder's media to storage and build its FilmOrder.

    ``order.json`` holds the FilmOrder fields minus ids, keys and media lists; ``subject_photo``
    may name a file in ``photos/``. Photos and clips are taken in name order. The gift id
    defaults to one derived from the folder's content.
    """
    fields: dict[str, Any] = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    photos, clips = _files(folder / "photos", PHOTO_SUFFIXES), _files(folder / "clips",
                                                                       CLIP_SUFFIXES)
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode())
    for path in photos + clips:
        digest.update(path.name.encode())
        with path.open("rb") as media:  # streamed: a clip may be hundreds of MB
            feed_digest(digest, media)
    gift_id = gift_id or fields.pop("gift_id", f"local{digest.hexdigest()[:12]}")
    storage = StageContext.from_settings(settings).storage
    photo_refs = _upload_media(storage, gift_id, PHOTOS, "p", photos, PHOTO_SUFFIXES)
    clip_refs = _upload_media(storage, gift_id, CLIPS, "c", clips, CLIP_SUFFIXES)
    subject_name = fields.pop("subject_photo", None)
    subject_id = next((ref["id"] for ref, path in zip(photo_refs, photos, strict=True)
                       if path.name == subject_name), None)
    fields.setdefault("attempt", 1)
    fields.setdefault("charge_id", f"local-charge-{gift_id}")
    fields.setdefault("share_slug", f"s{digest.hexdigest()[12:28]}")
    fields.setdefault("consent", {"accepted": True, "at": datetime.now(UTC).isoformat()})
    return FilmOrder.model_validate({**fields, "gift_id": gift_id, "photos": photo_refs,
                                     "clips": clip_refs, "subject_photo_id": subject_id})
