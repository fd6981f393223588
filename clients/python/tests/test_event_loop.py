"""An AsyncSidecar belongs to the event loop that started it: used on another loop it fails at once
with WRONG_EVENT_LOOP (nothing sent), and close() from another loop still ends and reaps the
sidecar, whether its own loop is closed or still running in another thread."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

import support
from mcp_sidecar import AsyncSidecar, ErrorCode, SidecarError


def reaped(pid: int) -> bool:
    """The process is gone and reaped (no zombie left in the process table)."""
    return not os.path.exists(f"/proc/{pid}")


def test_a_second_loop_fails_clearly_and_close_reaps_the_sidecar() -> None:
    client = asyncio.run(AsyncSidecar.open(support.SIDECAR_BIN))  # its loop is closed after
    pid = client.pid
    assert pid is not None
    with pytest.raises(SidecarError) as info:
        asyncio.run(client.list_servers())
    assert info.value.code == ErrorCode.WRONG_EVENT_LOOP
    assert "belongs to the event loop that started it" in info.value.message
    asyncio.run(client.close(timeout=10.0))
    assert reaped(pid), f"the sidecar {pid} is still in the process table after close()"
    with pytest.raises(SidecarError) as info:
        asyncio.run(client.list_servers())
    assert info.value.code == ErrorCode.WRONG_EVENT_LOOP


def test_close_from_another_loop_closes_on_the_owning_loop() -> None:
    owner = asyncio.new_event_loop()
    thread = threading.Thread(target=owner.run_forever, daemon=True)
    thread.start()
    try:
        started = asyncio.run_coroutine_threadsafe(AsyncSidecar.open(support.SIDECAR_BIN), owner)
        client = started.result(support.CALL_TIMEOUT)

        async def elsewhere() -> None:
            with pytest.raises(SidecarError) as info:
                await client.list_servers()
            assert info.value.code == ErrorCode.WRONG_EVENT_LOOP
            await client.close(timeout=10.0)

        asyncio.run(elsewhere())
        assert client.returncode == 0  # shutdown on its own loop: a graceful exit
        servers = asyncio.run_coroutine_threadsafe(client.list_servers(), owner)
        with pytest.raises(SidecarError) as info:
            servers.result(support.CALL_TIMEOUT)
        assert info.value.code == ErrorCode.CONNECTION_CLOSED
    finally:
        owner.call_soon_threadsafe(owner.stop)
        thread.join(support.CALL_TIMEOUT)
        owner.close()
