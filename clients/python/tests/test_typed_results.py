"""Results are typed: each is the decoded dict as before (``r["isError"]``, ``json.dumps(r)``,
equality) and also answers typed snake_case attributes (``r.is_error``), objects inside it
included (``tools.tools[0].definition``), generated from proto/schema."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

import support
from mcp_sidecar import (
    SERVERS_CHANGED,
    AsyncSidecar,
    Completion,
    Notification,
    ServerStatus,
    Sidecar,
    ToolCallResult,
    ToolEntry,
    ToolsListResult,
)

ECHO = "mcp__fx__echo"
SURFACE = support.fixture_config("--surface")


def _check_call(result: ToolCallResult) -> None:
    assert isinstance(result, ToolCallResult) and isinstance(result, dict)
    assert result.is_error is False and result["isError"] is False
    assert result.text == result["text"] == "hi"
    assert result.server == "fx" and result.tool == "echo"
    assert result.duration_ms == result["durationMs"] >= 0
    assert result.structured_content == {"length": 2, "message": "hi"}
    assert result.truncated is None and "truncated" not in result  # an absent optional key
    assert json.loads(json.dumps(result)) == dict(result) == result  # still the plain JSON
    with pytest.raises(AttributeError):
        result.no_such_field  # type: ignore[attr-defined]  # noqa: B018


def _check_tools(tools: ToolsListResult) -> None:
    entry = tools.tools[0]
    assert isinstance(entry, ToolEntry) and entry is tools["tools"][0]  # one object, two spellings
    assert entry.definition == entry["definition"] and entry.server == "fx"
    assert tools.fingerprint.startswith("sha256:")


def _check_status(status: ServerStatus) -> None:
    assert isinstance(status, ServerStatus)
    assert status.state == "ready" and status.name == "fx" and status.tools_count >= 1


def test_sync_results_are_dicts_with_typed_attributes() -> None:
    seen: list = []
    ready = threading.Event()

    def on_change(note: Notification) -> None:
        if note.method == SERVERS_CHANGED and note.params["status"]["state"] == "ready":
            seen.append(note.params["status"])
            ready.set()

    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.on_notification(on_change)
        _check_status(sidecar.add_server("fx", SURFACE))
        _check_call(sidecar.call_tool(ECHO, {"message": "hi"}))
        _check_tools(sidecar.list_tools())
        _check_status(sidecar.list_servers().servers[0])
        assert sidecar.initialize_result.protocol_version == 1
        assert sidecar.initialize_result.server_info.name == "mcp-sidecar"
        assert ready.wait(10.0)
        assert isinstance(seen[0], ServerStatus) and seen[0].state == "ready"


def test_async_results_are_dicts_with_typed_attributes() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            _check_status(await sidecar.add_server("fx", SURFACE))
            _check_call(await sidecar.call_tool(ECHO, {"message": "hi"}))
            _check_tools(await sidecar.list_tools())
            done = await sidecar.complete(
                "fx", {"type": "ref/prompt", "name": "greet"}, {"name": "name", "value": "al"}
            )
            assert isinstance(done.completion, Completion)
            # a key that is also a dict method: the attribute takes a trailing underscore
            assert done.completion.values_ == done["completion"]["values"]
            prompts = await sidecar.list_prompts("fx")
            assert prompts.prompts[0].server == "fx" and prompts.next_cursor is None

    asyncio.run(main())
