#!/usr/bin/env python3
"""Peak RSS of a sidecar whose host stops reading (docs/reliability.md): rerun to get the figures.

    python3 tests/memory/host_not_reading.py SIDECAR FIXTURE calls
        3,000 `tools/call`s of 4 servers whose results are 250 KB each (under the default
        maxResultBytes), written without reading a line.
    python3 tests/memory/host_not_reading.py SIDECAR FIXTURE questions
        8 servers each asking 32 sampling requests of 1.9 MB (the fixture's `ask` with `padBytes`)
        of a host that declared sampling and does not read.

    python3 tests/memory/host_not_reading.py SIDECAR FIXTURE exit
        200 servers added, then the host closes stdin and never reads again: the seconds until the
        sidecar exits (the stop's 400 `servers/changed` and a large `tools/changed` fill the pipe),
        or how long it was still running when the script gave up (60 s).

SIDECAR and FIXTURE are the `mcp-sidecar` and `mcp-fixture` binaries (a release build:
`CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo build --release
--workspace`). Once the sidecar and its servers are idle (no CPU time for 2 s) the sidecar's VmHWM
is printed; then the host reads everything (answering each sampling request) and checks that every
call was answered exactly once, then shuts the sidecar down. Linux only (/proc).
"""

import json
import os
import subprocess
import sys
import threading
import time

CASES = {
    # servers, calls per server, fixture flags, the call's arguments
    "calls": (4, 750, [], lambda n: {"name": f"mcp__fx{n % 4}__large", "arguments": {"bytes": 250_000}}),
    "questions": (
        8,
        32,
        ["--client-requests"],
        lambda n: {
            "name": f"mcp__fx{n % 8}__ask",
            "arguments": {
                "method": "sampling/createMessage",
                "params": {"messages": [], "maxTokens": 1},
                "padBytes": 1_900_000,
            },
        },
    ),
}


def line(message):
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


def proc_kib(pid, key):
    with open(f"/proc/{pid}/status") as status:
        for row in status:
            if row.startswith(key + ":"):
                return int(row.split()[1])
    raise RuntimeError(f"no {key} for {pid}")


def cpu_ticks(pids):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(") ", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as kids:
            return [int(p) for p in kids.read().split()]
    except FileNotFoundError:
        return []


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in list(CASES) + ["exit"]:
        sys.exit(__doc__)
    sidecar, fixture, case = sys.argv[1:]
    if case == "exit":
        return exit_after_stdin_closes(sidecar, fixture)
    servers, per_server, flags, call = CASES[case]
    calls = servers * per_server
    proc = subprocess.Popen([sidecar], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout

    def request(id, method, params):
        proc.stdin.write(line({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        proc.stdin.flush()

    def answer_of(id):
        while True:
            message = json.loads(out.readline())
            if message.get("id") == id and "method" not in message:
                return message

    request("init", "initialize", {"protocolVersion": 1, "capabilities": {"sampling": {}}})
    answer_of("init")
    for n in range(servers):
        config = {"command": fixture, "args": flags}
        request(f"add{n}", "servers/add", {"name": f"fx{n}", "config": config})
        status = answer_of(f"add{n}")
        assert status["result"]["state"] == "ready", status

    burst = b"".join(line({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call(n)}) for n in range(calls))
    writer = threading.Thread(target=lambda: (proc.stdin.write(burst), proc.stdin.flush()))
    writer.start()
    # Idle: no CPU time spent by the sidecar or its servers for 2 s, and every call written.
    pids = [proc.pid] + children(proc.pid)
    last, still = None, 0
    while still < 4:
        time.sleep(0.5)
        ticks = cpu_ticks(pids)
        still = still + 1 if ticks == last and not writer.is_alive() else 0
        last = ticks
    peak = proc_kib(proc.pid, "VmHWM")
    print(f"{case}: {calls} calls, host not reading: sidecar peak RSS {peak / 1024:.0f} MiB")

    answered, refused, asked = {}, 0, 0
    while len(answered) < calls:
        message = json.loads(out.readline())
        if message.get("method") == "sampling/createMessage":
            asked += 1
            result = {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}
            proc.stdin.write(line({"jsonrpc": "2.0", "id": message["id"], "result": result}))
            proc.stdin.flush()
        elif isinstance(message.get("id"), int):
            answered[message["id"]] = answered.get(message["id"], 0) + 1
            # A question refused at once reaches its server as -32000, and the call's result says so.
            refused += "-32000" in json.dumps(message)
    assert all(count == 1 for count in answered.values()), "an answer twice"
    print(f"every call answered once; {asked} sampling requests reached the host, {refused} were refused (-32000)")
    request("end", "shutdown", {})
    answer_of("end")
    proc.wait()


def exit_after_stdin_closes(sidecar, fixture, servers=200, give_up=60):
    proc = subprocess.Popen([sidecar], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    proc.stdin.write(line({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": 1}}))
    config = {"command": fixture, "args": []}
    for n in range(servers):
        params = {"name": f"fx{n}", "config": config, "wait": False}
        proc.stdin.write(line({"jsonrpc": "2.0", "id": n, "method": "servers/add", "params": params}))
    proc.stdin.flush()
    # Read until every server is ready, then stop reading for good.
    ready = set()
    while len(ready) < servers:
        message = json.loads(proc.stdout.readline())
        status = message.get("params", {}).get("status", {})
        if message.get("method") == "notifications/servers/changed" and status.get("state") == "ready":
            ready.add(status["name"])
    started = time.monotonic()
    proc.stdin.close()
    try:
        proc.wait(timeout=give_up)
        print(f"exit: {servers} servers, stdin closed, stdout never read again: exited after {time.monotonic() - started:.1f} s")
    except subprocess.TimeoutExpired:
        print(f"exit: {servers} servers, stdin closed, stdout never read again: still running after {give_up} s")
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
