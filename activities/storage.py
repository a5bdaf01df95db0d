"""Object storage: one interface, two backends, chosen by URL.

``file:///abs/path`` is a local directory (:class:`LocalStorage`, the default for local runs);
``s3://bucket/prefix`` is S3 through boto3 (:class:`S3Storage`; ``AWS_ENDPOINT_URL`` points it
at MinIO or an emulator, which then gets path-style addressing).

Keys are ``/``-separated relative strings (``orders/g1/photos/p01.jpg``). :func:`validate_key`
refuses anything that could escape the root or prefix. Errors are classified for activities:

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
import shutil
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote, unquote, urlsplit

__all__ = [
    "InvalidStorageKey",
    "LocalStorage",
    "S3Storage",
    "Storage",
    "StorageError",
    "StorageKeyMissing",
    "StorageObjectTooLarge",
    "StorageUnavailable",
    "open_storage",
    "validate_key",
]

KEY_MAX_CHARS = 1024
CHUNK_BYTES = 1024 * 1024
TMP_PREFIX = ".storage-tmp-"
DEFAULT_CONTENT_TYPE = "application/octet-stream"
DEFAULT_REGION = "us-east-1"
_MISSING_CODES = frozenset({"404", "NoSuchKey", "NotFound"})
_TRANSIENT_CODES = frozenset(
    {
        "InternalError",
        "RequestTimeout",
        "RequestTimeTooSkewed",
        "ServiceUnavailable",
        "SlowDown",
        "Throttling",
        "ThrottlingException",
    }
)


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


def _hash_stream(stream: IO[bytes] | Iterator[bytes]) -> str:
    return feed_digest(hashlib.sha256(), stream).hexdigest()


def _read_bounded(stream: IO[bytes], key: str, max_bytes: int) -> bytes:
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise StorageObjectTooLarge(f"{key}: larger than {max_bytes} bytes")
    return data


def _check_size(key: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise StorageObjectTooLarge(f"{key}: {size} bytes, more than {max_bytes}")


def _atomic_write(dest: Path, write: Callable[[IO[bytes]], Any]) -> None:
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


def _temp_beside(dest: Path) -> Path:
    """A fresh empty temp file next to ``dest`` (same filesystem, so a rename is atomic)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=TMP_PREFIX)
    os.close(fd)
    return Path(tmp)


# --- Local directory -----------------------------------------------------------------------------


@contextlib.contextmanager
def _local_faults(key: str, *, writing: bool = False) -> Iterator[None]:
    """Map local I/O errors: reading a missing file is a missing key, the rest is unavailable."""
    try:
        yield
    except StorageError:
        raise
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
        if writing:
            raise StorageUnavailable(f"{key}: local storage failed: {exc}") from exc
        raise StorageKeyMissing(f"{key}: no such object") from exc
    except OSError as exc:
        raise StorageUnavailable(f"{key}: local storage failed: {exc}") from exc


