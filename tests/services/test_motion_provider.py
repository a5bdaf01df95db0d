"""Motion providers: the local moves (the default) and an external image-to-video service over
real HTTP (a fake one that makes its MP4 with ffmpeg from the photo it is sent)."""

from __future__ import annotations

import io
import json
import socket
from datetime import timedelta
from pathlib import Path

import pytest
from PIL import Image
from temporalio.exceptions import ApplicationError

from activities.assets import run_assets
from activities.context import StageContext
from media.base.probe import ffprobe_json
from media.intake.clips import MEZZANINE_FPS
from services.motion_provider import (
    BUDGET,
    TIMEOUT,
    UNAVAILABLE,
    HttpMotionProvider,
    LocalMotionProvider,
    MotionBudget,
    MotionOrder,
    MotionProviderUnavailable,
    MotionResult,
    motion_provider,
)
from services.settings import Settings
from tests.fake_motion_provider import FakeMotionProvider
from tests.stages import is_hold, local_context, order_with_media
from workflows.contract import Tier
from workflows.stages import (
    HOLD_ERROR_TYPE,
    STAGE_RETRY,
    HoldReason,
    PreparedPhoto,
    PrepResult,
    StageInput,
)

TOKEN = "motion-token"
CLIP_S = 2.0
DEFAULT_BUDGET = MotionBudget()


def _photo(directory: Path, photo_id: str, size: tuple[int, int] = (800, 600)) -> Path:
    path = directory / f"{photo_id}.jpg"
    Image.new("RGB", size, (200, 120, 80)).save(path, "JPEG")
    return path


def _orders(directory: Path, *photo_ids: str, seconds: float = CLIP_S) -> list[MotionOrder]:
    return [MotionOrder(pid, _photo(directory, pid), seconds, f"film-gift1-1-{pid}")
            for pid in photo_ids]


def _provider(fake: FakeMotionProvider, *, max_wait: float = 20.0, timeout: float = 5.0,
              max_bytes: int = 16 << 20,
              budget: MotionBudget = DEFAULT_BUDGET) -> HttpMotionProvider:
    return HttpMotionProvider(fake.url, timeout, 0.05, max_wait, max_bytes=max_bytes,
                              budget=budget, token=TOKEN)


def _posted(fake: FakeMotionProvider) -> list[str]:
    return [headers["Idempotency-Key"] for method, _, headers in fake.requests
            if method == "POST"]


# --------------------------------------------------------------------------- settings, budget


def test_settings_leave_the_local_moves_unless_a_url_is_configured() -> None:
    assert isinstance(motion_provider(Settings()), LocalMotionProvider)
    assert LocalMotionProvider().make_motions(_orders_without_files(), Path("/nonexistent")) \
        == MotionResult()
    configured = motion_provider(Settings(
        FILM_MOTION_PROVIDER_URL="https://motion.example/v1", FILM_MOTION_PROVIDER_TOKEN=TOKEN,
        FILM_MOTION_PROVIDER_MAX_WAIT_S=300, FILM_MOTION_PROVIDER_MAX_CLIPS=3,
        FILM_MOTION_PROVIDER_MAX_SECONDS=20))
    assert isinstance(configured, HttpMotionProvider)
    assert (configured.base_url, configured.max_wait) == ("https://motion.example/v1/", 300.0)
    assert configured.budget == MotionBudget(clips=3, seconds=20.0)
    assert TOKEN not in repr(Settings(FILM_MOTION_PROVIDER_TOKEN=TOKEN))
    with pytest.raises(ValueError):
        HttpMotionProvider("file:///etc", 1.0, 1.0, 1.0, max_bytes=1)


def test_only_the_premium_motion_is_ordered_from_the_provider_unless_a_recipe_says_so() -> None:
    settings = Settings()
    assert settings.recipe(Tier.SIGNATURE).provider_motion
    assert not settings.recipe(Tier.STANDARD).provider_motion


def _orders_without_files() -> list[MotionOrder]:
    return [MotionOrder(f"p{i}", Path(f"/nonexistent/p{i}.jpg"), 4.0, f"k{i}") for i in range(3)]


def test_the_budget_keeps_the_most_wanted_photos_within_its_clips_and_seconds() -> None:
    orders = [MotionOrder(f"p{i}", Path(f"p{i}.jpg"), s, f"k{i}")
              for i, s in enumerate((4.0, 4.0, 6.0, 2.0))]
    within, over = MotionBudget(clips=3, seconds=10.0).split(orders)
    assert [o.photo_id for o in within] == ["p0", "p1", "p3"] and over == ["p2"]
    within, over = MotionBudget(clips=1, seconds=60.0).split(orders)
    assert [o.photo_id for o in within] == ["p0"] and over == ["p1", "p2", "p3"]
    assert MotionBudget(clips=6, seconds=0.0).split(orders)[0] == []


# --------------------------------------------------------------------------- over real HTTP


