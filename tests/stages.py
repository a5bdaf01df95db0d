"""Helpers for calling stage functions directly, without Temporal (pytest-free).

``run_prep`` / ``run_gate`` are plain functions of a :class:`StageContext` and their input; these
helpers build both on a real local storage, and show what Temporal would make of an exception an
activity raises (through the real failure converter, not a guess).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from temporalio.api.failure.v1 import Failure
from temporalio.converter import DataConverter
from temporalio.exceptions import ApplicationError

from activities.context import StageContext
from services.settings import Settings
from services.storage.base import Storage
from services.storage.local import LocalStorage
from workflows.contract import FilmOrder
from workflows.keys import clip_key, photo_key
from workflows.stages import HOLD_ERROR_TYPE

PHOTO_MIME = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp"}
CLIP_MIME = {"mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm"}


def local_context(root: Path, storage: Storage | None = None, **settings: Any) -> StageContext:
    """A stage context on ``root/storage`` (or ``storage``) with scratch under ``root/work``."""
    store = storage if storage is not None else LocalStorage(root / "storage")
    values = {"FILM_STORAGE_URL": (root / "storage").as_uri(), "FILM_WORK_DIR": root / "work",
              **settings}
    return StageContext(Settings(**values), store)


def order_with_media(gift_id: str, photos: Sequence[tuple[str, str]],
                     clips: Sequence[tuple[str, str]] = (), **fields: Any) -> FilmOrder:
    """A valid order whose media are ``(slot id, extension)`` pairs, e.g. ``("p01", "png")``.

    The declared mime follows the extension when it is an accepted one (the API trusts names);
    any other extension is declared as JPEG / MP4, as a lying upload would be.
    """
    values: dict[str, Any] = {
        "gift_id": gift_id, "attempt": 1, "charge_id": "ch_test", "share_slug": f"s{gift_id}",
        "tier": "standard", "style": "gift",
        "occasion": {"slug": "birthday", "name": "Birthday", "short_name": "Birthday",
                     "tone": "joyful"},
        "recipient_name": "Ada", "relationship": "sister", "length_sec": 30,
        "photos": [{"id": pid, "key": photo_key(gift_id, pid, ext),
                    "mime": PHOTO_MIME.get(ext, "image/jpeg")} for pid, ext in photos],
        "clips": [{"id": cid, "key": clip_key(gift_id, cid, ext),
                   "mime": CLIP_MIME.get(ext, "video/mp4")} for cid, ext in clips],
        "consent": {"accepted": True, "at": datetime(2026, 11, 21, tzinfo=UTC).isoformat()},
    }
    values.update(fields)
    return FilmOrder.model_validate(values)


def as_temporal_failure(exc: BaseException) -> ApplicationError:
    """The error a workflow sees when an activity raises ``exc`` (Temporal's own converter)."""
    converter = DataConverter.default
    failure = Failure()
    converter.failure_converter.to_failure(exc, converter.payload_converter, failure)
    seen = converter.failure_converter.from_failure(failure, converter.payload_converter)
    assert isinstance(seen, ApplicationError), seen
    return seen


def ends_failed(exc: BaseException, *, retried: bool = True) -> bool:
    """Whether ``exc`` ends the run failed, not held: our fault, retried first (``retried``) or
    failed at once (a configuration error)."""
    seen = as_temporal_failure(exc)
    return seen.type != HOLD_ERROR_TYPE and seen.non_retryable is not retried


def is_hold(exc: BaseException, reason: str) -> bool:
    """Whether ``exc`` ends the run held with ``reason`` (non-retryable CustomerHold)."""
    seen = as_temporal_failure(exc)
    return (seen.type == HOLD_ERROR_TYPE and seen.non_retryable
            and list(seen.details) == [reason])
