"""The Pydantic AI adapter: :class:`SidecarToolset`, an ``AbstractToolset`` with every tool of
every server of one sidecar, so ``Agent(model, toolsets=[SidecarToolset({...})])`` is the one
line::

    toolset = SidecarToolset({"fs": {"command": "npx", "args": [...]}})
    agent = Agent("openai:gpt-5", toolsets=[toolset])
    async with agent:              # one sidecar and its server sessions for every run inside
        await agent.run("…")

Like Pydantic AI's own ``MCPToolset``, the toolset starts on its first ``__aenter__`` (the agent
enters it for each run, or once under ``async with agent:``) and stops at its last
``__aexit__``. Results map as ``MCPToolset`` maps them: structured content when the text only
repeats it, else text (parsed when it is JSON), images as ``BinaryImage``, other binary content as
``BinaryContent``; one item is unwrapped. A tool error (``isError``) and a call the sidecar
refuses (``INVALID_ARGUMENTS``, ``TOOL_TIMEOUT``, …) follow ``tool_error_behavior``: ``"retry"``
(default: ``ModelRetry``, the model may try again), ``"failed"`` (``ToolFailed``: the model sees
it and adapts) or ``"error"`` (the exception ends the run). A sidecar that is gone raises.

Cancelling the run cancels the call at the sidecar and server. ``sampling_model=`` answers the
servers' ``sampling/createMessage`` with a Pydantic AI model (the agent's own, say), as
``MCPToolset(sampling_model=…)`` does; ``on_progress`` receives each progress update.

Needs ``pip install 'mcp-sidecar[pydantic-ai]'``.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Literal, Mapping, Optional

from ._extra import require

require("pydantic_ai", "pydantic-ai", "mcp_sidecar.adapters.pydantic_ai")

from pydantic_ai import exceptions as pai_exceptions  # noqa: E402
from pydantic_ai import messages as pai_messages  # noqa: E402
from pydantic_ai.direct import model_request  # noqa: E402
from pydantic_ai.models import Model  # noqa: E402
from pydantic_ai.settings import ModelSettings  # noqa: E402
from pydantic_ai.tools import RunContext, ToolDefinition  # noqa: E402
from pydantic_ai.toolsets import AbstractToolset  # noqa: E402
from pydantic_ai.toolsets.abstract import ToolsetTool  # noqa: E402
from pydantic_core import SchemaValidator, core_schema  # noqa: E402

from .._errors import CLIENT_RPC_CODE, ErrorCode, SidecarError  # noqa: E402
from .._protocol import ToolCallResult  # noqa: E402
from ..aio import AsyncSidecar, Handler, ProgressCallback  # noqa: E402
from ._host import SidecarHost, image_bytes, sampling_text  # noqa: E402

__all__ = ["SidecarToolset", "model_sampler"]

# The server validates its own arguments (and the sidecar checks them against the schema before
# the call): the toolset takes any JSON object, as MCPToolset does for JSON-schema tools.
_ANY_ARGS = SchemaValidator(core_schema.any_schema())

ToolErrorBehavior = Literal["retry", "failed", "error"]


class SidecarToolset(AbstractToolset[Any]):
    """Every server of one sidecar as one Pydantic AI toolset.

    ``servers``: ``{name: config}`` added on start; ``id``: the toolset's id (default
    ``"mcp-sidecar"``; unique per agent); ``sidecar``: a running
    :class:`~mcp_sidecar.AsyncSidecar` to share instead (never closed here);
    ``sampling_model`` / ``sampling``: answer ``sampling/createMessage`` with a model, or with
    your own handler; ``on_progress``: called with each progress update; ``max_retries``: of a
    tool after ``ModelRetry``; ``timeout_ms``: the sidecar's bound on each call's answer;
    ``sidecar_options``: options of the owned :class:`~mcp_sidecar.AsyncSidecar`.
    """

    def __init__(
        self,
        servers: Optional[Mapping[str, Mapping[str, Any]]] = None,
        *,
        id: Optional[str] = "mcp-sidecar",
        sidecar: Optional[AsyncSidecar] = None,
        sampling_model: Optional[Model] = None,
        sampling: Optional[Handler] = None,
        on_progress: Optional[ProgressCallback] = None,
        tool_error_behavior: ToolErrorBehavior = "retry",
        max_retries: int = 1,
        timeout_ms: Optional[int] = None,
        sidecar_options: Optional[Mapping[str, Any]] = None,
    ) -> None:
        if sampling_model is not None and sampling is not None:
            raise ValueError("pass either `sampling_model` or `sampling`, not both")
        if sampling_model is not None:
            sampling = model_sampler(sampling_model)
        self._id = id
        self._host = SidecarHost(servers, sidecar=sidecar, sampling=sampling, options=sidecar_options)
        self._on_progress = on_progress
        self.tool_error_behavior: ToolErrorBehavior = tool_error_behavior
        self.max_retries = max_retries
        self._timeout_ms = timeout_ms
        self._entered = 0

    @property
    def id(self) -> Optional[str]:
        return self._id

    @property
    def sidecar(self) -> Optional[AsyncSidecar]:
        """The client of the running sidecar (while entered), for everything else it does."""
        return self._host._sidecar

    async def __aenter__(self) -> "SidecarToolset":
        self._entered += 1
        try:
            await self._host.sidecar()
        except BaseException:
            self._entered -= 1
            raise
        return self

    async def __aexit__(self, *args: Any) -> Optional[bool]:
        self._entered -= 1
        if self._entered == 0:
            await self._host.close()
        return None

    async def get_tools(self, ctx: RunContext[Any]) -> Dict[str, ToolsetTool[Any]]:
        tools: Dict[str, ToolsetTool[Any]] = {}
        for entry in await self._host.tools():
            definition = entry["definition"]
            tool_def = ToolDefinition(
                name=entry["name"],
                description=definition.get("description"),
                parameters_json_schema=definition.get("inputSchema") or {"type": "object", "properties": {}},
                metadata={
                    "server": entry["server"],
                    "tool": entry["tool"],
                    "annotations": definition.get("annotations"),
                },
            )
            tools[entry["name"]] = ToolsetTool(
                toolset=self, tool_def=tool_def, max_retries=self.max_retries, args_validator=_ANY_ARGS
            )
        return tools

    async def call_tool(
        self, name: str, tool_args: Dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        try:
            result = await self._host.call(name, tool_args, self._on_progress, self._timeout_ms)
        except SidecarError as e:
            if e.rpc_code == CLIENT_RPC_CODE or self.tool_error_behavior == "error":
                raise
            self._fail(f"{e.code}: {e.message}", e)
        if result["isError"]:
            message = result["text"] or "the tool reported an error without text"
            if self.tool_error_behavior == "error":
                raise SidecarError(
                    ErrorCode.UPSTREAM_ERROR,
                    f"tool {name!r} reported an error: {message}",
                    {"server": result["server"], "tool": result["tool"], "content": result["content"]},
                )
            self._fail(message, None)
        return map_result(result)

    def _fail(self, message: str, cause: Optional[BaseException]) -> Any:
        if self.tool_error_behavior == "failed":
            raise pai_exceptions.ToolFailed(message=message) from cause
        raise pai_exceptions.ModelRetry(message) from cause


def map_result(result: ToolCallResult) -> Any:
    """A tool result as Pydantic AI's tool return value (the rules of ``MCPToolset``)."""
    content = result["content"]
    structured = result.get("structuredContent")
    if structured is not None and all(b.get("type") == "text" for b in content):
        if isinstance(structured, dict) and len(structured) == 1 and "result" in structured:
            return structured["result"]
        return structured
    mapped = [_map_block(block) for block in content]
    return mapped[0] if len(mapped) == 1 else mapped


