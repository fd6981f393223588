"""Encoding and decoding host-protocol lines, and the params of every method.

Owns: the bytes on the pipes (one compact UTF-8 JSON object per line). Both clients (``aio`` and
``sync``) go through these functions; the params are built by the generated methods
(``_generated``) and, for ``initialize``, by ``_options``.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from ._errors import ErrorCode, client_error
from ._protocol import CANCELLED

__all__ = [
    "encode_request", "encode_notification", "cancel_line", "decode_line", "response_line",
    "error_response_line",
]

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
        return (_encode(message) + "\n").encode("utf-8")  # inline: the hot path
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        raise client_error(
            ErrorCode.INVALID_PARAMS,
            f"params of {method} cannot be sent as JSON: {exc}",
            method=method,
        ) from exc


def encode_notification(method: str, params: Mapping[str, Any]) -> bytes:
    """The line of a host → sidecar notification."""
    return _line({"jsonrpc": "2.0", "method": method, "params": params})


def cancel_line(request_id: int) -> bytes:
    """``notifications/cancelled`` for a request in flight (protocol §11)."""
    return encode_notification(CANCELLED, {"requestId": request_id})


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
    return _line({"jsonrpc": "2.0", "id": request_id, "result": result})


def error_response_line(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    """The host's error answer to one of the sidecar's requests (protocol §17)."""
    error: Dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return _line({"jsonrpc": "2.0", "id": request_id, "error": error})


def _line(message: Dict[str, Any]) -> bytes:
    return (_encode(message) + "\n").encode("utf-8")
