#!/usr/bin/env python3
"""What a gateway costs per tools/call: the official Python MCP SDK's client, 64 calls in flight,
against the same echo server direct and behind each gateway, in one run.

Setups (each a fresh process tree; `mcp-fixture`'s `echo` is the echo server every time):
- direct: the SDK client spawns `mcp-fixture` over stdio (no gateway);
- direct echo, direct http echo: the SDK client on `mcp-echo` over stdio and on `mcp-http-echo`
  over Streamable HTTP, the least a server can spend per call on each (std-only, one write per
  answer; over HTTP a blocking thread per connection). Their difference is what HTTP itself costs
  a server per call (loopback TCP, an HTTP head each way), the floor under a gateway's HTTP side;
- sidecar stdio: the client spawns `mcp-sidecar mcp --config C` (legacy and 2026-07-28 eras);
- sidecar http: `mcp-sidecar mcp --config C --http 127.0.0.1:PORT`, the client on `/mcp` (both eras:
  a legacy session, and 2026-07-28's stateless POSTs);
- mcp-hub: `mcp-hub --port PORT --config C` (npm `mcp-hub`, pinned in tests/bench/package.json),
  the client on its `/mcp` endpoint (legacy era, the one it speaks).

Reported per setup: calls/s, p50 and p99 latency of one call (64 in flight), the gateway process's
CPU per call (utime + stime from /proc/PID/stat before and after the timed calls; not its echo
server's), its RSS after the calls, and the ratios against direct in the same run (added p50,
CPU per call against direct's echo server); for each HTTP setup, what it adds per call over its
stdio's against what HTTP adds to the echo (direct http echo − direct echo). Every answer is
checked (not an error, the message echoed). Rounds alternate the setups, so a busy machine slows
each about alike.

    python3 -m venv tests/bench/.venv && tests/bench/.venv/bin/pip install -r tests/bench/requirements.txt
    (cd tests/bench && npm ci --no-audit --no-fund)
    CARGO_TARGET_DIR=target/rel cargo build --release -p mcp-sidecar -p mcp-sidecar-fixtures
    tests/bench/.venv/bin/python tests/bench/gateway.py [--calls 10000] [--rounds 2] \
        [--sidecar target/rel/release/mcp-sidecar | --sidecar LABEL=PATH ...] \
        [--fixture target/rel/release/mcp-fixture] [--echo target/rel/release/mcp-echo] \
        [--http-echo target/rel/release/mcp-http-echo] [--rate CALLS_PER_S] \
        [--only NAME ...]

Several `--sidecar LABEL=PATH` compare builds in one run. `--rate N` holds every setup to N calls/s:
CPU per call depends on the arrival rate (calls that come alone each wake the process and run on
cold caches; calls that come together share a wake-up), and the client is about 4× slower over
HTTP than over stdio, so unpaced the HTTP setups run at a quarter of the stdio setups' rate; paced
below the slowest, every setup sees the same arrivals. Everything binds 127.0.0.1, every wait is
bounded, and every process started is stopped at the end.
"""

import argparse
import asyncio
import contextlib
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "tests", "bench")
MCP_HUB = os.path.join(BENCH, "node_modules", "mcp-hub", "dist", "cli.js")
IN_FLIGHT = 64
MESSAGE = "hi"
# The longest a gateway may take to listen and list the echo tool.
START_SECONDS = 60
# The longest one call may take before the run is called broken.
CALL_SECONDS = 60
MODERN = "2026-07-28"
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> tuple:
    """(utime, stime) of a process (all its threads, finished ones included), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * PAGE / (1 << 20)


def child_running(exe: str) -> int:
    """The pid of this process's child running `exe` (the stdio server the SDK spawned)."""
    real = os.path.realpath(exe)
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            if ppid == me and os.path.realpath(f"/proc/{entry}/exe") == real:
                found.append(int(entry))
        except (OSError, ValueError):
            continue
    if len(found) != 1:
        sys.exit(f"expected one child running {exe}, found {found}")
    return found[0]


