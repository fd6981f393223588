"""The log stream (bounded: the oldest are dropped and counted), ``server_logs`` at initialize,
progress routed to the callback of the call it names, the typed resource/prompt events, and
``accept_tools`` of a tool held by ``pinTools``."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Dict, List

import pytest

import support
from mcp_sidecar import SERVER_LOG, AsyncSidecar, Notification, Sidecar

SURFACE = support.fixture_config("--surface", "--client-requests")
EMIT = "mcp__fx__emit"
WAIT = 10.0


def _log(data: str, level: str = "info") -> Dict[str, Any]:
    return {"kind": "log", "level": level, "data": data}


def test_async_log_stream_is_bounded_and_counts_drops() -> None:
    """Nobody reads ``logs()`` while 10 messages arrive into a queue of 3: the last 3 are kept,
    7 are counted as dropped. ``server_logs`` (initialize) alone makes them come."""

    async def main() -> None:
        async with AsyncSidecar(
            support.SIDECAR_BIN, server_logs="info", log_queue_size=3
        ) as sidecar:
            tenth = asyncio.Event()

            def on_note(note: Notification) -> None:
                if note.method == SERVER_LOG and note.params["data"] == "m9":
                    tenth.set()

            sidecar.on_notification(on_note)
            await sidecar.add_server("fx", SURFACE)
            for i in range(10):
                await sidecar.call_tool(EMIT, _log(f"m{i}"))
            await asyncio.wait_for(tenth.wait(), WAIT)  # every message has arrived
            assert sidecar.dropped_logs == 7
            kept: List[Any] = []
            async for params in sidecar.logs():
                kept.append(params["data"])
                if len(kept) == 3:
                    break
            assert kept == ["m7", "m8", "m9"]

    asyncio.run(main())


def test_sync_log_stream_is_bounded_and_below_the_level_nothing_comes() -> None:
    with Sidecar(support.SIDECAR_BIN, server_logs="warning", log_queue_size=2) as sidecar:
        last = threading.Event()
        sidecar.on_notification(
            lambda note: last.set() if note.params.get("data") == "w4" else None
        )
        sidecar.add_server("fx", SURFACE)
        for i in range(5):
            sidecar.call_tool(EMIT, _log(f"quiet{i}", "info"), timeout=WAIT)
            sidecar.call_tool(EMIT, _log(f"w{i}", "warning"), timeout=WAIT)
        assert last.wait(WAIT)
        assert sidecar.dropped_logs == 3
        assert [p["data"] for p in sidecar.logs(timeout=0)] == ["w3", "w4"]


def test_no_log_reaches_the_host_without_a_level() -> None:
    """No ``server_logs`` and no ``set_log_level``: the stream stays empty (a later message,
    after ``set_log_level``, proves the earlier one would have arrived before it)."""
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.add_server("fx", SURFACE)
        sidecar.call_tool(EMIT, _log("unasked", "error"), timeout=WAIT)
        assert sidecar.set_log_level("debug", timeout=WAIT)["servers"] == ["fx"]
        sidecar.call_tool(EMIT, _log("asked", "debug"), timeout=WAIT)
        first = next(iter(sidecar.logs(timeout=WAIT)))
        assert first["data"] == "asked"


def test_async_progress_goes_to_the_callback_of_its_own_call() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", SURFACE)
            updates: Dict[str, List[Any]] = {"a": [], "b": []}
            calls = [
                sidecar.call_tool(
                    "mcp__fx__progress",
                    {"steps": steps},
                    progress=lambda p, key=key: updates[key].append(p),  # type: ignore[misc]
                )
                for key, steps in (("a", 2), ("b", 4))
            ]
            results = await asyncio.gather(*calls)
            ids = {key: {u["requestId"] for u in updates[key]} for key in updates}
            assert len(ids["a"]) == 1 and len(ids["b"]) == 1 and ids["a"] != ids["b"]
            assert updates["a"][-1]["total"] == 2 and updates["b"][-1]["total"] == 4
            assert [r["structuredContent"]["steps"] for r in results] == [2, 4]
            # A call without a callback does not ask for progress.
            plain = await sidecar.call_tool("mcp__fx__progress", {"steps": 1})
            assert plain["structuredContent"].get("token") is None
            assert sidecar._require()._progress == {}  # every callback dropped with its call

    asyncio.run(main())


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_typed_resource_and_prompt_events(kind: str) -> None:
    emits = [
        {"kind": "updated", "uri": "fixture://text/readme"},
        {"kind": "resources-changed"},
        {"kind": "prompts-changed"},
    ]
    if kind == "sync":
        got: List[Any] = []
        done = threading.Event()

        def record(name: str) -> Any:
            def callback(params: Any) -> None:
                got.append((name, dict(params)))
                if len(got) == 3:
                    done.set()

            return callback

        with Sidecar(support.SIDECAR_BIN) as sidecar:
            sidecar.on_resources_updated(record("updated"))
            sidecar.on_resources_changed(record("resources"))
            sidecar.on_prompts_changed(record("prompts"))
            sidecar.add_server("fx", SURFACE)
            sidecar.subscribe_resource("fx", "fixture://text/readme")
            for emit in emits:
                sidecar.call_tool(EMIT, emit, timeout=WAIT)
            assert done.wait(WAIT), got
    else:

        async def main() -> List[Any]:
            got: List[Any] = []
            done = asyncio.Event()

            def record(name: str) -> Any:
                def callback(params: Any) -> None:
                    got.append((name, dict(params)))
                    if len(got) == 3:
                        done.set()

                return callback

            async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
                sidecar.on_resources_updated(record("updated"))
                sidecar.on_resources_changed(record("resources"))
                sidecar.on_prompts_changed(record("prompts"))
                await sidecar.add_server("fx", SURFACE)
                await sidecar.subscribe_resource("fx", "fixture://text/readme")
                for emit in emits:
                    await sidecar.call_tool(EMIT, emit)
                await asyncio.wait_for(done.wait(), WAIT)
            return got

        got = asyncio.run(main())
    assert sorted(got, key=lambda item: item[0]) == [
        ("prompts", {"server": "fx"}),
        ("resources", {"server": "fx"}),
        ("updated", {"server": "fx", "uri": "fixture://text/readme"}),
    ]


def test_accept_tools_lets_a_held_tool_back() -> None:
    """Under ``pinTools`` a definition that changed (``--drift``: echo's description changes at
    each re-listing) is held out of the tool set until :meth:`accept_tools` takes it back."""
    held = threading.Event()

    def on_note(note: Notification) -> None:
        if note.method == "notifications/tools/changed" and note.params.get("withheld"):
            held.set()

    config = dict(support.fixture_config("--surface", "--drift"), pinTools=True)
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.on_notification(on_note)
        sidecar.add_server("fx", config)
        sidecar.call_tool(EMIT, {"kind": "tools-changed"}, timeout=WAIT)  # the server re-lists
        assert held.wait(WAIT)
        listing = sidecar.list_tools()
        withheld = listing["withheld"]
        assert [w["tool"] for w in withheld] == ["echo"]
        assert "mcp__fx__echo" not in [t["name"] for t in listing["tools"]]
        outcome = sidecar.accept_tools(withheld)
        assert outcome["rejected"] == []
        assert [(a["tool"], a["hash"]) for a in outcome["accepted"]] == [
            ("echo", withheld[0]["hash"])
        ]
        assert "mcp__fx__echo" in [t["name"] for t in sidecar.list_tools()["tools"]]
