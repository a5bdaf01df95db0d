"""The local-directory storage backend (``file:///abs/path``): objects as files below a root."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from services.storage.base import (
    CHUNK_BYTES,
    TMP_PREFIX,
    InvalidStorageKey,
    Storage,
    StorageError,
    StorageKeyMissing,
    StorageUnavailable,
    atomic_write,
    check_size,
    hash_stream,
    read_bounded,
    validate_key,
    validate_prefix,
)


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
            atomic_write(dest, lambda fh: shutil.copyfileobj(src, fh, CHUNK_BYTES))

    def put_bytes(self, key: str, data: bytes, content_type: str | None = None) -> None:
        """Write ``data`` under ``key`` atomically (``content_type`` is unused)."""
        dest = self.path(key)
        with _local_faults(key, writing=True):
            atomic_write(dest, lambda fh: fh.write(data))

    def get_file(self, key: str, dest: Path | str) -> Path:
        """Copy the object to ``dest`` via a temp file and a rename."""
        src_path, dest = self.path(key), Path(dest)
        with _local_faults(key), open(src_path, "rb") as src:
            try:
                atomic_write(dest, lambda fh: shutil.copyfileobj(src, fh, CHUNK_BYTES))
            except OSError as exc:  # the destination side: a local fault, not a missing key
                raise StorageUnavailable(f"{key}: cannot write {dest}: {exc}") from exc
        return dest

    def get_bytes(self, key: str, max_bytes: int) -> bytes:
        """The object's bytes, refusing objects larger than ``max_bytes``."""
        path = self.path(key)
        with _local_faults(key), open(path, "rb") as fh:
            check_size(key, os.fstat(fh.fileno()).st_size, max_bytes)
            return read_bounded(fh, key, max_bytes)

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
            return hash_stream(fh)

    def _default_url(self, key: str) -> str:
        return self.root.joinpath(*key.split("/")).as_uri()
