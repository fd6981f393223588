"""The Python clients' host methods, one entry each: what generate.py writes into
``_generated.py`` as the methods of both ``Sidecar`` (blocking) and ``AsyncSidecar`` (asyncio).

Each entry names the method, its parameters (in signature order: the annotation and default as
the signature shows them, the protocol key of the params, how the value is sent), the result
class and the docstring, which is kept here and nowhere else. Every protocol key must be a field
of the method's ``params`` in proto/schema (checked by the generator), so a renamed field fails
the generation rather than a call. Standard library only.
"""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple


class Param(NamedTuple):
    """One parameter. ``key``: the params field it fills (None: the client's own, not sent);
    ``send``: the expression sent, ``{}`` standing for the value (sent only when not None, or
    when false for a flag ``send="flag"`` true by default, or as ``True`` when set for
    ``send="set"``); ``only``: ``"sync"`` or ``"aio"`` for a parameter of one client."""

    name: str
    annotation: str
    default: Optional[str] = None  # None: required
    keyword: bool = True
    key: Optional[str] = ""  # "": the name in camelCase
    send: str = "{}"
    only: Optional[str] = None


class Method(NamedTuple):
    name: str
    rpc: str
    result: Optional[str]  # the result class; None: the method returns None
    params: Tuple[Param, ...]
    doc: str
    sync_doc: Optional[str] = None  # the blocking client's docstring where it differs
    check: str = ""  # a line run before the params are built (argument validation)
    sync_extra: str = ""  # more arguments of the blocking connection's request()
    aio_extra: str = ""
    #: A body of its own instead of a request built from the params (``{call}``, ``{conn}`` and
    #: ``{extra}`` stand for the client's), for the members below METHODS.
    body: str = ""
    plain: bool = False  # a plain function in the asyncio client too (not awaited)
    prop: bool = False  # a property


def pos(name: str, annotation: str, default: Optional[str] = None, **kw: str) -> Param:
    return Param(name, annotation, default, keyword=False, **kw)  # type: ignore[arg-type]


def opt(name: str, annotation: str, default: str = "None", **kw: str) -> Param:
    return Param(name, annotation, default, **kw)  # type: ignore[arg-type]


TIMEOUT = opt("timeout", "Optional[float]", key=None)
SERVERS = "_names({})"
TOOL_FORMAT = "Optional[ToolFormat]"

