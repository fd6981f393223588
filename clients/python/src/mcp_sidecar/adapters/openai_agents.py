"""The OpenAI Agents SDK adapter: :class:`SidecarMCPServer`, an ``agents.mcp.MCPServer`` that
serves every server of one sidecar, so ``Agent(mcp_servers=[SidecarMCPServer({...})])`` is the
one line::

    async with SidecarMCPServer({"fs": {"command": "npx", "args": [...]}}) as sidecar:
        agent = Agent(name="a", model=model, mcp_servers=[sidecar])
        await Runner.run(agent, "…")

Why an ``MCPServer`` rather than ``FunctionTool``\\ s: that is what the SDK's users already pass,
and the SDK then applies its own conversion, approval, guardrail and result rules (text, images
as data URLs, ``isError`` results given to the model as output, ``use_structured_content``) exactly
as for its native servers. Tools keep the sidecar's provider-ready names (``mcp__fs__read_file``),
so names from different servers never collide.

Cancelling a run cancels the tool call at the sidecar and the server. ``sampling=`` answers the
servers' ``sampling/createMessage`` (see :func:`agents_sampler`, which answers with an Agents SDK
``Model``). The SDK has no progress hook; ``on_progress=`` receives each progress update.

Needs ``pip install 'mcp-sidecar[openai-agents]'``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._extra import require

require("agents", "openai-agents", "mcp_sidecar.adapters.openai_agents")

import inspect  # noqa: E402

from agents import Model, ModelSettings  # noqa: E402
from agents.items import ItemHelpers  # noqa: E402
from agents.mcp import MCPServer  # noqa: E402
from agents.models.interface import ModelTracing  # noqa: E402
from mcp import types as mcp_types  # noqa: E402
from mcp.shared import exceptions as _mcp_exceptions  # noqa: E402

from .._errors import SidecarError  # noqa: E402
from ..aio import AsyncSidecar, Handler, ProgressCallback  # noqa: E402
from ._host import SidecarHost, sampling_text  # noqa: E402

__all__ = ["SidecarMCPServer", "agents_sampler"]

# mcp 1.x calls it McpError(ErrorData), mcp 2.x MCPError(code, message, data); the SDK catches
# whichever is installed and hands its message to the model through failure_error_function.
_MCPError: Any = getattr(_mcp_exceptions, "MCPError", None) or getattr(_mcp_exceptions, "McpError")


def _mcp_error(e: SidecarError) -> Exception:
    message = f"{e.code}: {e.message}"
    if len(inspect.signature(_MCPError.__init__).parameters) >= 4:
        return _MCPError(e.rpc_code, message, e.data)  # type: ignore[no-any-return]
    return _MCPError(mcp_types.ErrorData(code=e.rpc_code, message=message, data=e.data))  # type: ignore[no-any-return]


class SidecarMCPServer(MCPServer):
    """Every server of one sidecar as one Agents SDK ``MCPServer``.

    ``servers``: ``{name: config}`` added on :meth:`connect`; ``sidecar``: a running
    :class:`~mcp_sidecar.AsyncSidecar` to share instead (never closed here); ``sampling``: the
    handler of the servers' ``sampling/createMessage`` (:func:`agents_sampler` answers with a
    model); ``on_progress``: called with each progress update of a call; ``cache_tools_list``:
    list the tools once per ``tools/changed`` fingerprint instead of every run (the sidecar's
    list is already a local cache, so the default is off); ``sidecar_options``: options of the
    owned :class:`~mcp_sidecar.AsyncSidecar`. The other keywords are ``MCPServer``'s
    (``use_structured_content``, ``require_approval``, ``failure_error_function``, …).
    """

    def __init__(
        self,
        servers: Optional[Mapping[str, Mapping[str, Any]]] = None,
        *,
        name: str = "mcp-sidecar",
        sidecar: Optional[AsyncSidecar] = None,
        sampling: Optional[Handler] = None,
        on_progress: Optional[ProgressCallback] = None,
        sidecar_options: Optional[Mapping[str, Any]] = None,
        **mcp_server_options: Any,
    ) -> None:
        super().__init__(**mcp_server_options)
        self._name = name
        self._host = SidecarHost(servers, sidecar=sidecar, sampling=sampling, options=sidecar_options)
        self._on_progress = on_progress
        self._tools: Optional[List[mcp_types.Tool]] = None
        self._resource_servers: Dict[str, str] = {}

    @property
    def name(self) -> str:
        return self._name

    async def connect(self) -> None:
        """Start the sidecar (or use the shared one) and add the servers; a server that fails to
        start raises ``SidecarError`` ``SERVER_UNAVAILABLE`` naming it."""
        await self._host.sidecar()

    async def cleanup(self) -> None:
        """Close the sidecar this adapter started (every server's process tree goes with it)."""
        await self._host.close()

    async def __aenter__(self) -> "SidecarMCPServer":
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.cleanup()

    @property
    def sidecar(self) -> Optional[AsyncSidecar]:
        """The client of the running sidecar (after :meth:`connect`), for everything else it does."""
        return self._host._sidecar

    async def list_tools(self, run_context: Any = None, agent: Any = None) -> List[mcp_types.Tool]:
        entries = await self._host.tools()
        self._tools = [mcp_types.Tool.model_validate(entry["definition"]) for entry in entries]
        return self._tools

    @property
    def cached_tools(self) -> Optional[List[mcp_types.Tool]]:
        return self._tools

    async def call_tool(
        self, tool_name: str, arguments: Optional[Dict[str, Any]], meta: Optional[Dict[str, Any]] = None
    ) -> mcp_types.CallToolResult:
        try:
            result = await self._host.call(tool_name, arguments, self._on_progress)
        except SidecarError as e:
            raise _mcp_error(e) from e
        fields: Dict[str, Any] = {"content": result["content"], "isError": result["isError"]}
        if "structuredContent" in result:
            fields["structuredContent"] = result["structuredContent"]
        return mcp_types.CallToolResult.model_validate(fields)

    # -- prompts and resources: every server's, a name or URI resolved to its server ----------

    async def list_prompts(self) -> mcp_types.ListPromptsResult:
        prompts = await self._all_pages("list_prompts", "prompts")
        return mcp_types.ListPromptsResult.model_validate(
            {"prompts": [_without_server(p) for p in prompts]}
        )

    async def get_prompt(
        self, name: str, arguments: Optional[Dict[str, Any]] = None
    ) -> mcp_types.GetPromptResult:
        """A prompt by its name, or ``server/name`` when two servers have one of that name."""
        server, prompt = await self._prompt_server(name)
        sidecar = await self._host.sidecar()
        result = await sidecar.get_prompt(server, prompt, arguments, format="mcp")
        return mcp_types.GetPromptResult.model_validate({"messages": result["messages"]})

    async def list_resources(self, cursor: Optional[str] = None) -> mcp_types.ListResourcesResult:
        sidecar = await self._host.sidecar()
        page = await sidecar.list_resources(cursor=cursor)
        for resource in page["resources"]:
            self._resource_servers[resource["uri"]] = resource["server"]
        fields: Dict[str, Any] = {"resources": [_without_server(r) for r in page["resources"]]}
        if page.get("nextCursor"):
            fields["nextCursor"] = page["nextCursor"]
        return mcp_types.ListResourcesResult.model_validate(fields)

    async def list_resource_templates(
        self, cursor: Optional[str] = None
    ) -> mcp_types.ListResourceTemplatesResult:
        sidecar = await self._host.sidecar()
        page = await sidecar.list_resource_templates(cursor=cursor)
        fields: Dict[str, Any] = {
            "resourceTemplates": [_without_server(t) for t in page["resourceTemplates"]]
        }
        if page.get("nextCursor"):
            fields["nextCursor"] = page["nextCursor"]
        return mcp_types.ListResourceTemplatesResult.model_validate(fields)

    async def read_resource(self, uri: str) -> mcp_types.ReadResourceResult:
        """A resource by URI; its server is the one that listed it (all pages are listed once
        when the URI was never seen)."""
        uri = str(uri)
        if uri not in self._resource_servers:
            for resource in await self._all_pages("list_resources", "resources"):
                self._resource_servers[resource["uri"]] = resource["server"]
        server = self._resource_servers.get(uri)
        if server is None:
            raise ValueError(f"no server lists the resource {uri!r}")
        sidecar = await self._host.sidecar()
        result = await sidecar.read_resource(server, uri)
        return mcp_types.ReadResourceResult.model_validate({"contents": result["contents"]})

    async def _all_pages(self, method: str, key: str) -> List[Dict[str, Any]]:
        sidecar = await self._host.sidecar()
        items: List[Dict[str, Any]] = []
        cursor: Optional[str] = None
        # Bounded: a server whose cursor never ends is cut by the sidecar's own page bound.
        for _ in range(1000):
            page: Any = await getattr(sidecar, method)(cursor=cursor)
            items.extend(page[key])
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return items

    async def _prompt_server(self, name: str) -> Tuple[str, str]:
        prompts = await self._all_pages("list_prompts", "prompts")
        owners = [p["server"] for p in prompts if p["name"] == name]
        if len(owners) == 1:
            return owners[0], name
        server, sep, prompt = name.partition("/")
        if sep and any(p["server"] == server and p["name"] == prompt for p in prompts):
            return server, prompt
        if owners:
            raise ValueError(
                f"prompt {name!r} is on servers {sorted(owners)}: name it as 'server/{name}'"
            )
        raise ValueError(f"no server has the prompt {name!r}")


def _without_server(item: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in item.items() if k != "server"}


def agents_sampler(model: Model, *, model_settings: Optional[ModelSettings] = None) -> Handler:
    """A ``sampling/createMessage`` handler that answers with an Agents SDK ``Model`` (the
    agent's own, or any other): the request's messages become the model's input, its
    ``systemPrompt`` the instructions, ``maxTokens`` and ``temperature`` its settings; the
    model's text is the answer. Pass it as ``SidecarMCPServer(..., sampling=agents_sampler(m))``.
    """

    async def sample(params: Dict[str, Any]) -> Dict[str, Any]:
        settings = model_settings or ModelSettings()
        settings = settings.resolve(
            ModelSettings(max_tokens=params.get("maxTokens"), temperature=params.get("temperature"))
        )
        items: Any = [
            {"role": "assistant" if m["role"] == "assistant" else "user", "content": m["text"]}
            for m in sampling_text(params)
        ]
        response = await model.get_response(
            params.get("systemPrompt"),
            items,
            settings,
            [],
            None,
            [],
            ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
        text = "".join(
            ItemHelpers.extract_last_text(item) or ""
            for item in response.output
            if getattr(item, "type", None) == "message"
        )
        return {
            "role": "assistant",
            "content": {"type": "text", "text": text},
            "model": str(getattr(model, "model", None) or type(model).__name__),
            "stopReason": "endTurn",
        }

    return sample
