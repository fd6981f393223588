#!/usr/bin/env python3
"""Cold times of the command line: `list` of three servers and one `call`, each a fresh process,
against mcporter's on the same config in the same run.

The three servers are the registry's server-memory, server-everything and server-filesystem,
installed once in a scratch folder (`npm install`, outside the timing) with mcporter itself; each
command runs with a scratch HOME and working directory (no one's own configs are read) and is
timed from spawn to exit, RUNS times, interleaved. Prints min and median per command and tool.

    python3 tests/bench/cli_cold.py [--runs N] [--npm-dir DIR] [--fixture MCP_FIXTURE] SIDECAR...

Each SIDECAR is a binary to time (say, a build of main and one of a branch); DIR holds (or gets)
`node_modules` with mcporter@0.12.3 and the three servers. With `--fixture`, the three servers
are that fixture binary instead (`alpha`, `beta`, `legacy`, the call `alpha.echo`): the
sidecar's own share, without Node's start-up.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

MCPORTER = "mcporter@0.12.3"
SERVERS = {
    "memory": "@modelcontextprotocol/server-memory@2026.8.31",
    "everything": "@modelcontextprotocol/server-everything@2026.8.31",
    "filesystem": "@modelcontextprotocol/server-filesystem@2026.8.31",
}


def timed(argv, cwd, env):
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{argv} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    args = sys.argv[1:]
    runs, npm_dir, fixture, sidecars = 7, None, None, []
    while args:
        a = args.pop(0)
        if a == "--runs":
            runs = int(args.pop(0))
        elif a == "--npm-dir":
            npm_dir = args.pop(0)
        elif a == "--fixture":
            fixture = os.path.abspath(args.pop(0))
        else:
            sidecars.append(os.path.abspath(a))
    if not sidecars:
        sys.exit(__doc__)
    npm_dir = os.path.abspath(npm_dir or tempfile.mkdtemp(prefix="cli-cold-npm-"))
    if not os.path.exists(os.path.join(npm_dir, "node_modules", ".bin", "mcporter")):
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", MCPORTER, *SERVERS.values()], cwd=npm_dir, check=True)
    modules = os.path.join(npm_dir, "node_modules")
    with tempfile.TemporaryDirectory() as scratch:
        entry = {
            "memory": [os.path.join(modules, "@modelcontextprotocol/server-memory/dist/index.js")],
            "everything": [os.path.join(modules, "@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
            "filesystem": [os.path.join(modules, "@modelcontextprotocol/server-filesystem/dist/index.js"), scratch],
        }
        servers = {name: {"command": "node", "args": a} for name, a in entry.items()}
        target = ("everything", "echo", "message=hi")
        if fixture:
            servers = {n: {"command": fixture, "args": ["--name", n]} for n in ("alpha", "beta", "legacy")}
            target = ("alpha", "echo", "message=hi")
        config = os.path.join(scratch, "servers.json")
        with open(config, "w") as f:
            json.dump({"mcpServers": servers}, f)
        env = dict(os.environ, HOME=scratch, XDG_CONFIG_HOME=os.path.join(scratch, ".config"),
                   MEMORY_FILE_PATH=os.path.join(scratch, "memory.jsonl"))
        mcporter = os.path.join(modules, ".bin", "mcporter")
        commands = {}
        for i, sidecar in enumerate(sidecars):
            label = f"sidecar[{i}]"
            commands[(label, "list")] = [sidecar, "list", "--quiet", "--config", config]
            commands[(label, "call")] = [sidecar, "call", "--config", config, target[0], target[1], "--arg", target[2]]
        commands[("mcporter", "list")] = [mcporter, "list", "--config", config]
        commands[("mcporter", "call")] = [mcporter, "call", "--config", config, f"{target[0]}.{target[1]}", target[2]]
        times = {key: [] for key in commands}
        for key, argv in commands.items():
            timed(argv, scratch, env)  # a warm-up of the page cache, not counted
        for _ in range(runs):
            for key, argv in commands.items():
                times[key].append(timed(argv, scratch, env))
    for i, s in enumerate(sidecars):
        print(f"sidecar[{i}] = {s}")
    print(f"mcporter = {MCPORTER}; {runs} runs each, interleaved")
    print(f"{'tool':<12} {'command':<8} {'min s':>8} {'median s':>9}")
    for (tool, command), t in times.items():
        print(f"{tool:<12} {command:<8} {min(t):>8.3f} {statistics.median(t):>9.3f}")


if __name__ == "__main__":
    main()
