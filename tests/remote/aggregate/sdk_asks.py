"""A server's sampling, elicitation and roots requests reach the official Python SDK's client
(`mcp` 2.x) through `mcp-sidecar mcp`: the fixture's `ask` tool asks its client, and its answer is
the call's result. In the legacy era the sidecar asks the client with requests of its own; in the
2026-07-28 era (`auto`) through `input_required` results the SDK answers with the same callbacks.
Prints what each call got as one JSON object.

    python3 sdk_asks.py legacy|auto stdio COMMAND ARG...
    python3 sdk_asks.py legacy|auto http URL
"""

import asyncio
import json
import sys

import mcp.types as types
from mcp import Client, StdioServerParameters

ASKED = []


def server_of(params):
    """The server the sidecar names as the one asking."""
    meta = params.meta if isinstance(params.meta, dict) else (params.meta.model_dump() if params.meta else {})
    return meta.get("mcp-sidecar/server")


async def sampling(context, params):
    ASKED.append(server_of(params))
    text = params.messages[0].content.text
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=f"echo: {text}"), model="fake-model"
    )


async def elicitation(context, params):
    ASKED.append(server_of(params))
    return types.ElicitResult(action="accept", content={"name": "Ada"})


async def roots(context):
    ASKED.append("roots")
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


async def main() -> None:
    mode, kind, *target = sys.argv[1:]
    server = target[0] if kind == "http" else StdioServerParameters(command=target[0], args=target[1:])
    async with Client(
        server,
        mode=mode,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
    ) as client:
        asks = {
            "sampling": {
                "method": "sampling/createMessage",
                "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5},
            },
            "elicitation": {
                "method": "elicitation/create",
                "params": {
                    "message": "Your name?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
                },
            },
            "roots": {"method": "roots/list", "params": {}},
        }
        got = {}
        for key, arguments in asks.items():
            result = await client.call_tool("fx__ask", arguments)
            got[key] = result.structured_content
        print(json.dumps({"protocolVersion": client.protocol_version, "got": got, "asked": ASKED}))


asyncio.run(main())
