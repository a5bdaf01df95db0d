"""A finished render survives a lost completion.

When the Temporal server is away while a render finishes, the worker's completion can be
dropped after its retries; the server then times out the heartbeat and runs the render again.
So each render activity, once it has stored everything, writes a manifest under the run's
deterministic keys (last, so its presence means the set is complete): the checksum and size of
every object it stored, the fingerprint of its inputs and its result. The same activity of the
same attempt, run again, first reads that manifest and, when the fingerprint matches and every
object still has its checksum, returns the recorded result instead of rendering again.
Anything else (no manifest, other inputs, a missing or changed object, a manifest it cannot
read) renders as before.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from services.storage.base import Storage, StorageKeyMissing, file_sha256

MANIFEST_VERSION = 1
MANIFEST_MAX_BYTES = 1 << 20

Result = TypeVar("Result", bound=BaseModel)


def fingerprint(activity_input: BaseModel, storage: Storage, *input_keys: str,
                extra: str = "") -> str:
    """What a render's output depends on: its input as recorded, the bytes of the stored
    objects it reads by key (the timeline, the soundtrack: a re-run plan may rewrite them) and
    ``extra`` (settings that change the encode)."""
    digest = hashlib.sha256(activity_input.model_dump_json().encode())
    for key in input_keys:
        digest.update(f"\0{key}={storage.sha256(key)}".encode())
    digest.update(f"\0{extra}".encode())
    return digest.hexdigest()


class StoredSet:
    """The objects one render stores, with their checksums, for its manifest."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.files: dict[str, dict[str, Any]] = {}

    def put_file(self, key: str, path: Path, content_type: str) -> None:
        """Store ``path`` under ``key`` and remember its checksum and size."""
        self.storage.put_file(key, path, content_type=content_type)
        self.files[key] = {"sha256": file_sha256(path), "bytes": path.stat().st_size}

    def put_bytes(self, key: str, data: bytes, content_type: str) -> None:
        """Store ``data`` under ``key`` and remember its checksum and size."""
        self.storage.put_bytes(key, data, content_type)
        self.files[key] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}

    def seal(self, manifest_key: str, inputs: str, result: BaseModel) -> None:
        """Write the manifest (last): the set is complete."""
        manifest = {"version": MANIFEST_VERSION, "inputs": inputs, "files": self.files,
                    "result": result.model_dump(mode="json")}
        self.storage.put_bytes(manifest_key, json.dumps(manifest, indent=1).encode(),
                               "application/json")


def forget(storage: Storage, manifest_key: str) -> None:
    """Remove a manifest before its objects are written again (none: nothing to do)."""
    storage.delete(manifest_key)


def finished(storage: Storage, manifest_key: str, inputs: str,
             result_type: type[Result]) -> Result | None:
    """The recorded result of a finished render of the same inputs whose every object is
    still there with its checksum; None otherwise (render it)."""
    try:
        manifest = json.loads(storage.get_bytes(manifest_key, MANIFEST_MAX_BYTES))
    except StorageKeyMissing:
        return None
    except ValueError:  # not JSON, too large: render again (and overwrite it)
        return None
    if not isinstance(manifest, dict) or manifest.get("version") != MANIFEST_VERSION \
            or manifest.get("inputs") != inputs or not isinstance(manifest.get("files"), dict):
        return None
    for key, expected in manifest["files"].items():
        try:
            if storage.size(key) != expected.get("bytes") \
                    or storage.sha256(key) != expected.get("sha256"):
                return None
        except (StorageKeyMissing, AttributeError):
            return None
    try:
        return result_type.model_validate(manifest.get("result"))
    except ValidationError:
        return None
