"""Payload encryption shared by the worker and the order API's starter (light: temporalio and
``cryptography`` only, no media code).

Every workflow and activity payload (the order with its customer text, stage inputs and
results, the outcome) is sealed with AES-256-GCM before it leaves the process, so the
Temporal server, its database and the UI hold ciphertext. The key id travels in the payload
metadata, so keys rotate without breaking running workflows: encrypt with the current key,
decrypt with any key still listed.

Keys come from the environment, read at the process's edge (the worker's settings, the order
API's starter) and handed in: nothing here reads it::

    FILM_PAYLOAD_KEYS="k2:<base64 32 bytes>,k1:<base64 32 bytes>"   # first = current
    FILM_PAYLOAD_KEY_ID=k2                                          # optional override

A payload without :data:`ENCODING` (one recorded before encryption was turned on, such as the
replay baselines in ``tests/histories/baseline``) passes through :meth:`AesGcmCodec.decode`
unchanged; the worker never *writes* such a payload while keys are configured.
"""

from __future__ import annotations

import base64
import dataclasses
import os
from collections.abc import Mapping, Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.message import DecodeError
from temporalio.api.common.v1 import Payload
from temporalio.converter import DataConverter, PayloadCodec

ENCODING = b"binary/encrypted"
"""``metadata["encoding"]`` of a sealed payload."""
KEY_ID_METADATA = "encryption-key-id"
"""``metadata`` entry naming the key that sealed the payload."""
KEYS_ENV = "FILM_PAYLOAD_KEYS"
KEY_ID_ENV = "FILM_PAYLOAD_KEY_ID"
UNOPENED_ENCODING = b"binary/film-unopened"
"""``metadata["encoding"]`` of the marker a worker decodes a payload it cannot open into."""
UNOPENED_METADATA = "film-unopened"
"""The marker's reason: :data:`UNOPENED_KEY` or :data:`UNOPENED_SEAL`."""
UNOPENED_KEY = b"codec_key"
"""Sealed with a key id this worker does not hold."""
UNOPENED_SEAL = b"codec_seal"
"""Sealed with a known key id, but the tag or the sealed bytes do not check out."""
CLEAR_METADATA = "film-clear"
"""Set by :class:`WorkerCodec` on a payload that arrived unsealed while keys are set."""
NONCE_BYTES = 12  # the GCM standard nonce, random per payload
KEY_BYTES = 32  # AES-256


class CodecKeyError(ValueError):
    """The payload keys are misconfigured, or a payload names a key we do not hold."""


def parse_keys(spec: str) -> dict[str, bytes]:
    """``"id:base64key,id2:base64key"`` as ``{id: key}`` (order kept: the first is current).

    A key id given twice is refused: which of its keys seals and which opens would depend on
    the parsing (a dict keeps the first position and the last key, so "the first seals" would
    seal with the second entry's key), and a payload sealed under it by another client could
    not be opened here."""
    keys: dict[str, bytes] = {}
    for entry in filter(None, (part.strip() for part in spec.split(","))):
        key_id, sep, encoded = entry.partition(":")
        if not sep or not key_id:
            raise CodecKeyError(f"{KEYS_ENV}: entries are id:base64key, got {key_id!r}")
        if key_id in keys:
            raise CodecKeyError(f"{KEYS_ENV}: key id {key_id!r} is given twice")
        try:
            key = base64.b64decode(encoded, validate=True)
        except ValueError as error:
            raise CodecKeyError(f"{KEYS_ENV}: key {key_id!r} is not base64") from error
        if len(key) != KEY_BYTES:
            raise CodecKeyError(f"{KEYS_ENV}: key {key_id!r} must be {KEY_BYTES} bytes")
        keys[key_id] = key
    return keys


def new_key() -> str:
    """A fresh random key, base64, for ``FILM_PAYLOAD_KEYS``."""
    return base64.b64encode(AESGCM.generate_key(bit_length=KEY_BYTES * 8)).decode()


class AesGcmCodec(PayloadCodec):
    """AES-256-GCM over whole serialized payloads; the key id is in the metadata."""

    def __init__(self, keys: Mapping[str, bytes], current_key_id: str | None = None) -> None:
        if not keys:
            raise CodecKeyError("at least one payload key is needed")
        self._ciphers = {key_id: AESGCM(key) for key_id, key in keys.items()}
        self.current_key_id = current_key_id or next(iter(keys))
        if self.current_key_id not in self._ciphers:
            raise CodecKeyError(f"{KEY_ID_ENV}={self.current_key_id} is not in {KEYS_ENV}")

    @property
    def key_ids(self) -> frozenset[str]:
        """The ids of every key this codec opens with."""
        return frozenset(self._ciphers)

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Seal each payload with the current key."""
        return [self.seal(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Open sealed payloads; pass through those not sealed by this codec."""
        return [self.open(payload) for payload in payloads]

    def seal(self, payload: Payload, nonce: bytes | None = None) -> Payload:
        """One payload encrypted with the current key (nonce prepended to the ciphertext).

        ``nonce`` is random unless given: only the test vectors (``contract/codec-vectors.json``)
        fix it; a nonce reused under one key breaks AES-GCM."""
        nonce = os.urandom(NONCE_BYTES) if nonce is None else nonce
        if len(nonce) != NONCE_BYTES:
            raise ValueError(f"the nonce is {NONCE_BYTES} bytes")
        key_id = self.current_key_id.encode()
        sealed = self._ciphers[self.current_key_id].encrypt(  # AAD: the key id (codec.md)
            nonce, payload.SerializeToString(), key_id)
        return Payload(metadata={"encoding": ENCODING, KEY_ID_METADATA: key_id},
                       data=nonce + sealed)

    def open(self, payload: Payload) -> Payload:
        """The original payload of a sealed one; an unsealed payload unchanged."""
        if payload.metadata.get("encoding") != ENCODING:
            return payload
        key_id = payload.metadata.get(KEY_ID_METADATA, b"").decode()
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise CodecKeyError(f"payload sealed with unknown key id {key_id!r}")
        nonce, sealed = payload.data[:NONCE_BYTES], payload.data[NONCE_BYTES:]
        return Payload.FromString(cipher.decrypt(nonce, sealed, key_id.encode()))


