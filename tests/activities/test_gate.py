"""run_gate: consent, usable photos, text within the contract, the word list, the moderation hook.

The moderation service is a real HTTP server on 127.0.0.1; holds and failures are checked through
Temporal's own failure converter (tests/stages.py), the way the workflow will see them.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from activities.gate import run_gate
from services.moderation import ModerationRefused, ModerationUnavailable
from tests.stages import ends_failed, is_hold, local_context, order_with_media
from workflows.contract import FilmOrder
from workflows.keys import RunKeys, photo_key
from workflows.stages import HoldReason, PreparedClip, PreparedPhoto, PrepResult, StageInput

GIFT = "gategift01"


def prepared(order: FilmOrder, *, photos: bool = True) -> PrepResult:
    """A prep result keeping every photo and clip of ``order`` (or no photo at all)."""
    run = order.run_keys
    return PrepResult(
        photos=[PreparedPhoto(id=p.id, key=run.prepared_photo(p.id), width=640,
                              height=480, low_res=True) for p in order.photos] if photos else [],
        clips=[PreparedClip(id=c.id, key=run.prepared_clip(c.id), duration_sec=2.0,
                            width=640, height=360, has_audio=False) for c in order.clips],
        rejected=[])


def gate_input(**fields: Any) -> StageInput:
    order = order_with_media(GIFT, [("p01", "jpg"), ("p02", "png")], [("c01", "mp4")], **fields)
    return StageInput(order=order, prep=prepared(order))


class ModerationServer:
    """A moderation endpoint on loopback answering from a script; records what it was sent."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, bytes, float]] = []
        self.requests: list[tuple[dict[str, str], bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append((dict(self.headers), body))
                status, payload, delay = (server.answers.pop(0) if server.answers
                                          else (200, b'{"decision": "allow"}', 0.0))
                time.sleep(delay)
                with contextlib.suppress(ConnectionError):  # a client that timed out and left
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)

            def log_message(self, *_: object) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True  # a stalled answer must not hold up the teardown
        self._http.block_on_close = False
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}/moderate"
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.05,),
                                        daemon=True)

    def answer(self, status: int, body: dict[str, Any] | bytes, delay_s: float = 0.0) -> None:
        """Queue the answer to the next request."""
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.answers.append((status, payload, delay_s))

    def __enter__(self) -> ModerationServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._http.shutdown()
        self._http.server_close()


@pytest.fixture
def moderation() -> Iterator[ModerationServer]:
    with ModerationServer() as server:
        yield server


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/moderate"


# --- consent, photos, contract -------------------------------------------------------------------


def test_a_clean_order_passes_with_notes(tmp_path: Path) -> None:
    result = run_gate(local_context(tmp_path), gate_input())
    assert "2 usable photos, 1 usable clips" in result.notes
    assert "text within the contract and clear of the word list" in result.notes


def test_consent_not_accepted_is_held(tmp_path: Path) -> None:
    stage_input = gate_input(consent={"accepted": False, "at": "2026-11-21T00:00:00Z"})
    with pytest.raises(Exception) as caught:
        run_gate(local_context(tmp_path), stage_input)
    assert is_hold(caught.value, HoldReason.CONSENT_MISSING)


def test_no_usable_photo_is_held(tmp_path: Path) -> None:
    order = order_with_media(GIFT, [("p01", "jpg")])
    with pytest.raises(Exception) as caught:
        run_gate(local_context(tmp_path), StageInput(order=order, prep=prepared(order,
                                                                                 photos=False)))
    assert is_hold(caught.value, HoldReason.NO_USABLE_PHOTOS)


@pytest.mark.parametrize(("field", "value", "why"), [
    ("recipient_name", "x" * 81, "recipient_name"),
    ("memory", "m" * 501, "memory"),
    ("feeling_words", ["w"] * 7, "feeling_words"),
    ("relationship", "big\x00sister", "control characters in relationship"),
    ("story_note", "line\x1b[2J", "control characters in story_note"),
])
def test_text_that_skipped_validation_is_checked_again(tmp_path: Path, field: str, value: Any,
                                                       why: str) -> None:
    clean = gate_input()
    order = clean.order.model_copy(update={field: value})  # model_copy does not validate
    with pytest.raises(Exception) as caught:
        run_gate(local_context(tmp_path), StageInput(order=order, prep=clean.prep))
    assert is_hold(caught.value, HoldReason.TEXT_POLICY)
    assert why in str(caught.value)


# --- word list --------------------------------------------------------------------------------


@pytest.mark.parametrize("fields", [
    {"recipient_name": "K1ke"},
    {"relationship": "my w e t b a c k neighbour"},
    {"memory": "Remember the lake?\nGo-kill-yourself."},
    {"story_note": "ｓｐｉｃ"},
    {"feeling_words": ["warm", "n1gg3r"]},
])
def test_abusive_text_in_any_customer_field_is_held(tmp_path: Path,
                                                    fields: dict[str, Any]) -> None:
    with pytest.raises(Exception) as caught:
        run_gate(local_context(tmp_path), gate_input(**fields))
    assert is_hold(caught.value, HoldReason.TEXT_POLICY)
    assert "word list matched" in str(caught.value)


def test_innocent_words_containing_a_listed_word_pass(tmp_path: Path) -> None:
    run_gate(local_context(tmp_path), gate_input(
        recipient_name="Niger Scunthorpe", relationship="sniggering cousin",
        memory="The spice market, conspicuous hats, and don't kill yourself working!",
        feeling_words=["Pakistani", "skiker"]))


