"""Operations against a running Temporal: submit an order folder, replay a history, check
health (``filmworker submit``, ``replay``, ``healthcheck``)."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHistory
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import Replayer, WorkflowReplayResult

from activities.context import StageContext
from app.client import TemporalConfigError, connect, target_address
from app.errors import GiftLive, HistoryFileError, RunExists
from app.order_folder import Upload, read_order_folder, upload_media
from app.progress_view import showing_progress
from services.settings import Settings
from services.storage.base import Storage, hash_stream
from workflows.codec import (
    ENCODING,
    KEY_ID_METADATA,
    KEYS_ENV,
    AesGcmCodec,
    CodecKeyError,
    film_data_converter,
    worker_data_converter,
)
from workflows.contract import FilmOrder, FilmOutcome, start_render, workflow_id
from workflows.film import FilmRender
from workflows.stages import media_task_queue


async def live_run(client: Client, order: FilmOrder) -> str | None:
    """The workflow id of a running render of ``order``'s gift (attempts 1 to the order's, the
    latest first), or None. Every attempt of a gift reads the same uploads."""
    for attempt in range(order.attempt, 0, -1):
        handle = client.get_workflow_handle(workflow_id(order.gift_id, attempt))
        try:
            description = await handle.describe()
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                continue
            raise
        if description.status is WorkflowExecutionStatus.RUNNING:
            return handle.id
    return None


def uploaded_already(storage: Storage, uploads: list[Upload]) -> bool:
    """Every one of ``uploads`` is in storage at its key, byte for byte."""
    for upload in uploads:
        if not storage.exists(upload.key):
            return False
        with upload.path.open("rb") as media:
            if storage.sha256(upload.key) != hash_stream(media):
                return False
    return True


@dataclass(frozen=True)
class Submitted:
    """A started render: its workflow id and, when waited for, its outcome."""

    workflow_id: str
    outcome: FilmOutcome | None = None


async def submit_folder(folder: Path, settings: Settings, *, gift_id: str | None = None,
                        attempt: int | None = None, wait: bool = False,
                        quiet: bool = False) -> Submitted:
    """Validate ``folder``, connect, upload its media to the configured storage and start its
    render as the order API would (``attempt``: that render attempt, default the folder's or
    1); with ``wait``, follow its progress (unless ``quiet``) and wait for the outcome.

    A gift with a live run is checked before anything is uploaded: the same folder again (the
    same attempt, its media already stored byte for byte) attaches to the run without
    uploading; anything else raises :class:`GiftLive`, since the upload would replace the
    media the run is reading. Raises :class:`RunExists` when that attempt already ran."""
    order, uploads = read_order_folder(folder, gift_id, attempt=attempt)
    client = await connect(settings)
    storage = StageContext.from_settings(settings).storage
    live = await live_run(client, order)
    if live is None:
        upload_media(storage, uploads)
    elif live != order.workflow_id or not uploaded_already(storage, uploads):
        raise GiftLive(f"gift {order.gift_id} has a live run, {live}, reading its uploads: "
                       "nothing was uploaded; wait for its outcome, or submit under another "
                       "--gift-id")
    else:
        print(f"{live} is running with this folder's media: attached to it", file=sys.stderr,
              flush=True)
    try:
        handle = await start_render(client, order, task_queue=settings.task_queue)
    except WorkflowAlreadyStartedError as error:
        raise RunExists(f"{order.workflow_id} already ran (attempt {order.attempt} of gift "
                        f"{order.gift_id}): --attempt {order.attempt + 1} starts the next "
                        "attempt") from error
    if not wait:
        return Submitted(handle.id)
    print(f"started {handle.id}", file=sys.stderr, flush=True)
    async with showing_progress(handle, handle.id, quiet=quiet):
        outcome: FilmOutcome = await handle.result()
    return Submitted(handle.id, outcome)


def film_replayer(codec: AesGcmCodec | None = None) -> Replayer:
    """A replayer of the current FilmRender code, decoding as the workers do with ``codec``
    (the settings' ``FILM_PAYLOAD_KEYS``; None: payloads in clear)."""
    return Replayer(workflows=[FilmRender],
                    data_converter=worker_data_converter(film_data_converter(codec)))


async def fetch_history(settings: Settings, workflow_id: str,
                        run_id: str | None = None) -> WorkflowHistory:
    """The history of a run, from the server at ``TEMPORAL_ADDRESS``."""
    client = await connect(settings)
    return await client.get_workflow_handle(workflow_id, run_id=run_id).fetch_history()


def read_history(path: Path) -> WorkflowHistory:
    """A history written by ``WorkflowHistory.to_json()`` (or the UI / ``temporal`` CLI).
    Raises :class:`HistoryFileError` for anything else (not JSON, not a history, no start)."""
    try:
        history = WorkflowHistory.from_json(path.stem, path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError, json_format.ParseError) as error:
        reason = " ".join(str(error).split())[:160]  # JSONDecodeError is a ValueError
        raise HistoryFileError(f"{path} is not a workflow history: {reason}") from error
    if not history.events or not history.events[0].HasField(
            "workflow_execution_started_event_attributes"):
        raise HistoryFileError(f"{path} is not a workflow history: it does not begin with "
                               "WorkflowExecutionStarted")
    return history


def _payloads(message: Message) -> Iterator[Payload]:
    """Every payload anywhere inside ``message``."""
    if isinstance(message, Payload):
        yield message
        return
    for field, value in message.ListFields():
        if field.type != field.TYPE_MESSAGE:
            continue
        if field.message_type.GetOptions().map_entry:
            items: Iterable[Any] = value.values()
        elif field.is_repeated:
            items = value
        else:
            items = [value]
        for item in items:
            if isinstance(item, Message):
                yield from _payloads(item)


def check_history_keys(history: WorkflowHistory, codec: AesGcmCodec | None) -> None:
    """Raise :class:`CodecKeyError` when the history holds payloads sealed with keys that
    ``codec`` (``FILM_PAYLOAD_KEYS``) does not hold (or there is none): a replay could only
    fail then."""
    sealed = {p.metadata.get(KEY_ID_METADATA, b"").decode(errors="replace")
              for event in history.events for p in _payloads(event)
              if p.metadata.get("encoding") == ENCODING}
    if not sealed:
        return
    missing = sorted(sealed - (codec.key_ids if codec is not None else frozenset()))
    if codec is None:
        raise CodecKeyError(f"the history's payloads are encrypted (key {', '.join(missing)}): "
                            f"set {KEYS_ENV} to the workers' payload keys")
    if missing:
        raise CodecKeyError(f"the history's payloads are sealed with key {', '.join(missing)}, "
                            f"which {KEYS_ENV} does not hold")


async def replay(history: WorkflowHistory,
                 codec: AesGcmCodec | None = None) -> WorkflowReplayResult:
    """Replay ``history`` against the current FilmRender, decoding with ``codec``; the failure
    is in the result."""
    return await film_replayer(codec).replay_workflow(history, raise_on_replay_failure=False)


async def _poller_identities(client: Client, queue: str, kind: TaskQueueType.ValueType
                             ) -> list[str]:
    """The identities of the workers polling ``queue`` for ``kind`` tasks."""
    response = await client.workflow_service.describe_task_queue(DescribeTaskQueueRequest(
        namespace=client.namespace, task_queue=TaskQueue(name=queue), task_queue_type=kind))
    return [poller.identity for poller in response.pollers]


async def health_problems(settings: Settings, *, pollers: bool = True) -> list[str]:
    """What is wrong: Temporal unreachable, or (``pollers``) no worker of this host polling
    the main queue's workflows or the media queue's activities. Empty when healthy. A
    connection profile that cannot be loaded raises :class:`TemporalConfigError`."""
    try:
        client = await asyncio.wait_for(connect(settings), timeout=10)
        await client.service_client.check_health(timeout=timedelta(seconds=5))
    except TemporalConfigError:
        raise
    except Exception as error:
        return [f"temporal at {target_address(settings)} unreachable: {type(error).__name__}"]
    if not pollers:
        return []
    problems = []
    host = f"@{socket.gethostname()}"
    for queue, kind in ((settings.task_queue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
                        (media_task_queue(settings.task_queue),
                         TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)):
        if not any(i.endswith(host) for i in await _poller_identities(client, queue, kind)):
            problems.append(f"no worker of this host polls {queue}")
    return problems
