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
    "ServerSource",
    "ConfigDialect",
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

ToolFormat = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp"]
ServerState = Literal["stopped", "starting", "ready", "unhealthy", "error"]
#: Where a server's config came from (status ``source``, trust request ``source``).
ServerSource = Literal["user", "host", "plugin"]
#: The ``dialect`` of ``servers/load`` (detected from the content when not given).
ConfigDialect = Literal[
    "claude-desktop",
    "claude-code",
    "claude-plugin",
    "vscode",
    "cursor",
    "codex",
    "epoch",
    "plugin-manifest",
]
Transport = Literal["stdio", "http", "sse"]

JsonObject = Dict[str, Any]


class ClientInfo(TypedDict, total=False):
    """``initialize`` ``clientInfo``: who the host is (``name`` is logged by the sidecar)."""

    name: str
    version: str


class ServerConfig(TypedDict, total=False):
    """A server's ``config`` (``servers/add``, ``servers/test``); protocol §7. A stdio server needs
    ``command``; a remote one ``url``. Unknown keys are rejected (``CONFIG_INVALID``), so only
    these (or their exact snake_case forms) may be given."""

    command: str
    args: List[str]
    env: Dict[str, str]
    cwd: str
    inheritEnv: List[str]
    startupTimeoutSeconds: float
    toolTimeoutSeconds: float
    maxMessageBytes: int
    maxResultBytes: int
    restart: Literal["on-failure", "never"]
    restartBackoffMs: int
    keepaliveSeconds: float
    idleTimeoutSeconds: float
    maxLifetimeSeconds: float
    autoStart: bool
    resultPolicy: Literal["error", "truncate"]
    transport: str
    type: str
    url: str
    headers: Dict[str, Union[str, JsonObject]]
    includeTools: List[str]
    excludeTools: List[str]
    expectTools: List[str]
    permissions: List[str]
    permissionMetaKey: str
    secretEnv: List[str]
    secretHeaders: List[str]


class ServerInfo(TypedDict, total=False):
    name: str
    version: str


class _CapabilitiesRequired(TypedDict):
    toolFormats: List[ToolFormat]
    transports: List[str]
    cancellation: bool


class Capabilities(_CapabilitiesRequired, total=False):
    strict: bool
    resultPolicies: List[str]
    resultsRead: bool
    configDialects: List[ConfigDialect]
    trust: bool


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
    transport: Transport
    source: ServerSource
    restarts: int
    calls: int
    errors: int


class ServerStatus(_ServerStatusRequired, total=False):
    """A server's status (protocol §8.1): result of ``servers/add`` and ``servers/restart``,
    element of ``servers/list``, payload of ``notifications/servers/changed``. ``calls`` and
    ``errors`` count ``tools/call`` requests routed to the server and those answered with an
    error; ``url``/``headers`` (names only) are for remote servers."""

    url: str
    headers: List[str]
    nextRestartAt: str
    p50LatencyMs: float

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


class ConversionNote(TypedDict):
    """What the conversion of a tool to the requested format changed (protocol §9.2):
    ``action`` (``dropped``, ``rewritten``, ``inlined``, ``merged``, ``widened``, ``narrowed``,
    ``cut``, ``strict-fallback``), ``path`` (JSON Pointer into the converted schema), ``reason``."""

    action: str
    path: str
    reason: str


class _ToolEntryRequired(TypedDict):
    name: str
    server: str
    tool: str
    readOnly: bool
    definition: JsonObject
    conversionNotes: List[ConversionNote]


class ToolEntry(_ToolEntryRequired, total=False):
    """One tool of ``tools/list`` (protocol §9.2); ``definition`` is in the requested format,
    ready to hand to the model provider."""

    title: str
    annotations: JsonObject
    permission: str


class ToolsListResult(TypedDict):
    """Result of ``tools/list``: entries sorted by exposed name, and the sha256 ``fingerprint`` of
    exactly those definitions (equal fingerprints mean byte-identical definitions)."""

    tools: List[ToolEntry]
    fingerprint: str


class TruncatedInfo(TypedDict, total=False):
    """``truncated`` of a call result cut to fit ``maxResultBytes`` (protocol §10.1): the cut
    part is ``offset``/``length`` bytes of the full text (``totalBytes``), readable with
    ``results/read`` under ``handle`` while it is kept."""

    originalBytes: int
    handle: str
    offset: int
    length: int
    totalBytes: int


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
    truncated: TruncatedInfo


class _DiagnosticRequired(TypedDict):
    severity: Literal["error", "warning"]
    kind: str
    path: str
    message: str


class Diagnostic(_DiagnosticRequired, total=False):
    """A problem ``servers/load`` found: ``severity`` ``error`` (the server, or without
    ``server`` the whole file, was not loaded) or ``warning`` (loaded anyway); ``path`` is the
    JSON path of the field (``""`` for the whole file)."""

    file: str
    server: str
    line: int
    column: int


class _TrustRequestRequired(TypedDict):
    name: str
    server: str
    digest: str
    commandLine: str
    command: str
    args: List[str]
    cwd: Optional[str]
    envNames: List[str]
    source: ServerSource
    warnings: List[str]


class TrustRequest(_TrustRequestRequired, total=False):
    """A server ``servers/load`` held back under ``requireTrust`` (the data of the
    ``TRUST_REQUIRED`` error ``servers/add`` would answer, plus ``name``): show it to the user,
    then load again with ``trust={name: digest}``."""

    url: str
    headerNames: List[str]


class ServersLoadResult(TypedDict):
    """Result of ``servers/load``: the status of every server added, every problem found (never
    an error response), and the servers held back by ``requireTrust``."""

    added: List[ServerStatus]
    diagnostics: List[Diagnostic]
    trustRequired: List[TrustRequest]


class _ServerTestTimingsRequired(TypedDict):
    startupMs: float


class ServerTestTimings(_ServerTestTimingsRequired, total=False):
    listMs: float


class _ServersTestResultRequired(TypedDict):
    state: Literal["ready", "error"]
    transport: Transport
    tools: List[str]
    toolsCount: int
    timings: ServerTestTimings
    stderrTail: str


class ServersTestResult(_ServersTestResultRequired, total=False):
    """Result of ``servers/test``: what one start of a config found; nothing is registered. A
    failed start is ``state: "error"`` with ``error`` (not an exception)."""

    serverInfo: ServerInfo
    protocolVersion: str
    instructions: str
    pid: int
    error: ErrorObject


class ResultsReadResult(TypedDict):
    """Result of ``results/read``: ``text`` is ``length`` bytes of the full text (``totalBytes``)
    from ``offset`` (snapped to a character boundary); ``eof`` when it reaches the end."""

    text: str
    offset: int
    length: int
    totalBytes: int
    eof: bool


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
