"""What both clients (``aio`` and ``sync``) do the same way around a connection.

Owns: the errors a connection raises on its own (an oversized request, a timeout, an oversized
line, a failed spawn, the end of the connection), the routing of a decoded message (notification,
response, or nothing) and the outcome of a response, and the log lines of a full notification
queue and of a forced kill. The clients keep only what differs: futures and the event loop in
``aio``, slots, locks and threads in ``sync``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple, Union

from . import _log
from ._errors import ErrorCode, SidecarError, client_error, error_from_rpc
from ._protocol import Notification
from ._wire import encode_request

__all__ = [
    "for_method",
    "encode_bounded_request",
    "timeout_error",
    "line_too_large",
    "spawn_failed",
    "closed_error",
    "route",
    "response_outcome",
    "warn_queue_full",
    "kill_late",
]


def for_method(error: SidecarError, method: str) -> SidecarError:
    """A copy of the connection's error, naming the method that could not be sent."""
    copy = error.copy()
    copy.method = method
    return copy


def encode_bounded_request(
    request_id: int, method: str, params: Optional[Mapping[str, Any]], max_request_bytes: int
) -> bytes:
    """The line of a request; ``MESSAGE_TOO_LARGE`` if over the sidecar's ``--max-line-bytes``
    (the sidecar could not tie its answer to the request, so it is not sent)."""
    line = encode_request(request_id, method, params)
    if len(line) > max_request_bytes:
        raise client_error(
            ErrorCode.MESSAGE_TOO_LARGE,
            f"the {method} request is {len(line)} bytes, over the sidecar's "
            f"--max-line-bytes {max_request_bytes}; not sent",
            method=method,
            setting="--max-line-bytes",
            limit=max_request_bytes,
            size=len(line),
        )
    return line


def timeout_error(method: str, timeout: Optional[float]) -> SidecarError:
    """``TIMEOUT``: no answer within the client's bound (the request was cancelled)."""
    return client_error(
        ErrorCode.TIMEOUT,
        f"no answer to {method} within {timeout:g} s; the request was cancelled",
        method=method,
        timeout=timeout,
    )


def line_too_large(max_line_bytes: int) -> SidecarError:
    """``LINE_TOO_LARGE``: the sidecar wrote a line over ``max_line_bytes``."""
    return client_error(
        ErrorCode.LINE_TOO_LARGE,
        f"the sidecar wrote a line longer than max_line_bytes={max_line_bytes}; "
        "the client closed the connection",
        setting="max_line_bytes",
        limit=max_line_bytes,
    )


def spawn_failed(argv: Sequence[str], exc: OSError) -> SidecarError:
    """``SPAWN_FAILED``: the sidecar could not be started."""
    return client_error(
        ErrorCode.SPAWN_FAILED,
        f"cannot start the sidecar {argv[0]}: {exc}",
        binary=argv[0],
        errno=exc.errno,
    )


def closed_error(closing: bool, code: Optional[int]) -> SidecarError:
    """``CONNECTION_CLOSED`` at the end of stdout: closed by the client, or by the sidecar
    (with its exit code when known)."""
    if closing:
        message = "the client was closed"
    elif code is None:
        message = "the sidecar closed its stdout"
    else:
        message = f"the sidecar exited (code {code})"
    return client_error(ErrorCode.CONNECTION_CLOSED, message, exitCode=code)


def route(message: Dict[str, Any]) -> Union[Notification, int, None]:
    """What a decoded message is: a :class:`Notification`, the id of the request it answers, or
    None for anything to ignore (the sidecar sends no requests, protocol §1; an error not tied
    to a request is logged)."""
    method = message.get("method")
    if method is not None:
        if "id" in message or not isinstance(method, str):
            return None
        params = message.get("params")
        return Notification(method, params if isinstance(params, dict) else {})
    request_id = message.get("id")
    if type(request_id) is not int:
        if "error" in message:
            _log.warning("mcp-sidecar error not tied to a request: %s", message["error"])
        return None
    return request_id


def response_outcome(message: Dict[str, Any]) -> Tuple[Any, Optional[SidecarError]]:
    """``(result, None)`` or ``(None, error)`` of a response."""
    error = message.get("error")
    if error is not None:
        return None, error_from_rpc(error)
    if "result" in message:
        return message["result"], None
    return None, client_error(ErrorCode.INVALID_MESSAGE, f"response without result: {message!r}")


def warn_queue_full(queue_size: int) -> None:
    """Logged when the notification queue first drops its oldest item."""
    _log.warning(
        "mcp-sidecar notification queue full (%d): dropping the oldest; "
        "iterate notifications() or raise notification_queue_size",
        queue_size,
    )


def kill_late(pid: Optional[int], kill: Callable[[], None]) -> None:
    """Kill a sidecar that did not exit in time (logged; one already gone is fine)."""
    _log.warning("mcp-sidecar (pid %s) did not exit in time: killing it", pid)
    try:
        kill()
    except ProcessLookupError:
        pass
