"""The one exception type of the client, :class:`SidecarError`, and the codes it carries.

Owns: turning a JSON-RPC ``error`` object from the sidecar into a :class:`SidecarError`, and the
few codes the client raises on its own (when no response from the sidecar can exist). Timeouts and
cancellations are also the standard library's exceptions (:class:`SidecarTimeoutError` is a
``TimeoutError``, :class:`SidecarCancelledError` a ``concurrent.futures.CancelledError``), so code
that already catches those catches them, and their stable ``code`` stays.
"""

from __future__ import annotations

from concurrent.futures import CancelledError
from typing import Any, Dict, List, Mapping, Optional, Type

from ._generated import RPC_CODES, ProtocolErrorCode

__all__ = [
    "SidecarError", "SidecarTimeoutError", "SidecarCancelledError", "ErrorCode", "CLIENT_RPC_CODE",
]

#: ``rpc_code`` of errors raised by the client itself (they never crossed the wire).
CLIENT_RPC_CODE = 0


class ErrorCode(ProtocolErrorCode):
    """Stable string codes (``SidecarError.code``).

    The protocol's codes come from the sidecar (``error.data.code``, host protocol v1 §12;
    generated from ``proto/schema/error.json``); those below are raised by this client when no
    response can come (their ``rpc_code`` is 0).
    """

    # Raised by the client (rpc_code 0).
    #: The call's ``timeout`` (seconds) ran out; the request was cancelled at the sidecar.
    TIMEOUT = "TIMEOUT"
    #: The sidecar is gone (exited, closed its stdout) or the client was closed.
    CONNECTION_CLOSED = "CONNECTION_CLOSED"
    #: The sidecar wrote a line longer than the client's ``max_line_bytes``; the client closed.
    LINE_TOO_LARGE = "LINE_TOO_LARGE"
    #: The sidecar wrote a line that is not a JSON-RPC message; the client closed.
    INVALID_MESSAGE = "INVALID_MESSAGE"
    #: An ``AsyncSidecar`` was used on another event loop than the one that started it (nothing
    #: was sent; the client stays usable on its own loop).
    WRONG_EVENT_LOOP = "WRONG_EVENT_LOOP"
    #: No sidecar binary was found (``data["searched"]`` lists every place looked at).
    BINARY_NOT_FOUND = "BINARY_NOT_FOUND"
    #: The sidecar binary could not be started (``data["binary"]``, ``data["errno"]``).
    SPAWN_FAILED = "SPAWN_FAILED"


#: Stable codes by numeric code, for an error whose ``data.code`` is missing (never from a
#: conforming sidecar). A number shared by two codes (-32600: INVALID_REQUEST and
#: MESSAGE_TOO_LARGE) maps to the first in the schema, the JSON-RPC meaning.
_BY_RPC_CODE: Dict[int, str] = {}
for _code, _number in RPC_CODES.items():
    _BY_RPC_CODE.setdefault(_number, _code)


