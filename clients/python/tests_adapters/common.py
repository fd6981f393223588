"""What the adapter tests share: the fixture's servers, its tool names, and how to see that a
cancel reached the server."""

from __future__ import annotations

import asyncio
from typing import Any, Dict

import support

#: The fixture as server "fx", with the tools that ask the client (`ask`, `progress`) and the
#: resources and prompts surface.
SERVERS: Dict[str, Dict[str, Any]] = {
    "fx": support.fixture_config("--client-requests", "--surface")
}
SIDECAR_OPTIONS: Dict[str, Any] = {"binary": support.SIDECAR_BIN}

ECHO = "mcp__fx__echo"
IMAGE = "mcp__fx__image"
FAIL = "mcp__fx__fail"
ASK = "mcp__fx__ask"
PROGRESS = "mcp__fx__progress"

#: The fixture's 1x1 PNG, as its `image` tool returns it (base64).
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

#: `ask` arguments that make the fixture send its client a sampling request.
SAMPLING_ASK = {
    "method": "sampling/createMessage",
    "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Name a colour."}}],
        "maxTokens": 20,
    },
}


class Blocker:
    """A sampling handler that never answers until cancelled: it tells when the server's request
    reached the host (so the call is in flight at the server) and when it was withdrawn (the
    cancel of the call reached the server, which withdrew its request)."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.withdrawn = asyncio.Event()

    async def __call__(self, params: Dict[str, Any]) -> Dict[str, Any]:
        self.asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.withdrawn.set()
            raise
        raise AssertionError("unreachable")


async def cancel_run_at_server(run: "asyncio.Task[Any]", blocker: Blocker) -> None:
    """Cancel an agent run whose tool call is blocked at the server and check that the cancel
    travelled through the adapter, the sidecar and the server back to the host's handler."""
    await asyncio.wait_for(blocker.asked.wait(), support.CALL_TIMEOUT)
    run.cancel()
    try:
        await asyncio.wait_for(run, support.CALL_TIMEOUT)
    except asyncio.CancelledError:
        pass
    except Exception:  # a framework may wrap the cancel into its own error: the run still ended
        pass
    await asyncio.wait_for(blocker.withdrawn.wait(), support.CALL_TIMEOUT)
