"""Object storage: one interface, two backends, chosen by URL.

``file:///abs/path`` is a local directory (:class:`services.storage.local.LocalStorage`, the
default for local runs); ``s3://bucket/prefix`` is S3 through boto3
(:class:`services.storage.s3.S3Storage`). The interface, its errors and the key rules are in
:mod:`services.storage.base`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from services.storage.base import Storage
from services.storage.local import LocalStorage
from services.storage.s3 import S3Storage


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
