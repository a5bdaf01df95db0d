"""The names an order API in any language uses, as data: ``contract/names.json`` (task queue,
workflow type, query, search attributes and their types, workflow id template, id policies,
the media's ids and storage keys, payload codec, outcome callback, ``film_url``'s keys and the
outcome's reason codes) and ``contract/callback.openapi.json`` (the outcome callback as OpenAPI
3.1). Both are generated from the code that uses the names (``make schemas``, through
:mod:`workflows.schemas`); ``tests/test_interop.py`` fails when the files drift."""

from __future__ import annotations

from typing import Any

from workflows import codec, contract, keys
from workflows.contract import FilmState
from workflows.reasons import MediaWords, reasons_document

NAMES_FILE = "names.json"
OPENAPI_FILE = "callback.openapi.json"
OPENAPI_REF_TEMPLATE = "#/components/schemas/{model}"
RETRYABLE_STATUSES = (408, 429)
"""Besides 5xx and network errors, what the worker retries (``services/outcome.py`` imports it)."""
ALREADY_RECORDED_STATUS = 409


def media_document() -> dict[str, Any]:
    """How an order's photos and clips are numbered and where the order API stores them."""
    photo_ids = [f"p{n:02d}" for n in (1, 2, contract.PHOTOS_MAX)]
    return {
        "photo_ids": f"{photo_ids[0]}, {photo_ids[1]}, .. {photo_ids[2]}: two digits, in the "
                     f"order the customer's photos came, at most {contract.PHOTOS_MAX}",
        "photo_id_pattern": contract.PhotoRef.model_fields["id"].metadata[0].pattern,
        "clip_ids": [f"c{n:02d}" for n in range(1, contract.CLIPS_MAX + 1)],
        "photo_key": keys.media_key("{gift_id}", keys.PHOTOS, "{id}", "{ext}"),
        "clip_key": keys.media_key("{gift_id}", keys.CLIPS, "{id}", "{ext}"),
        "ext_pattern": keys.MEDIA_EXT_PATTERN,
        "storage": "storage.md",
    }


def names_document(media: MediaWords) -> dict[str, Any]:
    """Every name a client of the namespace needs, from the constants the worker uses."""
    attributes = contract.start_search_attributes("{gift_id}", "{tier}")
    return {
        "task_queue": contract.TASK_QUEUE,
        "workflow_type": contract.WORKFLOW_TYPE,
        "workflow_argument": "one FilmOrder (film-order.schema.json), JSON, encoding json/plain",
        "workflow_result": "one FilmOutcome (film-outcome.schema.json)",
        "workflow_id_template": contract.WORKFLOW_ID_TEMPLATE,
        "workflow_id_reuse_policy": contract.ID_REUSE_POLICY,
        "workflow_id_conflict_policy": contract.ID_CONFLICT_POLICY,
        "query": {"name": contract.PROGRESS_QUERY, "answer": "progress.schema.json"},
        "search_attributes": [
            {"name": key.name, "type": key.indexed_value_type.name.removeprefix(
                "INDEXED_VALUE_TYPE_"), "at_start": value}
            for key, value in attributes
        ],
        "states": [state.value for state in FilmState],
        "stages": [stage.value for stage in contract.FilmStage],
        "media": media_document(),
        "film_url_keys": list(media.aspects),
        "outcome_reasons": reasons_document(media),
        "payload_codec": {
            "spec": "codec.md",
            "encoding": codec.ENCODING.decode(),
            "key_id_metadata": codec.KEY_ID_METADATA,
            "keys_env": codec.KEYS_ENV,
            "key_id_env": codec.KEY_ID_ENV,
            "nonce_bytes": codec.NONCE_BYTES,
            "key_bytes": codec.KEY_BYTES,
            "additional_data": "the key id, UTF-8",
            "vectors": "codec-vectors.json",
        },
        "callback": {
            "method": contract.OUTCOME_METHOD,
            "path_template": contract.OUTCOME_PATH_TEMPLATE,
            "body": "film-outcome.schema.json",
            "spec": OPENAPI_FILE,
            "headers": {
                "idempotency": contract.IDEMPOTENCY_HEADER,
                "timestamp": contract.TIMESTAMP_HEADER,
                "signature": contract.SIGNATURE_HEADER,
            },
            "signature_format": "v1=<hex HMAC-SHA256(secret, \"<timestamp>.<raw body>\")>",
            "idempotency_key": "the workflow id",
            "max_clock_skew_s": contract.MAX_CLOCK_SKEW_S,
            "retried_statuses": ["5xx", *RETRYABLE_STATUSES],
            "already_recorded_status": ALREADY_RECORDED_STATUS,
        },
    }


def callback_openapi(outcome_schema: dict[str, Any]) -> dict[str, Any]:
    """The outcome callback as the order API serves it, OpenAPI 3.1; ``outcome_schema`` is the
    body's (references in :data:`OPENAPI_REF_TEMPLATE`)."""
    header = {"in": "header", "required": True}
    return {
        "openapi": "3.1.0",
        "info": {"title": "filmworker outcome callback", "version": "1",
                 "description": "The worker POSTs each run's outcome once in effect; the body's "
                 f"bytes are signed. Retried with backoff for up to a day on network errors, "
                 f"5xx, {' and '.join(map(str, RETRYABLE_STATUSES))}; any other 4xx is a bug "
                 "or a configuration error and is not retried."},
        "paths": {contract.OUTCOME_PATH_TEMPLATE: {contract.OUTCOME_METHOD.lower(): {
            "operationId": "recordFilmOutcome",
            "parameters": [
                {"name": "gift_id", "in": "path", "required": True,
                 "schema": {"type": "string"}},
                {**header, "name": contract.IDEMPOTENCY_HEADER, "schema": {"type": "string"},
                 "description": "the workflow id: deduplicate on it"},
                {**header, "name": contract.TIMESTAMP_HEADER,
                 "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
                 "description": "unix seconds; refuse one more than "
                 f"{contract.MAX_CLOCK_SKEW_S} s away from your clock"},
                {**header, "name": contract.SIGNATURE_HEADER,
                 "schema": {"type": "string", "pattern": "^v1=[0-9a-f]{64}$"},
                 "description": "v1=<hex HMAC-SHA256(secret, \"<timestamp>.<raw body>\")>"},
            ],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/FilmOutcome"}}}},
            "responses": {
                "2XX": {"description": "recorded"},
                str(ALREADY_RECORDED_STATUS): {"description": "already recorded (success)"},
                **{str(status): {"description": "retried later"}
                   for status in RETRYABLE_STATUSES},
                "5XX": {"description": "retried later"},
                "default": {"description": "refused for good: not retried, ops see it"},
            },
        }}},
        "components": {"schemas": {
            "FilmOutcome": {key: value for key, value in outcome_schema.items()
                            if key != "$defs"},
            **outcome_schema.get("$defs", {}),
        }},
    }