def wait_listening(port: int, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{what} exited with {proc.returncode} before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"{what} did not listen on {port} within {START_SECONDS} s")


def wait_hub_endpoint(port: int) -> None:
    """mcp-hub listens before its MCP endpoint exists (500 until then): waits for /api/health to list it."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=5) as r:
                if "mcpEndpoint" in json.load(r):
                    return
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    sys.exit(f"mcp-hub's MCP endpoint was not up within {START_SECONDS} s")


class Setup:
    """One way to reach the echo tool: how to start it, what the client connects to."""

    def __init__(self, name, tool, mode, target, pid_of, start=None, up=None):
        self.name, self.tool, self.mode, self.up = name, tool, mode, up
        # target(port, errlog): what the client connects to (a URL, or a transport, used once).
        self.target, self.pid_of, self.start = target, pid_of, start


def streamable(port, _):
    return f"http://127.0.0.1:{port}/mcp"


def setups(args, dir_: str):
    config = os.path.join(dir_, "servers.json")
    with open(config, "w") as f:
        json.dump({"mcpServers": {"fx": {"command": args.fixture}}}, f)
    quiet = dict(os.environ, MCP_SIDECAR_LOG="warn")
    fixture = StdioServerParameters(command=args.fixture, env=quiet)
    yield Setup("direct", "echo", "legacy", lambda _, errlog: stdio_client(fixture, errlog=errlog),
                lambda _: child_running(args.fixture))
    echo = StdioServerParameters(command=args.echo)
    yield Setup("direct echo", "echo", "legacy", lambda _, errlog: stdio_client(echo, errlog=errlog),
                lambda _: child_running(args.echo))
    yield Setup("direct http echo", "echo", "legacy", streamable, lambda proc: proc.pid,
                start=lambda port: [args.http_echo, "--listen", f"127.0.0.1:{port}"])
    for label, sidecar in args.sidecars:
        tag = f"{label} " if label else ""
        stdio = StdioServerParameters(command=sidecar, args=["mcp", "--config", config], env=quiet)
        for mode, era in (("legacy", "legacy"), (MODERN, "2026")):
            yield Setup(f"{tag}sidecar stdio {era}", "fx__echo", mode,
                        lambda _, errlog, p=stdio: stdio_client(p, errlog=errlog),
                        lambda _, s=sidecar: child_running(s))
        for mode, era in (("legacy", "legacy"), (MODERN, "2026")):
            yield Setup(f"{tag}sidecar http {era}", "fx__echo", mode, streamable, lambda proc: proc.pid,
                        start=lambda port, s=sidecar: [s, "mcp", "--config", config, "--http",
                                                       f"127.0.0.1:{port}"])
    if args.hub:
        hub_config = os.path.join(dir_, "hub.json")
        with open(hub_config, "w") as f:
            json.dump({"mcpServers": {"fx": {"command": args.fixture, "args": []}}}, f)
        # mcp-hub 4 serves its aggregate over the legacy HTTP+SSE transport (GET /mcp, POST /messages).
        yield Setup("mcp-hub sse", "fx__echo", "legacy",
                    lambda port, _: sse_client(f"http://127.0.0.1:{port}/mcp"), lambda proc: proc.pid,
                    start=lambda port: ["node", MCP_HUB, "--port", str(port), "--config", hub_config],
                    up=wait_hub_endpoint)


async def call(client: Client, tool: str) -> None:
    result = await asyncio.wait_for(client.call_tool(tool, {"message": MESSAGE}), CALL_SECONDS)
    text = "".join(getattr(c, "text", "") for c in result.content)
    if result.is_error or MESSAGE not in text:
        raise RuntimeError(f"{tool}: unexpected answer {result!r}")


async def pipelined(client: Client, tool: str, calls: int, rate: float = 0) -> list:
    """`calls` calls, IN_FLIGHT at a time; the latency of each. With `rate` (calls/s), call k starts
    no earlier than k/rate seconds in, so every setup can be held to one arrival rate."""
    latencies = []
    left = calls
    started = 0
    first = time.perf_counter()

    async def worker():
        nonlocal left, started
        while left > 0:
            left -= 1
            if rate:
                due = first + started / rate
                started += 1
                if due > time.perf_counter():
                    await asyncio.sleep(due - time.perf_counter())
            began = time.perf_counter()
            await call(client, tool)
            latencies.append(time.perf_counter() - began)

    await asyncio.gather(*(worker() for _ in range(IN_FLIGHT)))
    return latencies


async def ready(client: Client, tool: str) -> None:
    """Waits until the tool is listed (a gateway connects its servers after it listens)."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        listed = await client.list_tools()
        if any(t.name == tool for t in listed.tools):
            return
        await asyncio.sleep(0.2)
    sys.exit(f"{tool} was not listed within {START_SECONDS} s")


