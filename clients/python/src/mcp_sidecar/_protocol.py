"""Host protocol v1 types: the shapes of params, results and notifications as TypedDicts.

Owns: the static description of what crosses the wire (``proto/schema/*.json`` of the repository).
Results are the decoded JSON objects themselves (TypedDicts cost nothing at run time); keys keep
the protocol's camelCase spelling. Per protocol §14, the sidecar may add fields at any time: code
reading these dicts must ignore keys it does not know.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, NamedTuple, Optional, TypedDict, Union

__all__ = [
    "PROTOCOL_VERSION",
    "ToolFormat",
    "ServerState",
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

ToolFormat = Literal["openai", "openai-responses", "anthropic", "mcp"]
ServerState = Literal["stopped", "starting", "ready", "unhealthy", "error"]

JsonObject = Dict[str, Any]


class ClientInfo(TypedDict, total=False):
    """``initialize`` ``clientInfo``: who the host is (``name`` is logged by the sidecar)."""

    name: str
    version: str


class _ServerConfigRequired(TypedDict):
    command: str


class ServerConfig(_ServerConfigRequired, total=False):
    """A stdio server's ``config`` (``servers/add``); protocol §7. Unknown keys are rejected
    (``CONFIG_INVALID``), so only these (or their exact snake_case forms) may be given."""

    args: List[str]
    env: Dict[str, str]
    cwd: str
    inheritEnv: List[str]
    startupTimeoutSeconds: float
    toolTimeoutSeconds: float
    maxMessageBytes: int
    maxResultBytes: int
    transport: Literal["stdio"]
    type: Literal["stdio"]


class ServerInfo(TypedDict, total=False):
    name: str
    version: str


class Capabilities(TypedDict):
    toolFormats: List[ToolFormat]
    transports: List[str]
    cancellation: bool


class InitializeResult(TypedDict):
    """Result of ``initialize``."""

    protocolVersion: int
    serverInfo: ServerInfo
    capabilities: Capabilities


class ExitStatus(TypedDict):
    """How a process ended: exit ``code`` or terminating ``signal`` (the other is None)."""

    code: Optional[int]
    signal: Optional[int]


class ErrorObject(TypedDict):
    """A JSON-RPC error object as it appears inside a status (``lastError``); ``data.code`` is the
    stable string code, as in :class:`~mcp_sidecar.SidecarError`."""

    code: int
    message: str
    data: JsonObject


class _ServerStatusRequired(TypedDict):
    name: str
    state: ServerState
    generation: int
    command: str
    toolsCount: int
    stderrTail: str


class ServerStatus(_ServerStatusRequired, total=False):
    """A server's status (protocol §8.1): result of ``servers/add`` and ``servers/restart``,
    element of ``servers/list``, payload of ``notifications/servers/changed``."""

    pid: int
    protocolVersion: str
    serverInfo: ServerInfo
    instructions: str
    startedAt: str
    lastExit: ExitStatus
    lastError: ErrorObject


class ServersListResult(TypedDict):
    """Result of ``servers/list``: every registered server, sorted by name."""

    servers: List[ServerStatus]


class _ToolEntryRequired(TypedDict):
    name: str
    server: str
    tool: str
    readOnly: bool
    definition: JsonObject


class ToolEntry(_ToolEntryRequired, total=False):
    """One tool of ``tools/list`` (protocol §9.2); ``definition`` is in the requested format,
    ready to hand to the model provider."""

    title: str
    annotations: JsonObject


class ToolsListResult(TypedDict):
    """Result of ``tools/list``: entries sorted by exposed name, and the sha256 ``fingerprint`` of
    exactly those definitions (equal fingerprints mean byte-identical definitions)."""

    tools: List[ToolEntry]
    fingerprint: str


class _ToolCallResultRequired(TypedDict):
    isError: bool
    content: List[JsonObject]
    text: str
    output: Union[str, List[JsonObject], JsonObject]
    server: str
    tool: str
    durationMs: float


class ToolCallResult(_ToolCallResultRequired, total=False):
    """Result of ``tools/call`` (protocol §10). ``isError: True`` is a tool-reported failure, not
    an exception. ``output`` is the payload in the session ``toolFormat``: a string for OpenAI
    formats, a list of content blocks for Anthropic, the raw ``CallToolResult`` for ``mcp``."""

    structuredContent: Any


class ServersChangedParams(TypedDict):
    """Params of ``notifications/servers/changed``."""

    status: ServerStatus


class ToolsChangedParams(TypedDict):
    """Params of ``notifications/tools/changed``: re-list on every one (names of one server can
    change when another comes or goes)."""

    fingerprint: str
    added: List[str]
    removed: List[str]


class Notification(NamedTuple):
    """A notification from the sidecar: ``method`` and its ``params`` (``{}`` when absent).

    Known methods are :data:`SERVERS_CHANGED` (params: :class:`ServersChangedParams`) and
    :data:`TOOLS_CHANGED` (params: :class:`ToolsChangedParams`); others are delivered as they
    come (protocol §14: new notifications may appear in version 1).
    """

    method: str
    params: JsonObject