METHODS: List[Method] = [
    Method("call_tool", "tools/call", "ToolCallResult", (
        pos("name", "str"), pos("arguments", "Optional[Mapping[str, Any]]", "None"),
        opt("timeout_ms", "Optional[int]"), opt("format", TOOL_FORMAT), TIMEOUT,
        opt("cancel", "Optional[CancelToken]", key=None, only="sync"),
        opt("progress", "Optional[SyncProgressCallback]", send="set", only="sync"),
        opt("progress", "Optional[ProgressCallback]", send="set", only="aio"),
        opt("reset_timeout_on_progress", "Optional[bool]"), opt("max_total_timeout_ms", "Optional[int]"),
        opt("traceparent", "Optional[str]"), opt("tracestate", "Optional[str]")),
        """``tools/call`` of an exposed tool name. ``timeout_ms`` is the sidecar's bound on the
server's answer (``TOOL_TIMEOUT``); ``timeout`` (seconds) is the client's own bound
(``TIMEOUT``); ``format`` is that of ``output`` (default: the session ``tool_format``).
Cancelling the awaiting task cancels the call at the sidecar and the server. A result
cut to fit (``resultPolicy: "truncate"``) has ``truncated``; see :meth:`read_result`.

``progress``: called with each progress update of this call (:class:`ProgressParams`:
``progress``, ``total?``, ``message?``) before its result; the sidecar sends the latest
and may skip some for a slow reader. ``reset_timeout_on_progress`` and
``max_total_timeout_ms`` are the call's progress-aware timeout (protocol §4).
``traceparent`` (and ``tracestate``): the W3C trace context the call belongs to, passed on
to the server and the parent of the sidecar's span when it exports traces.""",
        sync_doc="""``tools/call`` of an exposed tool name. ``timeout_ms`` is the sidecar's bound on the
server's answer (``TOOL_TIMEOUT``); ``timeout`` (seconds) is the client's own bound
(``TIMEOUT``); ``cancel`` lets another thread cancel the call (``CANCELLED``).
``progress`` is called with each progress update of the call before its result, on the
thread reading stdout (keep it short); ``traceparent``/``tracestate`` as in
:meth:`AsyncSidecar.call_tool`.""",
        sync_extra=", cancel, progress", aio_extra=", progress"),
    Method("add_server", "servers/add", "ServerStatus", (
        pos("name", "str"), pos("config", "Mapping[str, Any]", send="dict({})"),
        opt("wait", "bool", "True", send="flag"), opt("trust", "Optional[str]"), TIMEOUT),
        """``servers/add``: start a server (config: :class:`ServerConfig`). A failed start is not
an exception: the status has ``state: "error"`` and ``lastError``. With ``wait=False``
the answer comes at once (``starting``); follow ``notifications/servers/changed``.""",
        sync_doc="""``servers/add`` (see :meth:`AsyncSidecar.add_server`)."""),
    Method("remove_server", "servers/remove", None, (pos("name", "str"), TIMEOUT),
           """``servers/remove``: returns once the server's whole process tree is gone."""),
    Method("restart_server", "servers/restart", "ServerStatus", (pos("name", "str"), TIMEOUT),
           """``servers/restart``: stop (whatever the state) and start again; the new status."""),
    Method("list_servers", "servers/list", "ServersListResult", (TIMEOUT,),
           """``servers/list``: ``{"servers": [status, ...]}`` sorted by name."""),
    Method("list_tools", "tools/list", "ToolsListResult", (
        pos("format", TOOL_FORMAT, "None"), pos("servers", "Optional[Sequence[str]]", "None", send=SERVERS),
        opt("strict", "Optional[bool]"), TIMEOUT),
        """``tools/list``: ``{"tools": [entry, ...], "fingerprint": "sha256:..."}``; each entry's
``definition`` is in ``format`` (default: the session ``tool_format``).""",
        sync_doc="""``tools/list`` (see :meth:`AsyncSidecar.list_tools`)."""),
    Method("load_servers", "servers/load", "ServersLoadResult", (
        pos("path", "Optional[PathArg]", "None", send="_os.fspath({})"),
        opt("json", "Optional[Mapping[str, Any]]", send="dict({})"), opt("text", "Optional[str]"),
        opt("dialect", "Optional[ConfigDialect]"),
        opt("inputs", "Optional[Mapping[str, str]]", send="dict({})"),
        opt("trust", "Optional[Mapping[str, str]]", send="dict({})"),
        opt("wait", "bool", "True", send="flag"), TIMEOUT),
        """``servers/load``: add every server of a config, given as exactly one of ``path`` (a
file of any dialect, or a directory scanned for plugins and ``.mcp.json``), ``json`` (a
document) or ``text`` (TOML, YAML or JSON). ``dialect`` forces the dialect (detected
otherwise); ``inputs`` fills ``${input:ID}``; ``trust`` maps server names to approved
digests (``require_trust``). Problems are ``diagnostics``, never an exception; servers
held back for trust are in ``trustRequired``.""",
        check='if [path, json, text].count(None) != 2:\n'
              '    raise TypeError("load_servers takes exactly one of path, json or text")'),
    Method("test_server", "servers/test", "ServersTestResult", (
        pos("config", "Mapping[str, Any]", send="dict({})"), opt("name", "Optional[str]"),
        opt("trust", "Optional[str]"), TIMEOUT),
        """``servers/test``: start ``config`` as :meth:`add_server` would (handshake, tool
discovery), stop it and report (``state``, ``tools``, ``timings``, ``stderrTail``,
``error``). Nothing is registered; ``name`` (default ``"test"``) may be taken or not.
A failed start is ``state: "error"``, not an exception."""),
    Method("read_result", "results/read", "ResultsReadResult", (
        pos("handle", "str"), pos("offset", "Optional[int]", "None"), pos("length", "Optional[int]", "None"),
        TIMEOUT),
        """``results/read``: ``length`` bytes (at most, and by default, 256 KiB) from byte
``offset`` of the full text of a truncated call result (``result["truncated"]["handle"]``).
A handle no longer kept raises ``RESULT_EXPIRED``."""),
    Method("search_tools", "tools/search", "ToolsSearchResult", (
        pos("query", "str"), opt("limit", "Optional[int]"),
        opt("servers", "Optional[Sequence[str]]", send=SERVERS), opt("format", TOOL_FORMAT),
        opt("strict", "Optional[bool]"), TIMEOUT),
        """``tools/search``: the tools best matching ``query`` (words or a tool's name), best
first, each a tool entry with ``score`` (and ``exact`` when named); ``total`` matched."""),
    # Only the three keys: the method's params are strict, a withheld entry has more.
    Method("accept_tools", "tools/accept", "ToolsAcceptResult", (
        pos("tools", "Sequence[Mapping[str, Any]]",
            send='[{"server": t["server"], "tool": t["tool"], "hash": t["hash"]} for t in {}]'),
        TIMEOUT),
        """``tools/accept``: let tools held by ``pinTools`` (``withheld`` entries, or
``{server, tool, hash}``) back into the tool set; ``{accepted, rejected}``."""),
    Method("server_stats", "servers/stats", "ServersStatsResult", (
        pos("servers", "Optional[Sequence[str]]", "None", send=SERVERS), TIMEOUT),
        """``servers/stats``: every server's (or those named) statistics: calls, errors,
latency percentiles (``total`` and ``recent`` windows), bytes, restarts, startup."""),
    Method("login_server", "servers/login", "ServerStatus", (
        pos("name", "str"), opt("wait", "bool", "True", send="flag"), TIMEOUT),
        """``servers/login``: OAuth login of a remote server (with an ``AUTHORIZE`` handler the
browser step is yours; else the status carries ``authorizationUrl``). ``wait=False``
answers once the login waits for the browser."""),
    Method("logout_server", "servers/logout", "ServerStatus", (pos("name", "str"), TIMEOUT),
           """``servers/logout``: forget the server's tokens and stop it (``needs_login``)."""),
    Method("list_resources", "resources/list", "ResourcesListResult", (
        pos("server", "Optional[str]", "None"), opt("cursor", "Optional[str]"), TIMEOUT),
        """``resources/list``: one page of resources (each with ``server``) of one server or of
every ready one; ``nextCursor`` continues, ``errors`` names servers that failed."""),
    Method("list_resource_templates", "resources/templates/list", "ResourceTemplatesListResult", (
        pos("server", "Optional[str]", "None"), opt("cursor", "Optional[str]"), TIMEOUT),
        """``resources/templates/list``: as :meth:`list_resources`, for ``resourceTemplates``."""),
    Method("read_resource", "resources/read", "ResourcesReadResult", (
        pos("server", "str"), pos("uri", "str"), opt("format", TOOL_FORMAT), TIMEOUT),
        """``resources/read``: the server's ``contents``, plus ``text`` and ``output`` (in
``format``) as for a tool result."""),
    Method("subscribe_resource", "resources/subscribe", None, (
        pos("server", "str"), pos("uri", "str"), TIMEOUT),
        """``resources/subscribe``: changes of the resource arrive as
``notifications/resources/updated`` (see :meth:`on_resources_updated`)."""),
    Method("unsubscribe_resource", "resources/unsubscribe", None, (
        pos("server", "str"), pos("uri", "str"), TIMEOUT),
        """``resources/unsubscribe``."""),
    Method("list_prompts", "prompts/list", "PromptsListResult", (
        pos("server", "Optional[str]", "None"), opt("cursor", "Optional[str]"), TIMEOUT),
        """``prompts/list``: as :meth:`list_resources`, for ``prompts``."""),
    Method("get_prompt", "prompts/get", "PromptsGetResult", (
        pos("server", "str"), pos("name", "str"),
        pos("arguments", "Optional[Mapping[str, str]]", "None", send="dict({})"),
        opt("format", TOOL_FORMAT), TIMEOUT),
        """``prompts/get``: the prompt's ``messages`` as the server sent them, and ``output``,
the same messages in ``format``'s message shape."""),
    Method("complete", "completion/complete", "CompleteResult", (
        pos("server", "str"), pos("ref", "Mapping[str, Any]", send="dict({})"),
        pos("argument", "Mapping[str, Any]", send="dict({})"),
        pos("context", "Optional[Mapping[str, Any]]", "None", send="dict({})"), TIMEOUT),
        """``completion/complete``: ``ref`` is ``{"type": "ref/prompt", "name"}`` or
``{"type": "ref/resource", "uri"}``, ``argument`` ``{"name", "value"}``, ``context``
``{"arguments": {...}}``; ``{"server", "completion": {"values", "total?", "hasMore?"}}``."""),
    Method("set_log_level", "logging/setLevel", "SetLevelResult", (
        pos("level", "LogLevel"), opt("server", "Optional[str]"), TIMEOUT),
        """``logging/setLevel``: the session's level of server logs (or one server's): messages
at or above it reach :meth:`logs`. ``{"servers": [names told], "errors"?}``."""),
    Method("ping", "ping", None, (TIMEOUT,), """``ping``: a round trip to the sidecar."""),
    Method("shutdown", "shutdown", None, (TIMEOUT,),
           """``shutdown``: stop every server; the sidecar then exits. Prefer :meth:`close`, which
also waits for the exit (and kills a sidecar that does not).""",
           sync_doc="``shutdown``: stop every server; the sidecar then exits. Prefer :meth:`close`."),
]

