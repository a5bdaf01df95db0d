"""Song providers: the local composer and an external service over real HTTP (a fake one)."""

from __future__ import annotations

import io
import json
import math
import wave
from datetime import timedelta
from pathlib import Path

import numpy as np
import pyloudnorm as pyln
import pytest
from PIL import Image
from temporalio.exceptions import ApplicationError

from activities.assets import run_assets
from activities.context import StageContext
from media.base.spec import AUDIO_SAMPLE_RATE, LUFS_TOLERANCE, MAX_TRUE_PEAK_DBTP, TARGET_LUFS
from media.deliver.verify import true_peak_dbtp
from media.song.compose import SongBrief
from services.settings import Settings
from services.song_provider import (
    HttpSongProvider,
    LocalSongProvider,
    SongAssets,
    SongProviderError,
    SongProviderUnavailable,
    song_note,
    song_provider,
)
from tests.fake_song_provider import TEMPO_BPM, FakeSongProvider, beat_times
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

pytestmark = pytest.mark.render

LENGTH_S = 30.0
BRIEF = SongBrief(occasion_slug="birthday", tone="joyful", gentle=False, recipient_name="Anna",
                  relationship="sister", memory="The summer at the coast.", story_note="",
                  feeling_words=("proud", "bright"), style="gift", length_sec=LENGTH_S)
KEY = "film-gift1-1"
TOKEN = "provider-token"


def _provider(fake: FakeSongProvider, **changes: float) -> HttpSongProvider:
    options = {"timeout": 5.0, "poll_interval": 0.05, "max_wait": 10.0} | changes
    return HttpSongProvider(fake.url, options["timeout"], options["poll_interval"],
                            options["max_wait"], max_bytes=int(changes.get("max_bytes", 50e6)),
                            token=TOKEN)


def _order(mode: str, tmp_path: Path, **fake_options: object) -> tuple[SongAssets,
                                                                       FakeSongProvider]:
    with FakeSongProvider(mode, **fake_options) as fake:  # type: ignore[arg-type]
        return _provider(fake).make_song(BRIEF, 7, 3, tmp_path, idempotency_key=KEY), fake


def _read_wav(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path)) as wav:
        rate, frames, width = wav.getframerate(), wav.getnframes(), wav.getsampwidth()
        raw = np.frombuffer(wav.readframes(frames), np.uint8).reshape(-1, width)
        assert wav.getnchannels() == 2 and width == 3
    ints = raw[:, 0].astype(np.int32) | raw[:, 1].astype(np.int32) << 8 | raw[:, 2].astype(
        np.int32) << 16
    ints = np.where(ints >= 1 << 23, ints - (1 << 24), ints).reshape(-1, 2)
    return (ints / (2**23 - 1)).astype(np.float32), rate


def _assert_mastered_song(assets: SongAssets) -> None:
    audio, rate = _read_wav(assets.wav_path)
    assert rate == AUDIO_SAMPLE_RATE
    assert abs(len(audio) / rate - LENGTH_S) <= 0.05
    lufs = pyln.Meter(rate).integrated_loudness(audio.astype(np.float64))
    assert abs(lufs - TARGET_LUFS) <= LUFS_TOLERANCE
    assert true_peak_dbtp(audio) <= MAX_TRUE_PEAK_DBTP
    assert assets.metadata["duration_sec"] == pytest.approx(LENGTH_S, abs=0.05)


def test_done_song_is_validated_mastered_and_given_an_estimated_beat_grid(
        tmp_path: Path) -> None:
    assets, fake = _order("done", tmp_path)
    _assert_mastered_song(assets)
    meta = json.loads(json.dumps(assets.metadata))
    assert meta["provider"] == "http" and meta["key"] == "A major"
    assert meta["lyrics"] == ["A song from the fake provider", "La la la"]
    assert meta["beat_source"] == "estimated"
    assert meta["tempo_bpm"] == pytest.approx(TEMPO_BPM, rel=0.005)
    truth = np.array(beat_times(LENGTH_S))
    errors = [np.min(np.abs(truth - t)) for t in meta["beat_times"]]
    assert np.median(errors) < 0.015 and len(meta["beat_times"]) >= len(truth) - 1
    assert meta["source_sample_rate"] == 44_100 and meta["source_channels"] == 1
    assert meta["chosen"] == 0 and len(meta["candidates"]) == 1
    assert meta["candidates"][0]["valid"] is True
    post = [headers for method, _, headers in fake.requests if method == "POST"]
    assert [h["Idempotency-Key"] for h in post] == [KEY]
    body_brief = fake.jobs["job1"]["brief"]
    assert body_brief["recipient_name"] == "Anna" and body_brief["length_sec"] == LENGTH_S
    assert "http provider" in song_note(meta)
    assert all(h.get("Authorization") == f"Bearer {TOKEN}" for _, _, h in fake.requests)


