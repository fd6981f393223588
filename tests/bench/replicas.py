#!/usr/bin/env python3
"""Calls per second through 1, 2 and 3 gateway replicas behind HAProxy, beside one gateway direct.

Each replica is `mcp-sidecar mcp --http 127.0.0.1:PORT` aggregating one `mcp-fixture`; HAProxy runs
`docs/deploy/haproxy.cfg` with the replicas' loopback ports put in; `wrk` (Debian's package) sends
2026-07-28 `tools/call fx__echo` POSTs on keep-alive connections for a fixed time. Reported per
setup: calls/s, p50 and p99 latency, non-2xx answers (must be 0), and the CPU the replicas spent
per call (user + system of the sidecar processes, from /proc, over the timed run).

    python3 tests/bench/replicas.py [--seconds 10] [--connections 32] \
        [--sidecar target/release/mcp-sidecar] [--fixture target/release/mcp-fixture]

Everything binds 127.0.0.1, every wait is bounded, and every process is stopped at the end. On a
machine with few cores the load generator, the balancer, the replicas and their servers share
them: read the figures as what this machine gives, not as the scaling of a fleet (docs/gateway.md).
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAPROXY_CFG = os.path.join(ROOT, "docs", "deploy", "haproxy.cfg")
TEMPLATE_LINE = "    server-template replica 3 gateway.internal:8080 check resolvers dns init-addr none\n"
# The longest a process may take to start listening.
START_SECONDS = 30
# A run before the timed one: the servers started, the connections opened, the caches warm.
WARM_UP_SECONDS = 2

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}
BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "fx__echo", "arguments": {"message": "hi"}, "_meta": META},
    },
    separators=(",", ":"),
)
WRK_SCRIPT = f"""
wrk.method = "POST"
wrk.body = [[{BODY}]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
wrk.headers["Mcp-Method"] = "tools/call"
wrk.headers["Mcp-Name"] = "fx__echo"
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


def cpu_seconds(pids) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime + stime
    return total / tick


class Fleet:
    def __init__(self, args, dir_: str, replicas: int, balanced: bool):
        self.procs = []
        self.sidecars = []
        config = os.path.join(dir_, "servers.json")
        with open(config, "w") as f:
            json.dump({"mcpServers": {"fx": {"command": args.fixture}}}, f)
        ports = []
        for k in range(replicas):
            port = free_port()
            proc = subprocess.Popen(
                [args.sidecar, "mcp", "--config", config, "--http", f"127.0.0.1:{port}"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=open(os.path.join(dir_, f"replica{k}.log"), "w"),
            )
            self.procs.append(proc)
            self.sidecars.append(proc.pid)
            wait_listening(port, proc, f"replica {k}")
            ports.append(port)
        if not balanced:
            self.port = ports[0]
            return
        self.port = free_port()
        with open(HAPROXY_CFG) as f:
            cfg = f.read()
        servers = "".join(f"    server r{k} 127.0.0.1:{p} check\n" for k, p in enumerate(ports))
        assert TEMPLATE_LINE in cfg, "docs/deploy/haproxy.cfg changed shape"
        cfg = cfg.replace("0.0.0.0:8080", f"127.0.0.1:{self.port}").replace(TEMPLATE_LINE, servers)
        path = os.path.join(dir_, "haproxy.cfg")
        with open(path, "w") as f:
            f.write(cfg)
        proc = subprocess.Popen(
            ["haproxy", "-db", "-f", path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(dir_, "haproxy.log"), "w"),
        )
        self.procs.append(proc)
        wait_listening(self.port, proc, "haproxy")

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def run_wrk(args, port: int, script: str, seconds: int):
    out = subprocess.run(
        ["wrk", "-t2", f"-c{args.connections}", f"-d{seconds}s", "-s", script,
         f"http://127.0.0.1:{port}/mcp"],
        capture_output=True, text=True, timeout=seconds + 60, check=True,
    ).stdout
    match = re.search(r"RESULT (\d+) (\d+) (\d+) (\d+) (\d+)", out)
    if not match:
        sys.exit(f"wrk printed no result:\n{out}")
    requests, non2xx, socket_errors, p50_us, p99_us = map(int, match.groups())
    return requests, non2xx, socket_errors, p50_us, p99_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--sidecar", default=os.path.join(ROOT, "target", "release", "mcp-sidecar"))
    parser.add_argument("--fixture", default=os.path.join(ROOT, "target", "release", "mcp-fixture"))
    args = parser.parse_args()
    if not 1 <= args.seconds <= 300 or not 1 <= args.connections <= 1000:
        sys.exit("--seconds 1..300, --connections 1..1000")
    for tool in ("wrk", "haproxy"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is needed (Debian package `{tool}`)")
    print(f"{os.cpu_count()} cores; wrk -t2 -c{args.connections} -d{args.seconds}s; "
          f"{os.path.relpath(args.sidecar)}")
    print(f"{'setup':<22} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8} {'CPU/call µs':>12}")
    with tempfile.TemporaryDirectory(prefix="mcp-replicas-") as dir_:
        script = os.path.join(dir_, "post.lua")
        with open(script, "w") as f:
            f.write(WRK_SCRIPT)
        setups = [("1 gateway, direct", 1, False)] + [
            (f"{n} behind HAProxy", n, True) for n in (1, 2, 3)
        ]
        for name, replicas, balanced in setups:
            fleet = Fleet(args, dir_, replicas, balanced)
            try:
                run_wrk(args, fleet.port, script, WARM_UP_SECONDS)
                before = cpu_seconds(fleet.sidecars)
                requests, non2xx, errors, p50, p99 = run_wrk(args, fleet.port, script, args.seconds)
                spent = cpu_seconds(fleet.sidecars) - before
            finally:
                fleet.stop()
            rate = requests / args.seconds
            per_call = spent / requests * 1e6 if requests else float("nan")
            print(f"{name:<22} {rate:>9.0f} {p50 / 1000:>8.2f} {p99 / 1000:>8.2f} "
                  f"{non2xx + errors:>8} {per_call:>12.0f}")
            if non2xx or errors:
                sys.exit(f"{name}: {non2xx} non-2xx answers and {errors} socket errors")


if __name__ == "__main__":
    main()
