"""The storage contract, run against both backends: a local directory and S3 (moto over HTTP)."""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from botocore.config import Config
from botocore.stub import Stubber

from services.storage import open_storage
from services.storage.base import (
    InvalidStorageKey,
    Storage,
    StorageError,
    StorageKeyMissing,
    StorageObjectTooLarge,
    StorageUnavailable,
)
from services.storage.local import LocalStorage
from services.storage.s3 import S3Storage
from tests.s3 import create_bucket, moto_s3, s3_env

BUCKET = "film-test"
CDN = "https://cdn.example.test/gifts"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """One emulator for the module; every test gets its own prefix in one bucket."""
    with moto_s3() as endpoint:
        create_bucket(endpoint, BUCKET)
        yield endpoint


@pytest.fixture
def aws_env(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point boto3 at the emulator through the environment, as in production with MinIO."""
    for name, value in s3_env(s3_endpoint).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return s3_endpoint


def _make_storage(
    kind: str, request: pytest.FixtureRequest, tmp_path: Path, base: str | None
) -> Storage:
    if kind == "local":
        return open_storage((tmp_path / "store").as_uri(), public_base_url=base)
    request.getfixturevalue("aws_env")
    return open_storage(f"s3://{BUCKET}/run-{uuid.uuid4().hex[:10]}/root", public_base_url=base)


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.slow)])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Storage:
    """Each backend in turn, with no public base URL."""
    return _make_storage(request.param, request, tmp_path, None)


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.slow)])
def cdn_storage(request: pytest.FixtureRequest, tmp_path: Path) -> Storage:
    """Each backend in turn, serving from a public base URL."""
    return _make_storage(request.param, request, tmp_path, CDN + "/")


# --- The contract, both backends --------------------------------------------------------------


def test_round_trip_bytes(storage: Storage) -> None:
    storage.put_bytes("orders/g1/note.json", b'{"a": 1}', "application/json")
    assert storage.exists("orders/g1/note.json")
    assert storage.get_bytes("orders/g1/note.json", max_bytes=100) == b'{"a": 1}'
    storage.put_bytes("orders/g1/empty.bin", b"")
    assert storage.get_bytes("orders/g1/empty.bin", max_bytes=0) == b""


def test_round_trip_file(storage: Storage, tmp_path: Path) -> None:
    payload = os.urandom(3 * 1024 * 1024 + 17)
    src = tmp_path / "src.mp4"
    src.write_bytes(payload)
    storage.put_file("films/slug1/16x9.mp4", src)
    dest = tmp_path / "out" / "nested" / "copy.mp4"
    assert storage.get_file("films/slug1/16x9.mp4", dest) == dest
    assert dest.read_bytes() == payload
    assert sorted(p.name for p in dest.parent.iterdir()) == ["copy.mp4"]  # no temp left over


def test_get_file_replaces_existing_destination(storage: Storage, tmp_path: Path) -> None:
    storage.put_bytes("a/b.txt", b"new")
    dest = tmp_path / "b.txt"
    dest.write_bytes(b"old and longer")
    storage.get_file("a/b.txt", dest)
    assert dest.read_bytes() == b"new"


def test_overwrite_is_idempotent(storage: Storage, tmp_path: Path) -> None:
    storage.put_bytes("orders/g1/runs/1/plan.json", b"first")
    storage.put_bytes("orders/g1/runs/1/plan.json", b"second")
    src = tmp_path / "third"
    src.write_bytes(b"third")
    storage.put_file("orders/g1/runs/1/plan.json", src)
    assert storage.list("orders/g1/runs/1/") == ["orders/g1/runs/1/plan.json"]
    assert storage.get_bytes("orders/g1/runs/1/plan.json", max_bytes=10) == b"third"


def test_list_by_prefix(storage: Storage) -> None:
    keys = [
        "orders/g1/photos/p02.jpg",
        "orders/g1/photos/p01.jpg",
        "orders/g1/clips/c01.mp4",
        "orders/g10/photos/p01.jpg",
        "films/s1/poster.jpg",
    ]
    for key in keys:
        storage.put_bytes(key, key.encode())
    assert storage.list("orders/g1/") == [
        "orders/g1/clips/c01.mp4",
        "orders/g1/photos/p01.jpg",
        "orders/g1/photos/p02.jpg",
    ]
    assert storage.list("orders/g1/photos/p0") == [
        "orders/g1/photos/p01.jpg",
        "orders/g1/photos/p02.jpg",
    ]
    assert storage.list("orders/g1") == sorted(k for k in keys if k.startswith("orders/g1"))
    assert storage.list() == sorted(keys)
    assert storage.list("nothing/here/") == []


def test_size_and_sha256(storage: Storage) -> None:
    import hashlib

    data = os.urandom(2 * 1024 * 1024 + 5)
    storage.put_bytes("x/blob.bin", data)
    assert storage.size("x/blob.bin") == len(data)
    assert storage.sha256("x/blob.bin") == hashlib.sha256(data).hexdigest()


def test_missing_key(storage: Storage, tmp_path: Path) -> None:
    key = "orders/nope/photos/p01.jpg"
    assert not storage.exists(key)
    for call in (
        lambda: storage.get_bytes(key, max_bytes=10),
        lambda: storage.get_file(key, tmp_path / "dest"),
        lambda: storage.size(key),
        lambda: storage.sha256(key),
    ):
        with pytest.raises(StorageKeyMissing) as info:
            call()
        assert isinstance(info.value, KeyError)
        assert key in str(info.value)
    assert not (tmp_path / "dest").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_delete_is_idempotent(storage: Storage) -> None:
    storage.put_bytes("a/b/c.txt", b"c")
    storage.delete("a/b/c.txt")
    storage.delete("a/b/c.txt")
    assert not storage.exists("a/b/c.txt")
    assert storage.list("a/") == []


def test_a_prefix_is_not_an_object(storage: Storage) -> None:
    storage.put_bytes("dir/file.txt", b"x")
    assert not storage.exists("dir")
    with pytest.raises(StorageKeyMissing):
        storage.get_bytes("dir", max_bytes=10)


BAD_KEYS = [
    "",
    "/etc/passwd",
    "../outside.txt",
    "orders/../../outside.txt",
    "orders/./p01.jpg",
    "orders//p01.jpg",
    "orders/g1/",
    "orders\\g1\\p01.jpg",
    "orders/g1/p01\x00.jpg",
    "orders/g1/\n.jpg",
    "..",
]


def _refused_calls(storage: Storage, key: str, tmp_path: Path) -> list[Callable[[], object]]:
    src = tmp_path / "src"
    return [
        lambda: storage.put_bytes(key, b"x"),
        lambda: storage.put_file(key, src),
        lambda: storage.get_bytes(key, max_bytes=10),
        lambda: storage.get_file(key, tmp_path / "dest"),
        lambda: storage.exists(key),
        lambda: storage.size(key),
        lambda: storage.sha256(key),
        lambda: storage.delete(key),
        lambda: storage.public_url(key),
    ]


def test_key_traversal_rejected(storage: Storage, tmp_path: Path) -> None:
    (tmp_path / "src").write_bytes(b"x")
    for key in BAD_KEYS:
        for call in _refused_calls(storage, key, tmp_path):
            with pytest.raises(InvalidStorageKey):
                call()
    assert storage.list() == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]  # nothing escaped


def test_list_rejects_unsafe_prefix(storage: Storage) -> None:
    for prefix in ["/abs", "../up", "a/../b/", "a\\b", "a//", "a/\x00"]:
        with pytest.raises(InvalidStorageKey):
            storage.list(prefix)


def test_get_bytes_refuses_oversize(storage: Storage) -> None:
    storage.put_bytes("big.bin", b"x" * 1001)
    with pytest.raises(StorageObjectTooLarge):
        storage.get_bytes("big.bin", max_bytes=1000)
    assert storage.get_bytes("big.bin", max_bytes=1001) == b"x" * 1001


def test_public_url_from_base(cdn_storage: Storage) -> None:
    assert cdn_storage.public_url("films/s1/16x9.mp4") == f"{CDN}/films/s1/16x9.mp4"
    assert cdn_storage.public_url("films/s1/a b#.jpg") == f"{CDN}/films/s1/a%20b%23.jpg"


def test_public_url_default(storage: Storage, tmp_path: Path) -> None:
    url = storage.public_url("films/s1/index.html")
    if isinstance(storage, LocalStorage):
        assert url == (tmp_path / "store" / "films" / "s1" / "index.html").as_uri()
    else:
        assert isinstance(storage, S3Storage)
        assert url == f"s3://{BUCKET}/{storage.prefix}/films/s1/index.html"


# --- Local backend specifics ------------------------------------------------------------------


def test_local_symlink_cannot_escape(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "store"
    root.mkdir()
    (root / "link").symlink_to(outside)
    store = LocalStorage(root)
    (outside / "secret.txt").write_bytes(b"s")
    with pytest.raises(InvalidStorageKey):
        store.put_bytes("link/evil.txt", b"x")
    with pytest.raises(InvalidStorageKey):
        store.get_bytes("link/secret.txt", max_bytes=10)
    assert store.list("link/") == []
    assert [p.name for p in outside.iterdir()] == ["secret.txt"]


def test_local_temp_files_are_never_listed(tmp_path: Path) -> None:
    store = LocalStorage(tmp_path)
    store.put_bytes("a/done.txt", b"x")
    (tmp_path / "a" / ".storage-tmp-abc123").write_bytes(b"half")
    assert store.list() == ["a/done.txt"]
    with pytest.raises(InvalidStorageKey):
        store.get_bytes("a/.storage-tmp-abc123", max_bytes=10)


def test_local_io_fault_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"x")
    store = LocalStorage(tmp_path / "file")  # a file where the root directory should be
    with pytest.raises(StorageUnavailable):
        store.put_bytes("a.txt", b"x")


@pytest.mark.parametrize(
    "url", ["http://example.com/x", "file://otherhost/x", "file:relative/path", "ftp://b/p"]
)
def test_open_storage_rejects(url: str) -> None:
    with pytest.raises(ValueError):
        open_storage(url)


def test_open_storage_parses_s3_url(aws_env: str) -> None:
    store = open_storage("s3://film-test/env/prod/")
    assert isinstance(store, S3Storage)
    assert (store.bucket, store.prefix) == ("film-test", "env/prod")
    assert store.client.meta.endpoint_url == aws_env  # AWS_ENDPOINT_URL honoured
    assert store.client.meta.config.s3["addressing_style"] == "path"
    assert store.client.meta.region_name == "us-east-1"


# --- S3 faults --------------------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_s3_unreachable_is_unavailable(
    aws_env: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{_closed_port()}")
    fast = Config(connect_timeout=0.5, read_timeout=0.5, retries={"max_attempts": 1})
    store = open_storage(f"s3://{BUCKET}/down", s3_config=fast)
    src = tmp_path / "src"
    src.write_bytes(b"x")
    started = time.monotonic()
    for call in (
        lambda: store.exists("a.txt"),
        lambda: store.put_bytes("a.txt", b"x"),
        lambda: store.put_file("a.txt", src),
        lambda: store.get_file("a.txt", tmp_path / "dest"),
        lambda: store.get_bytes("a.txt", max_bytes=10),
        lambda: store.list("a"),
    ):
        with pytest.raises(StorageUnavailable):
            call()
    assert time.monotonic() - started < 10
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


@pytest.mark.parametrize(
    ("status", "code", "error"),
    [
        (503, "SlowDown", StorageUnavailable),
        (500, "InternalError", StorageUnavailable),
        (404, "NoSuchKey", StorageKeyMissing),
        (403, "AccessDenied", StorageError),
    ],
)
def test_s3_client_errors_are_classified(
    aws_env: str, status: int, code: str, error: type[Exception]
) -> None:
    store = open_storage(f"s3://{BUCKET}/stubbed")
    assert isinstance(store, S3Storage)
    with Stubber(store.client) as stub:
        stub.add_client_error("get_object", service_error_code=code, http_status_code=status)
        with pytest.raises(error) as info:
            store.get_bytes("a.txt", max_bytes=10)
    assert type(info.value) is error
