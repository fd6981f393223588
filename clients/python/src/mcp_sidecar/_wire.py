"""Encoding and decoding host-protocol lines, and the params of every method.

Owns: the bytes on the pipes (one compact UTF-8 JSON object per line) and the ``initialize``
params. Both clients (``aio`` and ``sync``) go through these functions; the params of every
other method are built by the generated methods (``_generated``).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from ._errors import ErrorCode, client_error
from ._protocol import PROTOCOL_VERSION, ClientInfo, ToolFormat

__all__ = [
    "encode_request",
    "encode_notification",
    "cancel_line",
    "decode_line",
    "initialize_params",
    "response_line",
    "error_response_line",
    "CANCELLED_METHOD",
]

CANCELLED_METHOD = "notifications/cancelled"

# One encoder, built once (json.dumps with options builds a new one per call).
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_encode = _ENCODER.encode
# The decoder's scanner, called directly: the sidecar writes compact UTF-8 lines that start with
# "{", so json.loads' encoding detection and leading-whitespace match are skipped on that path.
_scan: Callable[[str, int], Tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def encode_request(request_id: int, method: str, params: Optional[Mapping[str, Any]]) -> bytes:
    """The line of a request. Params that JSON cannot carry (NaN, lone surrogates, objects) raise
    ``INVALID_PARAMS`` here, before anything is sent (the sidecar could not tie its parse error to
    the request, which would then never be answered)."""
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    try:
        return (_encode(message) + "\n").encode("utf-8")
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        raise client_error(
            ErrorCode.INVALID_PARAMS,
            f"params of {method} cannot be sent as JSON: {exc}",
            method=method,
        ) from exc


def encode_notification(method: str, params: Mapping[str, Any]) -> bytes:
    """The line of a host → sidecar notification."""
    return (_encode({"jsonrpc": "2.0", "method": method, "params": params}) + "\n").encode("utf-8")


def cancel_line(request_id: int) -> bytes:
    """``notifications/cancelled`` for a request in flight (protocol §11)."""
    return encode_notification(CANCELLED_METHOD, {"requestId": request_id})


def decode_line(line: bytes) -> Optional[Dict[str, Any]]:
    """The message on one line; None for a blank line.

    Raises:
        SidecarError: ``INVALID_MESSAGE`` if the line is not a JSON object.
    """
    try:
        text = line.decode("utf-8")
        if text[:1] == "{":
            message, end = _scan(text, 0)
            if end != len(text) and not text[end:].isspace():
                raise ValueError("extra data after the JSON value")
        elif not text.strip():
            return None
        else:
            message = json.loads(text)
    except (ValueError, StopIteration):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise client_error(
            ErrorCode.INVALID_MESSAGE,
            f"the sidecar wrote a line that is not JSON: {line[:200]!r}",
        ) from None
    if not isinstance(message, dict):
        raise client_error(
            ErrorCode.INVALID_MESSAGE,
            f"the sidecar wrote JSON that is not a message object: {line[:200]!r}",
        )
    return message


def response_line(request_id: Any, result: Any) -> bytes:
    """The host's answer to one of the sidecar's requests (protocol §17)."""
    return (_encode({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n").encode(
        "utf-8"
    )


def error_response_line(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    """The host's error answer to one of the sidecar's requests (protocol §17)."""
    error: Dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return (_encode({"jsonrpc": "2.0", "id": request_id, "error": error}) + "\n").encode("utf-8")


def initialize_params(
    tool_format: Optional[ToolFormat],
    name_template: Optional[str],
    max_name_length: Optional[int],
    client_info: Optional[ClientInfo],
    strict: Optional[bool] = None,
    require_trust: bool = False,
    capabilities: Optional[Mapping[str, Any]] = None,
    server_logs: Optional[str] = None,
    answer_timeout_ms: Optional[int] = None,
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"protocolVersion": PROTOCOL_VERSION}
    if client_info is not None:
        params["clientInfo"] = dict(client_info)
    if tool_format is not None:
        params["toolFormat"] = tool_format
    if strict is not None:
        params["strict"] = strict
    if name_template is not None:
        params["nameTemplate"] = name_template
    if max_name_length is not None:
        params["maxNameLength"] = max_name_length
    if require_trust:
        params["requireTrust"] = True
    if capabilities:  # nothing handled: nothing declared, as before handlers existed
        params["capabilities"] = dict(capabilities)
    if server_logs is not None:
        params["serverLogs"] = server_logs
    if answer_timeout_ms is not None:
        params["answerTimeoutMs"] = answer_timeout_ms
    return params