#: The members of both clients that are not host methods, written once: their state, the raw
#: request and the notification callbacks (each client's lifecycle and iterators are its own).
MEMBERS: List[Method] = [
    Method("initialize_result", "", "InitializeResult", (),
           """The sidecar's ``initialize`` result (protocol version, serverInfo, capabilities).""",
           body='if self._initialize_result is None:\n'
                '    raise RuntimeError("the client is not started")\n'
                "return self._initialize_result", prop=True),
    Method("dropped_notifications", "", "int", (),
           """Notifications dropped from the full queue (the oldest go first).""",
           body="return 0 if self._conn is None else self._conn.notes.dropped", prop=True),
    Method("dropped_logs", "", "int", (),
           """Server log messages dropped from the full log queue (the oldest go first).""",
           body="return 0 if self._conn is None else self._conn.logs.dropped", prop=True),
    Method("roots", "", "List[Root]", (),
           """The roots the built-in ``roots/list`` handler answers with (see :meth:`set_roots`).""",
           body="return list(self._handlers.roots)", prop=True),
    Method("set_roots", "", None, (pos("roots", "Sequence[Root]"),),
           """Replace the roots answered to ``roots/list`` and, once started, announce the change
(``notifications/roots/list_changed``: the sidecar tells every server, which asks
again). Before start, it declares roots like the ``roots`` option.""",
           sync_doc="""Replace the roots answered to ``roots/list`` and announce the change
(``notifications/roots/list_changed``); roots must have been declared (``roots=`` or a
``roots/list`` handler).""",
           body="started = self._conn is not None\n"
                "self._handlers.set_roots(roots, started)\n"
                "if started:\n"
                "    self._conn.notify(ROOTS_LIST_CHANGED, {})", plain=True),
    Method("request", "", "Any", (
        pos("method", "str"), pos("params", "Optional[Mapping[str, Any]]", "None"), TIMEOUT,
        opt("cancel", "Optional[CancelToken]", key=None, only="sync")),
        """Send any host-protocol request and return its raw ``result`` (for methods newer than
this client; the typed methods below are preferred).""",
        body="return {call}(method, params, timeout{extra})", sync_extra=", cancel"),
    Method("on_notification", "", "Callable[[], None]", (
        pos("callback", "SyncNotificationCallback", only="sync"),
        pos("callback", "NotificationCallback", only="aio")),
        """Call ``callback(notification)`` for every notification from now on, on the event loop
(a returned awaitable runs as a task; exceptions are logged). Returns a function that
unregisters it. The client must be started.""",
        sync_doc="""Call ``callback(notification)`` for every notification from now on, on the client's
background thread (in arrival order; exceptions are logged; keep it short). Returns a
function that unregisters it.""",
        body="unregister: Callable[[], None] = {conn}.add_callback(callback)\nreturn unregister",
        plain=True),
]