class SidecarError(Exception):
    """Every failure the client reports: an error response from the sidecar or a client-side one.

    Attributes:
        code: stable string code (``ErrorCode``): branch on this.
        message: human-readable text naming the cause.
        data: the error's ``data`` object (always a dict; ``data["code"] == code``), e.g.
            ``data.get("stderrTail")``, ``data.get("violations")``, ``data.get("server")``.
        rpc_code: the JSON-RPC numeric code (0 for errors raised by the client itself).
        method: the host-protocol method of the failed request, when known.
    """

    code: str
    message: str
    data: Dict[str, Any]
    rpc_code: int
    method: Optional[str]

    def __init__(
        self,
        code: str,
        message: str,
        data: Optional[Mapping[str, Any]] = None,
        rpc_code: int = CLIENT_RPC_CODE,
        method: Optional[str] = None,
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.data = dict(data) if data is not None else {}
        self.data.setdefault("code", code)
        self.rpc_code = rpc_code
        self.method = method

    @property
    def stderr_tail(self) -> Optional[str]:
        """The server's stderr tail, when the sidecar sent one (``data["stderrTail"]``)."""
        tail = self.data.get("stderrTail")
        return tail if isinstance(tail, str) else None

    @property
    def violations(self) -> List[Dict[str, str]]:
        """Argument schema violations (``INVALID_ARGUMENTS``): ``[{path, message}]``."""
        found = self.data.get("violations")
        return list(found) if isinstance(found, list) else []

    def copy(self) -> SidecarError:
        """A fresh instance with the same fields (to raise one stored error more than once)."""
        return type(self)(self.code, self.message, self.data, self.rpc_code, self.method)

    def __str__(self) -> str:
        where = f" ({self.method})" if self.method else ""
        return f"{self.code}{where}: {self.message}"

    def __repr__(self) -> str:
        return (
            f"SidecarError(code={self.code!r}, message={self.message!r}, "
            f"rpc_code={self.rpc_code!r}, data={self.data!r})"
        )

    def __reduce__(self) -> Any:
        return (type(self), (self.code, self.message, self.data, self.rpc_code, self.method))


class SidecarTimeoutError(SidecarError, TimeoutError):
    """A timeout: ``TIMEOUT`` (the call's ``timeout=`` ran out; the request was cancelled at the
    sidecar) or ``TOOL_TIMEOUT`` (the sidecar's ``timeout_ms`` bound on the server's answer).
    Also a built-in ``TimeoutError`` (which ``asyncio.TimeoutError`` is since Python 3.11), so
    ``except TimeoutError`` catches it; ``code`` says which one it was."""


class SidecarCancelledError(SidecarError, CancelledError):
    """``CANCELLED``: the request was cancelled at the sidecar (a :class:`CancelToken` of the
    blocking client, or the sidecar's own cancel). Also a ``concurrent.futures.CancelledError``,
    what a cancelled thread-pool future raises. Deliberately not an ``asyncio.CancelledError``:
    that one means "this task was cancelled", and raising it in a task nobody cancelled would
    confuse ``asyncio.timeout``, ``TaskGroup`` and ``Task.cancelled()``. When an asyncio caller
    cancels its own task, it gets ``asyncio.CancelledError`` itself, never this."""


#: The subclass raised for a code (every other code is a plain :class:`SidecarError`).
_CLASS_OF_CODE: Dict[str, Type[SidecarError]] = {
    ErrorCode.TIMEOUT: SidecarTimeoutError,
    ErrorCode.TOOL_TIMEOUT: SidecarTimeoutError,
    ErrorCode.CANCELLED: SidecarCancelledError,
}


def make_error(
    code: str,
    message: str,
    data: Optional[Mapping[str, Any]] = None,
    rpc_code: int = CLIENT_RPC_CODE,
    method: Optional[str] = None,
) -> SidecarError:
    """The :class:`SidecarError` of ``code``: its timeout or cancellation subclass, if any."""
    return _CLASS_OF_CODE.get(code, SidecarError)(code, message, data, rpc_code, method)


def error_from_rpc(error: Any, method: Optional[str] = None) -> SidecarError:
    """The :class:`SidecarError` of a JSON-RPC ``error`` member (tolerant of malformed ones)."""
    if not isinstance(error, dict):
        return make_error(
            ErrorCode.INVALID_MESSAGE, f"malformed error object from the sidecar: {error!r}",
            method=method,
        )
    raw_code = error.get("code")
    rpc_code = raw_code if isinstance(raw_code, int) else CLIENT_RPC_CODE
    message = error.get("message")
    if not isinstance(message, str):
        message = repr(message)
    raw_data = error.get("data")
    data: Dict[str, Any] = dict(raw_data) if isinstance(raw_data, dict) else {}
    code = data.get("code")
    if not isinstance(code, str):
        code = _BY_RPC_CODE.get(rpc_code, f"RPC_{rpc_code}")
        data["code"] = code
    return make_error(code, message, data, rpc_code, method)


def client_error(
    code: str, message: str, method: Optional[str] = None, **data: Any
) -> SidecarError:
    """A client-side :class:`SidecarError` (``rpc_code`` 0)."""
    return make_error(code, message, data, CLIENT_RPC_CODE, method)
