"""The connection core both clients drive (``_core.Session``), with no process, thread or loop:
bytes of stdout in; settled waiters, queued notifications, handlers started and stopped, and the
lines to write out."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import pytest

from mcp_sidecar import ErrorCode, SidecarError
from mcp_sidecar._core import Session
from mcp_sidecar._handlers import SidecarRequest
from mcp_sidecar._options import Options

Outcome = Tuple[str, Any, Optional[SidecarError]]


class _Recording(Session[str, Callable[..., Any]]):
    """A Session whose IO is lists: what was written, started, stopped and settled."""

    def __init__(self, **options: Any) -> None:
        self.settled: List[Outcome] = []
        self.sent: List[bytes] = []
        self.started: List[SidecarRequest] = []
        self.stopped: List[str] = []
        self.stdin_closed = False
        super().__init__(Options(options), lambda w, r, e: self.settled.append((w, r, e)))

    def _send(self, line: Optional[bytes]) -> None:
        if line is not None and not self.stdin_closed:
            self.sent.append(line)

    def close_stdin(self) -> None:
        self.stdin_closed = True

    def _start(self, request: SidecarRequest, handler: Callable[..., Any]) -> str:
        self.started.append(request)
        return f"run-{request.id}"

    def _stop(self, entry: str) -> None:
        self.stopped.append(entry)

    def _callbacks(self, notification: Any) -> None:
        pass


def test_bytes_in_any_chunking_settle_waiters_and_queue_notifications() -> None:
    session = _Recording()
    first, _ = session.begin("ping", None, "a")
    second, _ = session.begin("ping", None, "b")
    stream = (
        b'{"jsonrpc":"2.0","method":"notifications/tools/changed"}\n'
        + f'{{"jsonrpc":"2.0","id":{second},"result":{{"n":2}}}}\n'.encode()
        + f'{{"jsonrpc":"2.0","id":{first},"result":{{"n":1}}}}\n'.encode()
    )
    for start in range(0, len(stream), 7):  # lines cut across chunks
        session.feed(stream[start : start + 7])
    assert session.settled == [("b", {"n": 2}, None), ("a", {"n": 1}, None)]
    assert session.notes.require_queue()[0].method == "notifications/tools/changed"
    session.end(first)
    session.end(second)
    assert session.in_flight == 0 and session.pending == {}


def test_a_line_over_the_bound_ends_the_connection_after_the_lines_before_it() -> None:
    session = _Recording(max_line_bytes=1024)
    request_id, _ = session.begin("ping", None, "a")
    other, _ = session.begin("ping", None, "b")
    answer = f'{{"jsonrpc":"2.0","id":{request_id},"result":{{}}}}\n'.encode()
    session.feed(answer + b"x" * 2000)
    assert session.settled[0] == ("a", {}, None)
    error = session.settled[1][2]
    assert session.settled[1][0] == "b" and error is not None
    assert error.code == ErrorCode.LINE_TOO_LARGE and error.data["limit"] == 1024
    assert session.discarding and session.stdin_closed


def test_a_line_that_is_no_message_ends_the_connection_and_the_rest_is_ignored() -> None:
    session = _Recording()
    progress: List[Any] = []
    request_id, _ = session.begin("tools/call", {"name": "x"}, "a", progress.append)
    session.feed(b"not json\n")
    assert session.settled[0][2] is not None
    assert session.settled[0][2].code == ErrorCode.INVALID_MESSAGE
    assert session.discarding and session.stdin_closed and session.notes.ended
    # What follows the bad line is not dispatched, even a well-formed notification for a call
    # whose caller has not ended it yet.
    session.feed(
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":%d,"progress":1}}\n'
        % request_id
    )
    assert progress == []


def test_the_sidecars_request_runs_its_handler_and_its_answer_is_sent_once() -> None:
    session = _Recording(handlers={"roots/list": lambda params: {"roots": []}})
    line = b'{"jsonrpc":"2.0","id":"sidecar-1","method":"roots/list","params":{}}\n'
    session.feed(line)
    session.feed(line)  # a duplicate of a request in flight is ignored
    assert [request.id for request in session.started] == ["sidecar-1"]
    request = session.started[0]
    session._answered(request, b"answer\n")
    session._answered(request, b"again\n")  # no longer handled: nothing is sent
    assert session.sent == [b"answer\n"]


def test_a_cancelled_request_of_the_sidecar_stops_its_handler_and_is_not_answered() -> None:
    session = _Recording(handlers={"roots/list": lambda params: {"roots": []}})
    session.feed(b'{"jsonrpc":"2.0","id":"sidecar-1","method":"roots/list","params":{}}\n')
    session.feed(
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sidecar-1"}}\n'
    )
    assert session.stopped == ["run-sidecar-1"]
    session._answered(session.started[0], b"late\n")
    assert session.sent == []


def test_the_end_of_stdout_fails_waiters_stops_handlers_and_ends_the_queues() -> None:
    session = _Recording(handlers={"roots/list": lambda params: {"roots": []}})
    session.begin("ping", None, "a")
    session.feed(b'{"jsonrpc":"2.0","id":"sidecar-1","method":"roots/list","params":{}}\n')
    session.output_ended(3)
    [(waiter, _, error)] = session.settled
    assert waiter == "a" and error is not None and error.code == ErrorCode.CONNECTION_CLOSED
    assert "code 3" in error.message
    assert session.stopped == ["run-sidecar-1"]
    assert session.stdin_closed and session.notes.ended and session.logs.ended
    with pytest.raises(SidecarError) as raised:
        session.begin("ping", None, "b")
    assert raised.value.code == ErrorCode.CONNECTION_CLOSED


def test_closing_sends_shutdown_then_closes_stdin_and_nothing_once_the_sidecar_is_gone() -> None:
    session = _Recording()
    shutdown = session.begin_close("s", True)
    assert shutdown is not None
    assert b'"method":"shutdown"' in session.sent[0] and session.stdin_closed
    assert session.closing
    gone = _Recording()
    assert gone.begin_close("s", False) is None
    assert gone.sent == [] and gone.stdin_closed


def test_a_request_cancelled_before_it_is_sent_is_refused_unsent() -> None:
    session = _Recording()
    with pytest.raises(SidecarError) as raised:
        session.begin("tools/call", {"name": "x"}, "a", cancelled=True)
    assert raised.value.code == ErrorCode.CANCELLED and raised.value.method == "tools/call"
    assert session.pending == {} and session.in_flight == 0
    # The connection's end wins over the cancellation: that is the error the caller gets.
    session.fail(SidecarError(ErrorCode.CONNECTION_CLOSED, "gone"))
    with pytest.raises(SidecarError) as raised:
        session.begin("ping", None, "b", cancelled=True)
    assert raised.value.code == ErrorCode.CONNECTION_CLOSED


def test_the_close_ends_the_shutdown_and_fails_the_rest_as_closed_by_the_client() -> None:
    session = _Recording()
    other, _ = session.begin("tools/call", {"name": "x"}, "call")
    shutdown = session.begin_close("shutdown", running=True)
    assert shutdown is not None and session.stdin_closed
    assert b'"method":"shutdown"' in session.sent[-1]
    session.closed(shutdown)
    assert session.settled == [("call", None, session.settled[0][2])]
    error = session.settled[0][2]
    assert error is not None and error.code == ErrorCode.CONNECTION_CLOSED
    assert error.message == "the client was closed"
    assert session.notes.ended and session.logs.ended
    assert session.in_flight == 1  # the other call's caller ends it itself
    session.end(other)
    assert session.in_flight == 0
    with pytest.raises(SidecarError) as raised:
        session.begin("ping", None, "late")
    assert raised.value.code == ErrorCode.CONNECTION_CLOSED and raised.value.method == "ping"


# The request table: ids, answers, timeouts, cancellation, the end of the connection.

CANCEL_1 = b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n'


def test_ids_count_up_and_lines_are_exact() -> None:
    session = _Recording()
    assert session.begin("ping", None, "a") == (1, b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    request_id, line = session.begin("servers/remove", {"name": "fx"}, "b")
    assert request_id == 2
    assert line == b'{"jsonrpc":"2.0","id":2,"method":"servers/remove","params":{"name":"fx"}}\n'
    assert session.pending == {1: "a", 2: "b"} and session.in_flight == 2


def test_a_response_settles_its_waiter_once() -> None:
    session = _Recording()
    request_id, _ = session.begin("ping", None, "a")
    answer = b'{"jsonrpc":"2.0","id":1,"result":{}}\n'
    session.feed(answer)
    assert session.settled == [("a", {}, None)]
    session.feed(answer)
    assert session.settled == [("a", {}, None)]


def test_an_error_response_becomes_a_sidecar_error() -> None:
    session = _Recording()
    session.begin("tools/call", {"name": "x"}, "a")
    session.feed(
        b'{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"no tool x",'
        b'"data":{"code":"TOOL_NOT_FOUND"}}}\n'
    )
    ((_, _, raised),) = session.settled
    assert raised is not None and raised.code == ErrorCode.TOOL_NOT_FOUND
    assert raised.rpc_code == -32020


def test_timeout_settles_with_timeout_and_cancels_at_the_sidecar() -> None:
    session = _Recording()
    request_id, _ = session.begin("tools/call", {"name": "x"}, "a")
    session.expire(request_id, "tools/call", 0.5)
    assert session.sent == [CANCEL_1]
    ((_, _, raised),) = session.settled
    assert raised is not None and raised.code == ErrorCode.TIMEOUT
    # The late answer is ignored; a second expiry sends nothing.
    session.feed(b'{"jsonrpc":"2.0","id":1,"result":{}}\n')
    session.expire(request_id, "tools/call", 0.5)
    assert len(session.settled) == 1 and session.sent == [CANCEL_1]


def test_cancel_keeps_the_request_pending_abandon_forgets_it() -> None:
    session = _Recording()
    first, _ = session.begin("tools/call", None, "a")
    session.cancel(first)
    assert session.sent == [CANCEL_1]
    assert first in session.pending  # the sidecar's CANCELLED answer settles it
    second, _ = session.begin("tools/call", None, "b")
    session.abandon(second)
    assert second not in session.pending and len(session.sent) == 2
    session.abandon(second)
    assert len(session.sent) == 2 and session.settled == []


def test_end_of_output_fails_every_pending_and_later_request() -> None:
    session = _Recording()
    session.begin("ping", None, "a")
    session.begin("ping", None, "b")
    session.output_ended(3)
    assert [(w, e.code if e else None) for w, _, e in session.settled] == [
        ("a", ErrorCode.CONNECTION_CLOSED),
        ("b", ErrorCode.CONNECTION_CLOSED),
    ]
    assert session.error is not None and "code 3" in session.error.message
    session.cancel(1)
    assert session.sent == []
    with pytest.raises(SidecarError) as raised:
        session.begin("ping", None, "c")
    assert raised.value.code == ErrorCode.CONNECTION_CLOSED and raised.value.method == "ping"


def test_a_request_over_the_sidecar_line_bound_is_not_sent() -> None:
    session = _Recording(args=["--max-line-bytes", "64"])
    with pytest.raises(SidecarError) as raised:
        session.begin("tools/call", {"arguments": "x" * 100}, "a")
    assert raised.value.code == ErrorCode.MESSAGE_TOO_LARGE
    assert session.pending == {} and session.in_flight == 0
