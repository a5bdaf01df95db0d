"""``filmworker setup``: prepare a real cluster's namespace for the worker: register the custom
search attributes of :mod:`workflows.search` through the operator service. Idempotent: existing
attributes of the right type are left alone; one of the wrong type is an error to fix by hand.

Temporal Cloud does not accept this call with a namespace API key: add the attributes there with
``tcld namespace search-attributes add`` or in the Cloud UI (README "Temporal Cloud")."""

from __future__ import annotations

from dataclasses import dataclass, field

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.common import SearchAttributeKey

from app.client import connect
from services.settings import Settings
from workflows.search import ALL_KEYS


class SearchAttributeConflict(Exception):
    """A search attribute exists with another type than ours."""


@dataclass
class SetupReport:
    """What ``setup`` found and did."""

    added: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)


async def register_search_attributes(client: Client,
                                     keys: tuple[SearchAttributeKey, ...] = ALL_KEYS
                                     ) -> SetupReport:
    """Add the search attributes missing from the client's namespace; report what was there."""
    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=client.namespace))
    existing = dict(listed.custom_attributes)
    report = SetupReport()
    missing: dict[str, IndexedValueType.ValueType] = {}
    for key in keys:
        wanted = IndexedValueType.ValueType(key.indexed_value_type)
        if key.name not in existing:
            missing[key.name] = wanted
        elif existing[key.name] != wanted:
            have = IndexedValueType.Name(existing[key.name])
            raise SearchAttributeConflict(
                f"search attribute {key.name} exists as {have}, the worker needs "
                f"{IndexedValueType.Name(wanted)}")
        else:
            report.present.append(key.name)
    if missing:
        await client.operator_service.add_search_attributes(AddSearchAttributesRequest(
            namespace=client.namespace, search_attributes=missing))
        report.added = sorted(missing)
    return report


async def setup_cluster(settings: Settings) -> SetupReport:
    """``filmworker setup``: connect as every command does, register the search attributes."""
    return await register_search_attributes(await connect(settings))
