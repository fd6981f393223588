"""The one exception type of the client, :class:`SidecarError`, and the codes it carries.

Owns: turning a JSON-RPC ``error`` object from the sidecar into a :class:`SidecarError`, and the
few codes the client raises on its own (when no response from the sidecar can exist).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

__all__ = [
    "SidecarError",
    "ErrorCode",
    "CLIENT_RPC_CODE",
]

#: ``rpc_code`` of errors raised by the client itself (they never crossed the wire).
CLIENT_RPC_CODE = 0


class ErrorCode:
    """Stable string codes (``SidecarError.code``).

    The first group comes from the sidecar (``error.data.code``, host protocol v1 §12); the last
    group is raised by this client when no response can come (their ``rpc_code`` is 0).
    """

    # From the sidecar.
    PARSE_ERROR = "PARSE_ERROR"
    INVALID_REQUEST = "INVALID_REQUEST"
    METHOD_NOT_FOUND = "METHOD_NOT_FOUND"
    INVALID_PARAMS = "INVALID_PARAMS"
    INTERNAL = "INTERNAL"
    MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE"
    NOT_INITIALIZED = "NOT_INITIALIZED"
    ALREADY_INITIALIZED = "ALREADY_INITIALIZED"
    CONFIG_INVALID = "CONFIG_INVALID"
    SERVER_EXISTS = "SERVER_EXISTS"
    SERVER_NOT_FOUND = "SERVER_NOT_FOUND"
    SERVER_UNAVAILABLE = "SERVER_UNAVAILABLE"
    #: ``requireTrust``: the server's launch digest was not approved (``data["digest"]``).
    TRUST_REQUIRED = "TRUST_REQUIRED"
    TOOL_NOT_FOUND = "TOOL_NOT_FOUND"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    TOOL_TIMEOUT = "TOOL_TIMEOUT"
    CANCELLED = "CANCELLED"
    RESULT_TOO_LARGE = "RESULT_TOO_LARGE"
    #: ``results/read`` of a handle no longer kept (``data["handle"]``).
    RESULT_EXPIRED = "RESULT_EXPIRED"
    PROTOCOL_ERROR = "PROTOCOL_ERROR"
    VERSION_UNSUPPORTED = "VERSION_UNSUPPORTED"
    UPSTREAM_ERROR = "UPSTREAM_ERROR"
    SHUTTING_DOWN = "SHUTTING_DOWN"

    # Raised by the client (rpc_code 0).
    #: The call's ``timeout`` (seconds) ran out; the request was cancelled at the sidecar.
    TIMEOUT = "TIMEOUT"
    #: The sidecar is gone (exited, closed its stdout) or the client was closed.
    CONNECTION_CLOSED = "CONNECTION_CLOSED"
    #: The sidecar wrote a line longer than the client's ``max_line_bytes``; the client closed.
    LINE_TOO_LARGE = "LINE_TOO_LARGE"
    #: The sidecar wrote a line that is not a JSON-RPC message; the client closed.
    INVALID_MESSAGE = "INVALID_MESSAGE"
    #: No sidecar binary was found (``data["searched"]`` lists every place looked at).
    BINARY_NOT_FOUND = "BINARY_NOT_FOUND"
    #: The sidecar binary could not be started (``data["binary"]``, ``data["errno"]``).
    SPAWN_FAILED = "SPAWN_FAILED"


#: Stable codes by numeric code, for an error whose ``data.code`` is missing (never from a
#: conforming sidecar). -32600 is shared by INVALID_REQUEST and MESSAGE_TOO_LARGE.
_BY_RPC_CODE: Dict[int, str] = {
    -32700: ErrorCode.PARSE_ERROR,
    -32600: ErrorCode.INVALID_REQUEST,
    -32601: ErrorCode.METHOD_NOT_FOUND,
    -32602: ErrorCode.INVALID_PARAMS,
    -32603: ErrorCode.INTERNAL,
    -32002: ErrorCode.NOT_INITIALIZED,
    -32003: ErrorCode.ALREADY_INITIALIZED,
    -32010: ErrorCode.CONFIG_INVALID,
    -32011: ErrorCode.SERVER_EXISTS,
    -32012: ErrorCode.SERVER_NOT_FOUND,
    -32013: ErrorCode.SERVER_UNAVAILABLE,
    -32014: ErrorCode.TRUST_REQUIRED,
    -32020: ErrorCode.TOOL_NOT_FOUND,
    -32021: ErrorCode.INVALID_ARGUMENTS,
    -32022: ErrorCode.TOOL_TIMEOUT,
    -32023: ErrorCode.RESULT_TOO_LARGE,
    -32024: ErrorCode.RESULT_EXPIRED,
    -32030: ErrorCode.PROTOCOL_ERROR,
    -32031: ErrorCode.VERSION_UNSUPPORTED,
    -32032: ErrorCode.UPSTREAM_ERROR,
    -32040: ErrorCode.SHUTTING_DOWN,
    -32800: ErrorCode.CANCELLED,
}


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
        return SidecarError(self.code, self.message, self.data, self.rpc_code, self.method)

    def __str__(self) -> str:
        where = f" ({self.method})" if self.method else ""
        return f"{self.code}{where}: {self.message}"

    def __repr__(self) -> str:
        return (
            f"SidecarError(code={self.code!r}, message={self.message!r}, "
            f"rpc_code={self.rpc_code!r}, data={self.data!r})"
        )

    def __reduce__(self) -> Any:
        return (SidecarError, (self.code, self.message, self.data, self.rpc_code, self.method))


def error_from_rpc(error: Any, method: Optional[str] = None) -> SidecarError:
    """The :class:`SidecarError` of a JSON-RPC ``error`` member (tolerant of malformed ones)."""
    if not isinstance(error, dict):
        return SidecarError(
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
    return SidecarError(code, message, data, rpc_code, method)


def client_error(
    code: str, message: str, method: Optional[str] = None, **data: Any
) -> SidecarError:
    """A client-side :class:`SidecarError` (``rpc_code`` 0)."""
    return SidecarError(code, message, data, CLIENT_RPC_CODE, method)
