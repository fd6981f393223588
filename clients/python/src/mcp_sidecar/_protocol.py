"""Host protocol v1 types: the shapes of params, results and notifications.

Owns: the protocol constants and :class:`Notification`. The TypedDicts are generated from
``proto/schema/*.json`` into ``_generated.py`` (``clients/codegen/generate.py``) and re-exported
here. Per protocol §14, the sidecar may add fields at any time: code reading these dicts must
ignore keys it does not know.
"""

from __future__ import annotations

from typing import NamedTuple

from ._generated import (
    Capabilities,
    ClientInfo,
    ConfigDialect,
    ConversionNote,
    Diagnostic,
    ErrorObject,
    ExitStatus,
    InitializeResult,
    JsonObject,
    ResultPolicy,
    ResultsReadResult,
    ServerConfig,
    ServerInfo,
    ServersChangedParams,
    ServersListResult,
    ServersLoadResult,
    ServerSource,
    ServerState,
    ServerStatus,
    ServersTestResult,
    ServerTestTimings,
    ToolCallResult,
    ToolEntry,
    ToolFormat,
    ToolsChangedParams,
    ToolsListResult,
    Transport,
    TruncatedInfo,
    TrustRequest,
)

__all__ = [
    "PROTOCOL_VERSION",
    "ToolFormat",
    "ServerState",
    "ServerSource",
    "ConfigDialect",
    "ResultPolicy",
    "Transport",
    "JsonObject",
    "ClientInfo",
    "ServerConfig",
    "InitializeResult",
    "ServerInfo",
    "Capabilities",
    "ExitStatus",
    "ErrorObject",
    "ServerStatus",
    "ServersListResult",
    "ToolEntry",
    "ToolsListResult",
    "ToolCallResult",
    "TruncatedInfo",
    "ConversionNote",
    "Diagnostic",
    "TrustRequest",
    "ServersLoadResult",
    "ServerTestTimings",
    "ServersTestResult",
    "ResultsReadResult",
    "ServersChangedParams",
    "ToolsChangedParams",
    "Notification",
    "SERVERS_CHANGED",
    "TOOLS_CHANGED",
]

#: The host protocol version this client speaks.
PROTOCOL_VERSION = 1

#: Method of the notification sent on every server state change.
SERVERS_CHANGED = "notifications/servers/changed"
#: Method of the notification sent whenever the exposed tool set changes.
TOOLS_CHANGED = "notifications/tools/changed"

class Notification(NamedTuple):
    """A notification from the sidecar: ``method`` and its ``params`` (``{}`` when absent).

    Known methods are :data:`SERVERS_CHANGED` (params: :class:`ServersChangedParams`) and
    :data:`TOOLS_CHANGED` (params: :class:`ToolsChangedParams`); others are delivered as they
    come (protocol §14: new notifications may appear in version 1).
    """

    method: str
    params: JsonObject
