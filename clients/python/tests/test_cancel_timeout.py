"""Cancellation (asyncio task cancel; CancelToken for the blocking client) and the ``timeout``
argument: each sends ``notifications/cancelled`` (the fixture logs ``cancelled <id>`` on its
stderr, visible in the server status ``stderrTail``) and frees the call at once."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import List

import pytest

import support
from mcp_sidecar import (
    AsyncSidecar,
    CancelToken,
    ErrorCode,
    ServersListResult,
    Sidecar,
    SidecarError,
)

SLEEP = "mcp__fx__sleep"


def _tail(servers: ServersListResult) -> str:
    return str(servers["servers"][0]["stderrTail"])


async def _await_cancelled_in_tail(sidecar: AsyncSidecar, count: int = 1) -> str:
    """The fixture's stderr reports the cancel asynchronously and no notification announces a
    new stderr line, so poll servers/list (bounded)."""
    deadline = time.monotonic() + 5.0
    while True:
        tail = _tail(await sidecar.list_servers())
        if tail.count("cancelled ") >= count or time.monotonic() > deadline:
            return tail
        await asyncio.sleep(0.02)


def test_async_task_cancel_sends_cancelled_and_frees_the_call() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", support.fixture_config())
            task = asyncio.ensure_future(sidecar.call_tool(SLEEP, {"ms": 30000}))
            await asyncio.sleep(0)  # the request is written
            # A cancel that overtakes the call inside the sidecar never reaches the server (§11);
            # an answered echo sent after it means the fixture has the sleep call by now.
            await sidecar.call_tool("mcp__fx__echo", {"message": "behind the sleep"})
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, 2.0)
            assert time.monotonic() - started < 1.0
            assert "cancelled " in await _await_cancelled_in_tail(sidecar)
            result = await sidecar.call_tool("mcp__fx__echo", {"message": "after"})
            assert result["text"] == "after"

    asyncio.run(main())


def test_async_wait_for_timeout_cancels_too() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", support.fixture_config())
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(sidecar.call_tool(SLEEP, {"ms": 30000}), 0.2)
            assert "cancelled " in await _await_cancelled_in_tail(sidecar)

    asyncio.run(main())


def test_async_timeout_argument() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", support.fixture_config())
            started = time.monotonic()
            with pytest.raises(SidecarError) as info:
                await sidecar.call_tool(SLEEP, {"ms": 30000}, timeout=0.3)
            elapsed = time.monotonic() - started
            assert 0.25 <= elapsed < 2.0
            err = info.value
            assert err.code == ErrorCode.TIMEOUT and err.rpc_code == 0
            assert err.method == "tools/call" and err.data["timeout"] == 0.3
            assert "cancelled " in await _await_cancelled_in_tail(sidecar)
            assert (await sidecar.call_tool("mcp__fx__echo", {"message": "ok"}))["text"] == "ok"

    asyncio.run(main())


def test_sidecar_side_timeout_ms() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", support.fixture_config())
            with pytest.raises(SidecarError) as info:
                await sidecar.call_tool(SLEEP, {"ms": 30000}, timeout_ms=150)
            err = info.value
            assert err.code == "TOOL_TIMEOUT" and err.rpc_code == -32022
            assert err.data["setting"] == "timeoutMs" and err.data["limit"] == 150

    asyncio.run(main())


def test_sync_timeout_argument() -> None:
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.add_server("fx", support.fixture_config())
        started = time.monotonic()
        with pytest.raises(SidecarError) as info:
            sidecar.call_tool(SLEEP, {"ms": 30000}, timeout=0.3)
        assert 0.25 <= time.monotonic() - started < 2.0
        assert info.value.code == ErrorCode.TIMEOUT
        assert support.wait_until(lambda: "cancelled " in _tail(sidecar.list_servers()), 5.0)
        assert sidecar.call_tool("mcp__fx__echo", {"message": "ok"})["text"] == "ok"


def test_sync_timeout_while_another_thread_reads() -> None:
    """Thread A waits (and so reads stdout) for a slow call with no timeout; thread B's own
    timeout must still fire on time."""
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.add_server("fx", support.fixture_config())
        a_done = threading.Event()
        a_result: List[str] = []

        def slow() -> None:
            a_result.append(sidecar.call_tool(SLEEP, {"ms": 1500})["text"])
            a_done.set()

        thread = threading.Thread(target=slow)
        thread.start()
        started = time.monotonic()
        with pytest.raises(SidecarError) as info:
            sidecar.call_tool(SLEEP, {"ms": 30000}, timeout=0.3)
        assert info.value.code == ErrorCode.TIMEOUT
        assert time.monotonic() - started < 1.2
        assert a_done.wait(10.0)
        thread.join(5.0)
        assert a_result and "1500" in a_result[0]


def test_sync_cancel_token() -> None:
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.add_server("fx", support.fixture_config())
        token = CancelToken()
        errors: List[SidecarError] = []

        def call() -> None:
            try:
                sidecar.call_tool(SLEEP, {"ms": 30000}, cancel=token)
            except SidecarError as exc:
                errors.append(exc)

        thread = threading.Thread(target=call)
        thread.start()
        assert token.wait_sent(10.0)
        sidecar.call_tool("mcp__fx__echo", {"message": "behind the sleep"})  # see the async test
        started = time.monotonic()
        token.cancel()
        thread.join(2.0)
        assert not thread.is_alive() and time.monotonic() - started < 1.0
        assert errors[0].code == "CANCELLED" and errors[0].rpc_code == -32800  # the sidecar's answer
        assert support.wait_until(lambda: "cancelled " in _tail(sidecar.list_servers()), 5.0)
        with pytest.raises(SidecarError) as info:  # an already-cancelled token: nothing is sent
            sidecar.call_tool(SLEEP, {"ms": 1}, cancel=token)
        assert info.value.code == "CANCELLED" and info.value.rpc_code == 0
