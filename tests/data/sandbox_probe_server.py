"""A stdio MCP server (standard library only) that tries what a sandbox refuses, one tool per try,
for tests/integration/sandbox.rs. Each tool answers {ok, errno?, error?} as JSON text.

    python3 sandbox_probe_server.py
    SANDBOX_PROBE_READ_AT_START=/path python3 sandbox_probe_server.py   # reads it first; exits 1 on failure
"""
import json
import os
import socket
import subprocess
import sys


def attempt(action):
    try:
        detail = action()
        return {"ok": True, "detail": detail}
    except OSError as e:
        return {"ok": False, "errno": e.errno, "error": str(e)}


def read_file(args):
    with open(args["path"], "rb") as f:
        return len(f.read())


def write_file(args):
    with open(args["path"], "w") as f:
        f.write("x")
    return args["path"]


def connect(args):
    with socket.create_connection((args.get("host", "127.0.0.1"), args["port"]), timeout=5):
        return "connected"


def spawn(_args):
    return subprocess.run(["/bin/true"], check=True).returncode


def tmpdir(_args):
    return os.environ.get("TMPDIR", "")


TOOLS = {
    "read_file": read_file,
    "write_file": write_file,
    "connect": connect,
    "spawn": spawn,
    "tmpdir": tmpdir,
}


def answer(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


def main():
    first = os.environ.get("SANDBOX_PROBE_READ_AT_START")
    if first:
        # Fails with PermissionError's own message on stderr (and exit 1) when refused.
        open(first, "rb").close()
    for line in sys.stdin:
        msg = json.loads(line)
        method, msg_id = msg.get("method"), msg.get("id")
        if msg_id is None:
            continue
        if method == "initialize":
            answer(msg_id, {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "sandbox-probe", "version": "1.0.0"},
            })
        elif method == "tools/list":
            answer(msg_id, {"tools": [
                {"name": name, "inputSchema": {"type": "object"}} for name in TOOLS
            ]})
        elif method == "tools/call":
            tool = TOOLS[msg["params"]["name"]]
            result = attempt(lambda: tool(msg["params"].get("arguments") or {}))
            answer(msg_id, {"content": [{"type": "text", "text": json.dumps(result)}]})
        elif method == "ping":
            answer(msg_id, {})
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id,
                                         "error": {"code": -32601, "message": method}}) + "\n")
            sys.stdout.flush()


main()
