"""The codec server under an unauthenticated body flood (issue 31, case 4):
``python -m bench.codec_attack [--connections 30] [--mib 16] [--hold 8]``.

Starts ``filmworker codec-server`` in a child process with a token and fresh keys, opens
``--connections`` connections at once that each announce and send a ``--mib`` MiB body to
``/decode`` without the token, holds them open for ``--hold`` seconds, and meanwhile samples the
server's RSS (``/proc/<pid>/status``) every 50 ms and times an authorised ``/decode`` (the UI's
request) sent while the attack is held. Prints one JSON document: RSS before, peak and after
(MiB), whether and how fast the server answered during the attack, and what the attackers were
answered. Exits 1 when the peak is over ``--budget-mib`` (150) or the server did not answer.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from workflows.codec import new_key

REPO = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
CHUNK = 64 * 1024
START_TIMEOUT_S = 30.0
PROBE_TIMEOUT_S = 10.0


def rss_mib(pid: int) -> float:
    """Resident set size of ``pid`` in MiB (0 when it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def codec_server_process(port: int) -> Iterator[subprocess.Popen[str]]:
    """``filmworker codec-server`` on ``port`` with a token and a fresh key, until the block
    ends (then terminated, killed after 10 s)."""
    env = {**os.environ, "FILM_PAYLOAD_KEYS": f"k1:{new_key()}", "FILM_CODEC_TOKEN": TOKEN}
    server = subprocess.Popen(
        [sys.executable, "-m", "worker", "codec-server", "--port", str(port)], cwd=REPO,
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if server.poll() is not None:
                raise RuntimeError("codec server exited at start")
            time.sleep(0.1)
        else:
            raise RuntimeError("codec server did not listen")
        yield server
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)


@dataclass
class Attacker:
    """One unauthenticated connection: what it sent and what it was answered."""

    sent_bytes: int = 0
    answer: str = ""


def attack(port: int, body_bytes: int, hold_until: float, attacker: Attacker) -> None:
    """Announce ``body_bytes`` to /decode without a token, send them, keep the connection open
    until ``hold_until`` (monotonic), record the status line answered."""
    head = (f"POST /decode HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {body_bytes}\r\n\r\n").encode()
    chunk = b"A" * CHUNK
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 5) as sock:
        sock.settimeout(max(0.5, hold_until - time.monotonic()))
        sock.sendall(head)
        for _ in range(body_bytes // CHUNK):  # bounded: the announced body
            if time.monotonic() >= hold_until:
                break
            try:
                sock.sendall(chunk)
            except OSError:  # the server closed: it refused before the body
                break
            attacker.sent_bytes += CHUNK
        with contextlib.suppress(OSError):
            sock.settimeout(max(0.1, hold_until - time.monotonic()))
            attacker.answer = sock.recv(200).split(b"\r\n", 1)[0].decode(errors="replace")
        time.sleep(max(0.0, hold_until - time.monotonic()))


def probe(port: int) -> tuple[bool, float]:
    """An authorised /decode as the UI sends it: (answered 200, seconds)."""
    payload = {"metadata": {"encoding": base64.b64encode(b"json/plain").decode()},
               "data": base64.b64encode(b'"probe"').decode()}
    started = time.monotonic()
    try:
        answer = httpx.post(f"http://127.0.0.1:{port}/decode", json={"payloads": [payload]},
                            headers={"Authorization": f"Bearer {TOKEN}",
                                     "X-Namespace": "default"}, timeout=PROBE_TIMEOUT_S)
    except httpx.HTTPError:
        return False, time.monotonic() - started
    return answer.status_code == 200, time.monotonic() - started


@dataclass
class AttackResult:
    connections: int
    body_mib: int
    rss_before_mib: float
    rss_peak_mib: float
    rss_after_mib: float
    answered_during_attack: bool
    probe_seconds: float
    sent_mib_total: float
    attacker_answers: dict[str, int] = field(default_factory=dict)


def run_attack(connections: int = 30, body_mib: int = 16, hold_s: float = 8.0) -> AttackResult:
    """The whole measurement against a fresh codec server (see the module)."""
    port = free_port()
    with codec_server_process(port) as server:
        time.sleep(0.5)
        before = rss_mib(server.pid)
        hold_until = time.monotonic() + hold_s
        attackers = [Attacker() for _ in range(connections)]
        threads = [threading.Thread(target=attack, daemon=True,
                                    args=(port, body_mib << 20, hold_until, a))
                   for a in attackers]
        for thread in threads:
            thread.start()
        peak, answered, probe_s = before, False, 0.0
        probe_at = time.monotonic() + hold_s / 2
        while time.monotonic() < hold_until:  # bounded by the hold
            peak = max(peak, rss_mib(server.pid))
            if not probe_s and time.monotonic() >= probe_at:
                answered, probe_s = probe(port)
            time.sleep(0.05)
        for thread in threads:
            thread.join(10)
        time.sleep(1.0)
        after = rss_mib(server.pid)
    answers: dict[str, int] = {}
    for attacker in attackers:
        answers[attacker.answer or "(none)"] = answers.get(attacker.answer or "(none)", 0) + 1
    return AttackResult(connections, body_mib, round(before, 1), round(peak, 1),
                        round(after, 1), answered, round(probe_s, 3),
                        round(sum(a.sent_bytes for a in attackers) / 2**20, 1), answers)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=30)
    parser.add_argument("--mib", type=int, default=16, help="body size per connection")
    parser.add_argument("--hold", type=float, default=8.0, help="seconds the attack is held")
    parser.add_argument("--budget-mib", type=float, default=150.0)
    args = parser.parse_args(argv)
    result = run_attack(args.connections, args.mib, args.hold)
    print(json.dumps(asdict(result), indent=2))
    return 0 if result.answered_during_attack and result.rss_peak_mib < args.budget_mib else 1


if __name__ == "__main__":
    sys.exit(main())
