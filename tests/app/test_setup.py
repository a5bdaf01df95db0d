"""``filmworker setup`` registers the search attributes on a cluster that lacks them (a fresh
dev server started without them), idempotently, and refuses a conflicting type."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from app.devserver import temporal_cli_path
from app.setup import SearchAttributeConflict, register_search_attributes
from services.settings import Settings
from tests.helpers import FakeStages, fake_workers, make_order
from workflows.codec import film_data_converter
from workflows.contract import FilmState, start_render
from workflows.search import ALL_KEYS, FILM_STATE


@pytest_asyncio.fixture
async def bare_cluster() -> AsyncIterator[Client]:
    """A dev server with no custom search attributes, like a fresh production namespace."""
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_cli_path(Settings()),
        data_converter=film_data_converter())
    try:
        yield env.client
    finally:
        await env.shutdown()


async def _custom_attributes(client: Client) -> dict[str, int]:
    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=client.namespace))
    return dict(listed.custom_attributes)


async def test_setup_registers_the_attributes_once_and_orders_then_start(
    bare_cluster: Client,
) -> None:
    first = await register_search_attributes(bare_cluster)
    assert first.added == sorted(key.name for key in ALL_KEYS) and first.present == []
    again = await register_search_attributes(bare_cluster)
    assert again.added == [] and sorted(again.present) == sorted(k.name for k in ALL_KEYS)
    attributes = await _custom_attributes(bare_cluster)
    for key in ALL_KEYS:
        assert attributes[key.name] == IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
    async with fake_workers(bare_cluster, FakeStages()) as queue:
        handle = await start_render(bare_cluster, make_order(), task_queue=queue)
        assert (await handle.result()).state is FilmState.SUCCEEDED


async def test_setup_refuses_an_attribute_of_another_type(bare_cluster: Client) -> None:
    await bare_cluster.operator_service.add_search_attributes(AddSearchAttributesRequest(
        namespace=bare_cluster.namespace,
        search_attributes={FILM_STATE.name: IndexedValueType.INDEXED_VALUE_TYPE_TEXT}))
    with pytest.raises(SearchAttributeConflict, match="FilmState exists as"):
        await register_search_attributes(bare_cluster)