class LocalStorage(Storage):
    """Objects as files below a root directory; writes are atomic (temp file + rename)."""

    def __init__(self, root: Path | str, *, public_base_url: str | None = None) -> None:
        super().__init__(public_base_url)
        root = Path(root)
        if not root.is_absolute():
            raise ValueError(f"local storage root must be absolute: {root}")
        self.root = root
        self._real_root = os.path.realpath(root)

    def __repr__(self) -> str:
        return f"LocalStorage({str(self.root)!r})"

    def path(self, key: str) -> Path:
        """The local path of ``key``; never outside the root, even through symlinks."""
        path = self.root.joinpath(*validate_key(key).split("/"))
        if not self._inside_root(path):
            raise InvalidStorageKey(f"key resolves outside the storage root: {key!r}")
        return path

    def _inside_root(self, path: Path) -> bool:
        """Whether ``path``, symlinks resolved, lies strictly below the root."""
        return os.path.realpath(path).startswith(self._real_root.rstrip(os.sep) + os.sep)

    def put_file(self, key: str, path: Path | str, content_type: str | None = None) -> None:
        """Copy the file at ``path`` under ``key`` atomically (``content_type`` is unused)."""
        dest = self.path(key)
        with open(path, "rb") as src, _local_faults(key, writing=True):
            _atomic_write(dest, lambda fh: shutil.copyfileobj(src, fh, CHUNK_BYTES))

    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None:
        """Write ``data`` under ``key`` atomically (``content_type`` is unused)."""
        dest = self.path(key)
        with _local_faults(key, writing=True):
            _atomic_write(dest, lambda fh: fh.write(data))

    def get_file(self, key: str, dest: Path | str) -> Path:
        """Copy the object to ``dest`` via a temp file and a rename."""
        src_path, dest = self.path(key), Path(dest)
        with _local_faults(key), open(src_path, "rb") as src:
            try:
                _atomic_write(dest, lambda fh: shutil.copyfileobj(src, fh, CHUNK_BYTES))
            except OSError as exc:  # the destination side: a local fault, not a missing key
                raise StorageUnavailable(f"{key}: cannot write {dest}: {exc}") from exc
        return dest

    def get_bytes(self, key: str, max_bytes: int) -> bytes:
        """The object's bytes, refusing objects larger than ``max_bytes``."""
        path = self.path(key)
        with _local_faults(key), open(path, "rb") as fh:
            _check_size(key, os.fstat(fh.fileno()).st_size, max_bytes)
            return _read_bounded(fh, key, max_bytes)

    def exists(self, key: str) -> bool:
        """Whether a file is stored under ``key``."""
        path = self.path(key)
        with _local_faults(key):
            return path.is_file()

    def size(self, key: str) -> int:
        """The object's size in bytes."""
        path = self.path(key)
        with _local_faults(key):
            if not path.is_file():
                raise StorageKeyMissing(f"{key}: no such object")
            return path.stat().st_size

    def list(self, prefix: str = "") -> list[str]:
        """Sorted keys starting with ``prefix``; in-flight temp files are never listed."""
        validate_prefix(prefix)
        base = self.root.joinpath(*prefix.split("/")[:-1]) if prefix else self.root
        if base != self.root and not self._inside_root(base):
            return []
        keys: list[str] = []
        with _local_faults(prefix):
            for dirpath, _dirs, files in os.walk(base):
                rel = Path(dirpath).relative_to(self.root).as_posix()
                for name in files:
                    key = name if rel == "." else f"{rel}/{name}"
                    if not name.startswith(TMP_PREFIX) and key.startswith(prefix):
                        keys.append(key)
        return sorted(keys)

    def delete(self, key: str) -> None:
        """Remove the file; a missing key is fine."""
        path = self.path(key)
        with _local_faults(key, writing=True), contextlib.suppress(FileNotFoundError):
            path.unlink()

    def sha256(self, key: str) -> str:
        """Hex SHA-256 of the file, streamed."""
        path = self.path(key)
        with _local_faults(key), open(path, "rb") as fh:
            return _hash_stream(fh)

    def _default_url(self, key: str) -> str:
        return self.root.joinpath(*key.split("/")).as_uri()


# --- S3 ------------------------------------------------------------------------------------------


def _client_error_to_storage(exc: Any, key: str) -> StorageError:
    """Classify a botocore ``ClientError``."""
    error = exc.response.get("Error", {})
    code = str(error.get("Code", ""))
    status = int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
    if code in _MISSING_CODES:
        return StorageKeyMissing(f"{key}: no such object")
    if status >= 500 or status == 429 or code in _TRANSIENT_CODES:
        return StorageUnavailable(f"{key}: S3 answered {status} {code}")
    return StorageError(f"{key}: S3 refused the request: {status} {code}")


def _s3_error(exc: BaseException, key: str) -> StorageError | None:
    """The storage error for a boto3/botocore/OS exception, or None if it is not one of those."""
    from boto3.exceptions import Boto3Error
    from botocore.exceptions import BotoCoreError, ClientError

    if isinstance(exc, ClientError):
        return _client_error_to_storage(exc, key)
    if isinstance(exc, Boto3Error):  # upload/download wrappers: classify what they wrap
        inner = exc.__cause__ or exc.__context__ or getattr(exc, "last_exception", None)
        wrapped = _s3_error(inner, key) if inner is not None else None
        return wrapped or StorageUnavailable(f"{key}: S3 transfer failed: {exc}")
    if isinstance(exc, BotoCoreError | OSError):
        return StorageUnavailable(f"{key}: S3 unavailable: {exc}")
    return None


@contextlib.contextmanager
def _s3_faults(key: str) -> Iterator[None]:
    try:
        yield
    except StorageError:
        raise
    except Exception as exc:
        mapped = _s3_error(exc, key)
        if mapped is None:
            raise
        raise mapped from exc


def _endpoint_from_env() -> str | None:
    return os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or None


def make_s3_client(endpoint_url: str | None = None, config: Any | None = None) -> Any:
    """A thread-safe S3 client: own session, bounded timeouts, path-style for emulators.

    ``endpoint_url`` defaults to ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL`` (boto3 reads
    them itself); the region defaults to us-east-1. ``config`` (a ``botocore.config.Config``)
    is merged over the defaults.
    """
    import boto3
    from botocore.config import Config

    custom_endpoint = endpoint_url or _endpoint_from_env()
    session = boto3.session.Session()
    base = Config(
        connect_timeout=10,
        read_timeout=60,
        retries={"mode": "standard", "max_attempts": 4},
        s3={"addressing_style": "path" if custom_endpoint else "auto"},
    )
    return session.client(
        "s3",
        region_name=session.region_name or DEFAULT_REGION,
        endpoint_url=endpoint_url,
        config=base.merge(config) if config is not None else base,
    )