@pytest.mark.render
def test_a_done_clip_is_downloaded_probed_and_normalized_to_the_mezzanine(
        tmp_path: Path) -> None:
    with FakeMotionProvider("slow", pending_polls=2) as fake:
        result = _provider(fake).make_motions(_orders(tmp_path, "p01", "p02"), tmp_path)
    assert not result.fallbacks and set(result.clips) == {"p01", "p02"}
    for clip in result.clips.values():
        assert clip.duration_s == pytest.approx(CLIP_S, abs=0.05)
        assert (clip.width, clip.height) == (640, 480)
        stream = ffprobe_json(clip.path)["streams"][0]
        assert stream["codec_name"] == "h264" and stream["avg_frame_rate"] == \
            f"{MEZZANINE_FPS}/1"
    assert _posted(fake) == ["film-gift1-1-p01", "film-gift1-1-p02"]
    assert all(h.get("Authorization") == f"Bearer {TOKEN}" for _, _, h in fake.requests)
    request = fake.jobs["m1"]["request"]
    assert request == {"photo_id": "p01", "duration_s": CLIP_S, "width": 800, "height": 600,
                       "aspect": round(800 / 600, 4), "fps": MEZZANINE_FPS}
    polls = [path for method, path, _ in fake.requests if path.startswith("/motions/")]
    assert len(polls) == 2 * 3  # both jobs polled together: running, running, done
    assert result.notes()[0].startswith("motion p01: provider clip 2.0 s 640x480")


@pytest.mark.render
def test_a_job_not_done_within_the_runs_wait_keeps_its_local_move(tmp_path: Path) -> None:
    with FakeMotionProvider("slow", pending_polls=10_000) as fake:
        result = _provider(fake, max_wait=0.3).make_motions(_orders(tmp_path, "p01"), tmp_path)
    assert result == MotionResult(fallbacks={"p01": TIMEOUT})
    assert result.notes() == ["motion_fallback:p01=timeout"]


def test_a_request_that_times_out_is_retryable(tmp_path: Path) -> None:
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        host, port = silent.getsockname()
        provider = HttpMotionProvider(f"http://{host}:{port}", 0.3, 0.05, 5.0, max_bytes=1)
        with pytest.raises(MotionProviderUnavailable) as caught:
            provider.make_motions(_orders(tmp_path, "p01"), tmp_path)
    assert not caught.value.non_retryable and "Timeout" in str(caught.value)
    assert "MotionProviderUnavailable" not in STAGE_RETRY.non_retryable_error_types


def test_a_hold_ends_the_run_held_and_a_retry_does_not_order_again(tmp_path: Path) -> None:
    with FakeMotionProvider("done", modes={"p02": "hold"}) as fake:
        provider = _provider(fake)
        for _ in range(2):
            with pytest.raises(ApplicationError) as caught:
                provider.make_motions(_orders(tmp_path, "p01", "p02"), tmp_path)
            assert caught.value.type == HOLD_ERROR_TYPE and caught.value.non_retryable
            assert caught.value.details[0] == HoldReason.MOTION_PROVIDER_HOLD \
                == "motion_provider_hold"
        assert len(fake.jobs) == 2 and "p02" in str(caught.value)


@pytest.mark.render
def test_failed_oversized_and_unreadable_clips_keep_their_local_moves(tmp_path: Path) -> None:
    modes = {"p02": "failed", "p03": "oversized", "p04": "not_a_video"}
    with FakeMotionProvider("done", modes=modes) as fake:
        result = _provider(fake, max_bytes=2 << 20).make_motions(
            _orders(tmp_path, "p01", "p02", "p03", "p04"), tmp_path)
    assert set(result.clips) == {"p01"}
    assert result.fallbacks == {"p02": "failed", "p03": "too_large",
                                "p04": "unsupported_container"}  # the intake's refusal
    assert result.notes()[-1] == \
        "motion_fallback:p02=failed,p03=too_large,p04=unsupported_container"
    assert not list(tmp_path.glob("*.provider"))  # the downloads do not outlive their intake


@pytest.mark.render
def test_a_503_fails_the_attempt_and_the_retry_finds_the_jobs_it_ordered(
        tmp_path: Path) -> None:
    orders = _orders(tmp_path, "p01", "p02")
    with FakeMotionProvider("unavailable", fail_first=1, retry_after=7) as fake:
        provider = _provider(fake)
        with pytest.raises(MotionProviderUnavailable) as caught:
            provider.make_motions(orders, tmp_path)
        assert caught.value.next_retry_delay == timedelta(seconds=7)
        result = provider.make_motions(orders, tmp_path)
    assert set(result.clips) == {"p01", "p02"} and not result.fallbacks
    assert len(fake.jobs) == 2  # the retry's orders found the jobs the first attempt made


