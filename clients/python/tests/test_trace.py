"""``call_tool``'s ``traceparent``: the server is told the call's W3C trace context in
``_meta.traceparent`` (the sidecar exports no spans here, so it passes the context on as given)."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile

import support
from mcp_sidecar import AsyncSidecar, Sidecar

TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _metas(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_sync_call_passes_its_traceparent_to_the_server() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "meta.jsonl")
        with Sidecar(support.SIDECAR_BIN) as sidecar:
            sidecar.add_server("fx", support.fixture_config("--log-meta", log))
            sidecar.call_tool("mcp__fx__echo", {"message": "m"}, traceparent=TRACEPARENT)
            sidecar.call_tool("mcp__fx__echo", {"message": "m"})
        metas = _metas(log)
        assert metas[0]["traceparent"] == TRACEPARENT
        assert metas[1] is None or "traceparent" not in metas[1]


def test_async_call_passes_its_traceparent_and_tracestate() -> None:
    async def main() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            log = os.path.join(tmp, "meta.jsonl")
            async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
                await sidecar.add_server("fx", support.fixture_config("--log-meta", log))
                await sidecar.call_tool(
                    "mcp__fx__echo",
                    {"message": "m"},
                    traceparent=TRACEPARENT,
                    tracestate="vendor=1",
                )
            meta = _metas(log)[0]
            assert (meta["traceparent"], meta["tracestate"]) == (TRACEPARENT, "vendor=1")

    asyncio.run(main())