class S3Storage(Storage):
    """Objects in an S3 bucket below an optional prefix."""

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        public_base_url: str | None = None,
        client: Any | None = None,
        endpoint_url: str | None = None,
        config: Any | None = None,
    ) -> None:
        super().__init__(public_base_url)
        if not bucket or "/" in bucket:
            raise ValueError(f"invalid bucket name: {bucket!r}")
        prefix = prefix.strip("/")
        if prefix:
            validate_key(prefix)
        self.bucket = bucket
        self.prefix = prefix
        self.client = client if client is not None else make_s3_client(endpoint_url, config)

    def __repr__(self) -> str:
        return f"S3Storage({self.bucket!r}, {self.prefix!r})"

    def object_key(self, key: str) -> str:
        """The full S3 object key of a storage key."""
        validate_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def put_file(self, key: str, path: Path | str, content_type: str | None = None) -> None:
        """Upload the file at ``path`` (multipart when large)."""
        if not Path(path).is_file():
            raise FileNotFoundError(path)
        extra = {"ContentType": content_type or guess_content_type(key)}
        with _s3_faults(key):
            self.client.upload_file(str(path), self.bucket, self.object_key(key), extra)

    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None:
        """Upload ``data`` in one request."""
        object_key = self.object_key(key)
        with _s3_faults(key):
            self.client.put_object(
                Bucket=self.bucket,
                Key=object_key,
                Body=data,
                ContentType=content_type or guess_content_type(key),
            )

    def get_file(self, key: str, dest: Path | str) -> Path:
        """Download to a temp file beside ``dest`` (streamed), then rename it into place."""
        object_key, dest = self.object_key(key), Path(dest)
        with _s3_faults(key):
            tmp = _temp_beside(dest)
            try:
                self.client.download_file(self.bucket, object_key, str(tmp))
                os.replace(tmp, dest)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
        return dest

    def get_bytes(self, key: str, max_bytes: int) -> bytes:
        """The object's bytes, refusing objects larger than ``max_bytes``."""
        object_key = self.object_key(key)
        with _s3_faults(key):
            response = self.client.get_object(Bucket=self.bucket, Key=object_key)
            body = response["Body"]
            try:
                _check_size(key, int(response.get("ContentLength", 0)), max_bytes)
                return _read_bounded(body, key, max_bytes)
            finally:
                body.close()

    def _head(self, key: str) -> dict[str, Any]:
        object_key = self.object_key(key)
        with _s3_faults(key):
            return self.client.head_object(Bucket=self.bucket, Key=object_key)

    def exists(self, key: str) -> bool:
        """Whether the object exists (a HEAD request)."""
        try:
            self._head(key)
        except StorageKeyMissing:
            return False
        return True

    def size(self, key: str) -> int:
        """The object's size in bytes (a HEAD request)."""
        return int(self._head(key)["ContentLength"])

    def list(self, prefix: str = "") -> list[str]:
        """Sorted keys starting with ``prefix``, paginated."""
        validate_prefix(prefix)
        base = f"{self.prefix}/" if self.prefix else ""
        keys: list[str] = []
        with _s3_faults(prefix):
            paginator = self.client.get_paginator("list_objects_v2")
            for page in paginator.paginate(Bucket=self.bucket, Prefix=base + prefix):
                keys.extend(item["Key"][len(base) :] for item in page.get("Contents", []))
        return sorted(keys)

    def delete(self, key: str) -> None:
        """Delete the object (S3 deletes of missing keys succeed)."""
        object_key = self.object_key(key)
        with _s3_faults(key):
            self.client.delete_object(Bucket=self.bucket, Key=object_key)

    def sha256(self, key: str) -> str:
        """Hex SHA-256 of the object, streamed in 1 MiB chunks."""
        object_key = self.object_key(key)
        with _s3_faults(key):
            body = self.client.get_object(Bucket=self.bucket, Key=object_key)["Body"]
            try:
                return _hash_stream(body.iter_chunks(CHUNK_BYTES))
            finally:
                body.close()

    def _default_url(self, key: str) -> str:
        return f"s3://{self.bucket}/{quote(self.object_key(key), safe='/')}"


# --- Factory -------------------------------------------------------------------------------------


def open_storage(
    url: str, *, public_base_url: str | None = None, s3_config: Any | None = None
) -> Storage:
    """The storage named by ``url``: ``file:///abs/path`` or ``s3://bucket/prefix``.

    ``s3_config`` (a ``botocore.config.Config``) is merged over the S3 client defaults, e.g.
    shorter timeouts in tests.
    """
    parts = urlsplit(url)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"file storage URL must be local: {url!r}")
        return LocalStorage(unquote(parts.path), public_base_url=public_base_url)
    if parts.scheme == "s3":
        return S3Storage(
            parts.netloc,
            unquote(parts.path),
            public_base_url=public_base_url,
            config=s3_config,
        )
    raise ValueError(f"unsupported storage URL {url!r}: use file:///abs/path or s3://bucket/prefix")
