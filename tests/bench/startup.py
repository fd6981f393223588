#!/usr/bin/env python3
"""Spawn → `initialize` answer time of a sidecar binary, over N fresh processes.

Each run spawns the binary (optionally under a runner such as `qemu-aarch64` or `wine`), writes one
host-protocol `initialize` request to its stdin and times until its answer line is read from
stdout; then it closes stdin and waits for the exit, which is not timed. Prints min, median and max
in milliseconds, the binary's size, and fails if any run's answer is not a result or any process
does not exit within its bound. Every run, wait and read is bounded.

    python3 tests/bench/startup.py [--runs N] [--runner 'qemu-aarch64'] [--json] path/to/mcp-sidecar

A figure from a runner (qemu, Wine) measures the emulator too: not comparable with native figures.
"""

import argparse
import json
import os
import queue
import shlex
import statistics
import subprocess
import sys
import threading
import time

DEFAULT_RUNS = 30
MAX_RUNS = 1000
# The longest one answer or one exit may take (emulators on a busy machine included).
WAIT_SECONDS = 60
INITIALIZE = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
# The answer is one line of a few hundred bytes; more than this without a newline is a failure.
MAX_ANSWER_BYTES = 1 << 20


def read_line(proc: subprocess.Popen, deadline: float) -> bytes:
    """The first line `proc` writes to stdout, waiting no later than `deadline`. A thread reads: pipes
    cannot be polled on Windows."""
    assert proc.stdout is not None
    stdout = proc.stdout
    lines: queue.Queue = queue.Queue(maxsize=1)
    threading.Thread(target=lambda: lines.put(stdout.readline(MAX_ANSWER_BYTES)), daemon=True).start()
    try:
        line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
    except queue.Empty:
        raise SystemExit("no initialize answer within %d s" % WAIT_SECONDS) from None
    if not line.endswith(b"\n"):
        raise SystemExit("stdout ended or passed %d bytes before the answer's end (exit %s)" % (MAX_ANSWER_BYTES, proc.poll()))
    return line


def one_run(argv: list) -> float:
    """Seconds from just before spawning to the `initialize` answer."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdin is not None
        proc.stdin.write(INITIALIZE)
        proc.stdin.flush()
        line = read_line(proc, start + WAIT_SECONDS)
        elapsed = time.monotonic() - start
        answer = json.loads(line)
        if answer.get("id") != 1 or "result" not in answer:
            raise SystemExit("initialize was not answered with a result: %s" % line[:500].decode(errors="replace").strip())
        proc.stdin.close()
        proc.wait(timeout=WAIT_SECONDS)
        return elapsed
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS)
    parser.add_argument("--runner", default="", help="command prefix, e.g. 'qemu-aarch64' or 'wine'")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.runs <= MAX_RUNS:
        parser.error("--runs must be 1..%d" % MAX_RUNS)
    argv = shlex.split(args.runner) + [os.path.abspath(args.binary)]
    one_run(argv)  # warm-up: page cache, an emulator's first start (Wine makes its prefix)
    times_ms = sorted(one_run(argv) * 1000 for _ in range(args.runs))
    report = {
        "binary": args.binary,
        "runner": args.runner or None,
        "bytes": os.path.getsize(args.binary),
        "runs": args.runs,
        "min_ms": round(times_ms[0], 2),
        "median_ms": round(statistics.median(times_ms), 2),
        "max_ms": round(times_ms[-1], 2),
    }
    if args.json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(
            "%s%s: %.1f MB, spawn -> initialize answer over %d runs: min %.2f ms, median %.2f ms, max %.2f ms"
            % (
                args.binary,
                " (under %s)" % args.runner if args.runner else "",
                report["bytes"] / 1e6,
                args.runs,
                report["min_ms"],
                report["median_ms"],
                report["max_ms"],
            )
        )


if __name__ == "__main__":
    main()
