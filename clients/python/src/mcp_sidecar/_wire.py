"""Encoding and decoding host-protocol lines, and the params of every method.

Owns: the bytes on the pipes (one compact UTF-8 JSON object per line) and the mapping from the
clients' Python arguments to each method's params (omitted defaults are left out, as protocol §1
asks). Both clients (``aio`` and ``sync``) go through these functions, so a protocol change is
made here once.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._errors import ErrorCode, client_error
from ._protocol import PROTOCOL_VERSION, ClientInfo, ConfigDialect, ToolFormat

__all__ = [
    "encode_request",
    "encode_notification",
    "cancel_line",
    "decode_line",
    "initialize_params",
    "add_server_params",
    "list_tools_params",
    "call_tool_params",
    "load_servers_params",
    "test_server_params",
    "read_result_params",
    "list_page_params",
    "resource_params",
    "read_resource_params",
    "get_prompt_params",
    "complete_params",
    "set_level_params",
    "search_tools_params",
    "servers_filter_params",
    "accept_tools_params",
    "login_params",
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


def add_server_params(
    name: str, config: Mapping[str, Any], wait: bool, trust: Optional[str] = None
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"name": name, "config": dict(config)}
    if not wait:
        params["wait"] = False
    if trust is not None:
        params["trust"] = trust
    return params


def list_tools_params(
    format: Optional[ToolFormat],
    servers: Optional[Sequence[str]],
    strict: Optional[bool] = None,
) -> Optional[Dict[str, Any]]:
    if format is None and servers is None and strict is None:
        return None
    params: Dict[str, Any] = {}
    if format is not None:
        params["format"] = format
    if strict is not None:
        params["strict"] = strict
    if servers is not None:
        if isinstance(servers, str):
            raise TypeError("servers must be a sequence of server names, not one string")
        params["servers"] = list(servers)
    return params


def call_tool_params(
    name: str,
    arguments: Optional[Mapping[str, Any]],
    timeout_ms: Optional[int],
    format: Optional[ToolFormat] = None,
    progress: bool = False,
    reset_timeout_on_progress: Optional[bool] = None,
    max_total_timeout_ms: Optional[int] = None,
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    if timeout_ms is not None:
        params["timeoutMs"] = timeout_ms
    if format is not None:
        params["format"] = format
    if progress:
        params["progress"] = True
    if reset_timeout_on_progress is not None:
        params["resetTimeoutOnProgress"] = reset_timeout_on_progress
    if max_total_timeout_ms is not None:
        params["maxTotalTimeoutMs"] = max_total_timeout_ms
    return params


def load_servers_params(
    path: Union[None, str, "os.PathLike[str]"],
    json_document: Optional[Mapping[str, Any]],
    text: Optional[str],
    dialect: Optional[ConfigDialect],
    inputs: Optional[Mapping[str, str]],
    trust: Optional[Mapping[str, str]],
    wait: bool,
) -> Dict[str, Any]:
    """Params of ``servers/load``: exactly one source (``path``, ``json`` or ``text``)."""
    given = [p is not None for p in (path, json_document, text)].count(True)
    if given != 1:
        raise TypeError("load_servers takes exactly one of path, json or text")
    params: Dict[str, Any] = {}
    if path is not None:
        params["path"] = os.fspath(path)
    elif json_document is not None:
        params["json"] = dict(json_document)
    else:
        params["text"] = text
    if dialect is not None:
        params["dialect"] = dialect
    if inputs is not None:
        params["inputs"] = dict(inputs)
    if trust is not None:
        params["trust"] = dict(trust)
    if not wait:
        params["wait"] = False
    return params


def test_server_params(
    config: Mapping[str, Any], name: Optional[str], trust: Optional[str]
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"config": dict(config)}
    if name is not None:
        params["name"] = name
    if trust is not None:
        params["trust"] = trust
    return params


def read_result_params(
    handle: str, offset: Optional[int], length: Optional[int]
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"handle": handle}
    if offset is not None:
        params["offset"] = offset
    if length is not None:
        params["length"] = length
    return params


def _server_names(servers: Sequence[str]) -> List[str]:
    if isinstance(servers, str):
        raise TypeError("servers must be a sequence of server names, not one string")
    return list(servers)


def list_page_params(server: Optional[str], cursor: Optional[str]) -> Optional[Dict[str, Any]]:
    """Params of ``resources/list``, ``resources/templates/list`` and ``prompts/list``."""
    if server is None and cursor is None:
        return None
    params: Dict[str, Any] = {}
    if server is not None:
        params["server"] = server
    if cursor is not None:
        params["cursor"] = cursor
    return params


def resource_params(server: str, uri: str) -> Dict[str, Any]:
    """Params of ``resources/subscribe`` and ``resources/unsubscribe``."""
    return {"server": server, "uri": uri}


def read_resource_params(server: str, uri: str, format: Optional[ToolFormat]) -> Dict[str, Any]:
    params: Dict[str, Any] = {"server": server, "uri": uri}
    if format is not None:
        params["format"] = format
    return params


def get_prompt_params(
    server: str,
    name: str,
    arguments: Optional[Mapping[str, str]],
    format: Optional[ToolFormat],
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"server": server, "name": name}
    if arguments is not None:
        params["arguments"] = dict(arguments)
    if format is not None:
        params["format"] = format
    return params


def complete_params(
    server: str,
    ref: Mapping[str, Any],
    argument: Mapping[str, Any],
    context: Optional[Mapping[str, Any]],
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"server": server, "ref": dict(ref), "argument": dict(argument)}
    if context is not None:
        params["context"] = dict(context)
    return params


def set_level_params(level: str, server: Optional[str]) -> Dict[str, Any]:
    params: Dict[str, Any] = {"level": level}
    if server is not None:
        params["server"] = server
    return params


def search_tools_params(
    query: str,
    limit: Optional[int],
    servers: Optional[Sequence[str]],
    format: Optional[ToolFormat],
    strict: Optional[bool],
) -> Dict[str, Any]:
    params: Dict[str, Any] = {"query": query}
    if limit is not None:
        params["limit"] = limit
    if servers is not None:
        params["servers"] = _server_names(servers)
    if format is not None:
        params["format"] = format
    if strict is not None:
        params["strict"] = strict
    return params


def servers_filter_params(servers: Optional[Sequence[str]]) -> Optional[Dict[str, Any]]:
    """Params of ``servers/stats``."""
    return None if servers is None else {"servers": _server_names(servers)}


def accept_tools_params(tools: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """Params of ``tools/accept``: ``[{server, tool, hash}]`` (e.g. ``withheld`` entries; their
    other keys are left out, the method's params being strict)."""
    return {
        "tools": [{"server": t["server"], "tool": t["tool"], "hash": t["hash"]} for t in tools]
    }


def login_params(name: str, wait: bool) -> Dict[str, Any]:
    params: Dict[str, Any] = {"name": name}
    if not wait:
        params["wait"] = False
    return params