#: Notification callbacks of one method, the same in both clients: (name, notification,
#: params class, docstring).
EVENTS: List[Tuple[str, str, str, str]] = [
    ("on_resources_updated", "notifications/resources/updated", "ResourcesUpdatedParams",
     """Call ``callback({server, uri?})`` when a subscribed resource changed (no ``uri``:
any subscribed resource of that server may have). Returns the unregister function."""),
    ("on_resources_changed", "notifications/resources/changed", "ResourcesChangedParams",
     """Call ``callback({server})`` when a server's resource list changed (list again)."""),
    ("on_prompts_changed", "notifications/prompts/changed", "PromptsChangedParams",
     """Call ``callback({server})`` when a server's prompt list changed (list again)."""),
]


#: The callback and handler types the methods take, by client: (name, type, docstring line).
CALLBACKS: List[Tuple[str, str, str]] = [
    ("SyncNotificationCallback", "Callable[[Notification], None]",
     "A notification callback of the blocking client (run on the client's background thread)."),
    ("SyncProgressCallback", "Callable[[ProgressParams], None]",
     "A progress callback of ``call_tool`` (run on the thread reading stdout: keep it short)."),
    ("SyncHandler", "Callable[[JsonObject], Any]",
     "A handler of the sidecar's requests (run on the client's handler threads): params in, the\n"
     "result object out; raising :class:`HandlerError` answers that JSON-RPC error."),
    ("NotificationCallback", "Callable[[Notification], Union[None, Awaitable[None]]]",
     "A notification callback: a plain function, or one returning an awaitable (run as a task)."),
    ("ProgressCallback", "Callable[[ProgressParams], Union[None, Awaitable[None]]]",
     "A progress callback of ``call_tool``: called with each ``notifications/progress`` params of\n"
     "the call (:class:`ProgressParams`); a returned awaitable runs as a task."),
    ("Handler", "Callable[[JsonObject], Union[Any, Awaitable[Any]]]",
     "A handler of the sidecar's requests: params in, the result object out (an ``async def``, or a\n"
     "plain function); raising :class:`HandlerError` answers that JSON-RPC error."),
]


