"""One sidecar for the life of an adapter: started on first use (once, however many tasks ask at
the same time), the adapter's servers added to it, and closed with the adapter. Every framework
adapter holds one :class:`SidecarHost`; the frameworks differ only in how they turn its tools and
results into their own types.

A host either owns its sidecar (built from the client's options, closed by :meth:`close`) or is
given a running :class:`~mcp_sidecar.AsyncSidecar` to share, which it never closes.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any, Dict, List, Mapping, Optional

from .._errors import ErrorCode, SidecarError
from .._protocol import (
    SAMPLING,
    SERVERS_CHANGED,
    TOOLS_CHANGED,
    Notification,
    ServerStatus,
    ToolCallResult,
    ToolEntry,
)
from ..aio import AsyncSidecar, Handler, ProgressCallback

__all__ = ["SidecarHost", "image_bytes", "sampling_text"]


class SidecarHost:
    """The sidecar an adapter uses, and the servers it adds to it.

    ``servers``: ``{name: config}`` (a :class:`~mcp_sidecar.ServerConfig` each) added on start;
    ``sidecar``: an :class:`~mcp_sidecar.AsyncSidecar` to use instead of spawning one (not
    closed by the host; register a sampling handler on it yourself); ``sampling``: the handler of
    the servers' ``sampling/createMessage``; ``options``: :class:`~mcp_sidecar.AsyncSidecar`
    options of the owned sidecar (``binary``, ``args``, ``stderr``, …).
    """

    def __init__(
        self,
        servers: Optional[Mapping[str, Mapping[str, Any]]] = None,
        *,
        sidecar: Optional[AsyncSidecar] = None,
        sampling: Optional[Handler] = None,
        options: Optional[Mapping[str, Any]] = None,
    ) -> None:
        if sidecar is not None and (options or sampling is not None):
            raise ValueError(
                "pass either a running `sidecar` or options to start one (sidecar options, "
                "sampling), not both: a shared sidecar's handlers are registered before its start"
            )
        self.servers: Dict[str, Mapping[str, Any]] = dict(servers or {})
        self._given = sidecar
        self._sidecar: Optional[AsyncSidecar] = sidecar
        self._sampling = sampling
        self._options = dict(options or {})
        self._started = False
        # The tool list, kept until the sidecar says it changed: frameworks list the tools on
        # every model turn. `_generation` counts the changes, so a list that was being fetched
        # while one arrived is not kept.
        self._tools: Optional[List[ToolEntry]] = None
        self._generation = 0
        self._unsubscribe: Optional[Any] = None
        # Created on first use: an asyncio.Lock binds to the loop that first waits on it.
        self._lock: Optional[asyncio.Lock] = None

    async def sidecar(self) -> AsyncSidecar:
        """The running sidecar with the servers added: started on the first call."""
        if self._started and self._sidecar is not None:
            return self._sidecar
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if not self._started:
                sidecar = self._sidecar
                if sidecar is None:
                    options = dict(self._options)
                    handlers = dict(options.pop("handlers", None) or {})
                    if self._sampling is not None:
                        handlers[SAMPLING] = self._sampling
                    sidecar = AsyncSidecar(handlers=handlers, **options)
                    await sidecar.start()
                    self._sidecar = sidecar
                self._unsubscribe = sidecar.on_notification(self._on_notification)
                try:
                    # Every server starts at once (the sidecar starts them in parallel anyway).
                    statuses = await asyncio.gather(
                        *(sidecar.add_server(name, config) for name, config in self.servers.items())
                    )
                    for name, status in zip(self.servers, statuses):
                        _raise_if_failed(name, status)
                except BaseException:
                    self._unsubscribe()
                    self._unsubscribe = None
                    if self._given is None:
                        await sidecar.close()
                        self._sidecar = None
                    raise
                self._started = True
        assert self._sidecar is not None
        return self._sidecar

    def _on_notification(self, note: Notification) -> None:
        if note.method in (TOOLS_CHANGED, SERVERS_CHANGED):
            self._generation += 1
            self._tools = None

    async def tools(self) -> List[ToolEntry]:
        """Every tool of every server, definitions in the MCP shape (name, description,
        inputSchema, annotations) under the sidecar's provider-ready names; listed again only
        after ``notifications/tools/changed`` or ``servers/changed``."""
        sidecar = await self.sidecar()
        if self._tools is None:
            generation = self._generation
            tools = list((await sidecar.list_tools(format="mcp"))["tools"])
            if generation != self._generation:
                return tools
            self._tools = tools
        return self._tools

    async def call(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]],
        progress: Optional[ProgressCallback] = None,
        timeout_ms: Optional[int] = None,
    ) -> ToolCallResult:
        """``tools/call``; cancelling the awaiting task cancels it at the sidecar and server."""
        sidecar = await self.sidecar()
        return await sidecar.call_tool(
            name, arguments or {}, format="mcp", progress=progress, timeout_ms=timeout_ms
        )

    async def close(self) -> None:
        """Close the sidecar if this host started it (every server's process tree goes with it;
        a later use starts a new one); a shared one stays up. Idempotent."""
        if self._given is not None:
            return  # shared: its servers, and this host's view of them, stay
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._tools = None
        sidecar, self._sidecar, self._started = self._sidecar, None, False
        if sidecar is not None:
            await sidecar.close()


def _raise_if_failed(name: str, status: ServerStatus) -> None:
    if status.get("state") != "error":
        return
    error: Any = status.get("lastError") or {}
    message = error.get("message") if isinstance(error, dict) else str(error)
    raise SidecarError(
        ErrorCode.SERVER_UNAVAILABLE,
        f"server {name!r} did not start: {message or 'no reason given'}",
        {"server": name, "status": dict(status)},
    )


def image_bytes(block: Mapping[str, Any]) -> bytes:
    """The decoded bytes of an MCP image/audio block (``data``: base64)."""
    return base64.b64decode(str(block.get("data", "")), validate=False)


def sampling_text(params: Mapping[str, Any]) -> List[Dict[str, str]]:
    """The messages of a ``sampling/createMessage`` as ``[{role, text}]``: text blocks joined,
    other blocks named (``[image/png]``) so that the model still sees something was there."""
    out: List[Dict[str, str]] = []
    for message in params.get("messages") or []:
        content = message.get("content")
        blocks = content if isinstance(content, list) else [content]
        parts = []
        for block in blocks:
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            else:
                parts.append(f"[{block.get('mimeType') or block.get('type')}]")
        out.append({"role": str(message.get("role", "user")), "text": "\n".join(parts)})
    return out
