"""What `mcp-sidecar mcp` passes on besides answers, seen by the official Python SDK's client
(`mcp` 2.x): a call's progress reaches its `progress_callback`; in the legacy era a server's log
reaches the `logging_callback` once the client set a level, and the client's roots change reaches
the server, which asks the client for its roots again. Prints what it saw as one JSON object.

    python3 sdk_relay.py legacy|auto stdio COMMAND ARG...
    python3 sdk_relay.py legacy|auto http URL

Waits are for callbacks (an asyncio.Event), each bounded so that a missing one fails the run.
"""

import asyncio
import json
import sys
import warnings

import mcp.types as types
from mcp import Client, StdioServerParameters

BOUND = 20.0
PROGRESS = []
LOGS = []
LOGGED = asyncio.Event()
ROOTS_ASKED = asyncio.Event()


async def on_progress(progress, total, message):
    PROGRESS.append({"progress": progress, "total": total, "message": message})


async def on_log(params):
    LOGS.append({"level": params.level, "logger": params.logger, "data": params.data})
    if params.data == "from the server":
        LOGGED.set()


async def roots(context):
    ROOTS_ASKED.set()
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


async def main() -> None:
    mode, kind, *target = sys.argv[1:]
    warnings.simplefilter("ignore")  # logging and roots are deprecated in 2026-07-28
    server = target[0] if kind == "http" else StdioServerParameters(command=target[0], args=target[1:])
    async with Client(server, mode=mode, logging_callback=on_log, list_roots_callback=roots) as client:
        seen = {"protocolVersion": client.protocol_version}
        done = await client.call_tool("fx__progress", {"steps": 3}, progress_callback=on_progress)
        seen["progressResult"] = done.structured_content
        seen["progress"] = PROGRESS
        if mode == "legacy":
            await client.set_logging_level("info")
            await client.call_tool("fx__emit", {"kind": "log", "level": "debug", "data": "too low"})
            await client.call_tool(
                "fx__emit", {"kind": "log", "level": "warning", "logger": "db", "data": "from the server"}
            )
            await asyncio.wait_for(LOGGED.wait(), BOUND)
            seen["logs"] = LOGS
            await client.send_roots_list_changed()
            await asyncio.wait_for(ROOTS_ASKED.wait(), BOUND)
            state = await client.call_tool("fx__client_state", {})
            seen["rootsListChanged"] = state.structured_content["rootsListChanged"]
        print(json.dumps(seen))


asyncio.run(main())
