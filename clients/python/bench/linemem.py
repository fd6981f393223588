"""What one over-long line from the sidecar costs this client: the hostile sidecar
(``proto/scenarios/hostile``) answers ``servers/list`` with one line of ``--bytes`` bytes (100 MB by
default, over the default 64 MiB ``max_line_bytes``); prints the code the call failed with and the
process's RSS before the call, at its peak (VmHWM) and after a GC with the client still open, and how
long ``close()`` then took.

    python3 clients/python/bench/linemem.py [--sync] [--bytes N]

The same measurement for the other clients: ``clients/go/cmd/linemem``, ``clients/node/bench/linemem.mjs``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
SIDECAR = os.path.join(HERE, "..", "..", "..", "proto", "scenarios", "hostile", "hostile_sidecar.py")

from mcp_sidecar import AsyncSidecar, Sidecar, SidecarError  # noqa: E402


def status(field: str) -> str:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return f"{int(line.split()[1]) * 1024 / 1e6:.1f} MB"
    return "?"


def report(client: str, size: int, code: str, before: str, closed_in: float) -> None:
    gc.collect()
    print(
        f"python {client}: a {size}-byte line: {code}; RSS {before} before, peak {status('VmHWM')}, "
        f"{status('VmRSS')} after; close() {closed_in:.2f} s"
    )


def run_sync(size: int) -> None:
    client = Sidecar(SIDECAR, args=["huge-line", "--bytes", str(size)])
    gc.collect()
    before = status("VmRSS")
    try:
        client.list_servers()
        code = "none"
    except SidecarError as exc:
        code = exc.code
    gc.collect()
    after = status("VmRSS")
    started = time.monotonic()
    client.close()
    closed_in = time.monotonic() - started
    print(f"(RSS with the client open after the failure: {after})")
    report("sync", size, code, before, closed_in)


async def run_async(size: int) -> None:
    client = await AsyncSidecar.open(SIDECAR, args=["huge-line", "--bytes", str(size)])
    gc.collect()
    before = status("VmRSS")
    try:
        await client.list_servers()
        code = "none"
    except SidecarError as exc:
        code = exc.code
    gc.collect()
    after = status("VmRSS")
    started = time.monotonic()
    await client.close()
    closed_in = time.monotonic() - started
    print(f"(RSS with the client open after the failure: {after})")
    report("asyncio", size, code, before, closed_in)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sync", action="store_true", help="the blocking client (default asyncio)")
    parser.add_argument("--bytes", type=int, default=100 << 20)
    args = parser.parse_args()
    if args.sync:
        run_sync(args.bytes)
    else:
        asyncio.run(run_async(args.bytes))


if __name__ == "__main__":
    main()
