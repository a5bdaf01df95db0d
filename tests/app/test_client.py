"""The client of every command reads ``temporalio.envconfig``: a profile file, then the
``TEMPORAL_*`` variables, then explicit settings; and it reaches a real mutual-TLS endpoint on
loopback (a TLS-terminating proxy with a throwaway CA in front of the dev server)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.service import TLSConfig
from temporalio.testing import WorkflowEnvironment

from app.client import connect_config
from app.ops import health_problems
from services.settings import Settings
from tests.tls import SERVER_NAME, ThrowawayPki, TlsProxy


def _port_of(env: WorkflowEnvironment) -> int:
    return int(env.client.service_client.config.target_host.rsplit(":", 1)[1])


def _mtls_env(pki: ThrowawayPki, address: str, *, client_cert: bool = True) -> dict[str, str]:
    env = {"TEMPORAL_ADDRESS": address, "TEMPORAL_NAMESPACE": "default",
           "TEMPORAL_TLS_SERVER_CA_CERT_PATH": str(pki.ca_cert),
           "TEMPORAL_TLS_SERVER_NAME": SERVER_NAME}
    if client_cert:
        env |= {"TEMPORAL_TLS_CLIENT_CERT_PATH": str(pki.client_cert),
                "TEMPORAL_TLS_CLIENT_KEY_PATH": str(pki.client_key)}
    return env


def test_defaults_are_the_local_dev_server(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    monkeypatch.setenv("TEMPORAL_CONFIG_FILE", str(tmp_path / "none.toml"))
    for name in ("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_API_KEY", "TEMPORAL_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    config = connect_config(Settings())
    assert config["target_host"] == "localhost:7233" and config["namespace"] == "default"
    assert not config.get("tls")


def test_a_profile_file_gives_cloud_address_namespace_and_api_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    profile = tmp_path / "temporal.toml"
    profile.write_text('[profile.prod]\naddress = "films.a1b2c.tmprl.cloud:7233"\n'
                       'namespace = "films.a1b2c"\napi_key = "secret-key"\n')
    monkeypatch.setenv("TEMPORAL_CONFIG_FILE", str(profile))
    monkeypatch.setenv("TEMPORAL_PROFILE", "prod")
    for name in ("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    config = connect_config(Settings())
    assert config["target_host"] == "films.a1b2c.tmprl.cloud:7233"
    assert config["namespace"] == "films.a1b2c"
    assert config["api_key"] == "secret-key" and config["tls"] is True  # API keys imply TLS
    monkeypatch.setenv("TEMPORAL_NAMESPACE", "films-staging.a1b2c")  # the environment wins
    assert connect_config(Settings())["namespace"] == "films-staging.a1b2c"


def test_tls_variables_become_the_sdk_tls_config(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    pki = ThrowawayPki.create(tmp_path)
    for name, value in _mtls_env(pki, "temporal.internal:7233").items():
        monkeypatch.setenv(name, value)
    tls = connect_config(Settings())["tls"]
    assert isinstance(tls, TLSConfig)
    assert tls.domain == SERVER_NAME
    assert tls.server_root_ca_cert == pki.ca_cert.read_bytes()
    assert tls.client_cert == pki.client_cert.read_bytes()
    assert tls.client_private_key == pki.client_key.read_bytes()


async def test_commands_reach_a_mutual_tls_server_with_the_tls_variables(
    temporal_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    pki = ThrowawayPki.create(tmp_path)
    with TlsProxy(pki, "127.0.0.1", _port_of(temporal_env), require_client_cert=True) as proxy:
        for name, value in _mtls_env(pki, proxy.address).items():
            monkeypatch.setenv(name, value)
        assert await health_problems(Settings(), pollers=False) == []
        assert proxy.handshakes >= 1


async def test_a_mutual_tls_server_refuses_a_client_without_its_certificate(
    temporal_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    pki = ThrowawayPki.create(tmp_path)
    with TlsProxy(pki, "127.0.0.1", _port_of(temporal_env), require_client_cert=True) as proxy:
        for name, value in _mtls_env(pki, proxy.address, client_cert=False).items():
            monkeypatch.setenv(name, value)
        problems = await asyncio.wait_for(health_problems(Settings(), pollers=False), 30)
        assert problems and f"temporal at {proxy.address} unreachable" in problems[0]


async def test_plaintext_client_cannot_talk_to_the_tls_endpoint(
    temporal_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    pki = ThrowawayPki.create(tmp_path)
    with TlsProxy(pki, "127.0.0.1", _port_of(temporal_env), require_client_cert=False) as proxy:
        monkeypatch.setenv("TEMPORAL_ADDRESS", proxy.address)
        for name in ("TEMPORAL_TLS_SERVER_CA_CERT_PATH", "TEMPORAL_API_KEY"):
            monkeypatch.delenv(name, raising=False)
        problems = await asyncio.wait_for(health_problems(Settings(), pollers=False), 30)
        assert problems
