"""An in-process S3 emulator for tests (pytest-free): moto's ThreadedMotoServer on loopback.

Usage::

    with moto_s3() as endpoint:           # e.g. "http://127.0.0.1:40123"
        create_bucket(endpoint, "films")
        os.environ.update(s3_env(endpoint))

The server speaks real HTTP, so boto3 (and anything else) talks to it over a socket exactly as it
would talk to MinIO. It listens on a free port chosen by the kernel (port 0), so parallel runs
never collide.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

TEST_REGION = "us-east-1"
TEST_ACCESS_KEY = "testing"
TEST_SECRET_KEY = "testing"


def start_moto_server(host: str = "127.0.0.1") -> tuple[Any, str]:
    """Start a ThreadedMotoServer on ``host`` and a free port; return (server, endpoint URL)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address=host, port=0, verbose=False)
    server.start()
    bound_host, port = server.get_host_and_port()
    return server, f"http://{bound_host}:{port}"


@contextlib.contextmanager
def moto_s3(host: str = "127.0.0.1") -> Iterator[str]:
    """Run an S3 emulator for the duration of the block; yield its endpoint URL."""
    server, endpoint = start_moto_server(host)
    try:
        yield endpoint
    finally:
        server.stop()


def s3_env(endpoint: str) -> dict[str, str]:
    """Environment that points boto3 at ``endpoint`` with dummy credentials, hermetically."""
    return {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": TEST_ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": TEST_SECRET_KEY,
        "AWS_DEFAULT_REGION": TEST_REGION,
        "AWS_REGION": TEST_REGION,
        "AWS_CONFIG_FILE": "/nonexistent/aws-config",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
        "AWS_EC2_METADATA_DISABLED": "true",
    }


def s3_client(endpoint: str) -> Any:
    """A boto3 S3 client for ``endpoint`` with the test credentials and path-style addressing."""
    import boto3
    from botocore.config import Config

    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        region_name=TEST_REGION,
        aws_access_key_id=TEST_ACCESS_KEY,
        aws_secret_access_key=TEST_SECRET_KEY,
        config=Config(s3={"addressing_style": "path"}),
    )


def create_bucket(endpoint: str, bucket: str) -> None:
    """Create ``bucket`` on the emulator (over HTTP); creating it twice is fine."""
    client = s3_client(endpoint)
    with contextlib.suppress(client.exceptions.BucketAlreadyOwnedByYou):
        client.create_bucket(Bucket=bucket)
