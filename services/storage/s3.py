"""The S3 storage backend (``s3://bucket/prefix``) through boto3.

``AWS_ENDPOINT_URL`` (or ``AWS_ENDPOINT_URL_S3``) points it at MinIO or an emulator, which then
gets path-style addressing. boto3 is imported only when an S3 storage is opened.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from services.storage.base import (
    CHUNK_BYTES,
    Storage,
    StorageError,
    StorageKeyMissing,
    StorageUnavailable,
    check_size,
    guess_content_type,
    hash_stream,
    read_bounded,
    temp_beside,
    validate_key,
    validate_prefix,
)

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
            tmp = temp_beside(dest)
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
                check_size(key, int(response.get("ContentLength", 0)), max_bytes)
                return read_bounded(body, key, max_bytes)
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
                return hash_stream(body.iter_chunks(CHUNK_BYTES))
            finally:
                body.close()

    def _default_url(self, key: str) -> str:
        return f"s3://{self.bucket}/{quote(self.object_key(key), safe='/')}"
