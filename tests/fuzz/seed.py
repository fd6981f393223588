#!/usr/bin/env python3
"""Writes the in-tree seed corpus (tests/fuzz/corpus/<target>/) from the repository's own data:
host-protocol transcripts (proto/transcripts), tool lists (tests/data/schemas), config examples
(tests/data/config) and a few hand-made edge cases. Run from anywhere; rewrites the seeds only
(files named seed-*), never what a fuzzing run added."""

import hashlib
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fuzz" / "corpus"
FF = b"\xff"


def write(target, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    (d / name).write_bytes(data)


def compact(value):
    return json.dumps(value, separators=(",", ":")).encode()


def transcript_messages():
    for path in sorted((ROOT / "proto" / "transcripts").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            step = json.loads(line)
            for key in ("send", "expect"):
                if key in step:
                    yield step[key]
            if "send_raw" in step and "repeat" not in step:
                yield step["send_raw"]


def tool_lists():
    for path in sorted((ROOT / "tests" / "data" / "schemas").glob("*.json")):
        yield json.loads(path.read_text())


def host_line():
    # Byte 0: bound (index 9 = 1 MiB), byte 1: read-buffer capacity.
    lines = []
    for m in transcript_messages():
        lines.append(m.encode() if isinstance(m, str) else compact(m))
    for i in range(0, len(lines), 8):
        write("host_line", b"\x09\x1f" + b"\n".join(lines[i : i + 8]) + b"\n")
    write("host_line", b"\x07\x03" + b"\r\n".join(lines[:4]) + b"\r\nno newline at the end")
    write("host_line", b"\x03\x00" + b"12345678\n123456789\nx\n\n\r\n" + b"y" * 40)
    write("host_line", b"\x09\x05" + b'{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}\n'
          b'{"jsonrpc":"2.0","id":"s","error":{"code":-1,"message":"m","data":null}}\n'
          b'{"jsonrpc":"2.0","id":1,"result":null}\n[1,2]\n{"jsonrpc":"1.0"}\n')


def mcp_message():
    init = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": True}}, "serverInfo": {"name": "fx", "version": "1"}}}
    for tools in tool_lists():
        page = {"jsonrpc": "2.0", "id": 2, "result": {"tools": tools}}
        call = {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "ok fuzz-secret-value"}],
                "structuredContent": {"n": 1}, "isError": False}}
        write("mcp_message", FF.join([compact(init) + b"\n", b"", compact(page) + b"\n", compact(call) + b"\n"]))
    # Pages, a server request, notifications, an error reply, an unknown id.
    p1 = {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a", "inputSchema": {"type": "object"}}], "nextCursor": "c"}}
    p2 = {"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "b", "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}}}]}}
    extra = [{"jsonrpc": "2.0", "id": "srv", "method": "ping"},
             {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
             {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "fuzz-secret-value"}},
             {"jsonrpc": "2.0", "id": 77, "result": {}}]
    err = {"jsonrpc": "2.0", "id": 4, "error": {"code": -32000, "message": "boom", "data": {"k": 1}}}
    write("mcp_message", FF.join([compact(init) + b"\n", b"", compact(p1) + b"\n", compact(p2) + b"\n",
                                   b"\n".join(compact(e) for e in extra) + b"\n" + compact(err) + b"\n"]))
    write("mcp_message", compact(init) + b"\n" + b"not json\n")


def sse():
    msgs = [compact(m) for m in transcript_messages() if not isinstance(m, str)][:6]
    body = b"".join(b"event: message\nid: " + str(i).encode() + b"\ndata: " + m + b"\n\n" for i, m in enumerate(msgs))
    write("sse", b"\x06\x07" + body)
    write("sse", b"\x06\x02" + b"\xef\xbb\xbf: comment\r\nretry: 1500\r\nid\r\ndata:a\r\ndata: b\r\n\r\nevent:endpoint\rdata: /messages?s=1\r\r")
    write("sse", b"\x02\x00" + b"data: \xc3\xa9\xff\xfe\n\ndata: 0123\n\n")
    write("sse", b"\x03\x01" + b"id: a\x00b\ndata: x\n\nretry: 99999999999999999999999\n")


def config():
    dialects = {None: 0, "claude-desktop": 1, "claude-code": 2, "claude-plugin": 3, "vscode": 4,
                "cursor": 5, "codex": 6, "epoch": 7, "plugin-manifest": 8}
    files = {"claude_desktop_config.json": 1, ".mcp.json": 2, "plugin.json": 3, "mcp.json": 4,
             "config.toml": 6, "plugin.yaml": 7}
    for path in sorted((ROOT / "tests" / "data" / "config").rglob("*")):
        if not path.is_file() or path.suffix not in (".json", ".toml", ".yaml", ".yml"):
            continue
        text = path.read_bytes()
        f = files.get(path.name, 0)
        if path.parent.name == ".vscode":
            f = 4
        elif path.parent.name == ".cursor":
            f = 5
        elif path.parent.name == "epoch":
            f = 9
        write("config", bytes([0, f]) + text)  # detected, read as its file
        write("config", bytes([0, 0]) + text)  # detected, inline document
    write("config", bytes([dialects["vscode"], 0]) + compact({"inputs": [{"id": "token", "type": "promptString", "password": True}],
          "servers": {"s": {"type": "stdio", "command": "node", "args": ["${input:token}", "${env:HOME}"], "envFile": "x.env"}}}))
    write("config", bytes([dialects["epoch"], 0]) + compact({"servers": {"e": {"transport": "http", "url": "https://h/mcp",
          "timeout_ms": 5, "secret_env": ["K"], "headers": {"A": "${API_TOKEN}"}}}}))
    # Past the bounds of limits.rs: one args item too many, one env entry too many (each one error).
    write("config", bytes([0, 0]) + compact({"mcpServers": {"a": {"command": "x", "args": ["a"] * 1025},
          "b": {"command": "x", "args": ["a"] * 1024}}}))
    write("config", bytes([dialects["vscode"], 0]) + compact({"servers": {"e": {"type": "stdio", "command": "x",
          "env": {f"V{i}": "1" for i in range(1025)}}}}))
    write("config", bytes([0, 0]) + compact({"mcpServers": {"w": {"command": "x", **{f"x{i}": 1 for i in range(257)}}}}))


def schema():
    for tools in tool_lists():
        for tool in tools:
            write("schema", json.dumps(tool.get("inputSchema", {})).encode())
    write("schema", compact({"$ref": "#"}))
    write("schema", compact({"anyOf": [{"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, {"const": 1}],
          "$defs": {"x": {"allOf": [{"$ref": "#/$defs/x"}]}}}))
    write("schema", compact({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "integer"}},
          "t": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]}, "e": {"enum": [1, "a", None]}}}))


def names():
    # Byte 0: max length - 16 (48 -> 64), byte 1: template index (5 = the input's first field).
    pairs = []
    for m in transcript_messages():
        if isinstance(m, dict):
            for t in (m.get("result") or {}).get("tools", []) if isinstance(m.get("result"), dict) else []:
                if isinstance(t, dict) and "server" in t and "tool" in t:
                    pairs += [t["server"], t["tool"]]
    write("names", b"\x30\x00" + FF.join(p.encode() for p in pairs[:40]))
    write("names", b"\x00\x05" + FF.join([b"{server}__{tool}", b"a\x00b", b"c", b"a", b"b\x00c", b"9x", b"-y"]))
    write("names", b"\x00\x01" + FF.join([b"s", b"x" * 300, b"s", b"x" * 299, b"t", "\u00e9\u00e9".encode()]))


for target in (host_line, mcp_message, sse, config, schema, names):
    target()
