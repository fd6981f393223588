#!/usr/bin/env bash
# Framework benchmark of the Go adapters (not run in CI): per framework (openai-go, anthropic-sdk-go,
# LangChainGo), the adapter over mcp-sidecar against the framework's own MCP route (the official Go
# MCP SDK, one session per server; anthropic-sdk-go's mcp.NewBetaTools on top of it) on the same five
# stdio servers from the registries. Measures start → first tool list, sequential calls/s through
# the framework's tool interface, and the agent's processes left after `kill -9` of the agent.
#
#   bash clients/go/bench/run.sh [ROUNDS] [CALLS]
#
# The servers are installed into $BENCH_DIR (default: a directory under /tmp), never into the repo;
# the sidecar is $MCP_SIDECAR_BIN, else the checkout's target/release, else target/debug build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
rounds="${1:-5}"
calls="${2:-200}"
dir="${BENCH_DIR:-/tmp/mcp-sidecar-go-bench}"
mkdir -p "$dir/files" "$dir/repo"

if [ -z "${MCP_SIDECAR_BIN:-}" ]; then
    for build in release debug; do
        if [ -x "$repo/target/$build/mcp-sidecar" ]; then MCP_SIDECAR_BIN="$repo/target/$build/mcp-sidecar"; break; fi
    done
fi
export MCP_SIDECAR_BIN="${MCP_SIDECAR_BIN:?build mcp-sidecar first (cargo build --release)}"

# The five servers, pinned, from npm and PyPI.
if [ ! -x "$dir/npm/node_modules/.bin/mcp-server-everything" ]; then
    npm install --no-audit --no-fund --prefix "$dir/npm" \
        @modelcontextprotocol/server-filesystem@2026.8.31 \
        @modelcontextprotocol/server-memory@2026.8.31 \
        @modelcontextprotocol/server-everything@2026.8.31 >&2
fi
if [ ! -x "$dir/venv/bin/mcp-server-git" ]; then
    python3 -m venv "$dir/venv"
    "$dir/venv/bin/pip" install --quiet mcp-server-time==2026.10.19 mcp-server-git==2026.10.19 >&2
fi
[ -d "$dir/repo/.git" ] || git -C "$dir/repo" init --quiet
echo "hello" > "$dir/files/hello.txt"

bin="$dir/npm/node_modules/.bin"
cat > "$dir/servers.json" <<JSON
{
  "filesystem": {"command": "$bin/mcp-server-filesystem", "args": ["$dir/files"]},
  "memory": {"command": "$bin/mcp-server-memory", "env": {"MEMORY_FILE_PATH": "$dir/memory.jsonl"}},
  "everything": {"command": "$bin/mcp-server-everything", "args": ["stdio"]},
  "time": {"command": "$dir/venv/bin/mcp-server-time", "args": ["--local-timezone", "UTC"]},
  "git": {"command": "$dir/venv/bin/mcp-server-git", "args": ["--repository", "$dir/repo"]}
}
JSON

cd "$here"
go build -o "$dir/agent" ./agent
go build -o "$dir/driver" ./driver
echo "sidecar: $MCP_SIDECAR_BIN; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$dir/driver" -agent "$dir/agent" -servers "$dir/servers.json" -rounds "$rounds" -calls "$calls"
