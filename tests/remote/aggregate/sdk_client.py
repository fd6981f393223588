"""Lists and calls the tools of `mcp-sidecar mcp` through the official Python SDK's client (`mcp`
2.x), over stdio or Streamable HTTP, and prints what it saw as one JSON object on stdout (the Rust
test asserts on it).

    python3 sdk_client.py legacy|auto stdio COMMAND ARG...
    python3 sdk_client.py legacy|auto http URL

`auto` negotiates the protocol era (against the sidecar: 2026-07-28); `legacy` uses `initialize`.
"""

import asyncio
import json
import sys

from mcp import Client, MCPError, StdioServerParameters


async def main() -> None:
    mode, kind, *target = sys.argv[1:]
    server = target[0] if kind == "http" else StdioServerParameters(command=target[0], args=target[1:])
    async with Client(server, mode=mode) as client:
        listed = await client.list_tools()
        call = await client.call_tool("fx__echo", {"message": "from python"})
        invalid = await client.call_tool("fx__echo", {"message": 7})
        try:
            await client.call_tool("fx__nope", {})
            unknown = None
        except MCPError as e:
            unknown = e.error.code
        print(
            json.dumps(
                {
                    "protocolVersion": client.protocol_version,
                    "server": client.server_info.name if client.server_info else None,
                    "tools": [t.name for t in listed.tools],
                    "text": call.content[0].text,
                    "structured": call.structured_content,
                    "invalidIsError": invalid.is_error,
                    "unknownCode": unknown,
                }
            )
        )


asyncio.run(main())