class WorkerCodec(AesGcmCodec):
    """The workers' codec: opens like :class:`AesGcmCodec`, but never raises on decode.

    A payload it cannot open (an unknown key id, a bad tag, sealed bytes that are not a
    payload) decodes into a marker payload (:data:`UNOPENED_ENCODING`, the reason in
    :data:`UNOPENED_METADATA`, no data), and an unsealed payload gets :data:`CLEAR_METADATA`.
    Raising would fail the workflow task, which the server retries for ever; the marker reaches
    the workflow as its raw start argument, which it refuses as ``invalid_order:codec_key`` or
    ``invalid_order:codec_seal`` and reports. Any other payload the worker cannot open (an
    activity's input or result) fails to convert where it is used, as before. Clients (the
    starter, ``handle.result()``, the codec server) keep :class:`AesGcmCodec`, which raises.
    """

    @classmethod
    def of(cls, codec: AesGcmCodec) -> WorkerCodec:
        """The worker codec with ``codec``'s keys and current key."""
        worker = cls.__new__(cls)
        worker._ciphers, worker.current_key_id = codec._ciphers, codec.current_key_id
        return worker

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        """Open each payload, or mark it (see the class)."""
        return [self.open_or_mark(payload) for payload in payloads]

    def open_or_mark(self, payload: Payload) -> Payload:
        """The opened payload, a marker of why it cannot be opened, or ``payload`` tagged as
        having arrived in clear. Tags a client put in itself are never trusted."""
        if payload.metadata.get("encoding") != ENCODING:
            clear = Payload()
            clear.CopyFrom(payload)
            clear.metadata[CLEAR_METADATA] = b"1"
            return clear
        try:
            opened = self.open(payload)
        except CodecKeyError:
            return unopened_marker(UNOPENED_KEY)
        except (InvalidTag, DecodeError, ValueError):
            return unopened_marker(UNOPENED_SEAL)
        if CLEAR_METADATA in opened.metadata:
            del opened.metadata[CLEAR_METADATA]
        return opened


def unopened_marker(reason: bytes) -> Payload:
    """The payload a :class:`WorkerCodec` decodes an unopenable payload into."""
    return Payload(metadata={"encoding": UNOPENED_ENCODING, UNOPENED_METADATA: reason})


def codec_of(keys: str | None, key_id: str | None = None) -> AesGcmCodec | None:
    """The codec of a ``FILM_PAYLOAD_KEYS`` value (``"id:base64,id2:base64"``) sealing with
    ``key_id`` (default: the first key); None when ``keys`` is unset or blank."""
    spec = (keys or "").strip()
    if not spec:
        return None
    return AesGcmCodec(parse_keys(spec), key_id or None)


def codec_from_env(environ: Mapping[str, str]) -> AesGcmCodec | None:
    """The codec of ``FILM_PAYLOAD_KEYS`` / ``FILM_PAYLOAD_KEY_ID`` in ``environ`` (None when
    unset): the order API's starter passes ``os.environ``, read at its own process's edge."""
    return codec_of(environ.get(KEYS_ENV), environ.get(KEY_ID_ENV))


def film_data_converter(codec: PayloadCodec | None = None) -> DataConverter:
    """The pydantic data converter the workflow expects, with ``codec`` (when given) over it.
    Worker, starter, replayer and codec server must all use the same keys."""
    from temporalio.contrib.pydantic import pydantic_data_converter

    if codec is None:
        return pydantic_data_converter
    return dataclasses.replace(pydantic_data_converter, payload_codec=codec)


def worker_data_converter(converter: DataConverter) -> DataConverter:
    """``converter`` with its :class:`AesGcmCodec` as a :class:`WorkerCodec` (for workers and
    the replayer; see there); unchanged without one."""
    codec = converter.payload_codec
    if not isinstance(codec, AesGcmCodec) or isinstance(codec, WorkerCodec):
        return converter
    return dataclasses.replace(converter, payload_codec=WorkerCodec.of(codec))
