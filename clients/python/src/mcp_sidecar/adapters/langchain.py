"""The LangChain / LangGraph adapter: :class:`SidecarMCPClient`, shaped like
``langchain-mcp-adapters``' ``MultiServerMCPClient`` (``await client.get_tools()``), but every
tool call goes through one long-lived sidecar and its server sessions instead of a new session
per call::

    client = SidecarMCPClient({"fs": {"command": "npx", "args": [...]}})
    agent = create_react_agent(model, await client.get_tools())
    ...
    await client.aclose()          # or `async with SidecarMCPClient(...) as client:`

Each tool is a ``StructuredTool`` with the server's JSON schema as ``args_schema`` and
``response_format="content_and_artifact"``: the content is LangChain's standard blocks (text;
images, audio and binary resources as base64 blocks with ``mime_type``), the artifact
``{"structured_content": …}`` when the server sent one. A tool error (``isError``) raises
``ToolException``, which LangChain turns into a ``ToolMessage`` with ``status="error"``
(``handle_tool_error=True``); so does a call the sidecar refuses (``INVALID_ARGUMENTS``,
``TOOL_TIMEOUT``, …: the message starts with the code). A sidecar that is gone raises.

Cancelling the run (the task awaiting ``ainvoke``) cancels the call at the sidecar and server.
Progress goes to ``on_progress`` and, inside a run, to the callbacks as the custom event
``mcp_progress`` (``astream_events`` shows it). ``sampling=`` answers the servers'
``sampling/createMessage``; :func:`chat_model_sampler` answers with any chat model.

Needs ``pip install 'mcp-sidecar[langchain]'``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ._extra import require

require("langchain_core", "langchain", "mcp_sidecar.adapters.langchain")

from langchain_core.callbacks import adispatch_custom_event  # noqa: E402
from langchain_core.documents.base import Blob  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage  # noqa: E402
from langchain_core.runnables import RunnableConfig  # noqa: E402
from langchain_core.tools import BaseTool, StructuredTool, ToolException  # noqa: E402

from .._errors import CLIENT_RPC_CODE, SidecarError  # noqa: E402
from .._protocol import ToolCallResult, ToolEntry  # noqa: E402
from ..aio import AsyncSidecar, Handler, ProgressCallback  # noqa: E402
from ._host import SidecarHost, image_bytes, sampling_text  # noqa: E402

__all__ = ["SidecarMCPClient", "chat_model_sampler", "to_content_blocks"]

#: The custom callback event that carries a call's progress (its ``ProgressParams``).
PROGRESS_EVENT = "mcp_progress"


class SidecarMCPClient:
    """Every server of one sidecar as LangChain tools, for the life of the client.

    ``servers``: ``{name: config}`` (the sidecar's server config: ``command``/``args``/``env``,
    or ``url`` for remote servers) added on first use; ``sidecar``: a running
    :class:`~mcp_sidecar.AsyncSidecar` to share instead (never closed here); ``sampling``: the
    handler of ``sampling/createMessage``; ``on_progress``: called with each progress update;
    ``timeout_ms``: the sidecar's bound on each call's answer; ``sidecar_options``: options of the
    owned :class:`~mcp_sidecar.AsyncSidecar`.
    """

    def __init__(
        self,
        servers: Optional[Mapping[str, Mapping[str, Any]]] = None,
        *,
        sidecar: Optional[AsyncSidecar] = None,
        sampling: Optional[Handler] = None,
        on_progress: Optional[ProgressCallback] = None,
        timeout_ms: Optional[int] = None,
        sidecar_options: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self._host = SidecarHost(servers, sidecar=sidecar, sampling=sampling, options=sidecar_options)
        self._on_progress = on_progress
        self._timeout_ms = timeout_ms

    async def __aenter__(self) -> "SidecarMCPClient":
        await self._host.sidecar()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the sidecar this client started, with every server's process tree."""
        await self._host.close()

    @property
    def sidecar(self) -> Optional[AsyncSidecar]:
        """The client of the running sidecar (after first use), for everything else it does."""
        return self._host._sidecar

    async def get_tools(self, *, server_name: Optional[str] = None) -> List[BaseTool]:
        """The tools of every server (or of ``server_name``), named as the sidecar exposes them
        (``mcp__server__tool``: valid for every provider, never colliding)."""
        entries = await self._host.tools()
        return [self._tool(e) for e in entries if server_name in (None, e["server"])]

    async def get_prompt(
        self, server_name: str, prompt_name: str, *, arguments: Optional[Mapping[str, Any]] = None
    ) -> List[BaseMessage]:
        """A server's prompt as LangChain messages (text; other blocks as standard blocks)."""
        sidecar = await self._host.sidecar()
        result = await sidecar.get_prompt(server_name, prompt_name, dict(arguments or {}), format="mcp")
        messages: List[BaseMessage] = []
        for message in result["messages"]:
            blocks = to_content_blocks([message.get("content") or {}])
            content: Any = blocks[0]["text"] if len(blocks) == 1 and blocks[0]["type"] == "text" else blocks
            cls = AIMessage if message.get("role") == "assistant" else HumanMessage
            messages.append(cls(content=content))
        return messages

    async def get_resources(
        self, server_name: Optional[str] = None, *, uris: Optional[Sequence[str]] = None
    ) -> List[Blob]:
        """Resources as LangChain ``Blob``\\ s (``metadata["uri"]``, ``metadata["server"]``): the
        ``uris`` given, or every resource listed by ``server_name`` (every server's when
        ``None``); a URI is read from the server that listed it."""
        sidecar = await self._host.sidecar()
        listed: List[Mapping[str, Any]] = []
        cursor: Optional[str] = None
        for _ in range(1000):  # bounded: the sidecar also bounds a server's pages
            page = await sidecar.list_resources(server_name, cursor=cursor)
            listed.extend(page["resources"])
            cursor = page.get("nextCursor")
            if not cursor:
                break
        owner = {r["uri"]: r["server"] for r in listed}
        wanted = list(uris) if uris is not None else [r["uri"] for r in listed]
        blobs: List[Blob] = []
        for uri in wanted:
            if uri not in owner:
                raise ValueError(f"no server lists the resource {uri!r}")
            read = await sidecar.read_resource(owner[uri], uri)
            for item in read["contents"]:
                data: Any = item["text"] if "text" in item else image_bytes({"data": item.get("blob", "")})
                meta = {"uri": item.get("uri", uri), "server": owner[uri]}
                blobs.append(Blob.from_data(data, mime_type=item.get("mimeType"), metadata=meta))
        return blobs

    def _tool(self, entry: ToolEntry) -> StructuredTool:
        definition = entry["definition"]
        name = entry["name"]
        host, on_progress, timeout_ms = self._host, self._on_progress, self._timeout_ms

        async def call(lc_config: RunnableConfig, **arguments: Any) -> Tuple[Any, Any]:
            progress = _progress_relay(on_progress, lc_config)
            try:
                result = await host.call(name, arguments, progress, timeout_ms)
            except SidecarError as e:
                if e.rpc_code == CLIENT_RPC_CODE:
                    raise  # the sidecar is gone or the client timed out: not the model's business
                raise ToolException(f"{e.code}: {e.message}") from e
            return _content_and_artifact(result)

        metadata = dict(definition.get("annotations") or {})
        metadata.update({"server": entry["server"], "tool": entry["tool"]})
        return StructuredTool(
            name=name,
            description=str(definition.get("description") or ""),
            args_schema=dict(definition.get("inputSchema") or {"type": "object", "properties": {}}),
            coroutine=call,
            response_format="content_and_artifact",
            handle_tool_error=True,
            metadata=metadata,
        )


