#!/usr/bin/env python3
"""Peak RSS of the sidecar loading a hostile repository's configs under `requireTrust`.

Six folders, each with a `.mcp.json` of about 5.2 MB: one server whose `args` are 1.3 million
one-letter strings. The sidecar (`initialize {requireTrust: true}`) is asked to `servers/load` the
whole folder; the script prints the answer's size, its diagnostics' kinds and the sidecar's peak
RSS (VmHWM) once it answered. With `--many-servers`, three folders instead, each a 5.7 MB
`.mcp.json` of 200,000 two-line servers.

    python3 tests/bench/hostile_configs.py [path/to/mcp-sidecar] [--many-servers]
"""

import json
import os
import subprocess
import sys
import tempfile

FILES = 6
ARGS = 1_300_000
MANY_FILES = 3
MANY_SERVERS = 200_000


def main() -> None:
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    binary = paths[0] if paths else "target/debug/mcp-sidecar"
    many = "--many-servers" in flags
    with tempfile.TemporaryDirectory() as root:
        args = json.dumps(["a"] * ARGS, separators=(",", ":"))
        for i in range(MANY_FILES if many else FILES):
            folder = os.path.join(root, f"repo{i}")
            os.makedirs(folder)
            with open(os.path.join(folder, ".mcp.json"), "w") as f:
                if many:
                    servers = ",".join('"s%d_%d":{"command":"sh"}' % (i, j) for j in range(MANY_SERVERS))
                    f.write('{"mcpServers":{%s}}' % servers)
                else:
                    f.write('{"mcpServers": {"s%d": {"command": "sh", "args": %s}}}' % (i, args))
        size = os.path.getsize(os.path.join(root, "repo0", ".mcp.json"))
        proc = subprocess.Popen(
            [binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )

        def ask(id_, method, params):
            line = json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
            while True:
                raw = proc.stdout.readline()
                if not raw:
                    raise SystemExit("the sidecar ended before answering")
                msg = json.loads(raw)
                if msg.get("id") == id_:
                    return raw, msg

        ask(1, "initialize", {"protocolVersion": 1, "requireTrust": True})
        raw, answer = ask(2, "servers/load", {"path": root})
        with open(f"/proc/{proc.pid}/status") as f:
            hwm = next(line.split()[1] for line in f if line.startswith("VmHWM"))
        proc.stdin.close()
        proc.wait()
        result = answer.get("result", {})
        kinds = sorted({d["kind"] for d in result.get("diagnostics", [])})
        if many:
            print(f"{MANY_FILES} files of {size / 1e6:.1f} MB, {MANY_SERVERS:,} servers each")
        else:
            print(f"{FILES} files of {size / 1e6:.1f} MB, {ARGS:,} args each")
        print(f"answer: {len(raw):,} bytes, {len(result.get('trustRequired', []))} trust requests, "
              f"{len(result.get('diagnostics', []))} diagnostics {kinds}")
        for d in result.get("diagnostics", []):
            print(f"  {d['kind']}: {d.get('path')}: {d['message'][:110]}")
        print(f"sidecar peak RSS (VmHWM): {int(hwm) / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
