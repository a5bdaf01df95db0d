"""Local order folders: ``order.json`` plus ``photos/`` and ``clips/``, uploaded to storage and
turned into the ``FilmOrder`` the order API would send."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
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


class OrderFolderError(ValueError):
    """The folder is not an order folder (no ``order.json``, or not JSON)."""


@dataclass(frozen=True)
class Upload:
    """One media file of the folder and the storage key the order API would give it."""

    path: Path
    key: str
    mime: str


def _media_refs(gift_id: str, folder: str, slot_prefix: str, files: list[Path],
                suffixes: dict[str, str]) -> tuple[list[dict[str, str]], list[Upload]]:
    """The refs of ``files`` in their slots (``p01``.. or ``c01``..) and their uploads."""
    refs, uploads = [], []
    for index, path in enumerate(files, start=1):
        slot, mime = f"{slot_prefix}{index:02d}", suffixes[path.suffix.lower()]
        key = media_key(gift_id, folder, slot, path.suffix.lower().removeprefix("."))
        refs.append({"id": slot, "key": key, "mime": mime})
        uploads.append(Upload(path, key, mime))
    return refs, uploads


def _read_order_json(folder: Path) -> dict[str, Any]:
    path = folder / "order.json"
    if not path.is_file():
        raise OrderFolderError(f"{folder} is not an order folder: {path} is missing")
    try:
        fields = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise OrderFolderError(f"{path} is not valid JSON: {error}") from error
    if not isinstance(fields, dict):
        raise OrderFolderError(f"{path} must hold a JSON object")
    return fields


def read_order_folder(folder: Path, gift_id: str | None = None, *, attempt: int | None = None
                      ) -> tuple[FilmOrder, list[Upload]]:
    """The folder's FilmOrder, validated, and the uploads it needs (nothing uploaded yet).

    ``order.json`` holds the FilmOrder fields minus ids, keys and media lists; ``subject_photo``
    may name a file in ``photos/``. Photos and clips are taken in name order. The gift id
    defaults to one derived from the folder's content, ``attempt`` to the folder's (else 1);
    the attempt does not change the derived gift id. Raises :class:`OrderFolderError` or
    pydantic's ``ValidationError``.
    """
    fields = _read_order_json(folder)
    photos, clips = _files(folder / "photos", PHOTO_SUFFIXES), _files(folder / "clips",
                                                                       CLIP_SUFFIXES)
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode())
    for path in photos + clips:
        digest.update(path.name.encode())
        with path.open("rb") as media:  # streamed: a clip may be hundreds of MB
            feed_digest(digest, media)
    gift_id = gift_id or fields.pop("gift_id", f"local{digest.hexdigest()[:12]}")
    photo_refs, photo_uploads = _media_refs(gift_id, PHOTOS, "p", photos, PHOTO_SUFFIXES)
    clip_refs, clip_uploads = _media_refs(gift_id, CLIPS, "c", clips, CLIP_SUFFIXES)
    subject_name = fields.pop("subject_photo", None)
    subject_id = next((ref["id"] for ref, path in zip(photo_refs, photos, strict=True)
                       if path.name == subject_name), None)
    if attempt is not None:
        fields["attempt"] = attempt
    fields.setdefault("attempt", 1)
    fields.setdefault("charge_id", f"local-charge-{gift_id}")
    fields.setdefault("share_slug", f"s{digest.hexdigest()[12:28]}")
    fields.setdefault("consent", {"accepted": True, "at": datetime.now(UTC).isoformat()})
    order = FilmOrder.model_validate({**fields, "gift_id": gift_id, "photos": photo_refs,
                                      "clips": clip_refs, "subject_photo_id": subject_id})
    return order, photo_uploads + clip_uploads


def upload_media(storage: Storage, uploads: list[Upload]) -> None:
    """Put the folder's media where the order names them, as the order API would."""
    for upload in uploads:
        storage.put_file(upload.key, upload.path, content_type=upload.mime)


def load_order_folder(folder: Path, settings: Settings, gift_id: str | None = None) -> FilmOrder:
    """Validate an order folder, then upload its media to storage; its FilmOrder."""
    order, uploads = read_order_folder(folder, gift_id)
    upload_media(StageContext.from_settings(settings).storage, uploads)
    return order
