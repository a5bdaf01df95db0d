"""The outcome's contract for an order API in any language: every reason the workflow reports
(holds, stage failures, refused starts, files left out) and ``film_url``'s keys are in
``names.json`` and validate against ``film-outcome.schema.json``, a made-up one does not; the
callback's body and the workflow's result are the same JSON, with nothing null; the media ids and
the ``file://`` key layout are written down in ``contract/``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ActivityError, ApplicationError, RetryState
from temporalio.exceptions import TimeoutError as TemporalTimeoutError

from app.contract_files import media_words
from media.base import errors
from media.base.spec import ASPECTS
from services.storage import open_storage
from tests.test_contract import order_fields
from workflows import intake
from workflows.contract import FilmOutcome, FilmStage, FilmState
from workflows.film import FilmRender, left_out_reason
from workflows.keys import photo_key
from workflows.schemas import SCHEMA_DIR
from workflows.stages import HoldReason, Rejection, hold

NAMES = json.loads((SCHEMA_DIR / "names.json").read_text(encoding="utf-8"))
OUTCOME_SCHEMA = json.loads((SCHEMA_DIR / "film-outcome.schema.json").read_text("utf-8"))
WORKFLOW_ID = "film-gift0001-1"


def outcome(state: FilmState, stage: FilmStage, reason: str | None, **fields: Any
            ) -> FilmOutcome:
    """An outcome of the run ``film-gift0001-1``."""
    return FilmOutcome(workflow_id=WORKFLOW_ID, attempt=1, charge_id="ch_1", state=state,
                       stage=stage, reason=reason, **fields)


def delivered(**film_url: str) -> dict[str, Any]:
    """The fields of a succeeded outcome (``film_url`` by aspect)."""
    return {"film_url": film_url, "gift_url": "https://films.example/s/index.html",
            "poster_url": "https://films.example/s/poster.jpg", "duration_sec": 30.0}


def schema_errors(body: bytes) -> list[str]:
    validator = jsonschema.Draft202012Validator(OUTCOME_SCHEMA)
    return [error.message for error in validator.iter_errors(json.loads(body))]


def stage_failure(stage: FilmStage, cause: BaseException) -> str:
    """The reason the workflow reports when ``stage``'s activity fails with ``cause``."""
    error = ActivityError("activity failed", scheduled_event_id=5, started_event_id=6,
                          identity="w", activity_type=stage.value, activity_id="1",
                          retry_state=RetryState.MAXIMUM_ATTEMPTS_REACHED)
    error.__cause__ = cause
    return FilmRender._classify(stage, error).reason


def refused_starts() -> list[str]:
    """The reasons of starts that cannot become an order, as the workflow refuses them."""
    reasons = [intake.refuse_start(field, WORKFLOW_ID).reason
               for field in (intake.ARITY, intake.PLAIN, intake.CODEC, "codec_key",
                             "codec_seal")]
    for payload in (intake.UNDECODABLE, [], order_fields(colour="red"),
                    order_fields(recipient_name=""), order_fields(attempt=2),
                    order_fields(brand={"color": "#ffffff"})):
        refused = intake.read_order(payload, WORKFLOW_ID)
        assert isinstance(refused, intake.RefusedOrder), payload
        reasons.append(refused.reason)
    return reasons


def test_every_reason_the_workflow_reports_validates_and_is_named_in_names_json() -> None:
    reasons = NAMES["outcome_reasons"]
    for reason in HoldReason:
        held = stage_failure(FilmStage.GATE, hold(reason, "why"))
        assert held == reason.value and held in reasons["held"]
        assert schema_errors(outcome(FilmState.HELD, FilmStage.GATE, held).body()) == []
    failures = [stage_failure(FilmStage.VERIFY, ApplicationError("x", type="FilmSpecMiss")),
                stage_failure(FilmStage.RENDER, RuntimeError("ffmpeg died")),
                stage_failure(FilmStage.PREP, TemporalTimeoutError("t", type=None,
                                                                  last_heartbeat_details=[])),
                *refused_starts()]
    assert failures[:3] == ["verify_failed:FilmSpecMiss", "render_failed:error",
                            "prep_failed:error"]
    assert {"invalid_order:arity", "invalid_order:payload", "invalid_order:unknown_field",
            "invalid_order:recipient_name", "invalid_order:workflow_id",
            "invalid_order:order"} <= set(failures)
    for reason in failures:
        assert schema_errors(outcome(FilmState.FAILED, FilmStage.PREP, reason).body()) == []
        what = reason.partition(":")[2]
        assert what in reasons["failed"]["invalid_order_what"] or reason.startswith(
            tuple(f"{stage.value}_failed:" for stage in FilmStage))
    left_out = left_out_reason([Rejection(id="p03", reason=errors.IMAGE_CORRUPT),
                                Rejection(id="c01", reason=errors.VIDEO_ASPECT)])
    assert left_out == "left_out:p03=image_corrupt,c01=video_aspect_unsupported"
    urls = {aspect.name: f"https://films.example/s/{aspect.name}.mp4" for aspect in ASPECTS}
    for reason in (None, left_out):
        body = outcome(FilmState.SUCCEEDED, FilmStage.DELIVER, reason, **delivered(**urls))
        assert schema_errors(body.body()) == []
    assert set(reasons["succeeded"]["refusals"]) == set(media_words().refusals)