def _progress_relay(on_progress: Optional[ProgressCallback], config: RunnableConfig) -> ProgressCallback:
    async def relay(params: Any) -> None:
        if on_progress is not None:
            maybe = on_progress(params)
            if maybe is not None:
                await maybe
        if config.get("callbacks") is not None:
            await adispatch_custom_event(PROGRESS_EVENT, dict(params), config=config)

    return relay


def _content_and_artifact(result: ToolCallResult) -> Tuple[Any, Any]:
    blocks = to_content_blocks(result["content"])
    if result["isError"]:
        raise ToolException(result["text"] or "the tool reported an error without text")
    artifact = (
        {"structured_content": result["structuredContent"]} if "structuredContent" in result else None
    )
    return blocks, artifact


def to_content_blocks(content: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """MCP content blocks as LangChain standard content blocks."""
    blocks: List[Dict[str, Any]] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": block.get("text", "")})
        elif kind in ("image", "audio"):
            blocks.append({"type": kind, "base64": block.get("data", ""), "mime_type": block.get("mimeType")})
        elif kind == "resource":
            resource = block.get("resource") or {}
            if "text" in resource:
                blocks.append({"type": "text", "text": resource["text"]})
            else:
                blocks.append(
                    {"type": "file", "base64": resource.get("blob", ""), "mime_type": resource.get("mimeType")}
                )
        elif kind == "resource_link":
            blocks.append({"type": "text", "text": f"{block.get('name', '')} {block.get('uri', '')}".strip()})
        else:
            blocks.append({"type": "text", "text": str(dict(block))})
    return blocks


def chat_model_sampler(model: BaseChatModel) -> Handler:
    """A ``sampling/createMessage`` handler that answers with a LangChain chat model (the
    agent's own, or any other): ``systemPrompt`` becomes a ``SystemMessage``, the request's
    messages ``HumanMessage``/``AIMessage``\\ s, and the model's text the answer."""

    async def sample(params: Dict[str, Any]) -> Dict[str, Any]:
        messages: List[BaseMessage] = []
        if params.get("systemPrompt"):
            messages.append(SystemMessage(content=str(params["systemPrompt"])))
        for m in sampling_text(params):
            cls = AIMessage if m["role"] == "assistant" else HumanMessage
            messages.append(cls(content=m["text"]))
        reply = await model.ainvoke(messages)
        return {
            "role": "assistant",
            "content": {"type": "text", "text": _text_of(reply)},
            "model": str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__),
            "stopReason": "endTurn",
        }

    return sample


def _text_of(message: Any) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    return "".join(
        str(b.get("text", "")) if isinstance(b, Mapping) else str(b) for b in content or []
    )