async def measure(args, setup: Setup, dir_: str) -> dict:
    proc = None
    port = None
    log = open(os.path.join(dir_, f"{setup.name.replace(' ', '-')}.log"), "a")
    if setup.start:
        port = free_port()
        # stdin stays open: the sidecar stops when it ends (as when its parent dies).
        proc = subprocess.Popen(setup.start(port), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=log, env=dict(os.environ, MCP_SIDECAR_LOG="warn",
                                                     XDG_STATE_HOME=dir_, XDG_CONFIG_HOME=dir_))
    try:
        if proc is not None:
            wait_listening(port, proc, setup.name)
            if setup.up:
                setup.up(port)
        async with Client(setup.target(port, log), mode=setup.mode, cache=None) as client:
            await ready(client, setup.tool)
            pid = setup.pid_of(proc)
            await pipelined(client, setup.tool, args.warm_up)
            cpu_before = cpu_seconds(pid)
            mine_before = resource.getrusage(resource.RUSAGE_SELF)
            began = time.perf_counter()
            latencies = await pipelined(client, setup.tool, args.calls, args.rate)
            elapsed = time.perf_counter() - began
            cpu_after = cpu_seconds(pid)
            user, system = (after - before for after, before in zip(cpu_after, cpu_before))
            mine = resource.getrusage(resource.RUSAGE_SELF)
            rss = rss_mib(pid)
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
    latencies.sort()
    client_cpu = (mine.ru_utime + mine.ru_stime) - (mine_before.ru_utime + mine_before.ru_stime)
    return {
        "rate": args.calls / elapsed,
        "p50": latencies[len(latencies) // 2] * 1e6,
        "p99": latencies[int(len(latencies) * 0.99)] * 1e6,
        "cpu": (user + system) / args.calls * 1e6,
        "sys": 100 * system / (user + system) if user + system > 0 else 0.0,
        "client_cpu": client_cpu / args.calls * 1e6,
        "rss": rss,
    }


def spread(values, fmt="{:.0f}") -> str:
    low, high = min(values), max(values)
    return fmt.format(low) if fmt.format(low) == fmt.format(high) else f"{fmt.format(low)}–{fmt.format(high)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10000)
    parser.add_argument("--warm-up", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sidecar", action="append", default=[])
    parser.add_argument("--fixture", default=os.path.join(ROOT, "target", "rel", "release", "mcp-fixture"))
    parser.add_argument("--echo", default=os.path.join(ROOT, "target", "rel", "release", "mcp-echo"))
    parser.add_argument("--http-echo", default=os.path.join(ROOT, "target", "rel", "release", "mcp-http-echo"))
    parser.add_argument("--rate", type=float, default=0,
                        help="hold every setup to this many calls/s (default: as fast as each goes)")
    parser.add_argument("--only", action="append", default=[], help="setups whose name contains this")
    parser.add_argument("--no-hub", dest="hub", action="store_false")
    args = parser.parse_args()
    if not 100 <= args.calls <= 1_000_000 or not 0 <= args.warm_up <= 100_000 or not 1 <= args.rounds <= 20:
        sys.exit("--calls 100..1000000, --warm-up 0..100000, --rounds 1..20")
    args.sidecars = []
    for given in args.sidecar or [os.path.join(ROOT, "target", "rel", "release", "mcp-sidecar")]:
        label, _, path = given.rpartition("=")
        args.sidecars.append((label, os.path.abspath(path)))
    for _, path in args.sidecars + [("", args.fixture), ("", args.echo), ("", args.http_echo)]:
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} is not an executable (build it first, see the module doc)")
    if args.hub and (shutil.which("node") is None or not os.path.exists(MCP_HUB)):
        sys.exit("mcp-hub is not installed: (cd tests/bench && npm ci), or --no-hub")
    results = {}
    with tempfile.TemporaryDirectory(prefix="mcp-gateway-bench-") as dir_:
        chosen = [s for s in setups(args, dir_) if s.name.startswith("direct") or not args.only
                  or any(o in s.name for o in args.only)]
        for round_ in range(args.rounds):
            for setup in chosen:
                result = asyncio.run(measure(args, setup, dir_))
                results.setdefault(setup.name, []).append(result)
                print(f"round {round_ + 1} {setup.name}: {json.dumps({k: round(v, 1) for k, v in result.items()})}",
                      file=sys.stderr, flush=True)
    direct = results["direct"]
    paced = f", paced to {args.rate:g} calls/s" if args.rate else ""
    print(f"{os.cpu_count()} cores; Python SDK client, {IN_FLIGHT} in flight{paced}, {args.calls} calls after "
          f"{args.warm_up} of warm-up, {args.rounds} round(s); ranges over rounds")
    print(f"{'setup':<30} {'calls/s':>13} {'p50 µs':>11} {'+p50 µs':>11} {'p99 µs':>13} "
          f"{'CPU/call µs':>12} {'sys %':>7} {'× echo':>9} {'RSS MiB':>11} {'client µs':>11}")
    for name, runs in results.items():
        added = [r["p50"] - d["p50"] for r, d in zip(runs, direct)]
        ratio = [r["cpu"] / d["cpu"] for r, d in zip(runs, direct) if d["cpu"] > 0]
        print(f"{name:<30} {spread([r['rate'] for r in runs]):>13} {spread([r['p50'] for r in runs]):>11} "
              f"{'—' if name == 'direct' else spread(added):>11} {spread([r['p99'] for r in runs]):>13} "
              f"{spread([r['cpu'] for r in runs], '{:.1f}'):>12} {spread([r['sys'] for r in runs]):>7} "
              f"{'—' if name == 'direct' or not ratio else spread(ratio, '{:.1f}'):>9} "
              f"{spread([r['rss'] for r in runs], '{:.1f}'):>11} {spread([r['client_cpu'] for r in runs]):>11}")
    # What HTTP itself costs a server per call: the std-only echo over HTTP against the std-only
    # echo over stdio, round by round.
    floor = [h["cpu"] - e["cpu"] for h, e in zip(results["direct http echo"], results["direct echo"])]
    print(f"HTTP itself, per call (direct http echo − direct echo): {spread(floor, '{:.1f}')} µs")
    for name, runs in results.items():
        stdio = results.get(name.replace(" http ", " stdio "))
        if " http " in name and stdio:
            ratio = [h["cpu"] / s["cpu"] for h, s in zip(runs, stdio) if s["cpu"] > 0]
            added = [h["cpu"] - s["cpu"] for h, s in zip(runs, stdio)]
            over = [a / f for a, f in zip(added, floor) if f > 0]
            print(f"{name}: CPU per call {spread(ratio, '{:.2f}')}× its stdio's; HTTP adds "
                  f"{spread(added, '{:.1f}')} µs, {spread(over, '{:.2f}')}× what it adds to the echo")


if __name__ == "__main__":
    main()