def callbacks_source() -> List[str]:
    out = ["", ""]
    for name, annotation, doc in CALLBACKS:
        out += [f"#: {line}" for line in doc.splitlines()] + [f"{name} = {annotation}"]
    return out


# ------------------------------------------------------------------------------ the emitter

CLIENTS = (
    # (class the methods are made for, client, how a method reaches its connection)
    ("_SidecarMethods", "sync", "self._conn.request"),
    ("_AsyncSidecarMethods", "aio", "await self._here().request"),
)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def check_keys(method: Method, params_of) -> None:  # type: ignore[no-untyped-def]
    """Every key sent is a field of the method's params in the schema."""
    known = params_of(method.rpc)
    for p in method.params:
        key = camel(p.name) if p.key == "" else p.key
        if key is not None and key not in known:
            raise SystemExit(f"py_methods.py: {method.name}: {key!r} is not a params field of "
                             f"{method.rpc} in proto/schema (fields: {sorted(known)})")


def signature(method: Method, client: str) -> str:
    parts, star = ["self"], False
    for p in method.params:
        if p.only not in (None, client):
            continue
        if p.keyword and not star:
            parts.append("*")
            star = True
        default = "" if p.default is None else f" = {p.default}"
        parts.append(f"{p.name}: {p.annotation}{default}")
    returns = method.result or "None"
    return f"({', '.join(parts)}) -> {returns}:"


def body(method: Method, client: str, call: str) -> List[str]:
    extra = method.sync_extra if client == "sync" else method.aio_extra
    if method.body:
        conn = "self._conn" if client == "sync" else "self._require()"
        return method.body.replace("{call}", call).replace("{conn}", conn).replace("{extra}", extra).splitlines()
    sent = [p for p in method.params if p.only in (None, client) and p.key is not None]
    lines = method.check.splitlines()
    required = [p for p in sent if p.default is None]
    literal = ", ".join(f'"{camel(p.name) if p.key == "" else p.key}": {p.send.replace("{}", p.name)}'
                        for p in required)
    if sent:
        lines.append(f"params: Dict[str, Any] = {{{literal}}}")
    for p in sent:
        if p.default is None:
            continue
        key = camel(p.name) if p.key == "" else p.key
        if p.send == "flag":
            lines += [f"if not {p.name}:", f'    params["{key}"] = False']
        elif p.send == "set":
            lines += [f"if {p.name} is not None:", f'    params["{key}"] = True']
        else:
            lines += [f"if {p.name} is not None:", f'    params["{key}"] = {p.send.replace("{}", p.name)}']
    params = "None" if not sent else "params" if required else "params or None"
    request = f'{call}("{method.rpc}", {params}, timeout{extra})'
    if method.result is None:
        return lines + [request]
    return lines + [f"return _shape({method.result}, {request})"]