@pytest.mark.parametrize(("state", "reason"), [
    (FilmState.HELD, "render_failed:error"), (FilmState.HELD, None),
    (FilmState.FAILED, "no_usable_photos"), (FilmState.FAILED, "invalid_order:colour"),
    (FilmState.FAILED, "render_failed:a b"), (FilmState.FAILED, None),
    (FilmState.SUCCEEDED, "left_out:p03=blurry"), (FilmState.SUCCEEDED, "consent_missing"),
])
def test_a_reason_outside_the_contract_is_refused_by_the_outcome_schema(
        state: FilmState, reason: str | None) -> None:
    urls = {aspect.name: "https://films.example/f.mp4" for aspect in ASPECTS}
    fields = delivered(**urls) if state is FilmState.SUCCEEDED else {}
    assert schema_errors(outcome(state, FilmStage.GATE, reason, **fields).body())


def test_film_url_has_exactly_the_delivered_aspects_as_keys() -> None:
    assert NAMES["film_url_keys"] == [aspect.name for aspect in ASPECTS] == ["16x9", "9x16"]
    both = {"16x9": "https://f.example/a.mp4", "9x16": "https://f.example/b.mp4"}
    ok = outcome(FilmState.SUCCEEDED, FilmStage.DELIVER, None, **delivered(**both))
    assert schema_errors(ok.body()) == []
    for film_url in ({"16x9": both["16x9"]}, {**both, "1x1": both["16x9"]}):
        wrong = outcome(FilmState.SUCCEEDED, FilmStage.DELIVER, None, **delivered(**film_url))
        assert schema_errors(wrong.body())
    no_films = outcome(FilmState.SUCCEEDED, FilmStage.DELIVER, None)
    assert schema_errors(no_films.body())


def test_the_callback_body_and_the_workflow_result_are_the_same_json_without_nulls() -> None:
    held = outcome(FilmState.HELD, FilmStage.GATE, "consent_missing")
    [payload] = pydantic_data_converter.payload_converter.to_payloads([held])
    as_result = json.loads(payload.data)
    assert as_result == json.loads(held.body()) == {
        "workflow_id": WORKFLOW_ID, "attempt": 1, "charge_id": "ch_1", "state": "held",
        "stage": "gate", "reason": "consent_missing"}
    assert held.model_dump() == as_result and "null" not in held.body().decode()
    [read_back] = pydantic_data_converter.payload_converter.from_payloads([payload],
                                                                          [FilmOutcome])
    assert read_back == held
    nulls = {**as_result, "film_url": None}
    assert schema_errors(json.dumps(nulls).encode()), "null is not a value of the contract"


def test_the_media_ids_and_the_file_storage_layout_are_written_down(tmp_path: Path) -> None:
    media = NAMES["media"]
    assert media["clip_ids"] == ["c01", "c02", "c03"] and "p01" in media["photo_ids"]
    assert "p30" in media["photo_ids"]
    assert media["photo_key"] == photo_key("{gift_id}", "{id}", "{ext}")
    guide = (SCHEMA_DIR / media["storage"]).read_text(encoding="utf-8")
    key = photo_key("g_123", "p01", "jpg")
    storage = open_storage(f"file://{tmp_path}")
    storage.put_bytes(key, b"jpeg")
    assert (tmp_path / "orders" / "g_123" / "photos" / "p01.jpg").read_bytes() == b"jpeg"
    for documented in (media["photo_key"], media["clip_key"], key, f"/srv/films/{key}",
                       "`p01`, `p02`, ... `p30`", "`c01`, `c02`, `c03`"):
        assert documented in guide, documented