def test_token_is_not_sent_to_another_origin() -> None:
    provider = HttpSongProvider("https://songs.example/v1", 1.0, 1.0, 1.0, max_bytes=1,
                                token=TOKEN)
    assert provider._auth_for("https://songs.example/audio/1.wav") != {}
    assert provider._auth_for("https://cdn.example/audio/1.wav") == {}
    assert provider._auth_for("http://songs.example/audio/1.wav") == {}


def test_slow_job_is_polled_until_done_and_its_own_beat_grid_is_kept(tmp_path: Path) -> None:
    assets, fake = _order("slow", tmp_path, pending_polls=3, with_beats=True)
    polls = [path for method, path, _ in fake.requests if path.startswith("/songs/")]
    assert len(polls) == 4
    assert assets.metadata["beat_source"] == "provider"
    assert assets.metadata["beat_times"] == beat_times(LENGTH_S)
    assert assets.metadata["bar_times"] == beat_times(LENGTH_S)[::4]
    _assert_mastered_song(assets)


def _attempts(provider: HttpSongProvider, tmp_path: Path,
              attempts: int) -> tuple[SongAssets | None, list[SongProviderUnavailable]]:
    """The song as the assets activity's retries get it: ``make_song`` once per attempt, each
    unavailable provider retried (as its retry policy does), at most ``attempts`` times."""
    unavailable: list[SongProviderUnavailable] = []
    for _ in range(attempts):
        try:
            return provider.make_song(BRIEF, 7, 1, tmp_path, idempotency_key=KEY), unavailable
        except SongProviderUnavailable as error:
            unavailable.append(error)
    return None, unavailable


def test_a_503_fails_the_attempt_and_the_retried_activity_gets_the_one_job_it_ordered(
        tmp_path: Path) -> None:
    with FakeSongProvider("503_then_ok", fail_first=2, retry_after=7) as fake:
        assets, unavailable = _attempts(_provider(fake), tmp_path, STAGE_RETRY.maximum_attempts)
    assert assets is not None and assets.wav_path.exists()
    assert len(unavailable) == 2 and all("503" in str(error) for error in unavailable)
    assert {error.next_retry_delay for error in unavailable} == {timedelta(seconds=7)}
    posts = [headers["Idempotency-Key"] for method, _, headers in fake.requests
             if method == "POST"]
    assert posts == [KEY] * 3 and len(fake.jobs) == 1


def test_provider_down_for_good_is_left_to_the_activitys_retry_policy(tmp_path: Path) -> None:
    with FakeSongProvider("503_then_ok", fail_first=100) as fake:
        assets, unavailable = _attempts(_provider(fake), tmp_path, STAGE_RETRY.maximum_attempts)
        assert len(fake.requests) == STAGE_RETRY.maximum_attempts  # one request per attempt
    assert assets is None
    assert all(not error.non_retryable and error.next_retry_delay is None
               for error in unavailable)
    assert "SongProviderUnavailable" not in STAGE_RETRY.non_retryable_error_types


def test_a_provider_that_cannot_be_reached_is_retryable(tmp_path: Path) -> None:
    with FakeSongProvider("done") as fake:
        url = fake.url
    with pytest.raises(SongProviderUnavailable) as caught:
        HttpSongProvider(url, 1.0, 0.05, 1.0, max_bytes=1).make_song(BRIEF, 7, 1, tmp_path)
    assert not caught.value.non_retryable and "ConnectError" in str(caught.value)


def test_hold_answer_ends_the_run_held_and_a_retry_does_not_order_again(
        tmp_path: Path) -> None:
    with FakeSongProvider("hold") as fake:
        provider = _provider(fake)
        for _ in range(2):
            with pytest.raises(ApplicationError) as caught:
                provider.make_song(BRIEF, 7, 1, tmp_path, idempotency_key=KEY)
            assert caught.value.type == HOLD_ERROR_TYPE and caught.value.non_retryable
            assert caught.value.details[0] == HoldReason.SONG_PROVIDER_HOLD == "song_provider_hold"
        assert len(fake.jobs) == 1


@pytest.mark.parametrize(("mode", "kind", "words"), [
    ("wrong_length", "SongProviderBadAudio", "wrong length"),
    ("not_audio", "SongProviderBadAudio", "not audio"),
    ("failed", "SongProviderError", "renderer crashed"),
])
def test_unusable_answer_is_an_error_that_is_not_retried(mode: str, kind: str, words: str,
                                                         tmp_path: Path) -> None:
    with pytest.raises(SongProviderError) as caught:
        _order(mode, tmp_path)
    assert caught.value.type == kind and caught.value.non_retryable
    assert words in str(caught.value)


