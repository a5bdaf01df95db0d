"""The payload codec's test vectors, ``contract/codec-vectors.json`` (``make schemas``): fixed
keys and nonces sealed by the byte layout of ``contract/codec.md``, for a client in another
language to test itself against. The bytes never change (AES-GCM is deterministic for a given
key, nonce and additional data); ``tests/test_interop.py`` opens and seals them again with
:class:`workflows.codec.AesGcmCodec`."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload

from workflows.codec import ENCODING, KEY_ID_METADATA, NONCE_BYTES

VECTORS_FILE = "codec-vectors.json"
TAG_BYTES = 16
KEYS = {"k1": bytes(range(0x00, 0x20)), "k2": bytes(range(0xA0, 0xC0))}
"""The vectors' keys, in the order of their ``keys_env``: never use them for anything else."""
JSON = {"encoding": b"json/plain"}


@dataclass(frozen=True)
class Vector:
    """One vector: a payload sealed with a key and a nonce, with the key id as additional data
    unless ``with_aad`` is false (then the codec must refuse it)."""

    name: str
    description: str
    key_id: str
    nonce: bytes
    plaintext: Payload
    with_aad: bool = True


VECTORS = (
    Vector("json_string", "a JSON string, as every SDK's json/plain converter writes it", "k1",
           bytes(range(12)), Payload(metadata=JSON, data=b'"hello"')),
    Vector("json_object_utf8", "an order-like JSON object with non-ASCII customer text", "k1",
           bytes(range(15, 3, -1)),
           Payload(metadata=JSON, data='{"gift_id":"g_vector","recipient_name":"Zoë 李",'
                                       '"memory":"the kite"}'.encode())),
    Vector("rotated_key", "sealed with k2, the second key of keys_env (FILM_PAYLOAD_KEYS="
           "k1:..,k2:..): a key kept listed after a rotation still opens what it sealed", "k2",
           bytes(range(0xA1, 0xAD)), Payload(metadata=JSON, data=b"42")),
    Vector("empty_payload", "a payload with no metadata and no data: the sealed data is nonce "
           "and tag only", "k1", bytes(NONCE_BYTES), Payload()),
    Vector("sealed_without_aad_does_not_open", "sealed as Temporal's encryption samples do, "
           "WITHOUT the key id as additional data: our codec must refuse it", "k1",
           bytes(range(12)), Payload(metadata=JSON, data=b'"hello"'), with_aad=False),
)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _payload_json(payload: Payload) -> dict[str, Any]:
    """A payload as the vectors list it (metadata by name: a protobuf map has no order)."""
    return {"metadata": {key: _b64(payload.metadata[key]) for key in sorted(payload.metadata)},
            "data_base64": _b64(payload.data)}


def vector_document(vector: Vector) -> dict[str, Any]:
    """One vector as the file lists it."""
    key_id = vector.key_id.encode()
    aad = key_id if vector.with_aad else b""
    plaintext = vector.plaintext.SerializeToString()
    sealed = AESGCM(KEYS[vector.key_id]).encrypt(vector.nonce, plaintext, aad or None)
    sealed_payload = Payload(metadata={"encoding": ENCODING, KEY_ID_METADATA: key_id},
                             data=vector.nonce + sealed)
    return {"name": vector.name, "description": vector.description, "key_id": vector.key_id,
            "key_base64": _b64(KEYS[vector.key_id]), "nonce_hex": vector.nonce.hex(),
            "aad_hex": aad.hex(), "plaintext": _payload_json(vector.plaintext),
            "plaintext_base64": _b64(plaintext), "ciphertext_hex": sealed[:-TAG_BYTES].hex(),
            "tag_hex": sealed[-TAG_BYTES:].hex(), "sealed": _payload_json(sealed_payload),
            "opens": vector.with_aad}


def vectors_document() -> dict[str, Any]:
    """``codec-vectors.json``: the keys as ``FILM_PAYLOAD_KEYS`` takes them, then the vectors
    (their fields in the order a reader follows them)."""
    return {
        "description": "Test vectors of the filmworker payload codec (contract/codec.md): "
                       "AES-256-GCM over the serialized temporal.api.common.v1.Payload, 12-byte "
                       "nonce prepended, 16-byte tag appended, the key id as additional data. "
                       "Fixed keys and nonces: never use them for anything else.",
        "keys_env": ",".join(f"{key_id}:{_b64(key)}" for key_id, key in KEYS.items()),
        "vectors": [vector_document(vector) for vector in VECTORS],
    }
