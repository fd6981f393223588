"""Every host method once: its signature, docstring, params and result class, for both clients.

Owns: the method surface. Each function below takes a method's arguments and returns the
:class:`Call` to make (method, params with omitted defaults left out as protocol §1 asks,
``timeout``, the class of the result). :func:`blocking` makes a ``Sidecar`` method of it and
:func:`awaitable` an ``AsyncSidecar`` one, with the same signature and docstring, so a protocol
change is made here once. ``call_tool`` and ``request``, whose arguments differ between the two
clients (``cancel``; the progress callback's type), are written in each client.
"""

from __future__ import annotations

import os
import types
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Coroutine,
    Dict,
    Generic,
    List,
    Mapping,
    Optional,
    Sequence,
    Type,
    TypeVar,
    cast,
)

from ._binary import PathArg
from ._protocol import (
    PROMPTS_CHANGED,
    RESOURCES_CHANGED,
    RESOURCES_UPDATED,
    CompleteResult,
    ConfigDialect,
    LogLevel,
    PromptsChangedParams,
    PromptsGetResult,
    PromptsListResult,
    ResourcesChangedParams,
    ResourcesListResult,
    ResourcesReadResult,
    ResourcesUpdatedParams,
    ResourceTemplatesListResult,
    ResultsReadResult,
    ServersListResult,
    ServersLoadResult,
    ServersStatsResult,
    ServerStatus,
    ServersTestResult,
    SetLevelResult,
    ToolFormat,
    ToolsAcceptResult,
    ToolsListResult,
    ToolsSearchResult,
)
from ._core import only_method
from ._results import Result

if TYPE_CHECKING:
    from typing_extensions import Concatenate, ParamSpec

    P = ParamSpec("P")

R = TypeVar("R")


class Call(Generic[R]):
    """One request to make: ``method``, ``params``, the client-side ``timeout`` and the class
    its result becomes (None: the method returns None); ``R`` is what the method returns."""

    __slots__ = ("method", "params", "timeout", "result")

    def __init__(
        self,
        method: str,
        params: Optional[Mapping[str, Any]],
        timeout: Optional[float],
        result: Optional[Type[Result]] = None,
    ) -> None:
        self.method, self.params, self.timeout, self.result = method, params, timeout, result

    def shape(self, result: Any) -> R:
        """The method's return value from the response's ``result``."""
        cls = self.result
        if cls is None:
            return cast(R, None)
        return cast(R, cls(result) if type(result) is dict else result)


def fields(**given: Any) -> Dict[str, Any]:
    """Params with the arguments left at None dropped (in the order given)."""
    return {key: value for key, value in given.items() if value is not None}


def server_names(servers: Optional[Sequence[str]]) -> Optional[List[str]]:
    if isinstance(servers, str):
        raise TypeError("servers must be a sequence of server names, not one string")
    return None if servers is None else list(servers)


def _dict(value: Optional[Mapping[str, Any]]) -> Optional[Dict[str, Any]]:
    return None if value is None else dict(value)


def _false(flag: bool) -> Optional[bool]:
    """``False`` for a flag that is true by default, else left out."""
    return None if flag else False


def call_tool_params(
    name: str,
    arguments: Optional[Mapping[str, Any]],
    timeout_ms: Optional[int],
    format: Optional[ToolFormat],
    progress: bool,
    reset_timeout_on_progress: Optional[bool],
    max_total_timeout_ms: Optional[int],
    traceparent: Optional[str] = None,
    tracestate: Optional[str] = None,
) -> Dict[str, Any]:
    """Params of ``tools/call`` (its method is written in each client: see the module doc).
    Spelled out rather than through :func:`fields`: this is the hot path."""
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
    if traceparent is not None:
        params["traceparent"] = traceparent
    if tracestate is not None:
        params["tracestate"] = tracestate
    return params


# -- the methods -------------------------------------------------------------------------------


