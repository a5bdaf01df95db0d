"""The order API contract: names, limits and validation messages."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from app.contract_files import contract_files
from workflows.contract import (
    TASK_QUEUE,
    TIER_PRICE_CENTS,
    WORKFLOW_TYPE,
    FilmOrder,
    FilmOutcome,
    FilmStage,
    FilmState,
    Progress,
    Tier,
    sign_body,
    verify_signature,
    workflow_id,
)
from workflows.schemas import MODELS, SCHEMA_DIR


def order_fields(**overrides: Any) -> dict[str, Any]:
    """A valid order's fields, with overrides."""
    fields: dict[str, Any] = {
        "gift_id": "gift0001", "attempt": 1, "charge_id": "ch_123", "share_slug": "slug0001",
        "tier": "standard", "style": "gift",
        "occasion": {"slug": "birthday", "name": "Birthday", "short_name": "Happy Birthday",
                     "tone": "joyful"},
        "recipient_name": "Zoë O'Brien", "relationship": "sister", "length_sec": 60,
        "photos": [{"id": "p01", "key": "orders/gift0001/photos/p01.jpg", "mime": "image/jpeg"}],
        "consent": {"accepted": True, "at": datetime(2026, 11, 21, tzinfo=UTC).isoformat()},
    }
    fields.update(overrides)
    return fields


def photos(count: int) -> list[dict[str, str]]:
    """``count`` valid photo refs."""
    return [{"id": f"p{i:02d}", "key": f"orders/gift0001/photos/p{i:02d}.jpg",
             "mime": "image/jpeg"} for i in range(1, count + 1)]


def test_names_match_the_design() -> None:
    assert TASK_QUEUE == "film-render"
    assert WORKFLOW_TYPE == "FilmRender"
    assert workflow_id("abc123", 2) == "film-abc123-2"
    assert TIER_PRICE_CENTS == {Tier.STANDARD: 1200, Tier.SIGNATURE: 2500}
    assert [s.value for s in FilmStage] == ["prep", "gate", "assets", "render", "verify",
                                            "deliver"]
    assert [s.value for s in FilmState] == ["running", "held", "succeeded", "failed"]


def test_a_valid_order_is_accepted_with_spec_defaults() -> None:
    order = FilmOrder.model_validate(order_fields(tier=None) | {"tier": "signature"})
    assert order.workflow_id == "film-gift0001-1"
    assert order.run_prefix == "orders/gift0001/runs/1"
    assert order.delivery_prefix == "films/slug0001"
    assert FilmOrder.model_validate({k: v for k, v in order_fields().items()
                                     if k not in ("tier", "style")}).tier is Tier.SIGNATURE


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"recipient_name": ""}, "recipient_name"),
        ({"recipient_name": "x" * 81}, "at most 80"),
        ({"relationship": "y" * 81}, "relationship"),
        ({"memory": "m" * 501}, "at most 500"),
        ({"story_note": "s" * 501}, "story_note"),
        ({"feeling_words": ["a"] * 7}, "at most 6"),
        ({"feeling_words": ["w" * 31]}, "at most 30"),
        ({"feeling_words": [""]}, "at least 1"),
        ({"length_sec": 29}, "greater than or equal to 30"),
        ({"length_sec": 181}, "less than or equal to 180"),
        ({"tier": "gold"}, "'standard' or 'signature'"),
        ({"style": "retro"}, "'gift', 'brand' or 'social'"),
        ({"photos": []}, "at least 1"),
        ({"photos": photos(31)}, "at most 30"),
        ({"photos": [{"id": "x1", "key": "orders/gift0001/photos/x1.jpg",
                      "mime": "image/jpeg"}]}, "photos.0.id"),
        ({"photos": [{"id": "p01", "key": "orders/gift0001/photos/p01.heic",
                      "mime": "image/heic"}]}, "photos.0.mime"),
        ({"photos": [{"id": "p01", "key": "orders/other/photos/p01.jpg",
                      "mime": "image/jpeg"}]}, "key must be orders/{gift_id}/photos/p01"),
        ({"photos": [{"id": "p01", "key": "orders/gift0001/photos/../../etc/p01.jpg",
                      "mime": "image/jpeg"}]}, "key must be"),
        ({"clips": [{"id": "c04", "key": "orders/gift0001/clips/c04.mp4",
                     "mime": "video/mp4"}]}, "clips.0.id"),
        ({"clips": [{"id": "c01", "key": "orders/gift0001/clips/c01.mp4", "mime": "video/mp4",
                     "duration_hint": 601}]}, "less than or equal to 600"),
        ({"clips": [{"id": f"c0{i}", "key": f"orders/gift0001/clips/c0{i}.mp4",
                     "mime": "video/mp4"} for i in (1, 2, 3, 3)]}, "at most 3"),
        ({"style": "brand", "brand": {"color": "red"}}, "brand.color"),
        ({"style": "brand", "brand": {"logo_url": "http://example.com/logo.png"}}, "https"),
        ({"brand": {"color": "#112233"}}, "only allowed with style 'brand'"),
        ({"subject_photo_id": "p09"}, "subject_photo_id must name"),
        ({"unknown_field": 1}, "Extra inputs are not permitted"),
        ({"recipient_name": "\x00\x07 \n"}, "recipient_name"),
        ({"gift_id": "../../x"}, "gift_id"),
        ({"attempt": 0}, "attempt"),
        ({"occasion": {"slug": "Birthday!", "name": "B", "short_name": "B", "tone": "t"}},
         "occasion.slug"),
    ],
)
def test_out_of_range_fields_are_rejected_with_a_clear_message(
    overrides: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        FilmOrder.model_validate(order_fields(**overrides))
    assert message in str(raised.value)


def test_control_characters_are_stripped_from_names() -> None:
    order = FilmOrder.model_validate(order_fields(
        recipient_name="Eve\x00\x07", relationship=" big\r\nsister\t\x85\x9b ",
        feeling_words=["jo\x1by", "warm\nhearted"]))
    assert order.recipient_name == "Eve"
    assert order.relationship == "big sister"
    assert order.feeling_words == ["joy", "warm hearted"]


def test_stories_keep_their_line_breaks_but_lose_other_control_characters() -> None:
    order = FilmOrder.model_validate(order_fields(
        memory="First line\r\nsecond\rthird\u2028fourth\tend\x00\x7f",
        story_note="\x1b[31mred\x1b[0m\n"))
    assert order.memory == "First line\nsecond\nthird\nfourth end"
    assert order.story_note == "[31mred[0m\n"


def test_limits_apply_to_the_cleaned_text() -> None:
    padded = FilmOrder.model_validate(order_fields(recipient_name="x" * 80 + "\x00" * 20,
                                                   memory="m" * 500 + "\x07" * 20))
    assert padded.recipient_name == "x" * 80 and padded.memory == "m" * 500
    with pytest.raises(ValidationError, match="at most 80"):
        FilmOrder.model_validate(order_fields(recipient_name="x" * 81 + "\x00"))
    with pytest.raises(ValidationError, match="recipient_name"):
        FilmOrder.model_validate(order_fields(recipient_name=42))


def test_cleaning_is_idempotent_so_a_validated_order_validates_unchanged() -> None:
    rng = random.Random(7)
    alphabet = "ab Zö李\n\r\t\x00\x07\x1b\x7f\x85\x9b\u2028 "
    for _ in range(300):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40))) + "x"
        story = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        order = FilmOrder.model_validate(order_fields(recipient_name=name, memory=story,
                                                      feeling_words=[name[:29] + "y"]))
        assert FilmOrder.model_validate(order.model_dump()) == order