def docstring(text: str, indent: str) -> List[str]:
    lines = text.splitlines()
    out = [f'{indent}"""{lines[0]}'] + [f"{indent}{line}" if line else "" for line in lines[1:]]
    out[-1] += '"""'
    return out


def python_source(params_of) -> List[str]:  # type: ignore[no-untyped-def]
    """The methods' classes of both clients: the body of ``_methods.py``."""
    for method in METHODS:
        check_keys(method, params_of)
    out = ["", "", "# The host methods of both clients (clients/codegen/py_methods.py), copied into",
           "# Sidecar and AsyncSidecar by _results.install."]
    for cls, client, call in CLIENTS:
        out += ["", "", f"class {cls}:", *class_doc(client), "    # What the client supplies (for type checkers: these are copied, not inherited).",
                "    _open: Callable[[Dict[str, Any]], None]", "    _conn: Any", "    _handlers: Any",
                "    _initialize_result: Optional[InitializeResult]"]
        if client == "aio":
            out += ["    _here: Callable[[], Any]", "    _require: Callable[[], Any]"]
        out += constructor(client)
        for method in MEMBERS + METHODS:
            doc = method.sync_doc if client == "sync" and method.sync_doc else method.doc
            asynchronous = "async " if client == "aio" and not (method.plain or method.prop) else ""
            out += [""] + (["    @property"] if method.prop else [])
            out += [f"    {asynchronous}def {method.name}{signature(method, client)}"]
            out += docstring(doc, "        ")
            out += [f"        {line}" for line in body(method, client, call)]
        for name, notification, params, doc in EVENTS:
            out += ["", f"    def {name}(self, callback: Callable[[{params}], Any]) -> Callable[[], None]:"]
            out += docstring(doc, "        ")
            out += [f'        return _on(self, "{notification}", callback)']
    return out


