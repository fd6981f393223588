"""The sidecar's requests to the host (protocol §17) beyond the shared scenarios: what is declared,
a handler withdrawn by the sidecar, a handler that fails, many handlers at once, an unhandled
method, and the OAuth browser step (``auth/authorize``), on both clients.

Against the real sidecar and fixture (``--client-requests``: its ``ask`` tool makes the fixture
ask the client through the sidecar and answers with the client's response), except where the
real sidecar cannot produce the request here: ``auth/authorize`` needs a remote OAuth server, and
a method the host did not register is never sent by a conforming sidecar; those use the fake
sidecar of ``support.py`` (``host-requests`` mode).
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

import pytest

import support
from mcp_sidecar import (
    AUTHORIZE,
    ELICITATION,
    ROOTS_LIST,
    SAMPLING,
    AsyncSidecar,
    HandlerError,
    Sidecar,
)
from mcp_sidecar.sync import handler_cancel_token

ASKING = support.fixture_config("--client-requests")
ASK = "mcp__fx__ask"
WAIT = 10.0


def _sampling_ask(text: str, **extra: Any) -> Dict[str, Any]:
    return {
        "method": SAMPLING,
        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": text}}],
                   "maxTokens": 5},
        **extra,
    }


def _reply(text: str) -> Dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": text}, "model": "test"}


# -- declaring ------------------------------------------------------------------------------


def test_capabilities_follow_the_registered_handlers() -> None:
    """Nothing registered declares nothing of the host's (servers hear only the sidecar's own
    ``tasks``); each handler declares exactly its capability, with the requested modes and
    features."""
    with Sidecar(support.SIDECAR_BIN) as plain:
        plain.add_server("fx", ASKING)
        state = plain.call_tool("mcp__fx__client_state", {})["structuredContent"]
        assert state["capabilities"] == {"tasks": {}}

    async def main() -> Dict[str, Any]:
        sidecar = AsyncSidecar(
            support.SIDECAR_BIN,
            elicitation_modes=("form", "url"),
            sampling_features=("tools",),
        )
        sidecar.on_request(SAMPLING, lambda params: _reply("x"))
        sidecar.on_request(ELICITATION, lambda params: {"action": "decline"})
        sidecar.set_roots([{"uri": "file:///srv"}])
        async with sidecar:
            await sidecar.add_server("fx", ASKING)
            with pytest.raises(RuntimeError, match="before start"):
                sidecar.on_request(ROOTS_LIST, lambda params: {"roots": []})
            result = await sidecar.call_tool("mcp__fx__client_state", {})
            return dict(result["structuredContent"]["capabilities"])

    assert asyncio.run(main()) == {
        "sampling": {"tools": {}},
        "elicitation": {"form": {}, "url": {}},
        "roots": {"listChanged": True},
        "tasks": {},
    }


def test_unknown_handler_method_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="no request 'tools/call'"):
        AsyncSidecar(support.SIDECAR_BIN, handlers={"tools/call": lambda params: {}})


# -- a handler withdrawn by the sidecar ------------------------------------------------------


def test_async_handler_cancelled_by_the_sidecar_sends_nothing() -> None:
    """The fixture withdraws its request after 300 ms; the sidecar sends the host
    ``notifications/cancelled``: the handler's task is cancelled and no answer is written."""

    async def main() -> None:
        started = asyncio.Event()
        cancelled = asyncio.Event()

        async def never_answers(params: Dict[str, Any]) -> Dict[str, Any]:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise
            raise AssertionError("unreachable")

        async with AsyncSidecar(support.SIDECAR_BIN, handlers={SAMPLING: never_answers}) as sidecar:
            await sidecar.add_server("fx", ASKING)
            conn = sidecar._conn
            assert conn is not None
            written: List[bytes] = []
            send = conn._send

            def spy(line: Any) -> None:  # observes what the client writes to the sidecar
                if line is not None:
                    written.append(line)
                send(line)

            conn._send = spy  # type: ignore[method-assign]
            result = await sidecar.call_tool(ASK, _sampling_ask("wait", withdrawAfterMs=300))
            assert result["structuredContent"] == {"withdrawn": True}
            await asyncio.wait_for(cancelled.wait(), WAIT)
            assert started.is_set()
            assert conn._handling == {}
            # Nothing answered the withdrawn request (a later call proves the line order).
            await sidecar.ping()
            assert not [line for line in written if b'"sidecar-' in line], written

    asyncio.run(main())


def test_sync_handler_cancelled_by_the_sidecar_sees_its_token_and_its_answer_is_dropped() -> None:
    answered = threading.Event()

    def waits_for_cancel(params: Dict[str, Any]) -> Dict[str, Any]:
        token = handler_cancel_token()
        assert token is not None
        assert token.wait_cancelled(WAIT), "the sidecar's cancellation never reached the handler"
        answered.set()
        return _reply("too late")  # dropped: the request was withdrawn

    with Sidecar(support.SIDECAR_BIN, handlers={SAMPLING: waits_for_cancel}) as sidecar:
        sidecar.add_server("fx", ASKING)
        result = sidecar.call_tool(ASK, _sampling_ask("wait", withdrawAfterMs=300))
        assert result["structuredContent"] == {"withdrawn": True}
        assert answered.wait(WAIT)
        sidecar.ping()
        assert sidecar._conn._handling == {}
    assert handler_cancel_token() is None  # outside a handler


