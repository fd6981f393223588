"""The protocol core both clients drive (sans-IO: lines in, outcomes and lines out)."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import pytest

from mcp_sidecar import ErrorCode, Notification, SidecarError
from mcp_sidecar._handlers import SidecarRequest
from mcp_sidecar._core import Notifications, classify

Outcome = Tuple[str, Any, Optional[SidecarError]]


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
