"""Micro-benchmark of the blocking client's method layer alone: what ``Sidecar.call_tool``,
``add_server`` and ``ping`` cost between the caller and the connection (params, the request
handed over, the result shaped into its class), with a stand-in connection that answers at once,
so a change to that layer (not the machine's load, the pipes or the sidecar) shows in the figure.

Usage, comparing two checkouts of the client's ``src`` on the same machine::

    python3 clients/python/bench/methods.py [SRC ...]      # default: this checkout's src

Prints the best of 7 runs of 100,000 calls of each method, in µs per call, for each ``src``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any, Callable, Dict

HERE = os.path.dirname(os.path.abspath(__file__))
CALLS = 100_000
RUNS = 7
RESULTS: Dict[str, Any] = {
    "tools/call": {"content": [{"type": "text", "text": "x"}], "isError": False, "text": "x",
                   "output": "x", "server": "fx", "tool": "echo", "durationMs": 0.2},
    "servers/add": {"name": "fx", "state": "ready", "toolsCount": 3, "source": "host"},
    "ping": {},
}


class _Answering:
    """Stands in for the connection: every request is answered at once."""

    def request(self, method: str, params: Any, timeout: Any = None, *rest: Any) -> Any:
        return dict(RESULTS[method])  # a fresh dict, as decoding a line makes


def per_call_us(call: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(RUNS):
        started = time.perf_counter()
        for _ in range(CALLS):
            call()
        best = min(best, (time.perf_counter() - started) / CALLS * 1e6)
    return best


def worker() -> None:
    from mcp_sidecar import Sidecar

    sidecar = object.__new__(Sidecar)
    sidecar._conn = _Answering()  # type: ignore[attr-defined,assignment]
    config = {"command": "mcp-fixture"}
    print(
        per_call_us(lambda: sidecar.call_tool("mcp__fx__echo", {"message": "x"})),
        per_call_us(lambda: sidecar.add_server("fx", config)),
        per_call_us(lambda: sidecar.ping()),
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.path.insert(0, sys.argv[2])
        worker()
        return
    sources = sys.argv[1:] or [os.path.join(os.path.dirname(HERE), "src")]
    print("  call_tool  add_server     ping   (µs per call)")
    for src in sources:
        out = subprocess.run(
            [sys.executable, __file__, "--worker", os.path.abspath(src)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        print("".join(f"{float(v):10.3f}" for v in out) + f"   {src}")


if __name__ == "__main__":
    main()