#: The constructor options of both clients, in signature order after ``binary``: (name,
#: annotation, default, the docstring's line for it). ``close_timeout`` is the clients' own; the
#: others make ``Options``. A ``{handler}`` annotation is each client's handler type.
OPTIONS: List[Tuple[str, str, str, str]] = [
    ("tool_format", "Optional[ToolFormat]", "None",
     'session tool format (``"openai"`` by default at the sidecar).'),
    ("name_template", "Optional[str]", "None",
     'exposed tool names (``"mcp__{server}__{tool}"`` by default).'),
    ("max_name_length", "Optional[int]", "None",
     "longest exposed name (16-256, 64 by default)."),
    ("client_info", "Optional[ClientInfo]", "None",
     "``{name, version}`` sent in ``initialize``."),
    ("args", "Sequence[str]", "()",
     'extra command-line flags of the sidecar (e.g. ``["--log", "debug"]``).'),
    ("env", "Optional[Mapping[str, str]]", "None",
     "the sidecar's environment (default: inherited)."),
    ("cwd", "Optional[PathArg]", "None",
     "the sidecar's working directory."),
    ("stderr", "StderrTarget", "None",
     """where the sidecar's log goes (see :data:`StderrTarget`); default: each line
becomes a record of ``logging.getLogger("mcp_sidecar.sidecar")`` at its level
(``sys.stderr`` passes the raw lines to yours, as before)."""),
    ("max_line_bytes", "int", "DEFAULT_MAX_LINE_BYTES",
     """longest line accepted from the sidecar's stdout (64 MiB); a longer
one closes the client with ``LINE_TOO_LARGE``."""),
    ("notification_queue_size", "int", "DEFAULT_NOTIFICATION_QUEUE_SIZE",
     """notifications kept for :meth:`notifications`; when full the
oldest is dropped (counted in :attr:`dropped_notifications`). 0: no queue."""),
    ("start_timeout", "Optional[float]", "30.0",
     "bound (seconds) on ``initialize`` at start."),
    ("close_timeout", "float", "5.0",
     "default bound (seconds) on ``shutdown`` plus exit in :meth:`close`."),
    ("strict", "Optional[bool]", "None",
     """session default of OpenAI strict mode for ``tools/list`` (``initialize``
``strict``; False at the sidecar)."""),
    ("require_trust", "bool", "False",
     """every server needs the host's approval of its launch digest before it
is started (``initialize`` ``requireTrust``): ``add_server``/``test_server`` raise
``TRUST_REQUIRED`` (``data["digest"]``) until called with ``trust=digest``."""),
    ("handlers", "Optional[Mapping[str, {handler}]]", "None",
     """the host's handlers of the sidecar's requests (protocol §17), by method:
``SAMPLING``, ``ELICITATION``, ``ROOTS_LIST``, ``AUTHORIZE`` (see :data:`Handler`;
more with :meth:`on_request` before start). ``initialize`` declares exactly the
matching ``capabilities``; nothing registered declares nothing."""),
    ("roots", "Optional[Sequence[Root]]", "None",
     """the roots servers may use: declares ``roots`` and answers ``roots/list`` with
them (unless a ``roots/list`` handler is given); :meth:`set_roots` changes them."""),
    ("elicitation_modes", "Sequence[ElicitationMode]", '("form",)',
     """the elicitation modes declared with an ``ELICITATION`` handler
(``("form",)``; add ``"url"`` for URL mode)."""),
    ("sampling_features", "Sequence[str]", "()",
     """sampling features declared with a ``SAMPLING`` handler: ``"tools"``
(tool use in sampling), ``"context"`` (``includeContext``)."""),
    ("server_logs", "Optional[LogLevel]", "None",
     """the session's level of server logs (``initialize`` ``serverLogs``): log
messages at or above it reach :meth:`logs`. None: none until :meth:`set_log_level`."""),
    ("log_queue_size", "int", "DEFAULT_LOG_QUEUE_SIZE",
     """server log messages kept for :meth:`logs`; when full the oldest is
dropped (counted in :attr:`dropped_logs`). 0: no log queue."""),
    ("answer_timeout_ms", "Optional[int]", "None",
     "how long the sidecar waits for a handler's answer (600000)."),
    ("log_level", "Optional[str]", "DEFAULT_LOG_LEVEL",
     """the sidecar's log filter (``--log``): ``"warn"`` by default, so its INFO
lines stay out of your log; ``"info"``, ``"debug"`` or a filter such as
``"mcp_sidecar=debug"``; None leaves it to ``MCP_SIDECAR_LOG`` or the sidecar's
default (info). A ``--log`` in ``args`` or ``MCP_SIDECAR_LOG`` set takes precedence."""),
]

BINARY_DOC = """the sidecar executable; default: ``$MCP_SIDECAR_BIN``, then the binary installed
with this package, then ``PATH`` (see :func:`find_sidecar_bin`)."""

#: Each client's class docstring; the asyncio one goes on with ``Args:``, every option's line.
CLIENT_DOCS = {
    "aio": """An asyncio client of one ``mcp-sidecar`` process.

Use it as ``async with AsyncSidecar(...) as sidecar:`` or ``sidecar = await
AsyncSidecar.open(...)`` followed by ``await sidecar.close()``. Every method may be called from
any number of tasks at once; each takes ``timeout`` (seconds, client side): when it runs out the
request is cancelled at the sidecar and :class:`SidecarError` ``TIMEOUT`` is raised. Cancelling
the awaiting task cancels the request the same way.

**A client belongs to the event loop that started it**: its pipes, futures and timers live on
that loop. A request awaited on another loop (a second ``asyncio.run``, another thread's loop)
raises :class:`SidecarError` ``WRONG_EVENT_LOOP`` at once, before anything is sent; start one
client per loop, or use the blocking :class:`~mcp_sidecar.Sidecar` across threads. Only
:meth:`close` works from anywhere (see there), so a sidecar is never left running.""",
    "sync": """A blocking client of one ``mcp-sidecar`` process; spawns it and performs ``initialize``
in the constructor.

Use it as ``with Sidecar(...) as sidecar:`` or call :meth:`close`. Methods may be called from
many threads at once. Each takes ``timeout`` (seconds, client side): when it runs out the
request is cancelled at the sidecar (``notifications/cancelled``) and :class:`SidecarError`
``TIMEOUT`` is raised. Arguments are those of :class:`~mcp_sidecar.AsyncSidecar`, except
that ``handlers`` are plain functions (:data:`SyncHandler`), run on the client's handler
threads (up to 32 at once); a handler cancelled by the sidecar is not stopped (see
:func:`handler_cancel_token`) but its answer is dropped.""",
}


