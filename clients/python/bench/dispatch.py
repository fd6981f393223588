"""Micro-benchmark of the asyncio client's hot path alone: register a ``tools/call`` request and
dispatch its response line (encode, decode, settle the future), with no process and no pipe, so
that a change to the client (not the machine's load or the sidecar) shows in the figure.

Usage, comparing two checkouts of the client's ``src`` on the same machine::

    python3 clients/python/bench/dispatch.py [SRC ...]      # default: this checkout's src

Prints the best of 7 runs of 200,000 calls, in µs per call, for each ``src`` given.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CALLS = 200_000
RUNS = 7


def per_call_us() -> float:
    from mcp_sidecar._options import Options
    from mcp_sidecar.aio import _Connection

    loop = asyncio.new_event_loop()
    conn = _Connection(loop, Options())
    lines = [
        b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"x"}],'
        b'"isError":false,"text":"x","output":"x"}}\n' % (i + 1)
        for i in range(CALLS)
    ]
    futures = [loop.create_future() for _ in range(CALLS)]
    params = {"name": "mcp__fx__echo", "arguments": {"message": "x"}}
    dispatch = getattr(conn, "dispatch", None) or conn._dispatch  # older checkouts: _dispatch
    begin = getattr(conn, "begin", None) or conn.requests.begin  # older checkouts: requests
    started = time.perf_counter()
    for i in range(CALLS):
        begin("tools/call", params, futures[i])
        dispatch(lines[i])
    elapsed = time.perf_counter() - started
    assert all(f.done() for f in futures)
    loop.close()
    return elapsed / CALLS * 1e6


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.path.insert(0, sys.argv[2])
        print(min(per_call_us() for _ in range(RUNS)))
        return
    sources = sys.argv[1:] or [os.path.join(os.path.dirname(HERE), "src")]
    for src in sources:
        out = subprocess.run(
            [sys.executable, __file__, "--worker", os.path.abspath(src)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        print(f"{float(out):8.3f} µs/call  {src}")


if __name__ == "__main__":
    main()
