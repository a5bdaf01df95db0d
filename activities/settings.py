"""Worker settings: one model reads the environment (12-factor). Tier recipes live here."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
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


class Settings(BaseSettings):
    """Everything configurable, from environment variables (names in DESIGN.md)."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    temporal_address: str = Field("localhost:7233", alias="TEMPORAL_ADDRESS")
    temporal_namespace: str = Field("default", alias="TEMPORAL_NAMESPACE")
    task_queue: str = Field(TASK_QUEUE, alias="FILM_TASK_QUEUE")
    storage_url: str = Field("file://" + str(Path(".filmworker/storage").absolute()),
                             alias="FILM_STORAGE_URL")
    public_base_url: str | None = Field(None, alias="FILM_PUBLIC_BASE_URL")
    order_api_url: str | None = Field(None, alias="FILM_ORDER_API_URL")
    order_api_secret: str | None = Field(None, alias="FILM_ORDER_API_SECRET")
    work_dir: Path = Field(Path("/tmp/filmworker"), alias="FILM_WORK_DIR")
    encoder_preset: str = Field("veryfast", alias="FILM_ENCODER_PRESET")
    recipes: dict[Tier, TierRecipe] = Field(DEFAULT_RECIPES, alias="FILM_TIER_RECIPES")
    tier_price_cents: dict[Tier, int] = Field(TIER_PRICE_CENTS, alias="FILM_TIER_PRICES")
    max_concurrent_activities: int = Field(2, alias="FILM_MAX_CONCURRENT_ACTIVITIES")

    def recipe(self, tier: Tier) -> TierRecipe:
        """The recipe of ``tier`` (environment override, else the default)."""
        return self.recipes.get(tier, DEFAULT_RECIPES[tier])