def _map_block(block: Mapping[str, Any]) -> Any:
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text", ""))
        if text.startswith(("[", "{")):
            try:
                return json.loads(text)
            except ValueError:
                pass
        return text
    if kind == "image":
        return pai_messages.BinaryImage(data=image_bytes(block), media_type=str(block.get("mimeType")))
    if kind == "audio":
        return pai_messages.BinaryContent(data=image_bytes(block), media_type=str(block.get("mimeType")))
    if kind == "resource":
        resource = block.get("resource") or {}
        if "text" in resource:
            return str(resource["text"])
        return pai_messages.BinaryContent(
            data=image_bytes({"data": resource.get("blob", "")}),
            media_type=str(resource.get("mimeType") or "application/octet-stream"),
        )
    return dict(block)


def model_sampler(model: Model, *, model_settings: Optional[ModelSettings] = None) -> Handler:
    """A ``sampling/createMessage`` handler that answers with a Pydantic AI model: the request's
    ``systemPrompt`` and messages become the model's messages, ``maxTokens`` / ``temperature``
    its settings, and the model's text the answer."""

    async def sample(params: Dict[str, Any]) -> Dict[str, Any]:
        settings: ModelSettings = dict(model_settings or {})  # type: ignore[assignment]
        if params.get("maxTokens") is not None:
            settings["max_tokens"] = int(params["maxTokens"])
        if params.get("temperature") is not None:
            settings["temperature"] = float(params["temperature"])
        history: List[pai_messages.ModelMessage] = []
        request: List[pai_messages.ModelRequestPart] = []
        if params.get("systemPrompt"):
            request.append(pai_messages.SystemPromptPart(content=str(params["systemPrompt"])))
        for m in sampling_text(params):
            if m["role"] == "assistant":
                if request:
                    history.append(pai_messages.ModelRequest(parts=request))
                    request = []
                history.append(pai_messages.ModelResponse(parts=[pai_messages.TextPart(content=m["text"])]))
            else:
                request.append(pai_messages.UserPromptPart(content=m["text"]))
        if request:
            history.append(pai_messages.ModelRequest(parts=request))
        response = await model_request(model, history, model_settings=settings)
        text = "".join(p.content for p in response.parts if isinstance(p, pai_messages.TextPart))
        return {
            "role": "assistant",
            "content": {"type": "text", "text": text},
            "model": model.model_name,
            "stopReason": "endTurn",
        }

    return sample
