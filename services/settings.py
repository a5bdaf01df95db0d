"""Worker settings: one model reads the environment (12-factor). Tier recipes live here."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from workflows.contract import TASK_QUEUE, TIER_PRICE_CENTS, Tier


class TierRecipe(BaseModel):
    """What a tier buys: motion shots, motion kind, song candidates, restoration depth."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    motion_shots: int = Field(ge=0, le=30)
    motion: Literal["ken_burns", "premium"]
    song_candidates: int = Field(ge=1, le=5)
    restore: Literal["light", "full"]


DEFAULT_RECIPES: dict[Tier, TierRecipe] = {
    Tier.STANDARD: TierRecipe(motion_shots=4, motion="ken_burns", song_candidates=1,
                              restore="light"),
    Tier.SIGNATURE: TierRecipe(motion_shots=6, motion="premium", song_candidates=3,
                               restore="full"),
}


def default_media_concurrency() -> int:
    """Media activities at once on one worker: half the cores (ffmpeg and x264 are threaded)."""
    return max(1, (os.cpu_count() or 1) // 2)


LOCAL_HOSTNAMES = frozenset({"localhost"})
"""Hosts besides loopback addresses where the order API may be reached over plain http."""


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() in LOCAL_HOSTNAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def checked_order_api_url(url: str | None) -> str | None:
    """``FILM_ORDER_API_URL`` as given when it is https, or http to a loopback host (a local
    run); anything else would send signed outcomes in clear text and is refused."""
    if url is None:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not host:
        raise ValueError("FILM_ORDER_API_URL needs a host")
    if parts.scheme == "https" or (parts.scheme == "http" and is_loopback_host(host)):
        return url
    raise ValueError("FILM_ORDER_API_URL must be https (plain http only to a loopback host)")


class Settings(BaseSettings):
    """Everything configurable, from environment variables (names in DESIGN.md)."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    # Overrides of the Temporal profile (app.client.connect_config reads the rest: profile
    # file, TEMPORAL_API_KEY, TEMPORAL_TLS_*); unset: the profile's, else localhost:7233.
    temporal_address: str | None = Field(None, alias="TEMPORAL_ADDRESS")
    temporal_namespace: str | None = Field(None, alias="TEMPORAL_NAMESPACE")
    task_queue: str = Field(TASK_QUEUE, alias="FILM_TASK_QUEUE")
    storage_url: str = Field("file://" + str(Path(".filmworker/storage").absolute()),
                             alias="FILM_STORAGE_URL")
    public_base_url: str | None = Field(None, alias="FILM_PUBLIC_BASE_URL")
    order_api_url: str | None = Field(None, alias="FILM_ORDER_API_URL")
    order_api_secret: str | None = Field(None, alias="FILM_ORDER_API_SECRET")
    # Gate policy: word list (unset: built-in; "a,b,c"; or a file path) and moderation hook.
    text_policy_words: str | None = Field(None, alias="FILM_TEXT_POLICY_WORDS")
    moderation_url: str | None = Field(None, alias="FILM_MODERATION_URL")
    moderation_timeout_s: float = Field(10.0, gt=0, le=60, alias="FILM_MODERATION_TIMEOUT_S")
    # Song provider (unset URL: the local composer); seconds, bytes. max_wait stays well under
    # the assets stage's 30 min start-to-close timeout.
    song_provider_url: str | None = Field(None, alias="FILM_SONG_PROVIDER_URL")
    song_provider_token: str | None = Field(None, alias="FILM_SONG_PROVIDER_TOKEN")
    song_provider_timeout_s: float = Field(30.0, gt=0, le=300,
                                           alias="FILM_SONG_PROVIDER_TIMEOUT_S")
    song_provider_poll_s: float = Field(5.0, gt=0, le=60, alias="FILM_SONG_PROVIDER_POLL_S")
    song_provider_max_wait_s: float = Field(900.0, gt=0, le=1200,
                                            alias="FILM_SONG_PROVIDER_MAX_WAIT_S")
    song_provider_max_bytes: int = Field(256 * 1024**2, gt=0,
                                         alias="FILM_SONG_PROVIDER_MAX_BYTES")
    work_dir: Path = Field(Path("/tmp/filmworker"), alias="FILM_WORK_DIR")
    # Days a run's working files (orders/{gift_id}/runs/{attempt}/) are kept after its outcome
    # is reported; 0: deleted at once (customer data is kept no longer than needed).
    run_retention_days: float = Field(0.0, ge=0, le=365, alias="FILM_RUN_RETENTION_DAYS")
    encoder_preset: str = Field("veryfast", alias="FILM_ENCODER_PRESET")
    recipes: dict[Tier, TierRecipe] = Field(DEFAULT_RECIPES, alias="FILM_TIER_RECIPES")
    tier_price_cents: dict[Tier, int] = Field(TIER_PRICE_CENTS, alias="FILM_TIER_PRICES")
    max_concurrent_activities: int = Field(2, alias="FILM_MAX_CONCURRENT_ACTIVITIES")
    media_concurrency: int = Field(default_factory=default_media_concurrency, ge=1,
                                   alias="FILM_MEDIA_CONCURRENCY")
    # Media workers that may render one film's segments in parallel (1: one segment). Read
    # by the render plan activity, so it reaches the workflow as a recorded activity result.
    render_workers: int = Field(1, ge=1, le=64, alias="FILM_RENDER_WORKERS")
    graceful_shutdown_s: float = Field(30.0, ge=0, alias="FILM_GRACEFUL_SHUTDOWN_S")
    metrics_bind: str | None = Field(None, alias="FILM_METRICS_BIND")
    otel: bool = Field(False, alias="FILM_OTEL")
    log_format: Literal["json", "kv"] = Field("json", alias="FILM_LOG_FORMAT")
    # `filmworker codec-server` (payload keys: FILM_PAYLOAD_KEYS, read by workflows.codec).
    codec_origins: str = Field("http://localhost:8233", alias="FILM_CODEC_CORS_ORIGINS")
    codec_token: str | None = Field(None, alias="FILM_CODEC_TOKEN")
    # More codec-server tokens, by the subject its audit log names: "alice:tok1,bob:tok2".
    codec_tokens: str | None = Field(None, alias="FILM_CODEC_TOKENS")
    # While FILM_PAYLOAD_KEYS is set: refuse a start that arrived unsealed (invalid_order:plain)
    # instead of running it with its customer text in clear (it is logged and counted either way).
    refuse_plain_starts: bool = Field(False, alias="FILM_REFUSE_PLAIN_STARTS")

    @field_validator("order_api_url")
    @classmethod
    def _order_api_url_secure(cls, value: str | None) -> str | None:
        return checked_order_api_url(value)

    def recipe(self, tier: Tier) -> TierRecipe:
        """The recipe of ``tier`` (environment override, else the default)."""
        return self.recipes.get(tier, DEFAULT_RECIPES[tier])