def test_brand_style_accepts_https_logo_and_hex_colour() -> None:
    order = FilmOrder.model_validate(order_fields(
        style="brand", brand={"logo_url": "https://cdn.example.com/logo.png", "color": "#A1b2C3"}))
    assert order.brand is not None and order.brand.color == "#A1b2C3"


def test_signature_verifies_and_refuses_tampering_and_stale_timestamps() -> None:
    body = FilmOutcome(workflow_id="film-g-1", attempt=1, charge_id="c", state=FilmState.HELD,
                       stage=FilmStage.GATE, reason="no_usable_photos").body()
    signature = sign_body("s3cret", 1_800_000_000, body)
    assert signature.startswith("v1=") and len(signature) == 3 + 64
    assert verify_signature("s3cret", "1800000000", signature, body, now=1_800_000_100)
    assert not verify_signature("s3cret", "1800000000", signature, body + b" ",
                                now=1_800_000_000)
    assert not verify_signature("other", "1800000000", signature, body, now=1_800_000_000)
    assert not verify_signature("s3cret", "1800000000", signature, body, now=1_800_000_301)
    assert not verify_signature("s3cret", "18e8", signature, body, now=1_800_000_000)


# --- The contract for an API in any language: JSON Schema files, a light import --------------


def test_the_schema_files_match_the_models_regenerate_with_make_schemas() -> None:
    for name, text in contract_files().items():
        on_disk = SCHEMA_DIR / name
        assert on_disk.is_file(), f"contract/{name} missing: run `make schemas`"
        assert on_disk.read_text(encoding="utf-8") == text, \
            f"contract/{name} drifted from the pydantic model: run `make schemas`"
    assert sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json")) == sorted(MODELS)


def _schema(name: str) -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator
    validator.check_schema(schema)
    return validator(schema)


def test_what_the_api_sends_and_receives_validates_against_the_schema_files() -> None:
    order = FilmOrder.model_validate(order_fields())
    assert not list(_schema("film-order.schema.json").iter_errors(
        json.loads(order.model_dump_json())))
    assert list(_schema("film-order.schema.json").iter_errors(order_fields(tier="gold")))
    outcome = FilmOutcome(workflow_id="film-g-1", attempt=1, charge_id="c",
                          state=FilmState.HELD, stage=FilmStage.GATE, reason="text_policy")
    assert not list(_schema("film-outcome.schema.json").iter_errors(json.loads(outcome.body())))
    progress = Progress(state=FilmState.RUNNING, stage=FilmStage.RENDER, percent=41,
                        stage_percent=20, updated_at=datetime(2026, 11, 24, tzinfo=UTC))
    assert not list(_schema("progress.schema.json").iter_errors(
        json.loads(progress.model_dump_json())))


def test_the_contract_and_codec_import_without_media_code() -> None:
    """What the order API imports (contract, keys, codec, schemas) pulls in no OpenCV,
    numpy, Pillow, ffmpeg wrapper or media module."""
    heavy = ("cv2", "numpy", "PIL", "scipy", "ffmpeg", "media", "activities", "services")
    probe = ("import sys, workflows.contract, workflows.keys, workflows.codec, "
             "workflows.schemas; "
             f"loaded = [m for m in {heavy!r} if m in sys.modules]; "
             "print(loaded); sys.exit(1 if loaded else 0)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