def class_doc(client: str) -> List[str]:
    """The docstring of a client's class (copied onto it by ``_results.install``)."""
    text = CLIENT_DOCS[client]
    if client == "aio":
        text += "\n\nArgs:"
        for name, doc in [("binary", BINARY_DOC)] + [(o[0], o[3]) for o in OPTIONS]:
            first, *rest = doc.splitlines()
            text += f"\n    {name}: {first}" + "".join(f"\n        {line}" for line in rest)
    return docstring(text, "    ")[:-1] + [docstring(text, "    ")[-1][:-3], '    """', ""]


#: The defaults named in OPTIONS: (name, value, comment).
DEFAULTS: List[Tuple[str, str, str]] = [
    ("DEFAULT_MAX_LINE_BYTES", "64 * 1024 * 1024",
     "Longest line accepted from the sidecar's stdout (a tools/call result is one line)."),
    ("DEFAULT_NOTIFICATION_QUEUE_SIZE", "1024",
     "Notifications kept for ``notifications()`` before the oldest is dropped."),
    ("DEFAULT_LOG_QUEUE_SIZE", "1024", "Server log messages kept for ``logs()`` before the oldest is dropped."),
    ("DEFAULT_LOG_LEVEL", '"warn"', "The sidecar's log filter unless told otherwise: warnings and errors only."),
]


def constructor(client: str) -> List[str]:
    """Each client's ``__init__``: the options, handed to the client's ``_open`` as ``locals()``."""
    handler = "SyncHandler" if client == "sync" else "Handler"
    params = ["self", "binary: Optional[PathArg] = None", "*"]
    params += [f"{name}: {annotation.replace('{handler}', handler)} = {default}"
               for name, annotation, default, _ in OPTIONS]
    return ["", f"    def __init__({', '.join(params)}) -> None:",
            "        self._open(locals())"]


#: What each option must be, checked in this order before anything runs: (option, the failing
#: condition, ``{}`` standing for the value, the exception, its message).
CHECKS: List[Tuple[str, str, str, str]] = [
    ("args", "isinstance({}, str)", "TypeError", "args must be a sequence of strings, not one string"),
    ("max_line_bytes", "{} < 1024", "ValueError", "max_line_bytes must be at least 1024"),
    ("notification_queue_size", "{} < 0", "ValueError", "notification_queue_size must be >= 0"),
    ("log_queue_size", "{} < 0", "ValueError", "log_queue_size must be >= 0"),
    ("start_timeout", "{} is not None and {} <= 0", "ValueError", "start_timeout must be positive (or None)"),
]
#: Options ``Options`` keeps in a form of its own (the handlers and what they declare), or not
#: at all (``close_timeout``, the clients' own).
NOT_FIELDS = ("close_timeout", "handlers", "roots", "elicitation_modes", "sampling_features")


def option_fields_source() -> List[str]:
    """``_OptionFields``, the options as ``Options`` holds them, and ``check_options``, appended
    to ``_methods.py`` (``_options`` builds on them)."""
    out = ["", "", "class _OptionFields:", '    """The options, as ``Options`` holds them (its base)."""', "",
           "    binary: Optional[PathArg]"]
    out += [f"    {name}: {annotation}" for name, annotation, _, _ in OPTIONS if name not in NOT_FIELDS]
    out += ["", "", "def check_options(values: Dict[str, Any]) -> None:",
            '    """Raise on an option outside its bounds (the error names it)."""']
    for name, condition, error, message in CHECKS:
        value = 'values["%s"]' % name
        out += [f"    if {condition.replace('{}', value)}:",
                f'        raise {error}("{message}")']
    return out


def options_source() -> List[str]:
    """The options' defaults, appended to ``_generated.py`` (``_options`` reads them)."""
    out = [""]
    for name, value, comment in DEFAULTS:
        out += [f"#: {comment}", f"{name} = {value}"]
    out += ["#: Every option of ``Options`` and its default (the constructors' but close_timeout).",
            "OPTION_DEFAULTS: Dict[str, Any] = {", '    "binary": None,']
    out += [f'    "{name}": {default},' for name, _, default, _ in OPTIONS if name != "close_timeout"]
    return out + ["}"]