# -- a handler that fails --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_failing_handlers_answer_their_errors(kind: str) -> None:
    """A :class:`HandlerError` answers its code, message and data; any other exception -32603
    with its message. The server gets exactly that error."""

    def fails(params: Dict[str, Any]) -> Dict[str, Any]:
        raise RuntimeError("the model is down")

    def refuses(params: Dict[str, Any]) -> Dict[str, Any]:
        raise HandlerError(-1, "rejected by the user", {"why": "no"})

    def bad_result(params: Dict[str, Any]) -> Any:
        return ["not", "an", "object"]

    handlers = {SAMPLING: fails, ELICITATION: refuses, ROOTS_LIST: bad_result}
    asks = [
        _sampling_ask("x"),
        {"method": ELICITATION, "params": {"message": "?", "requestedSchema": {"type": "object"}}},
        {"method": ROOTS_LIST},
    ]
    if kind == "sync":
        with Sidecar(support.SIDECAR_BIN, handlers=handlers) as sidecar:
            sidecar.add_server("fx", ASKING)
            errors = [sidecar.call_tool(ASK, ask)["structuredContent"]["error"] for ask in asks]
    else:

        async def main() -> List[Any]:
            async with AsyncSidecar(support.SIDECAR_BIN, handlers=handlers) as sidecar:
                await sidecar.add_server("fx", ASKING)
                results = [await sidecar.call_tool(ASK, ask) for ask in asks]
                return [r["structuredContent"]["error"] for r in results]

        errors = asyncio.run(main())
    assert errors[0]["code"] == -32603 and "the model is down" in errors[0]["message"]
    assert errors[1]["code"] == -1 and "rejected by the user" in errors[1]["message"]
    assert errors[1].get("data") == {"why": "no"}
    assert errors[2]["code"] == -32603 and "not an object" in errors[2]["message"]


# -- many at once ----------------------------------------------------------------------------

MANY = 16


def test_async_handlers_run_concurrently() -> None:
    """Every handler waits until all of them are running: handlers run one at a time (or on
    the reader) would never get there."""

    async def main() -> List[str]:
        running = 0
        all_in = asyncio.Event()

        async def sample(params: Dict[str, Any]) -> Dict[str, Any]:
            nonlocal running
            running += 1
            if running == MANY:
                all_in.set()
            await asyncio.wait_for(all_in.wait(), WAIT)
            return _reply(params["messages"][0]["content"]["text"].upper())

        async with AsyncSidecar(support.SIDECAR_BIN, handlers={SAMPLING: sample}) as sidecar:
            await sidecar.add_server("fx", ASKING)
            calls = [sidecar.call_tool(ASK, _sampling_ask(f"m{i}")) for i in range(MANY)]
            results = await asyncio.gather(*calls)
            return [r["structuredContent"]["result"]["content"]["text"] for r in results]

    assert asyncio.run(main()) == [f"M{i}" for i in range(MANY)]


def test_sync_handlers_run_concurrently() -> None:
    barrier = threading.Barrier(MANY)

    def sample(params: Dict[str, Any]) -> Dict[str, Any]:
        barrier.wait(WAIT)  # broken (an exception) unless MANY handlers run at once
        return _reply(params["messages"][0]["content"]["text"].upper())

    with Sidecar(support.SIDECAR_BIN, handlers={SAMPLING: sample}) as sidecar:
        sidecar.add_server("fx", ASKING)
        with ThreadPoolExecutor(MANY) as pool:
            results = list(
                pool.map(lambda i: sidecar.call_tool(ASK, _sampling_ask(f"m{i}")), range(MANY))
            )
    texts = [r["structuredContent"]["result"]["content"]["text"] for r in results]
    assert texts == [f"M{i}" for i in range(MANY)]


# -- auth/authorize and an unhandled method (fake sidecar) -----------------------------------

REDIRECT = "http://127.0.0.1:9/callback?code=c&state=s"


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_authorize_handler_and_unhandled_method(kind: str, tmp_path: Any) -> None:
    fake = support.write_fake_sidecar(str(tmp_path))
    seen: List[Dict[str, Any]] = []

    def authorize(params: Dict[str, Any]) -> Dict[str, Any]:
        seen.append(params)
        return {"action": "redirected", "redirectUrl": REDIRECT}

    async def authorize_async(params: Dict[str, Any]) -> Dict[str, Any]:
        return authorize(params)

    if kind == "sync":
        with Sidecar(fake, args=["host-requests"], handlers={AUTHORIZE: authorize}) as sidecar:
            report = sidecar.request("ping", timeout=WAIT)
    else:

        async def main() -> Any:
            handlers = {AUTHORIZE: authorize_async}
            async with AsyncSidecar(fake, args=["host-requests"], handlers=handlers) as sidecar:
                return await sidecar.request("ping", timeout=WAIT)

        report = asyncio.run(main())
    assert report["initialize"]["capabilities"] == {"auth": {}}
    assert seen == [{"server": "remote", "url": "https://auth.example/authorize?state=s",
                     "redirectUri": "http://127.0.0.1:9/callback"}]
    answers = report["answers"]
    assert answers["sidecar-1"]["result"] == {"action": "redirected", "redirectUrl": REDIRECT}
    assert answers["sidecar-2"]["error"]["code"] == -32601
    assert "bogus/method" in answers["sidecar-2"]["error"]["message"]
