"""The protocol core both clients drive (sans-IO: lines in, outcomes and lines out)."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import pytest

from mcp_sidecar import ErrorCode, Notification, SidecarError
from mcp_sidecar._handlers import SidecarRequest
from mcp_sidecar._core import Notifications, Requests, classify

Outcome = Tuple[str, Any, Optional[SidecarError]]


def _requests(max_request_bytes: int = 1 << 20) -> Tuple["Requests[str]", List[Outcome]]:
    settled: List[Outcome] = []
    core: Requests[str] = Requests(max_request_bytes, lambda w, r, e: settled.append((w, r, e)))
    return core, settled


def test_ids_count_up_and_lines_are_exact() -> None:
    core, _ = _requests()
    assert core.begin("ping", None, "a") == (1, b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    request_id, line = core.begin("servers/remove", {"name": "fx"}, "b")
    assert request_id == 2
    assert line == b'{"jsonrpc":"2.0","id":2,"method":"servers/remove","params":{"name":"fx"}}\n'
    assert core.pending == {1: "a", 2: "b"}


def test_a_response_settles_its_waiter_once() -> None:
    core, settled = _requests()
    request_id, _ = core.begin("ping", None, "a")
    assert core.answer(request_id, {"jsonrpc": "2.0", "id": request_id, "result": {}})
    assert settled == [("a", {}, None)]
    assert not core.answer(request_id, {"jsonrpc": "2.0", "id": request_id, "result": {}})
    assert settled == [("a", {}, None)]


def test_an_error_response_becomes_a_sidecar_error() -> None:
    core, settled = _requests()
    request_id, _ = core.begin("tools/call", {"name": "x"}, "a")
    error = {"code": -32020, "message": "no tool x", "data": {"code": "TOOL_NOT_FOUND"}}
    core.answer(request_id, {"jsonrpc": "2.0", "id": request_id, "error": error})
    ((_, _, raised),) = settled
    assert raised is not None and raised.code == ErrorCode.TOOL_NOT_FOUND
    assert raised.rpc_code == -32020


def test_timeout_settles_with_timeout_and_cancels_at_the_sidecar() -> None:
    core, settled = _requests()
    request_id, _ = core.begin("tools/call", {"name": "x"}, "a")
    line = core.expire(request_id, "tools/call", 0.5)
    assert line == b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n'
    ((_, _, raised),) = settled
    assert raised is not None and raised.code == ErrorCode.TIMEOUT
    # The late answer is ignored; a second expiry sends nothing.
    assert not core.answer(request_id, {"jsonrpc": "2.0", "id": request_id, "result": {}})
    assert core.expire(request_id, "tools/call", 0.5) is None
    assert len(settled) == 1


def test_cancel_keeps_the_request_pending_abandon_forgets_it() -> None:
    core, settled = _requests()
    first, _ = core.begin("tools/call", None, "a")
    assert core.cancel(first) is not None
    assert first in core.pending  # the sidecar's CANCELLED answer settles it
    second, _ = core.begin("tools/call", None, "b")
    assert core.abandon(second) is not None
    assert second not in core.pending and core.abandon(second) is None
    assert settled == []


def test_end_of_output_fails_every_pending_and_later_request() -> None:
    core, settled = _requests()
    core.begin("ping", None, "a")
    core.begin("ping", None, "b")
    core.end_of_output(3)
    assert [(w, e.code if e else None) for w, _, e in settled] == [
        ("a", ErrorCode.CONNECTION_CLOSED),
        ("b", ErrorCode.CONNECTION_CLOSED),
    ]
    assert core.error is not None and "code 3" in core.error.message
    assert core.cancel(1) is None
    with pytest.raises(SidecarError) as raised:
        core.begin("ping", None, "c")
    assert raised.value.code == ErrorCode.CONNECTION_CLOSED and raised.value.method == "ping"


def test_a_request_over_the_sidecar_line_bound_is_not_sent() -> None:
    core, _ = _requests(max_request_bytes=64)
    with pytest.raises(SidecarError) as raised:
        core.begin("tools/call", {"arguments": "x" * 100}, "a")
    assert raised.value.code == ErrorCode.MESSAGE_TOO_LARGE
    assert core.pending == {}


def test_classify_lines() -> None:
    assert classify(b"\n") is None
    assert classify(b'{"jsonrpc":"2.0","id":7,"result":{}}\n') == (
        7,
        {"jsonrpc": "2.0", "id": 7, "result": {}},
    )
    note = classify(b'{"jsonrpc":"2.0","method":"notifications/tools/changed"}\n')
    assert note == Notification("notifications/tools/changed", {})
    # A request of the sidecar's own (protocol §17), params {} when absent.
    assert classify(b'{"jsonrpc":"2.0","id":"sidecar-1","method":"roots/list"}\n') == (
        SidecarRequest("sidecar-1", "roots/list", {})
    )
    with pytest.raises(SidecarError) as raised:
        classify(b"not json\n")
    assert raised.value.code == ErrorCode.INVALID_MESSAGE


def test_the_notification_queue_drops_the_oldest_when_full() -> None:
    notes: Notifications[Any] = Notifications(2)
    for i in range(3):
        notes.push(Notification("n", {"i": i}))
    assert [n.params["i"] for n in notes.require_queue()] == [1, 2]
    assert notes.dropped == 1
    notes.ended = True
    notes.push(Notification("n", {"i": 3}))
    assert len(notes.require_queue()) == 2


def test_callbacks_run_in_order_and_a_failing_one_is_logged() -> None:
    notes: Notifications[Any] = Notifications(0)
    seen: List[str] = []

    def boom(n: Notification) -> None:
        raise ValueError("boom")

    remove = notes.add_callback(lambda n: seen.append("first"))
    notes.add_callback(boom)
    notes.add_callback(lambda n: seen.append("third") or "awaitable")
    assert notes.run_callbacks(Notification("n", {}), notes.callbacks) == ["awaitable"]
    assert seen == ["first", "third"]
    remove()
    assert len(notes.callbacks) == 2
    with pytest.raises(RuntimeError):
        notes.require_queue()
