"""Shared test helpers: repository paths, binaries, fake sidecars, process checks."""

from __future__ import annotations

import os
import stat
import sys
import textwrap
import time
from typing import Any, Callable, Dict, Optional

HERE = os.path.dirname(os.path.abspath(__file__))


def _repo_root() -> str:
    path = HERE
    while True:
        if os.path.isfile(os.path.join(path, "proto", "scenarios", "scenarios.json")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            raise RuntimeError(f"no repository root (proto/scenarios/scenarios.json) above {HERE}")
        path = parent


REPO_ROOT = _repo_root()
SCENARIOS_JSON = os.path.join(REPO_ROOT, "proto", "scenarios", "scenarios.json")
#: The suite runs against the installed package (conftest.py) and the binary it found itself.
INSTALLED = os.environ.get("MCP_SIDECAR_TEST_INSTALLED") == "1"


def _installed_sidecar() -> str:
    from mcp_sidecar import find_sidecar_bin

    return find_sidecar_bin()


SIDECAR_BIN = os.path.abspath(
    os.environ.get("MCP_SIDECAR_BIN")
    or (_installed_sidecar() if INSTALLED else os.path.join(REPO_ROOT, "target", "debug", "mcp-sidecar"))
)
FIXTURE_BIN = os.path.abspath(
    os.environ.get("MCP_FIXTURE_BIN") or os.path.join(REPO_ROOT, "target", "debug", "mcp-fixture")
)

#: Bound on any single client call made by the tests.
CALL_TIMEOUT = 30.0


def fixture_config(*args: str) -> Dict[str, Any]:
    return {"command": FIXTURE_BIN, "args": list(args)}


def pid_gone(pid: int) -> bool:
    """True if the process no longer runs (absent, or a zombie awaiting its parent)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state in (b"Z", b"X")
    except FileNotFoundError:
        return True
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False


def wait_until(predicate: Callable[[], bool], timeout: float, interval: float = 0.02) -> bool:
    """Poll ``predicate`` until true or ``timeout`` (for states no event reports, e.g. a pid)."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


FAKE_SIDECAR = r'''
import json, os, signal, sys, time

args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]  # the client's --log=… flags
mode = args[0] if args else "ok"
pid_file = args[1] if len(args) > 1 else None
if pid_file:
    with open(pid_file, "w") as f:
        f.write(str(os.getpid()))
out = sys.stdout.buffer


def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


initialize_params = {}
lines = iter(sys.stdin.buffer)
for line in lines:
    message = json.loads(line)
    method = message.get("method")
    if method == "initialize":
        initialize_params = message.get("params", {})
        send({"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": 1,
            "serverInfo": {"name": "mcp-sidecar", "version": "fake"},
            "capabilities": {"toolFormats": ["openai"], "transports": ["stdio"],
                             "cancellation": True}}})
        if mode == "huge-line":
            out.write(b'{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"'
                      + b"x" * 4096 + b'"}}\n')
            out.flush()
        elif mode == "garbage":
            out.write(b"this is not json\n")
            out.flush()
        elif mode == "notify-flood":
            for i in range(50):
                send({"jsonrpc": "2.0", "method": "notifications/test", "params": {"i": i}})
    elif mode == "ignore-shutdown":
        continue  # never answers anything after initialize
    elif mode == "host-requests" and method == "ping":
        # Asks the host what a real sidecar asks only in set-ups this test cannot build (an OAuth
        # login) or never (a method the host did not declare), then answers the ping with the
        # host's answers (by id) and the initialize params it was sent.
        asks = [
            {"id": "sidecar-1", "method": "auth/authorize", "params": {
                "server": "remote", "url": "https://auth.example/authorize?state=s",
                "redirectUri": "http://127.0.0.1:9/callback"}},
            {"id": "sidecar-2", "method": "bogus/method", "params": {"server": "remote"}},
        ]
        for ask in asks:
            send({"jsonrpc": "2.0", **ask})
        answers = {}
        while len(answers) < len(asks):
            answer = json.loads(next(lines))
            answers[answer["id"]] = answer
        send({"jsonrpc": "2.0", "id": message["id"],
              "result": {"answers": answers, "initialize": initialize_params}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
        break

if mode == "ignore-shutdown":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:  # ignores EOF and SIGTERM: only SIGKILL ends it
        time.sleep(3600)
'''


def write_fake_sidecar(directory: str) -> str:
    """An executable fake sidecar (modes: ok, ignore-shutdown, huge-line, garbage,
    notify-flood, host-requests; optional second argument: a file to write its pid to)."""
    path = os.path.join(directory, "fake-sidecar")
    with open(path, "w") as f:
        f.write(f"#!{sys.executable}\n" + textwrap.dedent(FAKE_SIDECAR))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def read_pid(path: str, timeout: float = 5.0) -> Optional[int]:
    def ready() -> bool:
        return os.path.exists(path) and os.path.getsize(path) > 0

    if not wait_until(ready, timeout):
        return None
    with open(path) as f:
        return int(f.read())
