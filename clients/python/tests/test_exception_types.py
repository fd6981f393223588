"""Timeouts and cancellations are the exceptions Python code already catches, with their stable
``code`` kept: ``except TimeoutError`` catches both timeouts (the client's ``timeout=`` and the
sidecar's ``timeout_ms``), ``except concurrent.futures.CancelledError`` a cancelled blocking call,
and an asyncio caller that cancels its own task gets ``asyncio.CancelledError`` itself."""

from __future__ import annotations

import asyncio
import concurrent.futures
import pickle
import sys
import threading
from typing import List

import pytest

import support
from mcp_sidecar import (
    AsyncSidecar,
    CancelToken,
    ErrorCode,
    Sidecar,
    SidecarCancelledError,
    SidecarError,
    SidecarTimeoutError,
)
from mcp_sidecar._errors import error_from_rpc

SLEEP = "mcp__fx__sleep"


def test_async_timeout_is_a_timeout_error() -> None:
    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", support.fixture_config())
            try:
                await sidecar.call_tool(SLEEP, {"ms": 30000}, timeout=0.2)
            except TimeoutError as exc:  # what a new user writes
                assert isinstance(exc, SidecarError) and exc.code == ErrorCode.TIMEOUT
                assert exc.rpc_code == 0 and exc.method == "tools/call"
            else:
                pytest.fail("no TimeoutError")
            try:
                await sidecar.call_tool(SLEEP, {"ms": 30000}, timeout_ms=100)
            except TimeoutError as exc:
                assert isinstance(exc, SidecarTimeoutError) and exc.code == "TOOL_TIMEOUT"
                assert exc.rpc_code == -32022 and exc.data["limit"] == 100
            else:
                pytest.fail("no TimeoutError")

    asyncio.run(main())


def test_sync_timeout_is_a_timeout_error() -> None:
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.add_server("fx", support.fixture_config())
        with pytest.raises(TimeoutError) as info:
            sidecar.call_tool(SLEEP, {"ms": 30000}, timeout=0.2)
        assert isinstance(info.value, SidecarError) and info.value.code == ErrorCode.TIMEOUT
        assert sidecar.call_tool("mcp__fx__echo", {"message": "ok"})["text"] == "ok"


def test_sync_cancel_is_a_futures_cancelled_error() -> None:
    with Sidecar(support.SIDECAR_BIN) as sidecar:
        sidecar.add_server("fx", support.fixture_config())
        token = CancelToken()
        caught: List[BaseException] = []

        def call() -> None:
            try:
                sidecar.call_tool(SLEEP, {"ms": 30000}, cancel=token)
            except concurrent.futures.CancelledError as exc:  # what thread-pool code catches
                caught.append(exc)

        thread = threading.Thread(target=call)
        thread.start()
        assert token.wait_sent(10.0)
        token.cancel()
        thread.join(10.0)
        assert not thread.is_alive()
        assert isinstance(caught[0], SidecarCancelledError)
        assert caught[0].code == "CANCELLED" and caught[0].rpc_code == -32800
        with pytest.raises(concurrent.futures.CancelledError) as info:  # cancelled before sending
            sidecar.call_tool(SLEEP, {"ms": 1}, cancel=token)
        assert isinstance(info.value, SidecarError) and info.value.rpc_code == 0


def test_async_caller_cancel_stays_asyncio_cancellation() -> None:
    """The caller's own cancel is never turned into a SidecarError: the task ends cancelled, so
    ``asyncio.timeout`` and task groups see what they expect."""

    async def main() -> None:
        async with AsyncSidecar(support.SIDECAR_BIN) as sidecar:
            await sidecar.add_server("fx", support.fixture_config())
            task = asyncio.ensure_future(sidecar.call_tool(SLEEP, {"ms": 30000}))
            await sidecar.call_tool("mcp__fx__echo", {"message": "behind the sleep"})
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert task.cancelled()
            if sys.version_info >= (3, 11):
                with pytest.raises(TimeoutError):
                    async with asyncio.timeout(0.2):
                        await sidecar.call_tool(SLEEP, {"ms": 30000})
            assert (await sidecar.call_tool("mcp__fx__echo", {"message": "ok"}))["text"] == "ok"

    asyncio.run(main())


def test_the_sidecars_cancelled_answer_is_not_an_asyncio_cancellation() -> None:
    err = error_from_rpc({"code": -32800, "message": "cancelled", "data": {"code": "CANCELLED"}})
    assert isinstance(err, SidecarCancelledError)
    assert isinstance(err, concurrent.futures.CancelledError)
    assert not isinstance(err, asyncio.CancelledError)  # would confuse task cancellation
    plain = error_from_rpc({"code": -32020, "message": "x", "data": {"code": "TOOL_NOT_FOUND"}})
    assert type(plain) is SidecarError and not isinstance(plain, TimeoutError)


@pytest.mark.parametrize("code", ["TIMEOUT", "TOOL_TIMEOUT", "CANCELLED"])
def test_copies_and_pickles_keep_the_class(code: str) -> None:
    err = error_from_rpc({"code": -1, "message": "m", "data": {"code": code, "limit": 5}})
    for again in (err.copy(), pickle.loads(pickle.dumps(err))):
        assert type(again) is type(err) and again.code == code and again.data["limit"] == 5
        assert str(again) == str(err)
