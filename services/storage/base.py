"""Object storage: the interface, its errors and key rules, and what both backends share.

Keys are ``/``-separated relative strings (``orders/g1/photos/p01.jpg``; the layout is in
:mod:`workflows.keys`). :func:`validate_key` refuses anything that could escape the root or
prefix. Errors are classified for activities:

- :class:`StorageKeyMissing` (a ``KeyError``): the object is not there;
- :class:`StorageUnavailable`: a backend or network fault, our fault, worth retrying;
- :class:`InvalidStorageKey` / :class:`StorageObjectTooLarge` (``ValueError``): refused input;
- :class:`StorageError`: the base of all of these (e.g. a bucket that does not exist).

Writes are whole-object and idempotent: writing a key again replaces it, so a retried activity
overwrites instead of duplicating, and readers never see a half-written object.
"""

from __future__ import annotations

import contextlib
import hashlib
import mimetypes
import os
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

KEY_MAX_CHARS = 1024
CHUNK_BYTES = 1024 * 1024
TMP_PREFIX = ".storage-tmp-"
DEFAULT_CONTENT_TYPE = "application/octet-stream"


# --- Errors --------------------------------------------------------------------------------------


class StorageError(Exception):
    """Base of every storage error."""


class StorageKeyMissing(StorageError, KeyError):
    """The object does not exist."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "storage key missing"


class StorageUnavailable(StorageError):
    """The backend could not be reached or failed (network, 5xx, local I/O): retry."""


class InvalidStorageKey(StorageError, ValueError):
    """The key is not a safe relative ``/``-separated path."""


class StorageObjectTooLarge(StorageError, ValueError):
    """The object is larger than the caller allows."""


# --- Keys ----------------------------------------------------------------------------------------


def _check_segments(text: str, what: str) -> None:
    if len(text) > KEY_MAX_CHARS:
        raise InvalidStorageKey(f"{what} longer than {KEY_MAX_CHARS} characters")
    if text.startswith("/"):
        raise InvalidStorageKey(f"{what} must be relative: {text!r}")
    if "\\" in text or any(ord(ch) < 32 or ch == "\x7f" for ch in text):
        raise InvalidStorageKey(f"{what} contains a backslash or control character: {text!r}")
    for segment in text.split("/"):
        if segment in ("", ".", ".."):
            raise InvalidStorageKey(f"{what} has an empty, '.' or '..' segment: {text!r}")
        if segment.startswith(TMP_PREFIX):
            raise InvalidStorageKey(f"{what} uses the reserved prefix {TMP_PREFIX!r}: {text!r}")


def validate_key(key: str) -> str:
    """Return ``key`` if it is a safe relative key, else raise :class:`InvalidStorageKey`."""
    if not isinstance(key, str) or not key:
        raise InvalidStorageKey(f"key must be a non-empty string: {key!r}")
    _check_segments(key, "key")
    return key


def validate_prefix(prefix: str) -> str:
    """Return ``prefix`` if it is empty or a safe key prefix (a trailing ``/`` is allowed)."""
    if not isinstance(prefix, str):
        raise InvalidStorageKey(f"prefix must be a string: {prefix!r}")
    if prefix:
        _check_segments(prefix.removesuffix("/"), "prefix")
    return prefix


def guess_content_type(key: str) -> str:
    """Content type from the key's extension, ``application/octet-stream`` when unknown."""
    return mimetypes.guess_type(key, strict=False)[0] or DEFAULT_CONTENT_TYPE


# --- Interface -----------------------------------------------------------------------------------


class Storage(ABC):
    """Whole-object storage addressed by relative keys."""

    def __init__(self, public_base_url: str | None = None) -> None:
        self.public_base_url = public_base_url.rstrip("/") if public_base_url else None

    @abstractmethod
    def put_file(self, key: str, path: Path | str, content_type: str | None = None) -> None:
        """Store the local file at ``path`` under ``key``, replacing any previous object."""

    @abstractmethod
    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None:
        """Store ``data`` under ``key``, replacing any previous object."""

    @abstractmethod
    def get_file(self, key: str, dest: Path | str) -> Path:
        """Stream the object to ``dest`` (via a temp file and a rename); return ``dest``."""

    @abstractmethod
    def get_bytes(self, key: str, max_bytes: int) -> bytes:
        """The object's bytes; :class:`StorageObjectTooLarge` if it exceeds ``max_bytes``."""

    @abstractmethod
    def exists(self, key: str) -> bool:
        """Whether an object is stored under ``key``."""

    @abstractmethod
    def size(self, key: str) -> int:
        """The object's size in bytes."""

    @abstractmethod
    def list(self, prefix: str = "") -> list[str]:
        """Sorted keys that start with ``prefix`` (a plain string prefix)."""

    @abstractmethod
    def delete(self, key: str) -> None:
        """Remove the object; deleting a missing key is not an error (idempotent)."""

    @abstractmethod
    def sha256(self, key: str) -> str:
        """Hex SHA-256 of the object's bytes, streamed."""

    def public_url(self, key: str) -> str:
        """The URL the object is served at: ``public_base_url/key``, or a backend default."""
        validate_key(key)
        if self.public_base_url:
            return f"{self.public_base_url}/{quote(key, safe='/')}"
        return self._default_url(key)

    @abstractmethod
    def _default_url(self, key: str) -> str:
        """The object's URL when no public base URL is configured."""


def feed_digest(digest: hashlib._Hash, stream: IO[bytes] | Iterator[bytes]) -> hashlib._Hash:
    """Feed a file object or chunk iterator into ``digest`` a chunk at a time (bounded memory)."""
    chunks = iter(lambda: stream.read(CHUNK_BYTES), b"") if hasattr(stream, "read") else stream
    for chunk in chunks:
        digest.update(chunk)
    return digest


def hash_stream(stream: IO[bytes] | Iterator[bytes]) -> str:
    return feed_digest(hashlib.sha256(), stream).hexdigest()


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a local file, streamed (as :meth:`Storage.sha256` hashes an object)."""
    with path.open("rb") as handle:
        return hash_stream(handle)


def read_bounded(stream: IO[bytes], key: str, max_bytes: int) -> bytes:
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise StorageObjectTooLarge(f"{key}: larger than {max_bytes} bytes")
    return data


def check_size(key: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise StorageObjectTooLarge(f"{key}: {size} bytes, more than {max_bytes}")


def atomic_write(dest: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write ``dest`` through a temp file in its directory and ``os.replace``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=TMP_PREFIX)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), 0o644)
            write(fh)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def temp_beside(dest: Path) -> Path:
    """A fresh empty temp file next to ``dest`` (same filesystem, so a rename is atomic)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=TMP_PREFIX)
    os.close(fd)
    return Path(tmp)