def test_on_the_last_attempt_a_provider_still_down_leaves_the_local_moves(
        tmp_path: Path) -> None:
    with FakeMotionProvider("unavailable", fail_first=100) as fake:
        result = _provider(fake).make_motions(_orders(tmp_path, "p01", "p02"), tmp_path,
                                              last_attempt=True)
    assert result == MotionResult(fallbacks={"p01": UNAVAILABLE, "p02": UNAVAILABLE})


@pytest.mark.render
def test_the_photos_past_the_runs_budget_are_never_sent_and_keep_their_local_moves(
        tmp_path: Path) -> None:
    orders = _orders(tmp_path, "p01", "p02", "p03")
    with FakeMotionProvider("done") as fake:
        result = _provider(fake, budget=MotionBudget(clips=6, seconds=2 * CLIP_S)).make_motions(
            orders, tmp_path)
    assert set(result.clips) == {"p01", "p02"} and result.fallbacks == {"p03": BUDGET}
    assert fake.ordered == ["p01", "p02"]


# --------------------------------------------------------------------------- the assets stage


def _assets_input(ctx: StageContext, tier: str, count: int) -> StageInput:
    photo_ids = [f"p{i:02d}" for i in range(1, count + 1)]
    order = order_with_media("giftmotion1", [(pid, "jpg") for pid in photo_ids], tier=tier,
                             subject_photo_id="p02")
    photos = []
    for pid in photo_ids:
        key = order.run_keys.prepared_photo(pid)
        image = io.BytesIO()
        Image.new("RGB", (320, 240), (200, 120, 80)).save(image, "JPEG")
        ctx.storage.put_bytes(key, image.getvalue(), "image/jpeg")
        photos.append(PreparedPhoto(id=pid, key=key, width=320, height=240, low_res=True))
    return StageInput(order=order, prep=PrepResult(photos=photos, clips=[], rejected=[]))


def _motion_context(tmp_path: Path, fake: FakeMotionProvider | None, **settings: object
                    ) -> StageContext:
    """The standard tier's recipe with its motion ordered from the provider at ``fake`` (one
    song to compose: the signature tier's three would only slow the test)."""
    recipe = {"motion_shots": 4, "motion": "ken_burns", "song_candidates": 1,
              "restore": "light", "provider_motion": True}
    provider = {} if fake is None else {"FILM_MOTION_PROVIDER_URL": fake.url,
                                        "FILM_MOTION_PROVIDER_POLL_S": 0.05}
    return local_context(tmp_path, FILM_TIER_RECIPES={"standard": recipe},
                         **provider, **settings)


@pytest.mark.render
def test_assets_store_the_clips_of_the_most_wanted_photos_within_the_budget(
        tmp_path: Path) -> None:
    with FakeMotionProvider("done") as fake:
        ctx = _motion_context(tmp_path, fake, FILM_MOTION_PROVIDER_MAX_CLIPS=2)
        stage_input = _assets_input(ctx, "standard", 5)
        result = run_assets(ctx, stage_input)
    assert fake.ordered[0] == "p02"  # the subject first
    assert set(result.motion_clips) == set(fake.ordered) and len(fake.ordered) == 2
    run = stage_input.order.run_keys
    for photo_id, clip in result.motion_clips.items():
        assert clip.key == run.motion_clip(photo_id) and ctx.storage.exists(clip.key)
        assert clip.duration_sec > 0 and (clip.width, clip.height) == (640, 480)
    assert _posted(fake) == [f"film-giftmotion1-1-{pid}" for pid in fake.ordered]
    fallback = next(n for n in result.notes if n.startswith("motion_fallback:"))
    assert fallback.count("=budget") == 2  # 4 full moves, 2 clips in the budget
    again = type(result).model_validate(json.loads(result.model_dump_json()))
    assert again.motion_clips == result.motion_clips


@pytest.mark.render
def test_without_a_provider_url_or_with_local_motion_the_assets_order_nothing(
        tmp_path: Path) -> None:
    ctx = _motion_context(tmp_path / "unset", None)
    result = run_assets(ctx, _assets_input(ctx, "standard", 2))
    assert result.motion_clips == {}
    assert not any("motion" in note for note in result.notes)
    with FakeMotionProvider("done") as fake:
        ctx = local_context(tmp_path / "local", FILM_MOTION_PROVIDER_URL=fake.url)
        assert not ctx.settings.recipe(Tier.STANDARD).provider_motion
        assert run_assets(ctx, _assets_input(ctx, "standard", 2)).motion_clips == {}
        assert fake.requests == []


@pytest.mark.render
def test_a_provider_hold_in_the_assets_stage_holds_the_run(tmp_path: Path) -> None:
    with FakeMotionProvider("hold") as fake:
        ctx = _motion_context(tmp_path, fake)
        with pytest.raises(ApplicationError) as caught:
            run_assets(ctx, _assets_input(ctx, "standard", 2))
    assert is_hold(caught.value, HoldReason.MOTION_PROVIDER_HOLD)
