"""Lists the resources, resource templates and prompts of `mcp-sidecar mcp` through the official
Python SDK's client (`mcp` 2.x), reads one resource, gets one prompt and completes one argument,
over stdio or Streamable HTTP, and prints what it saw as one JSON object on stdout (the Rust test
asserts on it).

    python3 sdk_surface.py legacy|auto stdio COMMAND ARG...
    python3 sdk_surface.py legacy|auto http URL
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters
from mcp.types import PromptReference


async def main() -> None:
    mode, kind, *target = sys.argv[1:]
    server = target[0] if kind == "http" else StdioServerParameters(command=target[0], args=target[1:])
    async with Client(server, mode=mode) as client:
        resources = await client.list_resources()
        templates = await client.list_resource_templates()
        prompts = await client.list_prompts()
        read = await client.read_resource("fixture://text/readme")
        got = await client.get_prompt("fx__greet", {"name": "Ann"})
        completed = await client.complete(PromptReference(type="ref/prompt", name="fx__greet"), {"name": "name", "value": "al"})
        print(
            json.dumps(
                {
                    "protocolVersion": client.protocol_version,
                    "resources": [str(r.uri) for r in resources.resources],
                    "templates": [t.uri_template for t in templates.resource_templates],
                    "prompts": [p.name for p in prompts.prompts],
                    "read": read.contents[0].text,
                    "prompt": got.messages[0].content.text,
                    "completion": completed.completion.values,
                }
            )
        )


asyncio.run(main())
