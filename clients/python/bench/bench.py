"""Benchmark: this client (sync and asyncio) against the official MCP Python SDK (``mcp``:
``ClientSession`` over ``stdio_client``), all calling the fixture's ``echo`` tool.

Measures, each mode in a fresh worker process:

- sequential latency (p50/p99 of one ``echo`` call at a time);
- calls/s with 64 calls in flight (tasks for asyncio clients, threads for the blocking one);
- cold start: from the moment the worker process is spawned (interpreter start and imports
  included) to the first call's result, and the in-process part alone (client creation, sidecar
  spawn, ``initialize``, adding the server, first call);
- RSS after the run: the client process, the sidecar, the MCP server (fixture).

A "floor" column drives the sidecar with the least Python possible (blocking write + readline,
no client) to show what the sidecar and the fixture cost on this machine.

Usage (the SDK column needs ``pip install mcp`` in the interpreter running this):

    python clients/python/bench/bench.py [--quick] [--rounds N] [--json]

Binaries: ``MCP_SIDECAR_BIN`` / ``MCP_FIXTURE_BIN``, default ``target/release/`` of the repository
(``cargo build --release --workspace``), else ``target/debug/``.
"""

from __future__ import annotations

# Workers import only what their mode needs (asyncio, threading, argparse are imported where used)
# so that the client's RSS and cold start are not inflated by the benchmark itself.
import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

if TYPE_CHECKING:
    import argparse

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SRC = os.path.join(os.path.dirname(HERE), "src")

MODES = ["floor", "sync", "async", "sdk"]
TITLES = {
    "floor": "floor (no client)",
    "sync": "mcp_sidecar sync",
    "async": "mcp_sidecar async",
    "sdk": "mcp SDK (direct)",
}
TARGETS = {
    ("sync", "p50_us"): ("<=", 25.0),
    ("async", "p50_us"): ("<=", 70.0),
    ("async", "calls_per_s"): (">=", 30000.0),
    ("sync", "cold_start_ms"): ("<=", 150.0),
    ("async", "cold_start_ms"): ("<=", 150.0),
    ("sync", "rss_client_sidecar_mib"): ("<=", 35.0),
    ("async", "rss_client_sidecar_mib"): ("<=", 35.0),
}


def binary(env: str, name: str) -> str:
    given = os.environ.get(env)
    if given:
        return given
    for profile in ("release", "debug"):
        path = os.path.join(REPO, "target", profile, name)
        if os.access(path, os.X_OK):
            return path
    raise SystemExit(f"{name} not found: build it (cargo build --release --workspace) or set {env}")


# -- process measurements ------------------------------------------------------------------------


def rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def children(pid: int) -> List[int]:
    found: List[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def percentile(sorted_values: List[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def latency(samples: List[float]) -> Dict[str, float]:
    s = sorted(samples)
    return {"p50_us": percentile(s, 0.50) * 1e6, "p99_us": percentile(s, 0.99) * 1e6}


# -- workers -------------------------------------------------------------------------------------


def worker(mode: str, spawned_at: float, calls: int, pipelined: int, inflight: int) -> Dict[str, Any]:
    sidecar_bin = binary("MCP_SIDECAR_BIN", "mcp-sidecar")
    fixture_bin = binary("MCP_FIXTURE_BIN", "mcp-fixture")
    if mode == "floor":
        return floor_worker(sidecar_bin, fixture_bin, spawned_at, calls)
    if mode == "sync":
        return sync_worker(sidecar_bin, fixture_bin, spawned_at, calls, pipelined, inflight)
    if mode == "async":
        import asyncio

        return asyncio.run(async_worker(sidecar_bin, fixture_bin, spawned_at, calls, pipelined, inflight))
    if mode == "sdk":
        import asyncio

        return asyncio.run(sdk_worker(fixture_bin, spawned_at, calls, pipelined, inflight))
    raise SystemExit(f"unknown mode {mode}")


def floor_worker(sidecar_bin: str, fixture_bin: str, spawned_at: float, calls: int) -> Dict[str, Any]:
    start = time.time()
    proc = subprocess.Popen([sidecar_bin], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    out = open(proc.stdout.fileno(), "rb", buffering=1 << 16, closefd=False)
    fd = proc.stdin.fileno()

    def rpc(i: int, method: str, params: Dict[str, Any]) -> Any:
        os.write(fd, json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params},
                                separators=(",", ":")).encode() + b"\n")
        while True:
            message = json.loads(out.readline())
            if message.get("id") == i:
                return message

    rpc(1, "initialize", {"protocolVersion": 1})
    rpc(2, "servers/add", {"name": "fx", "config": {"command": fixture_bin}})
    echo = {"name": "mcp__fx__echo", "arguments": {"message": "hi"}}
    rpc(3, "tools/call", echo)
    first = time.time()
    samples = []
    for i in range(calls // 10):
        rpc(10 + i, "tools/call", echo)
    for i in range(calls):
        t = time.perf_counter()
        rpc(100000 + i, "tools/call", echo)
        samples.append(time.perf_counter() - t)
    result: Dict[str, Any] = latency(samples)
    result.update(cold_start_ms=(first - spawned_at) * 1e3, cold_start_inproc_ms=(first - start) * 1e3)
    result.update(tree_rss(proc.pid))
    proc.stdin.close()
    proc.wait(10)
    return result


def tree_rss(sidecar_pid: int) -> Dict[str, float]:
    client = rss_mib(os.getpid())
    sidecar = rss_mib(sidecar_pid)
    server = sum(rss_mib(c) for c in children(sidecar_pid))
    return {
        "rss_client_mib": client,
        "rss_sidecar_mib": sidecar,
        "rss_server_mib": server,
        "rss_client_sidecar_mib": client + sidecar,
        "rss_all_mib": client + sidecar + server,
    }


def sync_worker(sidecar_bin: str, fixture_bin: str, spawned_at: float, calls: int,
                pipelined: int, inflight: int) -> Dict[str, Any]:
    start = time.time()
    sys.path.insert(0, SRC)
    import threading

    from mcp_sidecar import Sidecar

    with Sidecar(sidecar_bin, stderr=subprocess.DEVNULL) as sidecar:
        sidecar.add_server("fx", {"command": fixture_bin})
        sidecar.call_tool("mcp__fx__echo", {"message": "hi"})
        first = time.time()
        call = sidecar.call_tool
        for _ in range(calls // 10):
            call("mcp__fx__echo", {"message": "hi"})
        samples = []
        for _ in range(calls):
            t = time.perf_counter()
            call("mcp__fx__echo", {"message": "hi"})
            samples.append(time.perf_counter() - t)
        rss_sequential = tree_rss(sidecar.pid)
        per_thread = pipelined // inflight
        barrier = threading.Barrier(inflight + 1)

        def run() -> None:
            barrier.wait()
            for _ in range(per_thread):
                call("mcp__fx__echo", {"message": "hi"})

        threads = [threading.Thread(target=run) for _ in range(inflight)]
        for th in threads:
            th.start()
        barrier.wait()
        t = time.perf_counter()
        for th in threads:
            th.join()
        elapsed = time.perf_counter() - t
        result: Dict[str, Any] = latency(samples)
        result.update(calls_per_s=per_thread * inflight / elapsed,
                      cold_start_ms=(first - spawned_at) * 1e3,
                      cold_start_inproc_ms=(first - start) * 1e3,
                      rss_pair_sequential_mib=rss_sequential["rss_client_sidecar_mib"])
        result.update(tree_rss(sidecar.pid))
    return result


async def async_worker(sidecar_bin: str, fixture_bin: str, spawned_at: float, calls: int,
                       pipelined: int, inflight: int) -> Dict[str, Any]:
    start = time.time()
    sys.path.insert(0, SRC)
    from mcp_sidecar import AsyncSidecar

    async with AsyncSidecar(sidecar_bin, stderr=subprocess.DEVNULL) as sidecar:
        await sidecar.add_server("fx", {"command": fixture_bin})
        await sidecar.call_tool("mcp__fx__echo", {"message": "hi"})
        first = time.time()
        call = sidecar.call_tool
        for _ in range(calls // 10):
            await call("mcp__fx__echo", {"message": "hi"})
        samples = []
        for _ in range(calls):
            t = time.perf_counter()
            await call("mcp__fx__echo", {"message": "hi"})
            samples.append(time.perf_counter() - t)
        assert sidecar.pid is not None
        rss_sequential = tree_rss(sidecar.pid)
        elapsed = await pipeline(lambda: call("mcp__fx__echo", {"message": "hi"}), pipelined, inflight)
        result: Dict[str, Any] = latency(samples)
        result.update(calls_per_s=pipelined // inflight * inflight / elapsed,
                      cold_start_ms=(first - spawned_at) * 1e3,
                      cold_start_inproc_ms=(first - start) * 1e3,
                      rss_pair_sequential_mib=rss_sequential["rss_client_sidecar_mib"])
        result.update(tree_rss(sidecar.pid))
    return result


async def pipeline(call: Callable[[], Any], total: int, inflight: int) -> float:
    import asyncio

    per_task = total // inflight

    async def run() -> None:
        for _ in range(per_task):
            await call()

    t = time.perf_counter()
    await asyncio.gather(*(run() for _ in range(inflight)))
    return time.perf_counter() - t


async def sdk_worker(fixture_bin: str, spawned_at: float, calls: int, pipelined: int,
                     inflight: int) -> Dict[str, Any]:
    start = time.time()
    from mcp import ClientSession, StdioServerParameters  # type: ignore[import-not-found,unused-ignore]
    from mcp.client.stdio import stdio_client  # type: ignore[import-not-found,unused-ignore]

    async with stdio_client(StdioServerParameters(command=fixture_bin, args=[])) as streams:
        read, write = streams
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("echo", {"message": "hi"})
            first = time.time()
            for _ in range(calls // 10):
                await session.call_tool("echo", {"message": "hi"})
            samples = []
            for _ in range(calls):
                t = time.perf_counter()
                await session.call_tool("echo", {"message": "hi"})
                samples.append(time.perf_counter() - t)
            sequential_pair = rss_mib(os.getpid()) + sum(rss_mib(c) for c in children(os.getpid()))
            elapsed = await pipeline(lambda: session.call_tool("echo", {"message": "hi"}),
                                     pipelined, inflight)
            result: Dict[str, Any] = latency(samples)
            result.update(calls_per_s=pipelined // inflight * inflight / elapsed,
                          cold_start_ms=(first - spawned_at) * 1e3,
                          cold_start_inproc_ms=(first - start) * 1e3)
            client = rss_mib(os.getpid())
            server = sum(rss_mib(c) for c in children(os.getpid()))
            result.update(rss_client_mib=client, rss_sidecar_mib=0.0, rss_server_mib=server,
                          rss_client_server_mib=client + server, rss_all_mib=client + server,
                          rss_pair_sequential_mib=sequential_pair)
    return result


# -- driver --------------------------------------------------------------------------------------


def run_worker(mode: str, args: "argparse.Namespace") -> Optional[Dict[str, Any]]:
    spawned_at = time.time()
    done = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--worker", mode, repr(spawned_at),
         str(args.calls), str(args.pipelined), str(args.inflight)],
        capture_output=True, text=True, timeout=600,
    )
    if done.returncode != 0:
        print(f"[{mode}] failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def sdk_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("mcp") is not None


def fmt(value: Optional[float], digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def report(results: Dict[str, Dict[str, Any]], args: "argparse.Namespace") -> None:
    modes = [m for m in MODES if m in results]
    rows = [
        ("sequential p50 µs", "p50_us", 1),
        ("sequential p99 µs", "p99_us", 1),
        ("  client's own p50 (minus floor) µs", "p50_over_floor_us", 1),
        (f"calls/s, {args.inflight} in flight", "calls_per_s", 0),
        ("cold start ms (spawn → 1st result)", "cold_start_ms", 1),
        ("  of which in-process ms", "cold_start_inproc_ms", 1),
        ("RSS client MiB", "rss_client_mib", 1),
        ("RSS sidecar MiB", "rss_sidecar_mib", 1),
        ("RSS MCP server MiB", "rss_server_mib", 1),
        ("RSS client+sidecar (SDK: +server) MiB", "rss_pair_mib", 1),
        ("  same, before the in-flight run MiB", "rss_pair_sequential_mib", 1),
        ("RSS all processes MiB", "rss_all_mib", 1),
    ]
    for mode, r in results.items():
        r["rss_pair_mib"] = r.get("rss_client_sidecar_mib", r.get("rss_client_server_mib"))
        if mode in ("sync", "async") and "floor" in results:
            r["p50_over_floor_us"] = r["p50_us"] - results["floor"]["p50_us"]
    width = 40
    print(f"mcp-sidecar Python client benchmark: {args.calls} sequential calls (+10% warm-up), "
          f"{args.pipelined} calls with {args.inflight} in flight; median of {args.rounds} "
          f"interleaved rounds; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
          f"sidecar {binary('MCP_SIDECAR_BIN', 'mcp-sidecar')}")
    print(f"{'':{width}}" + "".join(f"{TITLES[m]:>20}" for m in modes))
    for title, key, digits in rows:
        print(f"{title:{width}}" + "".join(f"{fmt(results[m].get(key), digits):>20}" for m in modes))
    print("targets:")
    for (mode, key), (op, bound) in TARGETS.items():
        if mode not in results:
            continue
        value = results[mode].get(key)
        ok = value is not None and (value <= bound if op == "<=" else value >= bound)
        print(f"  {mode:5} {key:24} {fmt(value):>10} {op} {bound:<8g} {'ok' if ok else 'MISSED'}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":  # mode spawned_at calls pipelined inflight
        mode, spawned_at, calls, pipelined, inflight = sys.argv[2:7]
        print(json.dumps(worker(mode, float(spawned_at), int(calls), int(pipelined), int(inflight))))
        return
    import argparse

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the calls")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--pipelined", type=int, default=20000)
    parser.add_argument("--inflight", type=int, default=64)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--rounds", type=int, default=3, help="runs per mode (median reported)")
    args = parser.parse_args()
    if args.quick:
        args.calls //= 5
        args.pipelined //= 5
    modes = args.modes.split(",")
    if "sdk" in modes and not sdk_available():
        print("[sdk] skipped: `pip install mcp` into this interpreter to compare", file=sys.stderr)
        modes.remove("sdk")
    # Rounds interleave the modes, and each figure is the median over the rounds, so that a burst
    # of load from other work on the machine does not land on one mode only.
    runs: Dict[str, List[Dict[str, Any]]] = {m: [] for m in modes}
    for _ in range(args.rounds):
        for mode in modes:
            outcome = run_worker(mode, args)
            if outcome is not None:
                runs[mode].append(outcome)
    results: Dict[str, Dict[str, Any]] = {}
    for mode, outcomes in runs.items():
        if outcomes:
            keys = sorted({k for o in outcomes for k in o})
            results[mode] = {
                k: sorted(o[k] for o in outcomes if k in o)[len(outcomes) // 2] for k in keys
            }
    if args.json:
        print(json.dumps(results, indent=1, sort_keys=True))
    else:
        report(results, args)


if __name__ == "__main__":
    main()