def add_server(
    name: str,
    config: Mapping[str, Any],
    *,
    wait: bool = True,
    trust: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Call[ServerStatus]:
    """``servers/add``: start a server (config: :class:`ServerConfig`). A failed start is not
    an exception: the status has ``state: "error"`` and ``lastError``. With ``wait=False``
    the answer comes at once (``starting``); follow ``notifications/servers/changed``."""
    params = fields(name=name, config=dict(config), wait=_false(wait), trust=trust)
    return Call("servers/add", params, timeout, ServerStatus)


def remove_server(name: str, *, timeout: Optional[float] = None) -> Call[None]:
    """``servers/remove``: returns once the server's whole process tree is gone."""
    return Call("servers/remove", {"name": name}, timeout)


def restart_server(name: str, *, timeout: Optional[float] = None) -> Call[ServerStatus]:
    """``servers/restart``: stop (whatever the state) and start again; the new status."""
    return Call("servers/restart", {"name": name}, timeout, ServerStatus)


def list_servers(*, timeout: Optional[float] = None) -> Call[ServersListResult]:
    """``servers/list``: ``{"servers": [status, ...]}`` sorted by name."""
    return Call("servers/list", None, timeout, ServersListResult)


def list_tools(
    format: Optional[ToolFormat] = None,
    servers: Optional[Sequence[str]] = None,
    *,
    strict: Optional[bool] = None,
    timeout: Optional[float] = None,
) -> Call[ToolsListResult]:
    """``tools/list``: ``{"tools": [entry, ...], "fingerprint": "sha256:..."}``; each entry's
    ``definition`` is in ``format`` (default: the session ``tool_format``)."""
    params = fields(format=format, strict=strict, servers=server_names(servers))
    return Call("tools/list", params or None, timeout, ToolsListResult)


def load_servers(
    path: Optional[PathArg] = None,
    *,
    json: Optional[Mapping[str, Any]] = None,
    text: Optional[str] = None,
    dialect: Optional[ConfigDialect] = None,
    inputs: Optional[Mapping[str, str]] = None,
    trust: Optional[Mapping[str, str]] = None,
    wait: bool = True,
    timeout: Optional[float] = None,
) -> Call[ServersLoadResult]:
    """``servers/load``: add every server of a config, given as exactly one of ``path`` (a
    file of any dialect, or a directory scanned for plugins and ``.mcp.json``), ``json`` (a
    document) or ``text`` (TOML, YAML or JSON). ``dialect`` forces the dialect (detected
    otherwise); ``inputs`` fills ``${input:ID}``; ``trust`` maps server names to approved
    digests (``require_trust``). Problems are ``diagnostics``, never an exception; servers
    held back for trust are in ``trustRequired``."""
    if [path, json, text].count(None) != 2:
        raise TypeError("load_servers takes exactly one of path, json or text")
    params = fields(
        path=None if path is None else os.fspath(path),
        json=_dict(json),
        text=text,
        dialect=dialect,
        inputs=_dict(inputs),
        trust=_dict(trust),
        wait=_false(wait),
    )
    return Call("servers/load", params, timeout, ServersLoadResult)


def test_server(
    config: Mapping[str, Any],
    *,
    name: Optional[str] = None,
    trust: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Call[ServersTestResult]:
    """``servers/test``: start ``config`` as :meth:`add_server` would (handshake, tool
    discovery), stop it and report (``state``, ``tools``, ``timings``, ``stderrTail``,
    ``error``). Nothing is registered; ``name`` (default ``"test"``) may be taken or not.
    A failed start is ``state: "error"``, not an exception."""
    params = fields(config=dict(config), name=name, trust=trust)
    return Call("servers/test", params, timeout, ServersTestResult)


def read_result(
    handle: str,
    offset: Optional[int] = None,
    length: Optional[int] = None,
    *,
    timeout: Optional[float] = None,
) -> Call[ResultsReadResult]:
    """``results/read``: ``length`` bytes (at most, and by default, 256 KiB) from byte
    ``offset`` of the full text of a truncated call result (``result["truncated"]["handle"]``).
    A handle no longer kept raises ``RESULT_EXPIRED``."""
    params = fields(handle=handle, offset=offset, length=length)
    return Call("results/read", params, timeout, ResultsReadResult)


def search_tools(
    query: str,
    *,
    limit: Optional[int] = None,
    servers: Optional[Sequence[str]] = None,
    format: Optional[ToolFormat] = None,
    strict: Optional[bool] = None,
    timeout: Optional[float] = None,
) -> Call[ToolsSearchResult]:
    """``tools/search``: the tools best matching ``query`` (words or a tool's name), best
    first, each a tool entry with ``score`` (and ``exact`` when named); ``total`` matched."""
    params = fields(
        query=query, limit=limit, servers=server_names(servers), format=format, strict=strict
    )
    return Call("tools/search", params, timeout, ToolsSearchResult)


def accept_tools(
    tools: Sequence[Mapping[str, Any]], *, timeout: Optional[float] = None
) -> Call[ToolsAcceptResult]:
    """``tools/accept``: let tools held by ``pinTools`` (``withheld`` entries, or
    ``{server, tool, hash}``) back into the tool set; ``{accepted, rejected}``."""
    # Only the three keys: the method's params are strict, a withheld entry has more.
    keep = [{"server": t["server"], "tool": t["tool"], "hash": t["hash"]} for t in tools]
    return Call("tools/accept", {"tools": keep}, timeout, ToolsAcceptResult)


def server_stats(
    servers: Optional[Sequence[str]] = None, *, timeout: Optional[float] = None
) -> Call[ServersStatsResult]:
    """``servers/stats``: every server's (or those named) statistics: calls, errors,
    latency percentiles (``total`` and ``recent`` windows), bytes, restarts, startup."""
    params = fields(servers=server_names(servers)) or None
    return Call("servers/stats", params, timeout, ServersStatsResult)


def login_server(
    name: str, *, wait: bool = True, timeout: Optional[float] = None
) -> Call[ServerStatus]:
    """``servers/login``: OAuth login of a remote server (with an ``AUTHORIZE`` handler the
    browser step is yours; else the status carries ``authorizationUrl``). ``wait=False``
    answers once the login waits for the browser."""
    return Call("servers/login", fields(name=name, wait=_false(wait)), timeout, ServerStatus)


def logout_server(name: str, *, timeout: Optional[float] = None) -> Call[ServerStatus]:
    """``servers/logout``: forget the server's tokens and stop it (``needs_login``)."""
    return Call("servers/logout", {"name": name}, timeout, ServerStatus)


def list_resources(
    server: Optional[str] = None,
    *,
    cursor: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Call[ResourcesListResult]:
    """``resources/list``: one page of resources (each with ``server``) of one server or of
    every ready one; ``nextCursor`` continues, ``errors`` names servers that failed."""
    params = fields(server=server, cursor=cursor) or None
    return Call("resources/list", params, timeout, ResourcesListResult)


def list_resource_templates(
    server: Optional[str] = None,
    *,
    cursor: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Call[ResourceTemplatesListResult]:
    """``resources/templates/list``: as :meth:`list_resources`, for ``resourceTemplates``."""
    params = fields(server=server, cursor=cursor) or None
    return Call("resources/templates/list", params, timeout, ResourceTemplatesListResult)


def read_resource(
    server: str,
    uri: str,
    *,
    format: Optional[ToolFormat] = None,
    timeout: Optional[float] = None,
) -> Call[ResourcesReadResult]:
    """``resources/read``: the server's ``contents``, plus ``text`` and ``output`` (in
    ``format``) as for a tool result."""
    params = fields(server=server, uri=uri, format=format)
    return Call("resources/read", params, timeout, ResourcesReadResult)


def subscribe_resource(
    server: str, uri: str, *, timeout: Optional[float] = None
) -> Call[None]:
    """``resources/subscribe``: changes of the resource arrive as
    ``notifications/resources/updated`` (see :meth:`on_resources_updated`)."""
    return Call("resources/subscribe", {"server": server, "uri": uri}, timeout)


def unsubscribe_resource(
    server: str, uri: str, *, timeout: Optional[float] = None
) -> Call[None]:
    """``resources/unsubscribe``."""
    return Call("resources/unsubscribe", {"server": server, "uri": uri}, timeout)


def list_prompts(
    server: Optional[str] = None,
    *,
    cursor: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Call[PromptsListResult]:
    """``prompts/list``: as :meth:`list_resources`, for ``prompts``."""
    params = fields(server=server, cursor=cursor) or None
    return Call("prompts/list", params, timeout, PromptsListResult)


def get_prompt(
    server: str,
    name: str,
    arguments: Optional[Mapping[str, str]] = None,
    *,
    format: Optional[ToolFormat] = None,
    timeout: Optional[float] = None,
) -> Call[PromptsGetResult]:
    """``prompts/get``: the prompt's ``messages`` as the server sent them, and ``output``,
    the same messages in ``format``'s message shape."""
    params = fields(server=server, name=name, arguments=_dict(arguments), format=format)
    return Call("prompts/get", params, timeout, PromptsGetResult)


def complete(
    server: str,
    ref: Mapping[str, Any],
    argument: Mapping[str, Any],
    context: Optional[Mapping[str, Any]] = None,
    *,
    timeout: Optional[float] = None,
) -> Call[CompleteResult]:
    """``completion/complete``: ``ref`` is ``{"type": "ref/prompt", "name"}`` or
    ``{"type": "ref/resource", "uri"}``, ``argument`` ``{"name", "value"}``, ``context``
    ``{"arguments": {...}}``; ``{"server", "completion": {"values", "total?", "hasMore?"}}``."""
    params = fields(server=server, ref=dict(ref), argument=dict(argument), context=_dict(context))
    return Call("completion/complete", params, timeout, CompleteResult)


def set_log_level(
    level: LogLevel,
    *,
    server: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Call[SetLevelResult]:
    """``logging/setLevel``: the session's level of server logs (or one server's): messages
    at or above it reach :meth:`logs`. ``{"servers": [names told], "errors"?}``."""
    return Call("logging/setLevel", fields(level=level, server=server), timeout, SetLevelResult)


def ping(*, timeout: Optional[float] = None) -> Call[None]:
    """``ping``: a round trip to the sidecar."""
    return Call("ping", None, timeout)


def shutdown(*, timeout: Optional[float] = None) -> Call[None]:
    """``shutdown``: stop every server; the sidecar then exits. Prefer :meth:`close`, which
    also waits for the exit (and kills a sidecar that does not)."""
    return Call("shutdown", None, timeout)


#: The blocking client's docstrings where they differ from the asyncio client's.
BLOCKING_DOCS = {
    "add_server": """``servers/add`` (see :meth:`AsyncSidecar.add_server`).""",
    "list_tools": """``tools/list`` (see :meth:`AsyncSidecar.list_tools`).""",
    "shutdown": "``shutdown``: stop every server; the sidecar then exits. Prefer :meth:`close`.",
}


# -- making the clients' methods -----------------------------------------------------------------


# Each method is compiled from its spec's parameter list (read off its code object) rather than
# wrapped as (*args, **kwargs): its own signature is then the spec's with ``self`` first, for
# help(), inspect and IDEs, with no inspect.Signature built (importing inspect would cost every
# program importing the client), and a call passes its arguments straight on.
_BLOCKING = """def {name}(self, {params}):
    call = spec({args})
    return call.shape(self._conn.request(call.method, call.params, call.timeout))
"""
_AWAITABLE = """async def {name}(self, {params}):
    call = spec({args})
    return call.shape(await self._here().request(call.method, call.params, call.timeout))
"""


def blocking(spec: Callable[P, Call[R]]) -> Callable[Concatenate[Any, P], R]:
    """The ``Sidecar`` method of ``spec``: makes the call on the client's connection."""
    method = _method(_BLOCKING, spec, BLOCKING_DOCS.get(spec.__name__))
    return cast("Callable[Concatenate[Any, P], R]", method)


def awaitable(spec: Callable[P, Call[R]]) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """The ``AsyncSidecar`` method of ``spec``: a coroutine function making the call on the
    client's event loop."""
    method = _method(_AWAITABLE, spec, None)
    return cast("Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]", method)


def _method(template: str, spec: Callable[..., Any], doc: Optional[str]) -> Any:
    """The method ``template`` makes of ``spec``: its parameters, defaults, annotations (the
    return one being what the spec's :class:`Call` holds) and docstring, ``self`` first."""
    code = spec.__code__
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    positional, keyword = names[: code.co_argcount], names[code.co_argcount :]
    params = ", ".join([*positional, *(["*", *keyword] if keyword else [])])
    args = ", ".join([*positional, *(f"{name}={name}" for name in keyword)])
    namespace = {**globals(), "spec": spec}  # the annotations resolve as in this module
    exec(template.format(name=spec.__name__, params=params, args=args), namespace)
    method = namespace[spec.__name__]
    method.__defaults__, method.__kwdefaults__ = spec.__defaults__, spec.__kwdefaults__
    returns = spec.__annotations__["return"]
    returns = returns[len("Call[") : -1] if returns.startswith("Call[") else returns
    method.__annotations__ = {**spec.__annotations__, "return": returns}
    method.__doc__ = doc or spec.__doc__
    return method


def name_methods(cls: Type[Any]) -> None:
    """Give the methods made here the names and module of their class (``Sidecar.ping``); a
    function shared by both classes gets a copy of its own first, its ``self`` unannotated."""
    for name, member in list(vars(cls).items()):
        if not isinstance(member, types.FunctionType) or member.__qualname__ != name:
            continue
        if "self" in member.__annotations__:
            shared = member
            member = types.FunctionType(
                shared.__code__, shared.__globals__, name, shared.__defaults__, shared.__closure__
            )
            member.__kwdefaults__, member.__doc__ = shared.__kwdefaults__, shared.__doc__
            member.__annotations__ = {
                k: v for k, v in shared.__annotations__.items() if k != "self"
            }
            setattr(cls, name, member)
        member.__qualname__ = f"{cls.__name__}.{name}"
        member.__module__ = cls.__module__


# -- notification callbacks of one method, the same in both clients ---------------------------

def on_resources_updated(
    self: Any, callback: Callable[[ResourcesUpdatedParams], Any]
) -> Callable[[], None]:
    """Call ``callback({server, uri?})`` when a subscribed resource changed (no ``uri``:
    any subscribed resource of that server may have). Returns the unregister function."""
    unregister: Callable[[], None] = self.on_notification(only_method(RESOURCES_UPDATED, callback))
    return unregister


def on_resources_changed(
    self: Any, callback: Callable[[ResourcesChangedParams], Any]
) -> Callable[[], None]:
    """Call ``callback({server})`` when a server's resource list changed (list again)."""
    unregister: Callable[[], None] = self.on_notification(only_method(RESOURCES_CHANGED, callback))
    return unregister


def on_prompts_changed(
    self: Any, callback: Callable[[PromptsChangedParams], Any]
) -> Callable[[], None]:
    """Call ``callback({server})`` when a server's prompt list changed (list again)."""
    unregister: Callable[[], None] = self.on_notification(only_method(PROMPTS_CHANGED, callback))
    return unregister