def test_the_word_list_is_configurable(tmp_path: Path) -> None:
    listed = tmp_path / "ops-words.txt"
    listed.write_text("# ops\nbanana split\n", encoding="utf-8")
    by_list = local_context(tmp_path, FILM_TEXT_POLICY_WORDS="pineapple, mango")
    by_file = local_context(tmp_path, FILM_TEXT_POLICY_WORDS=str(listed))

    for ctx, text in ((by_list, "P1neapple!"), (by_file, "b a n a n a  s p l i t")):
        with pytest.raises(Exception) as caught:
            run_gate(ctx, gate_input(memory=f"We loved {text}"))
        assert is_hold(caught.value, HoldReason.TEXT_POLICY)
    run_gate(by_list, gate_input(recipient_name="kike"))  # the configured list replaces ours


# --- moderation hook --------------------------------------------------------------------------


def test_moderation_allow_passes_and_is_sent_a_summary_without_bytes(
        tmp_path: Path, moderation: ModerationServer) -> None:
    ctx = local_context(tmp_path, FILM_MODERATION_URL=moderation.url)
    moderation.answer(200, {"decision": "allow"})

    result = run_gate(ctx, gate_input(memory="Line one\nline two"))

    assert "moderation allowed" in result.notes
    [(headers, body)] = moderation.requests
    sent = json.loads(body)
    assert headers["Idempotency-Key"] == f"film-{GIFT}-1"
    assert headers["Content-Type"] == "application/json"
    assert sent["gift_id"] == GIFT and sent["occasion"] == "birthday"
    assert sent["text"]["memory"] == "Line one\nline two"
    assert [p["id"] for p in sent["photos"]] == ["p01", "p02"]
    assert sent["photos"][1] == {"id": "p02", "key": photo_key(GIFT, "p02", "png"),
                                 "prepared_key": RunKeys(GIFT, 1).prepared_photo("p02")}
    assert sent["clips"][0]["id"] == "c01"
    assert len(body) < 4096  # ids, keys and words: never media bytes


def test_moderation_hold_ends_the_run_held(tmp_path: Path, moderation: ModerationServer) -> None:
    ctx = local_context(tmp_path, FILM_MODERATION_URL=moderation.url)
    moderation.answer(200, {"decision": "hold", "reason": "minor\x00 depicted\nin photo p02"})

    with pytest.raises(Exception) as caught:
        run_gate(ctx, gate_input())

    assert is_hold(caught.value, HoldReason.MODERATION_HOLD)
    assert "moderation hold: minor depicted in photo p02" in str(caught.value)


def test_moderation_is_not_asked_when_the_word_list_already_holds(
        tmp_path: Path, moderation: ModerationServer) -> None:
    ctx = local_context(tmp_path, FILM_MODERATION_URL=moderation.url)
    with pytest.raises(Exception) as caught:
        run_gate(ctx, gate_input(recipient_name="kike"))
    assert is_hold(caught.value, HoldReason.TEXT_POLICY)
    assert moderation.requests == []


@pytest.mark.parametrize(("status", "body"), [
    (500, {"error": "boom"}),
    (503, b"<html>maintenance</html>"),
    (429, {"error": "slow down"}),
    (200, b"not json"),
    (200, {"decision": "maybe"}),
    (200, ["allow"]),
])
def test_moderation_that_cannot_answer_is_our_fault(tmp_path: Path, moderation: ModerationServer,
                                                    status: int, body: Any) -> None:
    ctx = local_context(tmp_path, FILM_MODERATION_URL=moderation.url)
    moderation.answer(status, body)
    with pytest.raises(ModerationUnavailable) as caught:
        run_gate(ctx, gate_input())
    assert ends_failed(caught.value, retried=True)


def test_unreachable_or_slow_moderation_is_retried_then_failed(
        tmp_path: Path, moderation: ModerationServer) -> None:
    slow = local_context(tmp_path, FILM_MODERATION_URL=moderation.url,
                         FILM_MODERATION_TIMEOUT_S=0.3)
    moderation.answer(200, {"decision": "allow"}, delay_s=20.0)
    down = local_context(tmp_path, FILM_MODERATION_URL=closed_port_url())

    for ctx in (slow, down):
        started = time.monotonic()
        with pytest.raises(ModerationUnavailable) as caught:
            run_gate(ctx, gate_input())
        assert ends_failed(caught.value, retried=True)
        assert time.monotonic() - started < 8.0  # the 0.3 s timeout held (answer comes at 20 s)


@pytest.mark.parametrize("status", [301, 400, 401, 404])
def test_moderation_refusing_our_request_fails_without_retries(
        tmp_path: Path, moderation: ModerationServer, status: int) -> None:
    ctx = local_context(tmp_path, FILM_MODERATION_URL=moderation.url)
    moderation.answer(status, {"error": "nope"})
    with pytest.raises(ModerationRefused) as caught:
        run_gate(ctx, gate_input())
    assert ends_failed(caught.value, retried=False)


def test_moderation_is_off_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FILM_MODERATION_URL", raising=False)
    ctx = local_context(tmp_path)
    assert ctx.settings.moderation_url is None
    assert "moderation allowed" not in run_gate(ctx, gate_input()).notes