def test_oversized_audio_is_refused_while_streaming(tmp_path: Path) -> None:
    with FakeSongProvider("done") as fake, pytest.raises(SongProviderError) as caught:
        _provider(fake, max_bytes=10_000).make_song(BRIEF, 7, 1, tmp_path)
    assert caught.value.type == "SongProviderBadAudio" and "10000" in str(caught.value)


def test_job_still_running_after_max_wait_is_retryable(tmp_path: Path) -> None:
    with FakeSongProvider("slow", pending_polls=10_000) as fake, \
            pytest.raises(SongProviderUnavailable) as caught:
        _provider(fake, max_wait=0.3).make_song(BRIEF, 7, 1, tmp_path)
    assert "not done after" in str(caught.value)
    polls = [path for _, path, _ in fake.requests if path.startswith("/songs/")]
    assert 2 <= len(polls) <= 8


def test_settings_choose_the_provider() -> None:
    assert isinstance(song_provider(Settings()), LocalSongProvider)
    configured = song_provider(Settings(FILM_SONG_PROVIDER_URL="https://songs.example/v1",
                                        FILM_SONG_PROVIDER_MAX_WAIT_S=60))
    assert isinstance(configured, HttpSongProvider)
    assert (configured.base_url, configured.max_wait) == ("https://songs.example/v1/", 60.0)
    with pytest.raises(ValueError):
        HttpSongProvider("file:///etc", 1.0, 1.0, 1.0, max_bytes=1)


# --------------------------------------------------------------------------- the assets stage


def _assets_input(ctx: StageContext, tier: str) -> StageInput:
    order = order_with_media("giftsong1", [("p01", "jpg")], tier=tier)
    key = order.run_keys.prepared_photo("p01")
    image = io.BytesIO()
    Image.new("RGB", (96, 64), (200, 120, 80)).save(image, "JPEG")
    ctx.storage.put_bytes(key, image.getvalue(), "image/jpeg")
    photo = PreparedPhoto(id="p01", key=key, width=96, height=64, low_res=True)
    return StageInput(order=order, prep=PrepResult(photos=[photo], clips=[], rejected=[]))


def test_signature_assets_write_every_candidate_score_and_the_choice(tmp_path: Path) -> None:
    ctx = local_context(tmp_path)
    stage_input = _assets_input(ctx, "signature")
    result = run_assets(ctx, stage_input)
    meta = json.loads(ctx.storage.get_bytes(result.song_meta_key, 4 << 20))
    assert len(meta["candidates"]) == ctx.settings.recipe(Tier.SIGNATURE).song_candidates == 3
    totals = [c["total"] for c in meta["candidates"]]
    assert meta["chosen"] == int(np.argmax(totals)) and meta["provider"] == "local"
    assert meta["scored_on"].startswith("preview") and math.isfinite(meta["integrated_lufs"])
    assert {c["candidate"]["variant"] for c in meta["candidates"]} >= {0}
    assert result.lyrics == meta["lyrics"] and any("best of 3" in n for n in result.notes)
    assert result.lyrics_sung is False  # the local composer sings no words: a dedication
    wav = ctx.storage.get_file(result.song_key, tmp_path / "song.wav")
    with wave.open(str(wav)) as song:
        assert song.getnframes() == 30 * AUDIO_SAMPLE_RATE and song.getnchannels() == 2


def test_provider_hold_in_the_assets_stage_holds_the_run(tmp_path: Path) -> None:
    with FakeSongProvider("hold") as fake:
        ctx = local_context(tmp_path, FILM_SONG_PROVIDER_URL=fake.url,
                            FILM_SONG_PROVIDER_POLL_S=0.05)
        with pytest.raises(ApplicationError) as caught:
            run_assets(ctx, _assets_input(ctx, "standard"))
        assert is_hold(caught.value, HoldReason.SONG_PROVIDER_HOLD)
        headers = next(h for method, _, h in fake.requests if method == "POST")
        assert headers["Idempotency-Key"] == "film-giftsong1-1"


def test_a_provider_song_with_its_own_words_reaches_deliver_as_sung_lyrics(
        tmp_path: Path) -> None:
    with FakeSongProvider("done") as fake:
        ctx = local_context(tmp_path, FILM_SONG_PROVIDER_URL=fake.url,
                            FILM_SONG_PROVIDER_POLL_S=0.05)
        result = run_assets(ctx, _assets_input(ctx, "standard"))
    assert result.lyrics == ["A song from the fake provider", "La la la"]
    assert result.lyrics_sung is True
