"""The interop kit in ``contract/``: the codec's test vectors hold in both directions, the names
and the callback's OpenAPI description are generated from the code, and the TypeScript starter
starts a real run (sealed with its own codec) on the dev server and prints the outcome."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from app.contract_files import contract_files
from app.order_folder import load_order_folder
from app.workers import running_worker
from services.settings import Settings
from workflows import names
from workflows.codec import AesGcmCodec, film_data_converter, parse_keys
from workflows.contract import (
    IDEMPOTENCY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    FilmOutcome,
    FilmStage,
    FilmState,
)
from workflows.schemas import SCHEMA_DIR

VECTORS = json.loads((SCHEMA_DIR / "codec-vectors.json").read_text(encoding="utf-8"))
STARTER = SCHEMA_DIR / "starter-ts"
SAMPLE_ORDER = Path(__file__).resolve().parent / "fixtures" / "order"
NODE = shutil.which("node")
NPM = shutil.which("npm")


def _payload(metadata: dict[str, str], data_base64: str) -> Payload:
    return Payload(metadata={key: base64.b64decode(value) for key, value in metadata.items()},
                   data=base64.b64decode(data_base64))


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda vector: vector["name"])
def test_codec_vectors_open_and_seal_again_to_the_same_bytes(vector: dict[str, Any]) -> None:
    keys = parse_keys(VECTORS["keys_env"])
    assert base64.b64decode(vector["key_base64"]) == keys[vector["key_id"]]
    codec = AesGcmCodec(keys, vector["key_id"])
    sealed = _payload(vector["sealed"]["metadata"], vector["sealed"]["data_base64"])
    plaintext = base64.b64decode(vector["plaintext_base64"])
    nonce = bytes.fromhex(vector["nonce_hex"])
    data = sealed.data
    assert data == nonce + bytes.fromhex(vector["ciphertext_hex"]) + bytes.fromhex(
        vector["tag_hex"])
    assert len(data) == len(plaintext) + 12 + 16
    if not vector["opens"]:
        with pytest.raises(InvalidTag):
            codec.open(sealed)
        assert AESGCM(keys[vector["key_id"]]).decrypt(nonce, data[12:], None) == plaintext
        return
    # decode: the vector opens to the exact plaintext payload
    opened = codec.open(sealed)
    assert opened.SerializeToString() == plaintext
    assert opened == _payload(vector["plaintext"]["metadata"],
                              vector["plaintext"]["data_base64"])
    # encode: the plaintext sealed again with the vector's nonce gives the same bytes
    again = codec.seal(Payload.FromString(plaintext), nonce)
    assert again.SerializeToString() == sealed.SerializeToString()
    # and the AAD is the key id, as codec.md says (independently of our codec)
    assert bytes.fromhex(vector["aad_hex"]) == vector["key_id"].encode()
    assert AESGCM(keys[vector["key_id"]]).decrypt(nonce, data[12:],
                                                  bytes.fromhex(vector["aad_hex"])) == plaintext


def test_names_and_callback_openapi_files_match_the_code_regenerate_with_make_schemas() -> None:
    rendered = contract_files()
    for name in (names.NAMES_FILE, names.OPENAPI_FILE):
        assert (SCHEMA_DIR / name).read_text(encoding="utf-8") == rendered[name], \
            f"contract/{name} drifted from the code: run `make schemas`"
    published = json.loads((SCHEMA_DIR / names.NAMES_FILE).read_text(encoding="utf-8"))
    assert published["workflow_id_template"].format(gift_id="g1", attempt=2) == "film-g1-2"
    assert [a["name"] for a in published["search_attributes"]] == [
        "GiftId", "FilmState", "FilmStage", "FilmTier"]


def test_callback_openapi_names_the_signed_headers_and_validates_an_outcome() -> None:
    spec = json.loads((SCHEMA_DIR / names.OPENAPI_FILE).read_text(encoding="utf-8"))
    assert spec["openapi"].startswith("3.1")
    [(path, methods)] = spec["paths"].items()
    assert path == "/internal/fulfillment/{gift_id}"
    parameters = {p["name"] for p in methods["post"]["parameters"]}
    assert {IDEMPOTENCY_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER, "gift_id"} <= parameters
    outcome = FilmOutcome(workflow_id="film-g-1", attempt=1, charge_id="c", state=FilmState.HELD,
                          stage=FilmStage.GATE, reason="consent_missing")
    schema = {**spec["components"]["schemas"]["FilmOutcome"],
              "components": spec["components"]}
    jsonschema.Draft202012Validator(schema).validate(json.loads(outcome.body()))


def test_the_rotated_key_vector_lists_the_keys_in_the_order_of_keys_env() -> None:
    order = [entry.split(":")[0] for entry in VECTORS["keys_env"].split(",")]
    [rotated] = [v for v in VECTORS["vectors"] if v["name"] == "rotated_key"]
    listed = rotated["description"].split("FILM_PAYLOAD_KEYS=", 1)[1].split(")")[0]
    assert [entry.split(":")[0] for entry in listed.split(",")] == order
    assert rotated["key_id"] == order[1]


def _npm(*args: str, timeout_s: float) -> None:
    done = subprocess.run([str(NPM), *args], cwd=STARTER, capture_output=True, text=True,
                          timeout=timeout_s, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def starter() -> Path:
    """The TypeScript starter, its packages installed from npm and built."""
    if NODE is None or NPM is None:
        pytest.skip("node and npm are not installed")
    _npm("ci", "--no-audit", "--no-fund", timeout_s=300)
    _npm("run", "build", timeout_s=120)
    return STARTER / "dist" / "starter.js"


def test_the_schemas_compile_in_ajv_strict_mode_without_a_warning(starter: Path) -> None:
    done = subprocess.run([str(NODE), str(starter), "--check-schemas"], cwd=STARTER,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    assert done.stdout.strip() == "3 schemas compile in strict mode"


@pytest.mark.timeout(600)
async def test_typescript_starter_validates_seals_starts_polls_and_prints_the_outcome(
    temporal_env: WorkflowEnvironment, tmp_path: Path, starter: Path,
) -> None:
    keys_env = VECTORS["keys_env"]
    sealed_client = Client(temporal_env.client.service_client, namespace="default",
                           data_converter=film_data_converter(AesGcmCodec(parse_keys(keys_env))))
    settings = Settings(FILM_STORAGE_URL=f"file://{tmp_path / 'storage'}",
                        FILM_TASK_QUEUE=f"ts-{uuid.uuid4()}", FILM_WORK_DIR=str(tmp_path / "w"))
    order = load_order_folder(SAMPLE_ORDER, settings, f"gts{uuid.uuid4().hex[:10]}")
    held = order.model_copy(update={"clips": [], "consent": order.consent.model_copy(
        update={"accepted": False})})  # held at the gate: the whole path, in seconds
    order_path = tmp_path / "order.json"
    order_path.write_text(held.model_dump_json())
    env = {**os.environ, "TEMPORAL_ADDRESS": temporal_env.client.service_client.config.target_host,
           "TEMPORAL_NAMESPACE": "default", "FILM_TASK_QUEUE": settings.task_queue,
           "FILM_PAYLOAD_KEYS": keys_env}
    async with running_worker(sealed_client, settings):
        process = await asyncio.create_subprocess_exec(
            str(NODE), str(starter), str(order_path), cwd=STARTER, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=300)
    output = stdout.decode()
    print(output)
    # 0: the outcome and every progress answer matched their schemas; no warning from ajv
    assert process.returncode == 0 and not stderr, output + stderr.decode()
    lines = output.splitlines()
    assert lines[0] == f"started film-{held.gift_id}-1"
    assert any(line.startswith("progress running prep") for line in lines)
    outcome = json.loads(lines[-1].removeprefix("outcome "))
    assert (outcome["state"], outcome["stage"], outcome["reason"]) == (
        "held", "gate", "consent_missing")
    history = await sealed_client.get_workflow_handle(outcome["workflow_id"]).fetch_history()
    start = history.events[0].workflow_execution_started_event_attributes.input.payloads[0]
    assert start.metadata["encoding"] == b"binary/encrypted"  # sealed by the TypeScript codec
    assert held.recipient_name.encode() not in start.data
