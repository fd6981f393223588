#!/usr/bin/env python3
"""A sidecar that misbehaves in one chosen way, for the clients' robustness scenarios.

Owns nothing but a stand-in for ``mcp-sidecar`` on stdin/stdout (host protocol §1 framing), run as
``hostile_sidecar.py MODE [--bytes N]``. It answers ``initialize`` and ``servers/list`` like the
real one, except where MODE says otherwise, and exits 0 at the end of its stdin (EOF is a
shutdown, protocol §2). The modes (hostile.json says what a client must do with each):

- ``not-json-at-initialize``: answers ``initialize`` with a line that is not JSON.
- ``not-json-on-call``: answers ``servers/list`` with a line that is not JSON.
- ``huge-line``: answers ``servers/list`` with one line of N bytes (``--bytes``), written in
  pieces; a client that stops reading leaves it blocked on the full pipe (so never at its EOF).
  The id comes first, where a client looks for it, or last with ``--id-last``.
- ``no-result``: answers ``servers/list`` with neither ``result`` nor ``error``.
- ``silent-initialize``: never answers ``initialize``.
- ``unanswered-shutdown``: never answers ``shutdown`` (it still exits 0 at EOF).

Standard library only; every read is bounded (a line of stdin over 1 MiB ends it with status 2).
"""

import json
import sys

NOT_JSON = b"hostile-sidecar: this is not JSON\n"
MAX_STDIN_LINE = 1 << 20
PIECE = 1 << 16


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    huge = int(sys.argv[sys.argv.index("--bytes") + 1]) if "--bytes" in sys.argv else 0
    id_last = "--id-last" in sys.argv
    out = sys.stdout.buffer
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline(MAX_STDIN_LINE + 1)
        if not line:
            return 0  # EOF: the same stop as shutdown
        if len(line) > MAX_STDIN_LINE:
            return 2
        if not line.strip():
            continue
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue  # a notification (cancellations): nothing to answer
        if method == "initialize":
            if mode == "not-json-at-initialize":
                write(out, NOT_JSON)
            elif mode != "silent-initialize":
                write(out, answer(request_id, initialize_result()))
        elif method == "servers/list":
            if mode == "not-json-on-call":
                write(out, NOT_JSON)
            elif mode == "huge-line":
                write_huge(out, request_id, huge, id_last)
            elif mode == "no-result":
                write(out, json.dumps({"jsonrpc": "2.0", "id": request_id}).encode() + b"\n")
            else:
                write(out, answer(request_id, {"servers": []}))
        elif method == "shutdown":
            if mode != "unanswered-shutdown":
                write(out, answer(request_id, {}))
                return 0
        else:
            error = {"code": -32601, "message": f"unknown method {method}",
                     "data": {"code": "METHOD_NOT_FOUND"}}
            write(out, json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
                  + b"\n")


def initialize_result() -> dict:
    return {
        "protocolVersion": 1,
        "serverInfo": {"name": "hostile-sidecar", "version": "0.0.0"},
        "capabilities": {"toolFormats": ["openai"], "transports": ["stdio"], "cancellation": True},
    }


def answer(request_id, result) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode() + b"\n"


def write(out, data: bytes) -> None:
    out.write(data)
    out.flush()


def write_huge(out, request_id, size: int, id_last: bool) -> None:
    """One response line of ``size`` bytes: the id first (or last), and a string padding it out,
    written a piece at a time."""
    if id_last:
        head = b'{"jsonrpc":"2.0","result":{"servers":[],"pad":"'
        tail = b'"},"id":%d}\n' % request_id
    else:
        head = b'{"jsonrpc":"2.0","id":%d,"result":{"servers":[],"pad":"' % request_id
        tail = b'"}}\n'
    pad = max(size - len(head) - len(tail) + 1, 0)
    out.write(head)
    piece = b"x" * PIECE
    while pad > 0:
        out.write(piece[: min(pad, PIECE)])
        pad -= PIECE
    out.write(tail)
    out.flush()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the client closed its end of stdout: nobody is listening
        sys.exit(0)
